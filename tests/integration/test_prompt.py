"""-p without a value asks for the password on the terminal, without echo;
Ctrl-C at the prompt ends the run quietly. Driven through a pseudo-terminal,
as a person at a terminal would.

The program turns echo off with TCSAFLUSH, which throws away what was typed
before, and only then writes its prompt, as getpass(3) does: what is typed
once the prompt shows is kept. SIGINT and SIGTERM are blocked but while the
program waits for the line, so one that comes at any moment ends it. The
tests that check those two orders slow the program's terminal settings
down under strace(1), which makes the moments that used to race last long
enough to hit every time. Every wait is on a condition, bounded by a
generous deadline."""

import os
import pty
import select
import shutil
import signal
import termios
import time

import mmp

# Far more than a run needs on an idle machine; a busy one may need seconds.
TIMEOUT = mmp.RUN_TIMEOUT


class Terminal:
    """The binary on a new pseudo-terminal; .out is what it wrote there."""

    def __init__(self, args, prefix=(), **env_extra):
        self.pid, self.fd = pty.fork()
        if self.pid == 0:
            env = mmp.base_env(MYSQL_PWD=None, **env_extra)
            argv = list(prefix) + [mmp.BIN] + args
            os.execve(argv[0], argv, env)
        self.out = b""
        self.status = None
        self.eof = False
        self.closed = False

    def _fail(self, what):
        raise AssertionError("%s; the terminal so far: %r" % (what, self.out))

    def _read(self, deadline):
        """Reads what the program wrote, waiting until deadline at most;
        False when the deadline passed with nothing to read."""
        left = deadline - time.monotonic()
        if left <= 0 or not select.select([self.fd], [], [], left)[0]:
            return False
        try:
            chunk = os.read(self.fd, 4096)
        except OSError:  # EIO: the program closed the terminal
            chunk = b""
        if not chunk:
            self.eof = True
        self.out += chunk
        return True

    def read_until(self, needle, timeout=TIMEOUT):
        deadline = time.monotonic() + timeout
        while needle not in self.out:
            if self.eof:
                self._fail("the program closed the terminal before %r" % needle)
            if not self._read(deadline):
                self._fail("no %r in %s s" % (needle, timeout))

    def _poll(self, ready, what, timeout):
        """Waits until ready() is true, looking every 10 ms, while the
        program runs."""
        deadline = time.monotonic() + timeout
        while not ready():
            if self.status is None:
                done, status = os.waitpid(self.pid, os.WNOHANG)
                if done:
                    self.status = os.waitstatus_to_exitcode(status)
            if self.status is not None:
                self._fail("the program ended (%d) before %s" %
                           (self.status, what))
            if time.monotonic() >= deadline:
                self._fail("%s: not in %s s" % (what, timeout))
            time.sleep(0.01)

    def wait_echo_off(self, timeout=TIMEOUT):
        """Until the program has turned echo off: the master side of a
        pseudo-terminal reads the settings of its terminal."""
        self._poll(lambda: not termios.tcgetattr(self.fd)[3] & termios.ECHO,
                   "echo off", timeout)

    def wait_blocked(self, timeout=TIMEOUT):
        """Until the program sleeps in the kernel: once echo is off, that
        is the read of the password, the only thing left to wait on."""
        def sleeping():
            with open("/proc/%d/stat" % self.pid) as f:
                return f.read().rsplit(")", 1)[1].split()[0] == "S"
        self._poll(sleeping, "blocked reading", timeout)

    def type(self, data):
        os.write(self.fd, data)

    def finish(self, timeout=TIMEOUT):
        """Reads the terminal to its end, then waits for the program's exit
        status, within timeout in all; kills the program if it is over."""
        deadline = time.monotonic() + timeout
        while not self.eof and self._read(deadline):
            pass
        while self.status is None and time.monotonic() < deadline:
            done, status = os.waitpid(self.pid, os.WNOHANG)
            if done:
                self.status = os.waitstatus_to_exitcode(status)
            else:
                time.sleep(0.01)
        if self.status is None:
            self.close()
            self._fail("the program did not end in %s s" % timeout)
        return self.status

    def close(self):
        """Kills the program if it still runs; closes the terminal."""
        if self.status is None:
            os.kill(self.pid, signal.SIGKILL)
            os.waitpid(self.pid, 0)
            self.status = -signal.SIGKILL
        if not self.closed:
            os.close(self.fd)
            self.closed = True


