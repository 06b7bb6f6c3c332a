"""The layers of --explain (the session's counted_layers, estimate and
measured_connections, layers.h): the SQL of each, as src/pfs_sql.c builds
it for the sandbox's kind, run through the mariadb client as the program's
own account (mmp), and MySQLTuner's sum of src/layers.c over the rows:
the SQL itself, apart from the mode that shows it (test_explain.py), so
the text and the sum come from the tree: a small program compiled here
from src/pfs_sql.c and src/layers.c prints the one and computes the
other."""

import os
import subprocess
import tempfile
import time
import unittest

import mmp

MIB = 1 << 20
HOLD = 64 * MIB

PRINTER = r"""
#include <stdio.h>
#include <string.h>
#include "layers.h"
#include "pfs_sql.h"
int
main(int argc, char **argv)
{
	struct server_kind k = pfs_server_kind_parse(argv[1]);
	struct estimate e;
	char sql[2048], line[4096];

	if (argc > 2) {
		/* The estimate over "name\tvalue" lines, as pfs_estimate() sums them. */
		estimate_clear(&e);
		while (fgets(line, sizeof(line), stdin) != NULL) {
			char *tab = strchr(line, '\t');
			if (tab == NULL)
				continue;
			*tab++ = '\0';
			tab[strcspn(tab, "\n")] = '\0';
			estimate_set(&e, line, tab);
		}
		estimate_sum(&e);
		printf("%lld\t%lld\t%llu\t%lld\t%s\n", (long long)e.global_buffers,
		    (long long)e.per_connection,
		    (unsigned long long)e.max_connections, (long long)e.total,
		    e.lacks);
		return 0;
	}
	if (pfs_sql_estimate(sql, sizeof(sql), &k) != 0)
		return 1;
	printf("%s\n%s\n%s\n%s\n%s\n", pfs_sql_counted_layers,
	    pfs_sql_memory_instruments, sql,
	    pfs_sql_measured_connections(pfs_sql_conns_way(&k)),
	    pfs_sql_measured_connections(CONNS_NO_PROCESS));
	return 0;
}
"""


def _build(d):
    src = os.path.join(d, "print.c")
    exe = os.path.join(d, "print")
    with open(src, "w") as f:
        f.write(PRINTER)
    subprocess.run(["cc", "-std=c11", "-D_GNU_SOURCE",
                    "-I", os.path.join(mmp.REPO, "src"),
                    "-I", os.path.join(mmp.REPO, "include"), "-o", exe, src,
                    os.path.join(mmp.REPO, "src", "pfs_sql.c"),
                    os.path.join(mmp.REPO, "src", "layers.c")],
                   check=True, capture_output=True, timeout=120)
    return exe


def as_mmp(sql):
    """Runs sql as the program's account; the rows, tab-split."""
    out = subprocess.run(
        ["mariadb", "--no-defaults", "-u" + mmp.MMP_USER,
         "-p" + mmp.MMP_PASSWORD, "-S", mmp.SOCKET, "-N", "-B", "-e", sql],
        check=True, capture_output=True, timeout=60).stdout
    return [line.split("\t") for line in out.decode().splitlines()]


def mysqltuner(v):
    """MySQLTuner 2.8's max_peak_memory less performance_schema's, from
    SHOW GLOBAL VARIABLES: a variable the server lacks counts 0."""
    def get(name):
        return int(v[name]) if name in v else 0
    per = sum(get(n) for n in ("read_buffer_size", "read_rnd_buffer_size",
                               "sort_buffer_size", "thread_stack",
                               "join_buffer_size", "binlog_cache_size"))
    glob = (get("key_buffer_size") +
            min(get("tmp_table_size"), get("max_heap_table_size")) +
            sum(get(n) for n in ("innodb_buffer_pool_size",
                                 "innodb_additional_mem_pool_size",
                                 "innodb_log_buffer_size", "query_cache_size",
                                 "aria_pagecache_buffer_size")))
    return glob, per, get("max_connections"), glob + get("max_connections") * per


