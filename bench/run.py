#!/usr/bin/env python3
"""make bench: mysqlmemprof against the samplers people use, side by side.

Starts a throwaway MariaDB server of its own (tests/sandbox.sh with a
private MMP_SANDBOX_DIR), holds a connection open as the target thread, and
measures on the same target and interval:

  mysqlmemprof        the program of this repository
  python              bench/python_sampler.py, the popular script
  shell               bench/shell_sampler.sh, a loop around the mariadb client
  floor               bench/floor.c, the query back to back from C

Prints a table of figures, ratios and targets, and rewrites its section of
bench/RESULTS.md (or $MMP_BENCH_RESULTS) whole, the other sections left as
they are. Standard library only. Takes about eight minutes on two cores;
MMP_BENCH_QUICK=1 shrinks every run for a smoke test.
"""
import os
import platform
import shutil
import subprocess
import sys
import tempfile
import time

import benchlib
from benchlib import (BUILT, MMP, QUICK, RESULTS, RUN_SECTION,
                      SANDBOX_DIR, TARGET_DB, TARGET_PASSWORD, TARGET_USER,
                      TARGET_WORK, Holder, Server, build_helpers, child_env,
                      count_headers, cpu_model, fmt, log, median, met,
                      paired, parse_done, percentile, ratio, read_floats,
                      read_json, reap, rounds_text, scaled,
                      spread_of, stamp, table, tool_versions,
                      write_section)

ROUNDS = 2 if QUICK else 3
COST_ROUNDS = 2 if QUICK else 5         # the closest comparisons get more
IDLE_S = 1.0 if QUICK else 4.0          # idle baseline of the server, per round
COST_MS = 10                            # interval of the cost runs
COST_N = {"mysqlmemprof": scaled(1000), "python": scaled(1000),
          "shell": scaled(200), "floor": scaled(2000),
          "floor-nonzero": scaled(2000), "floor-paced": scaled(500)}
TIMING_MS = 250                         # the popular script's interval
TIMING_N = scaled(40)
DRIFT_N = COST_N["mysqlmemprof"]        # drift after this many samples
RATE_N = scaled(3000)                   # mysqlmemprof --frequency 1
RATE_S = 1 if QUICK else 3              # floor --seconds
ALT_S = 1                               # floor --seconds per alternative
ALT_ROUNDS = 2 if QUICK else 5
ALT_QUERIES = ["all", "nonzero", "all-order", "nonzero-order", "top4"]
ALT_PROTOS = ["text", "sqlprep", "binary"]
# --window's ring is full after 50 samples: a flat RSS over 30,000 (30 s at
# --frequency 1) shows the rest is allocated once.
RSS_LAST = scaled(30000, 1000)
RSS_MARKS = [m for m in (100, 1000, 10000) if m < RSS_LAST] + [RSS_LAST]
SCALE_LEVELS = [0, 50, 200]
SCALE_S = 1 if QUICK else 3
SCALE_FLOOR_S = 1 if QUICK else 2


