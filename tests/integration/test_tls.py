"""TLS: --ssl-mode with the meaning MySQL gives it (PREFERRED by default:
TLS over TCP whenever the server offers it), --tls-version, --ssl-crl, and
how caching_sha2_password may send a password over plain TCP, against a
server of its own started with certificates made here by openssl."""

import concurrent.futures
import contextlib
import os
import re
import shutil
import signal
import socket
import ssl
import struct
import subprocess
import tempfile
import threading
import time

import mmp

HERE = os.path.dirname(os.path.abspath(__file__))
SANDBOX = os.path.join(os.path.dirname(HERE), "sandbox.sh")
# The root a server of another Debian runs in under chroot (tests/root.sh;
# empty for the host's): it reads only files inside, by their path as seen
# from there.
ROOT = os.environ.get("MMP_ROOT", "")


def inside(path):
    """path as the server sees it."""
    return path[len(ROOT):] if ROOT else path


def openssl(*args, cwd):
    subprocess.run(["openssl"] + list(args), cwd=cwd, check=True,
                   capture_output=True, timeout=60)


def make_ca(d, name):
    openssl("req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "2",
            "-subj", "/CN=mysqlmemprof test %s" % name,
            "-keyout", name + "-key.pem", "-out", name + ".pem", cwd=d)


def make_server_cert(d, name="server"):
    with open(os.path.join(d, "san.cnf"), "w") as f:
        f.write("subjectAltName=IP:127.0.0.1,DNS:localhost\n")
    openssl("req", "-newkey", "rsa:2048", "-nodes", "-subj", "/CN=localhost",
            "-keyout", name + "-key.pem", "-out", name + ".csr", cwd=d)
    openssl("x509", "-req", "-in", name + ".csr", "-CA", "ca.pem", "-CAkey",
            "ca-key.pem", "-CAcreateserial", "-days", "2", "-extfile",
            "san.cnf", "-out", name + ".pem", cwd=d)


def make_crls(d):
    """crl-none.pem revokes nothing; crl-server.pem revokes server.pem."""
    with open(os.path.join(d, "ca.cnf"), "w") as f:
        f.write("[ca]\ndefault_ca = ca\n[ca]\ndatabase = index.txt\n"
                "crlnumber = crlnumber\ndefault_md = sha256\n"
                "default_crl_days = 2\ncertificate = ca.pem\n"
                "private_key = ca-key.pem\n")
    open(os.path.join(d, "index.txt"), "w").close()
    with open(os.path.join(d, "crlnumber"), "w") as f:
        f.write("01\n")
    openssl("ca", "-config", "ca.cnf", "-gencrl", "-out", "crl-none.pem",
            cwd=d)
    openssl("ca", "-config", "ca.cnf", "-revoke", "server.pem", cwd=d)
    openssl("ca", "-config", "ca.cnf", "-gencrl", "-out", "crl-server.pem",
            cwd=d)
    # --ssl-crlpath: a folder of lists named by their issuer's hash.
    os.mkdir(os.path.join(d, "crls"))
    shutil.copy(os.path.join(d, "crl-server.pem"), os.path.join(d, "crls"))
    openssl("rehash", "crls", cwd=d)


def make_other_rsa_key(d):
    """A public key that is not the server's."""
    openssl("genpkey", "-algorithm", "RSA", "-pkeyopt", "rsa_keygen_bits:2048",
            "-out", "other-rsa.pem", cwd=d)
    openssl("pkey", "-in", "other-rsa.pem", "-pubout", "-out",
            "other-rsa-pub.pem", cwd=d)


def tls_context(cert, key):
    """A server's TLS, presenting cert."""
    ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    ctx.load_cert_chain(cert, key)
    return ctx


def cipher(p):
    """The cipher the start note names, or None for plain text."""
    m = re.search(r"over TLS (\S+?);", p.stderr)
    return m.group(1) if m else None


