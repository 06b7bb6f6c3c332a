"""Every connection (the session's connections, pfs_connections()): the SQL
of each way the server has, as src/pfs_sql.c builds it, run through the
mariadb client against the sandbox as the program's own account (mmp, which
lacks PROCESS). No mode of the program shows the rows yet, so the text is
taken from the tree itself: a small program compiled here from
src/pfs_sql.c prints it. The rows are read as pfs_list.c reads them:
connection, thread, user, host, db, command, ms run, bytes, peak, running,
digest, text."""

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
#include "pfs_sql.h"
int
main(void)
{
	printf("%s\n%s\n%s\n%s\n%s\n", pfs_sql_connections_threads,
	    pfs_sql_connections_processlist, pfs_sql_connections_summed,
	    pfs_sql_connections_no_process, pfs_sql_process_privilege);
	return 0;
}
"""


def _texts():
    """The five texts of the tree's src/pfs_sql.c."""
    with tempfile.TemporaryDirectory() as d:
        src = os.path.join(d, "print.c")
        exe = os.path.join(d, "print")
        with open(src, "w") as f:
            f.write(PRINTER)
        subprocess.run(["cc", "-std=c11", "-I", os.path.join(mmp.REPO, "src"),
                        "-I", os.path.join(mmp.REPO, "include"), "-o", exe,
                        src, os.path.join(mmp.REPO, "src", "pfs_sql.c"),
                        # pfs_sql.c's estimate reads layers.c's formula.
                        os.path.join(mmp.REPO, "src", "layers.c")],
                       check=True, capture_output=True, timeout=120)
        out = subprocess.run([exe], check=True, capture_output=True).stdout
    lines = out.decode().splitlines()
    return dict(zip(("threads", "processlist", "summed", "no_process",
                     "privilege"), lines))


def as_mmp(sql):
    """Runs sql as the program's account; the rows, tab-split, and the
    connection id the client itself had."""
    out = subprocess.run(
        ["mariadb", "--no-defaults", "-u" + mmp.MMP_USER,
         "-p" + mmp.MMP_PASSWORD, "-S", mmp.SOCKET, "-N", "-B", "-e",
         "SELECT CONNECTION_ID(); " + sql],
        check=True, capture_output=True, timeout=60).stdout
    rows = [line.split("\t") for line in out.decode().splitlines()]
    return rows[1:], int(rows[0][0])


class Row:
    def __init__(self, v):
        self.connection_id = int(v[0])
        self.thread_id = int(v[1])
        self.user, self.host, self.db, self.command = v[2:6]
        self.ms = int(v[6])
        self.bytes = int(v[7])
        self.peak = None if v[8] == "NULL" else int(v[8])
        self.running = v[9] == "1"
        self.digest = None if v[10] == "NULL" else v[10]
        self.text = v[11]


