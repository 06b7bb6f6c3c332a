"""What bench/run.py and bench/overhead.py share: the throwaway server, the
idle connections, the samplers' command lines and the report's helpers.

Standard library only. Nothing here measures on its own; each script
decides what to run and writes its part of RESULTS.md.
"""
import contextlib
import datetime
import json
import math
import os
import platform
import re
import resource
import shlex
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
BENCH = os.path.join(ROOT, "bench")
BUILT = os.path.join(ROOT, "mysqlmemprof")
SANDBOX = os.path.join(ROOT, "tests", "sandbox.sh")
# Which server (tests/sandbox.sh's MMP_SERVER): mariadb, the default, or
# mysql, which writes sections of its own (see section_name()).
SERVER_KIND = os.environ.get("MMP_SERVER", "mariadb")
SANDBOX_DIR = os.environ.get("MMP_BENCH_SANDBOX_DIR",
                             "/tmp/mmp-bench-%d%s" % (
                                 os.getuid(), "" if SERVER_KIND == "mariadb"
                                 else "-" + SERVER_KIND))
RESULTS = os.environ.get("MMP_BENCH_RESULTS",
                         os.path.join(BENCH, "RESULTS.md"))
USER, PASSWORD = "mmp", "mmp-pass"
# The target: a loader connection that did some work once and now idles, so
# it holds memory of a couple dozen kinds, as a real connection does.
TARGET_USER, TARGET_PASSWORD, TARGET_DB = "loader", "loader-pass", "demo"
# SQL both servers take: 5,000 rows from a recursive WITH of 100 (MySQL's
# cte_max_recursion_depth is 1,000), not MariaDB's sequence engine.
TARGET_WORK = [
    "DROP TABLE IF EXISTS bench_t",
    "CREATE TABLE bench_t (id INT PRIMARY KEY AUTO_INCREMENT, "
    "k INT, s VARCHAR(200), KEY (k)) ENGINE=InnoDB",
    "INSERT INTO bench_t (k, s) SELECT seq % 97, "
    "REPEAT(CHAR(65 + seq % 26), 100) FROM (WITH RECURSIVE d (n) AS "
    "(SELECT 0 UNION ALL SELECT n + 1 FROM d WHERE n < 99) "
    "SELECT a.n * 100 + b.n + 1 AS seq FROM d a, d b WHERE a.n < 50) AS s",
    "SELECT k, COUNT(*), GROUP_CONCAT(s ORDER BY id) FROM bench_t "
    "GROUP BY k ORDER BY 2 DESC",
    "CREATE TEMPORARY TABLE tmp_t AS SELECT * FROM bench_t WHERE k < 10",
    "SELECT a.k, COUNT(*) FROM bench_t a JOIN tmp_t b ON a.k = b.k "
    "GROUP BY a.k",
    "SELECT table_name, column_name FROM information_schema.columns "
    "ORDER BY column_type",
]
QUICK = os.environ.get("MMP_BENCH_QUICK") == "1"
CLK_TCK = os.sysconf("SC_CLK_TCK")