class Bench(benchlib.Bench):
    """The runs of this script, on top of the shared command lines."""

    def startup_run(self, who):
        """The same sampler for one sample: what starting up costs."""
        r = self.measured(self.argv(who, COST_MS, 1), self.path(who + ".1"))
        return r["client"]

    def cost_run(self, who, idle_rate):
        """One cost run at COST_MS: per-sample CPU, RSS and timing."""
        out = self.path(who + ".out")
        tlog = out + ".timing" if who == "python" else None
        startup = self.startup_run(who)
        r = self.measured(self.argv(who, COST_MS, COST_N[who],
                                    timing_log=tlog), out)
        if who == "mysqlmemprof":
            samples = read_json(out)
            n = len(samples)
            r["timing"] = mmp_timing(samples, COST_MS)
        elif who in ("python", "shell"):
            n = count_headers(out)
            if tlog:
                r["timing"] = python_timing(read_floats(tlog), COST_MS)
        else:
            n = parse_done(out)["n"]
        r["n"] = n
        r["client_us"] = r["client"] / n * 1e6
        r["startup_us"] = startup * 1e6
        r["marginal_us"] = (r["client"] - startup) / (n - 1) * 1e6
        r["server_us"] = (r["server"] - idle_rate * r["wall"]) / n * 1e6
        return r

    def timing_pair(self):
        """mysqlmemprof and the Python sampler at TIMING_MS, together."""
        mout = self.path("mysqlmemprof-250.out")
        pout = self.path("python-250.out")
        tlog = pout + ".timing"
        procs = []
        with open(mout, "w") as mo, open(pout, "w") as po:
            for argv, fp in ((self.argv("mysqlmemprof", TIMING_MS, TIMING_N),
                              mo),
                             (self.argv("python", TIMING_MS, TIMING_N,
                                        timing_log=tlog), po)):
                procs.append(subprocess.Popen(
                    argv, stdin=subprocess.DEVNULL, stdout=fp,
                    stderr=subprocess.DEVNULL, env=child_env()))
            for p in procs:
                reap(p)
        if any(p.returncode != 0 for p in procs):
            raise RuntimeError("a 250 ms timing run failed")
        return (mmp_timing(read_json(mout), TIMING_MS),
                python_timing(read_floats(tlog), TIMING_MS))
    def rate_run(self):
        out = self.path("mysqlmemprof-rate.out")
        self.measured(self.argv("mysqlmemprof", 1, RATE_N), out)
        samples = read_json(out)
        span_ms = samples[-1]["elapsed_ms"] - samples[0]["elapsed_ms"]
        ticks = samples[-1]["elapsed_ms"] + 1
        return {"rate": (len(samples) - 1) / (span_ms / 1000.0),
                "skipped": max(0, ticks - len(samples)),
                "query_us": median([s["query_us"] for s in samples])}

    def rss_run(self):
        """--frequency 1 to the last mark, reading VmRSS as it goes."""
        last = RSS_MARKS[-1]
        argv = self.argv("mysqlmemprof", 1, last + 1000)
        proc = subprocess.Popen(argv, stdin=subprocess.DEVNULL,
                                stdout=subprocess.PIPE,
                                stderr=subprocess.DEVNULL, env=child_env())
        marks = list(RSS_MARKS)
        rss, hwm = {}, 0
        lines = 0
        t0 = time.monotonic()
        fd = proc.stdout.fileno()
        while True:
            chunk = os.read(fd, 1 << 16)
            if not chunk:
                break
            lines += chunk.count(b"\n")
            while marks and lines >= marks[0]:
                rss[marks.pop(0)] = vmrss_kb(proc.pid)
                hwm = max(hwm, vmrss_kb(proc.pid, "VmHWM:"))
        proc.wait()
        wall = time.monotonic() - t0
        if proc.returncode != 0:
            raise RuntimeError("mysqlmemprof exited %d" % proc.returncode)
        return {"rss": rss, "maxrss_kb": hwm, "samples": lines,
                "rate": lines / wall}

    def scale_run(self, idle_rate):
        out = self.path("mysqlmemprof-scale.out")
        argv = self.argv("mysqlmemprof", 1, 0) + ["--duration", str(SCALE_S)]
        r = self.measured(argv, out)
        samples = read_json(out)
        n = len(samples)
        fl = self.floor_handshake("all", "text", SCALE_FLOOR_S, idle_rate)
        return {"client_us": r["client"] / n * 1e6,
                "server_us": (r["server"] - idle_rate * r["wall"]) / n * 1e6,
                "query_us": median([s["query_us"] for s in samples]),
                "floor_server_us": fl["server_us"],
                "floor_latency_us": fl["latency_us"]}


def vmrss_kb(pid, field="VmRSS:"):
    with open("/proc/%d/status" % pid) as f:
        for line in f:
            if line.startswith(field):
                return int(line.split()[1])
    return None

def mmp_timing(samples, interval_ms):
    late = [s["late_us"] / 1000.0 for s in samples]
    t = {"p50": percentile(late, 50), "p99": percentile(late, 99),
         "max": max(late), "n": len(samples)}
    # Sample k (from 1) is due (k - 1) intervals after the first.
    k = len(samples)
    t["drift"] = samples[-1]["elapsed_ms"] - (k - 1) * interval_ms
    return t


