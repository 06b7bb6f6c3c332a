"""Which statement each sample belongs to: boundaries in every format,
statement text that CSV and JSON must carry whatever it holds, the digest
once a statement has ended, and a server whose consumer
events_statements_current is off."""

import re
import subprocess
import time

import mmp

FIRST = "SELECT SLEEP(1.2), 'first'"
SECOND = "SELECT SLEEP(1.2), 'second'"
# Quotes, commas, a line end and a tab, and characters of 2 and 3 bytes.
HOSTILE = ("SELECT SLEEP(1.2), 'a,\"b\"',\n\t'caf\u00e9 \u65e5\u672c', 'x''y', "
           "'%s'" % ("z" * 300))
DIGEST_RE = re.compile(r"^[0-9a-f]{32}([0-9a-f]{32})?$")


CONSUMER = ("UPDATE performance_schema.setup_consumers SET ENABLED = '%s' "
            "WHERE NAME = 'events_statements_current'")


def setUpModule():
    # tests/sandbox.sh starts the server with it; a server restarted by
    # another test, or started before, may lack it.
    mmp.root_sql(CONSUMER % "YES")


def runs(values):
    """The values with each run of equal ones folded into one."""
    out = []
    for v in values:
        if not out or out[-1] != v:
            out.append(v)
    return out


class Boundaries(mmp.TestCase):

    def test_two_statements_in_every_format(self):
        # Three captures of one session at once: each format sees the
        # statement change once, from FIRST to SECOND.
        w = self.start(mmp.Workload("", "%s;\n%s;" % (FIRST, SECOND)))
        args = ["--connection", str(w.connection_id), "--frequency", "100",
                "--top", "3"]
        procs = {f: self.spawn(args + ["--format", f])
                 for f in ("json", "csv", "text")}
        out = {f: self.finish_ok(p) for f, p in procs.items()}

        text, desc = out["json"].stdout, mmp.describe(out["json"])
        samples = mmp.parse_json_lines(text)
        for i, s in enumerate(samples):
            self.assertJsonSample(s, first=(i == 0))
        seen = runs([(s["statement_id"], s["statement"]) for s in samples
                     if s["statement"] in (FIRST, SECOND)])
        self.assertEqual([t for _, t in seen], [FIRST, SECOND], desc)
        self.assertLess(seen[0][0], seen[1][0], desc)
        for t in (FIRST, SECOND):
            digests = [s["digest"] is not None for s in samples
                       if s["statement"] == t]
            if mmp.MYSQL:
                # MySQL fills in the digest as the statement starts: every
                # sample of it has one.
                self.assertTrue(all(digests), desc)
                continue
            # MariaDB gives the digest only once the statement ended, so
            # within a statement's samples the ones with a digest can only
            # be the last (taken after it ended, before the next began or
            # the session closed); its first sample, while it ran, has none.
            self.assertFalse(digests[0], desc)
            self.assertEqual(digests, sorted(digests), desc)

        text, desc = out["csv"].stdout, mmp.describe(out["csv"])
        rows = self.assertCsvSamples(text, desc)
        by_sample = runs([(r["sample"], r["statement_id"], r["statement"])
                          for r in rows])
        self.assertEqual(len(by_sample), len({r["sample"] for r in rows}),
                         "a sample's rows disagree on its statement" + desc)
        self.assertEqual(runs([t for _, _, t in by_sample
                               if t in (FIRST, SECOND)]), [FIRST, SECOND], desc)

        text, desc = out["text"].stdout, mmp.describe(out["text"])
        lines = re.findall(r"(?m)^## statement: (.*) ##$",
                           text.split("## Summary")[0])
        self.assertIn("## statement: %s ##\n## Memory usage at time" % SECOND,
                      text, desc)
        mine = [l for l in lines if l in (FIRST, SECOND)]
        self.assertEqual(mine, [FIRST, SECOND], desc)
        # The first sample has its statement line, whatever it is.
        self.assertRegex(text, r"^## statement: .* ##\n## Memory usage at "
                               r"time 0 ##\n", desc)
        # Under the summary, each statement ranked, with its numbers.
        part = text.split("## Statements by growth: ")[1]
        for t in (FIRST, SECOND):
            self.assertRegex(part, r"(?m)^ \d+ +.+ (B|KiB|MiB) +#\d+(-#\d+)? +\d+ ms\n"
                                   r" +statement: %s$" % re.escape(t), desc)
        w.wait()

    def test_digest_once_it_ended(self):
        # Between statements the thread's last one is reported, now with
        # its digest; the next one has a new id.
        client = subprocess.Popen(
            ["mariadb", "--no-defaults", "-uloader", "-ploader-pass", "-S",
             mmp.SOCKET, "demo", "-N", "-n"],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE,
            stderr=subprocess.PIPE)
        try:
            client.stdin.write(b"SELECT CONNECTION_ID();\n")
            client.stdin.flush()
            conn = int(client.stdout.readline())
            client.stdin.write(b"SELECT 'idle after me', 1;\n")
            client.stdin.flush()
            client.stdout.readline()
            prof = self.spawn(["--connection", str(conn), "--frequency",
                               "100", "--format", "json", "--top", "1"])
            time.sleep(0.8)
            client.stdin.write(b"SELECT SLEEP(0.6);\n")
            client.stdin.close()
            client.wait(timeout=20)
            p = self.finish_ok(prof)
            text, desc = p.stdout, mmp.describe(p)
        finally:
            if client.poll() is None:
                client.kill()
                client.wait()
            client.stdout.close()
            client.stderr.close()
        samples = mmp.parse_json_lines(text)
        idle = [s for s in samples if s["statement"] == "SELECT 'idle after me', 1"]
        busy = [s for s in samples if s["statement"] == "SELECT SLEEP(0.6)"]
        self.assertGreaterEqual(len(idle), 3, desc)
        self.assertGreaterEqual(len(busy), 2, desc)
        self.assertEqual(len({s["statement_id"] for s in idle}), 1, desc)
        for s in idle:
            self.assertRegex(s["digest"] or "", DIGEST_RE, desc)
        self.assertGreater(busy[0]["statement_id"], idle[0]["statement_id"], desc)
        self.assertLess(samples.index(idle[-1]), samples.index(busy[0]), desc)


