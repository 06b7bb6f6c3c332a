"""Nothing blocks past a signal: SIGINT and SIGTERM end the run within about
a second wherever the program waits (connecting, a query, a write), with
the samples taken written and the output closed."""

import fcntl
import os
import signal
import socket
import subprocess
import time

import mmp

# How long a signalled run may take to end: the waits look at the stop flag
# every 100 ms and let a query in flight finish for 300 ms; the rest is
# slack for a busy machine.
PROMPT_S = 1.5


def blocked(pid):
    """Whether the process sleeps in the kernel."""
    with open("/proc/%d/stat" % pid) as f:
        return f.read().rsplit(")", 1)[1].split()[0] == "S"


def wait_blocked(pid, timeout=10):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if blocked(pid):
            return
        time.sleep(0.02)
    raise AssertionError("process %d never waited" % pid)


class Signals(mmp.TestCase):

    def ended_promptly(self, proc, sig):
        t0 = time.monotonic()
        p = proc.finish(sig, timeout=mmp.RUN_TIMEOUT)
        took = time.monotonic() - t0
        self.assertLess(took, PROMPT_S, "%s took %.1f s%s" %
                        (sig.name, took, mmp.describe(p)))
        return p

    def test_signal_ends_a_connect_to_a_silent_server(self):
        # A listening socket that never accepts: the kernel completes the
        # TCP handshake, and the server's greeting never comes.
        for sig in (signal.SIGINT, signal.SIGTERM):
            with self.subTest(sig=sig.name), socket.socket() as s:
                s.bind(("127.0.0.1", 0))
                s.listen(4)
                proc = self.spawn(["-h", "127.0.0.1", "-P",
                                   str(s.getsockname()[1]), "-u", "mmp",
                                   "--connect-timeout", "30", "--thread",
                                   "1", "--count", "1"], conn=False)
                time.sleep(0.3)
                wait_blocked(proc.pid)
                p = self.ended_promptly(proc, sig)
                # Nothing was sampled: as Ctrl-C at the password prompt.
                self.assertEqual(p.returncode, 0, mmp.describe(p))
                self.assertEqual(p.stdout, "")
                self.assertNotIn("cannot connect", p.stderr)

    def test_sigterm_ends_a_query_to_a_frozen_server(self):
        w = self.start(mmp.idle(30))
        proc = self.spawn(["--thread", str(w.thread_id), "--format", "json",
                           "--frequency", "50", "--read-timeout", "30",
                           "--connect-timeout", "30"])
        proc.stdout_line()
        with mmp.frozen_server():
            time.sleep(0.5)
            p = self.ended_promptly(proc, signal.SIGTERM)
        self.assertEqual(p.returncode, 0, mmp.describe(p))
        samples = mmp.parse_json_lines(p.stdout)
        self.assertGreaterEqual(len(samples), 1, mmp.describe(p))
        self.assertEqual([s["sample"] for s in samples],
                         list(range(1, len(samples) + 1)))

    def test_sigterm_while_waiting_on_a_frozen_server_is_no_error(self):
        # A look of --wait-for cut short by the stop is not a lost
        # connection to report, even with --reconnect-timeout 0.
        proc = self.spawn(["--wait-for", "%never matches this%", "--poll",
                           "100", "--reconnect-timeout", "0",
                           "--read-timeout", "30"])
        proc.wait_for_stderr("waiting for")
        with mmp.frozen_server():
            time.sleep(0.5)
            p = self.ended_promptly(proc, signal.SIGTERM)
        self.assertEqual(p.returncode, 0, mmp.describe(p))
        self.assertNotIn("lost the connection", p.stderr, mmp.describe(p))


def wchan(pid):
    try:
        with open("/proc/%d/wchan" % pid) as f:
            return f.read()
    except OSError:
        return ""


