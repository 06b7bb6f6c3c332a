#!/usr/bin/env python3
"""make bench, second part: what sampling costs the server it watches.

Runs after bench/run.py, on a throwaway server of its own (the same
tests/sandbox.sh folder, started again with room for 1,000 connections),
and measures:

  workload    sysbench oltp_read_only and oltp_read_write, 2 threads, with
              no sampler, mysqlmemprof, the Python sampler and the bare
              query (bench/floor paced) at 250 and 10 ms, in
              interleaved rounds: TPS and p95 latency as ratios to no
              sampler, with their spread over the rounds
  threads     the server's CPU per sample and the query time against the
              number of connected threads (0 to 1,000 idle connections),
              with the growth per thread; --list at the top level
  statement   mysqlmemprof's statement against the bare memory query, side
              by side at a low thread count (the 1.05x target)
  client      mysqlmemprof's own CPU per sample in json, csv and text
              against the paced bare query and against it writing the
              same bytes (the 1.1x target); its system calls (perf trace,
              else strace); where the time goes (perf: the kernel, the
              client library, libc, the program), with the context
              switches and page faults; and the instructions and the cache
              lines each program runs and touches per sample, counted by
              callgrind, which no other process on the machine moves

Rewrites its section of bench/RESULTS.md whole (overhead, or
overhead-mysql with MMP_SERVER=mysql; the other sections are left as they
are) and the raw runs in RESULTS-overhead[-mysql].json. About 11 minutes on
two cores. Standard library only. MMP_BENCH_QUICK=1 shrinks every run for a
smoke test of a few minutes.
"""
import json
import math
import os
import re
import resource
import shutil
import signal
import subprocess
import sys
import tempfile
import time

import benchlib
from benchlib import (BUILT, MMP, OVERHEAD_SECTION, QUICK, RESULTS,
                      section_name,
                      TARGET_DB, TARGET_PASSWORD, TARGET_USER, TARGET_WORK,
                      USER, Holder, Server, build_helpers, count_headers,
                      fmt, log, median, paired, parse_done, read_floats,
                      read_json, read_section, rounds_text, table,
                      stamp, tool_versions, write_section)

SYSBENCH = shutil.which("sysbench")
TESTS = ["oltp_read_only", "oltp_read_write"]
SB_THREADS = 2
SB_TABLES, SB_ROWS = (2, 1000) if QUICK else (4, 10000)
# The workload's intervals: the popular script's 250 ms, and 10 ms, where
# a sampler's cost shows if anywhere; slower ones were within the
# no-sampler runs' own spread every time, and took a third of the run.
INTERVALS = [250, 10]
WORK_ROUNDS = 1 if QUICK else 3
WORK_S = 1 if QUICK else 5              # sysbench --time per run
READY_S = 30                            # a sampler must connect by then
IDLE_S = 1.0 if QUICK else 2.0          # idle baseline of the server
LEVELS = [0, 100] if QUICK else [0, 100, 500, 1000]
CURVE_S = 1 if QUICK else 4
CURVE_ROUNDS = 1 if QUICK else 2
CURVE_WHO = ["mysqlmemprof", "python", "floor-all-paced"]
LIST_RUNS = 2 if QUICK else 5
COST_ROUNDS = 2 if QUICK else 5
COST_MS = 10
COST_N = 50 if QUICK else 1000
# json, csv and text read the rows each tick (--rows-every 0), the same
# work as floor-paced; json-default reads them as mysqlmemprof does by
# default (a thread's own count each tick where the server keeps one, its
# rows when that moves); floor-write-F is floor-paced writing each sample
# as many bytes as format F does, the one write a sample the other floor
# leaves out.
FORMATS = ["json", "csv", "text"]
# The control: floor writing json's bytes run a second time in each round,
# the same program as its base, so that its ratio to it is what the CPU
# times of this machine can tell apart (an A/A test), printed beside the
# formats' ratios.
CONTROL = "floor-write-json-again"
COST_WHO = (FORMATS + ["json-default", "floor-paced"] +
            ["floor-write-" + f for f in FORMATS] + [CONTROL] +
            ["floor-all-paced"])
BYTES_N = 10 if QUICK else 100          # samples of the bytes' measure
SIDE_S = 1 if QUICK else 2              # floor back to back, per round
INSTR_N = 20 if QUICK else 300          # samples counted under callgrind
# Samples before those: more than the summary's window of 50, so both runs
# end on a full window and the end's summary (over 50 samples in one run,
# fewer in the other) is not counted as the samples' work.
INSTR_WARM = 5 if QUICK else 60
INSTR_WHO = [w for w in COST_WHO if w not in (CONTROL, "floor-all-paced")]
# Callgrind's simulated caches for the cache lines a sample touches: first
# levels of 4 KiB, so that nearly everything a sample uses comes from
# beyond them, as it does on the machine, where the server runs between the
# query and its answer on the same two cores and evicts the client's lines.
CACHE_SIM = ["--cache-sim=yes", "--I1=4096,2,64", "--D1=4096,2,64",
             "--LL=65536,4,64"]
LINE_EVENTS = ["I1mr", "D1mr", "D1mw"]
# Where the client's time goes (perf): who is measured, in how many
# rounds, and perf's sampling period of the CPU clock (ns).
WHERE_WHO = FORMATS + ["floor-paced"] + ["floor-write-" + f for f in FORMATS]
WHERE_ROUNDS = 1
WHERE_PERIOD_NS = 25000
SYSCALLS_BY = {"perf trace": "perf trace (the kernel's tracepoints: the "
               "calls as made at full speed)",
               "strace": "strace (which slows each call: the server's "
               "answer is then there before the first read, whose try "
               "that finds nothing and the poll after it it does not "
               "count)"}
PERF = shutil.which("perf")
STATEMENT_TARGET = 1.05                 # issue 13: server cost per sample
CLIENT_TARGET = 1.1                     # issue 33: client CPU per sample
# MMP_BENCH_ONLY=instr runs the instructions table alone (a minute or two:
# callgrind's counts do not move with the machine's load, so a change to
# the per-sample path can be measured before and after while other work
# runs); MMP_BENCH_ONLY=client the statement, the client's CPU, its
# instructions and its system calls (about 13 minutes); MMP_BENCH_ONLY=parts
# where the statement's cost goes (two minutes). MMP_BENCH_WRITE=1 then
# puts what was run in its place in RESULTS.md.
ONLY = os.environ.get("MMP_BENCH_ONLY") or None

# The configurations of the workload runs: (sampler, interval, label).
# mysqlmemprof samples at the rate asked (--max-load 0), except one row
# with the default --max-load, to show what the bound saves.
CONFIGS = ([("none", None, "no sampler")] +
           [("mysqlmemprof", iv, "mysqlmemprof %d ms" % iv)
            for iv in INTERVALS] +
           [("mysqlmemprof-bounded", 10,
             "mysqlmemprof 10 ms, default --max-load")] +
           [("python", iv, "python %d ms" % iv) for iv in INTERVALS] +
           [("floor-paced", iv, "bare query %d ms" % iv)
            for iv in INTERVALS])


def perf_works():
    """Whether perf can count system calls by their tracepoints and
    sample the CPU clock here (perf_event_paranoid, tracefs, a kernel with
    them): the client's figures then come from it."""
    if PERF is None:
        return False
    with tempfile.TemporaryDirectory() as d:
        trace = subprocess.run([PERF, "trace", "-s", "-o",
                                os.path.join(d, "t"), "true"],
                               capture_output=True)
        rec = subprocess.run([PERF, "record", "-q", "-e", "cpu-clock", "-c",
                              str(WHERE_PERIOD_NS), "-o",
                              os.path.join(d, "r"), "true"],
                             capture_output=True)
    return trace.returncode == 0 and rec.returncode == 0


def where_part(dso, prog):
    """The part of the client an object of perf's report is: the kernel,
    the client library, libc, the program (named prog) or the rest (the
    dynamic loader, the vDSO, libcrypto...)."""
    base = os.path.basename(dso)
    if dso.startswith("[kernel") or dso.startswith("[guest.kernel"):
        return "kernel"
    if base.startswith(("libmariadb", "libmysqlclient")):
        return "library"
    if base.startswith("libc.so"):
        return "libc"
    if base == prog:
        return "program"
    return "other"


