"""Every statement of a followed thread, short ones too: on MySQL 8.0.31+
each with the server's exact peak (events_statements_history's
MAX_TOTAL_MEMORY), those that ran between two samples included; the
ranking marks each peak exact or sampled, a JSON capture read back ranks
them the same, a history that lost rows or a consumer switched off is
said; MariaDB, which keeps no statement's peak, says its peaks are
sampled."""

import os
import subprocess
import tempfile
import threading
import time

import mmp

# Some 100-300 ms of a GROUP BY whose groups (one a row) go to an
# in-memory temporary table of 20-40 MB.
ROWS = 50000
SQL = ("SELECT COUNT(*), %d AS n FROM (SELECT s, COUNT(*) AS c FROM items "
       "WHERE id <= " + str(ROWS) + " GROUP BY s) AS g")
SETUP = ("SET SESSION tmp_table_size = 268435456, "
         "max_heap_table_size = 268435456")
CONSUMER = ("UPDATE performance_schema.setup_consumers SET ENABLED = '%s' "
            "WHERE NAME = '%s'")


class Paced:
    """A session of `loader` sending statements one at a time, idle (no
    statement at all) for `idle` seconds after each; .connection_id is
    known at once, and wait() returns once the session has closed: some
    seconds after the last, so that a sample sees it ended."""

    def __init__(self, statements, idle, before=1.5, after=2):
        self.proc = subprocess.Popen(
            ["mariadb", "--no-defaults", "-uloader", "-ploader-pass", "-S",
             mmp.SOCKET, "demo", "-N", "-n"], stdin=subprocess.PIPE,
            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
            bufsize=1)
        self._send(SETUP)
        self._send("SELECT CONNECTION_ID()")
        self.connection_id = int(self.proc.stdout.readline())
        self._t = threading.Thread(target=self._run,
                                   args=(statements, idle, before, after))
        self._t.start()

    def _send(self, sql):
        self.proc.stdin.write(sql + ";\n")
        self.proc.stdin.flush()

    def _run(self, statements, idle, before, after):
        time.sleep(before)
        for sql in statements:
            self._send(sql)
            self.proc.stdout.readline()  # its result: it has ended
            time.sleep(idle)
        time.sleep(after)
        self.proc.stdin.close()

    def wait(self, timeout=120):
        self._t.join(timeout)
        self.proc.wait(timeout)
        self.proc.stdout.close()
        self.proc.stderr.close()

    def kill(self):
        if self.proc.poll() is None:
            self.proc.kill()
        self.wait()


def consumer(name):
    return mmp.root_sql("SELECT ENABLED FROM performance_schema."
                        "setup_consumers WHERE NAME = '%s'" % name)[0][0]