class SwapServer:
    """A server on loopback that is, connection after connection, the
    test's real server (its bytes relayed, TLS and all: cut after cut_s
    the first time, for good the next) or a fake: TLS with the
    certificate in the context given (or none), then a switch to caching_sha2_password whose fast authentication it
    refuses, asking for the password. What each fake was sent, after its
    TLS, is in .received."""

    def __init__(self, real_port, plan, cut_s=1.0):
        self.real_port = int(real_port)
        self.plan = list(plan)  # "real", or ("fake", ssl context or None)
        self.cut_s = cut_s
        self.received = []      # the bytes each fake was sent
        self.sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        self.sock.bind(("127.0.0.1", 0))
        self.sock.listen(4)
        self.sock.settimeout(30)
        self.port = self.sock.getsockname()[1]
        self.thread = threading.Thread(target=self._serve, daemon=True)
        self.thread.start()

    def _serve(self):
        for what in self.plan:
            try:
                conn, _ = self.sock.accept()
            except OSError:
                return
            if what == "real":
                threading.Thread(target=self._relay, args=(conn,),
                                 daemon=True).start()
            else:
                self.received.append(b"")
                self._fake(conn, what[1], len(self.received) - 1)

    def _relay(self, conn):
        real = socket.create_connection(("127.0.0.1", self.real_port))

        def pump(a, b):
            try:
                while True:
                    data = a.recv(65536)
                    if not data:
                        break
                    b.sendall(data)
            except OSError:
                pass

        for a, b in ((conn, real), (real, conn)):
            threading.Thread(target=pump, args=(a, b), daemon=True).start()
        if self.cut_s is not None:
            self.cut_s, cut = None, self.cut_s
            time.sleep(cut)
            for s in conn, real:
                s.shutdown(socket.SHUT_RDWR)
                s.close()

    def _fake(self, conn, tls, i):
        # Imported here: test_auth imports this module.
        from test_auth import SCRAMBLE, greeting, packet, read_packet

        def read():
            seq, payload, raw = read_packet(conn)
            self.received[i] += raw
            return seq, payload

        conn.settimeout(10)
        try:
            conn.sendall(packet(0, greeting(tls)))
            seq, reply = read()
            if tls and len(reply) == 32:
                self.received[i] = b""  # the request for TLS: no secret
                conn = tls.wrap_socket(conn, server_side=True)
                seq, reply = read()
            conn.sendall(packet(seq + 1, b"\xfecaching_sha2_password\0" +
                                SCRAMBLE + b"\0"))
            seq, reply = read()             # the proof of the scramble
            conn.sendall(packet(seq + 1, b"\x01\x04"))  # full, please
            seq, reply = read()             # the password, if any
            conn.sendall(packet(seq + 1, b"\xff" + struct.pack("<H", 1045) +
                                b"#28000Access denied (fake server)"))
            while read():
                pass
        except (EOFError, OSError, ssl.SSLError):
            pass
        finally:
            conn.close()

    def close(self):
        self.sock.close()
        self.thread.join(30)


