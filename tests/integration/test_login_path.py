"""--login-path and ~/.mylogin.cnf, made by the real mysql_config_editor
of MySQL 9.7 in the sid root of tests/root.sh (a client feature: the same
file serves MariaDB)."""

import os
import pty
import select
import shutil
import subprocess
import tempfile
import time

import mmp

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT_SH = os.path.join(os.path.dirname(HERE), "root.sh")


def root_path():
    out = subprocess.run([ROOT_SH, "sid", "path"], check=True, capture_output=True,
                         timeout=30).stdout.decode().strip()
    if not os.path.exists(os.path.join(out, "usr", "bin",
                                       "mysql_config_editor")):
        raise AssertionError("no mysql_config_editor in %s; run: "
                             "tests/root.sh sid ensure server" % out)
    return out


def config_editor(home, args, password=None):
    """Runs mysql_config_editor in the root with HOME=home (as the root sees
    it). It reads a password from the terminal only: a pty answers."""
    argv = [ROOT_SH, "sid", "run", "env", "HOME=" + home, "mysql_config_editor"] + args
    pid, fd = pty.fork()
    if pid == 0:
        os.execv(argv[0], argv)
    out, sent = b"", False
    deadline = time.monotonic() + 30
    try:
        while time.monotonic() < deadline:
            if not select.select([fd], [], [], 0.5)[0]:
                continue
            try:
                data = os.read(fd, 1024)
            except OSError:  # the other end closed: it has ended
                break
            if not data:
                break
            out += data
            if password is not None and not sent and b"password" in out.lower():
                os.write(fd, password.encode() + b"\n")
                sent = True
    finally:
        os.close(fd)
        _, status = os.waitpid(pid, 0)
    if status != 0 or (password is not None and not sent):
        raise AssertionError("mysql_config_editor %s failed: %r" % (args, out))


class LoginPath(mmp.TestCase):

    @classmethod
    def setUpClass(cls):
        cls.root = root_path()
        # The home folder, inside the root for mysql_config_editor; the
        # program reads it from outside.
        cls.home = tempfile.mkdtemp(prefix="mmp-login-",
                                    dir=os.path.join(cls.root, "tmp"))
        inner = cls.home[len(cls.root):]
        config_editor(inner, ["set", "--login-path=tcp", "--user=mmp",
                              "--password", "--host=127.0.0.1",
                              "--port=" + mmp.PORT], mmp.MMP_PASSWORD)
        config_editor(inner, ["set", "--login-path=sock", "--user=mmp",
                              "--password", "--socket=" + mmp.SOCKET],
                      mmp.MMP_PASSWORD)
        config_editor(inner, ["set", "--login-path=wrong", "--user=mmp",
                              "--password", "--socket=" + mmp.SOCKET],
                      "not-the-password")
        # The default login path: [client].
        config_editor(inner, ["set", "--user=mmp", "--password",
                              "--socket=" + mmp.SOCKET], mmp.MMP_PASSWORD)
        cls.login_file = os.path.join(cls.home, ".mylogin.cnf")

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.home, ignore_errors=True)

    def run_login(self, args, **env):
        """No connection option on the command line, no MYSQL_PWD: all
        comes from the login path file in HOME."""
        env.setdefault("MYSQL_PWD", None)
        env.setdefault("HOME", self.home)
        return mmp.run(list(args) + ["--global", "--count", "1", "--format",
                                     "json"], conn=False,
                       env=mmp.base_env(**env))

    def assertConnected(self, p):
        self.assertEqual(p.returncode, 0, mmp.describe(p))
        self.assertEqual(len(mmp.parse_json_lines(p.stdout)), 1,
                         mmp.describe(p))

    def test_the_file_is_mysql_config_editor_s(self):
        # What the test stands on: an encrypted file, the owner's only.
        with open(self.login_file, "rb") as f:
            data = f.read()
        self.assertNotIn(mmp.MMP_PASSWORD.encode(), data)
        self.assertEqual(os.stat(self.login_file).st_mode & 0o777, 0o600)

    def test_login_path_over_tcp(self):
        p = self.run_login(["--login-path=tcp"])
        self.assertConnected(p)
        # TCP: encrypted whenever the server offers TLS, as MySQL's always does.
        if mmp.MYSQL:
            self.assertIn("over TLS", p.stderr, mmp.describe(p))

    def test_login_path_over_the_socket(self):
        self.assertConnected(self.run_login(["--login-path=sock"]))

    def test_client_login_path_without_the_option(self):
        self.assertConnected(self.run_login([]))
        # Its password is the one used: without the file, none is given.
        p = self.run_login(["--socket", mmp.SOCKET, "-u", "mmp"],
                           HOME=tempfile.gettempdir() + "/mmp-no-such-home")
        self.assertOneErrorLine(p, 1, "Access denied")

    def test_login_path_wins_over_client_and_my_cnf(self):
        with open(os.path.join(self.home, ".my.cnf"), "w") as f:
            f.write("[client]\nuser = mmp\npassword = wrong\n"
                    "socket = /nonexistent/sock\n")
        os.chmod(os.path.join(self.home, ".my.cnf"), 0o600)
        try:
            self.assertConnected(self.run_login(["--login-path=sock"]))
            p = self.run_login(["--login-path=wrong"])
            self.assertOneErrorLine(p, 1, "Access denied")
        finally:
            os.unlink(os.path.join(self.home, ".my.cnf"))

    def test_command_line_wins_over_the_login_path(self):
        p = self.run_login(["--login-path=sock", "--password=wrong"])
        self.assertEqual(p.returncode, 1, mmp.describe(p))
        self.assertIn("Access denied", p.stderr, mmp.describe(p))
        p = self.run_login(["--login-path=wrong", "--password=" +
                            mmp.MMP_PASSWORD])
        self.assertConnected(p)

    def test_no_defaults_still_reads_it(self):
        # As mysql: the login path file is read even then.
        self.assertConnected(self.run_login(["--no-defaults",
                                             "--login-path=tcp"]))

    def test_mysql_test_login_file(self):
        p = self.run_login(["--login-path=tcp"],
                           HOME=tempfile.gettempdir() + "/mmp-no-such-home",
                           MYSQL_TEST_LOGIN_FILE=self.login_file)
        self.assertConnected(p)

    def test_unknown_login_path(self):
        p = self.run_login(["--login-path=nosuch"])
        self.assertOneErrorLine(p, 2, "--login-path=nosuch",
                                "has no such login path",
                                "mysql_config_editor print --all")
        self.assertEqual(p.stdout, "")
        p = self.run_login(["--login-path=tcp"],
                           HOME=tempfile.gettempdir() + "/mmp-no-such-home")
        self.assertOneErrorLine(p, 2, "no login path file",
                                "mysql_config_editor set --login-path=tcp")
