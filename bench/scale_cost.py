#!/usr/bin/env python3
"""make bench: what sampling one thread costs the server as its connections
grow, with the server's own count of the thread read each tick (issue 33),
on MariaDB 10.11 and on MySQL 9.7.

Each server is a throwaway one (tests/sandbox.sh in a folder of its own),
started with room for 1,200 connections. The target is one idle connection
of the `loader` account that did some work once (benchlib.TARGET_WORK);
the crowd, 0, 100 and then 1,000 more idle connections of the same account
(bench/hold). At each level, one after the other, each for DURATION_S
seconds at 250 ms:

  a  mysqlmemprof as it is: --connection ID --frequency 250 --duration D
     with the default --max-load (10) and --rows-every (10): the own count
     each tick, the rows when it moved or every 10 s
  b  the same with --rows-every 0: the rows each tick, as before issue 33
  c  the bare per-thread memory query (bench/floor --query all), paced on
     the same absolute ticks
  d  the bare own-count query, paced the same: MariaDB's
     information_schema.PROCESSLIST.MEMORY_USED by connection id, MySQL's
     performance_schema.threads.TOTAL_MEMORY by thread id (bench/floor, a
     prepared statement)
  e  bench/python_sampler.py (the Python sampler people used), 250 ms
     slept after each query, as many queries as a and b have ticks
  f  the statement mysqlmemprof sends each tick of an idle thread (the
     own count and what tells a new statement), caught in the general log
     of a short run, alone and paced the same: a less f is what it sends
     besides (the rows every 10 s)

Every sampler connects as root (PROCESS: MariaDB shows another account's
connection in PROCESSLIST only with it). The figure is the server's CPU
per tick: the sum of the server's threads' time on a CPU
(/proc/PID/task/*/schedstat, in ns; /proc/PID/stat's clock ticks are 10 ms,
as much as 80 ticks of a bare query cost at 0 connections) from the first
sample to the end, less the idle server's own rate, over the ticks due
after the first (a, b) or the queries sent (c, d, e); a's and b's start-up
(the connection and the lookups before the first sample) apart, once. For
a and b also: the samples written against the ticks due (the share of
ticks whose sample carries the thread's total), the ticks --max-load
skipped (mysqlmemprof's notes on stderr) and the samples that read the
rows (CSV events_kept 0).

Then, at 1,000 connections, a thread that grows: the target is a
connection calling a procedure that sets a user variable 1 KiB longer
every 50 ms (SLEEP(0.05) between): its own count moves every tick, so its
rows are due every tick, and --max-load (10% of a core: 25 ms of query time
a 250-ms tick) decides how often they are read. What it allows is worked
out from the run's own query times (CSV query_us, which holds all a tick
sent, the guard's look at the setup once a second included): a tick that
reads the rows takes q_rows on average, one that reads the count only
q_count, so a share f of ticks with rows fits where f * q_rows + (1 - f)
* q_count <= 25 ms; the run's summed query time against that budget is
given beside it.

Issue 33's figures, printed at the end (bench is not in CI: nothing is
asserted): on MariaDB at 1,000 idle connections, a's samples carry the
total for at least 95% of the ticks, and a's server CPU per tick is at most
twice d's.

Rewrites the section `scale` of bench/RESULTS.md whole and the raw runs in
RESULTS-scale.json. About 14 minutes on two cores (824 s on e639a00). Standard library only
(the Python sampler: Debian's python3-pymysql). MMP_BENCH_QUICK=1: 4-s runs
for a smoke test of about 3 minutes; MMP_SERVERS=mysql (or mariadb) runs
one server only; MMP_BENCH_SANDBOX_DIR=DIR puts MariaDB's server in DIR and
MySQL's in DIR-mysql.
"""
import csv
import os
import re
import subprocess
import time

import benchlib
from benchlib import (BENCH, QUICK, RESULTS, TARGET_DB,
                      TARGET_PASSWORD, TARGET_USER, TARGET_WORK, Holder,
                      Server, child_env, fmt, log, median,
                      met, stamp, table, write_raw, write_section)

