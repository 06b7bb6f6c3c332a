"""Shared helpers of the integration tests: the binary, the sandbox server
(MMP_SOCKET, MMP_PORT, MMP_HOST, MMP_SERVER from tests/sandbox.sh env) and
workloads run through the host's mariadb client, which speaks to MariaDB
and to MySQL alike."""

import atexit
import contextlib
import csv
import io
import json
import os
import re
import select
import shutil
import signal
import subprocess
import tempfile
import time
import types
import unittest

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
SQL_DIR = os.path.join(REPO, "tests", "sql")
BIN = os.environ.get("MMP_BIN") or os.path.join(REPO, "mysqlmemprof")
SOCKET = os.environ.get("MMP_SOCKET", "")
PORT = os.environ.get("MMP_PORT", "")
HOST = os.environ.get("MMP_HOST", "127.0.0.1")
# Which server the sandbox runs: "mariadb" (10.11), "mariadb11" (11.8) or
# "mysql" (tests/sandbox.sh). The tests ask for the family: MariaDB's two
# behave alike unless a test says otherwise.
SERVER = os.environ.get("MMP_SERVER", "mariadb")
SERVER_VERSION = os.environ.get("MMP_SERVER_VERSION", "")
MYSQL = SERVER == "mysql"
MARIADB = SERVER in ("mariadb", "mariadb11")
FAMILY = "mysql" if MYSQL else "mariadb"
# Which client library the binary was built with: "connector-c" (MariaDB
# Connector/C: Debian 12's 3.3, or Debian 13's 3.4) or "oracle"
# (tests/platform.sh).
CLIENT = os.environ.get("MMP_CLIENT", "connector-c")


def only_on(family, why):
    """Skips a test that cannot apply to the other server family ("mariadb"
    or "mysql"), saying why."""
    return unittest.skipUnless(FAMILY == family,
                               "%s only: %s" % (family, why))

MMP_USER = "mmp"
MMP_PASSWORD = "mmp-pass"

# What every mysqlmemprof run gets, unless a test says otherwise: the
# least-privilege account, over the socket, the password from MYSQL_PWD so
# that stderr holds no warning about a password on the command line.
CONN_ARGS = ["--socket", SOCKET, "--user", MMP_USER]

# The columns and keys of mysqlmemprof(1): the sample's own, then "Between
# samples" (gap_ms, the deltas since the previous sample, unseen peaks),
# then the statement the thread ran.
DELTA_KEYS = ["alloc_delta_bytes", "free_delta_bytes", "alloc_delta_count",
              "free_delta_count"]
STATEMENT_KEYS = ["statement_id", "digest", "statement"]
# Last, what is sampled when it is not a thread (--global, --for-*; then
# thread_id is empty) and the total of the events --events/--exclude keep.
GRAIN_KEYS = ["grain", "filtered_total_bytes"]
# Then what was switched off while sampling: empty (null) unless it was.
SETUP_KEYS = ["setup_off"]
SETUP_OFF_RE = r"^((memory_instruments|statements_consumer|thread_instrumented)(,|$))*$"
# Then 1 for a reading taken while waiting, before the capture began
# (--wait-for, --longer-than, --bigger-than), else 0.
WAITING_KEYS = ["waiting"]
# Then 1 when the events are an earlier sample's, kept between two reads
# of them at --record's slower beat, else 0.
KEPT_KEYS = ["events_kept"]
# Then the server's own count of a thread's memory each tick (MySQL
# threads.TOTAL_MEMORY, MariaDB PROCESSLIST.MEMORY_USED): null (empty) where
# none is read (a grain, --rows-every 0).
COUNT_KEYS = ["connection_bytes"]
# Then, with --global on the server's machine, its process's resident and
# anonymous bytes, the resident bytes performance_schema does not count,
# and the server's own count of its sessions' memory: null (empty) when
# not known.
PROCESS_KEYS = ["process_resident_bytes", "process_anon_bytes",
                "untracked_bytes", "status_memory_bytes"]
# Then the process's memory cgroup: its usage, its limit (null: none set)
# and the processes its OOM killer killed; v2's memory.high, the times it
# throttled, and memory.pressure's avg10s (null on v1, or without PSI);
# all null without a cgroup.
CGROUP_KEYS = ["cgroup_usage_bytes", "cgroup_limit_bytes", "cgroup_oom_kills",
               "cgroup_high_bytes", "cgroup_high_events",
               "cgroup_pressure_some_bp", "cgroup_pressure_full_bp"]
CSV_HEADER = ["sample", "elapsed_ms", "timestamp", "thread_id", "event_name",
              "current_bytes", "current_count", "high_bytes", "alloc_bytes",
              "free_bytes", "alloc_count", "free_count", "total_bytes",
              "late_us", "query_us", "gap_ms"] + DELTA_KEYS + \
    ["unseen_peak_bytes", "spike_lower_bytes"] + STATEMENT_KEYS + \
    GRAIN_KEYS + SETUP_KEYS + \
    WAITING_KEYS + KEPT_KEYS + COUNT_KEYS + PROCESS_KEYS + CGROUP_KEYS
CSV_INT_COLUMNS = [c for c in CSV_HEADER if c not in
                   ["timestamp", "event_name", "unseen_peak_bytes",
                    "spike_lower_bytes",
                    "thread_id"] + DELTA_KEYS + STATEMENT_KEYS + GRAIN_KEYS +
                   SETUP_KEYS + COUNT_KEYS + PROCESS_KEYS + CGROUP_KEYS]
