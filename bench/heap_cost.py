#!/usr/bin/env python3
"""make bench, the heap part: what jemalloc's heap profiling costs the
server, how many dumps it writes, and what `mysqlmemprof --heap` takes to
read them (issue 34, "Cost measured and bounded").

One throwaway MariaDB 10.11 server (tests/sandbox.sh in a folder of its
own) started again, as `mysqld_safe --malloc-lib` would, in each setting:

  off          glibc's malloc, no LD_PRELOAD
  jemalloc     Debian's libjemalloc2 preloaded, no profiling
  prof         MALLOC_CONF=prof:true (lg_prof_sample 19, no dumps)
  recommended  the man page's drop-in: prof:true, lg_prof_interval:32

The settings are interleaved in rounds, the order turning each round, so
that the machine's load moves all of them alike. In each: sysbench
oltp_point_select (2 threads) for SB_S seconds, TPS; then two statements
that allocate and free large blocks, each timed RUNS times: the issue's
recursive-CTE INSERT (20,000 rows of 1,000 bytes into a MEMORY table) and
a recursive CTE setting a user variable to 100,000 bytes 20,000 times
(2 GB churned). The figures are medians over the rounds of each
setting's figure over off's of the same round. The recommended setting's
dumps are counted over its time up: dumps a minute and bytes a dump.

Then the server with lg_prof_interval:26 (the issue's run, a dump each
64 MiB allocated) runs the user-variable statement FOLDER_RUNS times: the
dumps it leaves are the largest folder of the run. `mysqlmemprof --heap`
is timed under bench/rusage (wall, CPU, max RSS) on that server: the
newest dump as text and as pprof, and the growth since the first
(`--heap-base first`), which reads two dumps among all of the folder.

Rewrites the section `heap` of bench/RESULTS.md whole (the others are
left as they are) and the raw runs in RESULTS-heap.json. About 4 minutes
on two cores. Standard library only. MMP_BENCH_QUICK=1 shortens it to a
smoke test.
"""
import glob
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time

# A sandbox of its own, not the other scripts': the server is started
# again here with other environments.
os.environ.setdefault("MMP_BENCH_SANDBOX_DIR",
                      "/tmp/mmp-bench-heap-%d" % os.getuid())
import benchlib                                     # noqa: E402
# The tests' wait for a server to end (a zombie of ours reaped).
sys.path.insert(0, os.path.join(benchlib.ROOT, "tests", "integration"))
import mmp                                          # noqa: E402
from benchlib import (QUICK, RESULTS, Server, fmt, log, median,  # noqa: E402
                      parse_kv, stamp, table, write_raw, write_section)

SECTION = benchlib.section_name("heap")
JEMALLOC = "/usr/lib/x86_64-linux-gnu/libjemalloc.so.2"
RECOMMENDED_INTERVAL = 32       # the man page's drop-in
FOLDER_INTERVAL = 26            # the run: many dumps
SETTINGS = ["off", "jemalloc", "prof", "recommended"]
ROUNDS = 1 if QUICK else 3
SB_S = 2 if QUICK else 4        # sysbench --time per run
RUNS = 1 if QUICK else 3        # each statement, per setting and round
FOLDER_RUNS = 3 if QUICK else 10
# The dumps a run of user-var leaves at each lg_prof_interval: whether a
# larger one than the recommended bounds them.
SWEEP = [32, 36, 40]
SWEEP_RUNS = 2 if QUICK else 5
USER_VAR_BYTES = 20000 * 100000         # user-var's values a run
SB_TABLES, SB_ROWS, SB_THREADS = 1, 10000, 2
SESSION = ("SET %s = 1000000; SET max_heap_table_size = 256 * 1024 * 1024; "
           % ("cte_max_recursion_depth" if benchlib.SERVER_KIND == "mysql"
              else "max_recursive_iterations"))
STATEMENTS = {
    "cte-insert": ("TRUNCATE churn.t; ",
                   "INSERT INTO churn.t WITH RECURSIVE s (n) AS (SELECT 1 "
                   "UNION ALL SELECT n + 1 FROM s WHERE n < 20000) "
                   "SELECT n, REPEAT('x', 1000) FROM s"),
    "user-var": ("", "WITH RECURSIVE s (n) AS (SELECT 1 UNION ALL SELECT "
                 "n + 1 FROM s WHERE n < 20000) SELECT COUNT(*) FROM s "
                 "WHERE (@churn := REPEAT('z', 100000)) IS NOT NULL"),
}