def python_timing(starts, interval_ms):
    """Lateness against the schedule the script means: one per interval."""
    iv = interval_ms / 1000.0
    late = [(t - starts[0] - i * iv) * 1000.0 for i, t in enumerate(starts)]
    return {"p50": percentile(late, 50), "p99": percentile(late, 99),
            "max": max(late), "n": len(starts), "drift": late[-1]}


def report(res):
    """Builds the Markdown report and the lines the terminal shows."""
    C = res["cost"]
    med = {w: {k: median([r[k] for r in C[w]])
               for k in ("client_us", "server_us", "maxrss_kb",
                         "startup_us", "marginal_us")}
           for w in C}
    tm10 = {w: {k: median([r["timing"][k] for r in C[w]])
                for k in ("p50", "p99", "max", "drift")}
            for w in ("mysqlmemprof", "python")}
    tm250 = {w: {k: median([t[i][k] for t in res["timing250"]])
                 for k in ("p50", "p99", "max", "drift")}
             for i, w in enumerate(("mysqlmemprof", "python"))}
    rate = median([r["rate"] for r in res["rate"]])
    skipped = median([r["skipped"] for r in res["rate"]])
    rate_query_us = median([r["query_us"] for r in res["rate"]])
    floor_qps = median([r["qps"] for r in res["floor_rate"]])
    rss = res["rss"]["rss"]
    first, last = RSS_MARKS[0], RSS_MARKS[-1]
    rss_growth = (rss[last] - rss[first]) / rss[first]
    alt = {}
    for (q, p), rs in res["alt"].items():
        alt[(q, p)] = {k: median([r[k] for r in rs]) for k in rs[0]}
    mmp_alt = alt[MMP]

    m, py, fl = med["mysqlmemprof"], med["python"], med["floor"]

    lines = []
    add = lines.append
    add("## mysqlmemprof against the samplers people use (bench/run.py)")
    add("")
    add(stamp("bench/run.py", res["date"], res["versions"]["tree"]))
    add("")
    add("Every figure is the median of %d runs (the cost runs: %d) unless it "
        "says otherwise; the ratios are mysqlmemprof's figure divided by the "
        "other's. The raw runs are in RESULTS.json."
        % (ROUNDS, COST_ROUNDS))
    add("")
    add("- Machine: %s, %d cores, Linux %s; load average %s before, %s after "
      "(other work on the machine adds noise)."
      % (cpu_model(), os.cpu_count(), platform.release(),
         res["load"][0], res["load"][1]))
    add("- Server: MariaDB %s (tests/sandbox.sh in %s, memory instruments on), "
      "%d threads in performance_schema.threads during the cost runs."
      % (res["server_version"], SANDBOX_DIR, res["threads"]))
    for k, v in res["versions"].items():
        if k == "tree":
            continue
        add("- %s: %s" % (k.capitalize() if k != "mysqlmemprof" else k, v))
    add("- Target: thread %d, a `loader` connection held open by bench/hold "
      "that ran a small workload once (a table of 5,000 rows, a sort, a "
      "temporary table, a join) and then idles: %d of its %d memory rows "
      "are in use. Every sampler connects as `mmp` (SELECT on "
      "performance_schema only) over the unix socket."
      % (res["thread"], res["target_rows"][0], res["target_rows"][1]))
    add("")

    add("### Summary")
    add("")
    add("Cost runs, every sampler on the same target at a %d ms interval: "
        "mysqlmemprof and Python %d samples, shell %d; floor %d queries back "
        "to back, asking for every row of the thread (text protocol); "
        "*floor, mmp's query*: the statement mysqlmemprof sends (see Query "
        "alternatives), back to back; *paced*: "
        "that query every %d ms on absolute deadlines, %d times, still "
        "without formatting. Whole processes, start-up included, except in "
        "the second row. Ratios: mysqlmemprof ÷ the other."
        % (COST_MS, COST_N["mysqlmemprof"], COST_N["shell"], COST_N["floor"],
           COST_MS, COST_N["floor-paced"]))
    add("")
    cols = [("mysqlmemprof", "mysqlmemprof"), ("python", "python"),
            ("shell", "shell"), ("floor", "floor"),
            ("floor-nonzero", "floor, mmp's query"),
            ("floor-paced", "floor, mmp's query, paced")]
    ratio_to = ["python", "shell", "floor", "floor-paced"]

    def row(label, vals, digits=1):
        mv = vals.get("mysqlmemprof")
        r = [label] + [fmt(vals[w], digits) if vals.get(w) is not None
                       else "" for w, _ in cols]
        return r + [ratio(mv, vals[w]) if vals.get(w) is not None and
                    isinstance(mv, (int, float)) else "" for w in ratio_to]

    def cost(key):
        return {w: med[w][key] for w in med}

    rows = [
        row("client CPU per sample (µs)", cost("client_us")),
        row("client CPU per sample, start-up left out (µs)",
            cost("marginal_us")),
        row("client CPU to start and take one sample (µs)",
            cost("startup_us"), 0),
        row("server CPU per sample (µs)", cost("server_us")),
        row("peak RSS (KiB)", cost("maxrss_kb"), 0),
        row("highest sustained rate (samples/s)",
            {"mysqlmemprof": rate, "floor": floor_qps}),
        row("drift after %d samples at %d ms (ms)" % (DRIFT_N, COST_MS),
            {w: tm10[w]["drift"] for w in tm10}),
        row("lateness p99 at %d ms (ms)" % COST_MS,
            {w: tm10[w]["p99"] for w in tm10}, 2),
        row("lateness p99 at %d ms (ms)" % TIMING_MS,
            {w: tm250[w]["p99"] for w in tm250}, 2),
        ["RSS after %d / %d samples (KiB)" % (first, last),
         "%s / %s" % (fmt(rss[first], 0), fmt(rss[last], 0))] +
        [""] * (len(cols) - 1 + len(ratio_to)),
    ]
    add(table(["figure"] + [c for _, c in cols] +
              ["÷ " + w for w in ratio_to], rows))
    add("")

    def spread(w, key):
        v = [r[key] for r in C[w]]
        return "%s (%s–%s)" % (fmt(median(v)), fmt(min(v)), fmt(max(v)))

    add("### Targets")
    add("")
    add("Measured: median (lowest–highest of the %d runs); then "
        "mysqlmemprof's figure against the other's of the same round, the "
        "median of those ratios and in how many rounds it was lower."
        % COST_ROUNDS)
    add("")
    interval_ok = abs(tm10["mysqlmemprof"]["drift"]) < COST_MS

    def against(other, key):
        r, lower, n = paired(C["mysqlmemprof"], C[other], key)
        return ("%s vs %s µs: %.2f×, %s"
                % (spread("mysqlmemprof", key), spread(other, key), r,
                   rounds_text(lower, n)))

    targets = [
        ["client CPU per sample no more than the floor's",
         against("floor", "client_us"),
         met(m["client_us"] <= fl["client_us"])],
        ["client CPU per sample below the Python sampler's",
         against("python", "client_us"),
         met(m["client_us"] < py["client_us"])],
        ["server CPU per sample no more than the Python sampler's",
         against("python", "server_us"),
         met(m["server_us"] <= py["server_us"])],
        ["sustained rate at least 90% of the floor's",
         "%s vs %s samples/s: %.0f%%" % (fmt(rate), fmt(floor_qps),
                                         100.0 * rate / floor_qps),
         met(rate >= 0.9 * floor_qps)],
        ["no drift: under one interval after %d samples" % DRIFT_N,
         "%s ms at %d ms (Python: %s ms)"
         % (fmt(tm10["mysqlmemprof"]["drift"]), COST_MS,
            fmt(tm10["python"]["drift"])),
         met(interval_ok)],
        ["RSS flat within 5%% from %d to %d samples" % (first, last),
         "%s → %s KiB (%+.1f%%)" % (fmt(rss[first], 0), fmt(rss[last], 0),
                                    100.0 * rss_growth),
         met(abs(rss_growth) <= 0.05)],
    ]
    add(table(["target", "measured", "result"], targets))
    add("")

    add("### What limits the targets")
    add("")
    for note in limits(C, med, rate, floor_qps, skipped, rate_query_us,
                       alt, res["alt"]):
        add("- " + note)
    add("")

    add("### Timing")
    add("")
    add("Lateness of each sample's query start against its due time. "
      "mysqlmemprof's due times are its absolute deadlines (late_us in its "
      "JSON). The Python sampler has none; its due times are the schedule it "
      "means, the first sample plus k intervals, logged with "
      "time.monotonic(). Drift: the last sample's time minus (samples - 1) "
      "intervals. At %d ms: the cost runs (%d samples each). At %d ms: %d "
      "samples, both samplers running at the same time."
      % (COST_MS, DRIFT_N, TIMING_MS, TIMING_N))
    add("")
    trows = []
    for label, t, n in (("%d ms" % COST_MS, tm10, DRIFT_N),
                        ("%d ms" % TIMING_MS, tm250, TIMING_N)):
        for who_ in ("mysqlmemprof", "python"):
            x = t[who_]
            trows.append([label, who_, fmt(x["p50"], 2), fmt(x["p99"], 2),
                          fmt(x["max"], 2), "%s (after %d)" % (
                              fmt(x["drift"], 1), n)])
    add(table(["interval", "sampler", "p50 (ms)", "p99 (ms)", "max (ms)",
             "drift (ms)"], trows))
    add("")

    add("### Memory of mysqlmemprof over a long run")
    add("")
    add("One run at --frequency 1, VmRSS read from /proc while it runs "
      "(%s samples/s over the run, peak RSS %s KiB)."
      % (fmt(res["rss"]["rate"]), fmt(res["rss"]["maxrss_kb"], 0)))
    add("")
    add(table(["after samples", "VmRSS (KiB)"],
            [[fmt(k, 0), fmt(rss[k], 0)] for k in RSS_MARKS]))
    add("")

    add("### Sustained rate")
    add("")
    add("mysqlmemprof --frequency 1 --count %d: %s samples/s, %s ticks "
      "skipped, median query %s µs. floor (every row, text protocol, "
      "%d s back to back): %s queries/s."
      % (RATE_N, fmt(rate), fmt(skipped, 0), fmt(rate_query_us, 0), RATE_S,
         fmt(floor_qps)))
    add("")

    add("### Query alternatives")
    add("")
    add("floor runs each way of asking back to back for %d s; CPU is measured "
        "around its loop only (server: mysqld's utime+stime minus its idle "
        "rate). Queries: `mmp` is the statement mysqlmemprof prepared once "
        "and executed for each sample in this run, captured from the "
        "server's general log (below) and sent the same way; "
        "`all` every memory row of the thread (its 8 columns); `nonzero` adds "
        "`AND (COUNT_ALLOC > 0 OR COUNT_FREE > 0)`, the memory part of "
        "mysqlmemprof's statement; `-order` adds `ORDER BY "
        "CURRENT_NUMBER_OF_BYTES_USED DESC`; `top4` is the Python sampler's "
        "query. Protocols: `text` the id pasted into the statement, `sqlprep` "
        "PREPARE once then `EXECUTE ... USING @id` (text results), `binary` "
        "mysql_stmt_prepare once then mysql_stmt_execute (binary protocol). "
        "Medians of %d rounds, each trying every way in turn (in a rotated "
        "order), with the lowest–highest in brackets; ratios: the median "
        "over rounds of the figure ÷ `mmp`'s of the same round."
        % (ALT_S, ALT_ROUNDS))
    add("")
    add("mysqlmemprof's statement for thread %d:" % res["thread"])
    add("")
    add("```sql")
    add(res["mmp_sql"])
    add("```")
    add("")
    arows = []
    for q, p in [MMP] + [(q, p) for q in ALT_QUERIES for p in ALT_PROTOS]:
            a = alt[(q, p)]
            runs = res["alt"][(q, p)]
            arows.append(["%s / %s" % (q, p), fmt(a["rows"], 0),
                          spread_of(runs, "client_us"),
                          spread_of(runs, "server_us"),
                          fmt(a["latency_us"]), fmt(a["qps"], 0),
                          "%.2f×" % paired(runs, res["alt"][MMP],
                                           "client_us")[0],
                          "%.2f×" % paired(runs, res["alt"][MMP],
                                           "server_us")[0]])
    add(table(["query / protocol", "rows", "client µs/query (range)",
             "server µs/query (range)", "latency µs", "queries/s",
             "client ÷ mmp's", "server ÷ mmp's"], arows))
    add("")
    for note in alt_notes(alt, res["alt"]):
        add("- " + note)
    add("")

    add("### Cost of one sample against the number of threads")
    add("")
    add("Idle connections held open by bench/hold; MariaDB's "
      "memory_summary_by_thread_by_event_name has no index, so every query "
      "builds the rows of all threads and filters them. mysqlmemprof at "
      "--frequency 1 for %d s, floor (every row, text) for %d s."
      % (SCALE_S, SCALE_FLOOR_S))
    add("")
    srows = []
    base = res["scale"][SCALE_LEVELS[0]]
    for lvl in SCALE_LEVELS:
        s = res["scale"][lvl]
        srows.append([str(lvl), str(s["threads"]), fmt(s["client_us"]),
                      fmt(s["server_us"]), fmt(s["query_us"], 0),
                      fmt(s["floor_server_us"]), fmt(s["floor_latency_us"]),
                      ratio(s["server_us"], base["server_us"])])
    add(table(["idle connections", "threads", "mmp client µs/sample",
             "mmp server µs/sample", "mmp query_us (median)",
             "floor server µs/query", "floor latency µs",
             "mmp server ÷ 0 connections"], srows))
    add("")

    add("### Method")
    add("")
    add("- Client CPU: user+sys of the sampler's whole process tree from "
      "wait4() rusage (bench/rusage) (the shell's includes every mariadb and sleep it "
      "starts), divided by the samples it printed. Start-up counts: the "
      "Python interpreter's start is spread over its %d samples. "
      "\"Start-up left out\": (CPU of the run - CPU of a one-sample run) / "
      "(samples - 1)." % COST_N["python"])
    add("- Server CPU: utime+stime of mysqld from /proc/PID/stat (10 ms "
      "ticks) over the run, minus the server's idle rate measured for %g s "
      "before each round times the run's length, divided by the samples."
      % IDLE_S)
    add("- Peak RSS: ru_maxrss from wait4() in bench/rusage, which forks the "
      "sampler (for the shell, its largest process). The long run's peak is "
      "VmHWM read at the last mark.")
    add("- The runs of a round go one after the other, in a different order "
      "each round; the server is the bench's own, no other client uses it.")
    add("")
    return "\n".join(lines) + "\n", targets


