#!/usr/bin/env python3
"""make bench, last part: what `mysqlmemprof --record` costs the server it
records, and the disk it fills, on MariaDB 10.11 and on MySQL 9.7.

Each server is a throwaway one (tests/sandbox.sh in a folder of its own),
started with room for 1,200 connections; the idle connections are held by
bench/hold as the sandbox's `loader` account, another account than the
recorder's. At 1 s (the mode's default):

  cpu     the server process's CPU (utime + stime of /proc/PID/stat, all
          its threads) over windows of WINDOW_S seconds with the recorder
          running and with none, interleaved in rounds (the order turns
          each round), at 0, 100 and 1,000 idle connections; as the
          recorder root over the socket (PROCESS: MariaDB's
          information_schema.PROCESSLIST, MySQL's performance_schema.
          threads) and, on MariaDB, as the sandbox's `mmp` account, which
          lacks PROCESS (the summed performance_schema way, every 30 s).
          A window opens WARM_S after the recorder starts and lasts 30 s,
          so it holds thirty samples, exactly three of the events' reads
          made every 10 s and one of the summed way's every 30 s. The figure is the recorder's window less the no-recorder
          window of its round, as % of one core: median and range. The
          target (issue 26): under 1% of one core at 1,000 connections.
  disk    the bytes the recorder adds to DIR/segments in a window, scaled
          to an hour, at 10, 100 and 1,000 idle connections and at 1,000
          with a tenth of them changing their memory every second (hold
          -a); with the full list of connections each segment begins with,
          and what a day costs with the default bounds.
  where   at 1,000 connections, each account: the recorder's statements
          caught in the general log over one window (how many of each in
          30 s), then each sent back to back by bench/floor for a while
          with the server's CPU read around it: what each costs, so that
          the cost of a window is seen query by query.

Rewrites the section `record` of bench/RESULTS.md whole (the others are
left as they are) and the raw runs in RESULTS-record.json. About 16
minutes on two cores. Standard library only. MMP_BENCH_QUICK=1 shortens
it to a smoke test; MMP_SERVERS=mysql (or mariadb) runs one server only.
"""
import json
import os
import re
import shutil
import signal
import subprocess
import time

import benchlib
from benchlib import (QUICK, RESULTS, TARGET_PASSWORD, TARGET_USER,
                      Holder, Server, child_env, fmt, log,
                      median, met, stamp, table, write_raw, write_section)

