"""--global beside the server's memory cgroup: the sandbox server put in a
fresh cgroup of v1's memory controller (as root, where it is mounted and
writable), with a limit and without one; the usage, the limit and the
OOM kills the kernel counts there come out in the JSON columns, the text
rows and summary, and the exporter's gauges. The server goes back to its
own cgroup after each test, and the test's cgroup is removed."""

import os
import signal

import mmp
import test_exporter

V1 = "/sys/fs/cgroup/memory"
GIB = 1024 * 1024 * 1024
LIMIT = 4 * GIB


def memory_cgroup_of(pid):
    """The path of pid's cgroup of v1's memory controller, or None."""
    with open("/proc/%d/cgroup" % pid) as f:
        for line in f:
            _, controllers, path = line.rstrip("\n").split(":", 2)
            if "memory" in controllers.split(","):
                return path
    return None


def write(path, text):
    with open(path, "w") as f:
        f.write(text)


class Cgroup(mmp.TestCase):

    def setUp(self):
        super().setUp()
        if os.geteuid() != 0:
            self.skipTest("moving the server into a cgroup needs root")
        if not os.access(os.path.join(V1, "cgroup.procs"), os.W_OK):
            self.skipTest("no writable cgroup v1 memory controller at %s"
                          % V1)
        self.pid = mmp.server_pid()
        self.home = memory_cgroup_of(self.pid)
        if self.home is None:
            self.skipTest("the server is in no v1 memory cgroup")

    def enter(self, limit=None):
        """The server moved into a cgroup of its own, with limit (None:
        none set); moved back and the cgroup removed at cleanup."""
        path = os.path.join(V1, "mmp-test-%d" % os.getpid())
        os.mkdir(path)
        self.addCleanup(os.rmdir, path)
        if limit is not None:
            write(os.path.join(path, "memory.limit_in_bytes"), str(limit))
        write(os.path.join(path, "cgroup.procs"), str(self.pid))
        self.addCleanup(write, os.path.join(V1 + self.home, "cgroup.procs"),
                        str(self.pid))
        self.assertEqual(memory_cgroup_of(self.pid), "/" + os.path.basename(
            path))
        # Something charged to it: a query's memory, pages touched.
        mmp.root_sql("SELECT COUNT(*) FROM information_schema.TABLES")
        return path

    def samples(self, fmt="json", count=3):
        p = self.run_ok(["--global", "--format", fmt, "--count", str(count),
                         "--frequency", "200"])
        self.assertNotIn("memory cgroup is not shown", p.stderr)
        return p

    def test_limit_usage_and_kills(self):
        path = self.enter(LIMIT)
        p = self.samples()
        rows = mmp.parse_json_lines(p.stdout)
        self.assertEqual(len(rows), 3, mmp.describe(p))
        for s in rows:
            self.assertJsonSample(s, first=s["sample"] == 1)
            self.assertEqual(s["cgroup_limit_bytes"], LIMIT, s)
            self.assertGreater(s["cgroup_usage_bytes"], 0, s)
            self.assertEqual(s["cgroup_oom_kills"], 0, s)
        # The kernel's own figure, read a moment later: the same order.
        with open(os.path.join(path, "memory.usage_in_bytes")) as f:
            now = int(f.read())
        self.assertLess(rows[-1]["cgroup_usage_bytes"], 4 * now + (1 << 20),
                        (rows[-1], now))

    def test_text_rows_and_summary(self):
        self.enter(LIMIT)
        p = self.samples(fmt="text", count=2)
        self.assertRegex(p.stdout, r"\(cgroup limit\)\s+-> +4\.00 GiB")
        self.assertRegex(p.stdout, r"memory cgroup: closest to its limit "
                         r"4\.00 GiB at \d+% \(usage [^)]+\), sample #\d+ at "
                         r"\S+; OOM kills 0\n")

    def test_no_limit(self):
        self.enter()
        p = self.samples(count=1)
        s = mmp.parse_json_lines(p.stdout)[0]
        self.assertIsNone(s["cgroup_limit_bytes"], s)
        self.assertGreater(s["cgroup_usage_bytes"], 0, s)
        p = self.samples(fmt="text", count=1)
        self.assertRegex(p.stdout, r"\(cgroup limit\)\s+-> +no limit")
        self.assertIn("memory cgroup: no limit; usage at most", p.stdout)

    def test_exporter_gauges(self):
        self.enter(LIMIT)
        port = test_exporter.free_port(19100, 19199)
        b = self.spawn(["--listen", "127.0.0.1:%d" % port,
                        "--frequency", "200"])
        page = test_exporter.page_with(
            port, "\nmysqlmemprof_cgroup_usage_bytes ")
        b.finish(signal.SIGTERM)
        self.assertIn("\nmysqlmemprof_cgroup_limit_bytes %d\n" % LIMIT, page)
        self.assertIn("\nmysqlmemprof_cgroup_oom_kills_total 0\n", page)
