"""Nothing blocks past a signal: SIGINT and SIGTERM end the run within about
a second wherever the program waits (connecting, a query, a write), with
the samples taken written and the output closed."""

import os
import signal
import socket
import time

import mmp
from test_faults import server_pid

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
        pid = server_pid()
        os.kill(pid, signal.SIGSTOP)
        try:
            time.sleep(0.5)
            p = self.ended_promptly(proc, signal.SIGTERM)
        finally:
            os.kill(pid, signal.SIGCONT)
        self.assertEqual(p.returncode, 0, mmp.describe(p))
        samples = mmp.parse_json_lines(p.stdout)
        self.assertGreaterEqual(len(samples), 1, mmp.describe(p))
        self.assertEqual([s["sample"] for s in samples],
                         list(range(1, len(samples) + 1)))
