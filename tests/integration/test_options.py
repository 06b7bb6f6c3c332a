"""Credentials from option files and MYSQL_PWD, and TCP connections."""

import os
import tempfile

import mmp


class OptionFiles(mmp.TestCase):

    def setUp(self):
        super().setUp()
        self.dir = tempfile.TemporaryDirectory()
        self.w = self.start(mmp.idle())

    def tearDown(self):
        super().tearDown()
        self.dir.cleanup()

    def write(self, name, text):
        path = os.path.join(self.dir.name, name)
        with open(path, "w") as f:
            f.write(text)
        os.chmod(path, 0o600)
        return path

    def run_bare(self, args, **env):
        """No connection option on the command line, no MYSQL_PWD."""
        env.setdefault("MYSQL_PWD", None)
        return mmp.run(args, conn=False, env=mmp.base_env(**env))

    def test_defaults_file_client_group(self):
        path = self.write("my.cnf", "[client]\nuser = mmp\npassword = mmp-pass\n"
                          "socket = %s\n" % mmp.SOCKET)
        p = self.run_bare(["--defaults-file=" + path, "--thread",
                           str(self.w.thread_id), "--count", "1", "--format", "json"])
        self.assertSampled(p, self.w.thread_id)

    def test_defaults_file_own_group(self):
        # [mysqlmemprof] comes after [client]: its password wins.
        path = self.write("my.cnf",
                          "[client]\nsocket=%s\nuser=mmp\npassword=wrong\n\n"
                          "[mysqlmemprof]\npassword=\"mmp-pass\"\n" % mmp.SOCKET)
        p = self.run_bare(["--defaults-file=" + path, "--thread",
                           str(self.w.thread_id), "--count", "1", "--format", "json"])
        self.assertSampled(p, self.w.thread_id)

    def test_defaults_file_is_really_read(self):
        path = self.write("my.cnf", "[client]\nuser=mmp\npassword=wrong\n"
                          "socket=%s\n" % mmp.SOCKET)
        p = self.run_bare(["--defaults-file=" + path, "--thread",
                           str(self.w.thread_id), "--count", "1", "--format", "json"])
        self.assertOneErrorLine(p, 1, "Access denied")

    def test_command_line_wins_over_file(self):
        path = self.write("my.cnf", "[client]\nuser=mmp\npassword=wrong\n"
                          "socket=/tmp/mmp-no-such-dir/sock\n")
        p = self.run_bare(["--defaults-file=" + path, "--socket", mmp.SOCKET,
                           "--password=mmp-pass", "--thread",
                           str(self.w.thread_id), "--count", "1", "--format", "json"])
        self.assertSampled(p, self.w.thread_id)

    def test_defaults_extra_file(self):
        path = self.write("extra.cnf", "[mysqlmemprof]\nuser=mmp\npassword=mmp-pass\n")
        p = self.run_bare(["--defaults-extra-file=" + path, "--socket",
                           mmp.SOCKET, "--thread", str(self.w.thread_id),
                           "--count", "1", "--format", "json"])
        self.assertSampled(p, self.w.thread_id)

    def test_home_my_cnf_and_no_defaults(self):
        home = os.path.join(self.dir.name, "home")
        os.mkdir(home)
        self.write("home/.my.cnf", "[client]\nuser=mmp\npassword=mmp-pass\n"
                   "socket=%s\n" % mmp.SOCKET)
        args = ["--thread", str(self.w.thread_id), "--count", "1", "--format", "json"]
        p = self.run_bare(args, HOME=home)
        self.assertSampled(p, self.w.thread_id)
        p = self.run_bare(["--no-defaults", "--socket", mmp.SOCKET, "-u", "mmp"] + args,
                          HOME=home)
        self.assertEqual(p.returncode, 1, "--no-defaults read ~/.my.cnf" + mmp.describe(p))

    def test_mysql_pwd(self):
        args = ["--socket", mmp.SOCKET, "--user", "mmp", "--thread",
                str(self.w.thread_id), "--count", "1", "--format", "json"]
        p = self.run_bare(args, MYSQL_PWD="mmp-pass")
        self.assertSampled(p, self.w.thread_id)
        p = self.run_bare(args)
        self.assertOneErrorLine(p, 1, "Access denied")

    def test_tcp(self):
        p = self.run_bare(["-h", mmp.HOST, "-P", mmp.PORT, "-u", "mmp",
                           "--thread", str(self.w.thread_id), "--count", "1",
                           "--format", "json"], MYSQL_PWD="mmp-pass")
        self.assertSampled(p, self.w.thread_id)

    def test_protocol(self):
        args = ["-u", "mmp", "--thread", str(self.w.thread_id), "--count", "1",
                "--format", "json"]
        # TCP even to localhost: the socket given is never tried.
        p = self.run_bare(["-h", "localhost", "--protocol=TCP", "-P", mmp.PORT,
                           "-S", "/nonexistent/sock"] + args,
                          MYSQL_PWD="mmp-pass")
        self.assertSampled(p, self.w.thread_id)
        # The socket: the port given is never tried.
        p = self.run_bare(["--protocol=socket", "-P", "1", "-S", mmp.SOCKET]
                          + args, MYSQL_PWD="mmp-pass")
        self.assertSampled(p, self.w.thread_id)
        # From an option file, as mysql(1) takes it there too.
        path = self.write("my.cnf", "[client]\nprotocol = tcp\nhost = localhost\n"
                          "port = %s\nsocket = /nonexistent/sock\n" % mmp.PORT)
        p = self.run_bare(["--defaults-file=" + path] + args,
                          MYSQL_PWD="mmp-pass")
        self.assertSampled(p, self.w.thread_id)

    def test_protocol_and_tls_version_mistakes(self):
        args = ["-u", "mmp", "--thread", str(self.w.thread_id)]
        p = self.run_bare(["--protocol=SOCKET", "-h", mmp.HOST] + args)
        self.assertOneErrorLine(p, 2, "--protocol=SOCKET", "localhost",
                                "--protocol=TCP")
        p = self.run_bare(["--protocol=pipe"] + args)
        self.assertOneErrorLine(p, 2, "--protocol 'pipe'", "TCP or SOCKET")
        p = self.run_bare(["--tls-version=TLSv1.1"] + args)
        self.assertOneErrorLine(p, 2, "--tls-version 'TLSv1.1'",
                                "TLSv1.2, TLSv1.3")
        self.assertEqual(p.stdout, "")