class Overhead(benchlib.Bench):
    """The runs of this script, on top of the shared command lines."""

    perf_ok = False

    def sampler_argv(self, who, interval_ms, out_path):
        """A sampler that runs until SIGINT."""
        if who == "mysqlmemprof-bounded":
            a = self.argv("mysqlmemprof", interval_ms, 0)
            i = a.index("--max-load")
            return a[:i] + a[i + 2:]
        return self.argv(who, interval_ms, 0,
                         query_log=out_path + ".query"
                         if who == "python" else None)

    def start(self, argv, out_path):
        """Starts a sampler and returns once it is connected: a Ctrl-C
        during its start-up would end it before its loop (under load the
        Python sampler takes over a second to connect)."""
        before = self.sessions()
        with open(out_path, "w") as out, open(out_path + ".err", "w") as err:
            # SIGINT as the default, even when the runner was started in
            # the background of a script (which ignores it): the Python
            # sampler only answers it then.
            proc = subprocess.Popen(argv, stdin=subprocess.DEVNULL,
                                    stdout=out, stderr=err,
                                    env=benchlib.child_env(),
                                    preexec_fn=lambda: signal.signal(
                                        signal.SIGINT, signal.SIG_DFL))
        deadline = time.monotonic() + READY_S
        while not self.sessions() - before:
            if proc.poll() is not None or time.monotonic() > deadline:
                if proc.poll() is None:
                    proc.kill()
                    proc.wait()
                with open(out_path + ".err") as f:
                    raise RuntimeError("%s did not connect within %d s: %s"
                                       % (os.path.basename(argv[0]),
                                          READY_S, f.read().strip()))
            time.sleep(0.05)
        # From the login to its loop: its first query, the signal handlers.
        time.sleep(0.1)
        return proc

    def sessions(self):
        """The ids of the sampling account's sessions past their login (a
        sampler stopped just before may still be leaving)."""
        return {r[0] for r in self.server.sql(
            "SELECT ID FROM information_schema.PROCESSLIST WHERE "
            "USER = '%s' AND COMMAND <> 'Connect'" % USER)}

    def stop(self, proc, out_path):
        """Ends a sampler the way Ctrl-C would; its CPU time in seconds."""
        if proc.poll() is not None:
            with open(out_path + ".err") as f:
                raise RuntimeError("%s ended early (%d): %s" % (
                    os.path.basename(proc.args[0]), proc.returncode,
                    f.read().strip()))
        proc.send_signal(signal.SIGINT)
        ru = benchlib.reap(proc)
        if proc.returncode != 0:
            with open(out_path + ".err") as f:
                raise RuntimeError("%s exited %d: %s" % (
                    os.path.basename(proc.args[0]), proc.returncode,
                    f.read().strip()))
        return ru.ru_utime + ru.ru_stime

    def samples(self, who, out_path):
        """How many samples a stopped sampler took, and its query times
        (µs): mysqlmemprof's query_us, the Python sampler's query log,
        floor's time in queries shared evenly."""
        if who.startswith("mysqlmemprof"):
            s = read_json(out_path)
            if not s:
                raise RuntimeError("%s: no sample taken" % out_path)
            return len(s), [x["query_us"] for x in s]
        if who == "python":
            q = [t * 1e6 for t in read_floats(out_path + ".query")]
            if not q:
                raise RuntimeError("%s: no sample taken" % out_path)
            return count_headers(out_path), q
        d = parse_done(out_path)
        if d["n"] == 0:
            raise RuntimeError("%s: no sample taken" % out_path)
        return d["n"], [d["query_ns"] / 1e3 / d["n"]] * d["n"]

    # ------------------------------------------------------------ workload

    def sysbench(self, test, action, seconds=None):
        argv = [SYSBENCH, test, "--db-driver=mysql",
                "--mysql-socket=" + self.server.socket,
                "--mysql-user=" + TARGET_USER,
                "--mysql-password=" + TARGET_PASSWORD,
                "--mysql-db=" + TARGET_DB, "--tables=%d" % SB_TABLES,
                "--table-size=%d" % SB_ROWS, "--threads=%d" % SB_THREADS,
                "--percentile=95", "--report-interval=0"]
        if seconds:
            argv += ["--time=%d" % seconds, "--events=0"]
        r = subprocess.run(argv + [action], capture_output=True, text=True,
                           env=benchlib.child_env())
        if r.returncode != 0:
            raise RuntimeError("sysbench %s %s exited %d: %s" % (
                test, action, r.returncode, (r.stderr or r.stdout)[-500:]))
        return r.stdout

    def workload_run(self, test, config):
        """One sysbench run with one sampler beside it."""
        who, interval, _ = config
        proc = out = None
        t0 = time.monotonic()
        if who != "none":
            out = self.path("%s-%s-%d" % (test, who, interval))
            proc = self.start(self.sampler_argv(who, interval, out), out)
        try:
            text = self.sysbench(test, "run", WORK_S)
        finally:
            if proc is not None:
                wall = time.monotonic() - t0
                cpu = self.stop(proc, out)
        m_tps = re.search(r"transactions:\s+\d+\s+\(([\d.]+) per sec", text)
        m_p95 = re.search(r"95th percentile:\s+([\d.]+)", text)
        if not (m_tps and m_p95):
            raise RuntimeError("no TPS or p95 in sysbench's output:\n" + text)
        r = {"tps": float(m_tps.group(1)), "p95_ms": float(m_p95.group(1))}
        if proc is not None:
            n, _ = self.samples(who, out)
            r.update(client_s=cpu, samples=n, rate=n / wall)
        return r

    # ------------------------------------------------------------- threads

    def curve_run(self, who, interval, idle_rate):
        """One sampler for CURVE_S seconds once connected: server CPU per
        sample and the mean query time."""
        out = self.path("curve-%s-%d" % (who, interval))
        proc = self.start(self.sampler_argv(who, interval, out), out)
        s0, t0 = self.server.cpu_s(), time.monotonic()
        time.sleep(CURVE_S)
        self.stop(proc, out)
        t1, s1 = time.monotonic(), self.server.cpu_s()
        n, q = self.samples(who, out)
        return {"n": n, "query_us": sum(q) / len(q),
                "server_us": (s1 - s0 - idle_rate * (t1 - t0)) / n * 1e6}

    def list_run(self, idle_rate):
        """mysqlmemprof --list: the server's CPU and the statements sent,
        from Questions read before and after on a connection of its own."""
        def questions():
            return int(self.server.sql(
                "SHOW GLOBAL STATUS LIKE 'Questions'")[0][1])

        q0 = questions()
        q1 = questions()
        own = q1 - q0                   # what reading it counts itself
        argv = [self.helpers["mysqlmemprof"], "--no-defaults", "-q", "-S",
                self.server.socket, "-u", USER, "--list"]
        s0, t0 = self.server.cpu_s(), time.monotonic()
        r = subprocess.run(argv, stdout=subprocess.DEVNULL,
                           stderr=subprocess.PIPE, text=True,
                           env=benchlib.child_env())
        t1, s1 = time.monotonic(), self.server.cpu_s()
        if r.returncode != 0:
            raise RuntimeError("--list exited %d: %s" % (r.returncode,
                                                         r.stderr.strip()))
        return {"statements": questions() - q1 - own,
                "server_ms": (s1 - s0 - idle_rate * (t1 - t0)) * 1e3,
                "wall_ms": (t1 - t0) * 1e3}

    # ---------------------------------------------------------------- cost

    def cost_argv(self, who, n):
        """n samples at COST_MS: a format of mysqlmemprof, or a floor."""
        if who in FORMATS:
            return self.argv("mysqlmemprof", COST_MS, n, fmt=who,
                             rows_every=0)
        if who == "json-default":
            return self.argv("mysqlmemprof", COST_MS, n, fmt="json")
        if who == CONTROL:
            return self.cost_argv("floor-write-json", n)
        if who.startswith("floor-write-"):
            return self.argv("floor-paced", COST_MS, n,
                             write=self.bytes[who[len("floor-write-"):]])
        return self.argv(who, COST_MS, n)

    def measure_bytes(self):
        """The bytes each format writes a sample after the first: a run
        of BYTES_N + 1 samples less a run of one, per sample."""
        self.bytes = {}
        for f in FORMATS:
            size = {}
            for n in (1, BYTES_N + 1):
                out = self.path("bytes-%s-%d" % (f, n))
                with open(out, "w") as fp:
                    subprocess.run(self.cost_argv(f, n), stdout=fp,
                                   stdin=subprocess.DEVNULL,
                                   env=benchlib.child_env(), check=True)
                size[n] = os.path.getsize(out)
            self.bytes[f] = int(round((size[BYTES_N + 1] - size[1]) /
                                      BYTES_N))
        return self.bytes

    def cost_run(self, who):
        """COST_N samples at COST_MS: client and server CPU per sample,
        the whole process (start-up included) as run.py counts it, user
        and system time apart; and with start-up left out, less a run of
        one sample, per sample after the first."""
        r = self.measured(self.cost_argv(who, COST_N),
                          self.path("cost-" + who))
        one = self.measured(self.cost_argv(who, 1), self.path("cost1-" + who))
        return {"client_us": r["client"] / COST_N * 1e6,
                "client_steady_us": (r["client"] - one["client"]) /
                (COST_N - 1) * 1e6,
                "user_us": r["user"] / COST_N * 1e6,
                "sys_us": r["sys"] / COST_N * 1e6,
                "server_s": r["server"], "wall": r["wall"]}

    def syscall_run(self, who):
        """The system calls a process makes per sample, by name, in runs
        of their own: a run of INSTR_N + INSTR_WARM samples less a run of
        INSTR_WARM, per sample. Counted by perf trace (the kernel's
        tracepoints: the calls as made at full speed) where it works, else
        by strace -c, which slows each call enough that the server's
        answer is there before the first read: its counts lack the read
        that finds nothing yet and the poll after it."""
        def count(n):
            out = self.path("syscalls-%s-%d" % (who, n))
            tool = (["perf", "trace", "-s", "-o", out + ".st"] if
                    self.perf_ok else ["strace", "-f", "-c", "-o",
                                       out + ".st"])
            subprocess.run(tool + self.cost_argv(who, n),
                           stdin=subprocess.DEVNULL,
                           stdout=subprocess.DEVNULL,
                           env=benchlib.child_env(), check=True)
            calls = {}
            with open(out + ".st") as f:
                for line in f:
                    p = line.split()
                    if self.perf_ok:
                        # syscall, calls, errors, total, min, avg, ...
                        if len(p) >= 3 and p[1].isdigit() and \
                                re.match(r"^[a-z_0-9]+$", p[0]):
                            calls[p[0]] = calls.get(p[0], 0) + int(p[1])
                    # % time, seconds, usecs/call, calls, [errors,] name
                    elif len(p) >= 5 and p[0][0].isdigit() and \
                            p[-1] != "total":
                        calls[p[-1]] = int(p[3])
            return calls
        big, small = count(INSTR_N + INSTR_WARM), count(INSTR_WARM)
        per = {k: (big.get(k, 0) - small.get(k, 0)) / INSTR_N
               for k in set(big) | set(small)}
        return {k: v for k, v in per.items() if abs(v) >= 0.005}

    def where_run(self, who):
        """Where a sample's CPU time goes, by perf in runs of their own:
        the CPU clock (task-clock), context switches and page faults per
        sample (perf stat, a run of COST_N samples less a run of one),
        and the shares of that time in the kernel, the client library,
        libc, the program and the rest (perf record sampling the CPU
        clock every WHERE_PERIOD_NS, the samples of the one-sample run
        taken from the long run's, object by object)."""
        def stat(n):
            out = self.path("perfstat-%s-%d" % (who, n))
            subprocess.run(["perf", "stat", "-x,", "-o", out, "-e",
                            "task-clock,context-switches,page-faults"] +
                           self.cost_argv(who, n), stdin=subprocess.DEVNULL,
                           stdout=subprocess.DEVNULL,
                           env=benchlib.child_env(), check=True)
            r = {}
            with open(out) as f:
                for line in f:
                    p = line.strip().split(",")
                    if len(p) > 2 and re.match(r"^[0-9.]+$", p[0]):
                        r[p[2]] = float(p[0])
            return r

        def shares(n):
            out = self.path("perfrec-%s-%d" % (who, n))
            subprocess.run(["perf", "record", "-q", "-e", "cpu-clock", "-c",
                            str(WHERE_PERIOD_NS), "-o", out + ".data"] +
                           self.cost_argv(who, n), stdin=subprocess.DEVNULL,
                           stdout=subprocess.DEVNULL,
                           env=benchlib.child_env(), check=True)
            r = subprocess.run(["perf", "report", "-i", out + ".data",
                                "--stdio", "-n", "--sort", "dso"],
                               capture_output=True, text=True, check=True)
            got = {}
            prog = os.path.basename(self.cost_argv(who, n)[0])
            for line in r.stdout.splitlines():
                m = re.match(r"\s*[\d.]+%\s+(\d+)\s+(\S+)", line)
                if m:
                    part = where_part(m.group(2), prog)
                    got[part] = got.get(part, 0) + int(m.group(1))
            return got
        big, small = stat(COST_N), stat(1)
        per = {k: (big[k] - small.get(k, 0)) / (COST_N - 1) for k in big}
        sb, ss = shares(COST_N), shares(1)
        parts = {k: max(0, sb.get(k, 0) - ss.get(k, 0))
                 for k in set(sb) | set(ss)}
        n = sum(parts.values())
        # task-clock is in ms: per sample in µs.
        cpu_us = per["task-clock"] * 1000
        return {"cpu_us": cpu_us, "switches": per["context-switches"],
                "faults": per["page-faults"], "perf_samples": n,
                "parts_us": {k: cpu_us * v / n for k, v in parts.items()}
                if n else {}}

    def instr_run(self, who):
        """The instructions the process runs in user space per sample,
        counted by callgrind: a run of INSTR_N + INSTR_WARM samples less a
        run of INSTR_WARM, per sample, so that what only the first samples
        do (the first deltas, a library symbol looked up at its first
        call) is left out. Exact and the same from run to run, where CPU
        time moves with everything else on the machine; the kernel's part
        (the same socket calls for both, and one write for mysqlmemprof)
        is not in it. Returns the total and the part of it run in the
        client library and in libc (callgrind_annotate's functions by
        object file); the rest is the program's own code."""
        def count(n):
            out = self.path("instr-%s-%d" % (who, n))
            subprocess.run(["valgrind", "--tool=callgrind", "-q"] +
                           CACHE_SIM +
                           ["--callgrind-out-file=" + out + ".cg"] +
                           self.cost_argv(who, n),
                           stdin=subprocess.DEVNULL,
                           stdout=subprocess.DEVNULL, env=benchlib.child_env(),
                           check=True)
            events = totals = None
            with open(out + ".cg") as f:
                for line in f:
                    if line.startswith("events:"):
                        events = line.split()[1:]
                    elif line.startswith(("summary:", "totals:")):
                        totals = [int(x) for x in line.split()[1:]]
                        break
            if events is None or totals is None:
                raise RuntimeError("no total in callgrind's output " + out)
            total = dict(zip(events, totals))
            shown = ["Ir"] + LINE_EVENTS
            r = subprocess.run(["callgrind_annotate", "--inclusive=no",
                                "--auto=no", "--threshold=100",
                                "--show=" + ",".join(shown),
                                out + ".cg"], capture_output=True, text=True,
                               check=True)
            lib = [0] * len(shown)
            libc = [0] * len(shown)
            for line in r.stdout.splitlines():
                m = re.match(r"(.*?)\s(\S*:\S*) \[(.*)\]\s*$", line)
                if not m:
                    continue
                # Each event's count, "." for none, its share in brackets.
                nums = [0 if x == "." else int(x.replace(",", ""))
                        for x in m.group(1).split()
                        if x == "." or re.match(r"^[\d,]+$", x)]
                if len(nums) != len(shown):
                    continue
                obj = os.path.basename(m.group(3))
                into = (lib if obj.startswith(("libmariadb",
                                               "libmysqlclient")) else
                        libc if obj.startswith("libc.so") else None)
                if into is not None:
                    for i, v in enumerate(nums):
                        into[i] += v

            def lines(v):
                return sum(v[1:])
            return (total["Ir"], lib[0], libc[0],
                    sum(total.get(e, 0) for e in LINE_EVENTS),
                    lines(lib), lines(libc))
        big, small = count(INSTR_N + INSTR_WARM), count(INSTR_WARM)
        per = [(b - s) / INSTR_N for b, s in zip(big, small)]
        return {"total": per[0], "library": per[1], "libc": per[2],
                "lines": per[3], "lines_library": per[4],
                "lines_libc": per[5]}


