"""--global beside the server's process: its resident memory read from
/proc when the server runs on this machine, the gap to what
performance_schema counts growing by what an instrument switched off
leaves out, and a server whose process id means nothing here (another pid
namespace, as a server on another machine) getting one note and null
columns, never a wrong number."""

import os
import re
import shutil
import subprocess
import time

import mmp

MIB = 1024 * 1024
# Two user variables of 64 MiB each: above glibc's largest threshold for
# mmap (32 MiB), so MariaDB gets fresh pages; MySQL's tcmalloc keeps what
# was freed, which the test allows for (see test_gap_grows...).
VAR_BYTES = 64 * MIB
HELD = 2 * VAR_BYTES
FAMILY = "memory/sql/user_var_entry%"
# A start slower than the 5 s the tool once allowed.
SLOW_START_S = 7


def global_sample(env=None, argv_prefix=None):
    """One sample of --global as JSON, and the run."""
    args = ["--global", "--count", "1", "--format", "json", "--top", "1"]
    if argv_prefix is None:
        p = mmp.run(args, env=env)
    else:
        argv = argv_prefix + [mmp.BIN] + mmp.CONN_ARGS + args
        p = subprocess.run(argv, stdin=subprocess.DEVNULL,
                           capture_output=True, env=env or mmp.base_env(),
                           timeout=mmp.RUN_TIMEOUT)
        p.argv = argv
        p.stdout = p.stdout.decode("utf-8", "replace")
        p.stderr = p.stderr.decode("utf-8", "replace")
    return p


def vm_rss(pid):
    with open("/proc/%d/status" % pid) as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) * 1024
    raise AssertionError("no VmRSS for %d" % pid)


class Holder:
    """A session of root holding HELD bytes in user variables until
    closed: the variables are set before __enter__ returns, and freed
    before __exit__ does (the session is killed and gone: MySQL does not
    notice a client gone while it sleeps, and would hold them a minute)."""

    def __enter__(self):
        sql = ("SET @a = REPEAT('a', %d), @b = REPEAT('b', %d); "
               "SELECT CONNECTION_ID(); SELECT SLEEP(60);" %
               (VAR_BYTES, VAR_BYTES))
        self.proc = subprocess.Popen(
            ["mariadb", "--no-defaults", "-uroot", "-S", mmp.SOCKET, "-N",
             "-B", "--unbuffered", "-e", sql],
            stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
            stderr=subprocess.PIPE)
        line = self.proc.stdout.readline().decode().strip()
        if not line.isdigit():
            self.proc.kill()
            raise AssertionError("the holding session failed: %r %r" % (
                line, self.proc.stderr.read()))
        self.id = int(line)
        return self

    def __exit__(self, *exc):
        mmp.root_sql("KILL %d" % self.id)
        for _ in range(100):
            if not mmp.root_sql("SELECT 1 FROM information_schema.PROCESSLIST "
                                "WHERE ID = %d" % self.id):
                break
            time.sleep(0.1)
        else:
            raise AssertionError("session %d still there" % self.id)
        self.proc.wait()
        self.proc.stdout.close()
        self.proc.stderr.close()