EVENT_KEYS = ["event_name", "current_bytes", "current_count", "high_bytes",
              "alloc_bytes", "free_bytes", "alloc_count", "free_count"] + \
    DELTA_KEYS + ["unseen_peak_bytes", "spike_lower_bytes"]
# Last in JSON only: the statements the thread finished since the sample
# before, as the server recorded them (MySQL 8.0.31+; [] otherwise).
FINISHED_KEYS = ["statement_id", "end_id", "digest", "statement",
                 "duration_us", "rows_sent", "rows_examined", "peak_bytes",
                 "lost_before"]
SAMPLE_KEYS = ["sample", "elapsed_ms", "timestamp", "thread_id",
               "total_bytes", "late_us", "query_us", "gap_ms", "events"] + \
    STATEMENT_KEYS + GRAIN_KEYS + SETUP_KEYS + WAITING_KEYS + KEPT_KEYS + COUNT_KEYS + PROCESS_KEYS + CGROUP_KEYS + ["finished"]
LIST_HEADER = ["thread_id", "connection_id", "type", "name", "user", "host",
               "command", "time", "state", "current_bytes", "statement"]
TIMESTAMP_RE = re.compile(r"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$")
# What --timestamps (on by default when stderr is not a terminal, as in
# these tests) puts before "mysqlmemprof: " on a line of stderr.
STAMP_RE = re.compile(r"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z ")


# What a text sample's heading may carry after its time: "(taken while
# waiting)", "(total only; rows of 0.3 s ago)" (a thread's own count).
MARKS = r"(?: \([^)]*\))*"


def unstamped(line):
    """A line of stderr without its timestamp, if it has one."""
    return STAMP_RE.sub("", line, count=1)

# No test may wait on the binary longer than this.
RUN_TIMEOUT = 30


