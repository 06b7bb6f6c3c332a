"""--listen: the exporter. /metrics holds the bytes the tool sampled;
promtool and a real Prometheus (Debian's, on loopback, with a private data
directory) read it; the server going away turns mysqlmemprof_up to 0 and
back; slow and hostile HTTP clients neither stall sampling nor grow the
process; SIGTERM ends it at once; a busy port is one clear line.

Ports: the exporter 19100-19199, Prometheus 19200-19299, loopback only."""

import json
import os
import re
import shutil
import signal
import socket
import subprocess
import tempfile
import time
import unittest
import urllib.error
import urllib.request

import mmp
import test_profiles

FREQ = "200"
SERIES_RE = re.compile(r'^([a-zA-Z_:][a-zA-Z0-9_:]*)(\{.*\})? (\S+)$')


def free_port(lo, hi):
    """A port of [lo, hi] nothing listens on now, on loopback."""
    for port in range(lo, hi + 1):
        s = socket.socket()
        try:
            s.bind(("127.0.0.1", port))
            return port
        except OSError:
            continue
        finally:
            s.close()
    raise AssertionError("no free port in %d-%d" % (lo, hi))


def get(port, path="/metrics", accept=None, method="GET", timeout=5):
    """(status, headers, body as str) of one request."""
    req = urllib.request.Request("http://127.0.0.1:%d%s" % (port, path),
                                 method=method)
    if accept:
        req.add_header("Accept", accept)
    try:
        with urllib.request.urlopen(req, timeout=timeout) as r:
            return r.status, r.headers, r.read().decode()
    except urllib.error.HTTPError as e:
        return e.code, e.headers, e.read().decode()


def series(text):
    """{'name{labels}': value} of an exposition."""
    out = {}
    for line in text.splitlines():
        if line.startswith("#") or not line:
            continue
        m = SERIES_RE.match(line)
        assert m, "not a sample line: %r" % line
        out[m.group(1) + (m.group(2) or "")] = float(m.group(3))
    return out


def rss_kib(pid):
    with open("/proc/%d/status" % pid) as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    raise AssertionError("no VmRSS")


def wait_until(what, fn, timeout=20, step=0.1):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        v = fn()
        if v:
            return v
        time.sleep(step)
    raise AssertionError("%s not within %s s" % (what, timeout))


def page_with(port, needle, tries=100):
    """The page of /metrics once it holds needle (a scrape every 0.2 s),
    else the last one read."""
    page = ""
    for _ in range(tries):
        time.sleep(0.2)
        try:
            page = get(port)[2]
        except OSError:
            continue
        if needle in page:
            break
    return page


