#!/usr/bin/python3
"""What one look of --bigger-than, one sample and one --list cost the
server, with 0, 100 and 1,000 idle connections open (and two connections
running a statement, so that the per-thread sums have candidates to be
computed for), beside the Python sampler's query. A query the server
lacks (MySQL's threads.TOTAL_MEMORY on MariaDB) is "-". Also what reading
the server's /proc/PID/status (--global's process rows), smaps_rollup
(their fallback) and smaps (--explain's layers, and the gap --global
reads once a minute) costs, and one whole run of mysqlmemprof --explain
(connecting included), at each level.

Run against the sandbox (tests/sandbox.sh start; eval "$(tests/sandbox.sh
env)"), of either kind (MMP_SERVER=mariadb|mysql), with Debian's python3
and python3-pymysql:

    /usr/bin/python3 bench/poll_cost.py [--counts 0,100,1000] [--runs 40]
        [--results bench/RESULTS.md --section NAME]

With --results, the table goes into that file's section NAME too, rewritten
whole under a heading that names the tree and the date (make bench:
bench/servers.sh runs it on each server).

Each query is the text src/pfs_sql.c builds (copied here: keep the two in
step), sent --runs times back to back over the unix socket; the figure is
the median wall time of one query, which on the socket is the server's
time plus a round trip of some 50 us. max_connections is raised for the
run with SET GLOBAL and put back at the end."""

import argparse
import os
import statistics
import subprocess
import sys
import threading
import time

import pymysql

MEM = "performance_schema.memory_summary_by_thread_by_event_name"

# The columns every look reads of a statement (STMT_HEAD of pfs_sql.c),
# and the count of its thread's ended statements (STMT_COMPLETED).
STMT_HEAD = ("t.THREAD_ID, t.PROCESSLIST_ID, t.PROCESSLIST_TIME, "
             "UNIX_TIMESTAMP() - t.PROCESSLIST_TIME, "
             "CONCAT(LENGTH(t.PROCESSLIST_INFO), ':', CRC32(t.PROCESSLIST_INFO)), "
             "t.PROCESSLIST_USER, t.PROCESSLIST_DB, LEFT(t.PROCESSLIST_INFO, 100), ")
COMPLETED = ("(SELECT COALESCE(SUM(s.COUNT_STAR), 0) FROM "
             "performance_schema.events_statements_summary_by_thread_by_event_name s "
             "WHERE s.THREAD_ID = t.THREAD_ID AND "
             "s.EVENT_NAME NOT LIKE 'statement/sp/%')")
RUNNING = ("t.PROCESSLIST_COMMAND IN ('Query', 'Execute') AND "
           "t.PROCESSLIST_INFO IS NOT NULL")
FG = "t.TYPE = 'FOREGROUND' AND t.INSTRUMENTED = 'YES'"
GROUPED = ("JOIN (SELECT THREAD_ID, SUM(CURRENT_NUMBER_OF_BYTES_USED) AS bytes "
           "FROM " + MEM + " GROUP BY THREAD_ID) m ON m.THREAD_ID = t.THREAD_ID ")
WHERE = ("WHERE " + FG + " AND " + RUNNING +
         " AND t.THREAD_ID <> 0 AND t.PROCESSLIST_TIME >= 0")