def base_env(**extra):
    """The environment of a run: no option file of ours in $HOME, no
    stray MYSQL_* variable, MYSQL_PWD set to the mmp password."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("MYSQL")}
    env["HOME"] = _empty_home()
    env["MYSQL_PWD"] = MMP_PASSWORD
    env["LC_ALL"] = "C"
    for k, v in extra.items():
        if v is None:
            env.pop(k, None)
        else:
            env[k] = v
    return env


_home = None


def _empty_home():
    global _home
    if _home is None:
        _home = tempfile.mkdtemp(prefix="mmp-home-")
        atexit.register(shutil.rmtree, _home, True)
    return _home


def run(args, env=None, timeout=RUN_TIMEOUT, conn=True):
    """Runs the binary to its end; returns a CompletedProcess of str with
    the wall time it took as .elapsed."""
    argv = [BIN] + (CONN_ARGS if conn else []) + list(args)
    t0 = time.monotonic()
    p = subprocess.run(argv, stdin=subprocess.DEVNULL, capture_output=True,
                       env=env or base_env(), timeout=timeout)
    p.elapsed = time.monotonic() - t0
    p.argv = argv
    p.stdout = p.stdout.decode("utf-8", "replace")
    p.stderr = p.stderr.decode("utf-8", "replace")
    return p


def describe(p):
    """What to show when an assertion on a run fails."""
    return "\n$ %s\nexit %s\n--- stdout:\n%s--- stderr:\n%s" % (
        " ".join(p.argv), p.returncode, p.stdout[-3000:], p.stderr[-3000:])


class Background:
    """The binary running in the background, for a test that acts while it
    runs: it reads stderr or stdout as they come, signals the program, then
    calls finish() once. Both pipes are read whenever the test waits on
    either, so a full pipe never stalls the program, and what was read is
    kept: finish() gives the whole of stdout and stderr. TestCase.spawn()
    starts one that is killed at the end of the test if still running."""

    def __init__(self, args, env=None, conn=True):
        self.argv = [BIN] + (CONN_ARGS if conn else []) + list(args)
        self._t0 = time.monotonic()
        self.proc = subprocess.Popen(
            self.argv, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
            stderr=subprocess.PIPE, env=env or base_env())
        self.pid = self.proc.pid
        # What was read of each pipe, by file descriptor, and the pipes
        # not at their end.
        self._fd_out = self.proc.stdout.fileno()
        self._fd_err = self.proc.stderr.fileno()
        self._read = {self._fd_out: b"", self._fd_err: b""}
        self._open = set(self._read)
        self._line_at = 0  # how much of stdout stdout_line() gave

    @property
    def _out(self):
        return self._read[self._fd_out]

    @property
    def _err(self):
        return self._read[self._fd_err]

    def _run(self, out=b"", err=b""):
        """The run so far (or whole, with the rest of the pipes), shaped as
        run() returns it."""
        self.proc.poll()
        p = subprocess.CompletedProcess(
            self.argv, self.proc.returncode,
            (self._out + out).decode("utf-8", "replace"),
            (self._err + err).decode("utf-8", "replace"))
        p.argv = self.argv
        p.elapsed = time.monotonic() - self._t0
        return p

    def _pump(self, done, what, timeout):
        """Reads both pipes until done() is true; fails when timeout
        passes first or the program closes both pipes."""
        deadline = time.monotonic() + timeout
        while not done():
            left = deadline - time.monotonic()
            if not self._open:
                raise AssertionError("the program ended before %s%s" %
                                     (what, describe(self._run())))
            ready = select.select(list(self._open), [], [],
                                  left)[0] if left > 0 else []
            if not ready:
                raise AssertionError("no %s in %s s%s" %
                                     (what, timeout, describe(self._run())))
            for fd in ready:
                chunk = os.read(fd, 65536)
                if chunk:
                    self._read[fd] += chunk
                else:
                    self._open.discard(fd)

    def wait_for_stderr(self, words, timeout=RUN_TIMEOUT):
        """Waits until stderr holds words (read at any time since the start);
        returns all of stderr read so far."""
        self._pump(lambda: words.encode() in self._err,
                   "%r on stderr" % words, timeout)
        return self._err.decode("utf-8", "replace")

    def stdout_line(self, timeout=RUN_TIMEOUT):
        """The next whole line of stdout, without its line end."""
        self._pump(lambda: b"\n" in self._out[self._line_at:],
                   "line on stdout", timeout)
        end = self._out.index(b"\n", self._line_at)
        line = self._out[self._line_at:end]
        self._line_at = end + 1
        return line.decode("utf-8", "replace")

    def signal(self, sig):
        self.proc.send_signal(sig)

    def finish(self, sig=None, timeout=RUN_TIMEOUT):
        """Sends sig, if given, and waits at most timeout for the end.
        Returns the run as run() does (returncode, stdout and stderr as
        str, argv, elapsed); a program still running then is killed and
        the test fails with what it wrote."""
        if sig is not None:
            self.proc.send_signal(sig)
        try:
            out, err = self.proc.communicate(timeout=timeout)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            out, err = self.proc.communicate()
            raise AssertionError("still running %s s after %s; killed%s" % (
                timeout, sig.name if sig is not None else "finish()",
                describe(self._run(out, err))))
        return self._run(out, err)

    def kill(self):
        """Ends the program if it still runs, and closes the pipes."""
        if self.proc.poll() is None:
            self.proc.kill()
        self.proc.wait()
        self.proc.stdout.close()
        self.proc.stderr.close()


def root_sql(sql):
    """Runs SQL as root over the socket; returns the rows (tab-split)."""
    out = subprocess.run(
        ["mariadb", "--no-defaults", "-uroot", "-S", SOCKET, "-N", "-B",
         "-e", sql], check=True, capture_output=True, timeout=60).stdout
    return [line.split("\t") for line in out.decode().splitlines()]


@contextlib.contextmanager
def general_log(name):
    """The server's general log while the block runs: the list it yields
    holds its lines once the block is done."""
    path = os.path.join(os.environ["MMP_DIR"], name + "-general.log")
    lines = []
    root_sql("SET GLOBAL general_log_file = '%s', general_log = 1" % path)
    try:
        yield lines
    finally:
        root_sql("SET GLOBAL general_log = 0")
        with open(path, errors="replace") as f:
            lines.extend(f.read().splitlines())
        os.unlink(path)


def server_pid(data_dir=None):
    """The process id of the sandbox server, or of the one in data_dir."""
    path = os.path.join(data_dir or os.environ["MMP_DIR"], "server.pid")
    with open(path) as f:
        return int(f.read())


def launch_argv(data_dir=None):
    """The command that starts the sandbox server (or the one in
    data_dir) as tests/sandbox.sh started it: under chroot for MySQL."""
    path = os.path.join(data_dir or os.environ["MMP_DIR"], "launch")
    with open(path) as f:
        return f.read().splitlines()


def _gone(pid):
    """Whether process pid has ended: no longer there, or a zombie."""
    try:
        # A server an earlier kill_server() started is our child: reap it.
        os.waitpid(pid, os.WNOHANG)
    except ChildProcessError:
        pass
    try:
        with open("/proc/%d/stat" % pid) as f:
            return f.read().rsplit(")", 1)[1].split()[0] == "Z"
    except FileNotFoundError:
        return True


def _clear_stale_lock(pid):
    """Removes the socket's lock file when it names pid, a server that died.
    MySQL will not start while the pid in its lock file is alive, and a
    zombie is: this machine's init may reap a killed server long after it
    died. Its lock is stale, as after a crash."""
    lock = SOCKET + ".lock"
    try:
        with open(lock) as f:
            stale = f.read().strip() == str(pid)
        if stale:
            os.unlink(lock)
    except FileNotFoundError:
        pass


def _wait_gone(pid, timeout=30):
    deadline = time.monotonic() + timeout
    while not _gone(pid):
        if time.monotonic() > deadline:
            raise AssertionError("the server %d did not end" % pid)
        time.sleep(0.05)


def start_server(argv, cgroup=None, timeout=60):
    """Starts the sandbox server with argv (launch_argv()), inside cgroup
    (a MemoryCgroup) if given, and waits until it answers. It outlives the
    test process; returns its pid."""
    if cgroup is not None:
        # The shell joins the cgroup, then becomes the server: everything
        # the server touches from its first page on is charged there.
        argv = ["sh", "-c", 'echo $$ >"$0" && exec "$@"',
                cgroup.file("cgroup.procs")] + list(argv)
    subprocess.Popen(argv, stdin=subprocess.DEVNULL,
                     stdout=subprocess.DEVNULL,
                     stderr=subprocess.DEVNULL, start_new_session=True)
    deadline = time.monotonic() + timeout
    while True:
        try:
            root_sql("SELECT 1")
            break
        except subprocess.CalledProcessError:
            if time.monotonic() > deadline:
                raise AssertionError("the sandbox server did not come back")
            time.sleep(0.2)
    return server_pid()


def restart_killed_server(pid, cgroup=None):
    """Starts the sandbox server again after pid, the server the kernel or
    a test killed, has ended (reaped, its stale lock removed); returns the
    new server's pid."""
    _wait_gone(pid)
    _clear_stale_lock(pid)
    return start_server(launch_argv(), cgroup)