class Exporter(mmp.TestCase):

    def serve(self, *extra, out=None):
        """The exporter on a free port, answering; returns (run, port)."""
        port = free_port(19100, 19199)
        args = ["--listen", str(port), "--frequency", FREQ] + list(extra)
        if out:
            args += ["--format", "json", "--output", out]
        b = self.spawn(args)
        b.wait_for_stderr("serving http://127.0.0.1:%d/metrics" % port)

        def sampled():
            try:
                return series(get(port)[2]).get(
                    "mysqlmemprof_samples_total", 0) > 0
            except OSError:
                return False
        wait_until("a first sample", sampled)
        return b, port

    def tmp(self, name):
        d = tempfile.mkdtemp(prefix="mmp-exporter-")
        self.addCleanup(shutil.rmtree, d, True)
        return os.path.join(d, name)

    def samples_in(self, path):
        with open(path) as f:
            return [json.loads(line) for line in f if line.endswith("\n")]

    def test_other_runs_do_not_load_the_http_library(self):
        # libmicrohttpd and the TLS libraries it needs are loaded by
        # --listen alone: linked, they cost every start some 5 ms.
        ldd = subprocess.run(["ldd", mmp.BIN], capture_output=True,
                             text=True, check=True).stdout
        self.assertNotIn("libmicrohttpd", ldd)
        self.assertNotIn("libgnutls", ldd)

    def test_metrics_hold_the_bytes_sampled(self):
        out = self.tmp("capture.jsonl")
        b, port = self.serve("--top", "5", out=out)
        status, headers, text = get(port)
        self.assertEqual(status, 200)
        self.assertIn("text/plain; version=0.0.4", headers["Content-Type"])
        m = series(text)
        self.assertEqual(m["mysqlmemprof_up"], 1, text)
        n = int(m["mysqlmemprof_samples_total"])
        wait_until("sample %d in the output" % n,
                   lambda: len(self.samples_in(out)) >= n)
        s = self.samples_in(out)[n - 1]
        self.assertEqual(s["sample"], n)
        self.assertEqual(m["mysqlmemprof_memory_total_bytes"],
                         s["total_bytes"], text)
        self.assertTrue(s["events"])
        for e in s["events"]:
            key = '{event="%s"}' % e["event_name"]
            self.assertEqual(m["mysqlmemprof_memory_used_bytes" + key],
                             e["current_bytes"], key)
            self.assertEqual(m["mysqlmemprof_memory_high_bytes" + key],
                             e["high_bytes"], key)
            self.assertEqual(
                m["mysqlmemprof_memory_allocated_bytes_total" + key],
                e["alloc_bytes"], key)
            self.assertEqual(m["mysqlmemprof_memory_frees_total" + key],
                             e["free_count"], key)
        # --global: the top threads, ours among them with its user.
        threads = [k for k in m if k.startswith(
            "mysqlmemprof_thread_memory_bytes{")]
        self.assertTrue(0 < len(threads) <= 5, threads)
        self.assertTrue(any('user="mmp"' in k for k in threads), threads)
        # No series but those of the sample and the threads.
        self.assertLessEqual(len([k for k in m if "{event=" in k]),
                             7 * len(s["events"]))
        self.finish_ok(b, sig=signal.SIGTERM)

    def test_promtool_and_openmetrics(self):
        b, port = self.serve("--for-user", "mmp")
        text = get(port)[2]
        self.assertIn('target="user:mmp"', text)
        self.assertNotIn("mysqlmemprof_thread_memory_bytes{", text)
        p = subprocess.run(["promtool", "check", "metrics"], input=text,
                           capture_output=True, text=True, timeout=30)
        self.assertEqual(p.returncode, 0, p.stdout + p.stderr)
        status, headers, om = get(
            port, accept="application/openmetrics-text;version=1.0.0,"
            "text/plain;version=0.0.4;q=0.5")
        self.assertEqual(status, 200)
        self.assertIn("application/openmetrics-text",
                      headers["Content-Type"])
        self.assertTrue(om.endswith("# EOF\n"))
        self.assertIn("# TYPE mysqlmemprof_samples counter\n", om)
        self.finish_ok(b, sig=signal.SIGTERM)

    def test_prometheus_reads_the_bytes(self):
        out = self.tmp("capture.jsonl")
        b, port = self.serve("--top", "3", out=out)
        prom_port = free_port(19200, 19299)
        d = tempfile.mkdtemp(prefix="mmp-prom-")
        self.addCleanup(shutil.rmtree, d, True)
        with open(os.path.join(d, "prometheus.yml"), "w") as f:
            f.write("global:\n  scrape_interval: 1s\n"
                    "scrape_configs:\n  - job_name: mmp\n"
                    "    static_configs:\n"
                    "      - targets: ['127.0.0.1:%d']\n" % port)
        prom = subprocess.Popen(
            ["prometheus", "--config.file", os.path.join(d, "prometheus.yml"),
             "--storage.tsdb.path", os.path.join(d, "data"),
             "--web.listen-address", "127.0.0.1:%d" % prom_port],
            stdout=subprocess.DEVNULL, stderr=open(os.path.join(d, "log"), "w"))

        def stop_prometheus():
            prom.terminate()
            try:
                prom.wait(timeout=10)
            except subprocess.TimeoutExpired:
                prom.kill()
                prom.wait()
        self.addCleanup(stop_prometheus)

        def api(path):
            """The data of an API answer; None while Prometheus starts
            (it answers 503, not JSON, until its storage is ready)."""
            try:
                status, _, body = get(prom_port, path)
                return json.loads(body)["data"] if status == 200 else None
            except (OSError, ValueError, KeyError):
                return None

        def query(q):
            data = api("/api/v1/query?query=" + urllib.request.quote(q))
            return data["result"][0]["value"][1] if data and \
                data["result"] else None

        total = wait_until("a total in Prometheus", lambda: query(
            'mysqlmemprof_memory_total_bytes{job="mmp"}'), timeout=30)
        sampled = {s["total_bytes"] for s in self.samples_in(out)}
        self.assertIn(int(total), sampled)
        self.assertEqual(query('up{job="mmp"}'), "1")
        self.assertEqual(query('mysqlmemprof_up{job="mmp"}'), "1")
        # Prometheus asked for OpenMetrics, and the scrape had no error.
        t = api("/api/v1/targets")["activeTargets"][0]
        self.assertEqual(t["lastError"], "", t)
        self.finish_ok(b, sig=signal.SIGTERM)

    def test_server_gone_turns_up_to_0_and_back(self):
        # A --reconnect-timeout shorter than the outage: the capture ends,
        # and the exporter starts another once the server is back.
        b, port = self.serve("--reconnect-timeout", "1")

        def up():
            try:
                m = series(get(port)[2])
            except OSError:
                return None
            return m["mysqlmemprof_up"], m["mysqlmemprof_samples_total"]

        before = up()[1]
        with mmp.killed_server():
            wait_until("up 0", lambda: up()[0] == 0, timeout=15)
            # The endpoint lives on while the server is gone.
            self.assertEqual(get(port)[0], 200)
        wait_until("up 1", lambda: up()[0] == 1, timeout=40)
        self.assertGreater(up()[1], before)
        p = self.finish_ok(b, sig=signal.SIGTERM)
        self.assertIn("trying again", p.stderr)

    def test_killed_connection_keeps_sampling(self):
        b, port = self.serve()
        own = int(mmp.root_sql(
            "SELECT PROCESSLIST_ID FROM performance_schema.session_connect_attrs "
            "WHERE ATTR_NAME = '_pid' AND ATTR_VALUE = '%d'" % b.pid)[0][0])
        before = series(get(port)[2])["mysqlmemprof_samples_total"]
        mmp.root_sql("KILL %d" % own)
        wait_until("samples after the KILL", lambda: series(get(port)[2])[
            "mysqlmemprof_samples_total"] > before + 3, timeout=15)
        self.assertEqual(series(get(port)[2])["mysqlmemprof_up"], 1)
        self.finish_ok(b, sig=signal.SIGTERM)

    def test_http_abuse(self):
        out = self.tmp("capture.jsonl")
        b, port = self.serve(out=out)
        rss0 = rss_kib(b.pid)
        # Unknown paths and methods.
        self.assertEqual(get(port, "/nope")[0], 404)
        self.assertEqual(get(port, "/metrics/../etc/passwd")[0], 404)
        for method in ("POST", "PUT", "DELETE", "OPTIONS"):
            status, headers, _ = get(port, method=method)
            self.assertEqual(status, 405, method)
            self.assertEqual(headers["Allow"], "GET, HEAD")
        self.assertEqual(get(port, method="HEAD")[0], 200)
        # A 1 MB header is refused, or the connection closed.
        s = socket.create_connection(("127.0.0.1", port), timeout=10)
        try:
            s.sendall(b"GET /metrics HTTP/1.1\r\nHost: x\r\nX-Big: ")
            s.sendall(b"a" * (1 << 20) + b"\r\n\r\n")
        except OSError:
            pass  # closed while we sent: refused
        try:
            answer = s.recv(100)
        except OSError:
            answer = b""
        s.close()
        self.assertTrue(answer == b"" or
                        answer.startswith(b"HTTP/1.1 431"), answer)
        # Slow clients, and 1,000 connections at once.
        lines0 = len(self.samples_in(out))
        held = []
        try:
            for i in range(1000):
                c = socket.socket()
                c.setblocking(False)
                c.connect_ex(("127.0.0.1", port))
                held.append(c)
            for c in held[:200]:
                try:
                    c.send(b"GET /metrics HTTP/1.1\r\nX-Slow: ")
                except OSError:
                    pass
            for _ in range(3):
                time.sleep(0.5)
                for c in held[:200]:
                    try:
                        c.send(b"a")
                    except OSError:
                        pass
            # Sampling went on all the while, and the exporter held no
            # more than its 64 connections (and a few files of its own).
            self.assertGreater(len(self.samples_in(out)), lines0 + 5)
            fds = len(os.listdir("/proc/%d/fd" % b.pid))
            self.assertLess(fds, 64 + 16, "open files while flooded")
        finally:
            for c in held:
                c.close()
        # Served again once they are gone, sampling on, memory bounded.
        m = wait_until("a scrape after the flood", lambda: self._try(port),
                       timeout=15)
        self.assertGreater(m["mysqlmemprof_samples_total"], lines0)
        self.assertEqual(m["mysqlmemprof_up"], 1)
        rss1 = rss_kib(b.pid)
        self.assertLess(rss1, rss0 + 20 * 1024, (rss0, rss1))
        t0 = time.monotonic()
        self.finish_ok(b, sig=signal.SIGTERM, timeout=10)
        self.assertLess(time.monotonic() - t0, 5)

    def _try(self, port):
        try:
            return series(get(port, timeout=2)[2])
        except OSError:
            return None

    @unittest.skipIf(test_profiles.GO is None, "golang-go is not installed")
    def test_pprof_endpoint_read_by_go_tool_pprof(self):
        # An idle session's memory holds still: the profile served and a
        # JSON capture of the same thread have the same bytes.
        w = self.start(mmp.idle(30))
        b, port = self.serve("--thread", str(w.thread_id), "--top", "0")
        req = urllib.request.urlopen(
            "http://127.0.0.1:%d/pprof/memory" % port, timeout=5)
        status, headers, body = req.status, req.headers, req.read()
        self.assertEqual(status, 200)
        self.assertEqual(body[:2], b"\x1f\x8b")  # gzip
        self.assertEqual(headers["Content-Type"], "application/octet-stream")
        home = self.tmp("go")
        os.makedirs(home)
        env = test_profiles.go_env(home)
        j = self.run_ok(["--thread", str(w.thread_id), "--format", "json",
                         "--count", "1", "--top", "0"])
        [s] = mmp.parse_json_lines(j.stdout)
        want = {e["event_name"]: e["current_bytes"] for e in s["events"]
                if e["current_bytes"] > 0}
        # Go's heap profile path, and where Parca's and Pyroscope's
        # defaults ask for memory.
        for path in ("/pprof/memory", "/debug/pprof/heap",
                     "/debug/pprof/allocs"):
            url = "http://127.0.0.1:%d%s" % (port, path)
            p = subprocess.run(
                [test_profiles.GO, "tool", "pprof", "-top", "-unit=B",
                 "-nodefraction=0", "-nodecount=100000",
                 "-sample_index=inuse_space", url],
                capture_output=True, text=True, env=env, timeout=120)
            self.assertEqual(p.returncode, 0, p.stderr)
            flat = {}
            for line in p.stdout.splitlines():
                m = test_profiles.TOP_LINE.match(line)
                if m and int(m.group(1)) != 0:
                    flat[m.group(3)] = int(m.group(1))
            self.assertEqual(flat, want, (path, p.stdout))
            self.assertIn("Type: inuse_space", p.stdout)
            # Its labels are strings (Pyroscope drops numeric ones):
            # -tags shows a numeric label's values with units.
            p = subprocess.run(
                [test_profiles.GO, "tool", "pprof", "-tags", url],
                capture_output=True, text=True, env=env, timeout=120)
            self.assertEqual(p.returncode, 0, p.stderr)
            self.assertRegex(p.stdout, r"(?m)^ thread: Total ", p.stdout)
            self.assertRegex(p.stdout, r"(?m)^\s+\S+B \(\s*100%%\): %d$" %
                             w.thread_id, p.stdout)
        self.finish_ok(b, sig=signal.SIGTERM)

    def test_global_serves_the_process(self):
        """--global on the server's machine: the process's resident bytes
        and what performance_schema does not count, from the same sample
        as the total; a thread's page has neither."""
        b, port = self.serve("--global", "--top", "3")
        m = series(get(port)[2])
        self.assertGreater(m["mysqlmemprof_process_resident_bytes"], 0, m)
        self.assertLessEqual(m["mysqlmemprof_process_anon_bytes"],
                             m["mysqlmemprof_process_resident_bytes"])
        self.assertEqual(m["mysqlmemprof_untracked_bytes"],
                         m["mysqlmemprof_process_resident_bytes"] -
                         m["mysqlmemprof_memory_total_bytes"], m)
        if mmp.MARIADB:
            self.assertGreater(m["mysqlmemprof_status_memory_bytes"], 0, m)
        self.finish_ok(b, sig=signal.SIGTERM)
        w = self.start(mmp.idle(30))
        b, port = self.serve("--thread", str(w.thread_id))
        m = series(get(port)[2])
        self.assertNotIn("mysqlmemprof_process_resident_bytes", m)
        self.assertNotIn("mysqlmemprof_untracked_bytes", m)
        self.finish_ok(b, sig=signal.SIGTERM)

    @mmp.only_on("mysql", "connection_memory_limit is MySQL's (8.0.28+)")
    def test_connection_memory_limit_of_a_thread(self):
        # Read at connect: set before the exporter starts.
        mmp.root_sql("SET GLOBAL connection_memory_limit = %d" % (64 << 20))
        self.addCleanup(mmp.root_sql, "SET GLOBAL connection_memory_limit "
                        "= DEFAULT")
        w = self.start(mmp.idle(30))
        b, port = self.serve("--thread", str(w.thread_id))
        m = series(get(port)[2])
        self.assertEqual(m["mysqlmemprof_connection_memory_limit_bytes"],
                         64 << 20, m)
        ratio = m["mysqlmemprof_connection_memory_limit_ratio"]
        total = m["mysqlmemprof_memory_total_bytes"]
        self.assertAlmostEqual(ratio, total / (64 << 20), places=3)
        self.finish_ok(b, sig=signal.SIGTERM)
        # A grain has no such limit.
        b, port = self.serve("--global")
        m = series(get(port)[2])
        self.assertNotIn("mysqlmemprof_connection_memory_limit_bytes", m)
        self.finish_ok(b, sig=signal.SIGTERM)

    def test_sigterm_ends_it_promptly(self):
        b, port = self.serve()
        t0 = time.monotonic()
        p = self.finish_ok(b, sig=signal.SIGTERM, timeout=10)
        self.assertLess(time.monotonic() - t0, 3, mmp.describe(p))
        with self.assertRaises(OSError):
            get(port, timeout=2)

    def test_busy_port_is_one_line(self):
        port = free_port(19100, 19199)
        s = socket.socket()
        s.bind(("127.0.0.1", port))
        s.listen(1)
        try:
            p = mmp.run(["--listen", str(port), "-q"])
        finally:
            s.close()
        self.assertOneErrorLine(p, 1, "cannot listen", "127.0.0.1",
                                str(port), "already in use", "--listen")

    def test_bad_listen_is_a_usage_error(self):
        for arg in ("70000", "1:2:3", ":9100", "x"):
            p = mmp.run(["--listen", arg], conn=False)
            self.assertOneErrorLine(p, 2, "--listen")
        p = mmp.run(["--listen", "no.such.host.invalid:19199", "-q"])
        self.assertOneErrorLine(p, 2, "--listen", "no.such.host.invalid")
        p = mmp.run(["--max-series", "10", "--global"], conn=False)
        self.assertOneErrorLine(p, 2, "--max-series needs --listen")
        p = mmp.run(["--listen", "19199", "--list"], conn=False)
        self.assertOneErrorLine(p, 2, "--listen", "--list")


class Examples(mmp.TestCase):

    def test_prometheus_accepts_the_examples(self):
        ex = os.path.join(mmp.REPO, "examples")
        for args in (["check", "rules", "mysqlmemprof.rules.yml"],
                     ["check", "config", "prometheus.yml"]):
            p = subprocess.run(["promtool"] + args, cwd=ex, text=True,
                               capture_output=True, timeout=30)
            self.assertEqual(p.returncode, 0, p.stdout + p.stderr)
