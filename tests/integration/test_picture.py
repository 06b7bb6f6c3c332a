"""--format html and svg: the picture of a run. The SVG is well-formed XML
(xmllint), the HTML renders in headless Chromium (no network) to a PNG
that is not blank, the bands and statement labels match the capture, and
hostile statement text renders as text. The file is whole when a signal
ends the run."""

import collections
import html.parser
import json
import os
import re
import shutil
import signal
import struct
import subprocess
import tempfile
import unittest
import zlib

import mmp

HAVE_XMLLINT = shutil.which("xmllint") is not None
HAVE_CHROMIUM = shutil.which("chromium") is not None


def statement_runs(samples):
    """The runs of one known statement in a capture, as the chart sees them."""
    runs, last = 0, object()
    for s in samples:
        key = (s["thread_id"], s["statement_id"], s["digest"], s["statement"])
        if key != last and (s["statement_id"] is not None or s["digest"] or
                            s["statement"]):
            runs += 1
        last = key
    return runs


def png_colours(path):
    """How often each colour occurs in an 8-bit RGB or RGBA PNG (every
    other pixel of every fourth row), decoded with zlib."""
    with open(path, "rb") as f:
        data = f.read()
    assert data[:8] == b"\x89PNG\r\n\x1a\n", "not a PNG"
    pos, idat, width = 8, b"", 0
    while pos < len(data):
        n, kind = struct.unpack(">I4s", data[pos:pos + 8])
        body = data[pos + 8:pos + 8 + n]
        if kind == b"IHDR":
            width, height, depth, ctype = struct.unpack(">IIBB", body[:10])
            assert depth == 8 and ctype in (2, 6), (depth, ctype)
            bpp = 3 if ctype == 2 else 4
        elif kind == b"IDAT":
            idat += body
        pos += 12 + n
    raw = zlib.decompress(idat)
    stride = width * bpp
    prev = bytearray(stride)
    colours = collections.Counter()
    for y in range(height):
        ftype = raw[y * (stride + 1)]
        line = bytearray(raw[y * (stride + 1) + 1:(y + 1) * (stride + 1)])
        for i in range(stride):
            a = line[i - bpp] if i >= bpp else 0
            b = prev[i]
            c = prev[i - bpp] if i >= bpp else 0
            if ftype == 1:
                line[i] = (line[i] + a) & 255
            elif ftype == 2:
                line[i] = (line[i] + b) & 255
            elif ftype == 3:
                line[i] = (line[i] + (a + b) // 2) & 255
            elif ftype == 4:
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                pr = a if pa <= pb and pa <= pc else b if pb <= pc else c
                line[i] = (line[i] + pr) & 255
        if y % 4 == 0:
            for x in range(0, stride, bpp * 2):
                colours[bytes(line[x:x + 3])] += 1
        prev = line
    return colours


class Tags(html.parser.HTMLParser):
    """The elements of a document, and its text."""

    def __init__(self):
        super().__init__()
        self.tags = []
        self.text = []

    def handle_starttag(self, tag, attrs):
        self.tags.append((tag, dict(attrs)))

    def handle_data(self, data):
        self.text.append(data)


class Picture(mmp.TestCase):

    def setUp(self):
        super().setUp()
        self.dir = tempfile.mkdtemp(prefix="mmp-picture-")

    def tearDown(self):
        super().tearDown()
        shutil.rmtree(self.dir, ignore_errors=True)

    def capture(self, count=6):
        """A JSON capture of an idle session, written to a file."""
        w = self.start(mmp.idle())
        path = os.path.join(self.dir, "cap.jsonl")
        self.run_ok(["--thread", str(w.thread_id), "--format", "json",
                     "--count", str(count), "--frequency", "100", "--top",
                     "5", "-o", path])
        with open(path) as f:
            return path, [json.loads(l) for l in f]

    @unittest.skipUnless(HAVE_XMLLINT, "xmllint (libxml2-utils) is missing")
    def test_svg_well_formed_bands_match(self):
        w = self.start(mmp.idle())
        path = os.path.join(self.dir, "run.svg")
        p = self.run_ok(["--thread", str(w.thread_id), "--format", "svg",
                         "--count", "5", "--frequency", "100", "--top", "4",
                         "-o", path])
        x = subprocess.run(["xmllint", "--noout", path], capture_output=True,
                           text=True)
        self.assertEqual(x.returncode, 0, x.stderr + mmp.describe(p))
        with open(path) as f:
            svg = f.read()
        self.assertTrue(svg.startswith("<?xml"), svg[:200])
        # At most 8 events of their own, and "other".
        bands = svg.count('class="band"')
        self.assertTrue(2 <= bands <= 9, bands)
        self.assertIn("thread %d" % w.thread_id, svg)
        self.assertIn("5 samples", svg)
        self.assertIn("thread total", svg)

    @unittest.skipUnless(HAVE_CHROMIUM, "chromium is missing")
    def test_html_renders_with_statement_labels(self):
        path, samples = self.capture()
        page = os.path.join(self.dir, "run.html")
        self.run_ok(["--read", path, "--format", "html", "-o", page],
                    conn=False)
        with open(page, encoding="utf-8") as f:
            doc = f.read()
        t = Tags()
        t.feed(doc)
        tags = [tag for tag, _ in t.tags]
        self.assertNotIn("script", tags)
        # No fetch from anywhere: nothing names a URL but the SVG namespace.
        self.assertEqual(re.findall(r'(?:src|href)="', doc), [])
        groups = [a for tag, a in t.tags if tag == "g" and
                  a.get("class") == "stmt"]
        self.assertEqual(len(groups), statement_runs(samples))
        self.assertGreaterEqual(len(groups), 1)
        self.assertIn("SLEEP", doc)
        self.assertIn("Statements ranked by memory growth", doc)
        self.assertIn("high-water mark", doc)
        png = os.path.join(self.dir, "run.png")
        profile = os.path.join(self.dir, "chromium")
        c = subprocess.run(
            ["chromium", "--headless", "--no-sandbox", "--disable-gpu",
             "--user-data-dir=" + profile, "--proxy-server=127.0.0.1:9",
             "--host-resolver-rules=MAP * ~NOTFOUND", "--hide-scrollbars",
             "--window-size=1200,900", "--screenshot=" + png,
             "file://" + page],
            capture_output=True, text=True, timeout=120,
            env=dict(os.environ, HOME=self.dir))
        self.assertTrue(os.path.exists(png), c.stderr[-2000:])
        colours = png_colours(png)
        # White page, black text, grey grid and the bands' colours; the
        # largest event's band is drawn in the first of them, #4e79a7, over
        # far more than its swatch in the legend (some 40 of these pixels).
        self.assertGreater(len(colours), 8, colours.most_common(20))
        self.assertGreater(colours[bytes([0x4e, 0x79, 0xa7])], 400,
                           colours.most_common(20))

    def test_hostile_statement_renders_as_text(self):
        path, samples = self.capture(count=3)
        hostile = ("SELECT \"q\" '<script>alert(1)</script>' /* \u202e"
                   "evil\u2066 */\n\tFROM t\u0000 WHERE x = '\ufffd' "
                   "<img src=x onerror=alert(2)>")
        with open(path, "w") as f:
            for s in samples:
                s["statement"] = hostile
                s["statement_id"] = 4242
                f.write(json.dumps(s) + "\n")
        for fmt in ("html", "svg"):
            out = os.path.join(self.dir, "hostile." + fmt)
            self.run_ok(["--read", path, "--format", fmt, "-o", out],
                        conn=False)
            with open(out, "rb") as f:
                raw = f.read()
            doc = raw.decode("utf-8")  # valid UTF-8 whatever came in
            self.assertNotIn("<script", doc)
            self.assertNotIn("<img", doc)
            for ch in "\u202e\u2066\u0000":
                self.assertNotIn(ch, doc)
            self.assertIn("&lt;script&gt;alert(1)&lt;/script&gt;", doc)
            t = Tags()
            t.feed(doc)
            self.assertNotIn("script", [tag for tag, _ in t.tags])
            self.assertNotIn("img", [tag for tag, _ in t.tags])
            self.assertIn("<script>alert(1)</script>", "".join(t.text))
            if fmt == "svg" and HAVE_XMLLINT:
                x = subprocess.run(["xmllint", "--noout", out],
                                   capture_output=True, text=True)
                self.assertEqual(x.returncode, 0, x.stderr)

    def test_whole_after_sigint(self):
        w = self.start(mmp.idle())
        path = os.path.join(self.dir, "stopped.html")
        b = self.spawn(["--thread", str(w.thread_id), "--format", "html",
                        "--frequency", "100", "-o", path])
        b.wait_for_stderr("sampling")
        mmp.time.sleep(0.5)
        p = self.finish_ok(b, sig=signal.SIGINT)
        with open(path) as f:
            doc = f.read()
        self.assertTrue(doc.rstrip().endswith("</html>"), doc[-300:] +
                        mmp.describe(p))
        self.assertIn("<svg", doc)
        self.assertIn("</svg>", doc)
