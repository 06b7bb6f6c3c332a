"""--bigger-than: the connection that grows past SIZE is found among others,
captured from before it was found (the history kept while waiting), and
when several are past SIZE the largest is taken and the others named."""

import calendar
import os
import subprocess
import time

import mmp

MIB = 1024 * 1024


def holder(mib, seconds, user_vars=None):
    """A `loader` session holding about mib MiB in user variables (15 MB
    each, under max_allowed_packet) while it runs SELECT SLEEP(seconds)."""
    sets = ["@h%d = REPEAT('x', %d)" % (i, 15 * 1000 * 1000)
            for i in range(mib // 15)] if user_vars is None else user_vars
    setup = ("SET %s;" % ", ".join(sets)) if sets else ""
    return mmp.Workload(setup, "SELECT SLEEP(%d);" % seconds)


class RootWorkload(mmp.Workload):
    """The same as mmp.Workload, as root: another account."""

    def __init__(self, setup_sql, main_sql):
        sql = setup_sql + "\nSELECT CONNECTION_ID();\n" + main_sql + "\n"
        self.proc = subprocess.Popen(
            ["mariadb", "--no-defaults", "-uroot", "-S", mmp.SOCKET, "-N",
             "-n"], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
            stderr=subprocess.PIPE)
        self.proc.stdin.write(sql.encode())
        self.proc.stdin.close()
        self.proc.stdin = None
        self.connection_id = self._read_id()
        self._thread_id = None


def samples_of(rows):
    """The CSV rows of each sample, in order: (first row of it, its rows)."""
    out = {}
    for r in rows:
        out.setdefault(r["sample"], r)
    return [out[k] for k in sorted(out)]


class Hunt(mmp.TestCase):

    def setUp(self):
        super().setUp()
        mmp.ensure_demo_table()

    def test_grower_found_among_small_ones_from_before_crossing(self):
        size = 30 * MIB
        small = [self.start(holder(0, 12)) for _ in range(2)]
        proc = self.spawn(["--bigger-than", "30M", "--poll", "200",
                           "--frequency", "200", "--format", "csv",
                           "--wait-timeout", "60"])
        proc.wait_for_stderr("waiting for")
        started = time.time()
        grower = self.start(mmp.hungry(rows=500000))
        grower_thread = grower.thread_id  # while the connection lasts
        p = proc.finish()
        desc = mmp.describe(p)
        self.assertEqual(p.returncode, 0, desc)
        self.assertIn("found connection %d " % grower.connection_id,
                      p.stderr, desc)
        samples = samples_of(self.assertCsvSamples(p.stdout, desc))
        self.assertTrue(samples, desc)
        for s in samples:
            self.assertEqual(s["thread_id"], grower_thread, desc)
            self.assertNotIn(s["thread_id"], [w.thread_id for w in small])
        waiting = [s for s in samples if s["waiting"] == 1]
        live = [s for s in samples if s["waiting"] == 0]
        # The waiting readings come first, then the capture's own.
        self.assertGreaterEqual(len(waiting), 2, desc)
        self.assertEqual(samples[:len(waiting)], waiting, desc)
        self.assertTrue(live, desc)
        self.assertIn("the capture begins with %d readings taken while "
                      "waiting" % len(waiting), p.stderr, desc)
        # From before the crossing: the first reading is under SIZE, the
        # one that found it at or over it.
        self.assertLess(waiting[0]["total_bytes"], size, desc)
        self.assertGreaterEqual(waiting[-1]["total_bytes"], size, desc)
        # From the start of its statement: the first look after it began
        # (statements start as the client gave the connection id; a look
        # every 200 ms, the client's start and one look of slack).
        ts = waiting[0]["timestamp"]
        first = calendar.timegm(time.strptime(ts[:19], "%Y-%m-%dT%H:%M:%S")) \
            + int(ts[20:23]) / 1000
        self.assertLess(first - started, 1.5, desc)
        # One statement throughout, the same as the capture's.
        ids = {s["statement_id"] for s in samples}
        self.assertEqual(len(ids), 1, desc)
        # Their own times, --poll apart, and in order.
        times = [s["elapsed_ms"] for s in samples]
        self.assertEqual(times, sorted(times), desc)
        gaps = [b["elapsed_ms"] - a["elapsed_ms"]
                for a, b in zip(waiting, waiting[1:])]
        self.assertTrue(all(100 <= g <= 1000 for g in gaps), (gaps, desc))

    def test_two_past_size_the_larger_taken_the_other_named(self):
        big = self.start(holder(60, 8))
        other = self.start(holder(15, 8))
        small = self.start(holder(0, 8))
        p = mmp.run(["--bigger-than", "10M", "--poll", "200",
                     "--frequency", "500", "--count", "2", "--format",
                     "json"])
        desc = mmp.describe(p)
        self.assertEqual(p.returncode, 0, desc)
        samples = mmp.parse_json_lines(p.stdout)
        self.assertTrue(samples, desc)
        for s in samples:
            self.assertEqual(s["thread_id"], big.thread_id, desc)
        self.assertIn("2 statements match; taking connection %d, the "
                      "largest" % big.connection_id, p.stderr, desc)
        self.assertIn("the others, for later: connection %d (" %
                      other.connection_id, p.stderr, desc)
        self.assertNotIn("connection %d (" % small.connection_id, p.stderr,
                         desc)
        # --count counts the capture's own samples, not those of before.
        self.assertEqual(len([s for s in samples if s["waiting"] == 0]), 2,
                         desc)

    def test_match_user_leaves_a_larger_one_of_another_account(self):
        mine = self.start(holder(15, 8))
        root = self.start(RootWorkload(
            "SET @r1 = REPEAT('x', 15000000), @r2 = REPEAT('x', 15000000), "
            "@r3 = REPEAT('x', 15000000);", "SELECT SLEEP(8);"))
        p = mmp.run(["--bigger-than", "10M", "--match-user", "loader",
                     "--poll", "200", "--count", "1"])
        desc = mmp.describe(p)
        self.assertEqual(p.returncode, 0, desc)
        self.assertIn("found connection %d " % mine.connection_id, p.stderr,
                      desc)
        self.assertNotIn("connection %d" % root.connection_id, p.stderr,
                         desc)
        # Text marks the reading from the look that found it.
        self.assertIn("(taken while waiting) ##", p.stdout, desc)
        self.assertIn(" of a connection holding at least 10.00 MiB of user "
                      "'loader'", p.stderr, desc)

    def test_nothing_past_size_times_out(self):
        self.start(holder(0, 5))
        p = mmp.run(["--bigger-than", "1G", "--poll", "200",
                     "--wait-timeout", "1"])
        desc = mmp.describe(p)
        self.assertEqual(p.returncode, 3, desc)
        self.assertIn("holding at least 1.00 GiB within --wait-timeout",
                      p.stderr, desc)

    def test_longer_than_shows_the_first_seconds_too(self):
        tok = "mmp-hunt-%d" % os.getpid()
        proc = self.spawn(["--longer-than", "2", "--wait-for", "%" + tok + "%",
                           "--poll", "200", "--count", "1", "--format",
                           "json"])
        proc.wait_for_stderr("waiting for")
        started = time.time()
        w = self.start(mmp.Workload("", "SELECT SLEEP(4), '%s';" % tok))
        thread = w.thread_id
        p = proc.finish()
        desc = mmp.describe(p)
        self.assertEqual(p.returncode, 0, desc)
        samples = mmp.parse_json_lines(p.stdout)
        waiting = [s for s in samples if s["waiting"] == 1]
        # Found once PROCESSLIST_TIME says 2 (whole seconds of the clock:
        # 1 to 3 s after its start), with a look every 200 ms since then.
        self.assertGreaterEqual(len(waiting), 5, desc)
        self.assertLessEqual(len(waiting), 17, desc)
        self.assertEqual(len(samples) - len(waiting), 1, desc)
        self.assertGreaterEqual(waiting[-1]["elapsed_ms"], 800, desc)
        # The first from the look after it began (the client's start and a
        # look of slack).
        ts = waiting[0]["timestamp"]
        first = calendar.timegm(time.strptime(ts[:19], "%Y-%m-%dT%H:%M:%S")) \
            + int(ts[20:23]) / 1000
        self.assertLess(first - started, 1.0, desc)
        for s in samples:
            self.assertEqual(s["thread_id"], thread, desc)