# ----------------------------------------------------------------- server

def end(server):
    """The server stopped and, when this script started it, reaped (a
    zombie would keep tests/sandbox.sh stop waiting)."""
    os.kill(server.pid, signal.SIGTERM)
    deadline = time.monotonic() + 60
    while not mmp._gone(server.pid):
        if time.monotonic() > deadline:
            raise RuntimeError("the server %d did not end" % server.pid)
        time.sleep(0.05)


def launch():
    """The command tests/sandbox.sh started the server with: MySQL's
    under chroot."""
    with open(os.path.join(benchlib.SANDBOX_DIR, "launch")) as f:
        return f.read().splitlines()


def server_root():
    """The folder the server sees as "/": "" on the host."""
    argv = launch()
    return argv[1].rstrip("/") if argv[0] == "chroot" else ""


def restart(server, environ):
    """The sandbox server stopped and started again with environ (None:
    as tests/sandbox.sh starts it) before its command; its start time."""
    end(server)
    argv = launch()
    if environ:
        env = ["env"] + ["%s=%s" % kv for kv in sorted(environ.items())]
        # Inside the root: the host's chroot must not preload it too.
        argv = argv[:2] + env + argv[2:] if argv[0] == "chroot" \
            else env + argv
    subprocess.Popen(argv, stdin=subprocess.DEVNULL,
                     stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                     start_new_session=True)
    started = time.monotonic()
    deadline = started + 60
    while True:
        try:
            server.sql("SELECT 1")
            break
        except subprocess.CalledProcessError:
            if time.monotonic() > deadline:
                raise RuntimeError("the server did not come back")
            time.sleep(0.1)
    with open(os.path.join(benchlib.SANDBOX_DIR, "server.pid")) as f:
        server.pid = int(f.read().strip())
    return started


def environ_of(setting, workdir):
    """The environment a setting starts the server with, and the prefix
    of its dumps as this process sees them (None when it writes none);
    workdir: a folder the server sees, under its root."""
    if setting == "off":
        return None, None
    env = {"LD_PRELOAD": JEMALLOC}
    if setting == "jemalloc":
        return env, None
    interval = {"prof": None, "recommended": RECOMMENDED_INTERVAL,
                "folder": FOLDER_INTERVAL}.get(setting)
    if setting.startswith("interval-"):
        interval = int(setting.split("-")[1])
    folder = os.path.join(workdir, "heap-" + setting)
    os.makedirs(folder, exist_ok=True)
    prefix = os.path.join(folder, "jeprof")
    conf = "prof:true,prof_prefix:" + prefix[len(server_root()):]
    if interval is not None:
        conf += ",lg_prof_interval:%d" % interval
    env["MALLOC_CONF"] = conf
    return env, prefix


# --------------------------------------------------------------- workload

def sysbench(server, action, seconds=None):
    argv = ["sysbench", "oltp_point_select", "--db-driver=mysql",
            "--mysql-socket=" + server.socket, "--mysql-user=root",
            "--mysql-password=", "--mysql-db=churn",
            "--tables=%d" % SB_TABLES, "--table-size=%d" % SB_ROWS,
            "--threads=%d" % SB_THREADS, "--report-interval=0"]
    if seconds:
        argv += ["--time=%d" % seconds, "--events=0"]
    r = subprocess.run(argv + [action], capture_output=True, text=True)
    if r.returncode != 0:
        raise RuntimeError("sysbench %s exited %d: %s" % (
            action, r.returncode, (r.stderr or r.stdout)[-500:]))
    return r.stdout


def tps(server):
    text = sysbench(server, "run", SB_S)
    m = re.search(r"transactions:\s+\d+\s+\(([\d.]+) per sec", text)
    if not m:
        raise RuntimeError("no TPS in sysbench's output:\n" + text)
    return float(m.group(1))


def timed(server, name):
    """One run of a statement, its seconds (the setup before it not
    counted)."""
    setup, stmt = STATEMENTS[name]
    if setup:
        # A MEMORY table takes its bound when first opened after a start.
        server.sql(SESSION + setup)
    t0 = time.monotonic()
    server.sql(SESSION + stmt)
    return time.monotonic() - t0