@contextlib.contextmanager
def killed_server():
    """The sandbox server killed (SIGKILL) for the body, then started again
    as it was and waited for; the new server outlives the test process."""
    pid = server_pid()
    argv = launch_argv()
    os.kill(pid, signal.SIGKILL)
    _wait_gone(pid)
    _clear_stale_lock(pid)
    try:
        yield
    finally:
        start_server(argv)


@contextlib.contextmanager
def frozen_server(data_dir=None):
    """The server stopped (SIGSTOP) for the body, and always thawed."""
    pid = server_pid(data_dir)
    os.kill(pid, signal.SIGSTOP)
    try:
        yield pid
    finally:
        os.kill(pid, signal.SIGCONT)


# A memory cgroup of the server's own, and a statement that fills it until
# the kernel kills the server: the OOM kill the black box (--record) is for.

# How far above its resident memory the server's limit is set.
OOM_HEADROOM = 150 << 20


def _memory_hierarchy():
    """(version, mount point) of the memory controller's hierarchy: 1 for
    cgroup v1's memory hierarchy, 2 for a cgroup2 mount that offers the
    memory controller. Skips the test, saying why, when there is none this
    process may write to."""
    if os.geteuid() != 0:
        raise unittest.SkipTest("a memory cgroup of the server's own needs "
                                "root; run the tests as root")
    found = None
    with open("/proc/self/mountinfo") as f:
        for line in f:
            pre, post = line.split(" - ", 1)
            mnt = pre.split()[4]
            fstype, _, opts = post.split()[:3]
            if fstype == "cgroup" and "memory" in opts.split(","):
                found = (1, mnt)
            elif fstype == "cgroup2" and found is None:
                try:
                    with open(os.path.join(mnt, "cgroup.controllers")) as c:
                        if "memory" in c.read().split():
                            found = (2, mnt)
                except OSError:
                    pass
    if found is None:
        raise unittest.SkipTest("no memory cgroup controller is mounted "
                                "(neither cgroup v1's memory nor cgroup2 "
                                "with memory in cgroup.controllers)")
    if not os.access(found[1], os.W_OK):
        raise unittest.SkipTest("the memory cgroup hierarchy %s is not "
                                "writable (a container's read-only "
                                "/sys/fs/cgroup?)" % found[1])
    return found


def _cgroup_of(pid, version, mount):
    """The folder of the memory cgroup pid is in."""
    with open("/proc/%d/cgroup" % pid) as f:
        for line in f:
            _, controllers, path = line.rstrip("\n").split(":", 2)
            if (version == 1 and "memory" in controllers.split(",")) or \
                    (version == 2 and controllers == ""):
                return os.path.join(mount, path.lstrip("/"))
    raise AssertionError("process %d is in no memory cgroup" % pid)


def _swap_exists():
    with open("/proc/swaps") as f:
        return len(f.read().splitlines()) > 1


class MemoryCgroup:
    """A memory cgroup made for a test (v1: MOUNT/mmp-oom-N with
    memory.limit_in_bytes; v2: MOUNT/mmp-oom-N with memory.max), removed by
    remove(), which moves what still runs in it to back, the cgroup the
    server came from."""

    def __init__(self, version, mount, back):
        self.version = version
        self.back = back
        self.path = tempfile.mkdtemp(prefix="mmp-oom-", dir=mount)
        if version == 2:
            # A cgroup's controllers are those its parent hands down.
            parent = os.path.dirname(self.path)
            with open(os.path.join(parent, "cgroup.subtree_control")) as f:
                handed = f.read().split()
            if "memory" not in handed:
                self._write(os.path.join(parent, "cgroup.subtree_control"),
                            "+memory")

    def file(self, name):
        return os.path.join(self.path, name)

    @staticmethod
    def _write(path, text):
        with open(path, "w") as f:
            f.write(text)

    def _read(self, name):
        with open(self.file(name)) as f:
            return f.read()

    def _counter(self, name, key):
        for line in self._read(name).splitlines():
            k, _, v = line.partition(" ")
            if k == key:
                return int(v)
        return 0

    def set_limit(self, limit):
        """The limit on the cgroup's memory, swap included: with swap, the
        kernel would page the server out instead of killing it. .limit is
        then the kernel's figure: it takes whole pages."""
        if self.version == 1:
            self._write(self.file("memory.limit_in_bytes"), str(limit))
            if os.path.exists(self.file("memory.memsw.limit_in_bytes")) \
                    and _swap_exists():
                self._write(self.file("memory.memsw.limit_in_bytes"),
                            str(limit))
        else:
            self._write(self.file("memory.max"), str(limit))
            if os.path.exists(self.file("memory.swap.max")):
                self._write(self.file("memory.swap.max"), "0")
        self.limit = int(self._read("memory.limit_in_bytes"
                                    if self.version == 1 else "memory.max"))

    def usage(self):
        name = "memory.usage_in_bytes" if self.version == 1 else \
            "memory.current"
        return int(self._read(name))

    def oom_kills(self):
        """How many processes the kernel's OOM killer killed in the cgroup."""
        if self.version == 1:
            return self._counter("memory.oom_control", "oom_kill")
        return self._counter("memory.events", "oom_kill")

    def pids(self):
        return [int(p) for p in self._read("cgroup.procs").split()]

    def remove(self):
        """Moves what still runs in the cgroup back where the server came
        from, then removes the cgroup (a killed process leaves it only once
        reaped: waits a little for that)."""
        deadline = time.monotonic() + 10
        while True:
            for pid in self.pids():
                try:
                    self._write(os.path.join(self.back, "cgroup.procs"),
                                str(pid))
                except OSError:
                    _gone(pid)  # reaps it if it is our dead child
            try:
                os.rmdir(self.path)
                return
            except OSError:
                if time.monotonic() > deadline:
                    raise
                time.sleep(0.1)