class Layers(mmp.TestCase):

    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.TemporaryDirectory()
        cls.exe = _build(cls.tmp.name)
        out = subprocess.run([cls.exe, os.environ["MMP_SERVER_VERSION"]],
                             check=True, capture_output=True).stdout
        cls.sql = dict(zip(("counted", "instruments", "estimate", "measured",
                            "no_process"), out.decode().splitlines()))

    @classmethod
    def tearDownClass(cls):
        cls.tmp.cleanup()

    def counted(self):
        row = as_mmp(self.sql["counted"])
        self.assertEqual(len(row), 1, row)
        return [int(x) for x in row[0]]

    def test_families_sum_to_the_total(self):
        bp, innodb, own, temp, rest, total = self.counted()
        self.assertEqual(bp + innodb + own + temp + rest, total)
        # Each family has its own: the pool is InnoDB's largest.
        self.assertGreater(bp, 0)
        self.assertGreater(innodb, 0)
        self.assertGreater(own, 0)
        self.assertGreater(rest, 0)
        # The reading makes no temporary table of its own to count.
        self.assertEqual(temp, 0)
        # The whole server's, summed apart a moment later: within 5%.
        whole = int(mmp.root_sql(
            "SELECT SUM(CURRENT_NUMBER_OF_BYTES_USED) FROM "
            "performance_schema.memory_summary_global_by_event_name")[0][0])
        self.assertLess(abs(whole - total), total // 20, (whole, total))
        pool = int(mmp.root_sql(
            "SELECT CURRENT_NUMBER_OF_BYTES_USED FROM "
            "performance_schema.memory_summary_global_by_event_name "
            "WHERE EVENT_NAME = 'memory/innodb/buf_buf_pool'")[0][0])
        self.assertEqual(bp, pool)

    def test_instruments_switched_off(self):
        before = as_mmp(self.sql["instruments"])
        self.assertEqual(before[0][1:], ["0", ""], before)
        off_before = [r[0] for r in mmp.root_sql(
            "SELECT NAME FROM performance_schema.setup_instruments "
            "WHERE NAME LIKE 'memory/sql/%' AND ENABLED <> 'YES'")]
        self.assertEqual(off_before, [])
        n_sql = int(mmp.root_sql(
            "SELECT COUNT(*) FROM performance_schema.setup_instruments "
            "WHERE NAME LIKE 'memory/sql/%'")[0][0])
        mmp.root_sql("UPDATE performance_schema.setup_instruments "
                     "SET ENABLED = 'NO' WHERE NAME LIKE 'memory/sql/%'")
        try:
            rows = as_mmp(self.sql["instruments"])
        finally:
            mmp.root_sql("UPDATE performance_schema.setup_instruments "
                         "SET ENABLED = 'YES' WHERE NAME LIKE 'memory/sql/%'")
        self.assertEqual(rows, [[before[0][0], str(n_sql), "sql"]])
        self.assertEqual(as_mmp(self.sql["instruments"]), before)

    def test_estimate_is_mysqltuners(self):
        rows = as_mmp(self.sql["estimate"])
        given = "".join("%s\t%s\n" % (r[0], r[1]) for r in rows)
        out = subprocess.run([self.exe, os.environ["MMP_SERVER_VERSION"],
                              "sum"], input=given.encode(), check=True,
                             capture_output=True).stdout.decode()
        glob, per, conns, total, *lacks = out.rstrip("\n").split("\t")
        v = {r[0].lower(): r[1] for r in
             mmp.root_sql("SHOW GLOBAL VARIABLES")}
        self.assertEqual((int(glob), int(per), int(conns), int(total)),
                         mysqltuner(v))
        lacks = lacks[0] if lacks else ""
        if mmp.MARIADB:
            self.assertEqual(lacks, "innodb_additional_mem_pool_size")
        else:
            self.assertEqual(lacks, "innodb_additional_mem_pool_size, "
                             "query_cache_size, aria_pagecache_buffer_size")


class Measured(mmp.TestCase):
    """A session holding 64 MiB in a user variable, one that held it."""

    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.TemporaryDirectory()
        exe = _build(cls.tmp.name)
        out = subprocess.run([exe, os.environ["MMP_SERVER_VERSION"]],
                             check=True, capture_output=True).stdout
        lines = out.decode().splitlines()
        cls.measured, cls.no_process = lines[3], lines[4]
        # A user variable of 64 MiB needs a packet as large, read at connect.
        cls.packet = mmp.root_sql("SELECT @@global.max_allowed_packet")[0][0]
        mmp.root_sql("SET GLOBAL max_allowed_packet = %d" % (4 * HOLD))

    @classmethod
    def tearDownClass(cls):
        mmp.root_sql("SET GLOBAL max_allowed_packet = %s" % cls.packet)
        cls.tmp.cleanup()

    def setUp(self):
        super().setUp()
        self.holder = self.start(mmp.Workload(
            "SET @mmp_big = REPEAT('x', %d);" % HOLD,
            "SELECT SLEEP(30), 'mmp-layers-holder';"))
        self.peaked = self.start(mmp.Workload(
            "SET @mmp_big = REPEAT('x', %d); SET @mmp_big = NULL;" % HOLD,
            "SELECT SLEEP(30);"))
        time.sleep(1.2)

    def read(self, sql):
        rows = as_mmp(sql)
        self.assertEqual(len(rows), 1, rows)
        v = rows[0]
        return {"connections": int(v[0]), "sum": int(v[1]),
                "largest": int(v[2]),
                "sum_peaks": None if v[3] == "NULL" else int(v[3]),
                "largest_peak": None if v[4] == "NULL" else int(v[4]),
                "statement_peak": None if v[5] == "NULL" else int(v[5]),
                "statement": v[6]}

    def check(self, m, peaks):
        self.assertGreaterEqual(m["connections"], 2, m)
        self.assertGreaterEqual(m["largest"], HOLD, m)
        self.assertGreaterEqual(m["sum"], m["largest"], m)
        if peaks:
            # The one that let go peaked at 64 MiB too: two of them.
            self.assertGreaterEqual(m["largest_peak"], HOLD, m)
            self.assertGreaterEqual(m["sum_peaks"], 2 * HOLD, m)
            self.assertGreaterEqual(m["sum_peaks"], m["sum"], m)
        else:
            self.assertIsNone(m["sum_peaks"], m)
            self.assertIsNone(m["largest_peak"], m)

    @mmp.only_on("mysql", "threads.MAX_TOTAL_MEMORY came with MySQL 8.0.31")
    def test_threads_way(self):
        m = self.read(self.measured)
        self.check(m, peaks=True)
        # The SET that built the string held it whole: its exact peak.
        self.assertGreaterEqual(m["statement_peak"], HOLD, m)
        self.assertTrue(m["statement"], m)

    @mmp.only_on("mariadb", "information_schema.PROCESSLIST's MEMORY_USED "
                 "is MariaDB's")
    def test_processlist_way(self):
        mmp.root_sql("GRANT PROCESS ON *.* TO 'mmp'@'localhost'")
        try:
            m = self.read(self.measured)
        finally:
            mmp.root_sql("REVOKE PROCESS ON *.* FROM 'mmp'@'localhost'")
        self.check(m, peaks=True)
        self.assertIsNone(m["statement_peak"], m)

    @mmp.only_on("mariadb", "the way of MariaDB without PROCESS")
    def test_no_process_way(self):
        """Summed from performance_schema: every connection, no peaks."""
        m = self.read(self.no_process)
        self.check(m, peaks=False)
        self.assertIsNone(m["statement_peak"], m)


if __name__ == "__main__":
    unittest.main()