SECTION = "scale"
SERVERS = os.environ.get("MMP_SERVERS", "mariadb mysql").split()
LEVELS = [0, 100, 1000]
TOP = LEVELS[-1]
FREQ_MS = 250
DURATION_S = 4 if QUICK else 20
TICKS = DURATION_S * 1000 // FREQ_MS   # due in --duration: 0 to D - 250 ms
IDLE_S = 2 if QUICK else 4             # the idle server's rate, a level
SETTLE_S, SETTLE_PCT = 30, 2            # before it: under 2% of a core
READY_S = 30                           # a sampler's first sample by then
MAX_CONNECTIONS = 1200
MAX_LOAD_PCT = 10                      # mysqlmemprof's default
SHARE_TARGET = 0.95                    # issue 33: ticks with the total
COST_TARGET = 2.0                      # issue 33: a's CPU against d's
GROW_STEP = 1024                       # bytes the growing variable adds
ROOT_USER = "root"                     # PROCESS; no password (socket)
WHO = ["a", "b", "c", "d", "e", "f"]
NAMES = {
    "a": "mysqlmemprof",
    "b": "mysqlmemprof --rows-every 0",
    "c": "bare rows query",
    "d": "bare own-count query",
    "e": "Python sampler",
    "f": "mysqlmemprof's tick statement, bare",
}
QUERY_RE = re.compile(r"\t\s*\d+ (Query|Execute)\t(.*)$")
# The own count of one connection: MariaDB's by connection id, MySQL's
# (8.0.31+) by thread id; prepared, a '?' for the id.
COUNT_SQL = {
    "mariadb": "SELECT MEMORY_USED FROM information_schema.PROCESSLIST "
               "WHERE ID = ?",
    "mysql": "SELECT TOTAL_MEMORY FROM performance_schema.threads "
             "WHERE THREAD_ID = ?",
}
GROW_PROC = """DELIMITER //
DROP PROCEDURE IF EXISTS {db}.mmp_grow//
CREATE PROCEDURE {db}.mmp_grow(n INT)
BEGIN
  DECLARE i INT DEFAULT 0;
  WHILE i < n DO
    SET i = i + 1;
    SET @mmp_grow = REPEAT('x', i * {step});
    DO SLEEP(0.05);
  END WHILE;
END//
DELIMITER ;
"""
LOAD_RE = re.compile(r"(\d+) ticks? skipped to keep the queries under "
                     r"--max-load")
MISSED_RE = re.compile(r"(\d+) ticks? skipped: a sample")


def server_cpu_ns(pid):
    """The time all the server's threads have spent on a CPU, in ns. A
    thread that ended takes its time with it; a connection's thread goes
    back to the thread cache when it closes, so a sampler's stays."""
    total = 0
    task = "/proc/%d/task" % pid
    for tid in os.listdir(task):
        try:
            with open("%s/%s/schedstat" % (task, tid)) as f:
                total += int(f.read().split()[0])
        except (FileNotFoundError, ProcessLookupError):
            pass
    return total


class Clock:
    """The server's CPU and the wall clock, read together."""

    def __init__(self, server):
        self.server = server
        self.idle = 0.0                 # ns of CPU a ns, when idle

    def read(self):
        return (server_cpu_ns(self.server.pid), self.server.cpu_s(),
                time.monotonic_ns())

    def settle(self):
        """Waits, up to SETTLE_S, for a second in which the server spends
        under SETTLE_PCT of a core: after its start, the target's work and
        a thousand logins, InnoDB and the thread cache go on working for a
        while, and a rate measured then would be taken off every run."""
        t0 = time.monotonic()
        while time.monotonic() - t0 < SETTLE_S:
            r0 = self.read()
            time.sleep(1)
            r1 = self.read()
            if (r1[0] - r0[0]) / (r1[2] - r0[2]) < SETTLE_PCT / 100.0:
                break
        return time.monotonic() - t0

    def measure_idle(self, seconds):
        r0 = self.read()
        time.sleep(seconds)
        r1 = self.read()
        self.idle = (r1[0] - r0[0]) / (r1[2] - r0[2])
        return self.idle

    def spent_us(self, r0, r1):
        """The server's CPU between two reads, less its idle rate, µs; and
        /proc/PID/stat's figure, for a check (ended threads count there)."""
        wall = r1[2] - r0[2]
        return ((r1[0] - r0[0] - self.idle * wall) / 1e3,
                (r1[1] - r0[1]) * 1e6 - self.idle * wall / 1e3)