def resident_bytes(pid):
    with open("/proc/%d/status" % pid) as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) * 1024
    raise AssertionError("process %d has no VmRSS" % pid)


@contextlib.contextmanager
def server_in_memory_cgroup(headroom=OOM_HEADROOM):
    """The sandbox server started again inside a memory cgroup of its own,
    its limit headroom above its resident memory, as systemd or Kubernetes
    would run it; yields the MemoryCgroup (.limit). Started again, not
    moved: the kernel keeps a moved process's memory charged to its old
    cgroup (v1's move_charge_at_immigrate is gone from Linux 6.x, v2 never
    had it), so the usage of a moved server would start near zero, far
    below its resident memory. After the body, whichever server runs is
    moved back out (a killed one started again outside it), and the cgroup
    removed. Skips the test when there is no
    memory controller to write to, or not as root."""
    version, mount = _memory_hierarchy()
    pid = server_pid()
    cg = MemoryCgroup(version, mount, _cgroup_of(pid, version, mount))
    try:
        argv = launch_argv()
        os.kill(pid, signal.SIGTERM)
        _wait_gone(pid, 60)
        _clear_stale_lock(pid)
        pid = start_server(argv, cg)
        if pid not in cg.pids():
            raise AssertionError("the server %d did not start in %s" %
                                 (pid, cg.path))
        cg.set_limit(resident_bytes(pid) + headroom)
        yield cg
    finally:
        # A server killed and not started again (a test that failed
        # midway) is started outside, for the tests after this one.
        try:
            pid = server_pid()
        except (FileNotFoundError, ValueError):
            pid = None
        if pid is not None and _gone(pid):
            restart_killed_server(pid)
        cg.remove()


# The sandbox server under another malloc (issue 27's allocator layer):
# Debian's libjemalloc2 and libtcmalloc-minimal4, preloaded.
PRELOAD_LIBS = {"jemalloc": ("libjemalloc.so.2", "libjemalloc2"),
                "tcmalloc": ("libtcmalloc_minimal.so.4",
                             "libtcmalloc-minimal4")}


def _preload_path(lib, root):
    """The path of lib ("jemalloc", "tcmalloc") inside root ("" for the
    host), or SkipTest saying how to install it there."""
    name, package = PRELOAD_LIBS[lib]
    for d in ("/usr/lib/x86_64-linux-gnu", "/usr/lib/aarch64-linux-gnu",
              "/usr/lib64", "/usr/lib"):
        if os.path.exists(root + d + "/" + name):
            return d + "/" + name
    if root:
        how = "tests/root.sh %s run apt-get install -y %s" % (
            os.path.basename(root.rstrip("/")), package)
    else:
        how = "apt-get install -y %s" % package
    raise unittest.SkipTest("%s is not in %s: %s" % (name, root or "/", how))


def _maps_library(pid, name):
    """The path of the mapped file named name in pid's maps, or None."""
    with open("/proc/%d/maps" % pid) as f:
        for line in f:
            if line.rstrip().endswith("/" + name):
                return line.split(None, 5)[5].strip()
    return None


@contextlib.contextmanager
def server_with_preload(lib, environ=None):
    """The sandbox server started again with LD_PRELOAD of lib ("jemalloc"
    or "tcmalloc"), as mysqld_safe --malloc-lib would, and the variables of
    environ (a dict: MALLOC_CONF for jemalloc's profiling) in its
    environment; yields a namespace:
    .pid, and .path, the library's path as the server's maps show it
    (under chroot, the root's folder before it). MySQL runs in the sid
    root, so the library must be installed there (the test is skipped,
    saying how, when it is not). Debian's MySQL links tcmalloc: jemalloc
    preloaded is loaded before it and serves malloc. After the body the
    server is started again as tests/sandbox.sh started it."""
    argv = launch_argv()
    root = argv[1] if argv[0] == "chroot" else ""
    path = _preload_path(lib, root)
    env = ["env", "LD_PRELOAD=" + path] + [
        "%s=%s" % kv for kv in sorted((environ or {}).items())]
    # Inside the root: the host's chroot must not preload it too.
    preloaded = argv[:2] + env + argv[2:] if root else env + argv
    pid = server_pid()
    os.kill(pid, signal.SIGTERM)
    _wait_gone(pid, 60)
    _clear_stale_lock(pid)
    try:
        pid = start_server(preloaded)
        # The loader maps the file the link names (libtcmalloc_minimal.so.4
        # is one to .so.4.5.10).
        mapped = _maps_library(
            pid, os.path.basename(os.path.realpath(root + path)))
        if mapped is None:
            raise AssertionError("the server %d started with LD_PRELOAD=%s "
                                 "does not map it" % (pid, path))
        yield types.SimpleNamespace(pid=pid, path=mapped)
    finally:
        try:
            pid = server_pid()
        except (FileNotFoundError, ValueError):
            pid = None
        if pid is not None and not _gone(pid):
            os.kill(pid, signal.SIGTERM)
            _wait_gone(pid, 60)
        if pid is not None:
            _clear_stale_lock(pid)
        start_server(argv)


