#!/usr/bin/env python3
"""make bench, after record_cost.py: how long writing an incident holds up
`mysqlmemprof --record`'s sampling, at 1,000 and 10,000 connections.

No server: bench/incident_delay (built by the Makefile against the core,
$(BUILD)/incident_delay) writes a record as the recorder writes one into a
folder of its own (12 minutes of a sample a second, the connections lines
beside them, segments turned at 16 MiB), then ticks every 1000 ms (the
mode's --frequency) as the sampling thread does and, at its third tick,
hands an incident of the last 10 minutes (the defaults) over as
src/record.c does. The connections are synthetic: idle, or a tenth of them
changing their memory every second (each second's line then holds that
tenth). For each case, over ROUNDS runs:

  delay     the latest a tick began after the incident was handed over,
            until its page was written: the sampling delay (the longest
            over the rounds; the target, issue 31: under one tick)
  held      how long the sampling thread itself spent on the incident
  written   how long one incident takes to write whole, timed alone
  size      the incident's .jsonl

Rewrites the section `incident` of bench/RESULTS.md whole and the raw runs
in RESULTS-incident.json. About 10 minutes on two cores. Standard library
only. MMP_BENCH_QUICK=1: one round, 1,000 connections only.
"""
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time

import benchlib
from benchlib import (QUICK, RESULTS, fmt, log, median, stamp, table,
                      write_raw, write_section)

SECTION = benchlib.INCIDENT_SECTION
DRIVER = os.path.join(benchlib.ROOT, os.environ.get("BUILD", "build"),
                      "incident_delay")
# (connections, changing each second)
CASES = [(1000, 0), (1000, 100)] if QUICK else [
    (1000, 0), (1000, 100), (10000, 0), (10000, 1000)]
ROUNDS = 1 if QUICK else 3
TICK_MS = 1000


def run_once(workdir, n, changing, i):
    folder = os.path.join(workdir, "r-%d-%d-%d" % (n, changing, i))
    r = subprocess.run([DRIVER, folder, str(n), str(changing)],
                       capture_output=True, text=True)
    if r.returncode != 0:
        raise RuntimeError("incident_delay %d %d: %s" % (
            n, changing, r.stderr.strip()))
    m = dict(re.findall(r"(\w+)=(\d+)", r.stdout))
    shutil.rmtree(folder, ignore_errors=True)
    return {k: int(v) for k, v in m.items()}


def report(runs, date, tree, took):
    rows = []
    for (n, changing), rs in runs:
        delay = max(r["delay_ms"] for r in rs)
        rows.append([
            "{:,}".format(n),
            "{:,}".format(changing) if changing else "none (idle)",
            "{:,} ms".format(delay),
            "%s ms" % fmt(median([r["held_ms"] for r in rs]), 0),
            "%s s" % fmt(median([r["written_ms"] for r in rs]) / 1000.0),
            "%s MiB" % fmt(median([r["jsonl_bytes"] for r in rs]) /
                           (1 << 20)),
            "met" if delay < TICK_MS else "**not met**"])
    text = ["## Writing an incident while recording: `--record` at 1 s "
            "(bench/incident_delay.py)", "",
            stamp("bench/incident_delay.py", date, tree), "",
            "A record of 12 minutes written by bench/incident_delay as the "
            "recorder writes one (synthetic connections: idle, or a tenth "
            "changing their memory each second), then an incident of its "
            "last 10 minutes handed over at a tick of 1000 ms as "
            "src/record.c does. *Longest delay*: the latest a tick began "
            "after it, until the incident was written, over %d round%s "
            "(target: under one tick, issue 31); *sampling thread*: its "
            "own time on the incident (median); *written in*: one "
            "incident written whole, timed alone (median)." % (
                ROUNDS, "s" if ROUNDS > 1 else ""), "",
            table(["connections", "changing each second", "longest delay",
                   "sampling thread", "written in", "incident's .jsonl",
                   "under one tick"], rows), "",
            "%s, %d cores. The run took %d s." % (
                benchlib.cpu_model(), os.cpu_count() or 0, took)]
    return "\n".join(text) + "\n"


def main():
    if not os.access(DRIVER, os.X_OK):
        sys.exit("bench: %s is missing; run make %s first" % (
            DRIVER, os.path.relpath(DRIVER, benchlib.ROOT)))
    date, tree = benchlib.now_utc(), benchlib.tree()
    workdir = tempfile.mkdtemp(prefix="mmp-incident-")
    started = time.monotonic()
    runs = []
    try:
        for n, changing in CASES:
            rs = []
            for i in range(ROUNDS):
                r = run_once(workdir, n, changing, i)
                log("incident at %d connections, %d changing: %s" % (
                    n, changing, r))
                rs.append(r)
            runs.append(((n, changing), rs))
    finally:
        shutil.rmtree(workdir, ignore_errors=True)
    text = report(runs, date, tree, time.monotonic() - started)
    print(text)
    write_section(RESULTS, SECTION, text)
    write_raw(os.path.join(os.path.dirname(RESULTS),
                           "RESULTS-incident.json"),
              {"date": date, "tree": tree,
               "cases": [{"connections": n, "changing": c, "runs": rs}
                         for (n, c), rs in runs]})


if __name__ == "__main__":
    main()