def slope(xs, ys):
    """Least-squares slope of ys against xs."""
    mx, my = sum(xs) / len(xs), sum(ys) / len(ys)
    sxx = sum((x - mx) ** 2 for x in xs)
    return (sum((x - mx) * (y - my) for x, y in zip(xs, ys)) / sxx
            if sxx else None)


def spread_ratio(runs, base, key):
    """Round by round ratio to base's run of the same round: 'median
    (min–max)'."""
    r = [a[key] / b[key] for a, b in zip(runs, base) if b[key]]
    if not r:
        return "n/a"
    return "%.2f (%.2f–%.2f)" % (median(r), min(r), max(r))


# ------------------------------------------------------------------ report

def instr_report(ins, alone=None, bytes_=None):
    """The subsection "Instructions per sample by format", as lines; none
    without callgrind's counts. alone: (date, tree) of an
    MMP_BENCH_ONLY=instr run, which names its own tree, not the section's."""
    if not ins:
        return []
    lines = []
    add = lines.append
    add("### Instructions per sample by format")
    add("")
    if alone:
        add(stamp("MMP_BENCH_ONLY=instr bench/overhead.py", *alone) +
            " This table alone: the rest of the section is from the run "
            "named at its top.")
        add("")
    add("The same programs under callgrind, %d samples every %d ms: "
        "the instructions each runs in user space per sample (a run of "
        "%d samples less a run of %d, both ending on a full window of "
        "the summary, so that only per-sample work is left), libraries "
        "included, the kernel not. One run each: the count does not move with the machine's "
        "load, as the CPU times above do." % (INSTR_N, COST_MS,
                                              INSTR_N + INSTR_WARM,
                                              INSTR_WARM))
    add("")
    bytes_ = bytes_ or {}

    def total(w):
        v = ins.get(w)
        return v["total"] if isinstance(v, dict) else v

    def parts(w):
        v = ins.get(w)
        if not isinstance(v, dict):
            return ["", "", ""]
        return [fmt(v["library"], 0), fmt(v["libc"], 0),
                fmt(v["total"] - v["library"] - v["libc"], 0)]
    base = total("floor-paced")

    def writing(f):
        w = total("floor-write-" + f)
        return "%.3f" % (total(f) / w) if w else ""
    # Three decimals: the target is 1.1, and 1.10 would hide which side.
    rows = [["mysqlmemprof --format %s (--rows-every 0)" % f,
             fmt(total(f), 0), "%.3f" % (total(f) / base), writing(f)] +
            parts(f) for f in FORMATS]
    if "json-default" in ins:
        rows.append(["mysqlmemprof --format json, default --rows-every",
                     fmt(total("json-default"), 0),
                     "%.3f" % (total("json-default") / base), ""] +
                    parts("json-default"))
    rows.append(["paced bare query (floor-paced)", fmt(base, 0), "1.000",
                 ""] + parts("floor-paced"))
    for f in FORMATS:
        w = total("floor-write-" + f)
        if w:
            rows.append(["floor-paced writing %s bytes a sample (%s's)" %
                         (fmt(bytes_.get(f), 0), f), fmt(w, 0),
                         "%.3f" % (w / base), "1.000"] +
                        parts("floor-write-" + f))
    add(table(["sampler", "instructions per sample", "÷ floor-paced",
               "÷ floor writing", "in the client library", "in libc",
               "in the program"], rows))
    add("")
    add("- Both read the same rows through the same library calls, "
        "integers as integers. The statement's four columns, the same "
        "in every row, mysqlmemprof binds as dummies that Connector/C "
        "steps over and reads from the first row alone (src/conn_stmt.c), "
        "where floor has them converted in every row: its part in the "
        "client library is the smaller by that. The rest of the "
        "difference is mysqlmemprof's own work per sample: each row "
        "handed to its reader, the top-N, the deltas, the run statistics "
        "and the formatting. The kernel's part, left out here, is the "
        "same socket calls for both and one write per sample for "
        "mysqlmemprof.")
    add("- The target idles: most of its events do not move between "
        "samples, so the deltas pass over them, and JSON and CSV copy "
        "what they wrote of an unchanged top event (and JSON of an "
        "unchanged statement) instead of writing it again. A busy "
        "thread's events move every sample: each is compared, found "
        "changed and written whole, so a busy thread costs more a "
        "sample than this idle one.")
    lines += lines_report(ins, bytes_)
    return lines


