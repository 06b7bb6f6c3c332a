"""cgroup v2 for real (issue 31): the black box's OOM-kill test of
test_record.py, in the User-mode Linux guest of tests/uml.sh, whose kernel
has cgroup v2 only. There the sandbox server runs in
system.slice/mariadb.service, as systemd runs it (tests/uml.sh starts it
there); the limit is the service's memory.max, or the slice's when the
service has none, under a memory.high; the kernel's OOM killer kills the
server while a statement grows; the recorder's incident names the
connection and its statement, the OOM-kill count rising by one, the limit
and the kernel's line. --global's cgroup columns show memory.max and
memory.current.

Not named test_*.py: main.py's search on the host leaves it out; the guest
runs it by name (python3 tests/integration/main.py uml_cgroup2)."""

import os
import signal
import time
import types

import mmp
import test_record

V2 = "/sys/fs/cgroup"
SLICE = "system.slice"
SERVICE = SLICE + "/mariadb.service"


class Group:
    """A cgroup of the guest's cgroup2 hierarchy, by its path under V2."""

    def __init__(self, name):
        self.name = name
        self.path = os.path.join(V2, name)

    def file(self, name):
        return os.path.join(self.path, name)

    def read(self, name):
        with open(self.file(name)) as f:
            return f.read().strip()

    def write(self, name, text):
        with open(self.file(name), "w") as f:
            f.write(text)

    def usage(self):
        return int(self.read("memory.current"))

    def events(self, key):
        """The count key of memory.events (this group's and below)."""
        for line in self.read("memory.events").splitlines():
            k, _, v = line.partition(" ")
            if k == key:
                return int(v)
        raise AssertionError("no %s in %s" % (key, self.file("memory.events")))

    def oom_kills(self):
        return self.events("oom_kill")

    def pids(self):
        return [int(p) for p in self.read("cgroup.procs").split()]

    def set_max(self, limit):
        """memory.max set to limit (an int, or "max"); returns the kernel's
        figure (whole pages), or None for none."""
        self.write("memory.max", str(limit))
        got = self.read("memory.max")
        return None if got == "max" else int(got)


def cgroup_of(pid):
    """pid's cgroup v2 path ("/system.slice/..."), from /proc/PID/cgroup."""
    with open("/proc/%d/cgroup" % pid) as f:
        for line in f:
            if line.startswith("0::"):
                return line[3:].rstrip("\n")
    return None


class V2OomKill(test_record.RecordCase):
    """Each test begins with no limit set and a server of its own in
    SERVICE: the one tests/uml.sh started, or a new one after an earlier
    test's (killed, or left running by a failure); used holds the pids of
    the servers the tests so far were given."""

    check_incident = test_record.OomKill.check_incident
    used = set()

    def setUp(self):
        super().setUp()
        self.leaf, self.slice = Group(SERVICE), Group(SLICE)
        if not os.path.exists(self.leaf.file("memory.max")):
            self.skipTest("runs in the User-mode Linux guest of tests/uml.sh"
                          " (no cgroup v2 group %s here)" % self.leaf.path)
        for g in (self.leaf, self.slice):
            g.set_max("max")
        self.leaf.write("memory.high", "max")
        pid = mmp.server_pid()
        if pid in self.used:
            try:
                os.kill(pid, signal.SIGTERM)
            except ProcessLookupError:
                pass
            pid = mmp.restart_killed_server(pid, self.leaf)
        self.used.add(pid)
        self.pid = pid
        self.assertEqual(cgroup_of(pid), "/" + SERVICE)
        self.assertIn(pid, self.leaf.pids())

    def csv_cgroup(self):
        """--global --format csv's cgroup columns over two samples:
        [(usage, limit)], then memory.current read at once after."""
        p = self.run_ok(["--global", "--format", "csv", "--count", "2",
                         "--frequency", "200"])
        rows = mmp.parse_csv(p.stdout)
        head = rows[0]
        # A row an event; the sample's columns repeat on each.
        got = {r[head.index("sample")]: (
            r[head.index("cgroup_usage_bytes")],
            r[head.index("cgroup_limit_bytes")]) for r in rows[1:]}
        self.assertEqual(sorted(got), ["1", "2"], mmp.describe(p))
        for usage, _ in got.values():
            self.assertRegex(usage, r"^\d+$", mmp.describe(p))
        return [(int(u), l) for u, l in got.values()], self.leaf.usage(), p

    def assertCsvCgroup(self, limit):
        got, current, p = self.csv_cgroup()
        for usage, shown in got:
            self.assertEqual(shown, str(limit), mmp.describe(p))
            # memory.current as read a moment later: the server idles.
            self.assertLess(abs(usage - current), 16 << 20,
                            "%d vs memory.current %d%s" %
                            (usage, current, mmp.describe(p)))

    def oom_incident(self, cg):
        """The recorder running, a statement that grows until the kernel
        kills the server, the oom-kill incident checked as on v1 (cg:
        .limit, .oom_kills(), the counter the recorder reads)."""
        kills = cg.oom_kills()
        rec = self.recorder("--frequency", "1000")
        self.wait_samples(rec, lambda s: len(s) >= 2, "two samples", 60)
        grow_at = time.time()
        w = self.start(mmp.grower())
        took = mmp.wait_oom_kill(self.pid, w)
        killed_at = time.time()
        self.assertEqual(cg.oom_kills(), kills + 1)
        stem, objs, desc = self.wait_incident(rec, "oom-kill", killed_at, 10)
        print("\ncgroup v2: OOM kill %.1f s into the growth; incident "
              "%.1f s after it" % (took, time.time() - killed_at), end=" ",
              flush=True)
        self.check_incident(objs, cg, kills, w, grow_at, killed_at, desc)
        inc = [o for o in objs if o.get("type") == "incident" and
               o.get("kind") == "oom-kill"][-1]
        self.assertEqual(inc["cgroup_limit_bytes"], cg.limit, desc)
        self.assertEqual(inc["cgroup_oom_kills"], kills + 1, desc)
        self.assertIn("Killed process %d (" % self.pid, inc["kernel"] or "",
                      desc)
        # The layers of the window (read with the first sample) give the
        # same limit.
        layers = [o for o in objs if o.get("type") == "explain"]
        self.assertTrue(layers, "no layers in the window" + desc)
        self.assertEqual(layers[-1]["cgroup"]["limit_bytes"], cg.limit, desc)
        self.finish_ok(rec, sig=signal.SIGTERM)

    def test_limit_on_the_service(self):
        limit = self.leaf.set_max(self.leaf.usage() + mmp.OOM_HEADROOM)
        self.assertCsvCgroup(limit)
        self.oom_incident(types.SimpleNamespace(
            limit=limit, oom_kills=self.leaf.oom_kills))

    def test_limit_on_the_slice_under_memory_high(self):
        """systemd's MemoryMax= on the slice, the service with none but a
        MemoryHigh= just under it: the kernel throttles the server over
        its memory.high (which is no limit; a little under memory.max, or
        the throttled growth would take minutes to reach it), then kills it
        at the slice's memory.max."""
        usage = self.slice.usage()
        limit = self.slice.set_max(usage + mmp.OOM_HEADROOM)
        self.leaf.write("memory.high", str(limit - (4 << 20)))
        self.assertCsvCgroup(limit)
        # The kill is counted in the service's memory.events (and the
        # slice's, which counts its children's).
        self.oom_incident(types.SimpleNamespace(
            limit=limit, oom_kills=self.leaf.oom_kills))
        self.assertGreater(self.leaf.events("high"), 0)