@contextlib.contextmanager
def slow_started_server(seconds):
    """The sandbox server started again by a shell that waits seconds and
    then becomes it (exec), as a container's entry script does: the
    process (the shell's, forked before the wait) starts that long before
    the server counts its uptime, as in a slow start. Yields its pid; after
    the body the server is started again as tests/sandbox.sh started it."""
    argv = launch_argv()
    pid = server_pid()
    os.kill(pid, signal.SIGTERM)
    _wait_gone(pid, 60)
    _clear_stale_lock(pid)
    try:
        yield start_server(["sh", "-c", 'sleep "$0" && exec "$@"',
                            str(seconds)] + argv)
    finally:
        restart_server()


def restart_server():
    """The sandbox server stopped and started again as tests/sandbox.sh
    started it, for a test that needs a fresh process (its allocator's
    arenas and heaps as a start leaves them); returns the new pid."""
    argv = launch_argv()
    pid = server_pid()
    os.kill(pid, signal.SIGTERM)
    _wait_gone(pid, 60)
    _clear_stale_lock(pid)
    return start_server(argv)


# A statement that holds more and more memory, steadily, until the kernel
# kills the server: a recursive CTE whose rows (about 2 KB each, 100 more
# each round) stay in an in-memory temporary table (MariaDB's HEAP, MySQL's
# TempTable). Both servers count it as the connection's memory
# (PROCESSLIST.MEMORY_USED, threads.TOTAL_MEMORY); MariaDB counts the
# blocks HEAP reserves, ahead of what it has touched, and reserves more the
# larger max_heap_table_size is. The SLEEP of each round paces the growth
# at some 30 to 50 MiB/s, so that it takes seconds. The session's table
# limit, 256 MiB, is where a server would move the table to disk and stop
# growing: well above the ~150 MiB that kills.
GROW_SETUP = (
    "SET SESSION max_heap_table_size = 268435456, "
    "tmp_table_size = 268435456;\n"
    "SET SESSION %s = 100000000;" %
    ("cte_max_recursion_depth" if MYSQL else "max_recursive_iterations"))
_PAD = "CAST(REPEAT('x', 500) AS CHAR(500) CHARACTER SET latin1)"
GROW_SQL = (
    "WITH RECURSIVE mmp_seed(n) AS (SELECT 1 UNION ALL SELECT n + 1 "
    "FROM mmp_seed WHERE n < 100), "
    "mmp_grow(n, a, b, c, d) AS (SELECT n, %s, %s, %s, %s FROM mmp_seed "
    "UNION ALL SELECT n + 100, a, b, c, d FROM mmp_grow "
    "WHERE n < 700000 AND IF(n %% 100 = 0, SLEEP(0.004), 0) = 0) "
    "SELECT COUNT(*) FROM mmp_grow" % (_PAD, _PAD, _PAD, _PAD))


def grower():
    """A session of `loader` running GROW_SQL (see there)."""
    return Workload(GROW_SETUP, GROW_SQL + ";")


def connection_memory():
    """Each connection's memory as the server counts it, by connection id:
    MariaDB's PROCESSLIST.MEMORY_USED, MySQL's threads.TOTAL_MEMORY."""
    if MYSQL:
        sql = ("SELECT PROCESSLIST_ID, TOTAL_MEMORY FROM "
               "performance_schema.threads WHERE PROCESSLIST_ID IS NOT NULL")
    else:
        sql = "SELECT ID, MEMORY_USED FROM information_schema.PROCESSLIST"
    return {int(i): int(b) for i, b in root_sql(sql)}

def kernel_oom_line(pid):
    """The kernel's line that says its OOM killer killed pid, or None."""
    out = subprocess.run(["dmesg"], capture_output=True, timeout=30).stdout
    for line in out.decode("utf-8", "replace").splitlines():
        if re.search(r"Killed process %d \(" % pid, line):
            return line
    return None


def wait_oom_kill(pid, workload, timeout=60):
    """Waits until the server pid has ended, while workload (grower()) runs;
    returns the seconds it took. Fails when the statement ends first, or
    the server outlives timeout. The test then checks the cgroup's
    oom_kills() and kernel_oom_line(pid)."""
    t0 = time.monotonic()
    while not _gone(pid):
        if workload.proc.poll() is not None:
            rc, out, err = workload.wait()
            raise AssertionError("the statement ended (exit %d: %s%s) and "
                                 "the server %d lives" % (rc, out, err[-300:],
                                                          pid))
        if time.monotonic() - t0 > timeout:
            raise AssertionError("the server %d still runs %d s into the "
                                 "growth" % (pid, timeout))
        time.sleep(0.05)
    return time.monotonic() - t0


def thread_of_connection(conn_id):
    rows = root_sql("SELECT THREAD_ID FROM performance_schema.threads "
                    "WHERE PROCESSLIST_ID = %d" % conn_id)
    if not rows:
        raise AssertionError("connection %d has no thread" % conn_id)
    return int(rows[0][0])


def ensure_demo_table():
    """Loads demo.items unless it is there already."""
    try:
        rows = root_sql("SELECT COUNT(*) FROM demo.items")
        if rows and rows[0][0] == "1000000":
            return
    except subprocess.CalledProcessError:
        pass
    with open(os.path.join(SQL_DIR, "load.sql")) as f:
        subprocess.run(_loader_argv(), input=f.read().encode(), check=True,
                       capture_output=True, timeout=120)