QUERIES = {
    # The look mysqlmemprof sends MariaDB while waiting: one GROUP BY over
    # every thread's memory rows, joined; no counts (pfs_sql_find_statements
    # with completed false).
    "look (MariaDB's: one GROUP BY)":
        "SELECT " + STMT_HEAD + "0, m.bytes FROM performance_schema.threads t "
        + GROUPED + WHERE,
    # The look MySQL 8 gets: a sum per running statement, read there by the
    # THREAD_ID index; here, without one, each sum is a scan.
    "look (MySQL's: a sum per statement)":
        "SELECT " + STMT_HEAD + "0, (SELECT COALESCE(SUM("
        "m.CURRENT_NUMBER_OF_BYTES_USED), 0) FROM " + MEM + " m "
        "WHERE m.THREAD_ID = t.THREAD_ID) AS bytes "
        "FROM performance_schema.threads t " + WHERE,
    # The look with the count of ended statements for every candidate: not
    # sent; it shows why the count is asked only of the matches.
    "look with counts (not sent)":
        "SELECT " + STMT_HEAD + COMPLETED + ", m.bytes "
        "FROM performance_schema.threads t " + GROUPED + WHERE,
    # The history's read after each look: the memory rows and statements
    # of the candidates (here the 2 running), pfs_sql_threads_memory().
    "history read, 2 threads":
        "SELECT 'm', THREAD_ID, EVENT_NAME, CURRENT_NUMBER_OF_BYTES_USED, "
        "CURRENT_COUNT_USED, HIGH_NUMBER_OF_BYTES_USED, "
        "SUM_NUMBER_OF_BYTES_ALLOC, SUM_NUMBER_OF_BYTES_FREE, COUNT_ALLOC, "
        "COUNT_FREE, NULL FROM " + MEM + " WHERE THREAD_ID IN (%s) AND "
        "(COUNT_ALLOC > 0 OR COUNT_FREE > 0) UNION ALL "
        "SELECT 't', t.THREAD_ID, s.DIGEST, NULL, NULL, NULL, NULL, NULL, "
        "s.EVENT_ID, NULL, LEFT(COALESCE(s.SQL_TEXT, t.PROCESSLIST_INFO), 200) "
        "FROM performance_schema.threads t "
        "LEFT JOIN performance_schema.events_statements_current s "
        "ON s.THREAD_ID = t.THREAD_ID AND s.NESTING_EVENT_LEVEL = 0 "
        "WHERE t.THREAD_ID IN (%s)",
    # Per match, and every --poll while a capture follows its statement:
    # one thread's statement with its count (pfs_sql_thread_statement).
    "one thread's statement and count":
        "SELECT " + STMT_HEAD + COMPLETED + ", " + RUNNING +
        " FROM performance_schema.threads t WHERE t.THREAD_ID = %s",
    # The look MySQL 8.0.31+ gets: the sum the server keeps, one table.
    "look (MySQL 8.0.31+: threads.TOTAL_MEMORY)":
        "SELECT " + STMT_HEAD + "0, t.TOTAL_MEMORY AS bytes "
        "FROM performance_schema.threads t " + WHERE +
        " AND t.TOTAL_MEMORY >= 0",
    # --bigger-than's look where the server keeps sessions' peaks: MariaDB
    # joins information_schema.PROCESSLIST, MySQL reads MAX_TOTAL_MEMORY.
    "look with peaks (MariaDB: PROCESSLIST)":
        "SELECT " + STMT_HEAD + "0, m.bytes, p.MAX_MEMORY_USED AS peak, ("
        + RUNNING + ") AS cand FROM performance_schema.threads t " + GROUPED +
        "LEFT JOIN information_schema.PROCESSLIST p ON p.ID = "
        "t.PROCESSLIST_ID WHERE " + FG + " AND t.THREAD_ID <> 0 "
        "HAVING cand OR peak >= 1048576",
    "look with peaks (MySQL: MAX_TOTAL_MEMORY)":
        "SELECT " + STMT_HEAD + "0, t.TOTAL_MEMORY AS bytes, "
        "t.MAX_TOTAL_MEMORY AS peak, (" + RUNNING + ") AS cand "
        "FROM performance_schema.threads t WHERE " + FG +
        " AND t.THREAD_ID <> 0 HAVING cand OR peak >= 1048576",
    # For scale: what one sample of one thread reads.
    "one thread's sample (for scale)":
        "SELECT EVENT_NAME, CURRENT_NUMBER_OF_BYTES_USED FROM " + MEM +
        " WHERE THREAD_ID = %s AND (COUNT_ALLOC > 0 OR COUNT_FREE > 0)",
    # The Python sampler's query (bench/python_sampler.py), the same thread.
    "Python sampler's query":
        "SELECT event_name, current_number_of_bytes_used FROM " + MEM +
        " WHERE thread_id = %s ORDER BY current_number_of_bytes_used DESC "
        "LIMIT 4",
    # --list: every thread's sum, or what MySQL 8.0.31+ keeps.
    "--list (GROUP BY)":
        "SELECT t.THREAD_ID, t.NAME, COALESCE(m.bytes, 0) FROM "
        "performance_schema.threads t LEFT JOIN (SELECT THREAD_ID, "
        "SUM(CURRENT_NUMBER_OF_BYTES_USED) AS bytes FROM " + MEM +
        " GROUP BY THREAD_ID) m ON m.THREAD_ID = t.THREAD_ID "
        "ORDER BY COALESCE(m.bytes, 0) DESC, t.THREAD_ID",
    "--list (threads.TOTAL_MEMORY)":
        "SELECT t.THREAD_ID, t.NAME, t.TOTAL_MEMORY FROM "
        "performance_schema.threads t ORDER BY t.TOTAL_MEMORY DESC, "
        "t.THREAD_ID",
}


