"""--bigger-than: the connection that grows past SIZE is found among others,
captured from before it was found (the history kept while waiting), and
when several are past SIZE the largest is taken and the others named."""

import calendar
import json
import os
import re
import shutil
import subprocess
import tempfile
import time

import mmp

MIB = 1024 * 1024

# Stored functions whose GROUP BY fills a temporary table (MySQL: TempTable,
# MariaDB: HEAP), called from a statement that sleeps before and after.
# While a function's statement runs, the thread's PROCESSLIST_INFO is that
# statement; MySQL leaves it there until the calling statement ends.
# mmp_hunt_grow grows for a few seconds (the SHA2 chain spends CPU);
# mmp_hunt_spike holds some 20 to 50 MB for well under a second.
FUNCTIONS = """
DROP FUNCTION IF EXISTS mmp_hunt_grow;
DROP FUNCTION IF EXISTS mmp_hunt_spike;
DELIMITER //
CREATE FUNCTION mmp_hunt_grow(n INT) RETURNS BIGINT READS SQL DATA
BEGIN
  DECLARE g BIGINT;
  SELECT COUNT(*) INTO g FROM (
    SELECT s, SUM(CRC32(SHA2(SHA2(SHA2(CONCAT(s, k), 512), 512), 512))) AS h
    FROM items WHERE id <= n GROUP BY s) AS grouped;
  RETURN g;
END //
CREATE FUNCTION mmp_hunt_spike(n INT) RETURNS BIGINT READS SQL DATA
BEGIN
  DECLARE g BIGINT;
  SELECT COUNT(*) INTO g FROM (
    SELECT s, SUM(CRC32(s)) AS h FROM items WHERE id <= n GROUP BY s)
    AS grouped;
  RETURN g;
END //
DELIMITER ;
"""
# As tests/sql/hungry.sql: the temporary table stays in memory.
IN_MEMORY = ("SET SESSION tmp_table_size = 256 * 1024 * 1024, "
             "max_heap_table_size = 256 * 1024 * 1024;")


def setUpModule():
    mmp.ensure_demo_table()
    subprocess.run(["mariadb", "--no-defaults", "-uloader", "-ploader-pass",
                    "-S", mmp.SOCKET, "demo"], input=FUNCTIONS.encode(),
                   check=True, capture_output=True, timeout=60)


def epoch(ts):
    """A sample's timestamp, seconds since the epoch."""
    return calendar.timegm(time.strptime(ts[:19], "%Y-%m-%dT%H:%M:%S")) \
        + int(ts[20:23]) / 1000


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


