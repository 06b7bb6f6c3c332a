"""--read: a JSON capture replayed without a server gives back the same
JSON, the CSV of the same samples and a summary of them; what is not a
capture is refused with one line naming the line; a stop ends a replay
from a pipe at once, its output whole. --read DIR (a record made by hand
from the capture's lines): what is planted among the segments (a FIFO, a
folder, a link to /dev/zero) and a line over the bound are passed over,
every sample around them replayed; an output that is a file of the record
is refused. Figures no server reports (near 2^63) are refused, naming the
key; at the bound, the picture of them stays inside its box. Samples that
carry a thread's total only (its own count, --rows-every) are replayed as
they were, and marked so in text and the picture."""

import csv
import io
import json
import os
import re
import shutil
import signal
import subprocess
import tempfile
import time

import mmp


def outside(svg):
    """The elements of svg with a point outside its viewBox."""
    w, h = map(float, re.search(r'viewBox="0 0 ([\d.]+) ([\d.]+)"',
                                svg).groups())
    bad = []
    for tag in re.findall(r"<(?:line|rect|polygon|polyline|path|text|circle)"
                          r"\b[^>]*>", svg):
        pts = []
        for k, v in re.findall(r'\s(x|y|x1|x2|y1|y2|cx|cy|points|d)="([^"]*)"',
                               tag):
            nums = [float(n) for n in re.findall(r"-?\d+(?:\.\d+)?", v)]
            if k in ("points", "d"):
                pts += zip(nums[0::2], nums[1::2])
            elif k.startswith(("x", "cx")):
                pts.append((nums[0], 0))
            else:
                pts.append((0, nums[0]))
        if any(x < 0 or x > w or y < 0 or y > h for x, y in pts):
            bad.append(tag)
    return bad


class Captured(mmp.TestCase):
    """A capture of 5 samples of an idle thread as JSON, in a folder of the
    class's own: args added to the run; process: on MariaDB, PROCESS
    granted for the capture alone (the count of another account's
    connection needs it)."""

    args = []
    process = False

    @classmethod
    def setUpClass(cls):
        cls.dir = tempfile.mkdtemp(prefix="mmp-read-")
        cls.path = os.path.join(cls.dir, "cap.jsonl")
        grant = cls.process and mmp.FAMILY == "mariadb"
        w = mmp.idle()
        try:
            if grant:
                mmp.root_sql("GRANT PROCESS ON *.* TO 'mmp'@'localhost'")
            p = mmp.run(["--thread", str(w.thread_id), "--format", "json",
                         "--count", "5", "--frequency", "100", "-o",
                         cls.path] + cls.args)
            assert p.returncode == 0, mmp.describe(p)
        finally:
            if grant:
                mmp.root_sql("REVOKE PROCESS ON *.* FROM 'mmp'@'localhost'")
            w.kill()
        with open(cls.path, encoding="utf-8") as f:
            cls.raw = f.read()
        cls.samples = [json.loads(l) for l in cls.raw.splitlines()]

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.dir, ignore_errors=True)