def connect(a):
    return pymysql.connect(unix_socket=a.socket, user=a.user,
                           password=a.password, autocommit=True)


def sleeper(a, ready, out):
    c = connect(a)
    cur = c.cursor()
    cur.execute("SELECT THREAD_ID FROM performance_schema.threads "
                "WHERE PROCESSLIST_ID = CONNECTION_ID()")
    out.append(cur.fetchone()[0])
    ready.release()
    try:
        cur.execute("SELECT SLEEP(%d)" % a.sleep)
    except pymysql.MySQLError:
        pass
    c.close()


def time_query(cur, sql, runs):
    """The median microseconds of sql, or None when the server lacks what
    it reads."""
    try:
        cur.execute(sql)
    except pymysql.MySQLError:
        return None
    cur.fetchall()
    times = []
    for _ in range(runs):
        t0 = time.perf_counter()
        cur.execute(sql)
        cur.fetchall()
        times.append(time.perf_counter() - t0)
    return statistics.median(times) * 1e6


def proc_read_us(path, runs):
    """The median microseconds of reading path whole, or None when it
    cannot be read (another machine, no right to trace the server)."""
    times = []
    try:
        for _ in range(runs + 1):
            t0 = time.perf_counter()
            with open(path, "rb") as f:
                f.read()
            times.append(time.perf_counter() - t0)
    except OSError:
        return None
    return statistics.median(times[1:]) * 1e6


def explain_us(a, runs):
    """The median microseconds of one whole run of the built binary's
    --explain --format json, as the account given, over the socket."""
    exe = os.path.join(os.path.dirname(os.path.dirname(
        os.path.abspath(__file__))), "mysqlmemprof")
    argv = [exe, "--no-defaults", "--socket", a.socket, "--user", a.user,
            "--explain", "--format", "json"]
    env = dict(os.environ, MYSQL_PWD=a.password)
    times = []
    for _ in range(runs + 1):
        t0 = time.perf_counter()
        subprocess.run(argv, env=env, check=True, stdout=subprocess.DEVNULL,
                       stderr=subprocess.DEVNULL)
        times.append(time.perf_counter() - t0)
    return statistics.median(times[1:]) * 1e6