class IdleHolder(mmp.Workload):
    """A `loader` session that sets user variables of about mib MiB (15 MB
    each, under max_allowed_packet), then runs nothing: its client waits on
    stdin, which send() writes to, until the session is killed."""

    def __init__(self, mib):
        sets = ", ".join("@h%d = REPEAT('x', %d)" % (i, 15 * 1000 * 1000)
                         for i in range(mib // 15))
        self.proc = subprocess.Popen(
            mmp._loader_argv(), stdin=subprocess.PIPE,
            stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        self.send("SET %s;\nSELECT CONNECTION_ID();" % sets)
        self.connection_id = self._read_id()
        self._thread_id = None

    def send(self, sql):
        self.proc.stdin.write((sql + "\n").encode())
        self.proc.stdin.flush()

    def kill(self):
        if self.proc.stdin is not None:
            try:
                self.proc.stdin.close()
            except BrokenPipeError:
                pass
            self.proc.stdin = None
        super().kill()


class PooledSession(IdleHolder):
    """A `loader` session kept open, as a connection pool keeps one: setup
    runs first; run() sends a statement and waits for its one-line answer."""

    def __init__(self, setup):
        self.proc = subprocess.Popen(
            mmp._loader_argv(), stdin=subprocess.PIPE,
            stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        self.send(setup + "\nSELECT CONNECTION_ID();")
        self.connection_id = self._read_id()
        self._thread_id = None

    def run(self, sql):
        self.send(sql)
        self._read_id()


def mib(text):
    """"32.20 MiB" (or KiB, GiB) in bytes, to the precision written."""
    n, unit = text.split()
    return float(n) * {"KiB": 1 << 10, "MiB": 1 << 20, "GiB": 1 << 30}[unit]


def capture_lines(text):
    """The JSON lines of a capture's start ("type":"capture"), and the
    samples, apart."""
    lines = [json.loads(l) for l in text.splitlines() if l.strip()]
    return ([l for l in lines if l.get("type") == "capture"],
            [l for l in lines if "type" not in l])


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
        # Their threads now: on a loaded machine they may have ended by the
        # time the capture is read.
        small_threads = [w.thread_id for w in small]
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
            self.assertNotIn(s["thread_id"], small_threads)
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

    def test_readings_from_before_a_function_changed_the_text(self):
        """The statement's text changes when it calls a function (MySQL
        keeps the function's text to the end): its readings from before are
        of the same statement all the same, by its top-level id, back to its
        start, and the ranking's growth counts from them."""
        size = 30 * MIB
        d = tempfile.mkdtemp(prefix="mmp-hunt-")
        self.addCleanup(shutil.rmtree, d, True)
        ranked = os.path.join(d, "ranked.json")
        proc = self.spawn(["--bigger-than", "30M", "--poll", "200",
                           "--frequency", "200", "--format", "json",
                           "--wait-timeout", "60", "--statements", ranked])
        proc.wait_for_stderr("waiting for")
        started = time.time()
        w = self.start(mmp.Workload(
            IN_MEMORY, "SELECT SLEEP(1.5) + mmp_hunt_grow(300000);"))
        thread = w.thread_id
        p = proc.finish()
        desc = mmp.describe(p)
        self.assertEqual(p.returncode, 0, desc)
        self.assertIn("found connection %d " % w.connection_id, p.stderr,
                      desc)
        samples = mmp.parse_json_lines(p.stdout)
        waiting = [s for s in samples if s["waiting"] == 1]
        for s in samples:
            self.assertEqual(s["thread_id"], thread, desc)
        # From the look after it began (the client's start and a look of
        # slack), through the 1.5 s of SLEEP, under SIZE, to the crossing.
        self.assertGreaterEqual(len(waiting), 5, desc)
        self.assertLess(epoch(waiting[0]["timestamp"]) - started, 1.0, desc)
        self.assertLess(waiting[0]["total_bytes"], size, desc)
        self.assertGreaterEqual(waiting[-1]["total_bytes"], size, desc)
        self.assertEqual(len({s["statement_id"] for s in samples}), 1, desc)
        # The ranking starts it from before the crossing.
        with open(ranked) as f:
            recs = [json.loads(l) for l in f if l.strip()]
        self.assertTrue(recs, desc)
        self.assertIn("mmp_hunt_grow", recs[0]["statement"], recs)
        self.assertLess(recs[0]["start_bytes"], size, recs)
        self.assertGreater(recs[0]["growth_bytes"], size // 2, recs)

    def grant_process(self):
        """MariaDB shows other accounts' sessions in
        information_schema.PROCESSLIST, their peaks with them, only with
        PROCESS; MySQL's peaks are in performance_schema.threads."""
        if not mmp.MARIADB:
            return
        for host in ("localhost", "127.0.0.1"):
            mmp.root_sql("GRANT PROCESS ON *.* TO 'mmp'@'%s'" % host)
            self.addCleanup(mmp.root_sql, "REVOKE PROCESS ON *.* FROM "
                            "'mmp'@'%s'" % host)

    def spike_between_looks(self, timeout, poll=["--poll", "3000"],
                            rows=100000):
        """A run of --bigger-than 8M looking every 3 s (or as poll says),
        and a statement that spikes past 8M just after the first look (its
        GROUP BY of rows rows), then sleeps through the next: (the run, the
        workload, its thread)."""
        proc = self.spawn(["--bigger-than", "8M", "--running-only",
                           "--frequency", "200", "--format", "json",
                           "--wait-timeout", str(timeout)] + poll)
        proc.wait_for_stderr("waiting for")
        w = self.start(mmp.Workload(
            IN_MEMORY, "SELECT SLEEP(0.1) + mmp_hunt_spike(%d) + "
            "SLEEP(4);" % rows))
        thread = w.thread_id
        return proc.finish(), w, thread

    def test_spike_between_two_looks_found_from_the_session_peak(self):
        """Past SIZE for well under --poll, between two looks: the next look
        finds the statement from its session's peak, which the server keeps
        (MySQL 8.0.31+ threads.MAX_TOTAL_MEMORY, MariaDB
        information_schema.PROCESSLIST.MAX_MEMORY_USED), and says so."""
        self.grant_process()
        p, w, thread = self.spike_between_looks(15)
        desc = mmp.describe(p)
        self.assertEqual(p.returncode, 0, desc)
        self.assertIn("found connection %d " % w.connection_id, p.stderr,
                      desc)
        m = re.search(r"crossed 8\.00 MiB between looks, peak ([0-9.]+) "
                      r"MiB: its session's peak, as the server keeps it, "
                      r"rose since the last look; it holds ",
                      p.stderr)
        self.assertIsNotNone(m, desc)
        self.assertGreaterEqual(float(m.group(1)), 8.0, desc)
        heads, samples = capture_lines(p.stdout)
        self.assertTrue(samples, desc)
        for s in samples:
            self.assertEqual(s["thread_id"], thread, desc)
        # Every reading, the look's that found it included, after the spike.
        self.assertTrue(all(s["total_bytes"] < 8 * MIB for s in samples),
                        desc)

    @mmp.only_on("mariadb", "MySQL's peaks need no privilege beyond "
                 "SELECT on performance_schema")
    def test_spike_unseen_without_process_says_why(self):
        p, w, _ = self.spike_between_looks(5)
        desc = mmp.describe(p)
        self.assertEqual(p.returncode, 3, desc)
        self.assertIn("the session peaks of other accounts are hidden "
                      "without the PROCESS privilege", p.stderr, desc)
        self.assertEqual(p.stderr.count("PROCESS privilege"), 1, desc)

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
                      "'loader', or a connection holding it idle", p.stderr,
                      desc)

    def test_nothing_past_size_times_out(self):
        self.start(holder(0, 5))
        p = mmp.run(["--bigger-than", "1G", "--poll", "200",
                     "--wait-timeout", "1"])
        desc = mmp.describe(p)
        self.assertEqual(p.returncode, 3, desc)
        self.assertIn("holding at least 1.00 GiB, or a connection holding "
                      "it idle within --wait-timeout", p.stderr, desc)

    def test_spike_between_looks_at_the_default_poll(self):
        """The same at the default --poll (1000 ms): the capture says it
        crossed between looks, with the peak, in its JSON line as on
        stderr, and begins with the reading of the look that found it."""
        self.grant_process()
        # Some 14 MiB for about 0.3 s on MySQL 9.7, less on MariaDB.
        p, w, thread = self.spike_between_looks(15, poll=[], rows=30000)
        desc = mmp.describe(p)
        self.assertEqual(p.returncode, 0, desc)
        self.assertIn("looking every 1000 ms", p.stderr, desc)
        self.assertIn("crossed 8.00 MiB between looks, peak ", p.stderr, desc)
        heads, samples = capture_lines(p.stdout)
        self.assertEqual(len(heads), 1, desc)
        self.assertTrue(heads[0]["between_looks"], desc)
        self.assertEqual(heads[0]["state"], "running", desc)
        self.assertGreaterEqual(heads[0]["peak_bytes"], 8 * MIB, desc)
        self.assertLess(heads[0]["bytes"], 8 * MIB, desc)
        self.assertEqual(heads[0]["connection_id"], w.connection_id, desc)
        waiting = [s for s in samples if s["waiting"] == 1]
        self.assertGreaterEqual(len(waiting), 1, desc)
        self.assertEqual(samples[:len(waiting)], waiting, desc)
        self.assertIn("the capture begins with %d reading" % len(waiting),
                      p.stderr, desc)

    # A 3 s statement holding some 20 to 50 MB for a fraction of a second
    # (MySQL 9.7: 47 MiB of 100,000 rows, 28 MiB of 60,000).
    POOLED_SPIKE = "SELECT SLEEP(0.5) + mmp_hunt_spike(%d) + SLEEP(2.5);"

    def statement_peak(self, thread):
        """The server's own peak of the thread's latest spike, once ended."""
        rows = mmp.root_sql(
            "SELECT MAX_TOTAL_MEMORY FROM "
            "performance_schema.events_statements_history WHERE "
            "THREAD_ID = %d AND NESTING_EVENT_LEVEL = 0 AND SQL_TEXT LIKE "
            "'%%mmp_hunt_spike%%' ORDER BY EVENT_ID DESC LIMIT 1" % thread)
        return int(rows[0][0])

    # A look that catches a spike leaves the rule under test unexercised:
    # a run so caught is run again, this many times in all, before the
    # test is skipped, saying so (it never passes without its path).
    POOLED_TRIES = 3

    def pooled_run(self, session, rows, what):
        """One hunt over the spike of rows of session() (called for each
        try); the session, the run, its head and the statement's peak.
        The spike falls between two looks (--poll 2000: it comes some 1 s
        after the first), as the rule under test needs: a run whose spike
        a look caught (a loaded host may stretch it) is found so, asserted,
        and run again; the test is skipped after POOLED_TRIES."""
        for attempt in range(1, self.POOLED_TRIES + 1):
            w = session()
            proc = self.spawn(["--bigger-than", "8M", "--wait-timeout", "15",
                               "--poll", "2000", "--frequency", "200",
                               "--format", "json"])
            proc.wait_for_stderr("waiting for")
            time.sleep(0.3)
            w.run(self.POOLED_SPIKE % rows)
            p = proc.finish()
            desc = "%s, try %d: %s" % (what, attempt, mmp.describe(p))
            peak = self.statement_peak(w.thread_id)
            self.assertGreater(peak, 8 * MIB, desc)
            self.assertEqual(p.returncode, 0, desc)
            self.assertIn("found connection %d " % w.connection_id, p.stderr,
                          desc)
            heads, _ = capture_lines(p.stdout)
            self.assertEqual(len(heads), 1, desc)
            self.assertEqual(heads[0]["connection_id"], w.connection_id, desc)
            self.assertNotIn("keeps no statement's own peak", p.stderr, desc)
            if heads[0]["bytes"] < 8 * MIB:
                self.assertTrue(heads[0]["between_looks"], desc)
                return w, p, heads[0], peak, desc
        self.skipTest("%s: a look caught the spike in each of %d tries (a "
                      "loaded host): the rule between looks went untested"
                      % (what, self.POOLED_TRIES))

    @mmp.only_on("mysql", "MariaDB keeps no statement's own peak: a spike "
                 "of a session whose peak is past SIZE already is seen only "
                 "while it holds SIZE at a look (the test below)")
    def test_each_spike_of_one_pooled_connection_found(self):
        """Three runs of one spiking statement on one connection, each
        waited for apart, the spike between two looks: the first raises
        the session's peak past SIZE (threads.MAX_TOTAL_MEMORY, which only
        rises), and is found running by it; the second and third cannot
        show a crossing: each is found by the statement's own peak
        (events_statements_history), exact, at the first look after it
        ended, with its text and time. The later runs spike less than the
        first, so that the session's peak stays where the first left it.
        A first run that a look caught is run again on a new session."""
        w, p, head, _, desc = self.pooled_run(
            lambda: self.start(PooledSession(IN_MEMORY)), 100000, "run 1")
        # Found running, by its session's peak, which it made.
        self.assertIn("its session's peak, as the server keeps it, "
                      "rose since the last look", p.stderr, desc)
        self.assertGreaterEqual(head["peak_bytes"], 8 * MIB, desc)
        self.assertEqual(head["state"], "running", desc)
        for run in (2, 3):
            _, p, head, peak, desc = self.pooled_run(lambda: w, 60000,
                                                     "run %d" % run)
            self.assert_found_ended(p, head, peak, desc)

    def assert_found_ended(self, p, head, peak, desc):
        """A spike found by its statement's own peak, once ended."""
        self.assertEqual(head["peak_bytes"], peak, desc)
        self.assertIn("mmp_hunt_spike", head["statement"], desc)
        m = re.search(r"a statement that ended before this look, after "
                      r"([0-9]+)\.([0-9]{3}) s, peak ([0-9.]+ [KMG]iB): "
                      r"SELECT SLEEP\(0\.5\) \+ mmp_hunt_spike", p.stderr)
        self.assertIsNotNone(m, desc)
        self.assertGreaterEqual(int(m.group(1)), 2, desc)
        self.assertLessEqual(int(m.group(1)), 4, desc)
        self.assertAlmostEqual(mib(m.group(3)), peak, delta=0.01 * MIB,
                               msg=desc)
        self.assertIn("crossed 8.00 MiB between looks, peak %s: the "
                      "statement's own peak, as the server kept it when "
                      "it ended" % m.group(3), p.stderr, desc)
        # The capture's line says it ended, and how long it ran.
        self.assertEqual(head["state"], "ended", desc)
        self.assertNotIn("sampling thread", p.stderr, desc)
        self.assertEqual(head["duration_ms"],
                         int(m.group(1)) * 1000 + int(m.group(2)), desc)
        self.assertEqual(head["seconds"], int(m.group(1)), desc)

    @mmp.only_on("mariadb", "MySQL 8.0.31+ keeps each statement's own peak: "
                 "the test above")
    def test_session_past_size_already_says_what_goes_unseen(self):
        """MariaDB keeps a session's peak (MAX_MEMORY_USED), which only
        rises, and no statement's: once a session's peak is past SIZE, a
        note says that its later spikes are found only while they hold
        SIZE at a look."""
        self.grant_process()
        w = self.start(PooledSession(
            "SET @h0 = REPEAT('x', 15000000); SET @h0 = NULL;"))
        p = mmp.run(["--bigger-than", "8M", "--running-only", "--poll",
                     "200", "--wait-timeout", "2"])
        desc = mmp.describe(p)
        self.assertEqual(p.returncode, 3, desc)
        self.assertNotIn("found connection %d " % w.connection_id, p.stderr,
                         desc)
        self.assertEqual(p.stderr.count(
            "this server keeps no statement's own peak (MySQL 8.0.31 and "
            "later keep it): another statement of such a session past the "
            "size is found only if it holds the size at a look"), 1, desc)

    def test_idle_holder_found_and_followed_until_released(self):
        """A connection that holds SIZE in user variables while it runs
        nothing is found, said to be idle, and captured, whatever it runs,
        until it has held less for --trigger-hold."""
        h = self.start(IdleHolder(30))
        thread = h.thread_id
        proc = self.spawn(["--bigger-than", "20M", "--poll", "200",
                           "--frequency", "200", "--trigger-hold", "1",
                           "--format", "json", "--wait-timeout", "30"])
        proc.wait_for_stderr("found connection %d " % h.connection_id)
        time.sleep(1)
        h.send("SET @h0 = NULL, @h1 = NULL;")
        released = time.monotonic()
        p = proc.finish(timeout=30)
        desc = mmp.describe(p)
        self.assertEqual(p.returncode, 0, desc)
        self.assertRegex(p.stderr, r"found connection %d \(thread %d, user "
                         r"loader\) idle for \d+ s, holding [0-9.]+ MiB"
                         r"(, \d+%% of connection_memory_limit [0-9.]+ MiB)?: "
                         r"it runs no statement" % (h.connection_id, thread),
                         desc)
        self.assertIn("capture 1 ended (it held less than 20.00 MiB for "
                      "--trigger-hold 1 s): connection %d" % h.connection_id,
                      p.stderr, desc)
        # About a second after it let go: not at once, not much later.
        self.assertGreater(time.monotonic() - released, 0.9, desc)
        heads, samples = capture_lines(p.stdout)
        self.assertEqual(len(heads), 1, desc)
        self.assertEqual(heads[0]["state"], "idle", desc)
        self.assertIsNone(heads[0]["statement"], desc)
        self.assertEqual(heads[0]["thread_id"], thread, desc)
        self.assertGreaterEqual(heads[0]["bytes"], 20 * MIB, desc)
        self.assertEqual(heads[0]["bigger_than_bytes"], 20 * MIB, desc)
        self.assertTrue(samples, desc)
        for s in samples:
            self.assertEqual(s["thread_id"], thread, desc)
        self.assertGreaterEqual(samples[0]["total_bytes"], 20 * MIB, desc)
        self.assertLess(samples[-1]["total_bytes"], 20 * MIB, desc)
        # The user variables, as both servers count them.
        names = {e["event_name"] for e in samples[0]["events"]}
        self.assertTrue(any("user_var" in n for n in names), names)
        # --read passes over the capture's line.
        d = tempfile.mkdtemp(prefix="mmp-hunt-")
        self.addCleanup(shutil.rmtree, d, True)
        path = os.path.join(d, "idle.json")
        with open(path, "w") as f:
            f.write(p.stdout)
        r = mmp.run(["--read", path, "--format", "csv"], conn=False)
        self.assertEqual(r.returncode, 0, mmp.describe(r))
        self.assertEqual(len(samples_of(self.assertCsvSamples(
            r.stdout, mmp.describe(r)))), len(samples), mmp.describe(r))

    def test_idle_holder_left_out_when_running_only(self):
        self.start(IdleHolder(30))
        p = mmp.run(["--bigger-than", "20M", "--running-only", "--poll",
                     "200", "--wait-timeout", "2"])
        desc = mmp.describe(p)
        self.assertEqual(p.returncode, 3, desc)
        self.assertNotIn("found connection", p.stderr, desc)
        self.assertNotIn("holding it idle", p.stderr, desc)

    @mmp.only_on("mysql", "connection_memory_limit is MySQL's (8.0.28+)")
    def test_bigger_than_a_share_of_connection_memory_limit(self):
        p = mmp.run(["--bigger-than", "80%", "--wait-timeout", "1"])
        desc = mmp.describe(p)
        self.assertEqual(p.returncode, 2, desc)
        self.assertIn("--bigger-than 80%: connection_memory_limit is not "
                      "set on this server", p.stderr, desc)
        mmp.root_sql("SET GLOBAL connection_memory_limit = %d" % (64 * MIB))
        self.addCleanup(mmp.root_sql, "SET GLOBAL connection_memory_limit "
                        "= DEFAULT")
        h = self.start(IdleHolder(30))
        p = mmp.run(["--bigger-than", "30%", "--poll", "200",
                     "--frequency", "200", "--count", "3",
                     "--wait-timeout", "20"])
        desc = mmp.describe(p)
        self.assertEqual(p.returncode, 0, desc)
        self.assertIn("--bigger-than 30%: 19.20 MiB, of "
                      "connection_memory_limit 64.00 MiB", p.stderr, desc)
        m = re.search(r"found connection %d \(thread \d+, user loader\) "
                      r"idle for \d+ s, holding [0-9.]+ MiB, (\d+)%% of "
                      r"connection_memory_limit 64\.00 MiB" %
                      h.connection_id, p.stderr)
        self.assertIsNotNone(m, desc)
        self.assertTrue(30 <= int(m.group(1)) <= 60, desc)
        self.assertRegex(p.stdout, r"\n connection_memory_limit 64\.00 MiB: "
                         r"the most held, [0-9.]+ MiB, is \d+% of it\n", desc)
        self.assertRegex(p.stderr, r"the most the thread held, [0-9.]+ MiB, "
                         r"is \d+% of connection_memory_limit 64\.00 MiB",
                         desc)

    @mmp.only_on("mariadb", "MariaDB has no connection_memory_limit")
    def test_bigger_than_a_share_refused_on_mariadb(self):
        p = mmp.run(["--bigger-than", "80%", "--wait-timeout", "1"])
        desc = mmp.describe(p)
        self.assertEqual(p.returncode, 2, desc)
        self.assertIn("has no connection_memory_limit (MySQL 8.0.28 and later "
                      "have it)", p.stderr, desc)

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