def limits(C, med, rate, floor_qps, skipped, rate_query_us, alt, raw_alt):
    """Sentences on what holds back each target that is not met."""
    m, py, fl = med["mysqlmemprof"], med["python"], med["floor"]
    fln, flp = med["floor-nonzero"], med["floor-paced"]
    mmp_alt = alt[MMP]
    nz_ratio, nz_lower, nz_n = paired(raw_alt[("nonzero", "text")],
                                      raw_alt[MMP], "server_us")
    notes = []

    if m["client_us"] > fl["client_us"]:
        notes.append(
            "Client CPU: mysqlmemprof spends %s µs per sample at %d ms. The "
            "floor's query back to back costs %s µs (%s µs with "
            "mysqlmemprof's own query, which returns fewer rows), but the "
            "same query paced every %d ms, with no formatting at all, costs "
            "%s µs: waking up once per interval (a timed sleep, a blocking "
            "read, caches gone cold) is much of the cost, and no sampler "
            "that waits between samples gets under it. Start-up left out, "
            "mysqlmemprof takes %s µs per sample and the paced floor %s µs: "
            "what mysqlmemprof adds on top (parsing every row, the top-N, "
            "JSON, one write per sample) is %s µs per sample."
            % (fmt(m["client_us"]), COST_MS, fmt(fl["client_us"]),
               fmt(fln["client_us"]), COST_MS, fmt(flp["client_us"]),
               fmt(m["marginal_us"]), fmt(flp["marginal_us"]),
               fmt(m["marginal_us"] - flp["marginal_us"])))
    server_note = (
        "The server's cost of one sample depends on the pacing more than on "
        "the query: mysqlmemprof's query costs the server %s µs back to back "
        "and %s µs paced every %d ms. Back to back (query alternatives) it "
        "costs %s µs and the Python sampler's query %s µs; of mysqlmemprof's "
        "statement, the memory rows alone (nonzero / text) cost %.2f× the "
        "whole statement, %s; the rest of the statement (the row of the "
        "thread with its statement) is the difference."
        % (fmt(fln["server_us"]), fmt(flp["server_us"]), COST_MS,
           fmt(mmp_alt["server_us"]),
           fmt(alt[("top4", "text")]["server_us"]),
           nz_ratio, rounds_text(nz_lower, nz_n)))
    if m["server_us"] > py["server_us"]:
        r, lower, n = paired(C["mysqlmemprof"], C["python"], "server_us")
        notes.append(
            "Server CPU: %s µs per mysqlmemprof sample against %s µs per "
            "Python sample at the same interval; round by round %.2f×, "
            "mysqlmemprof %s. %s"
            % (fmt(m["server_us"]), fmt(py["server_us"]), r,
               rounds_text(lower, n), server_note))
    else:
        notes.append("Server CPU (met): " + server_note)
    if rate < 0.9 * floor_qps:
        notes.append(
            "Sustained rate: --frequency takes whole milliseconds, so 1 ms "
            "is the shortest interval and 1000 samples/s the most "
            "mysqlmemprof can take; it took %s/s with %s ticks skipped "
            "(median query %s µs), while the floor's query back to back "
            "does %s/s (%s µs each). The limit is the option's unit, not "
            "the sampling loop: only an interval under a millisecond, or a "
            "back-to-back mode, would come near the floor."
            % (fmt(rate), fmt(skipped, 0), fmt(rate_query_us, 0),
               fmt(floor_qps), fmt(1e6 / floor_qps, 0)))
    return notes


