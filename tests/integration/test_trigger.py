"""The flight recorder: --trigger-bytes writes nothing until the thread's
total reaches it, then the window before it and what follows, until the
total has been below it for --trigger-hold; SIGUSR1 writes what is held."""

import os
import re
import signal
import time

import mmp

WINDOW = 5
MIB = 1024 * 1024
# 8 MB in a user variable for about a second, between two quiet spells.
SPIKE = ("SELECT SLEEP(1.0); SET @big = REPEAT('x', 8000000); "
         "SELECT SLEEP(1.0); SET @big = NULL; SELECT SLEEP(3.0);")


class Trigger(mmp.TestCase):

    def test_window_before_then_until_the_hold(self):
        w = self.start(mmp.Workload("", SPIKE))
        args = ["--connection", str(w.connection_id), "--frequency", "100",
                "--window", str(WINDOW), "--top", "1",
                "--trigger-bytes", "4M", "--trigger-hold", "1"]
        pj = self.spawn(args + ["--format", "json"])
        pt = self.spawn(args)
        rj, rt = self.finish_ok(pj), self.finish_ok(pt)
        out, err, desc = rj.stdout, rj.stderr, mmp.describe(rj)
        text, tdesc = rt.stdout, mmp.describe(rt)
        samples = mmp.parse_json_lines(out)
        seqs = [s["sample"] for s in samples]
        self.assertTrue(seqs, "nothing written" + desc)
        # One stretch of consecutive samples, none twice.
        self.assertEqual(seqs, list(range(seqs[0], seqs[0] + len(seqs))), desc)
        high = [i for i, s in enumerate(samples) if s["total_bytes"] >= 4 * MIB]
        self.assertTrue(high, desc)
        crossing = samples[high[0]]["sample"]
        # The window before the crossing: it and the WINDOW - 1 before it.
        self.assertEqual(seqs[0], max(1, crossing - WINDOW + 1), desc)
        self.assertEqual(high[0], crossing - seqs[0], desc)
        self.assertEqual(high, list(range(high[0], high[-1] + 1)), desc)
        # About 1 s of samples above, then 1 s below: the hold, due time
        # by due time, 10 samples at 100 ms, skipped ticks aside.
        below = samples[high[-1] + 1:]
        self.assertTrue(below, desc)
        for s in below:
            self.assertLess(s["total_bytes"], 4 * MIB, desc)
        due = [s["elapsed_ms"] - s["late_us"] // 1000 for s in below]
        self.assertLess(due[-1] - due[0], 1000, desc)
        self.assertGreaterEqual(due[-1] - due[0], 800, desc)
        # Then nothing, though the session slept 3 s more: about 20 samples
        # after the hold, so a busy machine may skip ticks and leave 10.
        taken = int(re.search(r"ended after (\d+) samples", err).group(1))
        self.assertGreaterEqual(taken, seqs[-1] + 10, desc)
        self.assertNotIn("never reached", err, desc)

        # Text: the marker says what crossed and how many came before it.
        m = re.search(r"(?m)^## trigger: total (\d+\.\d\d MiB) >= 4\.00 MiB, "
                      r"writing the (\d) samples? before it ##\n"
                      r"## statement: .* ##\n## Memory usage at time \d+" +
                      mmp.MARKS + r" ##$",
                      text)
        self.assertTrue(m, tdesc)
        self.assertEqual(int(m.group(2)), WINDOW - 1, tdesc)
        self.assertEqual(text.count("## trigger:"), 1, tdesc)
        w.wait()

    def test_sigusr1_dumps_the_window_once(self):
        w = self.start(mmp.idle(20))
        p = self.spawn(["--thread", str(w.thread_id), "--format", "json",
                        "--frequency", "50", "--window", str(WINDOW),
                        "--trigger-bytes", "1G"])
        # Sampling has begun.
        p.wait_for_stderr("kill -USR1")
        time.sleep(0.6)          # more than the window: some are lost
        p.signal(signal.SIGUSR1)
        time.sleep(0.12)         # two or three more
        p.signal(signal.SIGUSR1)
        time.sleep(0.05)         # one more at most
        p.signal(signal.SIGUSR1)
        time.sleep(0.1)
        r = self.finish_ok(p, sig=signal.SIGTERM)
        out, err, desc = r.stdout, r.stderr, mmp.describe(r)
        seqs = [s["sample"] for s in mmp.parse_json_lines(out)]
        self.assertEqual(len(seqs), len(set(seqs)), "written twice" + desc)
        self.assertEqual(seqs, sorted(seqs), desc)
        # The first dump is a whole window, then the rest are consecutive
        # from it: what the ring held and had not written.
        self.assertGreater(seqs[0], 1, "nothing was held back" + desc)
        first = seqs[:WINDOW]
        self.assertEqual(first, list(range(first[0], first[0] + WINDOW)), desc)
        self.assertEqual(seqs, list(range(seqs[0], seqs[0] + len(seqs))), desc)
        self.assertGreater(len(seqs), WINDOW, desc)
        dumps = [int(n) for n in
                 re.findall(r"SIGUSR1: (\d+) held samples? written", err)]
        self.assertEqual(len(dumps), 3, desc)
        self.assertEqual(dumps[0], WINDOW, desc)
        self.assertLessEqual(dumps[2], 2, desc)
        self.assertEqual(sum(dumps), len(seqs), desc)
        self.assertRegex(err, r"never reached --trigger-bytes 1073741824 in "
                              r"\d+ samples; %d written on SIGUSR1" % len(seqs),
                         desc)

    def test_sigusr1_marker_in_text(self):
        w = self.start(mmp.idle(20))
        p = self.spawn(["--thread", str(w.thread_id), "--frequency", "50",
                        "--window", "3", "--trigger-bytes", "1G", "--bytes"])
        p.wait_for_stderr("kill -USR1")
        # 20 ticks for a window of 3: room for a loaded machine.
        time.sleep(1.0)
        p.signal(signal.SIGUSR1)
        # The marker written before the stop, whatever the machine's load.
        self.assertRegex(p.stdout_line(), r"^## trigger: SIGUSR1")
        r = self.finish_ok(p, sig=signal.SIGINT)
        out, desc = r.stdout, mmp.describe(r)
        self.assertRegex(out, r"^## trigger: SIGUSR1, writing the 3 samples "
                              r"held ##\n## statement: SELECT SLEEP\(20\) ##\n"
                              r"## Memory usage at time \d+" + mmp.MARKS +
                              r" ##\n", desc)
        self.assertEqual(len(re.findall(r"(?m)^## Memory usage", out)), 3, desc)
        # The summary covers the whole run, the window its last 3.
        self.assertRegex(out, r"(?m)^## Summary of \d+ samples", desc)
        self.assertRegex(out, r"(?m)^ over the whole run; the window holds "
                              r"the last 3 ", desc)


class Usage(mmp.TestCase):

    def test_bad_trigger_options(self):
        for args, words in (
                (["--trigger-hold", "3"], ["--trigger-hold", "--trigger-bytes"]),
                (["--trigger-bytes", "1.5G"], ["--trigger-bytes", "1.5G",
                                               "trailing characters"]),
                (["--trigger-bytes", "12KB"], ["--trigger-bytes", "12KB"]),
                (["--trigger-bytes", "0"], ["at least 1"]),
                (["--trigger-bytes", "99999999999G"], ["too large"]),
                (["--trigger-bytes", "1M", "--trigger-hold", "-1"],
                 ["--trigger-hold", "negative"])):
            p = mmp.run(["--thread", "1"] + args, conn=False)
            self.assertOneErrorLine(p, 2, *words)
            self.assertEqual(p.stdout, "", mmp.describe(p))

    def test_help_and_manual_name_the_options(self):
        p = mmp.run(["--help"], conn=False)
        self.assertEqual(p.returncode, 0, mmp.describe(p))
        self.assertIn("--trigger-bytes=N", p.stdout)
        self.assertIn("--trigger-hold=SECONDS", p.stdout)
        with open(os.path.join(mmp.REPO, "man", "mysqlmemprof.1")) as f:
            manual = f.read()
        for name in sorted(set(re.findall(r"--([a-z][a-z-]+)", p.stdout))):
            self.assertRegex(manual, r"Fl -%s\b" % re.escape(name),
                             "--%s is in --help, not in the manual" % name)
        self.assertIn(".It Dv SIGUSR1", manual)