class Tls(mmp.TestCase):

    @classmethod
    def setUpClass(cls):
        if shutil.which("openssl") is None:
            raise AssertionError("openssl is missing; scripts/deps.sh installs it")
        if mmp.SERVER != "mariadb" and not ROOT:
            raise AssertionError("MMP_ROOT is not set; eval \"$(tests/"
                                 "sandbox.sh env)\" with MMP_SERVER=%s"
                                 % mmp.SERVER)
        # For a server in a root, inside it; the sandbox's own folder is a plain
        # /tmp path, which tests/sandbox.sh links into the root.
        cls.certs = tempfile.mkdtemp(
            prefix="mmp-tls-", dir=os.path.join(ROOT, "tmp") if ROOT else None)
        make_ca(cls.certs, "ca")
        make_ca(cls.certs, "other-ca")
        make_server_cert(cls.certs)
        make_crls(cls.certs)
        make_other_rsa_key(cls.certs)
        make_ca(cls.certs, "other")  # a self-signed certificate of its own
        make_server_cert(cls.certs, "server2")  # another of the same CA
        cls.same, cls.other, cls.same_ca = (
            tls_context(os.path.join(cls.certs, name + ".pem"),
                        os.path.join(cls.certs, name + "-key.pem"))
            for name in ("server", "other", "server2"))
        cls.sandbox = "/tmp/%s-sb" % os.path.basename(cls.certs)
        cls.env = dict(os.environ)
        cls.env["MMP_SANDBOX_DIR"] = cls.sandbox
        cls.env["MMP_SANDBOX_EXTRA_ARGS"] = " ".join(
            "--ssl-%s=%s" % (k, inside(os.path.join(cls.certs, f))) for k, f in
            (("ca", "ca.pem"), ("cert", "server.pem"), ("key", "server-key.pem")))
        # Stopped however this method ends: tearDownClass() runs only
        # after a setUpClass() that did not fail, and a server left behind
        # outlives the run.
        cls.addClassCleanup(cls.stop_sandbox)
        subprocess.run([SANDBOX, "start"], env=cls.env, check=True,
                       capture_output=True, timeout=180)
        out = subprocess.run([SANDBOX, "env"], env=cls.env, check=True,
                             capture_output=True, timeout=30).stdout.decode()
        vals = dict(line.split("=", 1) for line in out.splitlines())
        cls.port = vals["MMP_PORT"].strip("'")
        cls.socket = vals["MMP_SOCKET"].strip("'")

    @classmethod
    def stop_sandbox(cls):
        subprocess.run([SANDBOX, "stop"], env=cls.env, capture_output=True,
                       timeout=120)
        shutil.rmtree(cls.certs, ignore_errors=True)

    def tcp(self, port, *extra, **env):
        return mmp.run(["-h", "127.0.0.1", "-P", str(port), "-u", "mmp",
                        "--thread", "1", "--count", "1", "--format", "json"]
                       + list(extra), conn=False, env=mmp.base_env(**env))

    def cert(self, name):
        return os.path.join(self.certs, name)

    def root_sql(self, sql):
        """Runs SQL as root on this test's own server."""
        out = subprocess.run(
            ["mariadb", "--no-defaults", "-uroot", "-S", self.socket, "-N",
             "-B", "-e", sql], check=True, capture_output=True,
            timeout=60).stdout
        return [line.split("\t") for line in out.decode().splitlines()]

    def forget_passwords(self):
        """Empties caching_sha2_password's cache: the next login of an
        account makes the full authentication, which sends the password."""
        self.root_sql("FLUSH PRIVILEGES")

    @contextlib.contextmanager
    def plain_server(self):
        """The port of a server that offers no TLS while the block runs:
        MariaDB's main sandbox has none (tests/sandbox.sh); MySQL always has, so this test's
        own server is switched to none (a certificate it cannot load, and
        no rollback) and back."""
        if mmp.MARIADB:
            yield mmp.PORT
            return
        self.root_sql("SET GLOBAL ssl_cert = '/nonexistent.pem'; "
                      "ALTER INSTANCE RELOAD TLS NO ROLLBACK ON ERROR")
        try:
            yield self.port
        finally:
            self.root_sql("SET GLOBAL ssl_cert = '%s'; ALTER INSTANCE "
                          "RELOAD TLS" % inside(self.cert("server.pem")))

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
        with self.plain_server() as port:
            self.forget_passwords()
            p = self.tcp(port, "--ssl-mode=REQUIRED")
        line = self.assertOneErrorLine(p, 1)
        self.assertRegex(line.lower(), "ssl|tls")
        self.assertEqual(p.stdout, "")

    def test_default_over_tcp_is_encrypted(self):
        # As Oracle's mysql: PREFERRED, the default, is TLS over TCP
        # whenever the server offers it.
        for mode in [], ["--ssl-mode=PREFERRED"], ["--ssl-mode=preferred"]:
            with self.subTest(mode=mode):
                p = self.tcp(self.port, *mode)
                self.assertEqual(p.returncode, 0, mmp.describe(p))
                self.assertIsNotNone(cipher(p), mmp.describe(p))

    def test_default_falls_back_to_plain_text(self):
        # MySQL's mmp account then needs the server's key to log in.
        with self.plain_server() as port:
            self.forget_passwords()
            p = self.tcp(port, "--get-server-public-key")
        self.assertEqual(p.returncode, 0, mmp.describe(p))
        self.assertIsNone(cipher(p), mmp.describe(p))

    def test_default_over_the_socket_stays_plain(self):
        # TLS over the socket guards nothing; only a mode asking for it
        # turns it on there, as before.
        self.forget_passwords()
        p = mmp.run(["--socket", self.socket, "-u", "mmp", "--thread", "1",
                     "--count", "1", "--format", "json"], conn=False)
        self.assertEqual(p.returncode, 0, mmp.describe(p))
        self.assertIsNone(cipher(p), mmp.describe(p))

    def test_protocol_tcp_reaches_localhost_over_tcp(self):
        # localhost would be the socket (here a wrong one); TCP is
        # encrypted, the socket would not be.
        p = mmp.run(["-h", "localhost", "--protocol=TCP", "-P",
                     str(self.port), "-S", "/nonexistent/sock", "-u", "mmp",
                     "--thread", "1", "--count", "1", "--format", "json"],
                    conn=False)
        self.assertEqual(p.returncode, 0, mmp.describe(p))
        self.assertIsNotNone(cipher(p), mmp.describe(p))

    def test_tls_version(self):
        # TLS 1.3's cipher suites are the only ones named TLS_*.
        p = self.tcp(self.port, "--tls-version=TLSv1.2")
        self.assertEqual(p.returncode, 0, mmp.describe(p))
        self.assertNotRegex(cipher(p) or "", "^TLS_|^$", mmp.describe(p))
        p = self.tcp(self.port, "--tls-version=TLSv1.3")
        self.assertEqual(p.returncode, 0, mmp.describe(p))
        self.assertRegex(cipher(p) or "", "^TLS_", mmp.describe(p))

    def test_ssl_crl_refuses_a_revoked_certificate(self):
        verify = ["--ssl-mode=VERIFY_CA", "--ssl-ca=" + self.cert("ca.pem")]
        p = self.tcp(self.port, *verify,
                     "--ssl-crl=" + self.cert("crl-none.pem"))
        self.assertEqual(p.returncode, 0, mmp.describe(p))
        self.assertIsNotNone(cipher(p), mmp.describe(p))
        for crl in ("--ssl-crl=" + self.cert("crl-server.pem"),
                    "--ssl-crlpath=" + self.cert("crls")):
            with self.subTest(crl=crl):
                p = self.tcp(self.port, *verify, crl)
                self.assertOneErrorLine(p, 1, "certificate")
                self.assertEqual(p.stdout, "")

    # caching_sha2_password over plain TCP: MySQL's mmp account has it;
    # MariaDB's has mysql_native_password, which sends no password.

    @mmp.only_on("mysql", "MariaDB's accounts have no caching_sha2_password")
    def test_full_authentication_over_plain_tcp_needs_a_key(self):
        self.forget_passwords()
        p = self.tcp(self.port, "--ssl-mode=DISABLED")
        self.assertOneErrorLine(p, 1, "not encrypted", "TLS",
                                "--get-server-public-key",
                                "--server-public-key-path=FILE")
        self.assertEqual(p.stdout, "")

    @mmp.only_on("mysql", "MariaDB's accounts have no caching_sha2_password")
    def test_a_server_without_tls_is_not_sent_the_password(self):
        # Connector/C's own plugin takes TLS asked for as TLS had, and
        # would send the password in the clear here.
        with self.plain_server() as port:
            self.forget_passwords()
            p = self.tcp(port)
        self.assertOneErrorLine(p, 1, "not encrypted",
                                "--get-server-public-key")

    @mmp.only_on("mysql", "MariaDB's accounts have no caching_sha2_password")
    def test_get_server_public_key(self):
        self.forget_passwords()
        p = self.tcp(self.port, "--ssl-mode=DISABLED",
                     "--get-server-public-key")
        self.assertEqual(p.returncode, 0, mmp.describe(p))
        self.assertIsNone(cipher(p), mmp.describe(p))
        # A wrong password is still refused by the server.
        self.forget_passwords()
        p = self.tcp(self.port, "--ssl-mode=DISABLED",
                     "--get-server-public-key", MYSQL_PWD="wrong")
        self.assertOneErrorLine(p, 1, "Access denied")

    @mmp.only_on("mysql", "MariaDB's accounts have no caching_sha2_password")
    def test_server_public_key_path(self):
        key = os.path.join(self.sandbox, "data", "public_key.pem")
        self.forget_passwords()
        p = self.tcp(self.port, "--ssl-mode=DISABLED",
                     "--server-public-key-path=" + key)
        self.assertEqual(p.returncode, 0, mmp.describe(p))
        self.assertIsNone(cipher(p), mmp.describe(p))
        # Another key: the server cannot read the password.
        self.forget_passwords()
        p = self.tcp(self.port, "--ssl-mode=DISABLED",
                     "--server-public-key-path=" +
                     self.cert("other-rsa-pub.pem"))
        self.assertOneErrorLine(p, 1, "Access denied")
        # No key at all: said before anything is sent.
        for path, words in ((self.cert("ca.pem"), "holds no PEM public key"),
                            ("/nonexistent.pem", "cannot read")):
            self.forget_passwords()
            p = self.tcp(self.port, "--ssl-mode=DISABLED",
                         "--server-public-key-path=" + path)
            self.assertOneErrorLine(p, 1, words, path)

    @mmp.only_on("mysql", "MariaDB's accounts have no caching_sha2_password")
    def test_full_authentication_over_tls_and_the_socket(self):
        for args in (["-h", "127.0.0.1", "-P", str(self.port)],
                     ["--socket", self.socket]):
            with self.subTest(args=args):
                self.forget_passwords()
                p = mmp.run(args + ["-u", "mmp", "--thread", "1", "--count",
                                    "1", "--format", "json"], conn=False)
                self.assertEqual(p.returncode, 0, mmp.describe(p))

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
        # Over plain text, MySQL's mmp account may need the server's key.
        p = self.tcp(self.port, "--ssl-mode=DISABLED",
                     "--get-server-public-key")
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
        # Connector/C 3.3's non-blocking TLS reads ask for no timeout;
        # conn.c keeps --read-timeout itself, so a frozen server is lost
        # after 1 s and found again, rather than waited for as long as it
        # is frozen. Connector/C 3.4 times the read out itself, first, in
        # its own words: either way within the 4 s waited for below.
        proc = self.spawn(["-h", "127.0.0.1", "-P", str(self.port), "-u",
                           "mmp", "--ssl-mode=REQUIRED", "--thread", "1",
                           "--count", "8", "--frequency", "200",
                           "--read-timeout", "1", "--connect-timeout", "1",
                           "--format", "json"], conn=False)
        proc.stdout_line()
        with mmp.frozen_server(self.sandbox):
            proc.wait_for_stderr("reconnecting", timeout=4)
        p = proc.finish()
        self.assertEqual(p.returncode, 0, mmp.describe(p))
        self.assertRegex(p.stderr, r"within 1 s \(--read-timeout\)|"
                         r"Lost connection to server during query",
                         mmp.describe(p))
        self.assertEqual(len(mmp.parse_json_lines(p.stdout)), 8)

    # On a reconnect, the password goes only to the server that shows the
    # certificate the first connection saw, under --ssl-mode PREFERRED or
    # REQUIRED, which check none: the test's server first, relayed, then
    # whoever the plan says (SwapServer).

    def through(self, plan, *args, mode="capture", ports=(19200, 19299)):
        server = SwapServer(self.port, plan)
        self.addCleanup(server.close)
        common = ["-h", "127.0.0.1", "-P", str(server.port), "-u", "mmp",
                  "--reconnect-timeout", "20"] + list(args)
        if mode == "record":
            d = tempfile.mkdtemp(prefix="mmp-pin-")
            os.chmod(d, 0o700)
            self.addCleanup(shutil.rmtree, d, True)
            argv = common + ["--record", d, "--frequency", "100"]
        elif mode == "listen":
            import test_exporter
            port = test_exporter.free_port(*ports)
            argv = common + ["--listen", "127.0.0.1:%d" % port,
                             "--frequency", "100"]
        elif mode == "wait":
            argv = common + ["--wait-for", "%no statement runs this%",
                             "--poll", "100"]
        else:
            argv = common + ["--global", "--count", "40", "--frequency",
                             "100", "--format", "json"]
        p = mmp.run(argv, conn=False, timeout=60)
        return server, p

    def assertStopped(self, server, p, *words):
        # A status of its own, that the package's units do not restart on.
        self.assertEqual(p.returncode, 4, mmp.describe(p))
        self.assertEqual(len(server.received), 1, mmp.describe(p))
        self.assertNotIn(mmp.MMP_PASSWORD.encode(), server.received[0],
                         mmp.describe(p))
        if mmp.CLIENT == "connector-c":
            # Its own check, right after the handshake: not even the
            # proof of the password (Oracle's sends the proof, then stops).
            self.assertEqual(server.received[0], b"", mmp.describe(p))
        said = [line for line in p.stderr.splitlines()
                if "the password was not sent" in line]
        self.assertEqual(len(said), 1, mmp.describe(p))
        for w in words:
            self.assertIn(w, said[0], mmp.describe(p))

    def test_pin_another_certificate_gets_no_password(self):
        # The two --ssl-mode runs of a mode side by side (a second each),
        # each with its own ports.
        ssl_modes = (("PREFERRED", (19200, 19249)),
                     ("REQUIRED", (19250, 19299)))
        for mode in "capture", "record", "listen", "wait":
            with concurrent.futures.ThreadPoolExecutor(2) as pool:
                done = list(pool.map(lambda m: self.through(
                    ["real", ("fake", self.other)], "--ssl-mode=" + m[0],
                    mode=mode, ports=m[1]), ssl_modes))
            for (ssl_mode, _), (server, p) in zip(ssl_modes, done):
                with self.subTest(mode=mode, ssl_mode=ssl_mode):
                    self.assertStopped(server, p, "a TLS certificate other than",
                                       "--ssl-mode=VERIFY_CA",
                                       "start mysqlmemprof again")

    def test_pin_no_tls_where_there_was_gets_no_password(self):
        server, p = self.through(["real", ("fake", None)])
        self.assertStopped(server, p, "offers no TLS now",
                           "--ssl-mode=VERIFY_CA")

    def test_pin_the_same_certificate_gets_the_password(self):
        # The fake that holds the server's key is taken for it: the
        # password goes, the fake refuses it, and the real server after
        # it takes the run to its end.
        server, p = self.through(["real", ("fake", self.same), "real"])
        self.assertEqual(p.returncode, 0, mmp.describe(p))
        self.assertIn(mmp.MMP_PASSWORD.encode() + b"\0", server.received[0],
                      mmp.describe(p))
        self.assertEqual(len(mmp.parse_json_lines(p.stdout)), 40)
        self.assertIn("reconnected", p.stderr)

    def test_pin_not_kept_for_a_verified_certificate(self):
        # VERIFY_CA proves the server at each connect: another certificate
        # of the same CA is taken, and the password goes.
        server, p = self.through(["real", ("fake", self.same_ca), "real"],
                                 "--ssl-mode=VERIFY_CA",
                                 "--ssl-ca=" + self.cert("ca.pem"))
        self.assertEqual(p.returncode, 0, mmp.describe(p))
        self.assertIn(mmp.MMP_PASSWORD.encode() + b"\0", server.received[0],
                      mmp.describe(p))
