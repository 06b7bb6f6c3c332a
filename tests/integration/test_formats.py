"""The machine formats, read back with Python's own CSV reader and JSON
parser, and --output."""

import os
import tempfile

import mmp


class Csv(mmp.TestCase):

    def test_csv(self):
        w = self.start(mmp.idle())
        p = self.run_ok(["--thread", str(w.thread_id), "--format", "csv",
                         "--count", "3", "--frequency", "100", "--top", "4"])
        rows = self.assertCsvSamples(p.stdout, mmp.describe(p))
        self.assertEqual(sorted({r["sample"] for r in rows}), [1, 2, 3])
        for n in (1, 2, 3):
            mine = [r for r in rows if r["sample"] == n]
            self.assertTrue(1 <= len(mine) <= 4, mine)
            # One sample, one time, one thread, one total.
            for c in ("elapsed_ms", "timestamp", "thread_id", "total_bytes",
                      "late_us", "query_us"):
                self.assertEqual(len({r[c] for r in mine}), 1, (c, mine))
            self.assertEqual(mine[0]["thread_id"], w.thread_id)
            cur = [r["current_bytes"] for r in mine]
            self.assertEqual(cur, sorted(cur, reverse=True))
            # The user variable of the idle session is 100,000 bytes.
            self.assertGreater(mine[0]["total_bytes"], 100000)
            for r in mine:
                self.assertEqual(r["current_bytes"], r["alloc_bytes"] - r["free_bytes"], r)
                self.assertGreaterEqual(r["high_bytes"], r["current_bytes"], r)


class Json(mmp.TestCase):

    def test_json_lines(self):
        w = self.start(mmp.idle())
        p = self.run_ok(["--thread", str(w.thread_id), "--format", "json",
                         "--count", "3", "--frequency", "100", "--top", "4"])
        lines = p.stdout.split("\n")
        self.assertEqual(lines[-1], "", "output must end with a newline")
        samples = [mmp.json.loads(l) for l in lines[:-1]]
        self.assertEqual(len(samples), 3, mmp.describe(p))
        for i, s in enumerate(samples, 1):
            self.assertJsonSample(s, first=(i == 1))
            self.assertEqual(s["sample"], i)
            self.assertEqual(s["thread_id"], w.thread_id)
            self.assertTrue(1 <= len(s["events"]) <= 4, s)
            cur = [e["current_bytes"] for e in s["events"]]
            self.assertEqual(cur, sorted(cur, reverse=True), s)
        t = [s["timestamp"] for s in samples]
        self.assertEqual(t, sorted(t))
        # The deltas are the differences of the counters between samples.
        for prev, cur in zip(samples, samples[1:]):
            before = {e["event_name"]: e for e in prev["events"]}
            for e in cur["events"]:
                b = before.get(e["event_name"])
                if b is None:
                    continue
                for k in ("alloc_bytes", "free_bytes", "alloc_count", "free_count"):
                    key = k.replace("_", "_delta_", 1)
                    self.assertEqual(e[key], e[k] - b[k], (key, b, e))


class Output(mmp.TestCase):

    def test_output_file(self):
        w = self.start(mmp.idle())
        with tempfile.TemporaryDirectory() as d:
            path = os.path.join(d, "out.csv")
            p = self.run_ok(["--thread", str(w.thread_id), "--format", "csv",
                             "--count", "2", "--frequency", "50", "-o", path])
            self.assertEqual(p.stdout, "")
            with open(path, newline="") as f:
                rows = self.assertCsvSamples(f.read(), mmp.describe(p))
            self.assertEqual({r["sample"] for r in rows}, {1, 2})
            path2 = os.path.join(d, "out.txt")
            p = self.run_ok(["--thread", str(w.thread_id), "--count", "1",
                             "--output=" + path2])
            self.assertEqual(p.stdout, "")
            with open(path2) as f:
                self.assertIn("## Memory usage at time", f.read())


class Text(mmp.TestCase):

    def test_text_bytes_matches_json(self):
        # The idle session holds still: two reads see the same memory.
        w = self.start(mmp.idle())
        pj = self.run_ok(["--thread", str(w.thread_id), "--format", "json",
                          "--count", "1", "--top", "0"])
        pt = self.run_ok(["--thread", str(w.thread_id), "--count", "1",
                          "--top", "0", "--bytes"])
        sample = mmp.parse_json_lines(pj.stdout)[0]
        want = {e["event_name"][len("memory/"):]: e["current_bytes"]
                for e in sample["events"]}
        block = pt.stdout.split("## Summary")[0]
        self.assertRegex(block, r"^## statement: SELECT SLEEP\(20\) ##\n"
                                r"## Memory usage at time 0 ##\n", mmp.describe(pt))
        got = {}
        total = None
        for line in block.splitlines()[2:]:
            if not line.strip():
                continue
            # Values right-aligned: spaces may follow the arrow.
            m = mmp.re.match(r"^ (\S.*?)\s+-> +(-?\d+)$", line)
            self.assertTrue(m, "not ' name -> integer': %r%s" % (line, mmp.describe(pt)))
            if m.group(1) == "(thread total)":
                total = int(m.group(2))
            elif m.group(1) == "(server's count)":
                # MySQL's own count of the thread (test_total).
                self.assertEqual(int(m.group(2)),
                                 sample["connection_bytes"])
            else:
                got[m.group(1)] = int(m.group(2))
        self.assertEqual(got, want, mmp.describe(pt))
        self.assertEqual(total, sample["total_bytes"], mmp.describe(pt))
        # Without --bytes, units for people.
        ph = self.run_ok(["--thread", str(w.thread_id), "--count", "1"])
        self.assertRegex(ph.stdout, r"(?m)^ \(thread total\)\s+-> +\d+\.\d\d [KM]iB$",
                         mmp.describe(ph))
