"""--live in a real terminal: tmux runs the binary against the sandbox,
send-keys presses keys and capture-pane reads the screen. Every wait polls
the screen with a generous bound; nothing is timed."""

import os
import re
import shlex
import shutil
import signal
import subprocess
import tempfile
import time
import unittest

import mmp

# The longest any screen is waited for.
SCREEN_TIMEOUT = 10


class Tmux:
    """A tmux server of its own (-L) with one window running a command, then
    a line "EXIT=status" and the terminal's modes as stty sees them."""

    def __init__(self, args, width=100, height=30, conn=True):
        self.dir = tempfile.mkdtemp(prefix="mmp-live-")
        self.socket = "mmp-live-%d-%d" % (os.getpid(), id(self))
        self.pidfile = os.path.join(self.dir, "pid")
        # A terminal of today: UTF-8 (the view falls back to ASCII without).
        env = mmp.base_env(LC_ALL="C.UTF-8")
        argv = [mmp.BIN] + (mmp.CONN_ARGS if conn else []) + list(args)
        exports = " ".join("%s=%s" % (k, shlex.quote(env[k]))
                           for k in ("HOME", "MYSQL_PWD", "LC_ALL"))
        # exec: the pid written is the program's. After it, the exit
        # status and whether the terminal is back in its usual modes.
        inner = "echo $$ > %s; exec env %s %s" % (
            shlex.quote(self.pidfile), exports,
            " ".join(shlex.quote(a) for a in argv))
        cmd = ("sh -c %s; echo EXIT=$?; stty -a | tr ' ;' '\\n\\n' | "
               "grep -E '^-?(icanon|echo)$' | tr '\\n' ' '; echo; "
               "sleep 600") % shlex.quote(inner)
        self.tmux("new-session", "-d", "-x", str(width), "-y", str(height),
                  cmd)

    def tmux(self, *args):
        return subprocess.run(["tmux", "-L", self.socket] + list(args),
                              check=True, capture_output=True,
                              timeout=10).stdout.decode("utf-8", "replace")

    def screen(self):
        return self.tmux("capture-pane", "-p")

    def scrollback(self):
        """The screen and every line that scrolled off it."""
        return self.tmux("capture-pane", "-p", "-S", "-")

    def keys(self, *keys):
        self.tmux("send-keys", *keys)

    def wait_for(self, what, timeout=SCREEN_TIMEOUT):
        """Polls the screen until what (a string, or a function of the
        screen) holds; returns the screen, or fails showing it."""
        deadline = time.monotonic() + timeout
        while True:
            s = self.screen()
            ok = what(s) if callable(what) else what in s
            if ok:
                return s
            if time.monotonic() > deadline:
                raise AssertionError("not on the screen within %s s: %r\n%s"
                                     % (timeout, what, s))
            time.sleep(0.1)

    def pid(self):
        deadline = time.monotonic() + SCREEN_TIMEOUT
        while time.monotonic() < deadline:
            try:
                with open(self.pidfile) as f:
                    return int(f.read())
            except (OSError, ValueError):
                time.sleep(0.05)
        raise AssertionError("the program did not start")

    def close(self):
        subprocess.run(["tmux", "-L", self.socket, "kill-server"],
                       capture_output=True, timeout=10)
        # The hang-up ends the program; one that a bug keeps running
        # would hold a connection of the sandbox for the tests after.
        try:
            with open(self.pidfile) as f:
                pid = int(f.read())
            deadline = time.monotonic() + 5
            while time.monotonic() < deadline:
                os.kill(pid, 0)
                time.sleep(0.1)
            os.kill(pid, signal.SIGKILL)
        except (OSError, ValueError):
            pass
        shutil.rmtree(self.dir, True)


def exited(screen):
    """The exit status line is on the screen, and the modes after it."""
    return re.search(r"^EXIT=\d+\n.*(icanon|echo)", screen, re.M) is not None


def status_of(screen):
    return int(re.search(r"^EXIT=(\d+)$", screen, re.M).group(1))


def table_rows(screen):
    """The event rows of the table: the swatch, then a name."""
    return [l for l in screen.splitlines() if re.match(r"^.\S\S \S", l)
            and "█" in l[:3]]