class Finished(mmp.TestCase):

    def setUp(self):
        super().setUp()
        mmp.ensure_demo_table()
        self._consumers = {n: consumer(n) for n in (
            "events_statements_history", "events_statements_history_long")}
        self.dir = tempfile.mkdtemp(prefix="mmp-finished-")

    def tearDown(self):
        for n, v in self._consumers.items():
            mmp.root_sql(CONSUMER % (v, n))
        for f in os.listdir(self.dir):
            os.unlink(os.path.join(self.dir, f))
        os.rmdir(self.dir)
        super().tearDown()

    def capture(self, statements, idle, *args):
        """Follows a Paced session to its end, every second; returns the
        run, the ranking of --statements (JSON) and the session's thread."""
        path = os.path.join(self.dir, "ranked.jsonl")
        w = Paced(statements, idle)
        try:
            thread = mmp.thread_of_connection(w.connection_id)
            b = self.spawn(["--connection", str(w.connection_id),
                            "--frequency", "1000", "--top", "0",
                            "--statements", path] + list(args))
            w.wait()
        except BaseException:
            w.kill()
            raise
        p = self.finish_ok(b)
        # --statements is in --format: JSON Lines with json, else as it is.
        with open(path) as f:
            ranked = f.read()
        if "json" in args:
            ranked = mmp.parse_json_lines(ranked)
        return p, ranked, thread

    @mmp.only_on("mysql", "MySQL 8.0.31+ keeps each statement's peak")
    def test_every_statement_with_its_exact_peak(self):
        mmp.root_sql(CONSUMER % ("YES", "events_statements_history_long"))
        sqls = [SQL % i for i in range(10)]
        p, ranked, thread = self.capture(sqls, 0.3, "--format", "json")
        desc = mmp.describe(p)
        for s in mmp.parse_json_lines(p.stdout):
            self.assertJsonSample(s, first=(s["sample"] == 1))
        # What the server recorded, read afterwards by root.
        server = {int(r[0]): (int(r[1]), r[2]) for r in mmp.root_sql(
            "SELECT EVENT_ID, MAX_TOTAL_MEMORY, SQL_TEXT FROM "
            "performance_schema.events_statements_history_long WHERE "
            "THREAD_ID = %d AND NESTING_EVENT_LEVEL = 0" % thread)}
        ours = {r["statement"]: r for r in ranked}
        self.assertEqual(sorted(r["rank"] for r in ranked),
                         list(range(1, len(ranked) + 1)), desc)
        unsampled = 0
        for sql in sqls:
            r = ours.get(sql)
            self.assertIsNotNone(r, "not ranked: %s%s" % (sql, desc))
            self.assertEqual(r["peak_source"], "server", r)
            peak, text = server[r["statement_id"]]
            self.assertEqual(text, sql, r)
            self.assertEqual(r["exact_peak_bytes"], peak, r)
            self.assertGreater(peak, 15 << 20, r)
            self.assertEqual(r["rows_examined"], ROWS, r)
            self.assertGreater(r["server_duration_us"], 0, r)
            self.assertEqual(r["growth_bytes"], peak - r["start_bytes"], r)
            if r["samples"] == 0:
                unsampled += 1
                self.assertIsNone(r["peak_bytes"], r)
                self.assertIsNone(r["missed_bytes"], r)
            else:
                self.assertEqual(r["missed_bytes"], max(
                    0, peak - r["between_peak_bytes"]), r)
        # Ten statements of ~0.55 s each, a sample a second: some ran
        # wholly between two samples, and are ranked all the same.
        self.assertGreater(unsampled, 0, desc)
        self.assertNotIn("ended unseen", p.stderr, desc)
        self.assertNotIn("peaks of statements are sampled", p.stderr, desc)
        # Read back, the capture ranks them the same (the samples' span
        # aside: a capture keeps their times in whole milliseconds).
        cap = os.path.join(self.dir, "capture.jsonl")
        with open(cap, "w") as f:
            f.write(p.stdout)
        again = os.path.join(self.dir, "again.jsonl")
        q = mmp.run(["--read", cap, "--format", "json", "--statements",
                     again], conn=False)
        self.assertEqual(q.returncode, 0, mmp.describe(q))
        with open(again) as f:
            back = mmp.parse_json_lines(f.read())
        for r in back + ranked:
            del r["duration_ms"]
        self.assertEqual(back, ranked)
        # In text, the summary marks whose each peak is.
        t = mmp.run(["--read", cap, "--format", "text"], conn=False)
        self.assertIn("## Statements by growth: ", t.stdout)
        self.assertIn(" the server's (exact)", t.stdout)
        self.assertIn(" ran between samples", t.stdout)
        self.assertRegex(t.stdout, r"\n rank +growth +start +peak +of +"
                         r"missed +allocated +samples +ran\n")

    @mmp.only_on("mysql", "MySQL 8.0.31+ keeps each statement's peak")
    def test_history_that_lost_rows_is_said(self):
        # Thirty statements at once between two samples: the thread's
        # history keeps ten.
        p, ranked, _ = self.capture(["SELECT %d" % i for i in range(30)], 0,
                                    "--format", "text")
        self.assertRegex(p.stderr, r"at least \d+ statements? of the thread "
                         r"ended unseen", mmp.describe(p))
        self.assertIn("performance_schema_events_statements_history_size",
                      p.stderr)
        self.assertIn("NAME = 'events_statements_history_long'", p.stderr)
        self.assertEqual(p.stderr.count("ended unseen"), 1, p.stderr)
        self.assertRegex(ranked, r"at least \d+ lost from the server's "
                         r"history")

    @mmp.only_on("mysql", "MySQL 8.0.31+ keeps each statement's peak")
    def test_consumer_off_is_said(self):
        mmp.root_sql(CONSUMER % ("NO", "events_statements_history"))
        p, ranked, _ = self.capture([SQL % i for i in range(3)], 0.5,
                                    "--format", "text")
        self.assertIn("UPDATE performance_schema.setup_consumers SET "
                      "ENABLED = 'YES' WHERE NAME = "
                      "'events_statements_history'", p.stderr)
        self.assertIn(", peaks sampled ##", ranked, ranked)

    @mmp.only_on("mariadb", "MariaDB keeps no statement's peak")
    def test_mariadb_says_its_peaks_are_sampled(self):
        sqls = [SQL % i for i in range(3)]
        p, ranked, _ = self.capture(sqls, 0.5, "--format", "json")
        desc = mmp.describe(p)
        self.assertEqual(p.stderr.count("peaks of statements are sampled"),
                         1, desc)
        self.assertTrue(ranked, desc)
        self.assertTrue(all(s["finished"] == [] for s in
                            mmp.parse_json_lines(p.stdout)), desc)
        cap = os.path.join(self.dir, "capture.jsonl")
        with open(cap, "w") as f:
            f.write(p.stdout)
        t = mmp.run(["--read", cap, "--format", "text"], conn=False)
        self.assertIn(", peaks sampled ##", t.stdout, mmp.describe(t))
        for r in ranked:
            self.assertEqual(r["peak_source"], "samples", r)
            self.assertIsNone(r["exact_peak_bytes"], r)
            self.assertIsNone(r["server_duration_us"], r)