def prepare(server):
    server.sql(SESSION + "CREATE DATABASE IF NOT EXISTS churn; "
               "DROP TABLE IF EXISTS churn.t; "
               "CREATE TABLE churn.t (n INT, s VARCHAR(1000)) "
               "ENGINE=MEMORY")
    sysbench(server, "cleanup")
    sysbench(server, "prepare")


def dumps_of(prefix):
    files = glob.glob(prefix + ".*.heap") if prefix else []
    return len(files), sum(os.path.getsize(f) for f in files)


def one_setting(server, setting, workdir):
    env, prefix = environ_of(setting, workdir)
    started = restart(server, env)
    sysbench(server, "run", 1)              # warms the buffer pool
    r = {"tps": tps(server)}
    for name in STATEMENTS:
        r[name] = median([timed(server, name) for _ in range(RUNS)])
    r["up_s"] = time.monotonic() - started
    r["dumps"], r["dump_bytes"] = dumps_of(prefix)
    log("%s: %s" % (setting, r))
    return r


# ------------------------------------------------------------------ --heap

def heap_run(server, helpers, workdir, args, out):
    """mysqlmemprof --heap ARGS under rusage: wall, CPU and max RSS."""
    ru_path = os.path.join(workdir, "rusage")
    argv = [helpers["rusage"], ru_path, helpers["mysqlmemprof"],
            "--no-defaults", "-S", server.socket, "-u", "root", "--heap",
            "-o", os.path.join(workdir, out)] + args
    t0 = time.monotonic()
    r = subprocess.run(argv, capture_output=True, text=True)
    wall = time.monotonic() - t0
    if r.returncode != 0:
        raise RuntimeError("%s exited %d: %s" % (" ".join(argv[2:]),
                                                  r.returncode, r.stderr))
    with open(ru_path) as f:
        ru = parse_kv("rusage " + f.read())
    return {"wall_s": wall, "cpu_s": (ru["user_us"] + ru["sys_us"]) / 1e6,
            "maxrss_kb": ru["maxrss_kb"], "stderr": r.stderr.strip(),
            "bytes_out": os.path.getsize(os.path.join(workdir, out))}


def sweep_phase(server, workdir):
    """user-var SWEEP_RUNS times at each interval of SWEEP: the dumps and
    their bytes."""
    out = {}
    for interval in SWEEP:
        env, prefix = environ_of("interval-%d" % interval, workdir)
        restart(server, env)
        before = dumps_of(prefix)[0]
        for _ in range(SWEEP_RUNS):
            timed(server, "user-var")
        n, size = dumps_of(prefix)
        out[interval] = {"dumps": n, "dump_bytes": size,
                         "dumps_at_start": before}
        log("interval %d: %s" % (interval, out[interval]))
    return out


def folder_phase(server, helpers, workdir):
    env, prefix = environ_of("folder", workdir)
    started = restart(server, env)
    for _ in range(FOLDER_RUNS):
        timed(server, "user-var")
    res = {"up_s": time.monotonic() - started}
    res["dumps"], res["dump_bytes"] = dumps_of(prefix)
    newest = max(glob.glob(prefix + ".%d.*.heap" % server.pid),
                 key=lambda p: int(os.path.basename(p).split(".")[2]))
    res["newest_bytes"] = os.path.getsize(newest)
    res["heap"] = {
        "text": heap_run(server, helpers, workdir, [], "heap.txt"),
        "pprof": heap_run(server, helpers, workdir,
                          ["--format", "pprof"], "heap.pb.gz"),
        "base-first": heap_run(server, helpers, workdir,
                               ["--heap-base", "first"], "base.txt"),
    }
    log("folder: %s" % res)
    return res


# ------------------------------------------------------------------ report

def human(n):
    for unit in ("B", "KiB", "MiB", "GiB", "TiB"):
        if n < 1024 or unit == "TiB":
            return "%s %s" % (fmt(n, 1).rstrip("0").rstrip("."), unit)
        n /= 1024