def alt_notes(alt, raw):
    """The cheapest ways of asking, and whether the runs tell them apart."""
    mmp = alt[MMP]

    def compare(k):
        out = []
        for key, who in (("client_us", "client"), ("server_us", "server")):
            r, lower, n = paired(raw[k], raw[MMP], key)
            out.append("%s %s µs (%.2f×, %s)" % (who, fmt(alt[k][key]), r,
                                                 rounds_text(lower, n)))
        return ", ".join(out)

    notes = ["mysqlmemprof's statement: client %s µs, server %s µs per query."
             % (fmt(mmp["client_us"]), fmt(mmp["server_us"]))]
    for key, who in (("server_us", "server"), ("client_us", "client")):
        k = min(alt, key=lambda x: alt[x][key])
        if k == MMP:
            notes.append("Cheapest for the %s: mysqlmemprof's statement."
                         % who)
        else:
            notes.append("Cheapest for the %s: %s / %s: %s."
                         % (who, k[0], k[1], compare(k)))
    k = min([x for x in alt if x[0] == "nonzero"],
            key=lambda x: alt[x]["server_us"] + alt[x]["client_us"])
    notes.append("The memory rows mysqlmemprof needs, asked the cheapest "
                 "way (nonzero / %s): %s." % (k[1], compare(k)))
    for k in [x for x in (("nonzero", "text"), ("all", "text"),
                          ("nonzero-order", "text")) if x != k]:
        notes.append("%s / %s: %s." % (k[0], k[1], compare(k)))
    notes.append("Ratios here are round by round (each round runs every "
                 "way once, in a rotated order), against mysqlmemprof's "
                 "statement of the same round.")
    return notes


