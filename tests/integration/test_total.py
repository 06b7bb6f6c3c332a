"""A thread's own count each tick, its rows when the count moves (issue 33,
src/total.c): MariaDB's PROCESSLIST.MEMORY_USED (with PROCESS), MySQL's
threads.TOTAL_MEMORY."""

import unittest

import mmp


def setUpModule():
    mmp.ensure_demo_table()


def _grant_process(test):
    """The sampling account sees other accounts' connections in MariaDB's
    PROCESSLIST only with PROCESS; MySQL's threads need no more."""
    if mmp.MYSQL:
        return
    for host in ("localhost", "127.0.0.1"):
        mmp.root_sql("GRANT PROCESS ON *.* TO 'mmp'@'%s'" % host)
        test.addCleanup(mmp.root_sql,
                        "REVOKE PROCESS ON *.* FROM 'mmp'@'%s'" % host)


def _json(test, target, *more):
    p = test.run_ok(target + ["--format", "json", "--top", "0"] +
                    list(more))
    return p, mmp.parse_json_lines(p.stdout)


def _user_var(sample):
    return sum(e["current_bytes"] for e in sample["events"]
               if "user_var" in e["event_name"])


class OwnCount(mmp.TestCase):

    def setUp(self):
        super().setUp()
        _grant_process(self)

    def test_idle_thread_rows_once_the_count_each_tick(self):
        w = self.start(mmp.idle())
        p, samples = _json(self, ["--thread", str(w.thread_id)],
                           "--frequency", "100", "--duration", "3")
        self.assertGreaterEqual(len(samples), 20, mmp.describe(p))
        fresh = [s for s in samples if not s.get("events_kept")]
        # The first reads the rows; an idle thread's count stays, so the
        # rest carry it alone, within --rows-every's 10 s.
        self.assertEqual([s["sample"] for s in fresh], [1], mmp.describe(p))
        counts = {s.get("connection_bytes") for s in samples}
        self.assertEqual(len(counts), 1, counts)
        self.assertIsNotNone(counts.pop(), mmp.describe(p))
        self.assertEqual({s["total_bytes"] for s in samples},
                         {samples[0]["total_bytes"]})
        # A kept sample still has the rows: no drop to zero.
        for s in samples:
            self.assertEqual(_user_var(s), _user_var(samples[0]), s)
            self.assertGreater(_user_var(s), 0)
        if mmp.MYSQL:
            # MySQL's count is the sum of the rows, to the byte.
            for s in samples:
                self.assertEqual(s["connection_bytes"], s["total_bytes"], s)
        self.assertNotIn("PROCESS", p.stderr)

    def test_rows_every_bounds_the_age_of_the_rows(self):
        w = self.start(mmp.idle())
        p, samples = _json(self, ["--thread", str(w.thread_id)],
                           "--frequency", "100", "--duration", "4",
                           "--rows-every", "1")
        fresh = [s["elapsed_ms"] for s in samples if not s.get("events_kept")]
        self.assertGreaterEqual(len(fresh), 4, mmp.describe(p))
        for a, b in zip(fresh, fresh[1:]):
            self.assertLessEqual(b - a, 1100 + 100, fresh)

    def test_rows_every_0_reads_the_rows_each_tick(self):
        w = self.start(mmp.idle())
        p, samples = _json(self, ["--thread", str(w.thread_id)],
                           "--frequency", "100", "--count", "10",
                           "--rows-every", "0")
        self.assertEqual(len(samples), 10, mmp.describe(p))
        for s in samples:
            self.assertFalse(s.get("events_kept"), s)
            self.assertIsNone(s.get("connection_bytes"), s)

    def test_a_growing_thread_has_its_rows_read_as_it_grows(self):
        steps = [1000000, 3000000, 6000000]
        sql = "".join("SET @mmp_g%d = REPEAT('x', %d); SELECT SLEEP(0.6);\n"
                      % (i, n) for i, n in enumerate(steps))
        w = self.start(mmp.Workload("", "SELECT SLEEP(0.5);\n" + sql +
                                    "SELECT SLEEP(3);"))
        p, samples = _json(self, ["--connection", str(w.connection_id)],
                           "--frequency", "100", "--duration", "4")
        fresh = [s for s in samples if not s.get("events_kept")]
        # Each step is read with its rows: the user variables' bytes of
        # the samples that read them reach each step's sum.
        held = sorted({_user_var(s) for s in fresh})
        for i in range(len(steps)):
            want = sum(steps[:i + 1])
            self.assertTrue(any(h >= want for h in held),
                            "step %d (%d bytes) never read: %s\n%s" %
                            (i, want, held, mmp.describe(p)))
        self.assertGreater(len(fresh), len(steps), mmp.describe(p))
        self.assertLess(len(fresh), len(samples), mmp.describe(p))
        self.assertGreaterEqual(samples[-1]["total_bytes"], sum(steps))


@mmp.only_on("mariadb", "MySQL's threads show every account's thread")
class WithoutProcess(mmp.TestCase):

    def test_the_rows_each_tick_and_a_note_says_why(self):
        w = self.start(mmp.idle())
        p, samples = _json(self, ["--thread", str(w.thread_id)],
                           "--frequency", "100", "--count", "8")
        self.assertEqual(len(samples), 8, mmp.describe(p))
        for s in samples:
            self.assertFalse(s.get("events_kept"), s)
        notes = [l for l in p.stderr.splitlines() if "GRANT PROCESS" in l]
        self.assertEqual(len(notes), 1, p.stderr)
        self.assertIn("connection %d" % w.connection_id, notes[0])


if __name__ == "__main__":
    unittest.main()