def threads_ns(pid, tids):
    """{tid: ns on a CPU} of those of the server's threads still there."""
    out = {}
    for tid in tids:
        try:
            with open("/proc/%d/task/%d/schedstat" % (pid, tid)) as f:
                out[tid] = int(f.read().split()[0])
        except (FileNotFoundError, ProcessLookupError):
            pass
    return out


class Window:
    """The server's CPU over part of a sampler's run, two ways: the threads
    of the sampler's own connections, which run its queries and nothing
    else (the figure: no idle rate to take off), and the whole server less
    its idle rate (a check, and what a query costs elsewhere). The
    threads are read until the end (poll()): one that ends when its
    connection closes keeps its last reading."""

    def __init__(self, clock, tids):
        self.clock = clock
        self.pid = clock.server.pid
        self.r0 = clock.read()
        self.first = threads_ns(self.pid, tids)
        self.last = dict(self.first)
        self.late = 0
        self.startup_us = None
        self.r1 = None

    def poll(self):
        self.last.update(threads_ns(self.pid, list(self.first)))

    def close(self):
        self.poll()
        self.r1 = self.clock.read()

    def per(self, n):
        """The figures over n ticks or queries, µs each."""
        conn = sum(self.last[t] - self.first[t] for t in self.first) / 1e3
        whole, stat = self.clock.spent_us(self.r0, self.r1)
        return {"n": n, "server_us": conn / n, "whole_us": whole / n,
                "stat_us": stat / n, "conn_threads": len(self.first)}


def wait_for(path, marker, proc, what):
    """Returns once path holds marker (a sampler's first sample)."""
    deadline = time.monotonic() + READY_S
    while True:
        try:
            with open(path, "rb") as f:
                if marker in f.read():
                    return
        except FileNotFoundError:
            pass
        if proc.poll() is not None or time.monotonic() > deadline:
            if proc.poll() is None:
                proc.kill()
                proc.wait()
            with open(path + ".err", errors="replace") as f:
                raise RuntimeError("%s wrote no sample within %d s: %s" % (
                    what, READY_S, f.read().strip()[-500:]))
        time.sleep(0.005)


def read_samples(path):
    """mysqlmemprof's CSV, a row an event: by sample, what the sample
    carries (events_kept, connection_bytes where written, query_us)."""
    out = {}
    with open(path, newline="") as f:
        for row in csv.DictReader(f):
            n = int(row["sample"])
            if n in out:
                continue
            cb = row.get("connection_bytes")
            out[n] = {"elapsed_ms": int(row["elapsed_ms"]),
                      "kept": row.get("events_kept") == "1",
                      "connection_bytes": int(cb) if cb else None,
                      "total_bytes": int(row["total_bytes"] or 0),
                      "query_us": int(row["query_us"] or 0)}
    return [out[k] for k in sorted(out)]


def rows_gap_ms(samples):
    """The longest time between two samples that read the rows, or from
    the last one to the end of --duration."""
    at = [s["elapsed_ms"] for s in samples if not s["kept"]]
    at.append(DURATION_S * 1000)
    return max(b - a for a, b in zip(at, at[1:])) if len(at) > 1 else None


