"""The profile formats read by real consumers: pprof files by Debian's
`go tool pprof`, to the byte, against a JSON capture of the same idle
session (whose memory holds still between runs); folded lines against
the same capture."""

import os
import pty
import re
import shutil
import subprocess
import tempfile
import unittest

import mmp

GO = shutil.which("go")


def go_env(home):
    """go needs a writable home and cache; it must never reach a network."""
    env = dict(os.environ)
    env.update(HOME=home, GOCACHE=os.path.join(home, "cache"),
               GOPATH=os.path.join(home, "go"), GOTOOLCHAIN="local",
               GOPROXY="off", GOFLAGS="", GO111MODULE="off")
    return env


# "  25830B  1.2%  3.4%  25830B  1.2%  memory/innodb/row0sel"
TOP_LINE = re.compile(r"^\s*(-?\d+)B\s+\S+%\s+\S+%\s+(-?\d+)B\s+\S+%\s+(.+)$")


@unittest.skipIf(GO is None, "golang-go is not installed (scripts/deps.sh --test)")
class Pprof(mmp.TestCase):

    def setUp(self):
        super().setUp()
        self.dir = tempfile.mkdtemp(prefix="mmp-pprof-")
        self.addCleanup(shutil.rmtree, self.dir, True)
        self.env = go_env(self.dir)

    def pprof(self, *args):
        p = subprocess.run([GO, "tool", "pprof"] + list(args),
                           capture_output=True, text=True, env=self.env,
                           timeout=120)
        self.assertEqual(p.returncode, 0, p.stderr)
        return p.stdout

    def top(self, index, *args):
        """{function: flat} of `pprof -top` in exact units."""
        out = self.pprof("-top", "-unit=B", "-nodefraction=0",
                         "-nodecount=100000", "-sample_index=" + index, *args)
        flat = {}
        for line in out.splitlines():
            m = TOP_LINE.match(line)
            if m:
                flat[m.group(3)] = int(m.group(1))
        return flat, out

    def capture(self, w, fmt, *extra):
        path = os.path.join(self.dir, "%s-%d.out" % (fmt, len(os.listdir(self.dir))))
        self.run_ok(["--thread", str(w.thread_id), "--format", fmt,
                     "--count", "1", "--top", "0", "-o", path] + list(extra))
        return path

    def json_events(self, w, *extra):
        p = self.run_ok(["--thread", str(w.thread_id), "--format", "json",
                         "--count", "1", "--top", "0"] + list(extra))
        [s] = mmp.parse_json_lines(p.stdout)
        return {e["event_name"]: e for e in s["events"]}

    def test_pprof_has_the_bytes_of_the_capture(self):
        w = self.start(mmp.idle())
        events = self.json_events(w)
        path = self.capture(w, "pprof")
        with open(path, "rb") as f:
            self.assertEqual(f.read(2), b"\x1f\x8b", "gzip")
        for index, key in (("inuse_space", "current_bytes"),
                           ("inuse_objects", "current_count"),
                           ("alloc_space", "alloc_bytes"),
                           ("alloc_objects", "alloc_count")):
            flat, out = self.top(index, path)
            want = {n: max(e[key], 0) for n, e in events.items()
                    if max(e[key], 0) != 0}
            self.assertEqual(flat, want, (index, out))
        # The user variable of idle.sql is there, under its full name.
        self.assertGreater(sum(e["current_bytes"] for e in events.values()),
                           100000)
        traces = self.pprof("-traces", path)
        self.assertIn("thread:  %d" % w.thread_id, traces)
        some = max(events, key=lambda n: events[n]["current_bytes"])
        parts = some.split("/")
        # The stack, leaf first: each frame the path up to it.
        stack = "\n".join("             " + "/".join(parts[:i])
                          for i in range(len(parts) - 1, 0, -1))
        self.assertIn(some + "\n" + stack, traces)
        self.assertIn("Type: inuse_space", self.pprof("-top", path))

    def test_diff_base(self):
        w = self.start(mmp.idle())
        events = self.json_events(w)
        base = self.capture(w, "pprof", "--events", "memory/sql/%")
        full = self.capture(w, "pprof")
        flat, out = self.top("inuse_space", "-diff_base=" + base, full)
        # What the base has cancels out; the rest is the full profile's.
        want = {n: e["current_bytes"] for n, e in events.items()
                if not n.startswith("memory/sql/") and e["current_bytes"] > 0}
        self.assertEqual({n: v for n, v in flat.items() if v != 0}, want, out)
        self.assertTrue(any(n.startswith("memory/sql/") for n in events), events)

    def test_profile_root(self):
        w = self.start(mmp.idle())
        path = self.capture(w, "pprof", "--profile-root", "thread")
        flat, out = self.top("inuse_space", "-cum", path)
        traces = self.pprof("-traces", path)
        root = "thread %d" % w.thread_id
        for block in traces.split("-----------+")[1:]:
            frames = [l.strip() for l in block.splitlines()
                      if l.startswith("             ")]
            if frames:
                self.assertEqual(frames[-1], root, block)

    def test_each_sample_a_file(self):
        w = self.start(mmp.idle())
        pattern = os.path.join(self.dir, "mem-%t-%N.pb.gz")
        p = self.run_ok(["--thread", str(w.thread_id), "--format", "pprof",
                         "--profile-at", "each", "--count", "3",
                         "--frequency", "50", "--top", "0", "-o", pattern])
        names = sorted(n for n in os.listdir(self.dir) if n.startswith("mem-"))
        self.assertEqual(names, ["mem-%d-%d.pb.gz" % (w.thread_id, n)
                                 for n in (1, 2, 3)], mmp.describe(p))
        events = self.json_events(w)
        want = {n: e["current_bytes"] for n, e in events.items()
                if e["current_bytes"] > 0}
        for n in names:
            flat, out = self.top("inuse_space", os.path.join(self.dir, n))
            self.assertEqual(flat, want, out)

    def test_refused_on_a_terminal(self):
        master, slave = pty.openpty()
        try:
            p = subprocess.run([mmp.BIN] + mmp.CONN_ARGS +
                               ["--global", "--format", "pprof", "--count", "1"],
                               stdin=subprocess.DEVNULL, stdout=slave,
                               stderr=subprocess.PIPE, env=mmp.base_env(),
                               timeout=mmp.RUN_TIMEOUT)
        finally:
            os.close(slave)
            os.close(master)
        self.assertEqual(p.returncode, 2, p.stderr)
        lines = p.stderr.decode().splitlines()
        self.assertEqual(len(lines), 1, lines)
        self.assertIn("terminal", lines[0])
        self.assertIn("-o FILE", lines[0])

    def test_nothing_written_leaves_no_file(self):
        # --trigger-bytes holds every sample back: the profile has none.
        w = self.start(mmp.idle())
        path = os.path.join(self.dir, "none.pb.gz")
        with open(path, "wb") as f:
            f.write(b"old")
        p = self.run_ok(["--thread", str(w.thread_id), "--format", "pprof",
                         "--count", "1", "--trigger-bytes", "1G", "-o", path])
        self.assertFalse(os.path.exists(path), mmp.describe(p))
        self.assertIn("no sample was written", p.stderr)