def samples(screen):
    return int(re.search(r"samples (\d+)", screen).group(1))


@unittest.skipUnless(shutil.which("tmux"), "tmux is not installed")
class Live(mmp.TestCase):

    def setUp(self):
        super().setUp()
        self._tmux = []

    def tearDown(self):
        for t in self._tmux:
            t.close()
        super().tearDown()

    def term(self, args, **kw):
        t = Tmux(args, **kw)
        self._tmux.append(t)
        return t

    def assertRestored(self, screen):
        """The program ended and the terminal has its modes back."""
        self.assertTrue(exited(screen), screen)
        self.assertRegex(screen, r"(?m)^EXIT=\d+\nicanon echo *$", screen)
        # The view's screen is gone: the alternate screen was left.
        self.assertNotIn("our cost", screen)

    def view(self, w, *extra, **kw):
        t = self.term(["--live", "--connection", str(w.connection_id),
                       "--frequency", "100"] + list(extra), **kw)
        t.wait_for(lambda s: "thread %d (connection %d)" % (
            w.thread_id, w.connection_id) in s and table_rows(s))
        return t

    def test_view_keys_and_quit(self):
        w = self.start(mmp.idle(30))
        t = self.view(w)
        s = t.screen()
        # Header: server, statement, interval, our cost.
        self.assertIn(mmp.SERVER_VERSION, s)
        self.assertIn("SLEEP(30)", s)
        # A sample of the thread's total only puts its total, with the
        # rows' age, before our cost (live_draw.c: 80 columns hold it).
        self.assertRegex(s, r"every 100 ms  samples \d+  skipped \d+  "
                         r"(our cost [\d.]+ ms/sample  total |total [\d.]+ "
                         r"\w+ \(rows [\d.]+ s ago\)  our cost [\d.]+ "
                         r"ms/sample)")
        # The chart: the y scale in binary units, the time axis.
        self.assertRegex(s, r"(?m)^ +\d+(\.\d)? (B|KiB|MiB)│")
        self.assertRegex(s, r"(?m)^ +0 B│")
        self.assertIn("seconds", s)
        # The table, with the user variable of the workload.
        self.assertIn("current", s)
        self.assertIn("change/s", s)
        self.assertIn("user_var_entry::value", s)
        rows = len(table_rows(s))

        # + : one row more; - : one fewer.
        t.keys("+")
        t.wait_for(lambda x: len(table_rows(x)) == rows + 1)
        t.keys("-")
        t.wait_for(lambda x: len(table_rows(x)) == rows)

        # b : exact bytes, then KiB/MiB again.
        exact = re.compile(r"user_var_entry::value +\d+ ")
        t.keys("b")
        t.wait_for(lambda x: exact.search(x) is not None)
        t.keys("b")
        t.wait_for(lambda x: exact.search(x) is None and "KiB" in x)

        # p : the count of samples stands still on the screen, then goes on.
        t.keys("p")
        s = t.wait_for("[PAUSED]")
        n = samples(s)
        time.sleep(0.6)
        self.assertEqual(samples(t.screen()), n, "drawn while paused")
        t.keys("p")
        t.wait_for(lambda x: "[PAUSED]" not in x and samples(x) > n + 2)

        # s : the sort column moves on.
        t.keys("s")
        t.wait_for("sort: change/s")

        # ? : the keys; any key closes them.
        t.keys("?")
        t.wait_for("this help; any key closes it")
        t.keys("x")
        t.wait_for(lambda x: "any key closes it" not in x)

        # q : the terminal restored, then the summary; exit 0.
        t.keys("q")
        s = t.wait_for(exited)
        self.assertRestored(s)
        self.assertEqual(status_of(s), 0, s)
        self.assertIn("## Summary of", t.scrollback())
        self.assertIn("user_var_entry::value", s)

    def test_global_shows_the_process(self):
        """--global on the server's machine: the process's resident memory
        and what is not counted on the statement's line, and its line in
        the chart."""
        t = self.term(["--live", "--global", "--frequency", "100"])
        s = t.wait_for(lambda x: "resident" in x and table_rows(x))
        self.assertRegex(s, r"resident [\d.]+ (KiB|MiB|GiB) \(the line\), "
                         r"not counted -?[\d.]+ (B|KiB|MiB|GiB)")
        self.assertIn("\u2500", s)
        t.keys("q")
        s = t.wait_for(exited)
        self.assertRestored(s)
        self.assertEqual(status_of(s), 0, s)
        self.assertIn("not counted by performance_schema: at most",
                      t.scrollback())

    def test_key_e_shows_the_layers(self):
        """--global: e opens the memory in layers (read after the first
        sample), any key closes it; a thread's view has none to show."""
        t = self.term(["--live", "--global", "--frequency", "100"])
        t.wait_for(lambda x: "resident" in x and table_rows(x))
        t.keys("e")
        s = t.wait_for(lambda x: "The memory in layers" in x)
        self.assertRegex(s, r"[\d.]+ (MiB|GiB)  resident")
        self.assertRegex(s, r"[\d.]+ (KiB|MiB|GiB)      counted by "
                         r"performance_schema")
        self.assertRegex(s, r"allocator: (glibc|tcmalloc|jemalloc)")
        t.keys("x")
        s = t.wait_for(lambda x: "The memory in layers" not in x and
                       table_rows(x))
        t.keys("q")
        s = t.wait_for(exited)
        self.assertEqual(status_of(s), 0, s)
        w = self.start(mmp.idle(20))
        t = self.term(["--live", "--connection", str(w.connection_id),
                       "--frequency", "100"])
        t.wait_for(table_rows)
        t.keys("e")
        s = t.wait_for(lambda x: "No reading of the layers yet" in x)
        t.keys("x")
        t.wait_for(lambda x: "No reading of the layers" not in x)
        t.keys("q")
        s = t.wait_for(exited)
        self.assertEqual(status_of(s), 0, s)

    def test_read_draws_the_capture_replayed(self):
        """--read into the live view: the replayed capture's last window,
        held until q; the summary after."""
        path = os.path.join(tempfile.mkdtemp(prefix="mmp-live-read-"),
                            "c.jsonl")
        self.addCleanup(shutil.rmtree, os.path.dirname(path), True)
        mmp.run(["--global", "--count", "5", "--frequency", "100",
                 "--format", "json", "--output", path])
        t = self.term(["--live", "--read", path], conn=False)
        s = t.wait_for(lambda x: "replayed  samples 5" in x and
                       table_rows(x))
        self.assertIn("global", s)
        t.keys("q")
        s = t.wait_for(exited)
        self.assertRestored(s)
        self.assertEqual(status_of(s), 0, s)
        self.assertIn("## Summary of 5 samples", t.scrollback())

    def test_resize_redraws(self):
        w = self.start(mmp.idle(30))
        t = self.view(w)
        t.tmux("resize-window", "-t", "0", "-x", "120", "-y", "40")
        # The status line is on the new last line, the title bar as wide.
        s = t.wait_for(lambda x: len(x.splitlines()) >= 40 and
                       x.splitlines()[39].startswith(" q quit"))
        t.tmux("resize-window", "-t", "0", "-x", "80", "-y", "24")
        s = t.wait_for(lambda x: len(x.splitlines()) >= 24 and
                       x.splitlines()[23].startswith(" q quit") and
                       "var_entry::value" in x)
        self.assertRegex(s, r"(?m)^ +0 B│", s)
        # Smaller than 80x24: a line says so, and q still ends it.
        t.tmux("resize-window", "-t", "0", "-x", "60", "-y", "20")
        t.wait_for("needs 80x24")
        t.keys("q")
        self.assertRestored(t.wait_for(exited))

    def test_sigterm_restores_the_terminal(self):
        w = self.start(mmp.idle(30))
        t = self.view(w)
        os.kill(t.pid(), 15)
        s = t.wait_for(exited)
        self.assertRestored(s)
        self.assertEqual(status_of(s), 0, s)
        self.assertIn("## Summary of", t.scrollback())

    def test_sighup_restores_the_terminal(self):
        w = self.start(mmp.idle(30))
        t = self.view(w)
        os.kill(t.pid(), 1)
        s = t.wait_for(exited)
        self.assertRestored(s)
        self.assertEqual(status_of(s), 0, s)

    def test_thread_end_waits_for_q(self):
        w = self.start(mmp.sleeper(2))
        t = self.view(w)
        s = t.wait_for("the thread ended")
        self.assertIn("press q", s)
        self.assertFalse(exited(s))
        t.keys("q")
        s = t.wait_for(exited)
        self.assertRestored(s)
        self.assertEqual(status_of(s), 0, s)
        # The summary after it may scroll the note off a 24-line screen.
        self.assertIn("thread %d ended after" % w.thread_id, t.scrollback())

    def test_lost_server_waits_for_q(self):
        w = self.start(mmp.idle(30))
        t = self.view(w, "--reconnect-timeout", "0")
        # Our own session killed: the connection is lost, not retried.
        rows = mmp.root_sql("SELECT ID FROM information_schema.PROCESSLIST "
                            "WHERE USER = 'mmp'")
        self.assertEqual(len(rows), 1, rows)
        mmp.root_sql("KILL %s" % rows[0][0])
        s = t.wait_for("press q")
        self.assertFalse(exited(s))
        self.assertRegex(s, r"(?i)lost|gone|closed|kill", s)
        t.keys("q")
        s = t.wait_for(exited)
        self.assertRestored(s)
        self.assertEqual(status_of(s), 1, s)

    def test_wait_for_then_the_statement(self):
        t = self.term(["--live", "--wait-for", "%SLEEP(2.5)%", "--match-user",
                       "loader", "--poll", "100", "--frequency", "100"])
        t.wait_for("waiting for a statement")
        w = self.start(mmp.sleeper(2.5))
        s = t.wait_for(lambda x: "thread %d (connection %d)  user loader" % (
            w.thread_id, w.connection_id) in x and table_rows(x))
        self.assertIn("SLEEP(2.5)", s)
        t.wait_for("the statement ended")
        t.keys("q")
        s = t.wait_for(exited)
        self.assertRestored(s)
        self.assertEqual(status_of(s), 0, s)
        self.assertIn("## Summary of", t.scrollback())

    def test_output_file_while_drawing(self):
        w = self.start(mmp.idle(30))
        path = os.path.join(tempfile.mkdtemp(prefix="mmp-live-out-"),
                            "samples.jsonl")
        self.addCleanup(shutil.rmtree, os.path.dirname(path), True)
        t = self.view(w, "--format", "json", "--output", path)
        t.wait_for(lambda x: samples(x) >= 3)
        t.keys("q")
        s = t.wait_for(exited)
        self.assertRestored(s)
        with open(path) as f:
            got = mmp.parse_json_lines(f.read())
        self.assertGreaterEqual(len(got), 3)
        for x in got:
            self.assertEqual(x["thread_id"], w.thread_id)

    def test_list_opens_a_thread(self):
        w = self.start(mmp.idle(30))
        t = self.term(["--live", "--list", "--frequency", "200"])
        mine = re.compile(r"^.\s+%d\s+%d\s+loader\s" % (w.thread_id,
                                                       w.connection_id),
                          re.M)
        s = t.wait_for(lambda x: mine.search(x) is not None)
        self.assertIn("threads by memory", s)
        # Down until the cursor is on the workload's line.
        for _ in range(60):
            s = t.screen()
            line = mine.search(s).group(0)
            if line.startswith(">"):
                break
            t.keys("Down")
            time.sleep(0.1)
        else:
            self.fail("the cursor never reached the workload:\n" + s)
        t.keys("Enter")
        t.wait_for(lambda x: "thread %d (connection %d)" % (
            w.thread_id, w.connection_id) in x and table_rows(x))
        self.assertIn("Esc list", t.screen())
        t.keys("Escape")
        t.wait_for("threads by memory")
        t.keys("q")
        s = t.wait_for(exited)
        self.assertRestored(s)
        self.assertEqual(status_of(s), 0, s)

    def test_no_terminal_is_a_usage_error(self):
        p = mmp.run(["--live", "--thread", "1"])
        self.assertOneErrorLine(p, 2, "--live", "terminal")
        self.assertEqual(p.stdout, "")


if __name__ == "__main__":
    unittest.main()
