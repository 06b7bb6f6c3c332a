"""--wait-for and --longer-than: a statement that starts later is found,
sampled until it ends, and with --repeat each statement is captured once.
Every statement of these tests carries a token of its own, so no other
session of the server can match."""

import concurrent.futures
import glob
import os
import select
import signal
import subprocess
import tempfile
import time
import uuid

import mmp


def token():
    return "mmp-wait-" + uuid.uuid4().hex[:12]


def read_line(w, timeout=20):
    """The next line the workload's client prints: a statement's result,
    printed when the statement ends."""
    line = b""
    deadline = time.monotonic() + timeout
    while not line.endswith(b"\n"):
        left = deadline - time.monotonic()
        if left <= 0 or not select.select([w.proc.stdout], [], [], left)[0]:
            raise AssertionError("workload printed no line in time")
        c = os.read(w.proc.stdout.fileno(), 1)
        if not c:
            raise AssertionError("workload ended early")
        line += c
    return line.decode()


def transitions(samples):
    """How many captures a series of sample numbers holds: it restarts at 1."""
    return sum(1 for i, n in enumerate(samples) if n == 1 and (i == 0 or samples[i - 1] != 1))


class Wait(mmp.TestCase):

    def setUp(self):
        super().setUp()
        self.dir = tempfile.TemporaryDirectory()
        self.tok = token()

    def tearDown(self):
        super().tearDown()
        self.dir.cleanup()

    def test_found_and_followed_to_its_end(self):
        proc = self.spawn(["--wait-for", "%" + self.tok + "%", "--poll",
                           "200", "--frequency", "100", "--format", "json"])
        proc.wait_for_stderr("waiting for")
        # The statement starts after mysqlmemprof began waiting; then the
        # connection runs another one, which must not be captured.
        w = self.start(mmp.Workload(
            "", "SELECT SLEEP(2), '%s';\nSELECT SLEEP(4);" % self.tok))
        read_line(w)
        ended = time.monotonic()
        p = proc.finish()
        gone = time.monotonic()
        desc = mmp.describe(p)
        self.assertEqual(p.returncode, 0, desc)
        # Within about one look (200 ms) and one sample (100 ms) of the end.
        self.assertLess(gone - ended, 0.8, desc)
        self.assertIsNone(w.proc.poll(), "the next statement still runs")
        samples = mmp.parse_json_lines(p.stdout)
        self.assertGreaterEqual(len(samples), 12, desc)
        self.assertLessEqual(len(samples), 24, desc)
        for i, s in enumerate(samples):
            self.assertJsonSample(s, i == 0)
            self.assertEqual(s["thread_id"], w.thread_id, desc)
        self.assertIn("found connection %d" % w.connection_id, p.stderr)
        self.assertIn("(the statement finished)", p.stderr, desc)

    def test_a_client_calling_itself_mysqlmemprof_is_found(self):
        # Any client can set program_name; only our own connection is left
        # out of the search. Debian's python3 has pymysql (scripts/deps.sh),
        # which sets connection attributes; the mariadb client cannot.
        proc = self.spawn(["--wait-for", "%" + self.tok + "%", "--poll",
                           "100", "--frequency", "100", "--count", "3",
                           "--wait-timeout", "15"])
        proc.wait_for_stderr("waiting for")
        disguised = subprocess.Popen(
            ["/usr/bin/python3", "-c",
             "import pymysql, sys\n"
             "db = pymysql.connect(unix_socket=sys.argv[1], user='loader',"
             " password='loader-pass', database='demo',"
             " program_name='mysqlmemprof')\n"
             "db.cursor().execute(\"SELECT SLEEP(3), '%s'\" % sys.argv[2])\n",
             mmp.SOCKET, self.tok],
            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        try:
            p = proc.finish()
        finally:
            _, err = disguised.communicate(timeout=30)
        desc = mmp.describe(p) + "\n--- client:\n" + err.decode()
        self.assertEqual(disguised.returncode, 0, desc)
        self.assertEqual(p.returncode, 0, desc)
        self.assertIn("found connection", p.stderr, desc)
        self.assertIn("(--count reached)", p.stderr, desc)

    def test_connection_lost_while_waiting(self):
        proc = self.spawn(["--wait-for", "%" + self.tok + "%", "--poll",
                           "200", "--frequency", "100", "--format", "json"])
        proc.wait_for_stderr("waiting for")
        rows = mmp.root_sql(
            "SELECT PROCESSLIST_ID FROM performance_schema.session_connect_attrs "
            "WHERE ATTR_NAME = '_pid' AND ATTR_VALUE = '%d'" % proc.pid)
        mmp.root_sql("KILL %s" % rows[0][0])
        # What it said up to here: stderr read so far.
        before = proc.wait_for_stderr("waiting goes on")
        w = self.start(mmp.Workload("", "SELECT SLEEP(1.5), '%s';" % self.tok))
        tid = w.thread_id  # while the connection lives
        p = proc.finish()
        desc = mmp.describe(p)
        self.assertEqual(p.returncode, 0, desc)
        self.assertIn("reconnecting", before, desc)
        samples = mmp.parse_json_lines(p.stdout)
        self.assertGreaterEqual(len(samples), 5, desc)
        self.assertTrue(all(s["thread_id"] == tid for s in samples), desc)

    def test_longer_than_ignores_short_statements(self):
        p_args = ["--wait-for", "%" + self.tok + "%", "--longer-than", "2",
                  "--poll", "200", "--frequency", "100", "--format", "json",
                  "--wait-timeout", "15"]
        proc = self.spawn(p_args)
        proc.wait_for_stderr("waiting for")
        # PROCESSLIST_TIME counts whole seconds: 0.8 s never shows 2.
        w = self.start(mmp.Workload("", "\n".join(
            ["SELECT SLEEP(0.8), '%s-short';" % self.tok] * 3 +
            ["SELECT SLEEP(3.5), '%s-long';" % self.tok])))
        thread_id = w.thread_id  # while the session lasts
        p = proc.finish()
        self.assertEqual(p.returncode, 0, mmp.describe(p))
        self.assertIn("%s-long" % self.tok, p.stderr, mmp.describe(p))
        self.assertNotIn("-short", p.stderr, mmp.describe(p))
        self.assertEqual(p.stderr.count("found connection"), 1, mmp.describe(p))
        samples = mmp.parse_json_lines(p.stdout)
        self.assertGreaterEqual(len(samples), 5, mmp.describe(p))
        self.assertTrue(all(s["thread_id"] == thread_id for s in samples))

    def test_repeat_one_file_per_statement(self):
        pattern = os.path.join(self.dir.name, "cap-%c-%t-%H%M%S.csv")
        proc = self.spawn(["--wait-for", "%" + self.tok + "%", "--repeat",
                           "--poll", "200", "--frequency", "100", "--format",
                           "csv", "-o", pattern])
        proc.wait_for_stderr("waiting for")
        # Twice the same text, one right after the other: two statements.
        w = self.start(mmp.Workload("", "\n".join(
            ["SELECT SLEEP(1.5), '%s';" % self.tok] * 2 +
            ["SELECT SLEEP(3);"])))
        read_line(w)
        read_line(w)
        time.sleep(0.6)
        p = proc.finish(signal.SIGTERM, timeout=10)
        desc = mmp.describe(p)
        self.assertEqual(p.returncode, 0, desc)
        files = sorted(glob.glob(os.path.join(self.dir.name, "*")))
        self.assertEqual(len(files), 2, "%r%s" % (files, desc))
        prefix = "cap-%d-%d-" % (w.connection_id, w.thread_id)
        for f in files:
            self.assertRegex(os.path.basename(f), r"^%s\d{6}(-2)?\.csv$" % prefix)
            with open(f, newline="") as fp:
                rows = self.assertCsvSamples(fp.read(), desc + f)
            n = {r["sample"] for r in rows}
            self.assertEqual(n, set(range(1, max(n) + 1)), f)
            self.assertGreaterEqual(len(n), 8, desc + f)
            self.assertTrue(all(r["thread_id"] == w.thread_id for r in rows))
        self.assertIn("2 captures so far", p.stderr, desc)
        self.assertEqual(p.stderr.count("(the statement finished)"), 2, desc)

    def test_repeat_appends_to_one_output(self):
        proc = self.spawn(["--wait-for", "%" + self.tok + "%", "--repeat",
                           "--poll", "200", "--frequency", "100", "--format",
                           "csv", "-q"])
        time.sleep(0.3)
        w = self.start(mmp.Workload("", "\n".join([
            "SELECT SLEEP(1), '%s';" % self.tok, "SELECT SLEEP(0.5);",
            "SELECT SLEEP(1), '%s';" % self.tok, "SELECT SLEEP(3);"])))
        for _ in range(3):
            read_line(w)
        time.sleep(0.5)
        p = proc.finish(signal.SIGTERM, timeout=10)
        self.assertEqual(p.returncode, 0, mmp.describe(p))
        self.assertEqual(p.stderr, "", mmp.describe(p))
        # One header, then the rows of both captures.
        rows = self.assertCsvSamples(p.stdout, mmp.describe(p))
        numbers = [r["sample"] for r in rows]
        self.assertEqual(transitions(numbers), 2, numbers)

    def test_repeat_text_has_a_heading_and_summary_per_capture(self):
        proc = self.spawn(["--wait-for", "%" + self.tok + "%", "--repeat",
                           "--poll", "200", "--frequency", "100"])
        proc.wait_for_stderr("waiting for")
        w = self.start(mmp.Workload("", "\n".join(
            ["SELECT SLEEP(0.8), '%s';" % self.tok] * 2 + ["SELECT SLEEP(3);"])))
        read_line(w)
        read_line(w)
        time.sleep(0.5)
        p = proc.finish(signal.SIGINT, timeout=10)
        self.assertEqual(p.returncode, 0, mmp.describe(p))
        self.assertRegex(p.stdout, r"(?m)^## Capture 1 at .*connection %d, thread "
                         r"%d.*%s" % (w.connection_id, w.thread_id, self.tok))
        self.assertRegex(p.stdout, r"(?m)^## Capture 2 at ")
        self.assertEqual(len([l for l in p.stdout.splitlines()
                              if l.startswith("## Summary")]), 2, mmp.describe(p))

    def test_several_matches_take_the_largest(self):
        small = self.start(mmp.Workload(
            "", "SELECT SLEEP(8), '%s';" % self.tok))
        big = self.start(mmp.Workload(
            "SET @mmp_big = REPEAT('x', 8000000);",
            "SELECT SLEEP(8), '%s';" % self.tok))
        time.sleep(0.3)
        p = mmp.run(["--wait-for", "%" + self.tok + "%", "--count", "3",
                     "--frequency", "100", "--format", "json"])
        self.assertSampled(p, big.thread_id, count=3)
        self.assertIn("2 statements match; taking connection %d"
                      % big.connection_id, p.stderr, mmp.describe(p))
        # The other one is named, with the start of its text.
        self.assertRegex(p.stderr, r"the others, for later: connection %d "
                         r"\([^)]*\): SELECT SLEEP\(8\)" % small.connection_id)
        self.assertIn("(--count reached)", p.stderr, mmp.describe(p))

    def test_wait_timeout_exit_3(self):
        t0 = time.monotonic()
        p = mmp.run(["--wait-for", "%" + self.tok + "%", "--wait-timeout",
                     "1", "--poll", "200", "-q"])
        self.assertOneErrorLine(p, 3, "no statement like", self.tok,
                                "--wait-timeout 1 s")
        self.assertLess(time.monotonic() - t0, 3)
        self.assertEqual(p.stdout, "", mmp.describe(p))

    def test_unknown_user_or_db_is_no_match(self):
        w = self.start(mmp.Workload("", "SELECT SLEEP(5), '%s';" % self.tok))
        for opt in (["--match-user", "nobody-here"], ["--match-db", "nodb"]):
            with self.subTest(opt=opt):
                p = mmp.run(["--wait-for", "%" + self.tok + "%", "--wait-timeout",
                             "1", "-q"] + opt)
                self.assertOneErrorLine(p, 3, opt[1])
        # The right ones match.
        p = mmp.run(["--wait-for", "%" + self.tok + "%", "--match-user",
                     "loader", "--match-db", "demo", "--count", "1",
                     "--format", "json", "-q"])
        self.assertSampled(p, w.thread_id)

    def test_sigterm_while_waiting(self):
        proc = self.spawn(["--wait-for", "%" + self.tok + "%", "--format",
                           "csv"])
        proc.wait_for_stderr("waiting for")
        t0 = time.monotonic()
        p = proc.finish(signal.SIGTERM, timeout=5)
        self.assertEqual(p.returncode, 0, mmp.describe(p))
        self.assertLess(time.monotonic() - t0, 1, mmp.describe(p))
        self.assertEqual(p.stdout, "", mmp.describe(p))


class Injection(mmp.TestCase):
    """The pattern and the names reach the server as parameters: quotes,
    backslashes and a DROP in them are text to match, nothing else. The
    runs use root, so that SQL pasted from them could really drop."""

    def setUp(self):
        super().setUp()
        self.tok = token()
        mmp.root_sql("CREATE TABLE IF NOT EXISTS demo.mmp_canary (a INT)")

    def run_root(self, args):
        return mmp.run(["--socket", mmp.SOCKET, "--user", "root"] + args,
                       conn=False, env=mmp.base_env(MYSQL_PWD=None))

    def test_quotes_backslashes_and_drop_match_literally(self):
        # The text holds ' " \\ and "; DROP TABLE ...; --" as the server
        # sees it: in the pattern, LIKE's \\ matches one backslash and \_
        # an underscore.
        w = self.start(mmp.Workload("", (
            "SELECT SLEEP(4), '%s', \"'; DROP TABLE demo.mmp_canary; -- \", "
            "'back\\\\slash';") % self.tok))
        pattern = ("%" + self.tok + "%\"'; DROP TABLE demo.mmp\\_canary; -- "
                   "\"%back\\\\\\\\slash%")
        p = self.run_root(["--wait-for", pattern, "--count", "2",
                           "--frequency", "100", "--format", "json", "-q"])
        self.assertSampled(p, w.thread_id, count=2)
        self.assertEqual(mmp.root_sql("SELECT COUNT(*) FROM information_schema.tables "
                                      "WHERE table_schema = 'demo' AND "
                                      "table_name = 'mmp_canary'"), [["1"]])
        # Pasted into LIKE '...', this would match every statement. The
        # six runs wait their second side by side.
        runs = [(bad, args + ["--wait-timeout", "1", "--poll", "200", "-q"])
                for bad in ("%' OR '1'='1", "x' OR 1=1 -- ", "%\\' OR 1=1 #")
                for args in (["--wait-for", bad],
                             ["--longer-than", "0", "--match-user", bad])]
        with concurrent.futures.ThreadPoolExecutor(len(runs)) as pool:
            done = list(pool.map(self.run_root, [a for _, a in runs]))
        for (bad, args), p in zip(runs, done):
            with self.subTest(pattern=bad, option=args[0]):
                self.assertOneErrorLine(p, 3, "--wait-timeout")
        mmp.root_sql("SELECT COUNT(*) FROM demo.mmp_canary")  # still there