def ratios(rounds, key):
    """Each setting's figure over off's of the same round: the median and
    the range, as text."""
    out = {}
    for s in SETTINGS[1:]:
        v = [r[s][key] / r["off"][key] for r in rounds if r["off"][key]]
        out[s] = "%.2f× (%.2f–%.2f%s)" % (
            median(v), min(v), max(v),
            ": not resolved" if min(v) <= 1 <= max(v) else "")
    return out


def report(res, date, tree, seconds):
    rounds = res["rounds"]
    add = []
    add += ["## The server's heap profiling: cost and dumps", "",
            stamp("bench/heap_cost.py", date, tree), "",
            "%s on its own throwaway server, started again in each setting "
            "(%s); %d rounds, the settings interleaved, the order turning "
            "each round. sysbench oltp_point_select, %d threads, %d s a run "
            "(TPS); two statements timed %d times a setting and round "
            "(median): `cte-insert`, a recursive CTE's 20,000 rows of "
            "1,000 bytes INSERTed into a MEMORY table; `user-var`, a "
            "recursive CTE setting a user variable to 100,000 bytes "
            "20,000 times (at least 2 GB allocated and freed). Each figure is the "
            "setting's over off's of the same round: the median and the "
            "range over the rounds." % (
                res["server"], JEMALLOC, ROUNDS, SB_THREADS, SB_S, RUNS),
            ""]
    tps_r = ratios(rounds, "tps")
    st_r = {n: ratios(rounds, n) for n in STATEMENTS}
    rows = [["off", fmt(median([r["off"]["tps"] for r in rounds]), 0),
             "1.00×", "%.2f s" % median([r["off"]["cte-insert"]
                                         for r in rounds]),
             "%.2f s" % median([r["off"]["user-var"] for r in rounds])]]
    conf = {"jemalloc": "LD_PRELOAD, no MALLOC_CONF",
            "prof": "prof:true (lg_prof_sample 19)",
            "recommended": "prof:true, lg_prof_interval:%d"
            % RECOMMENDED_INTERVAL}
    for s in SETTINGS[1:]:
        rows.append(["%s: %s" % (s, conf[s]),
                     fmt(median([r[s]["tps"] for r in rounds]), 0),
                     tps_r[s], st_r["cte-insert"][s] + " the time",
                     st_r["user-var"][s] + " the time"])
    add += [table(["setting", "TPS", "TPS / off", "cte-insert",
                   "user-var"], rows), ""]

    rec = [r["recommended"] for r in rounds]
    up = sum(r["up_s"] for r in rec)
    n = sum(r["dumps"] for r in rec)
    size = sum(r["dump_bytes"] for r in rec)
    fold = res["folder"]
    per_min = n / up * 60
    add += ["Dumps at the recommended setting (lg_prof_interval:%d): %s in %s s up under this bench's load "
            "(%s a minute), %s bytes in all (%s a dump). With "
            "lg_prof_interval:%d (the issue's run), %d runs of `user-var` "
            "left %s dumps, %s bytes (%s dumps a minute up)." % (
                RECOMMENDED_INTERVAL, fmt(n, 0), fmt(up, 0), fmt(per_min, 1),
                fmt(size, 0), fmt(size / n, 0) if n else "n/a",
                FOLDER_INTERVAL, FOLDER_RUNS, fmt(fold["dumps"], 0),
                fmt(fold["dump_bytes"], 0),
                fmt(fold["dumps"] / fold["up_s"] * 60, 0)), ""]
    srows = []
    for interval, r in res["sweep"].items():
        srows.append(["%d (%s)" % (interval, human(2 ** interval)),
                      fmt(r["dumps"], 0), fmt(r["dump_bytes"], 0),
                      fmt(r["dumps"] / SWEEP_RUNS, 1)])
    add += ["The dumps %d runs of `user-var` (20,000 values of 100,000 "
            "bytes a run, at least %s allocated in all) leave at each "
            "lg_prof_interval, the server started again for each: "
            "jemalloc 5.3 writes far more than one each 2^n bytes "
            "(jemalloc/jemalloc#1936 reports the same)." % (
                SWEEP_RUNS, human(SWEEP_RUNS * USER_VAR_BYTES)), "",
            table(["lg_prof_interval (jemalloc's average)", "dumps",
                   "bytes", "dumps a run"], srows), ""]
    hrows = []
    what = {"text": "the newest dump, text",
            "pprof": "the newest dump, --format pprof",
            "base-first": "--heap-base first (the first and the newest)"}
    for k, h in fold["heap"].items():
        hrows.append([what[k], "%.2f s" % h["wall_s"], "%.2f s" % h["cpu_s"],
                      "%s MiB" % fmt(h["maxrss_kb"] / 1024, 1),
                      fmt(h["bytes_out"], 0)])
    add += ["`mysqlmemprof --heap` on that server, its folder of %s dumps "
            "(the newest %s bytes), under bench/rusage:" % (
                fmt(fold["dumps"], 0), fmt(fold["newest_bytes"], 0)), "",
            table(["run", "wall", "CPU", "max RSS", "bytes written"],
                  hrows), ""]
    notes = [line.split("mysqlmemprof: ", 1)[-1] for line in
             fold["heap"]["text"]["stderr"].splitlines()
             if "neither the server nor mysqlmemprof" in line]
    past = fold["dumps"] > 1000 or fold["dump_bytes"] > 2**30
    add += ["Its note on that folder: %s" % (
        "`%s`" % notes[0].replace(res["workdir"], "DIR") if notes
        else "none, though past 1,000 dumps or 1 GiB" if past
        else "none (within 1,000 dumps and 1 GiB)"), ""]
    bound = per_min * 60 * 24 * (size / n if n else 0)
    add += ["What bounds the figures:", "",
            "- The recommended setting's dumps follow the bytes allocated, "
            "not time: at this bench's churn (the statements above, back "
            "to back) it wrote %s a minute, %s MiB a day if kept up; a "
            "server that allocates less writes fewer. Neither the server "
            "nor mysqlmemprof removes a dump: the bound is the folder's "
            "cleanup (tmpfiles.d), or a larger lg_prof_interval." % (
                fmt(per_min, 1), fmt(bound / 2**20, 0)),
            "- Two cores are shared by sysbench, the client, the server "
            "and whatever else the machine runs; a few seconds a run and "
            "%d rounds. A ratio whose range over the rounds spans 1 is "
            "marked not resolved: the load moved more than the setting." %
            ROUNDS,
            "- MySQL 9.7 (Debian's, which links tcmalloc) runs on jemalloc "
            "preloaded, found first; `off` is its tcmalloc."
            if benchlib.SERVER_KIND == "mysql" else
            "- MariaDB 10.11, the host's; `off` is glibc's malloc.", "",
            "Took %s s." % fmt(seconds, 0)]
    return "\n".join(add) + "\n"