class Text(mmp.TestCase):

    def test_hostile_statement_stays_well_formed(self):
        w = self.start(mmp.Workload("", HOSTILE + ";"))
        args = ["--connection", str(w.connection_id), "--frequency", "100",
                "--top", "2", "--count", "4"]
        procs = {f: self.spawn(args + ["--format", f])
                 for f in ("json", "csv", "text")}
        out = {f: self.finish_ok(p) for f, p in procs.items()}
        want = HOSTILE[:200]

        text, desc = out["json"].stdout, mmp.describe(out["json"])
        samples = mmp.parse_json_lines(text)
        self.assertEqual(len(samples), 4, desc)
        self.assertEqual(len(text.splitlines()), 4, "one sample, one line" + desc)
        self.assertEqual([s["statement"] for s in samples], [want] * 4, desc)

        text, desc = out["csv"].stdout, mmp.describe(out["csv"])
        rows = self.assertCsvSamples(text, desc)
        self.assertEqual({r["statement"] for r in rows}, {want}, desc)
        self.assertEqual({r["sample"] for r in rows}, {1, 2, 3, 4}, desc)

        # Text: one line, white space folded, cut with "...".
        text, desc = out["text"].stdout, mmp.describe(out["text"])
        lines = [l for l in text.splitlines() if l.startswith("## statement: ")]
        self.assertEqual(lines, ["## statement: SELECT SLEEP(1.2), 'a,\"b\"', "
                                 "'caf\u00e9 \u65e5\u672c', 'x''y', '" +
                                 "z" * 49 + "... ##"], desc)
        for c in text:
            self.assertFalse(ord(c) < 0x20 and c != "\n", desc)
        w.wait()


class LongText(mmp.TestCase):

    def test_text_longer_than_its_first_buffer(self):
        # 200 characters of 3 bytes do not fit the 256 bytes a text column
        # is first given: the first row's text is fetched again into a
        # larger one (conn_stmt.c's columns_first_one()), and each row's
        # integers must survive that.
        stmt = "SELECT SLEEP(1.2), '%s'" % ("\u65e5" * 300)
        w = self.start(mmp.Workload("", stmt + ";"))
        p = self.run_ok(["--connection", str(w.connection_id), "--frequency",
                         "100", "--top", "0", "--count", "4", "--format",
                         "json"])
        desc = mmp.describe(p)
        samples = mmp.parse_json_lines(p.stdout)
        self.assertEqual([s["statement"] for s in samples], [stmt[:200]] * 4,
                         desc)
        ids = {s["statement_id"] for s in samples}
        self.assertEqual(len(ids), 1, desc)
        self.assertGreater(ids.pop(), 0, desc)
        for s in samples:
            self.assertTrue(s["events"], desc)
            for e in s["events"]:
                # Each row read has allocated or freed (the statement's
                # filter): all its counters 0 would be a row lost.
                self.assertGreater(e["alloc_count"] + e["free_count"], 0,
                                   (e, desc))
        w.wait()