SECTION = benchlib.RECORD_SECTION
SERVERS = os.environ.get("MMP_SERVERS", "mariadb mysql").split()
LEVELS = [0, 100] if QUICK else [0, 100, 1000]
TOP = LEVELS[-1]
# Rounds at each level: the target's level gets the most.
ROUNDS = {0: 1, 100: 1} if QUICK else {0: 1, 100: 1, 1000: 2}
WINDOW_S = 30                   # whole beats: three of the events' 10 s, one of the 30 s summed way
WARM_S = 3                      # the recorder connects and writes its start
DISK_ONLY = 10                  # disk at 10 connections: no CPU rounds
DISK_WINDOW_S = 10 if QUICK else 20     # its windows: whole beats too
ACTIVE_SHARE = 10               # % of the connections changing each second
FLOOR_S = 1 if QUICK else 2     # each statement back to back, in "where"
TARGET_PCT = 1.0                # issue 26: % of one core at 1,000
MAX_CONNECTIONS = 1200
# The defaults of the segments' bounds (man page, BLACK BOX): a segment
# holds at most a sixteenth of --record-size (64 KiB to 16 MiB) and spans
# at most an hour; each begins with the full list of connections.
RECORD_SIZE = 256 << 20
SEGMENT_CAP = min(16 << 20, max(64 << 10, RECORD_SIZE // 16))
RECORD_AGE_H = 24


def account_list(kind):
    """(name, user, password, how it reads the connections)."""
    out = [("root", "root", "", "PROCESS")]
    if kind == "mariadb":
        out.append(("mmp", benchlib.USER, benchlib.PASSWORD,
                    "no PROCESS: summed performance_schema every 30 s"))
    return out


def proc_cpu_s(pid):
    with open("/proc/%d/stat" % pid) as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / benchlib.CLK_TCK


def dir_bytes(path):
    total = 0
    for name in os.listdir(path):
        total += os.path.getsize(os.path.join(path, name))
    return total


class Recorder:
    """One `mysqlmemprof --record DIR` on the server, as one account."""

    def __init__(self, exe, server, account, workdir, tag):
        _, user, password, _ = account
        self.dir = os.path.join(workdir, "rec-%s" % tag)
        self.err = self.dir + ".err"
        shutil.rmtree(self.dir, ignore_errors=True)
        with open(self.err, "w") as err:
            self.proc = subprocess.Popen(
                [exe, "--no-defaults", "-S", server.socket, "-u", user,
                 "--record", self.dir],
                stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                stderr=err, env=child_env(password))
        self.t0 = time.monotonic()

    def segments_bytes(self):
        return dir_bytes(os.path.join(self.dir, "segments"))

    def cpu_s(self):
        return proc_cpu_s(self.proc.pid)

    def alive(self):
        if self.proc.poll() is not None:
            with open(self.err) as f:
                raise RuntimeError("the recorder exited %d: %s" % (
                    self.proc.returncode, f.read().strip()[-500:]))

    def mark(self):
        """Where the segments end now: the newest one and its size."""
        seg = os.path.join(self.dir, "segments")
        last = sorted(os.listdir(seg))[-1]
        return last, os.path.getsize(os.path.join(seg, last))

    def lines_since(self, mark):
        """What the lines written since mark hold: the connections lines'
        bytes and rows, and the samples' bytes."""
        seg = os.path.join(self.dir, "segments")
        out = {"conn_bytes": 0, "conn_rows": 0, "sample_bytes": 0}
        for name in sorted(os.listdir(seg)):
            if name < mark[0]:
                continue
            with open(os.path.join(seg, name), "rb") as f:
                if name == mark[0]:
                    f.seek(mark[1])
                for line in f:
                    if line.startswith(b'{"type":"connections"'):
                        out["conn_bytes"] += len(line)
                        out["conn_rows"] += len(json.loads(line)["rows"])
                    elif line.startswith(b'{"sample"'):
                        out["sample_bytes"] += len(line)
        return out

    def full_bytes(self):
        """The first segment's start: its record line and the full list of
        connections, the bytes each new segment repeats."""
        seg = os.path.join(self.dir, "segments")
        first = sorted(os.listdir(seg))[0]
        record = full = 0
        with open(os.path.join(seg, first), "rb") as f:
            for line in f:
                if line.startswith(b'{"type":"record"') and not record:
                    record = len(line)
                elif line.startswith(b'{"type":"connections"'):
                    full = len(line)
                    break
        return record + full

    def stop(self):
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGINT)
            try:
                self.proc.wait(timeout=20)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        shutil.rmtree(self.dir, ignore_errors=True)

    def sleep_until(self, seconds):
        """Sleeps until seconds after the start, checking it still runs."""
        left = self.t0 + seconds - time.monotonic()
        if left > 0:
            time.sleep(left)
        self.alive()


def window_off(server, seconds=WINDOW_S):
    c0, t0 = server.cpu_s(), time.monotonic()
    time.sleep(seconds)
    c1, t1 = server.cpu_s(), time.monotonic()
    return {"server_s": c1 - c0, "wall": t1 - t0}


def window_on(server, exe, account, workdir, tag, seconds=WINDOW_S):
    """The recorder running: the server's CPU and the recorder's in a
    window opened WARM_S after its start, and the bytes it wrote then."""
    rec = Recorder(exe, server, account, workdir, tag)
    try:
        rec.sleep_until(WARM_S)
        c0, r0, b0, t0 = (server.cpu_s(), rec.cpu_s(), rec.segments_bytes(),
                          time.monotonic())
        mark = rec.mark()
        rec.sleep_until(WARM_S + seconds)
        c1, r1, b1, t1 = (server.cpu_s(), rec.cpu_s(), rec.segments_bytes(),
                          time.monotonic())
        w = {"server_s": c1 - c0, "client_s": r1 - r0, "wall": t1 - t0,
             "bytes": b1 - b0, "start_bytes": b0,
             "full_bytes": rec.full_bytes()}
        w.update(rec.lines_since(mark))
        return w
    finally:
        rec.stop()


def pct(seconds, wall):
    return 100.0 * seconds / wall


class Crowd:
    """The idle connections, grown level by level (bench/hold, as loader)."""

    def __init__(self, hold, server):
        self.hold, self.server, self.holders = hold, server, []

    def count(self):
        return sum(len(h.ids) for h in self.holders)

    def grow_to(self, n):
        if n > self.count():
            self.holders.append(Holder(self.hold, self.server,
                                       n - self.count(), TARGET_USER,
                                       TARGET_PASSWORD))

    def close(self):
        for h in self.holders:
            h.close()
        self.holders = []


class Active:
    """k connections of hold -a: each changes its memory every second."""

    def __init__(self, hold, server, k):
        self.proc = subprocess.Popen(
            [hold, "-S", server.socket, "-u", TARGET_USER, "-a", str(k),
             str(k)], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
            env=child_env(TARGET_PASSWORD), text=True)
        if not self.proc.stdout.readline():
            self.proc.wait()
            raise RuntimeError("hold -a %d failed" % k)

    def close(self):
        self.proc.stdin.close()
        self.proc.wait(timeout=60)


# ------------------------------------------------------------------ where

QUERY_RE = re.compile(r"\t\s*(\d+) (Query|Execute)\t(.*)$")


def capture_statements(server, exe, account, workdir):
    """The recorder's statements over one window (WARM_S to WARM_S +
    WINDOW_S after its start), from the general log: {text: count}."""
    path = os.path.join(benchlib.SANDBOX_DIR, "general-%s.log" % account[0])
    with server.general_log(path):
        rec = Recorder(exe, server, account, workdir, "log-" + account[0])
        try:
            rec.sleep_until(WARM_S)
            off0 = os.path.getsize(path)
            rec.sleep_until(WARM_S + WINDOW_S)
            off1 = os.path.getsize(path)
        finally:
            rec.stop()
    with open(path, "rb") as f:
        f.seek(off0)
        text = f.read(off1 - off0).decode("utf-8", "replace")
    os.remove(path)
    by_id = {}
    for line in text.splitlines():
        m = QUERY_RE.search(line)
        if m:
            by_id.setdefault(m.group(1), {})
            d = by_id[m.group(1)]
            d[m.group(3)] = d.get(m.group(3), 0) + 1
    if not by_id:
        return {}
    # The recorder's connection is the one that said most; the sandbox
    # and the holders say nothing meanwhile.
    return max(by_id.values(), key=lambda d: sum(d.values()))


def time_statement(server, floor, account, sql, idle_rate):
    """What one execution of sql costs the server (ms of CPU) and takes
    (ms of wall time), sent back to back by bench/floor for FLOOR_S."""
    _, user, password, _ = account
    proc = subprocess.Popen(
        [floor, "-S", server.socket, "-u", user, "--thread", "1",
         "--seconds", str(FLOOR_S), "--handshake", "--sql", sql,
         "--proto", "text"],
        stdin=subprocess.PIPE, stdout=subprocess.PIPE,
        stderr=subprocess.PIPE, env=child_env(password), text=True)
    ready = proc.stdout.readline()
    if not ready.startswith("ready"):
        proc.wait()
        raise RuntimeError("floor did not run %s: %s" % (
            sql[:80], proc.stderr.read().strip()))
    s0 = server.cpu_s()
    proc.stdin.write("go\n")
    proc.stdin.flush()
    done = proc.stdout.readline()
    s1 = server.cpu_s()
    proc.stdin.close()
    proc.wait()
    d = benchlib.parse_kv(done)
    n, wall = d["n"], d["wall_ns"] / 1e9
    return {"n": n, "rows": d["rows"],
            "server_ms": max(0.0, s1 - s0 - idle_rate * wall) / n * 1e3,
            "latency_ms": d["query_ns"] / n / 1e6}


def where(server, helpers, account, workdir, idle_rate):
    counts = capture_statements(server, helpers["mysqlmemprof"], account,
                                workdir)
    out = []
    for sql, n in sorted(counts.items(), key=lambda kv: -kv[1]):
        t = time_statement(server, helpers["floor"], account, sql,
                           idle_rate)
        t.update(sql=sql, per_window=n,
                 pct=pct(n * t["server_ms"] / 1e3, WINDOW_S))
        out.append(t)
        log("  %s: %d in %d s, %.2f ms of server CPU each, %.2f%% of a "
            "core: %s" % (account[0], n, WINDOW_S, t["server_ms"],
                          t["pct"], sql[:90]))
    return out


# ------------------------------------------------------------------- runs

def cpu_rounds(server, helpers, accounts, workdir, level, res):
    states = ["off"] + [a[0] for a in accounts]
    by_name = {a[0]: a for a in accounts}
    runs = []
    for r in range(ROUNDS.get(level, 2)):
        k = r % len(states)
        row = {}
        for s in states[k:] + states[:k]:
            if s == "off":
                row[s] = window_off(server)
            else:
                row[s] = window_on(server, helpers["mysqlmemprof"],
                                   by_name[s], workdir,
                                   "%d-%d-%s" % (level, r, s))
        runs.append(row)
        log("%d connections, round %d: %s" % (level, r + 1, ", ".join(
            "%s %.2f%%" % (s, pct(row[s]["server_s"], row[s]["wall"]))
            for s in states)))
    res.setdefault("cpu", {})[str(level)] = runs


def disk_window(server, helpers, account, workdir, tag):
    w = window_on(server, helpers["mysqlmemprof"], account, workdir, tag,
                  DISK_WINDOW_S)
    log("disk %s: %d bytes in %.1f s, full list %d bytes" % (
        tag, w["bytes"], w["wall"], w["full_bytes"]))
    return w


def run_server(kind, helpers, workdir):
    os.environ["MMP_SERVER"] = kind
    benchlib.SANDBOX_DIR = os.path.join(workdir, "sandbox-" + kind)
    started = time.monotonic()
    res = {"kind": kind, "load": [open("/proc/loadavg").read().split()[0]]}
    server = Server(MAX_CONNECTIONS)
    crowd = Crowd(helpers["hold"], server)
    accounts = account_list(kind)
    root = accounts[0]
    try:
        res["version"] = server.version
        log("%s %s, pid %d" % (kind, server.version, server.pid))
        res["disk"] = {}
        crowd.grow_to(DISK_ONLY)
        res["disk"][str(DISK_ONLY)] = disk_window(
            server, helpers, root, workdir, "disk-%d" % DISK_ONLY)
        crowd.close()
        for level in LEVELS:
            crowd.grow_to(level)
            cpu_rounds(server, helpers, accounts, workdir, level, res)
        idle = median([pct(r["off"]["server_s"], r["off"]["wall"]) / 100
                       for r in res["cpu"][str(TOP)]])
        res["where"] = {}
        for a in accounts:
            log("where the cost is at %d connections, %s" % (TOP, a[0]))
            res["where"][a[0]] = where(server, helpers, a, workdir, idle)
        # A tenth of the connections changing every second: the idle
        # holder of the first level's share makes way for an active one.
        k = TOP * ACTIVE_SHARE // 100
        crowd.close()
        crowd.grow_to(TOP - k)
        active = Active(helpers["hold"], server, k)
        try:
            res["disk"]["%d-active" % TOP] = disk_window(
                server, helpers, root, workdir, "disk-%d-active" % TOP)
        finally:
            active.close()
        res["active"] = k
    finally:
        crowd.close()
        server.stop()
    res["load"].append(open("/proc/loadavg").read().split()[0])
    res["seconds"] = time.monotonic() - started
    return res


# ----------------------------------------------------------------- report

def spread(values, digits=2):
    return "%s (%s to %s)" % (fmt(median(values), digits),
                              fmt(min(values), digits),
                              fmt(max(values), digits))


def cost_rows(res, accounts):
    """Per level and account: the server's CPU with none and with the
    recorder, the difference by round, and the recorder's own CPU."""
    rows = []
    for level in LEVELS:
        runs = res["cpu"][str(level)]
        off = [pct(r["off"]["server_s"], r["off"]["wall"]) for r in runs]
        for a in accounts:
            on = [pct(r[a[0]]["server_s"], r[a[0]]["wall"]) for r in runs]
            diff = [x - y for x, y in zip(on, off)]
            client = [pct(r[a[0]]["client_s"], r[a[0]]["wall"])
                      for r in runs]
            rows.append({"level": level, "account": a, "off": off, "on": on,
                         "diff": diff, "client": client})
    return rows


def hourly(w):
    """Bytes an hour: the steady rate of the window, and the full list of
    connections each segment begins with (one an hour at least)."""
    steady = w["bytes"] / w["wall"] * 3600
    segments = max(1.0, steady / SEGMENT_CAP)
    return steady, steady + segments * w["full_bytes"]


def mib(b):
    return "%.2f MiB" % (b / (1 << 20)) if b >= (1 << 20) else \
        "%.0f KiB" % (b / 1024.0)


def report(all_res, date, tree, seconds):
    out = ["## The black box's cost: `--record` at 1 s (bench/record_cost.py)",
           "", stamp("bench/record_cost.py", date, tree), ""]
    out.append(
        "Each server a throwaway one (tests/sandbox.sh) on %s cores; the "
        "idle connections are held by bench/hold as the `loader` account. "
        "**Server CPU**: utime + stime of the server process over windows "
        "of %d s, opened %d s after the recorder's start (a sample a "
        "second, three reads of the events' 10-s beat and one of the "
        "summed way's 30-s in each), against a window with no "
        "recorder in the same round; the order turns each round. `root` "
        "over the socket has PROCESS; `mmp` (MariaDB) has only SELECT on "
        "performance_schema. Figures are %% of one core: median (lowest "
        "to highest) over the rounds. \"recorder's own\" is the "
        "mysqlmemprof process's CPU, for scale." % (
            os.cpu_count(), WINDOW_S, WARM_S))
    verdicts = []
    for res in all_res:
        accounts = account_list(res["kind"])
        out += ["", "### %s %s" % (
            "MariaDB" if res["kind"] == "mariadb" else "MySQL",
            res["version"]), ""]
        rows = []
        for c in cost_rows(res, accounts):
            rows.append([
                "{:,}".format(c["level"]), "%s (%s)" % (c["account"][0],
                                                        c["account"][3]),
                len(c["diff"]), spread(c["off"]), spread(c["on"]),
                "**%s**" % spread(c["diff"]), spread(c["client"])])
            if c["level"] == TOP:
                ok = median(c["diff"]) < TARGET_PCT
                verdicts.append((res, c, ok))
        out.append(table(["idle connections", "recorder's account",
                          "rounds", "server, no recorder",
                          "server, recording", "the recorder's cost",
                          "recorder's own"], rows))
        out += ["", "Target (issue 26): under %g%% of one core at %s "
                "connections:" % (TARGET_PCT, "{:,}".format(TOP))]
        for r, c, ok in verdicts:
            if r is res:
                out.append("- %s: %s, %s%% (rounds %s to %s%%)." % (
                    c["account"][0], met(ok), fmt(median(c["diff"]), 2),
                    fmt(min(c["diff"]), 2), fmt(max(c["diff"]), 2)))
        # Disk.
        out += ["", "**Disk** (the root recorder; bytes added to "
                "DIR/segments in the window, scaled to an hour; a segment "
                "begins with the record line and the full list of "
                "connections, and one begins at least every hour and every "
                "%s):" % mib(SEGMENT_CAP), ""]
        drows = []
        cases = [(str(DISK_ONLY), "%d idle" % DISK_ONLY, res["disk"][
            str(DISK_ONLY)])]
        for level in LEVELS:
            if level in (0, DISK_ONLY):
                continue
            ws = [r["root"] for r in res["cpu"][str(level)]]
            w = {k: sum(x[k] for x in ws) for k in (
                "bytes", "wall", "conn_bytes", "conn_rows", "sample_bytes")}
            w["full_bytes"] = int(median([x["full_bytes"] for x in ws]))
            cases.append((str(level), "{:,} idle".format(level), w))
        key = "%d-active" % TOP
        cases.append((key, "{:,}, {:,} changing every second".format(
            TOP, res["active"]), res["disk"][key]))
        for _, name, w in cases:
            steady, total = hourly(w)
            hours = min(RECORD_AGE_H, RECORD_SIZE / (total) if total else 0)
            drows.append([name, "%.0f s" % w["wall"],
                          "{:,}".format(w["bytes"]),
                          "{:,}".format(round(w["sample_bytes"] / w["wall"])),
                          "%.1f" % (w["conn_rows"] / w["wall"]),
                          "{:,}".format(round(w["conn_bytes"] / w["conn_rows"]))
                          if w["conn_rows"] else "-",
                          "{:,}".format(w["full_bytes"]), mib(steady),
                          "**%s**" % mib(total), mib(total * 24),
                          "%.1f h" % hours])
            res.setdefault("disk_hourly", {})[name] = total
        out.append(table(["connections", "window", "bytes in it",
                          "samples' bytes a second",
                          "changed rows a second", "bytes a changed row",
                          "a segment's start", "an hour, steady",
                          "an hour, with segment starts", "a day",
                          "256 MiB (the default) holds"], drows))
        # Where.
        out += ["", "**Where the cost is**, at {:,} connections: each "
                "statement the recorder sent in one {}-s window (the "
                "general log), then sent back to back by bench/floor for "
                "{} s as the same account with the server's CPU read "
                "around it (less the server's idle rate):".format(
                    TOP, WINDOW_S, FLOOR_S), ""]
        wrows = []
        for a in accounts:
            total = 0.0
            for q in res["where"][a[0]]:
                total += q["pct"]
                sql = q["sql"] if len(q["sql"]) <= 110 else \
                    q["sql"][:107] + "..."
                wrows.append([a[0], "`%s`" % sql.replace("|", "\\|"),
                              q["per_window"], fmt(q["latency_ms"], 2),
                              fmt(q["server_ms"], 2), fmt(q["pct"], 2)])
            wrows.append([a[0], "**all of them**", "", "", "",
                          "**%s**" % fmt(total, 2)])
        out.append(table(["account", "statement", "in %d s" % WINDOW_S,
                          "wall ms each", "server CPU ms each",
                          "% of a core"], wrows))
        out += ["", "Load average %s before, %s after; %.0f s." % (
            res["load"][0], res["load"][1], res["seconds"])]
    out += ["", "The run took %.0f s." % seconds]
    return "\n".join(out) + "\n", verdicts


def main():
    all_res, date, tree, seconds = benchlib.each_server(
        "mmp-record-", MAX_CONNECTIONS, SERVERS, run_server)
    text, verdicts = report(all_res, date, tree, seconds)
    print(text)
    write_section(RESULTS, SECTION, text)
    write_raw(os.path.join(os.path.dirname(RESULTS), "RESULTS-record.json"),
              {"date": date, "tree": tree, "servers": all_res})
    for res, c, ok in verdicts:
        log("%s, %s at %d connections: %s" % (
            res["kind"], c["account"][0], TOP, met(ok)))


if __name__ == "__main__":
    main()