class Connections(mmp.TestCase):

    @classmethod
    def setUpClass(cls):
        cls.sql = _texts()
        # A user variable of 64 MiB needs a packet as large, read at connect.
        cls.packet = mmp.root_sql("SELECT @@global.max_allowed_packet")[0][0]
        mmp.root_sql("SET GLOBAL max_allowed_packet = %d" % (4 * HOLD))

    @classmethod
    def tearDownClass(cls):
        mmp.root_sql("SET GLOBAL max_allowed_packet = %s" % cls.packet)

    def setUp(self):
        super().setUp()
        self.t0_ms = time.time() * 1000
        # One holds 64 MiB while its statement runs; one held it and let go.
        self.holder = self.start(mmp.Workload(
            "SET @mmp_big = REPEAT('x', %d);" % HOLD,
            "SELECT SLEEP(30), 'mmp-conns-holder';"))
        self.peaked = self.start(mmp.Workload(
            "SET @mmp_big = REPEAT('x', %d); SET @mmp_big = NULL;" % HOLD,
            "SELECT SLEEP(30);"))
        time.sleep(1.2)

    def read(self, way):
        rows, own = as_mmp(self.sql[way])
        rows = [Row(v) for v in rows]
        ids = [r.connection_id for r in rows]
        self.assertNotIn(own, ids, "our own connection is listed")
        self.assertEqual(len(ids), len(set(ids)), "a connection twice")
        self.assertFalse([r for r in rows if r.command == "Daemon"],
                         "a daemon thread is listed")
        by_id = {r.connection_id: r for r in rows}
        self.assertIn(self.holder.connection_id, by_id, rows)
        self.assertIn(self.peaked.connection_id, by_id, rows)
        return by_id[self.holder.connection_id], by_id[self.peaked.connection_id]

    def check(self, way, peaks, thread_ids, seconds=False):
        holder, peaked = self.read(way)
        now_ms = time.time() * 1000
        self.assertEqual(holder.user, "loader")
        self.assertEqual(holder.db, "demo")
        self.assertEqual(holder.command, "Query")
        self.assertTrue(holder.running)
        self.assertEqual(holder.text, "SELECT SLEEP(30), 'mmp-conns-holder'")
        # It has run a second or so: not 0, and not before the test began.
        if seconds:
            self.assertEqual(holder.ms % 1000, 0, vars(holder))
        else:
            self.assertGreaterEqual(holder.ms, 1000, vars(holder))
        self.assertLess(holder.ms, now_ms - self.t0_ms + 1000, vars(holder))
        self.assertGreaterEqual(holder.bytes, HOLD, vars(holder))
        # The one that let go holds little now.
        self.assertLess(peaked.bytes, HOLD // 4, vars(peaked))
        if peaks:
            self.assertGreaterEqual(holder.peak, holder.bytes, vars(holder))
            self.assertGreaterEqual(peaked.peak, HOLD, vars(peaked))
        else:
            self.assertIsNone(holder.peak)
            self.assertIsNone(peaked.peak)
        if thread_ids:
            self.assertEqual(holder.thread_id, self.holder.thread_id)
        else:
            self.assertEqual(holder.thread_id, 0)
        return holder

    @mmp.only_on("mysql", "threads.TOTAL_MEMORY came with MySQL 8.0.31")
    def test_threads_way(self):
        holder = self.check("threads", peaks=True, thread_ids=True)
        # The running statement's digest, from events_statements_current.
        self.assertRegex(holder.digest or "", r"^[0-9a-f]{64}$")

    def test_summed_way(self):
        """Older MySQL's, and MariaDB's without PROCESS: no peaks."""
        self.check("summed", peaks=False, thread_ids=True)

    @mmp.only_on("mariadb", "the way of MariaDB without PROCESS")
    def test_no_process_way(self):
        """MariaDB's without PROCESS: summed, no statement joined."""
        holder = self.check("no_process", peaks=False, thread_ids=True,
                            seconds=True)
        self.assertIsNone(holder.digest)

    @mmp.only_on("mariadb", "information_schema.PROCESSLIST's MEMORY_USED "
                 "is MariaDB's")
    def test_processlist_way_with_process(self):
        mmp.root_sql("GRANT PROCESS ON *.* TO 'mmp'@'localhost'")
        try:
            rows, _ = as_mmp(self.sql["privilege"])
            self.assertEqual(rows, [["1"]])
            holder = self.check("processlist", peaks=True, thread_ids=False)
            self.assertIsNone(holder.digest)
        finally:
            mmp.root_sql("REVOKE PROCESS ON *.* FROM 'mmp'@'localhost'")

    @mmp.only_on("mariadb", "the PROCESS check is MariaDB's")
    def test_without_process_processlist_hides_the_others(self):
        """Why the check: without PROCESS the processlist is only ours."""
        rows, _ = as_mmp(self.sql["privilege"])
        self.assertEqual(rows, [["0"]])
        rows, _ = as_mmp(self.sql["processlist"])
        ids = [int(r[0]) for r in rows]
        self.assertNotIn(self.holder.connection_id, ids)


if __name__ == "__main__":
    unittest.main()