def lines_report(ins, bytes_):
    """The cache lines a sample touches, from the same callgrind runs
    (CACHE_SIM), as lines of a table and its note; none from a run
    without the simulation."""
    if not all(isinstance(v, dict) and "lines" in v for v in ins.values()):
        return [""]
    out = ["", "Under the same runs callgrind simulated caches whose first "
           "levels hold 4 KiB (%s): the cache lines of 64 bytes each "
           "sample brought in from beyond them, code (I1mr) and data read "
           "and written (D1mr, D1mw), a measure of how much code and data "
           "one sample touches. On the machine the server runs between "
           "the query and its answer, on the same two cores, and evicts "
           "most of them: a sample starts cold, and pays for each line it "
           "touches, where instructions that stay in the first level cost "
           "little. In caches this small one part's lines evict another's: "
           "the client library's count grows with what the program touches "
           "between its calls, so the split says where the misses fell, not "
           "whose code or data it was." % " ".join(CACHE_SIM[1:]), ""]

    def row(label, w, base=None):
        v = ins[w]
        return [label, fmt(v["lines"], 0),
                "%.2f" % (v["lines"] / ins[base]["lines"]) if base else "",
                fmt(v["lines_library"], 0), fmt(v["lines_libc"], 0),
                fmt(v["lines"] - v["lines_library"] - v["lines_libc"], 0)]
    rows = [row("mysqlmemprof --format %s (--rows-every 0)" % f, f,
                "floor-write-" + f) for f in FORMATS if f in ins]
    if "json-default" in ins:
        rows.append(row("mysqlmemprof --format json, default --rows-every",
                        "json-default"))
    rows.append(row("paced bare query (floor-paced)", "floor-paced"))
    rows += [row("floor-paced writing %s bytes a sample (%s's)" %
                 (fmt(bytes_.get(f), 0), f), "floor-write-" + f)
             for f in FORMATS if "floor-write-" + f in ins]
    out.append(table(["sampler", "cache lines per sample",
                      "÷ floor writing", "in the client library",
                      "in libc", "in the program"], rows))
    out.append("")
    return out


def per_sample(res, who):
    """The paced runs of who, per sample: the server's CPU less its idle
    rate, the client's CPU whole and apart."""
    return [{"server_us": (r["server_s"] - r["idle"] * r["wall"]) /
             COST_N * 1e6, "client_us": r["client_us"],
             "client_steady_us": r["client_steady_us"],
             "user_us": r.get("user_us"), "sys_us": r.get("sys_us")}
            for r in res["cost"][who]]