def scaled(n, minimum=2):
    """A count of the full run, or a tenth of it for a smoke test."""
    return max(minimum, n // 10) if QUICK else n

# The statement mysqlmemprof prepares and executes for each sample is
# captured from the server's general log at the start of a run, so the
# bench follows src/pfs_read.c as it changes; floor_handshake() sends it
# for MMP as mysqlmemprof does, a prepared statement (binary protocol).
MMP = ("mmp", "binary")
CAPTURE_MS = 10                         # interval of the capture run


def log(msg):
    print("bench: %s" % msg, file=sys.stderr, flush=True)


# ---------------------------------------------------------------- helpers

def percentile(values, p):
    """Nearest-rank percentile of a non-empty list."""
    s = sorted(values)
    k = max(0, math.ceil(p / 100.0 * len(s)) - 1)
    return s[k]


def median(values):
    values = [v for v in values if v is not None]
    return statistics.median(values) if values else None


def child_env(password=PASSWORD):
    env = dict(os.environ)
    env["MYSQL_PWD"] = password
    env["LC_ALL"] = "C"
    return env


def reap(proc):
    """Waits for proc with wait4; returns its resource usage (children too)."""
    _, status, ru = os.wait4(proc.pid, 0)
    proc.returncode = os.waitstatus_to_exitcode(status)
    return ru


def python_for_sampler():
    """Debian's interpreter, where apt puts python3-pymysql."""
    for exe in ("/usr/bin/python3", sys.executable):
        if os.access(exe, os.X_OK) and subprocess.run(
                [exe, "-c", "import pymysql"], stderr=subprocess.DEVNULL
        ).returncode == 0:
            return exe, "pymysql"
    for exe in ("/usr/bin/python3", sys.executable):
        if os.access(exe, os.X_OK) and subprocess.run(
                [exe, "-c", "import MySQLdb"], stderr=subprocess.DEVNULL
        ).returncode == 0:
            return exe, "MySQLdb"
    sys.exit("bench: no python3-pymysql nor python3-mysqldb; run "
             "scripts/deps.sh (apt-get install python3-pymysql)")


def build_helpers(bindir):
    """Compiles the helpers into bindir; floor and hold with mysqlmemprof's
    client library."""
    def flags(var, pkg_arg, config_arg):
        v = os.environ.get(var)
        if v is not None:
            return shlex.split(v)
        r = subprocess.run(["pkg-config", pkg_arg, "mysqlclient"],
                           capture_output=True, text=True)
        if r.returncode != 0:
            r = subprocess.run(["mysql_config", config_arg],
                               capture_output=True, text=True, check=True)
        return shlex.split(r.stdout)

    cc = shlex.split(os.environ.get("CC") or "cc")
    cflags = shlex.split(os.environ.get("CFLAGS") or "-O2 -g")
    cflags += ["-std=c11", "-Wall", "-Wextra", "-D_GNU_SOURCE"]
    mysql_cflags = flags("MYSQL_CFLAGS", "--cflags", "--cflags")
    mysql_libs = flags("MYSQL_LIBS", "--libs", "--libs")
    out = {}
    for name in ("floor", "hold", "rusage"):
        src = os.path.join(BENCH, name + ".c")
        exe = os.path.join(bindir, name)
        cmd = cc + cflags + mysql_cflags + ["-o", exe, src] + mysql_libs
        log(" ".join(cmd))
        subprocess.run(cmd, check=True)
        out[name] = exe
    return out


def raise_nofile(connections):
    """Room for a hold process's sockets: the soft limit of open files
    raised to the connections and some; exits when the hard one is
    lower."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    want = connections + 256
    if soft != resource.RLIM_INFINITY and soft < want:
        if hard != resource.RLIM_INFINITY and hard < want:
            sys.exit("bench: %d connections need ulimit -n %d; the hard "
                     "limit is %d" % (connections, want, hard))
        resource.setrlimit(resource.RLIMIT_NOFILE, (want, hard))


def workdir_with_helpers(prefix):
    """A new folder for a run's files, with the helpers built in its bin/
    and a copy of the built mysqlmemprof beside them: (folder, helpers)."""
    workdir = tempfile.mkdtemp(prefix=prefix)
    bindir = os.path.join(workdir, "bin")
    os.mkdir(bindir)
    try:
        helpers = build_helpers(bindir)
        helpers["mysqlmemprof"] = os.path.join(bindir, "mysqlmemprof")
        shutil.copy2(BUILT, helpers["mysqlmemprof"])
    except BaseException:
        shutil.rmtree(workdir, ignore_errors=True)
        raise
    return workdir, helpers


def each_server(prefix, connections, kinds, run_server):
    """A script that runs on each server kind in turn (record_cost.py,
    scale_cost.py): the built binary, room for the connections, the
    helpers in a new folder, then run_server(kind, helpers, workdir) for
    each kind. Returns (the results, the date, the tree, the seconds)."""
    if not os.access(BUILT, os.X_OK):
        sys.exit("bench: %s is missing; run make first" % BUILT)
    raise_nofile(connections)
    # SIGTERM ends the run through the finally blocks: the samplers, the
    # idle connections and the servers are stopped on the way out.
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(1))
    date, tree_name = now_utc(), tree()
    started = time.monotonic()
    workdir, helpers = workdir_with_helpers(prefix)
    results = []
    try:
        for kind in kinds:
            results.append(run_server(kind, helpers, workdir))
    finally:
        if os.environ.get("MMP_BENCH_KEEP_FILES") != "1":
            shutil.rmtree(workdir, ignore_errors=True)
    return results, date, tree_name, time.monotonic() - started


# ----------------------------------------------------------------- server

class Server:
    """The throwaway server: its socket, its process, SQL as root."""

    def __init__(self, max_connections=400):
        self.env = dict(os.environ, MMP_SANDBOX_DIR=SANDBOX_DIR)
        # Started with room for the connections: performance_schema sizes
        # what it keeps per thread from max_connections at start-up.
        self.env["MMP_SANDBOX_EXTRA_ARGS"] = " ".join(
            [os.environ.get("MMP_SANDBOX_EXTRA_ARGS", ""),
             "--max-connections=%d" % max_connections]).strip()
        subprocess.run([SANDBOX, "start"], env=self.env, check=True)
        self.socket = os.path.join(SANDBOX_DIR, "sock")
        with open(os.path.join(SANDBOX_DIR, "server.pid")) as f:
            self.pid = int(f.read().strip())
        # A server kept from an earlier run (MMP_BENCH_KEEP_SERVER) was
        # started with fewer.
        # (Compared here: MySQL refuses GREATEST()'s type for it.)
        if int(self.sql("SELECT @@max_connections")[0][0]) < max_connections:
            self.sql("SET GLOBAL max_connections = %d" % max_connections)
        self.version = self.sql("SELECT VERSION()")[0][0]

    def stop(self):
        if os.environ.get("MMP_BENCH_KEEP_SERVER") == "1":
            return
        subprocess.run([SANDBOX, "stop"], env=self.env)

    def sql(self, query):
        r = subprocess.run(["mariadb", "--no-defaults", "-uroot", "-S",
                            self.socket, "-N", "-B", "-e", query],
                           capture_output=True, text=True, check=True)
        return [line.split("\t") for line in r.stdout.splitlines()]

    def cpu_s(self):
        """utime + stime of mysqld, all its threads, in seconds."""
        with open("/proc/%d/stat" % self.pid) as f:
            fields = f.read().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / CLK_TCK

    def idle_rate(self, seconds):
        """The server's own CPU use, in seconds per second, while idle."""
        c0, t0 = self.cpu_s(), time.monotonic()
        time.sleep(seconds)
        return (self.cpu_s() - c0) / (time.monotonic() - t0)

    @contextlib.contextmanager
    def general_log(self, path):
        """The general log on, into path, for the with block. path is in
        the sandbox's folder: MySQL's server writes inside its root, where
        the folder is (tests/sandbox.sh links it)."""
        self.sql("SET GLOBAL log_output = 'FILE'; "
                 "SET GLOBAL general_log_file = '%s'; "
                 "SET GLOBAL general_log = ON" % path)
        try:
            yield path
        finally:
            self.sql("SET GLOBAL general_log = OFF")

    def thread_count(self):
        return int(self.sql("SELECT COUNT(*) FROM "
                            "performance_schema.threads")[0][0])


class Holder:
    """A hold process keeping n idle connections open."""

    def __init__(self, exe, server, n, user=USER, password=PASSWORD,
                 db=None, work=()):
        argv = [exe, "-S", server.socket, "-u", user]
        argv += ["-D", db] if db else []
        for stmt in work:
            argv += ["-e", stmt]
        self.proc = subprocess.Popen(
            argv + [str(n)], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
            env=child_env(password), text=True)
        line = self.proc.stdout.readline()
        if not line:
            self.proc.wait()
            raise RuntimeError("hold %d failed" % n)
        self.ids = [int(x) for x in line.split()]

    def close(self):
        if self.proc.poll() is None:
            self.proc.stdin.close()
            self.proc.wait(timeout=60)


# ---------------------------------------------------------------- samplers

class Bench:
    def __init__(self, server, helpers, thread, workdir):
        self.server = server
        self.helpers = helpers
        self.thread = thread
        self.workdir = workdir
        self.python, self.driver = python_for_sampler()
        self.runs = 0
        self.mmp_sql = None

    def path(self, name):
        self.runs += 1
        return os.path.join(self.workdir, "%03d-%s" % (self.runs, name))

    def argv(self, who, interval_ms, count, out=None, timing_log=None,
             fmt="json", query_log=None, rows_every=None, write=None):
        """The command line of one sampler; count 0 runs it until SIGTERM.
        floor-paced sends mysqlmemprof's statement on its schedule,
        floor-all-paced the bare memory query (every row of the thread).
        rows_every: mysqlmemprof's --rows-every (0: the rows each tick, the
        same work as floor's); write: floor writes that many bytes a
        sample (--write)."""
        sock = self.server.socket
        if who == "mysqlmemprof":
            a = [self.helpers["mysqlmemprof"], "--no-defaults", "-q", "-S",
                 sock, "-u", USER,
                 "--thread", str(self.thread), "--frequency",
                 str(interval_ms), "--format", fmt, "--top", "4",
                 # The bench measures the sampler at the rate asked for;
                 # what --max-load saves is measured on its own.
                 "--max-load", "0"]
            a += ([] if rows_every is None else
                  ["--rows-every", str(rows_every)])
            return a + (["--count", str(count)] if count else [])
        if who == "python":
            a = [self.python, os.path.join(BENCH, "python_sampler.py"),
                 "-S", sock, "-u", USER, "-p", PASSWORD,
                 "--thread", str(self.thread),
                 "--interval", "%g" % (interval_ms / 1000.0),
                 "--count", str(count)]
            a += ["--query-log", query_log] if query_log else []
            return a + (["--timing-log", timing_log] if timing_log else [])
        if who == "shell":
            return [os.path.join(BENCH, "shell_sampler.sh"), "-S", sock,
                    "-u", USER, "-t", str(self.thread),
                    "-i", "%g" % (interval_ms / 1000.0), "-n", str(count)]
        a = [self.helpers["floor"], "-S", sock, "-u", USER,
             "--thread", str(self.thread)]
        a += ["--count", str(count)] if count else ["--seconds", "3600"]
        a += (["--query", "all"] if who in ("floor", "floor-all-paced") else
              ["--sql", self.mmp_sql, "--proto", MMP[1]])
        a += ["--write", str(write)] if write else []
        return a + (["--interval", str(interval_ms)]
                    if who in ("floor-paced", "floor-all-paced") else [])

    def measured(self, argv, out_path):
        """Runs one sampler to its end: its rusage and the server's CPU."""
        err_path = out_path + ".err"
        ru_path = out_path + ".rusage"
        with open(out_path, "w") as out, open(err_path, "w") as err:
            s0, t0 = self.server.cpu_s(), time.monotonic()
            proc = subprocess.Popen([self.helpers["rusage"], ru_path] + argv,
                                    stdin=subprocess.DEVNULL, stdout=out,
                                    stderr=err, env=child_env())
            proc.wait()
            t1, s1 = time.monotonic(), self.server.cpu_s()
        if proc.returncode != 0:
            with open(err_path) as f:
                raise RuntimeError("%s exited %d: %s" % (
                    argv[0], proc.returncode, f.read().strip()))
        with open(ru_path) as f:
            ru = parse_kv("rusage " + f.read())
        return {"wall": t1 - t0, "client": (ru["user_us"] + ru["sys_us"]) / 1e6,
                "user": ru["user_us"] / 1e6, "sys": ru["sys_us"] / 1e6,
                "maxrss_kb": ru["maxrss_kb"], "server": s1 - s0}


    def capture_mmp_sql(self):
        """The statement mysqlmemprof prepares once and executes for each
        sample, with a '?' for each thread id (floor sends it the same way,
        --proto binary)."""
        path = os.path.join(SANDBOX_DIR, "general.log")
        if os.path.exists(path):
            os.remove(path)
        with self.server.general_log(path):
            # The rows each tick: by default a thread whose own count
            # stays still has its rows read once.
            subprocess.run(self.argv("mysqlmemprof", CAPTURE_MS, 5,
                                     rows_every=0),
                           stdout=subprocess.DEVNULL, env=child_env(),
                           check=True)
        # An execution is logged with its parameters in place: it is of
        # the prepared statement whose text before the first '?' begins it
        # (not of the last one prepared: the history of a thread's
        # statements is prepared too, after the sample's).
        seen = {}
        with open(path, errors="replace") as f:
            for line in f:
                m = re.search(r"\d+ (Prepare|Execute)\t(.*)$",
                              line.rstrip("\n"))
                if m and m.group(1) == "Prepare":
                    seen.setdefault(m.group(2), 0)
                elif m:
                    for p in seen:
                        if m.group(2).startswith(p.split("?", 1)[0]):
                            seen[p] += 1
                            break
        os.remove(path)
        sql = max(seen, key=seen.get) if seen else None
        if sql is None or seen[sql] < 5:
            raise RuntimeError("could not find mysqlmemprof's query in the "
                               "general log")
        self.mmp_sql = sql
        return sql

    def floor_handshake(self, query, proto, seconds, idle_rate, sql=None):
        """floor's loop alone: its own CPU and the server's around it; sql
        in place of mysqlmemprof's statement for MMP."""
        what = (["--sql", sql or self.mmp_sql, "--proto", MMP[1]]
                if (query, proto) == MMP else
                ["--query", query, "--proto", proto])
        proc = subprocess.Popen(
            [self.helpers["floor"], "-S", self.server.socket, "-u", USER,
             "--thread", str(self.thread), "--seconds", str(seconds),
             "--handshake"] + what,
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, env=child_env(),
            text=True)
        ready = proc.stdout.readline()
        if not ready.startswith("ready"):
            proc.wait()
            raise RuntimeError("floor %s %s did not start" % (query, proto))
        s0 = self.server.cpu_s()
        proc.stdin.write("go\n")
        proc.stdin.flush()
        done = proc.stdout.readline()
        s1 = self.server.cpu_s()
        proc.stdin.close()
        proc.wait()
        d = parse_kv(done)
        n, wall = d["n"], d["wall_ns"] / 1e9
        return {"n": n, "rows": d["rows"], "qps": n / wall,
                "latency_us": wall / n * 1e6,
                "client_us": (d["user_us"] + d["sys_us"]) / n,
                "server_us": (s1 - s0 - idle_rate * wall) / n * 1e6}


def write_raw(path, data):
    """The raw runs beside RESULTS.md, indented and sorted, so that two
    runs diff line by line."""
    with open(path, "w") as f:
        json.dump(data, f, indent=1, sort_keys=True)
        f.write("\n")


def read_json(path):
    with open(path) as f:
        return [json.loads(line) for line in f if line.strip()]


def read_floats(path):
    with open(path) as f:
        return [float(x) for x in f if x.strip()]


def count_headers(path):
    with open(path, errors="replace") as f:
        return sum(1 for line in f if line.startswith("## Memory usage"))


def parse_kv(line):
    d = {}
    for tok in line.split()[1:]:
        k, _, v = tok.partition("=")
        d[k] = int(v) if v.isdigit() else v
    return d


def parse_done(path):
    with open(path) as f:
        for line in f:
            if line.startswith("done"):
                return parse_kv(line)
    raise RuntimeError("no result line in %s" % path)


# ------------------------------------------------------------------ report

def fmt(v, digits=1):
    if v is None:
        return "n/a"
    if abs(v) >= 1000:
        return "{:,.0f}".format(v)
    return "%.*f" % (digits, v)


def ratio(a, b):
    if a is None or b is None or b == 0:
        return "n/a"
    return "%.2f×" % (a / b)


def table(header, rows):
    out = ["| " + " | ".join(header) + " |",
           "|" + "|".join("---" for _ in header) + "|"]
    out += ["| " + " | ".join(str(c) for c in r) + " |" for r in rows]
    return "\n".join(out)


def met(ok):
    return "MET" if ok else "NOT MET"


def tool_versions(prog, driver, python):
    v = {}
    r = subprocess.run([prog, "--version"], capture_output=True, text=True)
    v["mysqlmemprof"] = (r.stdout or r.stderr).strip().splitlines()[0]
    r = subprocess.run(["pkg-config", "--modversion", "libmariadb"],
                       capture_output=True, text=True)
    v["client library"] = ("MariaDB Connector/C " + r.stdout.strip()
                           if r.returncode == 0 else "libmysqlclient")
    r = subprocess.run([python, "-c", "import sys, %s as d; print(sys.version"
                        ".split()[0], getattr(d, '__version__', '') or "
                        "getattr(d, 'version_info', ''))" % driver],
                       capture_output=True, text=True)
    v["python sampler"] = "%s %s (Python %s)" % (
        driver, r.stdout.split()[1] if r.stdout else "?",
        r.stdout.split()[0] if r.stdout else "?")
    v["tree"] = tree()
    return v


def tree():
    """The commit the bench runs on, as `git rev-parse --short HEAD`, with
    -dirty when a tracked file differs from it (the results files left
    out: a run writes them)."""
    r = subprocess.run(["git", "-C", ROOT, "rev-parse", "--short", "HEAD"],
                       capture_output=True, text=True)
    head = r.stdout.strip() or "?"
    r = subprocess.run(["git", "-C", ROOT, "status", "--porcelain",
                        "--untracked-files=no", "--", ".",
                        ":(exclude)bench/RESULTS*"],
                       capture_output=True, text=True)
    return head + ("-dirty" if r.stdout.strip() else "")


def now_utc():
    return datetime.datetime.now(datetime.timezone.utc).strftime(
        "%Y-%m-%d %H:%M UTC")


def stamp(script, date, tree_name):
    """The first line of every section: what wrote it, on which tree,
    when."""
    return ("Generated by `%s` on tree `%s`, %s%s." % (
        script, tree_name, date,
        "; **MMP_BENCH_QUICK=1: shortened runs, not for conclusions**"
        if QUICK else ""))


def cpu_model():
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or "?"



def paired(a_runs, b_runs, key):
    """Runs of the same rounds compared pairwise: the load of the machine
    drifts between rounds, so a's figure is set against b's of its round.
    Returns the median of a/b, and in how many rounds a was lower."""
    pairs = [(a[key], b[key]) for a, b in zip(a_runs, b_runs) if b[key]]
    r = median([x / y for x, y in pairs])
    return r, sum(1 for x, y in pairs if x < y), len(pairs)


def rounds_text(lower, n):
    """'lower in 5 of 5 rounds', or that the rounds disagree."""
    if lower == n:
        return "lower in all %d rounds" % n
    if lower == 0:
        return "higher in all %d rounds" % n
    return "lower in %d of %d rounds: not resolved" % (lower, n)


def spread_of(runs, key):
    v = [r[key] for r in runs]
    return "%s (%s–%s)" % (fmt(median(v)), fmt(min(v)), fmt(max(v)))




# Each script owns sections of RESULTS.md, marked by these lines, and
# rewrites the one it measured whole. The file is the preamble and the
# sections in this order; nothing else is kept, so no figure outlives the
# script that made it.
SECTION_BEGIN = "<!-- begin: %s -->"
SECTION_END = "<!-- end: %s -->"
RUN_SECTION = "run"                     # bench/run.py
OVERHEAD_SECTION = "overhead"           # bench/overhead.py, overhead-mysql
RECORD_SECTION = "record"               # bench/record_cost.py
INCIDENT_SECTION = "incident"           # bench/incident_delay.py
SECTIONS = [RUN_SECTION, "overhead", "overhead-mysql", "poll-mariadb",
            "poll-mysql",               # poll-*: bench/servers.sh
            "scale",                    # bench/scale_cost.py
            RECORD_SECTION, INCIDENT_SECTION,
            "heap", "heap-mysql"]       # bench/heap_cost.py
PREAMBLE = """# mysqlmemprof benchmark results

Written by `make bench` (see bench/README.md); nothing here is edited by
hand. Each section is rewritten whole by the script it names, and its first
line gives the tree (`git rev-parse --short HEAD`, `-dirty` when it differed)
and the date of that run.
"""


def section_name(name):
    """A section of RESULTS.md as the server of this run writes it: MySQL's
    beside MariaDB's, not over it."""
    return name if SERVER_KIND == "mariadb" else "%s-%s" % (name,
                                                            SERVER_KIND)


def read_section(path, name):
    """The marked part name of path, markers included, or ''."""
    try:
        with open(path) as f:
            text = f.read()
    except FileNotFoundError:
        return ""
    begin, end = SECTION_BEGIN % name, SECTION_END % name
    i = text.find(begin)
    j = text.find(end, i)
    if i < 0 or j < 0:
        return ""
    return text[i:j + len(end)] + "\n"


def write_section(path, name, body):
    """Rewrites path as the preamble and the sections of SECTIONS, name's
    with body, the others as the file had them; whatever else the file
    held (text outside the markers, a section no script writes) is
    dropped."""
    if name not in SECTIONS:
        raise ValueError("no section %r in benchlib.SECTIONS" % name)
    parts = [PREAMBLE]
    for s in SECTIONS:
        if s == name:
            parts.append("%s\n%s%s\n" % (SECTION_BEGIN % s,
                                         body.rstrip("\n") + "\n",
                                         SECTION_END % s))
        else:
            old = read_section(path, s)
            if old:
                parts.append(old)
    with open(path + ".tmp", "w") as f:
        f.write("\n".join(parts))
    os.replace(path + ".tmp", path)