class Prompt(mmp.TestCase):

    def spawn(self, args, prefix=(), **env_extra):
        t = Terminal(args, prefix, **env_extra)
        self.addCleanup(t.close)
        return t

    @staticmethod
    def children(pid):
        try:
            with open("/proc/%d/task/%d/children" % (pid, pid)) as f:
                return [int(k) for k in f.read().split()]
        except OSError:
            return []

    def spawn_slowed(self, args):
        """The program under strace, each of its ioctl()s (the terminal's
        settings) taking 0.5 s more to return. .tracee is its pid."""
        strace = shutil.which("strace")
        if strace is None:
            raise AssertionError("strace is missing; scripts/deps.sh "
                                 "installs it")
        t = self.spawn(args, [strace, "-f", "-qq", "-o", "/dev/null", "-e",
                              "trace=ioctl", "-e",
                              "inject=ioctl:delay_exit=500000"],
                       # LeakSanitizer cannot work under ptrace.
                       ASAN_OPTIONS=os.environ.get("ASAN_OPTIONS", "") +
                       ":detect_leaks=0")
        deadline = time.monotonic() + TIMEOUT
        while time.monotonic() < deadline:
            # strace may fork a helper first: the tracee is the child that
            # runs the binary.
            for kid in self.children(t.pid):
                try:
                    if os.readlink("/proc/%d/exe" % kid) == \
                            os.path.realpath(mmp.BIN):
                        t.tracee = kid
                        return t
                except OSError:
                    pass
            time.sleep(0.01)
        raise AssertionError("strace started no program")

    def test_password_typed_without_echo(self):
        t = self.spawn(["--socket", mmp.SOCKET, "-u", "mmp", "-p",
                        "--list", "--format", "csv"])
        t.read_until(b"Enter password:")
        t.wait_echo_off()
        t.type(mmp.MMP_PASSWORD.encode() + b"\n")
        self.assertEqual(t.finish(), 0, t.out)
        self.assertNotIn(mmp.MMP_PASSWORD.encode(), t.out)
        self.assertIn(b"thread_id,connection_id", t.out)
        self.assertIn(b"FOREGROUND", t.out)

    def test_ctrl_c_at_the_prompt(self):
        t = self.spawn(["--socket", mmp.SOCKET, "-u", "mmp", "-p", "--list"])
        t.read_until(b"password:")
        t.wait_echo_off()
        t.type(b"half")
        t.wait_blocked()
        t.type(b"\x03")  # the terminal sends SIGINT
        self.assertEqual(t.finish(), 0, t.out)
        self.assertNotIn(b"thread_id", t.out)
        self.assertNotIn(b"mysqlmemprof:", t.out)

    def test_typing_once_the_prompt_shows_is_kept(self):
        # The prompt shows only once echo is off and the flush is done, so
        # a person may type at once: nothing typed after it is thrown away.
        t = self.spawn_slowed(["--socket", mmp.SOCKET, "-u", "mmp", "-p",
                               "--list", "--format", "csv"])
        t.read_until(b"Enter password:")
        self.assertFalse(termios.tcgetattr(t.fd)[3] & termios.ECHO,
                         "echo still on when the prompt showed")
        t.type(mmp.MMP_PASSWORD.encode() + b"\n")
        self.assertEqual(t.finish(), 0, t.out)
        self.assertNotIn(mmp.MMP_PASSWORD.encode(), t.out)
        self.assertIn(b"thread_id,connection_id", t.out)

    def test_a_signal_before_the_read_is_not_lost(self):
        # SIGINT and SIGTERM sent while the program sets the terminal up,
        # before it waits for the line: the run ends, and a password typed
        # afterwards does not start sampling.
        for sig in (signal.SIGINT, signal.SIGTERM):
            with self.subTest(sig=sig.name):
                t = self.spawn_slowed(["--socket", mmp.SOCKET, "-u", "mmp",
                                       "-p", "--list", "--format", "csv"])
                # The first ioctl (reading the settings) is slowed too:
                # the handlers are in place once the prompt shows.
                t.read_until(b"password:")
                os.kill(t.tracee, sig)
                time.sleep(0.7)
                if t.status is None and not t.closed:
                    try:
                        t.type(mmp.MMP_PASSWORD.encode() + b"\n")
                    except OSError:
                        pass
                self.assertEqual(t.finish(timeout=10), 0, t.out)
                self.assertNotIn(b"thread_id", t.out)
                self.assertNotIn(b"mysqlmemprof:", t.out)