# ------------------------------------------------------------------- main

def main():
    if not os.access(BUILT, os.X_OK):
        sys.exit("bench: %s is missing; run make first" % BUILT)
    # Everything the run executes lives in its own folder, the program
    # under test copied there: a rebuild or a `make clean` in the tree
    # during the run changes nothing.
    workdir = tempfile.mkdtemp(prefix="mmp-bench-")
    bindir = os.path.join(workdir, "bin")
    os.mkdir(bindir)
    helpers = build_helpers(bindir)
    helpers["mysqlmemprof"] = os.path.join(bindir, "mysqlmemprof")
    shutil.copy2(BUILT, helpers["mysqlmemprof"])
    res = {"date": benchlib.now_utc(),
           "load": [open("/proc/loadavg").read().split()[0], None]}
    started = time.monotonic()
    server = Server()
    target = holder = None
    try:
        target = Holder(helpers["hold"], server, 1, TARGET_USER,
                        TARGET_PASSWORD, TARGET_DB, TARGET_WORK)
        thread = int(server.sql(
            "SELECT THREAD_ID FROM performance_schema.threads "
            "WHERE PROCESSLIST_ID = %d" % target.ids[0])[0][0])
        b = Bench(server, helpers, thread, workdir)
        rows = server.sql(
            "SELECT SUM(COUNT_ALLOC > 0 OR COUNT_FREE > 0), COUNT(*) FROM "
            "performance_schema.memory_summary_by_thread_by_event_name "
            "WHERE THREAD_ID = %d" % thread)[0]
        res.update(thread=thread, server_version=server.version,
                   target_rows=[int(x) for x in rows],
                   threads=server.thread_count(),
                   versions=tool_versions(helpers["mysqlmemprof"],
                                          b.driver, b.python))
        res["mmp_sql"] = b.capture_mmp_sql()
        log("server %s, target thread %d" % (server.version, thread))

        who = ["mysqlmemprof", "python", "shell", "floor", "floor-nonzero",
               "floor-paced"]
        res["cost"] = {w: [] for w in who}
        for rnd in range(COST_ROUNDS):
            rate = server.idle_rate(IDLE_S)
            order = who[rnd % len(who):] + who[:rnd % len(who)]
            for w_ in order:
                log("cost round %d: %s (idle %.1f ms/s)"
                    % (rnd + 1, w_, rate * 1000))
                res["cost"][w_].append(b.cost_run(w_, rate))

        res["timing250"] = []
        for rnd in range(ROUNDS):
            log("timing round %d: %d samples at %d ms"
                % (rnd + 1, TIMING_N, TIMING_MS))
            res["timing250"].append(b.timing_pair())

        res["rate"], res["floor_rate"] = [], []
        for rnd in range(ROUNDS):
            rate = server.idle_rate(IDLE_S / 2)
            log("rate round %d" % (rnd + 1))
            res["rate"].append(b.rate_run())
            res["floor_rate"].append(
                b.floor_handshake("all", "text", RATE_S, rate))

        res["alt"] = {}
        for rnd in range(ALT_ROUNDS):
            rate = server.idle_rate(IDLE_S / 2)
            log("query alternatives round %d" % (rnd + 1))
            ways = [MMP] + [(q, p) for q in ALT_QUERIES for p in ALT_PROTOS]
            shift = rnd * len(ways) // ALT_ROUNDS
            for q, p in ways[shift:] + ways[:shift]:
                res["alt"].setdefault((q, p), []).append(
                    b.floor_handshake(q, p, ALT_S, rate))

        log("RSS run: %d samples at --frequency 1" % RSS_MARKS[-1])
        res["rss"] = b.rss_run()

        res["scale"] = {}
        for lvl in SCALE_LEVELS:
            holder = Holder(helpers["hold"], server, lvl) if lvl else None
            runs = []
            threads = server.thread_count()
            for rnd in range(ROUNDS):
                rate = server.idle_rate(IDLE_S / 2)
                log("threads %d (%d idle connections) round %d"
                    % (threads, lvl, rnd + 1))
                runs.append(b.scale_run(rate))
            s = {k: median([r[k] for r in runs]) for k in runs[0]}
            s["threads"] = threads
            res["scale"][lvl] = s
            if holder:
                holder.close()
                holder = None
    finally:
        for h in (holder, target):
            if h:
                h.close()
        server.stop()
        if os.environ.get("MMP_BENCH_KEEP_FILES") != "1":
            subprocess.run(["rm", "-rf", workdir])
    res["load"][1] = open("/proc/loadavg").read().split()[0]

    text, targets = report(res)
    text += ("\nThe whole run took %.0f s.\n" % (time.monotonic() - started))
    write_section(RESULTS, RUN_SECTION, text)
    raw = dict(res, alt={"%s/%s" % k: v for k, v in res["alt"].items()})
    benchlib.write_raw(os.path.splitext(RESULTS)[0] + ".json", raw)
    print(text)
    log("wrote its section of %s" % os.path.relpath(RESULTS))
    return 0


if __name__ == "__main__":
    sys.exit(main())