def _loader_argv():
    return ["mariadb", "--no-defaults", "--connect-timeout=10", "-uloader",
            "-ploader-pass", "-S", SOCKET, "demo", "-N", "-n"]


class Workload:
    """A session of `loader` running SQL through the mariadb client. The
    SQL starts with SELECT CONNECTION_ID(), so .connection_id is known
    while the rest still runs."""

    def __init__(self, setup_sql, main_sql):
        sql = setup_sql + "\nSELECT CONNECTION_ID();\n" + main_sql + "\n"
        self.proc = subprocess.Popen(
            _loader_argv(), stdin=subprocess.PIPE, stdout=subprocess.PIPE,
            stderr=subprocess.PIPE)
        self.proc.stdin.write(sql.encode())
        self.proc.stdin.close()
        self.proc.stdin = None  # communicate() must not flush it again.
        self.connection_id = self._read_id()
        self._thread_id = None

    def _read_id(self):
        line = b""
        deadline = time.monotonic() + 20
        while not line.endswith(b"\n"):
            left = deadline - time.monotonic()
            if left <= 0 or not select.select([self.proc.stdout], [], [], left)[0]:
                self.kill()
                raise AssertionError("workload gave no connection id in time")
            c = os.read(self.proc.stdout.fileno(), 1)
            if not c:
                err = self.proc.stderr.read().decode(errors="replace")
                raise AssertionError("workload failed: %s" % err)
            line += c
        return int(line)

    @property
    def thread_id(self):
        if self._thread_id is None:
            self._thread_id = thread_of_connection(self.connection_id)
        return self._thread_id

    def wait(self, timeout=60):
        out, err = self.proc.communicate(timeout=timeout)
        return self.proc.returncode, out.decode(errors="replace"), err.decode(errors="replace")

    def kill(self):
        """Ends the session on the server, then the client."""
        if self.proc.poll() is None:
            try:
                root_sql("KILL %d" % self.connection_id)
            except (subprocess.CalledProcessError, AttributeError):
                pass
            try:
                self.proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        for f in (self.proc.stdout, self.proc.stderr):
            if f:
                f.close()


def _sql_file(name):
    with open(os.path.join(SQL_DIR, name)) as f:
        return f.read()


def idle(seconds=20):
    """A session holding about ten kinds of memory, asleep for seconds."""
    return Workload(_sql_file("idle.sql"), "SELECT SLEEP(%s);" % seconds)


def sleeper(seconds):
    """A bare session that sleeps, then disconnects."""
    return Workload("", "SELECT SLEEP(%s);" % seconds)


def hungry(rows=1000000):
    """The memory-hungry GROUP BY of tests/sql/hungry.sql on rows rows."""
    return Workload("SET @mmp_rows = %d;" % rows, _sql_file("hungry.sql"))


def parse_json_lines(text):
    """The samples of --format json: a hunt's line that says what the
    capture after it is of ("type":"capture") is left out."""
    lines = [json.loads(line) for line in text.splitlines() if line.strip()]
    return [l for l in lines if l.get("type") != "capture"]


def parse_csv(text):
    return list(csv.reader(io.StringIO(text, newline="")))


def _unquoted(raw):
    """raw with the inside of each quoted CSV field taken out, so that the
    line ends left are those between rows."""
    return re.sub(r'"(?:[^"]|"")*"', '""', raw)


