"""TLS: --ssl-mode with the meaning MySQL gives it, against a server of its
own started with certificates made here by openssl."""

import os
import shutil
import signal
import subprocess
import tempfile
import time

import mmp

HERE = os.path.dirname(os.path.abspath(__file__))
SANDBOX = os.path.join(os.path.dirname(HERE), "sandbox.sh")


def openssl(*args, cwd):
    subprocess.run(["openssl"] + list(args), cwd=cwd, check=True,
                   capture_output=True, timeout=60)


def make_ca(d, name):
    openssl("req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "2",
            "-subj", "/CN=mysqlmemprof test %s" % name,
            "-keyout", name + "-key.pem", "-out", name + ".pem", cwd=d)


def make_server_cert(d):
    with open(os.path.join(d, "san.cnf"), "w") as f:
        f.write("subjectAltName=IP:127.0.0.1,DNS:localhost\n")
    openssl("req", "-newkey", "rsa:2048", "-nodes", "-subj", "/CN=localhost",
            "-keyout", "server-key.pem", "-out", "server.csr", cwd=d)
    openssl("x509", "-req", "-in", "server.csr", "-CA", "ca.pem", "-CAkey",
            "ca-key.pem", "-CAcreateserial", "-days", "2", "-extfile",
            "san.cnf", "-out", "server.pem", cwd=d)