class Resident(mmp.TestCase):

    @classmethod
    def setUpClass(cls):
        cls.packet = mmp.root_sql("SELECT @@global.max_allowed_packet")[0][0]
        mmp.root_sql("SET GLOBAL max_allowed_packet = %d" % (256 * MIB))

    @classmethod
    def tearDownClass(cls):
        mmp.root_sql("SET GLOBAL max_allowed_packet = %s" % cls.packet)
        mmp.root_sql("UPDATE performance_schema.setup_instruments SET "
                     "ENABLED = 'YES' WHERE NAME LIKE '%s'" % FAMILY)

    def sample(self, **kw):
        p = global_sample(**kw)
        self.assertEqual(p.returncode, 0, mmp.describe(p))
        s = mmp.parse_json_lines(p.stdout)[0]
        self.assertJsonSample(s, first=True)
        return s, p

    def test_global_has_the_process(self):
        s, p = self.sample()
        self.assertNotIn("resident memory is not shown", p.stderr)
        rss = vm_rss(mmp.server_pid())
        # The server's own process, not ours: within 10% of what its
        # status said a moment later.
        self.assertLess(abs(s["process_resident_bytes"] - rss), rss * 0.1,
                        (s, rss))
        self.assertGreater(s["process_anon_bytes"], 0)
        self.assertLessEqual(s["process_anon_bytes"],
                             s["process_resident_bytes"])
        self.assertEqual(s["untracked_bytes"],
                         s["process_resident_bytes"] - s["total_bytes"])
        # The server's own count: MariaDB's Memory_used always; MySQL's
        # Global_connection_memory only while it tracks it.
        if mmp.MARIADB:
            self.assertGreater(s["status_memory_bytes"], 0, s)
        else:
            tracking = mmp.root_sql(
                "SELECT @@global.global_connection_memory_tracking")[0][0]
            self.assertEqual(s["status_memory_bytes"] is not None,
                             tracking == "1", (s, tracking))

    def test_slow_start_is_the_server(self):
        """A server whose process began long before the start it reports
        (here a shell that waits, then execs it) is still the server."""
        with mmp.slow_started_server(SLOW_START_S) as pid:
            with open("/proc/%d/stat" % pid) as f:
                ticks = int(f.read().rsplit(")", 1)[1].split()[19])
            with open("/proc/stat") as f:
                btime = next(int(l.split()[1]) for l in f
                             if l.startswith("btime "))
            forked = btime + ticks // os.sysconf("SC_CLK_TCK")
            reported = int(mmp.root_sql(
                "SELECT UNIX_TIMESTAMP() - VARIABLE_VALUE FROM "
                "performance_schema.global_status "
                "WHERE VARIABLE_NAME = 'UPTIME'")[0][0])
            # What the test is about: longer than the old 5 s allowance.
            self.assertGreaterEqual(reported - forked, SLOW_START_S - 1,
                                    (forked, reported))
            s, p = self.sample()
            self.assertNotIn("resident memory is not shown", p.stderr)
            rss = vm_rss(pid)
            self.assertLess(abs(s["process_resident_bytes"] - rss),
                            rss * 0.1, (s, rss))

    @mmp.only_on("mysql", "Global_connection_memory is MySQL's")
    def test_mysql_connection_memory_while_tracked(self):
        mmp.root_sql("SET GLOBAL global_connection_memory_tracking = ON")
        try:
            s, _ = self.sample()
            self.assertGreater(s["status_memory_bytes"], 0, s)
        finally:
            mmp.root_sql("SET GLOBAL global_connection_memory_tracking = OFF")
        # Off again: the server keeps the last value, which is not shown.
        s, _ = self.sample()
        self.assertIsNone(s["status_memory_bytes"], s)

    def test_csv_text_svg_and_replay_keep_it(self):
        p = self.run_ok(["--global", "--count", "2", "--frequency", "200",
                         "--format", "csv", "--top", "1", "-q"])
        rows = self.assertCsvSamples(p.stdout, mmp.describe(p))
        for r in rows:
            self.assertGreater(r["process_resident_bytes"], 0, r)
            self.assertEqual(r["untracked_bytes"],
                             r["process_resident_bytes"] - r["total_bytes"])
        p = self.run_ok(["--global", "--count", "2", "--frequency", "200",
                         "--top", "1", "-q"])
        self.assertRegex(p.stdout, r"not counted by performance_schema: at "
                         r"most -?[\d.]+ [KMG]iB, sample #[12] at ")
        # Each sample's rows end with the process and what it does not count.
        self.assertEqual(len(re.findall(
            r"(?m)^ \(global total\) +-> +[\d.]+ [KMG]iB\n"
            r" \(process resident\) +-> +[\d.]+ [KMG]iB\n"
            r" \(not counted\) +-> +-?[\d.]+ [KMG]iB\n", p.stdout)), 2,
            p.stdout)
        # The chart: a dashed line of it, and its row in the legend.
        p = self.run_ok(["--global", "--count", "2", "--frequency", "200",
                         "--format", "svg", "--top", "1", "-q"])
        self.assertIn('<g class="resident"', p.stdout)
        self.assertIn("resident (process)", p.stdout)
        j = self.run_ok(["--global", "--count", "2", "--frequency", "200",
                         "--format", "json", "--top", "1", "-q"])
        path = os.path.join(os.environ["MMP_DIR"], "resident-replay.jsonl")
        with open(path, "w") as f:
            f.write(j.stdout)
        try:
            r = self.run_ok(["--read", path, "--format", "json", "-q"],
                            conn=False)
        finally:
            os.unlink(path)
        for a, b in zip(mmp.parse_json_lines(j.stdout),
                        mmp.parse_json_lines(r.stdout)):
            for k in mmp.PROCESS_KEYS:
                self.assertEqual(a[k], b[k], k)

    def test_thread_has_no_process(self):
        tid = self.start(mmp.idle(20)).thread_id
        p = self.run_ok(["--thread", str(tid), "--count", "1", "--format",
                         "json", "-q"])
        s = mmp.parse_json_lines(p.stdout)[0]
        for k in mmp.PROCESS_KEYS:
            self.assertIsNone(s[k], k)
        self.assertNotIn("resident memory", p.stderr)

    def test_gap_grows_by_what_is_switched_off(self):
        """The same HELD bytes, once counted, once not: the process holds
        them both times (MariaDB's pages come and go with them, MySQL's
        tcmalloc keeps them once had), so the gap differs by them."""
        def held(enabled):
            mmp.root_sql("UPDATE performance_schema.setup_instruments SET "
                         "ENABLED = '%s' WHERE NAME LIKE '%s'" %
                         (enabled, FAMILY))
            with Holder():
                s, _ = self.sample()
            return s

        on = held("YES")
        off = held("NO")
        mmp.root_sql("UPDATE performance_schema.setup_instruments SET "
                     "ENABLED = 'YES' WHERE NAME LIKE '%s'" % FAMILY)
        grew = off["untracked_bytes"] - on["untracked_bytes"]
        desc = "counted: %d -> %d, resident: %d -> %d" % (
            on["total_bytes"], off["total_bytes"],
            on["process_resident_bytes"], off["process_resident_bytes"])
        self.assertGreater(grew, HELD * 0.8, desc)
        self.assertLess(grew, HELD * 1.25, desc)
        # Uncounted, the held bytes are resident beyond the count.
        self.assertGreater(off["untracked_bytes"], HELD * 0.8, desc)

    def other_namespace(self, prog):
        """The argv that runs prog in a new pid namespace with its own
        /proc, where the server's process id is not the server: as on
        another machine. None when unshare cannot."""
        if shutil.which("unshare") is None:
            return None
        probe = subprocess.run(["unshare", "--pid", "--fork", "--mount-proc",
                                "true"], capture_output=True)
        if probe.returncode != 0:
            return None
        return ["unshare", "--pid", "--fork", "--mount-proc", "sh", "-c",
                prog, "sh"]

    def assertNoted(self, p, *words):
        self.assertEqual(p.returncode, 0, mmp.describe(p))
        notes = [l for l in p.stderr.splitlines()
                 if "resident memory is not shown" in l]
        self.assertEqual(len(notes), 1, mmp.describe(p))
        for w in words:
            self.assertIn(w, notes[0], mmp.describe(p))
        # No cgroup either: the one note covers it.
        self.assertNotIn("memory cgroup is not shown", p.stderr)
        for s in mmp.parse_json_lines(p.stdout):
            self.assertJsonSample(s, first=s["sample"] == 1)
            for k in mmp.PROCESS_KEYS[:3] + mmp.CGROUP_KEYS:
                self.assertIsNone(s[k], (k, s))
            # What the server counts itself comes from the server.
            if mmp.MARIADB:
                self.assertGreater(s["status_memory_bytes"], 0)

    def test_no_such_process_here(self):
        argv = self.other_namespace('exec "$@"')
        if argv is None:
            self.skipTest("unshare --pid --mount-proc is not allowed here")
        p = global_sample(argv_prefix=argv)
        self.assertNoted(p, "no process %d on this machine" %
                         mmp.server_pid())

    def test_pid_of_another_program(self):
        """The server's id is another program's here: a sleep, then a copy
        of it named mysqld, started now, not when the server did."""
        pid = mmp.server_pid()
        root = os.path.join(os.environ["MMP_DIR"], "fake-bin")
        os.makedirs(root, exist_ok=True)
        shutil.copy("/bin/sleep", os.path.join(root, "mysqld"))
        self.addCleanup(shutil.rmtree, root, True)
        for binary, words in (("sleep", ["process %d here is /usr/bin/sleep" % pid,
                                         "not mysqld or mariadbd"]),
                              (os.path.join(root, "mysqld"),
                               ["process %d here is a server that started" %
                                pid, "after the one connected to"])):
            with self.subTest(binary=binary):
                # ns_last_pid: the next process of the namespace gets pid.
                argv = self.other_namespace(
                    'echo %d > /proc/sys/kernel/ns_last_pid && '
                    '{ %s 30 & } && sleep 2 && exec "$@"' % (pid - 1, binary))
                if argv is None:
                    self.skipTest("unshare --pid --mount-proc is not "
                                  "allowed here")
                p = global_sample(argv_prefix=argv)
                self.assertNoted(p, *words)