def main():
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(1))
    res, date, tree, seconds = run()
    text = report(res, date, tree, seconds)
    sys.stdout.write(text)
    write_section(RESULTS, SECTION, text)
    write_raw(os.path.join(os.path.dirname(RESULTS),
                           "RESULTS-%s.json" % SECTION), res)


def run():
    date, tree = benchlib.now_utc(), benchlib.tree()
    t0 = time.monotonic()
    workdir, helpers = benchlib.workdir_with_helpers("mmp-heap-bench-")
    server = Server()
    root = server_root()
    # The dumps in a folder the server sees: under MySQL's root.
    dumps = tempfile.mkdtemp(prefix="mmp-heap-dumps-", dir=root + "/tmp")
    res = {"server": server.version, "rounds": [], "workdir": dumps}
    try:
        if not os.path.exists(root + JEMALLOC):
            raise RuntimeError("%s is missing in %s: apt-get install "
                               "libjemalloc2" % (JEMALLOC, root or "/"))
        prepare(server)
        for rnd in range(ROUNDS):
            order = SETTINGS[rnd % len(SETTINGS):] + \
                SETTINGS[:rnd % len(SETTINGS)]
            res["rounds"].append({s: one_setting(server, s, dumps)
                                  for s in order})
        res["sweep"] = sweep_phase(server, dumps)
        res["folder"] = folder_phase(server, helpers, dumps)
    finally:
        if not mmp._gone(server.pid):
            end(server)
        server.stop()
        if os.environ.get("MMP_BENCH_KEEP_FILES") != "1":
            shutil.rmtree(workdir, ignore_errors=True)
            shutil.rmtree(dumps, ignore_errors=True)
    return res, date, tree, time.monotonic() - t0


if __name__ == "__main__":
    main()