class TestCase(unittest.TestCase):
    """Cleans up the workloads and the background runs a test starts."""

    def setUp(self):
        self._workloads = []
        self._spawned = []

    def tearDown(self):
        for b in self._spawned:
            b.kill()
        for w in self._workloads:
            w.kill()

    def start(self, workload):
        self._workloads.append(workload)
        return workload

    def spawn(self, args, **kw):
        """The binary in the background (see Background), killed at the
        end of the test if it still runs."""
        b = Background(args, **kw)
        self._spawned.append(b)
        return b

    def run_ok(self, args, **kw):
        p = run(args, **kw)
        self.assertEqual(p.returncode, 0, describe(p))
        return p

    def finish_ok(self, b, **kw):
        """Finishes a background run (Background.finish()), which must
        exit 0; returns the run."""
        p = b.finish(**kw)
        self.assertEqual(p.returncode, 0, describe(p))
        return p

    def assertSampled(self, p, thread_id, count=1):
        """A run with --format json took count samples of thread_id (and,
        waiting for it, perhaps readings from before: those of any count,
        all first)."""
        self.assertEqual(p.returncode, 0, describe(p))
        try:
            samples = parse_json_lines(p.stdout)
        except ValueError as e:
            self.fail("not JSON Lines: %s%s" % (e, describe(p)))
        marks = [s["waiting"] for s in samples]
        self.assertEqual(marks, sorted(marks, reverse=True), describe(p))
        self.assertEqual(marks.count(0), count, describe(p))
        for s in samples:
            self.assertEqual(s["thread_id"], thread_id, describe(p))

    def assertCsvSamples(self, raw, desc):
        """Checks a CSV capture and returns its rows as dicts, integer
        columns as ints (None when empty). The header is exact, every line
        ends in CRLF, every row is whole; the deltas are empty in the first
        sample only, and in the row of a sample without events; the
        statement id is an integer or empty, and so are the digest and the
        text, which may hold line ends inside their quotes."""
        self.assertTrue(raw.endswith("\r\n"), "last line not ended" + desc)
        for line in _unquoted(raw).split("\r\n")[:-1]:
            self.assertNotIn("\n", line, "a bare LF line end" + desc)
            self.assertNotIn("\r", line, "a bare CR line end" + desc)
        rows = parse_csv(raw)
        self.assertEqual(rows[0], CSV_HEADER, desc)
        out = []
        for r in rows[1:]:
            self.assertEqual(len(r), len(CSV_HEADER), "short row %r%s" % (r, desc))
            d = dict(zip(CSV_HEADER, r))
            no_event = d["event_name"] == ""
            for c in CSV_INT_COLUMNS:
                if no_event and c in EVENT_KEYS:
                    self.assertEqual(d[c], "", (c, r))
                    d[c] = None
                    continue
                self.assertRegex(d[c], r"^-?\d+$", "column %s: %r" % (c, r))
                d[c] = int(d[c])
            for c in DELTA_KEYS:
                if no_event or d["sample"] == 1:
                    self.assertEqual(d[c], "", "column %s: %r" % (c, r))
                    d[c] = None
                else:
                    self.assertRegex(d[c], r"^\d+$", "column %s: %r" % (c, r))
                    d[c] = int(d[c])
            self.assertRegex(d["unseen_peak_bytes"], r"^(\d+)?$", r)
            v = d["unseen_peak_bytes"]
            d["unseen_peak_bytes"] = int(v) if v else None
            self.assertRegex(d["spike_lower_bytes"], r"^(\d+)?$", r)
            v = d["spike_lower_bytes"]
            d["spike_lower_bytes"] = int(v) if v else None
            self.assertRegex(d["statement_id"], r"^(\d+)?$", r)
            v = d["statement_id"]
            d["statement_id"] = int(v) if v else None
            d["digest"] = d["digest"] or None
            d["statement"] = d["statement"] or None
            # A thread has its id; another grain its name instead.
            self.assertNotEqual(d["thread_id"] == "", d["grain"] == "", r)
            d["thread_id"] = int(d["thread_id"]) if d["thread_id"] else None
            d["grain"] = d["grain"] or None
            self.assertRegex(d["filtered_total_bytes"], r"^(-?\d+)?$", r)
            v = d["filtered_total_bytes"]
            d["filtered_total_bytes"] = int(v) if v else None
            self.assertRegex(d["setup_off"], SETUP_OFF_RE, r)
            d["setup_off"] = d["setup_off"] or None
            for c in COUNT_KEYS + PROCESS_KEYS:
                self.assertRegex(d[c], r"^(-?\d+)?$", (c, r))
                d[c] = int(d[c]) if d[c] else None
            self.assertRegex(d["timestamp"], TIMESTAMP_RE)
            if not no_event:
                self.assertTrue(d["event_name"].startswith("memory/"), d)
            out.append(d)
        return out

    def assertJsonSample(self, s, first=False):
        """One JSON Lines sample with exactly the keys of the manual, each
        an integer; the deltas null in the first sample only, the unseen
        peak null or an integer."""
        self.assertEqual(sorted(s), sorted(SAMPLE_KEYS), s)
        self.assertRegex(s["timestamp"], TIMESTAMP_RE)
        for k in SAMPLE_KEYS:
            if k in ("digest", "statement"):
                self.assertIn(type(s[k]), (str, type(None)), (k, s))
                self.assertNotEqual(s[k], "", (k, s))
            elif k in ("statement_id", "filtered_total_bytes") or \
                    k in COUNT_KEYS + PROCESS_KEYS + CGROUP_KEYS:
                self.assertIn(type(s[k]), (int, type(None)), (k, s))
            elif k == "grain":
                self.assertIn(type(s[k]), (str, type(None)), (k, s))
            elif k == "setup_off":
                if s[k] is not None:
                    self.assertRegex(s[k], SETUP_OFF_RE, s)
            elif k == "thread_id":
                # A thread has its id; another grain its name instead.
                self.assertIs(type(s[k]), type(None) if s["grain"] else int,
                              (k, s))
            elif k == "finished":
                self.assertIs(type(s[k]), list, (k, s))
                for f in s[k]:
                    self.assertEqual(sorted(f), sorted(FINISHED_KEYS), f)
                    for fk in FINISHED_KEYS:
                        if fk in ("digest", "statement"):
                            self.assertIn(type(f[fk]), (str, type(None)), f)
                        elif fk == "peak_bytes":
                            self.assertIn(type(f[fk]), (int, type(None)), f)
                        else:
                            self.assertIs(type(f[fk]), int, (fk, f))
            elif k not in ("timestamp", "events"):
                self.assertIs(type(s[k]), int, (k, s))
        for e in s["events"]:
            self.assertEqual(sorted(e), sorted(EVENT_KEYS), e)
            self.assertTrue(e["event_name"].startswith("memory/"), e)
            for k in EVENT_KEYS[1:]:
                if k in DELTA_KEYS and first:
                    self.assertIsNone(e[k], (k, e))
                elif k in ("unseen_peak_bytes", "spike_lower_bytes") and \
                        e[k] is None:
                    pass
                else:
                    self.assertIs(type(e[k]), int, (k, e))

    def assertOneErrorLine(self, p, status, *words):
        """Exit status, exactly one line on stderr starting with the
        program's name, naming each of words (case-insensitive)."""
        self.assertEqual(p.returncode, status, describe(p))
        lines = p.stderr.splitlines()
        self.assertEqual(len(lines), 1, "want one line on stderr" + describe(p))
        self.assertTrue(unstamped(lines[0]).startswith("mysqlmemprof: "),
                        describe(p))
        for w in words:
            self.assertIn(w.lower(), lines[0].lower(), describe(p))
        return lines[0]