class StalledReader(mmp.TestCase):
    """Standard output is a pipe whose reader stopped reading, as in
    `mysqlmemprof ... | (sleep 30)`."""

    def spawn_into(self, w, args):
        proc = subprocess.Popen([mmp.BIN] + mmp.CONN_ARGS + args,
                                stdin=subprocess.DEVNULL, stdout=w,
                                stderr=subprocess.PIPE, env=mmp.base_env())
        self.addCleanup(self.reap, proc)
        return proc

    @staticmethod
    def reap(proc):
        if proc.poll() is None:
            proc.kill()
        proc.communicate()

    def wait_until(self, ready, what, timeout=20):
        deadline = time.monotonic() + timeout
        while not ready():
            if time.monotonic() > deadline:
                raise AssertionError("not %s in %s s" % (what, timeout))
            time.sleep(0.02)

    def ends_promptly(self, proc, limit):
        t0 = time.monotonic()
        proc.send_signal(signal.SIGTERM)
        try:
            _, err = proc.communicate(timeout=3 * PROMPT_S)
        except subprocess.TimeoutExpired:
            raise AssertionError("still writing %.1f s after SIGTERM (%s)"
                                 % (time.monotonic() - t0, wchan(proc.pid)))
        took = time.monotonic() - t0
        err = err.decode("utf-8", "replace")
        self.assertLess(took, limit, err)
        # What the reader did not take is lost, and the run says so.
        self.assertEqual(proc.returncode, 1, err)
        self.assertIn("took no more output", err)
        return err

    def test_sigterm_ends_a_write_nobody_reads(self):
        r, w = os.pipe()
        self.addCleanup(os.close, r)
        proc = self.spawn_into(w, ["--global", "--frequency", "5", "--max-load", "0",
                                   "--format", "csv"])
        os.close(w)
        self.wait_until(lambda: "pipe_write" in wchan(proc.pid),
                        "blocked writing")
        # The write is given a second to go on, for a reader that is only
        # slow, and then given up.
        self.ends_promptly(proc, 2 * PROMPT_S)

    def test_sigterm_between_samples_with_the_pipe_full(self):
        # The program sleeps to its next tick while the pipe is full: the
        # summary it writes on SIGTERM is the write that blocks.
        r, w = os.pipe()
        self.addCleanup(os.close, r)
        self.addCleanup(os.close, w)
        fcntl.fcntl(w, fcntl.F_SETPIPE_SZ, 4096)
        os.set_blocking(r, False)
        proc = self.spawn_into(w, ["--global", "--frequency", "2000"])
        # Filled through an open file of its own: O_NONBLOCK on w would be
        # the program's too.
        fill = os.open("/proc/self/fd/%d" % w, os.O_WRONLY | os.O_NONBLOCK)
        self.addCleanup(os.close, fill)

        def drained_and_asleep():
            try:
                while os.read(r, 65536):
                    pass
            except BlockingIOError:
                pass
            return "nanosleep" in wchan(proc.pid)
        self.wait_until(drained_and_asleep, "asleep between samples")
        try:
            while True:
                os.write(fill, b"x" * 512)
        except BlockingIOError:
            pass
        self.assertIn("nanosleep", wchan(proc.pid))
        self.ends_promptly(proc, 2 * PROMPT_S)

    def test_sigterm_keeps_what_a_slow_reader_takes(self):
        # A reader that only lags behind gets the whole run: the write
        # blocked when SIGTERM comes goes on once the reader reads again.
        r, w = os.pipe()
        proc = self.spawn_into(w, ["--global", "--frequency", "5", "--max-load", "0",
                                   "--format", "json"])
        os.close(w)
        with os.fdopen(r, "rb") as reader:
            self.wait_until(lambda: "pipe_write" in wchan(proc.pid),
                            "blocked writing")
            proc.send_signal(signal.SIGTERM)
            time.sleep(0.3)
            out = reader.read()
        _, err = proc.communicate(timeout=mmp.RUN_TIMEOUT)
        err = err.decode("utf-8", "replace")
        self.assertEqual(proc.returncode, 0, err)
        samples = mmp.parse_json_lines(out.decode())
        self.assertEqual([s["sample"] for s in samples],
                         list(range(1, len(samples) + 1)), err)