class Folded(mmp.TestCase):

    def test_one_line_per_event_summing_to_the_total(self):
        w = self.start(mmp.idle())
        p = self.run_ok(["--thread", str(w.thread_id), "--format", "json",
                         "--count", "1", "--top", "0"])
        [s] = mmp.parse_json_lines(p.stdout)
        p = self.run_ok(["--thread", str(w.thread_id), "--format", "folded",
                         "--count", "2", "--frequency", "50", "--top", "0",
                         "--profile-root", "thread"])
        lines = p.stdout.splitlines()
        self.assertEqual(len(lines), len(s["events"]), mmp.describe(p))
        got = {}
        for line in lines:
            stack, _, n = line.rpartition(" ")
            frames = stack.split(";")
            self.assertEqual(frames[0], "thread %d" % w.thread_id, line)
            got["/".join(frames[1:])] = int(n)
        want = {e["event_name"]: max(e["current_bytes"], 0) for e in s["events"]}
        self.assertEqual(got, want)
        if all(e["current_bytes"] >= 0 for e in s["events"]):
            self.assertEqual(sum(got.values()), s["total_bytes"])

    def test_top_keeps_the_largest(self):
        w = self.start(mmp.idle())
        p = self.run_ok(["--thread", str(w.thread_id), "--format", "folded",
                         "--count", "1", "--top", "3"])
        lines = p.stdout.splitlines()
        self.assertEqual(len(lines), 3, mmp.describe(p))
        values = [int(l.rpartition(" ")[2]) for l in lines]
        self.assertEqual(values, sorted(values, reverse=True))
        self.assertTrue(all(l.startswith("memory;") for l in lines), lines)

    def test_each_sample_a_file(self):
        w = self.start(mmp.idle())
        with tempfile.TemporaryDirectory() as d:
            p = self.run_ok(["--thread", str(w.thread_id), "--format",
                             "folded", "--profile-at", "each", "--count", "2",
                             "--frequency", "50", "--top", "2",
                             "-o", os.path.join(d, "f-%N.folded")])
            self.assertEqual(sorted(os.listdir(d)), ["f-1.folded", "f-2.folded"])
            for n in os.listdir(d):
                with open(os.path.join(d, n)) as f:
                    self.assertEqual(len(f.read().splitlines()), 2, n)
        p = mmp.run(["--global", "--format", "folded", "--profile-at", "each"])
        self.assertOneErrorLine(p, 2, "pattern with %N")

    def test_profile_option_needs_a_profile_format(self):
        p = mmp.run(["--global", "--profile-at", "peak"])
        self.assertOneErrorLine(p, 2, "--profile-at", "folded or pprof")