def vmrss_mib(pid):
    try:
        with open("/proc/%d/status" % pid) as f:
            for line in f:
                if line.startswith("VmRSS:"):
                    return int(line.split()[1]) / 1024.0
    except OSError:
        pass
    return None


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--socket", default=os.environ.get("MMP_SOCKET"))
    p.add_argument("--user", default="root")
    p.add_argument("--password", default="")
    p.add_argument("--counts", default="0,100,1000")
    p.add_argument("--runs", type=int, default=40)
    p.add_argument("--sleep", type=int, default=600)
    p.add_argument("--results", help="also write the table into this file")
    p.add_argument("--section", default="poll",
                   help="the file's marked part that holds it")
    a = p.parse_args()
    if not a.socket:
        sys.exit("poll_cost: no --socket and no MMP_SOCKET; eval "
                 "\"$(tests/sandbox.sh env)\" first")
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    import benchlib
    date, tree = benchlib.now_utc(), benchlib.tree()
    started = time.monotonic()
    admin = connect(a)
    cur = admin.cursor()
    cur.execute("SELECT @@max_connections, VERSION()")
    old_max, version = cur.fetchone()
    # The server's process, as mysqlmemprof --global finds it.
    cur.execute("SELECT THREAD_OS_ID FROM performance_schema.threads "
                "WHERE NAME = 'thread/sql/main'")
    r = cur.fetchone()
    pid = int(r[0]) if r and r[0] else 0
    counts = [int(x) for x in a.counts.split(",")]
    cur.execute("SET GLOBAL max_connections = %d" % (max(counts) + 50))
    ready = threading.Semaphore(0)
    runners = []
    threads = []
    for _ in range(2):
        th = threading.Thread(target=sleeper, args=(a, ready, runners),
                              daemon=True)
        th.start()
        threads.append(th)
    for _ in threads:
        ready.acquire()
    time.sleep(0.3)
    idle = []
    results = {}
    try:
        for n in counts:
            while len(idle) < n:
                idle.append(connect(a))
            cur.execute("SELECT COUNT(*) FROM performance_schema.threads")
            nthreads = cur.fetchone()[0]
            row = {}
            for name, sql in QUERIES.items():
                ids = ", ".join(str(t) for t in runners)
                sql = sql.replace("%s", ids if "IN (%s)" in sql
                                  else str(runners[0]))
                row[name] = time_query(cur, sql, a.runs)
            for f in ("status", "smaps_rollup", "smaps"):
                row[PROC % f] = (proc_read_us("/proc/%d/%s" % (pid, f),
                                              a.runs) if pid else None)
            row[EXPLAIN] = explain_us(a, max(3, a.runs // 4))
            row[RSS] = vmrss_mib(pid) if pid else None
            results[n] = (nthreads, row)
            print("%5d idle connections (%d threads): %s" % (
                n, nthreads, ", ".join("%s %s us" % (k, us(v))
                                       for k, v in row.items())),
                file=sys.stderr)
    finally:
        for c in idle:
            c.close()
        cur.execute("SET GLOBAL max_connections = %d" % old_max)
        for t in runners:
            try:
                cur.execute("KILL QUERY (SELECT PROCESSLIST_ID FROM "
                            "performance_schema.threads WHERE THREAD_ID = %d)"
                            % t)
            except pymysql.MySQLError:
                cur.execute("SELECT PROCESSLIST_ID FROM performance_schema."
                            "threads WHERE THREAD_ID = %d" % t)
                r = cur.fetchone()
                if r:
                    cur.execute("KILL QUERY %d" % r[0])
    names = list(QUERIES) + [PROC % "status", PROC % "smaps_rollup",
                             PROC % "smaps", EXPLAIN, RSS]
    kind = "MySQL" if "mariadb" not in version.lower() else "MariaDB"
    lines = ["## What a look, a sample and --list cost, %s "
             "(bench/servers.sh)\n" % kind,
             benchlib.stamp("bench/servers.sh", date, tree) + "\n",
             "Server: %s, a throwaway one (tests/sandbox.sh); bench/"
             "poll_cost.py sends each query %d times back to back over the "
             "unix socket and gives the median wall time of one, in "
             "microseconds (the server's time and a round trip); two "
             "connections run SELECT SLEEP meanwhile; \"-\": the server "
             "has no such column. The /proc rows read the server's file "
             "whole from Python, %d times; the --explain row runs the built "
             "binary %d times (connecting, its queries, the server's maps "
             "and smaps, writing its JSON).\n" % (version, a.runs, a.runs,
                                                   max(3, a.runs // 4)),
             "| query | " + " | ".join(
                 "%d idle (%d threads)" % (n, results[n][0]) for n in counts)
             + " |",
             "|---|" + "---|" * len(counts)]
    for k in names:
        lines.append("| %s | " % k + " | ".join(
            us(results[n][1][k]) for n in counts) + " |")
    lines.append("\nThe run took %.0f s." % (time.monotonic() - started))
    table = "\n".join(lines) + "\n"
    print(table)
    if a.results:
        benchlib.write_section(a.results, a.section, table)


PROC = "read /proc/PID/%s"
EXPLAIN = "mysqlmemprof --explain, a whole run"
RSS = "server's VmRSS (MiB, not µs)"


def us(v):
    return "-" if v is None else "%.0f" % v if v >= 10 else "%.1f" % v


if __name__ == "__main__":
    main()
