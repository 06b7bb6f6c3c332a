"""--explain on the sandbox server, with real causes: the layers add up to
what /proc and performance_schema say; the allocator is the one the
process maps (jemalloc preloaded, glibc's arenas, MySQL's linked
tcmalloc); memory held while its instruments are off lands in the layer
that names them; many connections under glibc raise the arenas and bring
the advice; the estimate and the measured figures come from the server;
a process that cannot be read leaves performance_schema's layers."""

import json
import os
import re
import shutil
import signal
import subprocess
import tempfile
import unittest

import mmp
import test_exporter

MIB = 1 << 20
USER_VARS = ("'memory/sql/user_var_entry', 'memory/sql/user_var_entry::value', "
             "'memory/sql/String::value'")


def layers(d):
    return {l["layer"]: l for l in d["layers"]}


def families():
    """The counted layers' families, summed here from the rows of
    memory_summary_global_by_event_name (no GROUP BY: its temporary table
    would count itself)."""
    out = dict.fromkeys(("buffer_pool", "innodb", "performance_schema",
                         "temporary_tables", "counted_rest"), 0)
    for name, used in mmp.root_sql(
            "SELECT EVENT_NAME, CURRENT_NUMBER_OF_BYTES_USED FROM "
            "performance_schema.memory_summary_global_by_event_name"):
        if name == "memory/innodb/buf_buf_pool":
            k = "buffer_pool"
        elif name.startswith("memory/innodb/"):
            k = "innodb"
        elif name.startswith("memory/performance_schema/"):
            k = "performance_schema"
        elif name.startswith(("memory/temptable/", "memory/memory/")):
            k = "temporary_tables"
        else:
            k = "counted_rest"
        out[k] += int(used)
    return out


def instruments(enabled, where):
    mmp.root_sql("UPDATE performance_schema.setup_instruments SET ENABLED = "
                 "'%s' WHERE %s" % ("YES" if enabled else "NO", where))