class ConsumerOff(mmp.TestCase):

    def test_note_and_processlist_text(self):
        w = self.start(mmp.sleeper(2))
        mmp.root_sql(CONSUMER % "NO")
        try:
            p = self.run_ok(["--connection", str(w.connection_id),
                             "--format", "json", "--count", "2",
                             "--frequency", "100"])
        finally:
            mmp.root_sql(CONSUMER % "YES")
        notes = [l for l in p.stderr.splitlines()
                 if "events_statements_current" in l]
        self.assertEqual(len(notes), 1, mmp.describe(p))
        self.assertIn("SET ENABLED = 'YES'", notes[0])
        self.assertIn("performance-schema-consumer-events-statements-current=ON",
                      notes[0])
        for s in mmp.parse_json_lines(p.stdout):
            # What runs, from the processlist; no id, no digest.
            self.assertEqual(s["statement"], "SELECT SLEEP(2)", mmp.describe(p))
            self.assertIsNone(s["statement_id"], mmp.describe(p))
            self.assertIsNone(s["digest"], mmp.describe(p))
        # And with the consumer on again, no note.
        p = self.run_ok(["--connection", str(w.connection_id), "--format",
                         "json", "--count", "1"])
        self.assertNotIn("events_statements_current", p.stderr)
        s = mmp.parse_json_lines(p.stdout)[0]
        self.assertIsInstance(s["statement_id"], int, mmp.describe(p))


MEMORY_SQL = ("UPDATE performance_schema.setup_instruments SET ENABLED = '%s' "
              "WHERE NAME LIKE 'memory/sql/%%'")
THREAD_SQL = ("UPDATE performance_schema.threads SET INSTRUMENTED = '%s' "
              "WHERE THREAD_ID = %d")


class SetupChanged(mmp.TestCase):
    """Instrumentation switched off while sampling is said once, as a
    warning (shown with --quiet too), and later samples name no stale
    statement."""

    def test_each_switch_said_once(self):
        w = self.start(mmp.sleeper(6))
        proc = self.spawn(["--connection", str(w.connection_id), "--quiet",
                           "--format", "json", "--frequency", "100",
                           "--duration", "5"])
        time.sleep(1.5)
        try:
            mmp.root_sql(MEMORY_SQL % "NO")
            mmp.root_sql(CONSUMER % "NO")
            mmp.root_sql(THREAD_SQL % ("NO", w.thread_id))
            p = proc.finish()
        finally:
            mmp.root_sql(MEMORY_SQL % "YES")
            mmp.root_sql(CONSUMER % "YES")
            mmp.root_sql(THREAD_SQL % ("YES", w.thread_id))
        desc = mmp.describe(p)
        self.assertEqual(p.returncode, 0, desc)
        for words in ["memory instruments were switched off",
                      "a statements consumer of performance_schema was "
                      "switched off",
                      "thread %d was switched to INSTRUMENTED = 'NO'"
                      % w.thread_id]:
            lines = [l for l in p.stderr.splitlines() if words in l]
            self.assertEqual(len(lines), 1, words + desc)
            self.assertTrue(mmp.unstamped(lines[0]).startswith(
                "mysqlmemprof: warning: "),
                            desc)
        # Once the consumer was seen off, samples carry no statement id,
        # and each says what was switched off.
        samples = mmp.parse_json_lines(p.stdout)
        self.assertIsInstance(samples[0]["statement_id"], int, desc)
        self.assertIsNone(samples[0]["setup_off"], desc)
        self.assertIsNone(samples[-1]["statement_id"], desc)
        self.assertEqual(samples[-1]["setup_off"], "memory_instruments,"
                         "statements_consumer,thread_instrumented", desc)
        for s in samples:
            self.assertJsonSample(s, s is samples[0])
        w.wait()