class Scale:
    """The runs of one server: the samplers on the target, by level."""

    def __init__(self, kind, server, helpers, workdir, clock):
        self.kind, self.server, self.helpers = kind, server, helpers
        self.workdir, self.clock = workdir, clock
        self.python, _ = benchlib.python_for_sampler()
        self.runs = 0
        self.conn = self.thread = self.tick_sql = self.tick_proto = None

    def path(self, name):
        self.runs += 1
        return os.path.join(self.workdir, "%s-%03d-%s" % (
            self.kind, self.runs, name))

    def target(self, conn):
        self.conn = conn
        self.thread = int(self.server.sql(
            "SELECT THREAD_ID FROM performance_schema.threads "
            "WHERE PROCESSLIST_ID = %d" % conn)[0][0])

    def capture_tick_sql(self):
        """The statement mysqlmemprof sends most, each tick of an idle
        thread: from the general log of a short run on the target."""
        path = os.path.join(benchlib.SANDBOX_DIR, "general-scale.log")
        with self.server.general_log(path):
            subprocess.run([self.helpers["mysqlmemprof"], "--no-defaults",
                            "-q", "-S", self.server.socket, "-u", ROOT_USER,
                            "--connection", str(self.conn), "--frequency",
                            str(FREQ_MS), "--duration", "2", "--format",
                            "csv"], stdout=subprocess.DEVNULL,
                           env=child_env(""), check=True)
        seen = {}
        with open(path, errors="replace") as f:
            for line in f:
                m = QUERY_RE.search(line.rstrip("\n"))
                if m:
                    k = (m.group(2), m.group(1))
                    seen[k] = seen.get(k, 0) + 1
        os.remove(path)
        # An Execute was prepared once (the log shows it with its values):
        # floor sends it so too, its id pasted in, no '?'.
        self.tick_sql, kind = max(seen, key=seen.get)
        self.tick_proto = "binary" if kind == "Execute" else "text"
        return self.tick_sql

    def run(self, who):
        if who in ("a", "b"):
            return self.mmp(["--rows-every", "0"] if who == "b" else [])
        if who == "e":
            return self.python_sampler()
        return self.floor(who)

    def sampler_tids(self):
        """The server's threads of root's connections other than this
        lookup's: the sampler's, as every sampler connects as root."""
        return [int(r[0]) for r in self.server.sql(
            "SELECT THREAD_OS_ID FROM performance_schema.threads WHERE "
            "PROCESSLIST_USER = '%s' AND PROCESSLIST_ID <> CONNECTION_ID()"
            % ROOT_USER)]

    def watched(self, proc, out, marker, what):
        """Waits for a sampler's first sample, then watches its threads
        until it exits: the window from the first sample to the end, and
        the server's CPU from its start to that sample."""
        r_start = self.clock.read()
        wait_for(out, marker, proc, what)
        r_first = self.clock.read()
        win = Window(self.clock, self.sampler_tids())
        while proc.poll() is None:
            win.poll()
            time.sleep(0.02)
        win.close()
        # The ticks the lookup of the threads let pass, of the first ones.
        win.late = int((win.r0[2] - r_first[2]) // (FREQ_MS * 1e6))
        win.startup_us = self.clock.spent_us(r_start, r_first)[0]
        return win

    def mmp(self, extra):
        """mysqlmemprof on the target for --duration: the server's CPU
        per tick after the first sample, its start-up apart, and what its
        samples carry."""
        out = self.path("mmp")
        argv = [self.helpers["mysqlmemprof"], "--no-defaults", "-S",
                self.server.socket, "-u", ROOT_USER, "--connection",
                str(self.conn), "--frequency", str(FREQ_MS), "--duration",
                str(DURATION_S), "--format", "csv"] + extra
        with open(out, "w") as o, open(out + ".err", "w") as e:
            proc = subprocess.Popen(argv, stdin=subprocess.DEVNULL,
                                    stdout=o, stderr=e, env=child_env(""))
        win = self.watched(proc, out, b"\n1,", "mysqlmemprof")
        with open(out + ".err", errors="replace") as f:
            err = f.read()
        if proc.returncode != 0:
            raise RuntimeError("mysqlmemprof exited %d: %s" % (
                proc.returncode, err.strip()[-500:]))
        samples = read_samples(out)
        load = LOAD_RE.search(err)
        missed = MISSED_RE.search(err)
        r = {"ticks": TICKS, "samples": len(samples),
             "rows_read": sum(1 for s in samples if not s["kept"]),
             "with_count": sum(1 for s in samples
                               if s["connection_bytes"] is not None),
             "load_skipped": int(load.group(1)) if load else 0,
             "missed": int(missed.group(1)) if missed else 0,
             "rows_gap_ms": rows_gap_ms(samples),
             "startup_us": win.startup_us,
             "query_us_rows": median([s["query_us"] for s in samples[1:]
                                      if not s["kept"]]),
             "query_us_count": median([s["query_us"] for s in samples
                                       if s["kept"]]),
             "query_us_rows_mean": mean([s["query_us"] for s in samples[1:]
                                         if not s["kept"]]),
             "query_us_count_mean": mean([s["query_us"] for s in samples
                                          if s["kept"]]),
             "query_us_sum": sum(s["query_us"] for s in samples[1:]),
             "notes": [line.split("mysqlmemprof: ", 1)[-1]
                       for line in err.splitlines()]}
        r.update(win.per(TICKS - 1 - win.late))
        return r

    def floor(self, who):
        """The bare query, paced on the ticks: the server's CPU around
        floor's loop (bench/floor --handshake), a query."""
        if who == "c":
            argv, ident = ["--query", "all"], self.thread
        elif who == "f":
            argv, ident = ["--sql", self.tick_sql, "--proto",
                           self.tick_proto], 1
        else:
            argv = ["--sql", COUNT_SQL[self.kind], "--proto", "binary"]
            ident = self.conn if self.kind == "mariadb" else self.thread
        proc = subprocess.Popen(
            [self.helpers["floor"], "-S", self.server.socket, "-u",
             ROOT_USER, "--thread", str(ident), "--seconds",
             str(DURATION_S), "--interval", str(FREQ_MS), "--handshake"] +
            argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
            env=child_env(""), text=True)
        if not proc.stdout.readline().startswith("ready"):
            proc.wait()
            raise RuntimeError("floor (%s) did not start" % NAMES[who])
        win = Window(self.clock, self.sampler_tids())
        proc.stdin.write("go\n")
        proc.stdin.flush()
        done = benchlib.parse_kv(proc.stdout.readline())
        win.close()
        proc.stdin.close()
        proc.wait()
        r = {"queries": done["n"], "rows": done["rows"],
             "latency_us": done["query_ns"] / done["n"] / 1e3}
        r.update(win.per(done["n"]))
        return r

    def python_sampler(self):
        """bench/python_sampler.py for TICKS queries, unbuffered so that
        its first sample shows; the server's CPU from then on."""
        out = self.path("python")
        argv = [self.python, "-u", os.path.join(BENCH, "python_sampler.py"),
                "-S", self.server.socket, "-u", ROOT_USER, "-p", "",
                "--thread", str(self.thread), "--interval",
                "%g" % (FREQ_MS / 1000.0), "--count", str(TICKS)]
        with open(out, "w") as o, open(out + ".err", "w") as e:
            proc = subprocess.Popen(argv, stdin=subprocess.DEVNULL,
                                    stdout=o, stderr=e, env=child_env(""))
        win = self.watched(proc, out, b"## Memory usage", "the Python "
                           "sampler")
        if proc.returncode != 0:
            raise RuntimeError("the Python sampler exited %d" %
                               proc.returncode)
        r = {"queries": TICKS, "wall_s": (win.r1[2] - win.r0[2]) / 1e9}
        r.update(win.per(TICKS - 1 - win.late))
        return r


# ------------------------------------------------------------------ runs

class Grower:
    """A connection calling mmp_grow: its variable 1 KiB longer every
    50 ms, for longer than a run; killed when done."""

    def __init__(self, server):
        self.server = server
        subprocess.run(["mariadb", "--no-defaults", "-u" + ROOT_USER, "-S",
                        server.socket], input=GROW_PROC.format(
                            db=TARGET_DB, step=GROW_STEP),
                       text=True, check=True)
        n = (DURATION_S + 30) * 20
        self.proc = subprocess.Popen(
            ["mariadb", "--no-defaults", "-u" + TARGET_USER, "-S",
             server.socket, TARGET_DB, "-e", "CALL mmp_grow(%d)" % n],
            stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL, env=child_env(TARGET_PASSWORD))
        deadline = time.monotonic() + READY_S
        while True:
            # MySQL shows the procedure's statement of the moment, not
            # the CALL; the other connections of loader idle meanwhile.
            r = server.sql("SELECT PROCESSLIST_ID FROM "
                           "performance_schema.threads WHERE "
                           "PROCESSLIST_USER = '%s' AND "
                           "PROCESSLIST_COMMAND = 'Query'" % TARGET_USER)
            if r:
                self.conn = int(r[0][0])
                return
            if self.proc.poll() is not None or time.monotonic() > deadline:
                self.close()
                raise RuntimeError("the growing connection did not start")
            time.sleep(0.05)

    def close(self):
        if self.proc.poll() is None:
            try:
                self.server.sql("KILL %d" % self.conn)
            except (AttributeError, subprocess.CalledProcessError):
                self.proc.terminate()
            self.proc.wait(timeout=30)


def level_runs(s, clock, lvl, index):
    """The five samplers at one level, their order turned by level."""
    c = {"threads": s.server.thread_count(), "settle_s": clock.settle(),
         "idle_us_s": clock.measure_idle(IDLE_S) * 1e6}
    order = WHO[index % len(WHO):] + WHO[:index % len(WHO)]
    for who in order:
        r = s.run(who)
        c[who] = r
        log("%s, %d idle connections: %s: %s µs a tick (whole server "
            "%s)%s" % (s.kind, lvl, NAMES[who], fmt(r["server_us"]),
                       fmt(r["whole_us"]),
            "; %d of %d ticks written, %d read the rows, %d skipped by "
            "--max-load" % (r["samples"], r["ticks"], r["rows_read"],
                            r["load_skipped"]) if "ticks" in r else ""))
    return c


def mean(xs):
    return sum(xs) / len(xs) if xs else None


def allowed_share(r):
    """The share of ticks --max-load lets read the rows, from the run's
    own query time. A tick's query_us holds all it sent: the count, the
    rows when read, and, once a second, the guard's look at the setup
    (guard.c, a source on the same chain), which the medians left out.
    So the means of the ticks with rows (q_rows) and of those without
    (q_count), each with the guard's share it bore, give what a share f
    of ticks with rows spends: f * q_rows + (1 - f) * q_count a tick,
    within MAX_LOAD_PCT of it. Where the run spent its budget in full, f
    is the share it read."""
    budget = MAX_LOAD_PCT / 100.0 * FREQ_MS * 1e3
    q_rows, q_count = r["query_us_rows_mean"], r["query_us_count_mean"]
    if q_rows is None:
        return None
    if q_count is None or q_rows <= q_count:
        return min(1.0, budget / q_rows)
    return max(0.0, min(1.0, (budget - q_count) / (q_rows - q_count)))


def budget_used(r):
    """The run's summed query time (after the first sample, start-up
    apart) against --max-load's budget over the ticks it covers."""
    return r["query_us_sum"] / (MAX_LOAD_PCT / 100.0 * FREQ_MS * 1e3 *
                                (r["ticks"] - 1))


def grow_run(s, clock):
    clock.settle()
    clock.measure_idle(IDLE_S)
    g = Grower(s.server)
    try:
        s.target(g.conn)
        r = s.mmp([])
    finally:
        g.close()
    r["allowed"] = allowed_share(r)
    r["budget_used"] = budget_used(r)
    log("%s, a growing thread at %d: %d of %d ticks read the rows; "
        "--max-load allows %s; its queries took %s of the budget" % (
            s.kind, TOP, r["rows_read"], r["ticks"],
            fmt_share(r["allowed"]), fmt_share(r["budget_used"])))
    return r


def run_server(kind, helpers, workdir, base):
    os.environ["MMP_SERVER"] = kind
    benchlib.SERVER_KIND = kind
    benchlib.SANDBOX_DIR = (base + ("" if kind == "mariadb" else "-" + kind)
                            if base else os.path.join(workdir,
                                                      "sandbox-" + kind))
    started = time.monotonic()
    res = {"kind": kind, "load": [open("/proc/loadavg").read().split()[0]]}
    server = Server(MAX_CONNECTIONS)
    clock = Clock(server)
    holders = []
    try:
        res["version"] = server.version
        target = Holder(helpers["hold"], server, 1, TARGET_USER,
                        TARGET_PASSWORD, TARGET_DB, TARGET_WORK)
        holders.append(target)
        s = Scale(kind, server, helpers, workdir, clock)
        s.target(target.ids[0])
        res.update(conn=s.conn, thread=s.thread, count_sql=COUNT_SQL[kind],
                   tick_sql=s.capture_tick_sql(), tick_proto=s.tick_proto)
        log("%s %s, pid %d, target connection %d (thread %d)" % (
            kind, server.version, server.pid, s.conn, s.thread))
        res["levels"] = {}
        held = 0
        for i, lvl in enumerate(LEVELS):
            if lvl > held:
                holders.append(Holder(helpers["hold"], server, lvl - held,
                                      TARGET_USER, TARGET_PASSWORD))
                held = lvl
            res["levels"][str(lvl)] = level_runs(s, clock, lvl, i)
        res["grow"] = grow_run(s, clock)
    finally:
        for h in holders:
            h.close()
        server.stop()
    res["load"].append(open("/proc/loadavg").read().split()[0])
    res["seconds"] = time.monotonic() - started
    return res


# ----------------------------------------------------------------- report

def fmt_share(x):
    return "n/a" if x is None else "%.0f%%" % (100.0 * x)


def cost_table(res, key):
    rows = []
    for lvl in LEVELS:
        c = res["levels"][str(lvl)]
        rows.append(["{:,}".format(lvl), "{:,}".format(c["threads"])] +
                    ["**%s**" % fmt(c[w][key]) if w == "a" else
                     fmt(c[w][key]) for w in WHO] +
                    [benchlib.ratio(c["a"][key], c["d"][key]),
                     benchlib.ratio(c["a"][key], c["f"][key]),
                     benchlib.ratio(c["b"][key], c["c"][key])])
    return table(["idle connections", "threads"] +
                 ["%s %s" % (w, NAMES[w]) for w in WHO] +
                 ["a / d", "a / f", "b / c"], rows)


def ticks_row(label, r):
    return [label, r["ticks"], "%d (%s)" % (r["samples"], fmt_share(
        r["samples"] / r["ticks"])), r["load_skipped"], r["missed"],
        r["rows_read"], fmt(r["rows_gap_ms"] / 1e3 if r["rows_gap_ms"]
                            is not None else None),
        r["with_count"], fmt(r["query_us_rows"], 0),
        fmt(r["query_us_count"], 0), fmt(r["startup_us"] / 1e3)]


TICKS_HEAD = ["run", "ticks due", "samples written (share)",
              "skipped by --max-load", "skipped, late", "read the rows",
              "longest without rows, s",
              "with connection_bytes", "query µs, rows read",
              "query µs, count only",
              "start-up, whole server less idle, ms"]


def verdicts(all_res):
    """Issue 33's figures, MariaDB at TOP: (text, met) pairs."""
    out = []
    for res in all_res:
        if res["kind"] != "mariadb":
            continue
        c = res["levels"][str(TOP)]
        share = c["a"]["samples"] / c["a"]["ticks"]
        out.append(("MariaDB at {:,} idle connections: the thread's total "
                    "written for {} of the ticks ({} of {}; target at "
                    "least {})".format(TOP, fmt_share(share),
                                       c["a"]["samples"], c["a"]["ticks"],
                                       fmt_share(SHARE_TARGET)),
                    share >= SHARE_TARGET))
        r = c["a"]["server_us"] / c["d"]["server_us"]
        out.append(("MariaDB at {:,} idle connections: mysqlmemprof's "
                    "server CPU a tick {} µs, {:.2f}x the own-count "
                    "query's {} µs (target at most {:g}x)".format(
                        TOP, fmt(c["a"]["server_us"]), r,
                        fmt(c["d"]["server_us"]), COST_TARGET),
                    r <= COST_TARGET))
        g = res["grow"]
        read = g["rows_read"] / g["ticks"]
        out.append(("MariaDB at {:,}, a growing thread: its rows read in "
                    "{} of the ticks ({} of {}); --max-load {}% allows "
                    "{} (its queries took {} of the budget)".format(
                        TOP, fmt_share(read), g["rows_read"], g["ticks"],
                        MAX_LOAD_PCT, fmt_share(g["allowed"]),
                        fmt_share(g["budget_used"])),
                    g["allowed"] is not None and
                    read >= g["allowed"] - 0.05))
    return out


def report(all_res, date, tree, seconds):
    out = ["## One thread at 250 ms as the connections grow: the own "
           "count each tick (bench/scale_cost.py)", "",
           stamp("bench/scale_cost.py", date, tree), ""]
    out.append(
        "Each server a throwaway one (tests/sandbox.sh) on %d cores shared "
        "with other work (the load average below). The target: one idle "
        "connection of `loader` that did some work once; the idle crowd "
        "held by bench/hold. At each level, in turn (the order turned "
        "each level), %d s at %d ms (%d ticks): **a** `mysqlmemprof "
        "--connection ID --frequency %d --duration %d --format csv` as it "
        "is (default --max-load %d and --rows-every: the own count each "
        "tick, the rows when it moved or every 10 s); **b** the same with "
        "`--rows-every 0` (the rows each tick); **c** the bare rows query "
        "(bench/floor --query all, every row of the thread) and **d** the "
        "bare own-count query, both paced on the same ticks; **e** "
        "bench/python_sampler.py, %d queries with 250 ms slept after each; "
        "**f** the statement mysqlmemprof sends each tick of an idle "
        "thread, alone, paced the same (a less f: its rows every 10 s "
        "and whatever else it sends). "
        "All as root (PROCESS). **Server CPU a tick**: the time on a CPU "
        "(/proc/PID/task/TID/schedstat, ns) of the server's threads that "
        "serve the sampler's connections (performance_schema.threads."
        "THREAD_OS_ID), which run its queries and nothing else, from its "
        "first sample to its end, over the ticks due after the first (a, "
        "b) or the queries sent (c, d, e), in µs; a's and b's start-up "
        "(the whole server's, from its start to its first sample) apart. "
        "The whole server's CPU less its idle rate over the same window "
        "is given too, as a check." % (
            os.cpu_count(), DURATION_S, FREQ_MS, TICKS, FREQ_MS, DURATION_S,
            MAX_LOAD_PCT, TICKS))
    for res in all_res:
        out += ["", "### %s %s" % (
            "MariaDB" if res["kind"] == "mariadb" else "MySQL",
            res["version"]), "",
            "The own count (d): `%s`. mysqlmemprof's statement of a tick "
            "(f, the one it sent most in a 2-s run on the target, from "
            "the general log; sent by f as mysqlmemprof sent it, %s): "
            "`%s`. Server CPU a tick on the sampler's connection, µs:" % (
                res["count_sql"], "prepared once" if res.get("tick_proto")
                == "binary" else "text protocol",
                res["tick_sql"].replace("|", "\\|")),
            "", cost_table(res, "server_us"), "",
            "The same, the whole server less its idle rate (µs; noisier: "
            "the server's own work in the background moves it by tens of "
            "µs a tick on MariaDB, by hundreds on MySQL):", "", cost_table(res, "whole_us"), "",
            "What a's and b's samples carried (ticks due in --duration; "
            "a sample written carries the thread's total; *read the rows*: "
            "events_kept 0; query µs: the medians of CSV query_us):", ""]
        rows = []
        for lvl in LEVELS:
            c = res["levels"][str(lvl)]
            for w in ("a", "b"):
                rows.append(ticks_row("{:,} idle: {} {}".format(
                    lvl, w, NAMES[w]), c[w]))
        rows.append(ticks_row("{:,} idle, a growing thread: a".format(TOP),
                              res["grow"]))
        out.append(table(TICKS_HEAD, rows))
        g = res["grow"]
        out += ["", "A growing thread (a procedure setting a variable "
                "%d bytes longer every 50 ms) at %s idle connections: its "
                "rows read in %s of the ticks (%d of %d; the longest time "
                "without them %s s); --max-load %d%% allows %s "
                "(%s µs a tick with the rows, %s with the count only, on "
                "average, the guard's look once a second in them, against "
                "%d µs); its queries took %s of that budget." % (
                    GROW_STEP, "{:,}".format(TOP),
                    fmt_share(g["rows_read"] / g["ticks"]), g["rows_read"],
                    g["ticks"], fmt(g["rows_gap_ms"] and
                                    g["rows_gap_ms"] / 1e3), MAX_LOAD_PCT,
                    fmt_share(g["allowed"]), fmt(g["query_us_rows_mean"], 0),
                    fmt(g["query_us_count_mean"], 0),
                    MAX_LOAD_PCT * FREQ_MS * 10,
                    fmt_share(g["budget_used"])),
                "", "Load average %s before, %s after; %.0f s." % (
                    res["load"][0], res["load"][1], res["seconds"])]
    v = verdicts(all_res)
    if v:
        out += ["", "Issue 33's figures:", ""]
        out += ["- %s: **%s**." % (text, met(ok)) for text, ok in v]
    out += ["", "The run took %.0f s." % seconds]
    return "\n".join(out) + "\n", v


def main():
    base = os.environ.get("MMP_BENCH_SANDBOX_DIR")
    all_res, date, tree, seconds = benchlib.each_server(
        "mmp-scale-", MAX_CONNECTIONS, SERVERS,
        lambda kind, helpers, workdir: run_server(kind, helpers, workdir,
                                                  base))
    text, v = report(all_res, date, tree, seconds)
    print(text)
    write_section(RESULTS, SECTION, text)
    write_raw(os.path.join(os.path.dirname(RESULTS), "RESULTS-scale.json"),
              {"date": date, "tree": tree, "duration_s": DURATION_S,
               "frequency_ms": FREQ_MS, "servers": all_res})
    for text, ok in v:
        print("bench: issue 33: %s: %s" % (text, met(ok)))


if __name__ == "__main__":
    main()