class Tls(mmp.TestCase):

    @classmethod
    def setUpClass(cls):
        if shutil.which("openssl") is None:
            raise AssertionError("openssl is missing; scripts/deps.sh installs it")
        cls.certs = tempfile.mkdtemp(prefix="mmp-tls-")
        make_ca(cls.certs, "ca")
        make_ca(cls.certs, "other-ca")
        make_server_cert(cls.certs)
        cls.env = dict(os.environ)
        cls.env["MMP_SANDBOX_DIR"] = os.path.join(cls.certs, "sb")
        cls.env["MMP_SANDBOX_EXTRA_ARGS"] = " ".join(
            "--ssl-%s=%s" % (k, os.path.join(cls.certs, f)) for k, f in
            (("ca", "ca.pem"), ("cert", "server.pem"), ("key", "server-key.pem")))
        subprocess.run([SANDBOX, "start"], env=cls.env, check=True,
                       capture_output=True, timeout=180)
        out = subprocess.run([SANDBOX, "env"], env=cls.env, check=True,
                             capture_output=True, timeout=30).stdout.decode()
        vals = dict(line.split("=", 1) for line in out.split())
        cls.port = vals["MMP_PORT"].strip("'")
        cls.socket = vals["MMP_SOCKET"].strip("'")

    @classmethod
    def tearDownClass(cls):
        subprocess.run([SANDBOX, "stop"], env=cls.env, capture_output=True,
                       timeout=120)
        shutil.rmtree(cls.certs, ignore_errors=True)

    def tcp(self, port, *extra):
        return mmp.run(["-h", "127.0.0.1", "-P", str(port), "-u", "mmp",
                        "--thread", "1", "--count", "1", "--format", "json"]
                       + list(extra), conn=False)

    def cert(self, name):
        return os.path.join(self.certs, name)

    def root_sql(self, sql):
        """Runs SQL as root on this test's own server."""
        out = subprocess.run(
            ["mariadb", "--no-defaults", "-uroot", "-S", self.socket, "-N",
             "-B", "-e", sql], check=True, capture_output=True,
            timeout=60).stdout
        return [line.split("\t") for line in out.decode().splitlines()]

    def own_connection(self, pid):
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline:
            rows = self.root_sql(
                "SELECT PROCESSLIST_ID FROM "
                "performance_schema.session_connect_attrs WHERE ATTR_NAME "
                "= '_pid' AND ATTR_VALUE = '%d'" % pid)
            if rows:
                return int(rows[0][0])
            time.sleep(0.05)
        raise AssertionError("process %d has no connection" % pid)

    def test_required_refuses_a_server_without_tls(self):
        p = self.tcp(mmp.PORT, "--ssl-mode=REQUIRED")
        line = self.assertOneErrorLine(p, 1)
        self.assertRegex(line.lower(), "ssl|tls")
        self.assertEqual(p.stdout, "")

    def test_verify_ca_refuses_a_certificate_of_another_ca(self):
        p = self.tcp(self.port, "--ssl-mode=VERIFY_CA",
                     "--ssl-ca=" + self.cert("other-ca.pem"))
        # A hint of its own, not the one for a server that is not there.
        line = self.assertOneErrorLine(p, 1, "certificate", "--ssl-ca")
        self.assertNotIn("server runs", line)
        self.assertEqual(p.stdout, "")

    def test_verify_ca_connects_encrypted(self):
        p = self.tcp(self.port, "--ssl-mode=VERIFY_CA",
                     "--ssl-ca=" + self.cert("ca.pem"))
        self.assertEqual(p.returncode, 0, mmp.describe(p))
        self.assertEqual(len(mmp.parse_json_lines(p.stdout)), 1)
        self.assertIn("over TLS", p.stderr)

    def test_verify_identity_checks_the_host(self):
        p = self.tcp(self.port, "--ssl-mode=VERIFY_IDENTITY",
                     "--ssl-ca=" + self.cert("ca.pem"))
        self.assertEqual(p.returncode, 0, mmp.describe(p))
        self.assertIn("over TLS", p.stderr)

    def test_required_without_ca_connects_encrypted(self):
        p = self.tcp(self.port, "--ssl-mode=REQUIRED")
        self.assertEqual(p.returncode, 0, mmp.describe(p))
        self.assertIn("over TLS", p.stderr)

    def test_disabled_stays_plain(self):
        p = self.tcp(self.port, "--ssl-mode=DISABLED")
        self.assertEqual(p.returncode, 0, mmp.describe(p))
        self.assertNotIn("over TLS", p.stderr)

    def test_verify_ca_needs_a_ca(self):
        p = self.tcp(self.port, "--ssl-mode=VERIFY_CA")
        self.assertOneErrorLine(p, 2, "--ssl-ca")

    def test_killed_connection_reconnects_over_tls(self):
        # Connector/C reports a TLS connection cut under it as a TLS/SSL
        # error (2026), not as a lost server: it must reconnect all the
        # same, through the same --ssl-mode checks.
        proc = self.spawn(["-h", "127.0.0.1", "-P", str(self.port), "-u",
                           "mmp", "--ssl-mode=VERIFY_CA",
                           "--ssl-ca=" + self.cert("ca.pem"), "--thread", "1",
                           "--count", "10", "--frequency", "200",
                           "--format", "json"], conn=False)
        own = self.own_connection(proc.pid)
        time.sleep(0.7)
        self.root_sql("KILL %d" % own)
        p = proc.finish()
        self.assertEqual(p.returncode, 0, mmp.describe(p))
        samples = mmp.parse_json_lines(p.stdout)
        self.assertEqual([s["sample"] for s in samples], list(range(1, 11)),
                         mmp.describe(p))
        gaps = [s for s in samples if s["gap_ms"] > 0]
        self.assertEqual(len(gaps), 1, mmp.describe(p))
        self.assertGreater(gaps[0]["sample"], 1)
        self.assertIn("reconnected", p.stderr)

    def test_killed_connection_while_waiting_reconnects_over_tls(self):
        proc = self.spawn(["-h", "127.0.0.1", "-P", str(self.port), "-u",
                           "mmp", "--ssl-mode=REQUIRED", "--wait-for",
                           "%no statement runs this%", "--poll", "200"],
                          conn=False)
        proc.wait_for_stderr("waiting for")
        self.root_sql("KILL %d" % self.own_connection(proc.pid))
        proc.wait_for_stderr("waiting goes on")
        p = proc.finish(signal.SIGTERM)
        self.assertEqual(p.returncode, 0, mmp.describe(p))
        self.assertIn("reconnected", p.stderr, mmp.describe(p))

    def test_stalled_server_times_out_over_tls(self):
        # Connector/C's non-blocking TLS reads ask for no timeout; conn.c
        # keeps --read-timeout itself, so a frozen server is lost after 1 s
        # and found again, rather than waited for as long as it is frozen.
        proc = self.spawn(["-h", "127.0.0.1", "-P", str(self.port), "-u",
                           "mmp", "--ssl-mode=REQUIRED", "--thread", "1",
                           "--count", "8", "--frequency", "200",
                           "--read-timeout", "1", "--connect-timeout", "1",
                           "--format", "json"], conn=False)
        proc.stdout_line()
        with mmp.frozen_server(os.path.join(self.certs, "sb")):
            proc.wait_for_stderr("reconnecting", timeout=4)
        p = proc.finish()
        self.assertEqual(p.returncode, 0, mmp.describe(p))
        self.assertIn("within 1 s (--read-timeout)", p.stderr)
        self.assertEqual(len(mmp.parse_json_lines(p.stdout)), 8)
