"""How a capture ends: the target leaves, or the user presses Ctrl-C."""

import signal
import time

import mmp


class Lifecycle(mmp.TestCase):

    def test_target_thread_ends(self):
        w = self.start(mmp.sleeper(1.5))
        t0 = time.monotonic()
        p = mmp.run(["--connection", str(w.connection_id), "--format", "csv",
                     "--frequency", "100"], timeout=20)
        self.assertEqual(p.returncode, 0, mmp.describe(p))
        # It noticed within a few samples of the session's end.
        self.assertLess(time.monotonic() - t0, 5, mmp.describe(p))
        self.assertTrue(p.stderr.strip(), "no note on stderr" + mmp.describe(p))
        for line in p.stderr.splitlines():
            self.assertTrue(mmp.unstamped(line).startswith("mysqlmemprof: "),
                            mmp.describe(p))
        rows = self.assertCsvSamples(p.stdout, mmp.describe(p))
        samples = {r["sample"] for r in rows}
        self.assertGreaterEqual(len(samples), 5, mmp.describe(p))
        self.assertEqual(samples, set(range(1, max(samples) + 1)))
        w.wait()

    def test_target_ends_text_has_summary(self):
        w = self.start(mmp.sleeper(0.8))
        p = mmp.run(["--connection", str(w.connection_id), "--frequency", "100"],
                    timeout=20)
        self.assertEqual(p.returncode, 0, mmp.describe(p))
        self.assertRegex(p.stdout, r"(?m)^## Summary", mmp.describe(p))
        w.wait()

    def interrupt(self, args, after=1.0, sig=signal.SIGINT):
        """Runs for after seconds, then sig; it must end within 10 s."""
        proc = self.spawn(args)
        time.sleep(after)
        p = proc.finish(sig, timeout=10)
        return p.returncode, p.stdout, mmp.describe(p)

    def test_sigint_during_csv(self):
        w = self.start(mmp.idle())
        rc, out, desc = self.interrupt(["--thread", str(w.thread_id),
                                        "--format", "csv", "--frequency", "50"])
        self.assertEqual(rc, 0, desc)
        rows = self.assertCsvSamples(out, desc)
        self.assertGreaterEqual(len({r["sample"] for r in rows}), 5, desc)

    def test_sigterm_during_json(self):
        w = self.start(mmp.idle())
        rc, out, desc = self.interrupt(["--thread", str(w.thread_id),
                                        "--format", "json", "--frequency", "50"],
                                       sig=signal.SIGTERM)
        self.assertEqual(rc, 0, desc)
        self.assertTrue(out.endswith("\n"), desc)
        samples = mmp.parse_json_lines(out)
        self.assertGreaterEqual(len(samples), 5, desc)

    def test_sigint_text_prints_summary(self):
        w = self.start(mmp.idle())
        rc, out, desc = self.interrupt(["--thread", str(w.thread_id),
                                        "--frequency", "50"], after=0.6)
        self.assertEqual(rc, 0, desc)
        self.assertRegex(out, r"(?m)^## Summary", desc)