class Read(Captured):

    args = ["--top", "6"]

    def replay(self, *args, path=None):
        return mmp.run(["--read", path or self.path] + list(args),
                       conn=False)

    def file(self, name, content):
        path = os.path.join(self.dir, name)
        with open(path, "wb") as f:
            f.write(content.encode("utf-8") if isinstance(content, str)
                    else content)
        return path

    def test_json_is_the_capture(self):
        p = self.replay("--format", "json")
        self.assertEqual(p.returncode, 0, mmp.describe(p))
        self.assertEqual(p.stdout, self.raw)
        self.assertIn("replayed 5 samples", p.stderr)
        # From standard input too.
        q = subprocess.run([mmp.BIN, "--read", "-", "--format", "json"],
                           input=self.raw.encode(), capture_output=True,
                           env=mmp.base_env(), timeout=mmp.RUN_TIMEOUT)
        self.assertEqual(q.returncode, 0, q.stderr)
        self.assertEqual(q.stdout.decode(), self.raw)

    def test_csv_is_the_capture(self):
        p = self.replay("--format", "csv")
        self.assertEqual(p.returncode, 0, mmp.describe(p))
        rows = list(csv.reader(io.StringIO(p.stdout, newline="")))
        self.assertEqual(rows[0], mmp.CSV_HEADER)

        def cell(v):
            return "" if v is None else str(v)
        want = []
        for s in self.samples:
            for e in s["events"] or [{}]:
                want.append([cell(e.get(k) if k in mmp.EVENT_KEYS else s[k])
                             for k in mmp.CSV_HEADER])
        self.assertEqual(rows[1:], want)

    def test_profile_options_drawn_as_a_capture_draws_them(self):
        # A replay takes --profile-root and --profile-at as a capture
        # does (it once took only --bytes): the thread's frame above the
        # events, and a file a sample.
        tid = self.samples[0]["thread_id"]
        p = self.replay("--format", "folded", "--profile-root", "thread")
        self.assertEqual(p.returncode, 0, mmp.describe(p))
        lines = p.stdout.splitlines()
        self.assertTrue(lines, mmp.describe(p))
        for line in lines:
            self.assertTrue(line.startswith("thread %d;memory;" % tid), line)
        pattern = os.path.join(self.dir, "each-%N.folded")
        p = self.replay("--format", "folded", "--profile-at", "each",
                        "-o", pattern)
        self.assertEqual(p.returncode, 0, mmp.describe(p))
        made = sorted(f for f in os.listdir(self.dir)
                      if f.startswith("each-"))
        self.assertEqual(made, ["each-%d.folded" % n for n in range(1, 6)])

    def test_summary_of_the_capture(self):
        p = self.replay("--format", "text")
        self.assertEqual(p.returncode, 0, mmp.describe(p))
        first, last = self.samples[0], self.samples[-1]
        self.assertIn("## Summary of 5 samples (#1 to #5, %d ms to %d ms), "
                      "thread %d ##" % (first["elapsed_ms"],
                                        last["elapsed_ms"],
                                        first["thread_id"]), p.stdout)
        self.assertEqual(p.stdout.count("## Memory usage at time"), 5)
        # What the queries cost the server, from the samples' query_us:
        # all but the first ran in the time from the first to the last.
        q = [s["query_us"] for s in self.samples]
        span_us = (last["elapsed_ms"] - first["elapsed_ms"]) * 1000
        self.assertIn(" server time per sample: mean %.2f ms, slowest %.2f "
                      "ms; %.1f%% of a core over the run\n" % (
                          sum(q) / len(q) / 1000, max(q) / 1000,
                          (sum(q) - q[0]) / span_us * 100), p.stdout)

    def assertRefused(self, path, *words):
        p = self.replay("--format", "csv", path=path)
        self.assertOneErrorLine(p, 1, *words)
        return p

    def test_refused(self):
        self.assertRefused(self.file("empty.jsonl", ""), "empty")
        self.assertRefused(self.file("text.txt", "## Memory usage at time 0 "
                                     "##\n memory/x -> 1 B\n"),
                           "line 1", "not JSON")
        self.assertRefused(self.file("foreign.json",
                                     '{"name": "x", "value": 1}\n'),
                           "line 1", "not a mysqlmemprof sample")
        lines = self.raw.splitlines(True)
        bad = self.file("bad3.jsonl", "".join(lines[:2]) + "[1]\n" +
                        "".join(lines[3:]))
        p = self.assertRefused(bad, "line 3")
        # The samples before it are written, whole.
        self.assertEqual(p.stdout.count("\n"), 1 + sum(
            max(1, len(s["events"])) for s in self.samples[:2]))
        cut = self.raw[:len(self.raw) - len(lines[-1]) // 2]
        self.assertRefused(self.file("cut.jsonl", cut), "cut short",
                           "line 5", "4 samples")
        self.assertRefused(os.path.join(self.dir, "missing.jsonl"),
                           "missing.jsonl")

    def test_output_is_not_the_input(self):
        copy = self.file("copy.jsonl", self.raw)
        p = self.replay("--format", "html", "-o", copy, path=copy)
        self.assertOneErrorLine(p, 2, "is the file --read replays")
        with open(copy) as f:
            self.assertEqual(f.read(), self.raw)

    def test_server_options_refused(self):
        for extra in (["--host", "db1"], ["--thread", "5"],
                      ["--socket", "/tmp/x"], ["--user", "u"]):
            p = mmp.run(["--read", self.path] + extra, conn=False)
            self.assertOneErrorLine(p, 2, extra[0])

    def test_stop_ends_a_replay_from_a_pipe(self):
        out = os.path.join(self.dir, "piped.html")
        proc = subprocess.Popen([mmp.BIN, "--read", "-", "--format", "html",
                                 "-o", out], stdin=subprocess.PIPE,
                                stderr=subprocess.PIPE, env=mmp.base_env())
        try:
            proc.stdin.write(self.raw.splitlines(True)[0].encode())
            proc.stdin.flush()
            time.sleep(0.5)
            self.assertIsNone(proc.poll())
            t0 = time.monotonic()
            proc.send_signal(signal.SIGTERM)
            rc = proc.wait(timeout=10)
            self.assertLess(time.monotonic() - t0, 5)
        finally:
            if proc.poll() is None:
                proc.kill()
            proc.stdin.close()
            err = proc.stderr.read().decode()
            proc.stderr.close()
        self.assertEqual(rc, 0, err)
        with open(out) as f:
            doc = f.read()
        self.assertTrue(doc.rstrip().endswith("</html>"), doc[-200:])
        self.assertIn("1 sample", doc)

    # Segments' names: the hostile file sorts between the two real ones.
    SEGMENTS = ("20261127T031200.000Z.jsonl", "20261127T031300.000Z.jsonl",
                "20261127T031400.000Z.jsonl")

    def record(self, name, plant):
        """DIR/segments with the capture's samples in the first and last
        segments and plant(path) making the middle one; returns DIR."""
        rec = os.path.join(self.dir, name)
        seg = os.path.join(rec, "segments")
        os.makedirs(seg)
        lines = self.raw.splitlines(True)
        for i, part in ((0, lines[:2]), (2, lines[2:])):
            with open(os.path.join(seg, self.SEGMENTS[i]), "w") as f:
                f.write("".join(part))
        plant(os.path.join(seg, self.SEGMENTS[1]))
        return rec

    def assertAllReplayed(self, rec, *words):
        p = mmp.run(["--read", rec, "--format", "json"], conn=False,
                    timeout=15)
        self.assertEqual(p.returncode, 0, mmp.describe(p))
        self.assertEqual(p.stdout, self.raw)
        self.assertIn("replayed 5 samples", p.stderr)
        for w in words:
            self.assertIn(w, p.stderr)
        return p

    def test_read_dir_passes_over_a_fifo(self):
        rec = self.record("fifo", os.mkfifo)
        self.assertAllReplayed(rec, self.SEGMENTS[1] + " passed over: a FIFO")

    def test_read_dir_passes_over_a_folder(self):
        rec = self.record("folder", os.mkdir)
        self.assertAllReplayed(rec, self.SEGMENTS[1] +
                               " passed over: a folder")

    def test_read_dir_passes_over_a_link(self):
        rec = self.record("zero", lambda p: os.symlink("/dev/zero", p))
        self.assertAllReplayed(rec, self.SEGMENTS[1] +
                               " passed over: a symbolic link")

    def test_read_dir_leaves_out_a_line_too_long(self):
        third = self.raw.splitlines(True)[2]

        def plant(path):
            with open(path, "w") as f:
                f.write("x" * ((64 << 20) + 1) + "\n")
            # The samples of the segment after it go on being read.
            with open(os.path.join(os.path.dirname(path),
                                   self.SEGMENTS[2])) as f:
                rest = f.read()
            with open(os.path.join(os.path.dirname(path),
                                   self.SEGMENTS[2]), "w") as f:
                f.write(rest[len(third):])
            with open(path, "a") as f:
                f.write(third)
        rec = self.record("long", plant)
        self.assertAllReplayed(rec, "1 line of", "longer than 64 MiB")

    def test_read_dir_refuses_an_output_in_the_record(self):
        rec = self.record("out", lambda p: None)
        seg = os.path.join(rec, "segments")
        last = os.path.join(seg, self.SEGMENTS[2])
        with open(last) as f:
            kept = f.read()
        outside = os.path.join(self.dir, "hard-link.jsonl")
        os.link(last, outside)
        # A segment still to be read, a new file among them, another name
        # of a segment (a hard link: the same inode).
        for out in (last, os.path.join(seg, "picture.html"), outside):
            p = mmp.run(["--read", rec, "--format", "json", "-o", out],
                        conn=False, timeout=15)
            self.assertOneErrorLine(p, 2, out, "is in the record")
        # Standard output sent into a segment by the shell.
        with open(last, "a") as f:
            p = subprocess.run([mmp.BIN, "--read", rec, "--format", "json"],
                               stdout=f, stderr=subprocess.PIPE,
                               env=mmp.base_env(), timeout=15)
        self.assertEqual(p.returncode, 2, p.stderr)
        self.assertIn(b"standard output is in the record", p.stderr)
        self.assertEqual(sorted(os.listdir(seg)),
                         [self.SEGMENTS[0], self.SEGMENTS[2]])
        with open(last) as f:
            self.assertEqual(f.read(), kept)

    def with_figures(self, name, held, counted):
        """The capture with every figure of what is held set to +-held
        (the sign alternating) and every counter to counted."""
        out = []
        for i, s in enumerate(self.samples):
            s = json.loads(json.dumps(s))
            sign = 1 if i % 2 else -1
            s["total_bytes"] = sign * held
            for e in s["events"]:
                e["current_bytes"] = -sign * held
                e["high_bytes"] = held
                e["alloc_bytes"] = e["free_bytes"] = counted
                if e["alloc_delta_bytes"] is not None:
                    e["alloc_delta_bytes"] = counted
                    e["unseen_peak_bytes"] = e["spike_lower_bytes"] = held
            out.append(json.dumps(s) + "\n")
        return self.file(name, "".join(out))

    def test_figures_no_server_reports(self):
        near = self.with_figures("near.jsonl", 2**63 - 1000, 2**63 - 1)
        self.assertRefused(near, "line 1", "beyond 1 PiB", "total_bytes")
        # At the bound, of either sign: drawn, inside the picture's box.
        edge = self.with_figures("edge.jsonl", 2**50, 2**63 - 1)
        for fmt in ("svg", "html"):
            out = os.path.join(self.dir, "edge." + fmt)
            p = self.replay("--format", fmt, "-o", out, path=edge)
            self.assertEqual(p.returncode, 0, mmp.describe(p))
            with open(out) as f:
                doc = f.read()
            svg = doc[doc.index("<svg"):doc.index("</svg>")]
            self.assertIn("<polygon", svg)
            self.assertEqual(outside(svg), [])


class TotalOnly(Captured):
    """An idle thread's samples after the first carry its total only (the
    server's own count each tick, --rows-every): captured as JSON and
    replayed, the JSON comes back whole, text marks each such sample,
    shows the count under the total and counts both kinds in the
    summary, and the HTML page draws them under a veil and counts them."""

    process = True

    def test_total_only_replayed(self):
        kept = [s for s in self.samples if s["events_kept"]]
        self.assertFalse(self.samples[0]["events_kept"])
        self.assertTrue(kept, self.samples)
        for before, s in zip(self.samples, self.samples[1:]):
            self.assertIsNotNone(s["connection_bytes"], s)
            if s["events_kept"]:
                self.assertEqual([(e["event_name"], e["current_bytes"])
                                  for e in s["events"]],
                                 [(e["event_name"], e["current_bytes"])
                                  for e in before["events"]], s)
        p = mmp.run(["--read", self.path, "--format", "json"], conn=False)
        self.assertEqual(p.returncode, 0, mmp.describe(p))
        self.assertEqual(p.stdout, self.raw)
        p = mmp.run(["--read", self.path, "--format", "text"], conn=False)
        self.assertEqual(p.returncode, 0, mmp.describe(p))
        self.assertEqual(p.stdout.count("(total only; rows of "), len(kept))
        self.assertEqual(p.stdout.count(" (server's count) "),
                         len(self.samples))
        read = len(self.samples) - len(kept)
        self.assertIn(" rows read: %d sample%s; the total only (the server's "
                      "own count): %d\n" % (read, "" if read == 1 else "s",
                                            len(kept)), p.stdout)
        # The picture: a veil over the kept columns, the facts count them.
        p = mmp.run(["--read", self.path, "--format", "html"], conn=False)
        self.assertEqual(p.returncode, 0, mmp.describe(p))
        self.assertIn("; %d kept the events of an earlier reading (pale in "
                      "the picture)" % len(kept), p.stdout)
        self.assertIn('<g class="kept"', p.stdout)
