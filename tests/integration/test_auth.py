"""Which authentication plugins get the password, and over what: a fake
server on loopback (no real server asks for a plugin on request) greets
as mysql_native_password, then switches the client to the plugin of the
test and writes down every byte it is sent after that. Over plain TCP, or
unverified TLS, no plugin that would send the password, or an RSA
encryption of it to a key no one chose, is let; over the unix socket or
TLS whose certificate was checked, --enable-cleartext-plugin lets the
clear-text ones."""

import os
import shutil
import socket
import ssl
import struct
import tempfile
import threading

import mmp
from test_tls import make_ca, make_server_cert

PASSWORD = "s3cret-fake-pw"

# Capability flags of the greeting.
LONG_PASSWORD = 0x1  # CLIENT_MYSQL to Connector/C: a MySQL server
CONNECT_WITH_DB = 0x8
PROTOCOL_41 = 0x200
SSL = 0x800
TRANSACTIONS = 0x2000
SECURE_CONNECTION = 0x8000
MULTI_RESULTS = 0x20000
PLUGIN_AUTH = 0x80000
CONNECT_ATTRS = 0x100000
PLUGIN_AUTH_LENENC = 0x200000
CAPS = (LONG_PASSWORD | CONNECT_WITH_DB | PROTOCOL_41 | TRANSACTIONS |
        SECURE_CONNECTION | MULTI_RESULTS | PLUGIN_AUTH | CONNECT_ATTRS |
        PLUGIN_AUTH_LENENC)
SCRAMBLE = b"abcdefghijklmnopqrst"  # 20 bytes, as the server's are


def packet(seq, payload):
    return struct.pack("<I", len(payload))[:3] + bytes([seq & 0xff]) + payload


def read_packet(conn):
    """The next packet from conn: its sequence number, its payload, and
    every byte of it as read."""
    def exactly(n):
        buf = b""
        while len(buf) < n:
            chunk = conn.recv(n - len(buf))
            if not chunk:
                raise EOFError
            buf += chunk
        return buf

    head = exactly(4)
    body = exactly(head[0] | head[1] << 8 | head[2] << 16)
    return head[3], body, head + body


def greeting(tls):
    """A server's first packet, as mysql_native_password, offering TLS
    when tls."""
    caps = CAPS | (SSL if tls else 0)
    return (b"\x0a" + b"8.0.99-fake\0" + struct.pack("<I", 7) +
            SCRAMBLE[:8] + b"\0" + struct.pack("<H", caps & 0xffff) +
            b"\x21" + struct.pack("<H", 2) +
            struct.pack("<H", caps >> 16) + bytes([21]) + b"\0" * 10 +
            SCRAMBLE[8:] + b"\0" + b"mysql_native_password\0")


class FakeServer:
    """One connection: a greeting, the client's reply (over TLS when
    tls_context and the client asks), then an authentication switch
    request to plugin with data. What the client sends after that is in
    .after, packet by packet; the first is answered with Access denied."""

    def __init__(self, plugin, data=SCRAMBLE + b"\0", unix_path=None,
                 tls_context=None):
        self.plugin = plugin
        self.data = data
        self.tls_context = tls_context
        self.received = b""   # every byte, handshake included
        self.after = []       # the packets after the switch request
        self.switched = False
        self.error = None
        if unix_path:
            self.sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
            self.sock.bind(unix_path)
            self.args = ["--socket", unix_path]
        else:
            self.sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
            self.sock.bind(("127.0.0.1", 0))
            self.args = ["-h", "127.0.0.1", "-P",
                         str(self.sock.getsockname()[1])]
        self.sock.listen(1)
        self.sock.settimeout(20)
        self.thread = threading.Thread(target=self._serve, daemon=True)
        self.thread.start()

    def _packet(self, conn):
        seq, payload, raw = read_packet(conn)
        self.received += raw
        return seq, payload


    def _serve(self):
        try:
            conn, _ = self.sock.accept()
        except OSError as e:
            self.error = e
            return
        conn.settimeout(10)
        try:
            conn.sendall(packet(0, greeting(self.tls_context)))
            seq, reply = self._packet(conn)
            caps = struct.unpack("<I", reply[:4])[0]
            if self.tls_context and caps & SSL and len(reply) == 32:
                conn = self.tls_context.wrap_socket(conn, server_side=True)
                seq, reply = self._packet(conn)
            seq += 1
            # No plugin: the old request for a short scramble, one byte.
            conn.sendall(packet(seq, b"\xfe" if self.plugin is None else
                                b"\xfe" + self.plugin.encode() + b"\0" +
                                self.data))
            self.switched = True
            while True:
                seq, pkt = self._packet(conn)
                self.after.append(pkt)
                if len(self.after) == 1:
                    conn.sendall(packet(seq + 1, b"\xff" +
                                        struct.pack("<H", 1045) + b"#28000" +
                                        b"Access denied (fake server)"))
        except (EOFError, OSError, ssl.SSLError) as e:
            self.error = e
        finally:
            conn.close()

    def close(self):
        self.thread.join(25)
        self.sock.close()