def statement_report(res):
    """The subsection on mysqlmemprof's statement against the bare memory
    query, as lines."""
    lines = []
    add = lines.append
    side = res["side"]
    add("### mysqlmemprof's statement against the bare memory query")
    add("")
    add("At %s threads (no idle connections). *paced*: each program takes "
        "%d samples every %d ms (whole processes); *back to back*: floor "
        "sends the statement for %d s, CPU read around its loop only "
        "(run.py's query alternatives). mysqlmemprof's statement is the one "
        "it prepared once and executed each sample, captured from the "
        "general log and sent by floor the same way (it also reads the "
        "thread's current statement); the bare memory query asks for every "
        "memory row of the thread. mysqlmemprof runs with --rows-every 0 "
        "(the rows each tick: the same work as the floors), and once as it "
        "does by default. %d rounds; ratios round by round, median "
        "(lowest–highest)."
        % (fmt(res["side_threads"], 0), COST_N, COST_MS, SIDE_S,
           COST_ROUNDS))
    add("")
    mj, md, fp, fa = (per_sample(res, "json"),
                      per_sample(res, "json-default"),
                      per_sample(res, "floor-paced"),
                      per_sample(res, "floor-all-paced"))
    b2b_m, b2b_a = side[MMP[0]], side["all"]
    rows = [
        ["mysqlmemprof (json, --rows-every 0), paced", fmt(median(
            [r["server_us"] for r in mj])),
         spread_ratio(mj, fa, "server_us")],
        ["mysqlmemprof (json, default), paced", fmt(median(
            [r["server_us"] for r in md])),
         spread_ratio(md, fa, "server_us")],
        ["its statement alone (floor), paced", fmt(median(
            [r["server_us"] for r in fp])),
         spread_ratio(fp, fa, "server_us")],
        ["bare memory query (floor), paced", fmt(median(
            [r["server_us"] for r in fa])), "1.00"],
        ["its statement alone (floor), back to back", fmt(median(
            [r["server_us"] for r in b2b_m])),
         spread_ratio(b2b_m, b2b_a, "server_us")],
        ["bare memory query (floor), back to back", fmt(median(
            [r["server_us"] for r in b2b_a])), "1.00"],
    ]
    add(table(["what", "server µs per sample", "÷ bare memory query"],
              rows))
    add("")
    r_paced = paired(fp, fa, "server_us")
    r_prog = paired(mj, fa, "server_us")
    r_def = paired(md, fa, "server_us")
    r_b2b = paired(b2b_m, b2b_a, "server_us")
    ok = r_paced[0] <= STATEMENT_TARGET and r_b2b[0] <= STATEMENT_TARGET

    def cheaper(r):
        return rounds_text(r[1], r[2]).replace("lower", "cheaper")
    add("- Target: the server's cost per sample within %.2f× of the bare "
        "memory query at low thread counts. mysqlmemprof's statement: "
        "%.2f× paced (%s), %.2f× back to back (%s); the whole program "
        "%.2f× (%s), %.2f× as it runs by default (%s). **%s.** The "
        "server's CPU is read in 10 ms ticks; a difference smaller than "
        "the rounds' spread is not resolved."
        % (STATEMENT_TARGET, r_paced[0], cheaper(r_paced), r_b2b[0],
           cheaper(r_b2b), r_prog[0], cheaper(r_prog), r_def[0],
           cheaper(r_def), "Met" if ok else "Not met"))
    add("")
    return lines


PARTS = [
    ("bare", "bare memory query (every row of the thread), text"),
    ("bare-prepared", "the same, prepared (binary protocol)"),
    ("in-use-prepared", "the same, only the rows in use (COUNT_ALLOC or "
     "COUNT_FREE above 0), prepared"),
    ("no-statement", "mysqlmemprof's statement without the thread's "
     "statement (as it sends it with events_statements_current off)"),
    ("whole", "mysqlmemprof's statement"),
]


def parts_report(res):
    """The subsection on the statement's parts, as lines; none without
    them."""
    P = res.get("parts")
    if not P:
        return []
    lines = []
    add = lines.append
    add("### Where the statement's cost goes")
    add("")
    add("floor sends each statement back to back for %d s, the server's "
        "CPU read around its loop less its idle rate (as *back to back* "
        "above); %d rounds, each in a rotated order; ratios round by "
        "round against the bare memory query as text, median "
        "(lowest–highest). The two statements of mysqlmemprof are the ones "
        "it prepared, captured from the general log."
        % (SIDE_S, len(P["bare"])))
    add("")
    rows = [[label, fmt(median([r["rows"] for r in P[k]]), 0),
             fmt(median([r["server_us"] for r in P[k]])),
             spread_ratio(P[k], P["bare"], "server_us")
             if k != "bare" else "1.00"] for k, label in PARTS]
    add(table(["statement", "rows", "server µs per statement",
               "÷ bare memory query"], rows))
    add("")

    def med(k):
        return median([r["server_us"] for r in P[k]])
    add("- mysqlmemprof's statement less the same without the thread's "
        "statement: %s µs, what reading the thread's statement (its "
        "events_statements_current row, joined to the memory rows) "
        "costs; without it less the bare query prepared: %s µs, what the "
        "thread's row and the filter to the rows in use cost or save; the "
        "bare query prepared less as text: %s µs, the binary protocol's "
        "part."
        % (fmt(med("whole") - med("no-statement")),
           fmt(med("no-statement") - med("bare-prepared")),
           fmt(med("bare-prepared") - med("bare"))))
    add("")
    return lines


def client_report(res):
    """The subsections of the statement, the client's CPU per sample by
    format and the instructions per sample, as lines."""
    lines = statement_report(res) + parts_report(res)
    add = lines.append
    fp = per_sample(res, "floor-paced")
    load = res.get("load_client") or res["load"]
    add("### Client CPU per sample by format")
    add("")
    add("mysqlmemprof --top 4 --rows-every 0 (the rows each tick), %d "
        "samples every %d ms, whole process (start-up included), against "
        "floor sending mysqlmemprof's statement on the same schedule with "
        "no formatting (run.py's *floor-paced*), and against floor doing "
        "the same and writing each sample as many bytes as the format "
        "does, in one write flushed to its standard output, a file "
        "(*floor writing*: the one write a sample mysqlmemprof makes and "
        "floor-paced does not). *default* is mysqlmemprof as it runs by "
        "default (a thread's own count each tick where the server keeps "
        "one, its rows when that moves), not comparable with the floors. "
        "User and system: the run's ru_utime and ru_stime (getrusage: the "
        "kernel splits the exact total by 4 ms ticks, so each alone is "
        "approximate; perf's split is below). Syscalls: per sample after "
        "the first, counted by %s in runs of their own. %d rounds, "
        "interleaved; ratios round by round, median (lowest–highest). Load "
        "average %s before these runs, %s after; what else runs on the two "
        "cores moves the CPU times, not the instructions nor the calls."
        % (COST_N, COST_MS, SYSCALLS_BY.get(res.get("syscalls_by",
                                                      "strace")),
           COST_ROUNDS, load[0], load[1]))
    add("")
    bytes_ = res.get("bytes", {})
    sysc = res.get("syscalls", {})

    def calls(who):
        c = sysc.get(who)
        if not c:
            return ""
        return "%.2f (%s)" % (sum(c.values()), ", ".join(
            "%s %.2f" % (k, v) for k, v in sorted(
                c.items(), key=lambda kv: -kv[1]) if v >= 0.05))

    def row(label, who, base=fp, wbase=None, verdict=None):
        rs = per_sample(res, who)
        return [label, fmt(median([x["client_us"] for x in rs])),
                spread_ratio(rs, base, "client_us") if base is not rs
                else "1.00",
                fmt(median([x["client_steady_us"] for x in rs])),
                spread_ratio(rs, base, "client_steady_us")
                if base is not rs else "1.00",
                spread_ratio(rs, wbase, "client_us") if wbase else "",
                fmt(median([x["user_us"] for x in rs])),
                fmt(median([x["sys_us"] for x in rs])),
                calls(who), verdict or ""]

    rows = []
    verdicts = []
    for f in FORMATS:
        rs = per_sample(res, f)
        fw = per_sample(res, "floor-write-" + f)
        r = paired(rs, fp, "client_us")
        rw = paired(rs, fp, "client_steady_us")
        rb = paired(rs, fw, "client_us")
        verdicts.append("%s %.2f× (%.2f× start-up left out; %.2f× the "
                        "floor writing its %s bytes)" %
                        (f, r[0], rw[0], rb[0], fmt(bytes_.get(f), 0)))
        rows.append(row("mysqlmemprof --format %s" % f, f, wbase=fw,
                        verdict="%s; %s writing" % (
                            "met" if max(r[0], rw[0]) <= CLIENT_TARGET
                            else "not met",
                            "met" if rb[0] <= CLIENT_TARGET
                            else "not met")))
    rows.append(row("mysqlmemprof --format json, default --rows-every",
                    "json-default",
                    wbase=per_sample(res, "floor-write-json")))
    rows.append(row("paced bare query (floor-paced)", "floor-paced", fp))
    for f in FORMATS:
        w = "floor-write-" + f
        rows.append(row("floor-paced writing %s bytes a sample (%s's)"
                        % (fmt(bytes_.get(f), 0), f), w,
                        wbase=per_sample(res, w)))
    control = res["cost"].get(CONTROL)
    if control:
        rows.append(row("the same again, json's bytes (control)", CONTROL,
                        wbase=per_sample(res, "floor-write-json")))
    add(table(["sampler", "client µs per sample", "÷ floor-paced",
               "start-up left out (µs)", "÷ floor-paced",
               "÷ floor writing", "user µs", "system µs",
               "syscalls per sample", "within %.1f× (floor-paced; "
               "writing)" % CLIENT_TARGET], rows))
    add("")
    add("- Target: client CPU per sample within %.1f× of the paced bare "
        "query, with start-up and without, and of the floor writing the "
        "same bytes: %s. Start-up left out is the run's CPU less a "
        "one-sample run's, per sample after the first: what each further "
        "sample costs.%s" % (CLIENT_TARGET, ", ".join(verdicts),
                             control_text(res)))
    add("")
    lines += where_report(res)
    lines += instr_report(res.get("instr", {}), None, bytes_)
    return lines