class Explain(mmp.TestCase):

    def explain(self, *extra, **kw):
        p = self.run_ok(["--explain", "--format", "json"] + list(extra), **kw)
        d = json.loads(p.stdout)
        d["_run"] = p
        return d

    def test_layers_add_up(self):
        d = self.explain()
        desc = mmp.describe(d["_run"])
        pid = mmp.server_pid()
        self.assertEqual(d["pid"], pid, desc)
        ly = layers(d)
        # One read of status: its parts are exact.
        self.assertEqual(ly["file_shared"]["bytes"] + ly["anonymous"]["bytes"],
                         ly["resident"]["bytes"], desc)
        self.assertEqual(ly["counted"]["bytes"] + ly["not_counted"]["bytes"],
                         ly["anonymous"]["bytes"], desc)
        # Each family against the test's own sums of the rows, read a
        # moment later (the parts adding up to the whole is the query's
        # doing): within 2%, or 1.25 MiB for the small ones (MySQL 9.7.4
        # shows 1 MiB of memory/temptable/ to the reading that a read
        # apart does not see; performance_schema's own, counted as
        # another family, is 100 MiB off).
        read = families()
        for k, v in read.items():
            self.assertLess(abs(ly[k]["bytes"] - v),
                            max(1280 << 10, max(v, ly[k]["bytes"]) // 50),
                            "%s: %s, %s" % (k, read, desc))
        # The process's, read apart a moment later: within 10%.
        rss = mmp.resident_bytes(pid)
        self.assertLess(abs(rss - ly["resident"]["bytes"]), rss // 10, desc)
        whole = int(mmp.root_sql(
            "SELECT SUM(CURRENT_NUMBER_OF_BYTES_USED) FROM "
            "performance_schema.memory_summary_global_by_event_name")[0][0])
        self.assertLess(abs(whole - ly["counted"]["bytes"]), whole // 20, desc)
        pool = int(mmp.root_sql(
            "SELECT CURRENT_NUMBER_OF_BYTES_USED FROM "
            "performance_schema.memory_summary_global_by_event_name "
            "WHERE EVENT_NAME = 'memory/innodb/buf_buf_pool'")[0][0])
        self.assertEqual(ly["buffer_pool"]["bytes"], pool, desc)
        self.assertEqual(d["instruments"]["off"], 0, desc)
        self.assertIn("no instrument covers", ly["not_counted"]["name"], desc)
        self.assertEqual(d["notes"], [], desc)

    def test_text(self):
        p = self.run_ok(["--explain"])
        desc = mmp.describe(p)
        self.assertRegex(p.stdout, r"^## The server's memory in layers: "
                         r".*, pid %d, at \d{4}-" % mmp.server_pid(), desc)
        for row in (r"resident  \(/proc/\d+/status VmRSS\)",
                    r"  anonymous pages  \(RssAnon\)",
                    r"      the InnoDB buffer pool  \(memory/innodb/",
                    r"    not counted: ",
                    r"MySQLTuner's estimate: global buffers ",
                    r"measured now: \d+ connections"):
            self.assertRegex(p.stdout, r"(?m)^ +[\d.]+ [KMG]?i?B  " + row,
                             desc)
        self.assertRegex(p.stdout, r"(?m)^ allocator: (glibc malloc, \d+ "
                         r"arenas|tcmalloc \(|jemalloc \()", desc)
        self.assertRegex(p.stdout, r"(?m)^## Advice ##$", desc)
        # --bytes: whole numbers.
        p = self.run_ok(["--explain", "--bytes"])
        self.assertRegex(p.stdout, r"(?m)^ +\d{6,}  resident  ", desc)

    def test_at_the_end_of_a_run(self):
        """--count: a --global run, then the answer after its summary; in
        JSON its line, which --read passes over."""
        p = self.run_ok(["--explain", "--count", "2", "--frequency", "200",
                         "--top", "1"])
        desc = mmp.describe(p)
        self.assertRegex(p.stdout, r"(?s)^## Memory usage at time 0 ##.*"
                         r"\n## Summary of 2 samples .*\n## The server's "
                         r"memory in layers: .*\n## Advice ##\n", desc)
        p = self.run_ok(["--explain", "--count", "2", "--frequency", "200",
                         "--top", "1", "--format", "json"])
        lines = p.stdout.splitlines()
        self.assertEqual(len(lines), 3, mmp.describe(p))
        self.assertEqual([json.loads(l)["sample"] for l in lines[:2]], [1, 2])
        last = json.loads(lines[2])
        self.assertEqual(last["type"], "explain", mmp.describe(p))
        self.assertIn("counted", layers(last), mmp.describe(p))
        d = tempfile.mkdtemp(prefix="mmp-explain-")
        self.addCleanup(shutil.rmtree, d, True)
        path = os.path.join(d, "run.jsonl")
        with open(path, "w") as f:
            f.write(p.stdout)
        r = self.run_ok(["--read", path, "--format", "csv"], conn=False)
        self.assertEqual(len(r.stdout.splitlines()), 3, mmp.describe(r))
        self.assertIn("replayed 2 samples", r.stderr, mmp.describe(r))

    def test_exporter_gauges(self):
        """--listen --global: the layers once a minute, the first after
        the first sample, as gauges a layer each."""
        port = test_exporter.free_port(19200, 19299)
        b = self.spawn(["--listen", "127.0.0.1:%d" % port,
                        "--frequency", "200"])
        page = test_exporter.page_with(port, "\nmysqlmemprof_layer_bytes{")
        p = b.finish(signal.SIGTERM)
        self.assertEqual(p.returncode, 0, mmp.describe(p))
        got = {m.group(1): int(m.group(2)) for m in re.finditer(
            r'(?m)^mysqlmemprof_layer_bytes\{layer="(\w+)"\} (\d+)$', page)}
        d = self.explain()
        want = {l["layer"]: l["bytes"] for l in d["layers"]}
        self.assertEqual(sorted(got), sorted(want), page)
        # Read apart: the pool the same, the process within 20%.
        self.assertEqual(got["buffer_pool"], want["buffer_pool"], page)
        self.assertLess(abs(got["resident"] - want["resident"]),
                        want["resident"] // 5, page)
        self.assertRegex(page, r"(?m)^mysqlmemprof_advice_lines \d+$")
        if mmp.MARIADB:
            self.assertRegex(page, r"(?m)^mysqlmemprof_allocator_arenas "
                             r"\d+$")
        else:
            self.assertNotIn("\nmysqlmemprof_allocator_arenas ", page)

    @unittest.skipUnless(mmp.MARIADB, "Debian's MySQL links tcmalloc")
    def test_glibc_with_its_arenas(self):
        d = self.explain()
        a = d["allocator"]
        self.assertEqual(a["name"], "glibc", d)
        self.assertTrue(a["library"].endswith("/libc.so.6"), d)
        self.assertGreaterEqual(a["arenas"], 1, d)
        self.assertGreater(a["heaps_resident_bytes"], 0, d)

    @unittest.skipUnless(mmp.MYSQL, "MariaDB runs on glibc's malloc")
    def test_mysql_links_tcmalloc(self):
        d = self.explain()
        self.assertEqual(d["allocator"]["name"], "tcmalloc", d)
        self.assertIn("libtcmalloc", d["allocator"]["library"], d)
        self.assertIsNone(d["allocator"]["arenas"], d)

    def test_jemalloc_preloaded(self):
        with mmp.server_with_preload("jemalloc") as srv:
            d = self.explain()
        self.assertEqual(d["pid"], srv.pid, d)
        self.assertEqual(d["allocator"]["name"], "jemalloc", d)
        self.assertEqual(d["allocator"]["library"], srv.path, d)
        self.assertIsNone(d["allocator"]["arenas"], d)
        self.assertIn("jemalloc (%s)" % srv.path, d["allocator"]["says"], d)
        self.assertNotIn("MALLOC_ARENA_MAX", " ".join(d["advice"]), d)

    def test_memory_of_instruments_switched_off(self):
        """128 MiB in user variables whose instruments are off: the layer
        that names them grows by that much; the counted one does not."""
        instruments(False, "NAME IN (%s)" % USER_VARS)
        try:
            before = self.explain()
            w = self.start(mmp.Workload("".join(
                "SET @mmp_off%d = REPEAT('x', 16000000);\n" % i
                for i in range(8)), "SELECT SLEEP(60);"))
            after = self.explain()
        finally:
            instruments(True, "NAME IN (%s)" % USER_VARS)
        w.kill()
        desc = json.dumps({"before": before["layers"],
                           "after": after["layers"]}, indent=1)
        b, a = layers(before), layers(after)
        name = a["not_counted"]["name"]
        self.assertRegex(name, r"^not counted: 3 of \d+ memory instruments "
                         r"switched off \(sql\)", desc)
        grew = a["not_counted"]["bytes"] - b["not_counted"]["bytes"]
        self.assertGreater(grew, 110 * MIB, desc)
        self.assertLess(grew, 160 * MIB, desc)
        self.assertLess(abs(a["counted"]["bytes"] - b["counted"]["bytes"]),
                        16 * MIB, desc)
        self.assertEqual(after["instruments"]["off"], 3, desc)
        self.assertIn("memory instruments are off (3 of ",
                      " ".join(after["advice"]), desc)

    def test_every_memory_instrument_off(self):
        """As MariaDB's default leaves them: --explain still answers, and
        says so; a capture refuses the server, as before."""
        where = ("NAME LIKE 'memory/%' AND NAME NOT LIKE "
                 "'memory/performance_schema/%'")
        instruments(False, where)
        try:
            d = self.explain()
            capture = mmp.run(["--global", "--count", "1"])
        finally:
            instruments(True, where)
        self.assertEqual(capture.returncode, 1, mmp.describe(capture))
        self.assertIn("the memory instruments are disabled", capture.stderr)
        n = int(mmp.root_sql(
            "SELECT COUNT(*) FROM performance_schema.setup_instruments "
            "WHERE %s" % where)[0][0])
        self.assertEqual(d["instruments"]["off"], n, d)
        self.assertIn("sql", d["instruments"]["off_families"].split(", "), d)
        self.assertIn("innodb", d["instruments"]["off_families"].split(", "),
                      d)
        self.assertIn("switch them on with UPDATE "
                      "performance_schema.setup_instruments",
                      " ".join(d["advice"]), d)

    @unittest.skipUnless(mmp.MARIADB, "Debian's MySQL links tcmalloc")
    def test_many_connections_raise_the_arenas(self):
        """A fresh server, then 16 connections each holding 6 MB in pieces
        under glibc's mmap threshold: its arenas' heaps hold them, and the
        advice names MALLOC_ARENA_MAX."""
        mmp.restart_server()
        before = self.explain()
        desc = json.dumps(before["allocator"])
        self.assertLess(before["allocator"]["heaps_resident_bytes"],
                        64 * MIB, desc)
        self.assertNotIn("MALLOC_ARENA_MAX", " ".join(before["advice"]), desc)
        setup = "".join("SET @mmp_a%d = REPEAT('x', 100000);\n" % i
                        for i in range(60))
        for _ in range(16):
            self.start(mmp.Workload(setup, "SELECT SLEEP(60);"))
        after = self.explain()
        desc = json.dumps({"before": before["allocator"],
                           "after": after["allocator"],
                           "advice": after["advice"]}, indent=1)
        a, b = after["allocator"], before["allocator"]
        self.assertGreaterEqual(a["arenas"], b["arenas"], desc)
        self.assertGreaterEqual(a["arenas"], 8, desc)
        self.assertGreater(a["heaps_resident_bytes"],
                           b["heaps_resident_bytes"] + 64 * MIB, desc)
        self.assertIn("glibc malloc with %d arenas holds " % a["arenas"],
                      " ".join(after["advice"]), desc)
        self.assertIn("MALLOC_ARENA_MAX=4", " ".join(after["advice"]), desc)

    def test_estimate_beside_measured(self):
        hold = 64 * MIB
        packet = mmp.root_sql("SELECT @@global.max_allowed_packet")[0][0]
        mmp.root_sql("SET GLOBAL max_allowed_packet = %d" % (4 * hold))
        if mmp.MYSQL:
            # The largest statement's peak is the digests' own: an earlier
            # test's larger statement (test_docs' GROUP BY, 500 MiB) must
            # not stand in for this test's.
            mmp.root_sql("TRUNCATE TABLE "
                         "performance_schema.events_statements_summary_by_digest")
        try:
            self.start(mmp.Workload("SET @mmp_big = REPEAT('x', %d);" % hold,
                                    "SELECT SLEEP(60);"))
            self.start(mmp.Workload(
                "SET @mmp_big = REPEAT('x', %d); SET @mmp_big = NULL;" % hold,
                "SELECT SLEEP(60);"))
            if mmp.MARIADB:
                mmp.root_sql("GRANT PROCESS ON *.* TO 'mmp'@'localhost'")
            try:
                d = self.explain()
                p = self.run_ok(["--explain"])
            finally:
                if mmp.MARIADB:
                    mmp.root_sql("REVOKE PROCESS ON *.* FROM "
                                 "'mmp'@'localhost'")
        finally:
            mmp.root_sql("SET GLOBAL max_allowed_packet = %s" % packet)
        v = {r[0].lower(): r[1] for r in mmp.root_sql("SHOW GLOBAL VARIABLES")}
        from test_layers import mysqltuner
        glob, per, conns, total = mysqltuner(v)
        e, m = d["estimate"], d["measured"]
        self.assertEqual((e["global_buffers_bytes"], e["per_connection_bytes"],
                          e["max_connections"], e["total_bytes"]),
                         (glob, per, conns, total), d)
        self.assertGreaterEqual(m["connections"], 2, d)
        self.assertGreaterEqual(m["largest_bytes"], hold, d)
        # The one that let go peaked at 64 MiB too.
        self.assertGreaterEqual(m["largest_peak_bytes"], hold, d)
        self.assertGreaterEqual(m["sum_peaks_bytes"], 2 * hold, d)
        self.assertFalse(m["no_process"], d)
        if mmp.MYSQL:
            self.assertGreaterEqual(m["largest_statement_peak_bytes"], hold,
                                    d)
            self.assertIn("REPEAT", m["largest_statement"], d)
        else:
            self.assertIsNone(m["largest_statement_peak_bytes"], d)
        self.assertEqual(d["measured_bound_bytes"],
                         glob + conns * m["largest_peak_bytes"], d)
        # 64 MiB a connection is far past the buffers the estimate counts.
        self.assertIn("above the estimate", d["bounds"], d)
        desc = mmp.describe(p)
        self.assertRegex(p.stdout, r"(?m)^ +[\d.]+ [KMG]?i?B  MySQLTuner's "
                         r"estimate: global buffers ", desc)
        self.assertRegex(p.stdout, r"(?m)^ +[\d.]+ MiB  their peaks since "
                         r"they connected, the largest \d+\.\d\d MiB$", desc)
        self.assertRegex(p.stdout, r"(?m)^ so: the measured bound is "
                         r"[\d.]+x above the estimate", desc)

    @unittest.skipUnless(shutil.which("unshare"), "needs unshare(1)")
    def test_process_in_another_pid_namespace(self):
        """As a server on another machine: its pid means nothing here."""
        if os.geteuid() != 0:
            self.skipTest("a pid namespace needs root")
        argv = [mmp.BIN] + mmp.CONN_ARGS + ["--explain", "--format", "json"]
        p = subprocess.run(["unshare", "--pid", "--fork", "--mount-proc"] +
                           argv, capture_output=True, text=True,
                           env=mmp.base_env(), timeout=60)
        desc = "%s\n%s" % (p.stdout, p.stderr)
        self.assertEqual(p.returncode, 0, desc)
        d = json.loads(p.stdout)
        ly = layers(d)
        self.assertNotIn("resident", ly, desc)
        self.assertEqual(ly["counted"]["depth"], 0, desc)
        self.assertIsNone(d["allocator"], desc)
        self.assertRegex(p.stderr, r"the process's figures are missing: no "
                         r"process \d+ on this machine: the server runs "
                         r"elsewhere \(or in another pid namespace\); only "
                         r"what performance_schema counts is shown", desc)
        self.assertEqual(len(d["notes"]), 1, desc)

    def test_usage_errors(self):
        for args, words in (
                (["--connection", "5"], "--explain reads the whole server "
                 "once, alone; leave out the target"),
                (["--format", "csv"], "--explain writes text or json, not "
                 "csv; give --format text or --format json"),
                (["--listen", "9104"], "leave out --listen"),
                (["--record", "/tmp/mmp-none"], "leave out --record"),
                (["--live"], "leave out --live"),
                (["--trigger-bytes", "1G"], "leave out --trigger-bytes"),
                (["--read", "/dev/null"], "leave out --read")):
            p = mmp.run(["--explain"] + args)
            self.assertEqual(p.returncode, 2, mmp.describe(p))
            self.assertIn(words, p.stderr, mmp.describe(p))
            self.assertEqual(p.stdout, "", mmp.describe(p))


if __name__ == "__main__":
    unittest.main()