class Auth(mmp.TestCase):

    @classmethod
    def setUpClass(cls):
        cls.dir = tempfile.mkdtemp(prefix="mmp-auth-")
        make_ca(cls.dir, "ca")
        make_server_cert(cls.dir)
        cls.tls = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        cls.tls.load_cert_chain(os.path.join(cls.dir, "server.pem"),
                                os.path.join(cls.dir, "server-key.pem"))

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.dir, True)

    def against(self, plugin, *args, data=SCRAMBLE + b"\0", unix=False,
                tls=False, env=None):
        path = os.path.join(self.dir, "fake.sock") if unix else None
        if path and os.path.exists(path):
            os.unlink(path)
        server = FakeServer(plugin, data, unix_path=path,
                            tls_context=self.tls if tls else None)
        p = mmp.run(server.args + ["-u", "fake", "--global", "--count", "1"] +
                    list(args), conn=False,
                    env=env or mmp.base_env(MYSQL_PWD=PASSWORD))
        server.close()
        self.assertTrue(server.switched, "no switch request sent: %r%s" %
                        (server.error, mmp.describe(p)))
        return server, p

    def assertKeptBack(self, server, p, *words):
        """Nothing after the switch: no password, no request for a key,
        no RSA-encrypted packet; one line naming words."""
        self.assertNotIn(PASSWORD.encode(), server.received, mmp.describe(p))
        self.assertEqual(server.after, [], mmp.describe(p))
        return self.assertOneErrorLine(p, 1, *words)

    def assertSent(self, server, p):
        self.assertEqual(server.after[:1], [PASSWORD.encode() + b"\0"],
                         mmp.describe(p))
        self.assertOneErrorLine(p, 1, "Access denied (fake server)")

    def test_clear_text_over_plain_tcp(self):
        for plugin in "mysql_clear_password", "dialog":
            if plugin == "dialog" and mmp.CLIENT != "connector-c":
                # Oracle's library has no dialog: it cannot load one.
                server, p = self.against(plugin, data=b"\x05Password: ")
                self.assertKeptBack(server, p, "'dialog'")
                continue
            with self.subTest(plugin=plugin):
                server, p = self.against(plugin, data=b"\x05Password: ")
                self.assertKeptBack(server, p, plugin, "clear text",
                                    "give --enable-cleartext-plugin")
                # Allowed, but not over this.
                server, p = self.against(plugin, "--enable-cleartext-plugin",
                                         data=b"\x05Password: ")
                self.assertKeptBack(server, p, plugin, "unix socket",
                                    "VERIFY_CA")

    def test_clear_text_over_tls(self):
        ca = "--ssl-ca=" + os.path.join(self.dir, "ca.pem")
        # TLS whose certificate is not checked may be anyone's.
        server, p = self.against("mysql_clear_password",
                                 "--enable-cleartext-plugin",
                                 "--ssl-mode=REQUIRED", tls=True)
        self.assertKeptBack(server, p, "VERIFY_CA")
        server, p = self.against("mysql_clear_password", "--ssl-mode=VERIFY_CA",
                                 ca, tls=True)
        self.assertKeptBack(server, p, "--enable-cleartext-plugin")
        for plugin in "mysql_clear_password", "dialog":
            with self.subTest(plugin=plugin):
                server, p = self.against(plugin, "--enable-cleartext-plugin",
                                         "--ssl-mode=VERIFY_CA", ca,
                                         data=b"\x05Password: ", tls=True)
                self.assertSent(server, p)
                if mmp.CLIENT != "connector-c":
                    break  # Oracle's library has no dialog

    def test_clear_text_over_the_socket(self):
        server, p = self.against("mysql_clear_password", unix=True)
        self.assertKeptBack(server, p, "--enable-cleartext-plugin")
        for plugin in "mysql_clear_password", "dialog":
            with self.subTest(plugin=plugin):
                server, p = self.against(plugin, "--enable-cleartext-plugin",
                                         data=b"\x05Password: ", unix=True)
                self.assertSent(server, p)
                if mmp.CLIENT != "connector-c":
                    break  # Oracle's library has no dialog

    def test_dialog_asks_only_the_password(self):
        if mmp.CLIENT != "connector-c":
            self.skipTest("Oracle's library has no dialog")
        # A question that is not the password (type 2): no one to answer.
        server, p = self.against("dialog", "--enable-cleartext-plugin",
                                 data=b"\x03Your PIN? ", unix=True)
        self.assertKeptBack(server, p, "dialog", "more than the password")

    def test_sha256_password_needs_a_chosen_key(self):
        server, p = self.against("sha256_password")
        line = self.assertKeptBack(server, p, "sha256_password",
                                   "not encrypted", "--get-server-public-key",
                                   "--server-public-key-path=FILE")
        self.assertNotIn("Access denied", line)
        # Over the socket, the password as it is; Oracle's library asks
        # the server for its key there too, which is the server's own.
        server, p = self.against("sha256_password", unix=True)
        if mmp.CLIENT == "connector-c":
            self.assertSent(server, p)
        else:
            self.assertEqual(server.after[:1], [b"\x01"], mmp.describe(p))

    def test_sha256_password_asks_the_key_when_told(self):
        server, p = self.against("sha256_password", "--get-server-public-key")
        self.assertEqual(server.after[:1], [b"\x01"], mmp.describe(p))

    def test_an_unknown_plugin(self):
        if mmp.CLIENT != "connector-c":
            self.skipTest("the list of plugins is Connector/C's")
        # Connector/C 3.3.20's message quotes stray bytes for the name
        # (and for the old protocol's one-byte request, below): the line
        # names it only when the library's message does.
        for plugin in "auth_gssapi_client", "mysql_old_password", "nosuch":
            with self.subTest(plugin=plugin):
                server, p = self.against(plugin)
                line = self.assertKeptBack(server, p, "does not use",
                                           "--enable-cleartext-plugin")
                if "'" in line.split(": ", 2)[-1].split(";")[0]:
                    self.assertIn("'%s'" % plugin, line)
        # The one-byte request of the old protocol is mysql_old_password,
        # whose hash of the password is weak.
        server, p = self.against(None)
        self.assertKeptBack(server, p, "does not use")

    def test_a_library_plugin_in_place_of_a_guard(self):
        # Connector/C loads the plugins LIBMYSQL_PLUGINS names when it
        # starts, before the guard of that name could take its place.
        if mmp.CLIENT != "connector-c":
            self.skipTest("LIBMYSQL_PLUGINS is Connector/C's")
        server = FakeServer("dialog", b"\x05Password: ")
        p = mmp.run(server.args + ["-u", "fake", "--global", "--count", "1"],
                    conn=False, env=mmp.base_env(MYSQL_PWD=PASSWORD,
                                                 LIBMYSQL_PLUGINS="dialog"))
        server.sock.close()
        self.assertFalse(server.switched, mmp.describe(p))
        self.assertOneErrorLine(p, 1, "dialog", "LIBMYSQL_PLUGINS")