def control_text(res):
    """What the control says of the CPU times' resolution, or nothing
    where the run had none."""
    if not res["cost"].get(CONTROL):
        return ""
    runs = per_sample(res, CONTROL)
    base = per_sample(res, "floor-write-json")
    return (" The control, the same floor writing json's bytes run twice "
            "in each round: %s of itself, round by round: what separates "
            "two runs of one program here, against which a format's ratio "
            "is read." % spread_ratio(runs, base, "client_us"))


WHERE_PARTS = [("kernel", "the kernel"), ("library", "client library"),
               ("libc", "libc"), ("program", "the program"),
               ("other", "the rest")]


def where_report(res):
    """The subsection "Where the client's time goes", as lines; none
    without perf's runs."""
    W = res.get("where")
    if not W or not all(W.get(w) for w in WHERE_WHO):
        return []
    lines = []
    add = lines.append
    add("### Where the client's time goes")
    add("")
    add("The same programs under perf, %d samples every %d ms, in runs of "
        "their own, %d round(s) in a rotated order, medians: the CPU time "
        "per sample after the first (perf stat's task-clock, the "
        "scheduler's exact count: a run of %d samples less a run of one), "
        "split by where the CPU was when perf sampled its clock every %d µs "
        "(perf record: the kernel, the client library, libc, the program's "
        "own code, the rest: the loader, the vDSO, libcrypto), the "
        "one-sample run's samples taken from the long run's; and the "
        "context switches and page faults per sample."
        % (COST_N, COST_MS, len(W[WHERE_WHO[0]]), COST_N,
           WHERE_PERIOD_NS // 1000))
    add("")

    def med(w, f):
        return median([f(r) for r in W[w]])

    def part(w, k):
        return med(w, lambda r: r["parts_us"].get(k, 0.0))
    rows = []
    for w in WHERE_WHO:
        label = ("mysqlmemprof --format %s" % w if w in FORMATS else
                 "paced bare query (floor-paced)" if w == "floor-paced"
                 else "floor-paced writing %s's bytes" %
                 w[len("floor-write-"):])
        base = "floor-write-" + w if w in FORMATS else None
        rows.append([label, fmt(med(w, lambda r: r["cpu_us"])),
                     "%.2f" % (med(w, lambda r: r["cpu_us"]) /
                               med(base, lambda r: r["cpu_us"]))
                     if base else ""] +
                    [fmt(part(w, k)) for k, _ in WHERE_PARTS] +
                    ["%.2f" % med(w, lambda r: r["switches"]),
                     "%.2f" % med(w, lambda r: r["faults"])])
    add(table(["sampler", "CPU µs per sample", "÷ floor writing"] +
              ["%s µs" % label for _, label in WHERE_PARTS] +
              ["context switches", "page faults"], rows))
    add("")
    diffs = []
    for f in FORMATS:
        fw = "floor-write-" + f
        d = {k: part(f, k) - part(fw, k) for k, _ in WHERE_PARTS}
        diffs.append("%s %s µs more in all, of them %s" % (
            f, fmt(med(f, lambda r: r["cpu_us"]) -
                   med(fw, lambda r: r["cpu_us"])),
            ", ".join("%s %s" % (label, fmt(d[k]))
                      for k, label in WHERE_PARTS)))
    add("- Against the floor writing the same bytes: %s (µs a sample)."
        % "; ".join(diffs))
    add("")
    return lines


def report(res):
    lines = []
    add = lines.append
    add("## Overhead on the server%s (bench/overhead.py)" % (
        ", MySQL" if benchlib.SERVER_KIND == "mysql" else ""))
    add("")
    add(stamp("bench/overhead.py", res["date"], res["versions"]["tree"]))
    add("")
    add("sysbench %s; %s %s on its own throwaway server (started with "
        "--max-connections=%d). Load average %s before, %s after. Raw runs "
        "in RESULTS-%s.json."
        % (res["sysbench"],
           "MySQL" if benchlib.SERVER_KIND == "mysql" else "MariaDB",
           res["server_version"], res["max_connections"], res["load"][0],
           res["load"][1], section_name(OVERHEAD_SECTION)))
    add("")

    # Workload.
    add("### A real workload beside the samplers")
    add("")
    add("sysbench %s, %d threads, %d tables of %s rows, %d s per run, %d "
        "rounds; in each round every configuration runs once, in a rotated "
        "order. Every sampler watches the same idle `loader` connection "
        "(thread %d); *bare query* is floor sending mysqlmemprof's statement "
        "on the same schedule, with no formatting (run.py's floor-paced). "
        "Ratios: the run's figure ÷ the no-sampler run of the "
        "same round and test, median (lowest–highest) over the rounds; TPS "
        "under 1 and p95 over 1 mean the sampler slowed the workload. "
        "Each sampler starts before sysbench and is stopped (SIGINT) after "
        "it. Sampler CPU: its whole process (start-up included); "
        "samples/s: what it took over its run."
        % (" and ".join(TESTS), SB_THREADS, SB_TABLES, fmt(SB_ROWS, 0),
           WORK_S, WORK_ROUNDS, res["thread"]))
    add("")
    for test in TESTS:
        runs = res["workload"][test]
        base = runs["none"]
        rows = []
        for who, iv, label in CONFIGS:
            key = "none" if who == "none" else "%s/%d" % (who, iv)
            rs = runs[key]
            rows.append([label, fmt(median([r["tps"] for r in rs])),
                         spread_ratio(rs, base, "tps"),
                         fmt(median([r["p95_ms"] for r in rs]), 2),
                         spread_ratio(rs, base, "p95_ms"),
                         fmt(median([r["client_s"] for r in rs]), 3)
                         if who != "none" else "",
                         fmt(median([r["rate"] for r in rs]))
                         if who != "none" else ""])
        add("**%s**" % test)
        add("")
        add(table(["sampler", "TPS", "TPS ÷ none", "p95 (ms)", "p95 ÷ none",
                   "sampler CPU per run (s)", "samples/s"], rows))
        add("")
    noise = []
    for test in TESTS:
        t = [r["tps"] for r in res["workload"][test]["none"]]
        noise.append("%s %.0f–%.0f TPS" % (test, min(t), max(t)))
    add("- The no-sampler runs themselves varied: %s over the rounds; a "
        "ratio inside that spread is noise." % ", ".join(noise))
    add("")

    # Threads.
    C = res["curve"]
    add("### Cost of one sample against the number of threads")
    add("")
    add("Idle connections held open by bench/hold. At each level every "
        "sampler runs for %d s at the same interval (at least 10 ms, and "
        "about four times the bare query's back-to-back latency at that "
        "level, so no tick is skipped), %d round(s), medians. Server µs per "
        "sample: mysqld's CPU time (/proc/PID/stat) from the sampler's "
        "login to its end, minus the server's idle rate, divided by its "
        "samples. Query µs: the mean time of one query as each sampler "
        "sees it (mysqlmemprof's query_us, the Python sampler's execute "
        "and fetch, floor's time in mysql_query and the fetch). *bare* is "
        "the bare memory query (every row of the thread), paced."
        % (CURVE_S, CURVE_ROUNDS))
    add("")
    names = {"mysqlmemprof": "mysqlmemprof", "python": "python",
             "floor-all-paced": "bare"}
    header = ["idle connections", "threads", "interval (ms)"]
    header += ["%s server µs/sample" % names[w] for w in CURVE_WHO]
    header += ["%s query µs" % names[w] for w in CURVE_WHO]
    rows = []
    for lvl in LEVELS:
        c = C[str(lvl)]
        rows.append([fmt(lvl, 0), fmt(c["threads"], 0),
                     fmt(c["interval"], 0)] +
                    [fmt(c[w]["server_us"]) for w in CURVE_WHO] +
                    [fmt(c[w]["query_us"]) for w in CURVE_WHO])
    threads = [C[str(lvl)]["threads"] for lvl in LEVELS]
    srow = ["growth per thread (least squares)", "", ""]
    srow += ["%s µs" % fmt(slope(threads, [C[str(lvl)][w]["server_us"]
                                           for lvl in LEVELS]), 2)
             for w in CURVE_WHO]
    srow += ["%s µs" % fmt(slope(threads, [C[str(lvl)][w]["query_us"]
                                           for lvl in LEVELS]), 2)
             for w in CURVE_WHO]
    rows.append(srow)
    add(table(header, rows))
    add("")
    top = C[str(LEVELS[-1])]
    per = top["mysqlmemprof"]["server_us"]
    add("- At %s threads one mysqlmemprof sample costs the server %s µs: "
        "every 250 ms that is %.1f%% of a core, every 100 ms %.1f%%, every "
        "10 ms %.0f%% (--max-load, 10%% by default, skips ticks beyond "
        "its share)."
        % (fmt(top["threads"], 0), fmt(per), per / 2500.0, per / 1000.0,
           per / 100.0))
    lst = res["list"]
    add("- `--list` at %s threads (%d runs, medians): %s statement(s) sent "
        "(the server's Questions counter, read before and after from "
        "another connection), %s ms of server CPU (connecting included), "
        "%s ms from start to exit."
        % (fmt(top["threads"], 0), len(lst),
           fmt(median([r["statements"] for r in lst]), 0),
           fmt(median([r["server_ms"] for r in lst])),
           fmt(median([r["wall_ms"] for r in lst]))))
    add("")

    lines += client_report(res)
    add("### What limits these figures")
    add("")
    add("- Two cores are shared by sysbench, the server and the sampler: a "
        "sampler's own CPU can cost TPS as much as its queries do, and "
        "whatever else runs on the machine moves every figure (see the load "
        "average above and the no-sampler spread).")
    add("- The server's CPU comes from /proc in ticks of 10 ms: a run of %d "
        "samples knows its server time per sample to about ±%s µs; the "
        "thread curve's runs to about ±10 ms over their samples."
        % (COST_N, fmt(1e4 / COST_N)))
    add("- The thread curve's server figures start once the sampler has "
        "logged in (seen in the processlist): its first sample or two, and "
        "mysqlmemprof's preflight statement, may fall before; over %d s of "
        "samples that is a few percent at most." % CURVE_S)
    add("- The target is an idle connection, so the statement part of "
        "mysqlmemprof's query finds no running statement; on a busy thread "
        "it also returns the statement's text.")
    add("")
    add("The whole overhead run took %.0f s." % res["seconds"])
    add("")
    return "\n".join(lines)


# ------------------------------------------------------------------- main

def write_part(res):
    """MMP_BENCH_ONLY=instr or client: what was run in place of the same
    subsections of this server's section of RESULTS.md (the rest of the
    section is left as it was, and the subsections name their own tree
    and date), and its figures in the raw runs."""
    name = section_name(OVERHEAD_SECTION)
    text = read_section(RESULTS, name)
    body = text[text.find("\n") + 1:text.rfind(benchlib.SECTION_END % name)]
    alone = (res["date"], res["versions"]["tree"])
    if ONLY == "instr":
        head = "### Instructions per sample by format\n"
        part = instr_report(res["instr"], alone, res.get("bytes"))
        keys = ["instr", "bytes"]
    elif ONLY == "parts":
        part = parts_report(res)
        part[1:1] = ["", stamp("MMP_BENCH_ONLY=parts bench/overhead.py",
                               *alone) + " This subsection alone: the "
                     "rest of the section is from the runs named above."]
        keys = ["parts", "parts_sql"]
        head = "### Where the statement's cost goes\n"
        if head not in body:
            # Not there yet: it goes before the client's CPU.
            at = body.find("### Client CPU per sample by format\n")
            if at < 0:
                log("no client subsection in %s to put it before" %
                    os.path.relpath(RESULTS))
                return
            body = body[:at] + head + "\n" + body[at:]
    else:
        head = "### mysqlmemprof's statement against the bare memory query\n"
        part = client_report(res)
        part[1:1] = ["", stamp("MMP_BENCH_ONLY=client bench/overhead.py",
                               *alone) + " These subsections alone (to the "
                     "instructions table): the rest of the section is "
                     "from the run named at its top."]
        keys = ["instr", "bytes", "cost", "side", "side_threads",
                "syscalls", "syscalls_by", "where", "load_client",
                "mmp_sql"]
    i = body.find(head)
    j = body.find("\n### What limits these figures", i + len(head))
    if ONLY in ("instr", "parts"):
        j = body.find("\n### ", i + len(head))
    if i < 0 or j < 0:
        log("no such subsection in %s to replace" % os.path.relpath(RESULTS))
        return
    body = body[:i] + "\n".join(part) + "\n" + body[j + 1:]
    write_section(RESULTS, name, body)
    raw = os.path.splitext(RESULTS)[0] + "-%s.json" % name
    if os.path.exists(raw):
        with open(raw) as f:
            old = json.load(f)
        old.update({k: res[k] for k in keys if k in res})
        benchlib.write_raw(raw, old)
    log("wrote its part in %s" % os.path.relpath(RESULTS))


def run_parts(b, server, res):
    """The statement's parts, back to back (floor): the bare memory query
    as text and prepared, only the rows in use, mysqlmemprof's statement
    without the thread's statement (captured with events_statements_current
    off, when mysqlmemprof sends it so) and whole, in interleaved rounds:
    where the statement's cost over the bare query goes."""
    whole = b.mmp_sql
    consumer = ("UPDATE performance_schema.setup_consumers SET ENABLED = "
                "'%s' WHERE NAME = 'events_statements_current'")
    server.sql(consumer % "NO")
    try:
        alone = b.capture_mmp_sql()
    finally:
        server.sql(consumer % "YES")
        b.mmp_sql = whole
    parts = [("bare", ("all", "text"), None),
             ("bare-prepared", ("all", "binary"), None),
             ("in-use-prepared", ("nonzero", "binary"), None),
             ("no-statement", None, alone),
             ("whole", None, whole)]
    res["parts_sql"] = {"no-statement": alone, "whole": whole}
    res["parts"] = {name: [] for name, _, _ in parts}
    for rnd in range(COST_ROUNDS):
        idle = server.idle_rate(IDLE_S)
        shift = rnd % len(parts)
        for name, q, sql in parts[shift:] + parts[:shift]:
            log("statement's parts round %d: %s" % (rnd + 1, name))
            res["parts"][name].append(
                b.floor_handshake(q[0], q[1], SIDE_S, idle) if q else
                b.floor_handshake(MMP[0], MMP[1], SIDE_S, idle, sql=sql))


def run_client(b, server, res):
    """The statement and the client's part: the bytes each format writes,
    the paced runs in interleaved rounds, then the instructions
    (callgrind) and the system calls (strace) per sample, each in runs of
    their own."""
    res["side_threads"] = server.thread_count()
    log("bytes a sample by format")
    res["bytes"] = b.measure_bytes()
    res["cost"] = {w: [] for w in COST_WHO}
    res["side"] = {MMP[0]: [], "all": []}
    res["load_client"] = [open("/proc/loadavg").read().split()[0], None]
    for rnd in range(COST_ROUNDS):
        idle = server.idle_rate(IDLE_S)
        shift = rnd % len(COST_WHO)
        order = COST_WHO[shift:] + COST_WHO[:shift]
        for w in order:
            log("cost round %d: %s" % (rnd + 1, w))
            r = b.cost_run(w)
            r["idle"] = idle
            res["cost"][w].append(r)
        for q in ((MMP, ("all", "text")) if rnd % 2 == 0 else
                  (("all", "text"), MMP)):
            res["side"][q[0]].append(b.floor_handshake(q[0], q[1], SIDE_S,
                                                       idle))
    run_parts(b, server, res)
    res["load_client"][1] = open("/proc/loadavg").read().split()[0]
    res["instr"] = {}
    if shutil.which("valgrind"):
        for w in INSTR_WHO:
            log("instructions per sample under callgrind: %s" % w)
            res["instr"][w] = b.instr_run(w)
    b.perf_ok = perf_works()
    res["syscalls_by"] = "perf trace" if b.perf_ok else "strace"
    res["syscalls"] = {}
    if b.perf_ok or shutil.which("strace"):
        for w in INSTR_WHO:
            log("system calls per sample (%s): %s" % (res["syscalls_by"], w))
            res["syscalls"][w] = b.syscall_run(w)
    res["where"] = {w: [] for w in WHERE_WHO} if b.perf_ok else {}
    for rnd in range(WHERE_ROUNDS if b.perf_ok else 0):
        order = WHERE_WHO[rnd:] + WHERE_WHO[:rnd]
        for w in order:
            log("where the time goes round %d (perf): %s" % (rnd + 1, w))
            res["where"][w].append(b.where_run(w))


def run_all(b, server, helpers, res):
    log("sysbench prepare: %d tables of %d rows" % (SB_TABLES, SB_ROWS))
    b.sysbench(TESTS[-1], "cleanup")
    b.sysbench(TESTS[-1], "prepare")
    b.sysbench(TESTS[0], "run", 1)      # warms the buffer pool

    res["workload"] = {t: {} for t in TESTS}
    for rnd in range(WORK_ROUNDS):
        shift = rnd * len(CONFIGS) // WORK_ROUNDS
        order = CONFIGS[shift:] + CONFIGS[:shift]
        for test in TESTS:
            for cfg in order:
                key = "none" if cfg[0] == "none" else "%s/%d" % cfg[:2]
                log("workload round %d: %s, %s" % (rnd + 1, test, cfg[2]))
                res["workload"][test].setdefault(key, []).append(
                    b.workload_run(test, cfg))

    run_client(b, server, res)

    res["curve"] = {}
    holder = None
    try:
        for lvl in LEVELS:
            if lvl:
                log("opening %d idle connections" % lvl)
                holder = Holder(helpers["hold"], server, lvl)
            idle = server.idle_rate(IDLE_S)
            bare = b.floor_handshake("all", "text", 1, idle)
            interval = max(10, int(math.ceil(bare["latency_us"] * 4 / 1000
                                             / 10.0)) * 10)
            c = {"threads": server.thread_count(), "interval": interval}
            runs = {w: [] for w in CURVE_WHO}
            for rnd in range(CURVE_ROUNDS):
                order = CURVE_WHO[rnd:] + CURVE_WHO[:rnd]
                for w in order:
                    log("threads %d (%d idle connections) round %d: %s "
                        "every %d ms" % (c["threads"], lvl, rnd + 1, w,
                                         interval))
                    runs[w].append(b.curve_run(w, interval, idle))
            for w in CURVE_WHO:
                c[w] = {k: median([r[k] for r in runs[w]])
                        for k in runs[w][0]}
            if lvl == LEVELS[-1]:
                res["list"] = [b.list_run(idle) for _ in range(LIST_RUNS)]
            res["curve"][str(lvl)] = c
            if holder:
                holder.close()
                holder = None
    finally:
        if holder:
            holder.close()


def main():
    if not os.access(BUILT, os.X_OK):
        sys.exit("bench: %s is missing; run make first" % BUILT)
    if ONLY not in (None, "instr", "client", "parts"):
        sys.exit("bench: MMP_BENCH_ONLY=%s: instr, client or parts" % ONLY)
    if ONLY == "instr" and not shutil.which("valgrind"):
        sys.exit("bench: MMP_BENCH_ONLY=instr needs valgrind")
    if ONLY is None and SYSBENCH is None:
        sys.exit("bench: sysbench is missing; run scripts/deps.sh --test "
                 "(apt-get install sysbench)")
    # The hold process keeps up to 1,000 sockets open.
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    want = max(LEVELS) + 256
    if soft != resource.RLIM_INFINITY and soft < want:
        if hard != resource.RLIM_INFINITY and hard < want:
            sys.exit("bench: %d connections need ulimit -n %d; the hard "
                     "limit is %d" % (max(LEVELS), want, hard))
        resource.setrlimit(resource.RLIMIT_NOFILE, (want, hard))
    # The runner exits on SIGTERM through its finally blocks: the samplers,
    # the idle connections and the server are stopped on the way out.
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(1))
    workdir = tempfile.mkdtemp(prefix="mmp-overhead-")
    bindir = os.path.join(workdir, "bin")
    os.mkdir(bindir)
    helpers = build_helpers(bindir)
    helpers["mysqlmemprof"] = os.path.join(bindir, "mysqlmemprof")
    shutil.copy2(BUILT, helpers["mysqlmemprof"])
    started = time.monotonic()
    res = {"date": benchlib.now_utc(),
           "load": [open("/proc/loadavg").read().split()[0], None],
           "max_connections": max(LEVELS) + 200}
    r = subprocess.run([SYSBENCH, "--version"], capture_output=True,
                       text=True)
    res["sysbench"] = r.stdout.strip().replace("sysbench ", "")
    server = Server(res["max_connections"])
    target = None
    try:
        target = Holder(helpers["hold"], server, 1, TARGET_USER,
                        TARGET_PASSWORD, TARGET_DB, TARGET_WORK)
        thread = int(server.sql(
            "SELECT THREAD_ID FROM performance_schema.threads "
            "WHERE PROCESSLIST_ID = %d" % target.ids[0])[0][0])
        b = Overhead(server, helpers, thread, workdir)
        res.update(thread=thread, server_version=server.version,
                   versions=tool_versions(helpers["mysqlmemprof"],
                                          b.driver, b.python))
        res["mmp_sql"] = b.capture_mmp_sql()
        log("server %s, target thread %d" % (server.version, thread))
        if ONLY == "client":
            run_client(b, server, res)
        elif ONLY == "parts":
            run_parts(b, server, res)
        elif ONLY == "instr":
            res["bytes"] = b.measure_bytes()
            res["instr"] = {}
            for w in INSTR_WHO:
                log("instructions per sample under callgrind: %s" % w)
                res["instr"][w] = b.instr_run(w)
        else:
            run_all(b, server, helpers, res)
    finally:
        if target:
            target.close()
        server.stop()
        if os.environ.get("MMP_BENCH_KEEP_FILES") != "1":
            shutil.rmtree(workdir, ignore_errors=True)
    res["load"][1] = open("/proc/loadavg").read().split()[0]
    res["seconds"] = time.monotonic() - started
    if ONLY is not None:
        print("\n".join(instr_report(res["instr"], None, res["bytes"])
                        if ONLY == "instr" else parts_report(res)
                        if ONLY == "parts" else client_report(res)))
        if os.environ.get("MMP_BENCH_WRITE") == "1":
            write_part(res)
        return 0

    text = report(res)
    write_section(RESULTS, section_name(OVERHEAD_SECTION), text)
    benchlib.write_raw(os.path.splitext(RESULTS)[0] + "-%s.json"
                       % section_name(OVERHEAD_SECTION), res)
    print(text)
    log("wrote its section of %s" % os.path.relpath(RESULTS))
    return 0


if __name__ == "__main__":
    sys.exit(main())
