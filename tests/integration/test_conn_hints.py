"""Messages about the connection: a connect the server refuses for want of
connections says so, instead of sending the user to check that the server
runs (the hint for a TLS certificate that fails the check is in
test_tls.py), and a lost connection counts the samples taken in words that
read right."""

import subprocess
import time

import mmp

USER = "mmp_one"
PASSWORD = "one-pass"


class ConnectHints(mmp.TestCase):

    def hold_connection(self, user, password):
        """A session of user kept open until the test ends."""
        p = subprocess.Popen(
            ["mariadb", "--no-defaults", "-u" + user, "-p" + password, "-S",
             mmp.SOCKET, "-N", "-n", "-e",
             "SELECT CONNECTION_ID(); SELECT SLEEP(60)"],
            stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        line = p.stdout.readline().strip()
        if not line.isdigit():
            p.kill()
            raise AssertionError("no session for %s: %s" %
                                 (user, p.communicate()[1]))
        self.addCleanup(self.end, p, int(line))
        return p

    @staticmethod
    def end(p, conn_id):
        """Ends the session on the server, so it no longer counts."""
        try:
            mmp.root_sql("KILL %d" % conn_id)
        except subprocess.CalledProcessError:
            pass
        p.kill()
        p.communicate()

    def test_an_account_at_its_limit(self):
        mmp.root_sql("DROP USER IF EXISTS '%s'@'localhost'; "
                     "CREATE USER '%s'@'localhost' IDENTIFIED BY '%s' "
                     "WITH MAX_USER_CONNECTIONS 1; GRANT SELECT ON "
                     "performance_schema.* TO '%s'@'localhost'" %
                     (USER, USER, PASSWORD, USER))
        self.addCleanup(mmp.root_sql, "DROP USER IF EXISTS '%s'@'localhost'"
                        % USER)
        self.hold_connection(USER, PASSWORD)
        p = mmp.run(["--socket", mmp.SOCKET, "-u", USER, "--global",
                     "--count", "1"], conn=False,
                    env=mmp.base_env(MYSQL_PWD=PASSWORD))
        line = self.assertOneErrorLine(p, 1, "max_user_connections")
        self.assertNotIn("server runs", line)

    def test_a_server_at_max_connections(self):
        # Root keeps the one connection MariaDB holds for SUPER, to undo
        # it; ten sessions fill a server that takes ten, its least.
        was = mmp.root_sql("SELECT @@GLOBAL.max_connections")[0][0]
        held = [self.hold_connection("loader", "loader-pass")
                for _ in range(10)]
        try:
            mmp.root_sql("SET GLOBAL max_connections = 10")
            p = mmp.run(["--global", "--count", "1"])
        finally:
            mmp.root_sql("SET GLOBAL max_connections = %s" % was)
        self.assertEqual(len(held), 10)
        line = self.assertOneErrorLine(p, 1, "max_connections")
        self.assertNotIn("server runs", line)


class LostAfterOneSample(mmp.TestCase):

    def test_one_sample_is_one_sample(self):
        from test_faults import own_connection
        proc = self.spawn(["--global", "--format", "json", "--frequency",
                           "3000", "--reconnect-timeout", "0"])
        own = own_connection(proc.pid)
        proc.stdout_line()
        time.sleep(0.3)
        mmp.root_sql("KILL %d" % own)
        p = proc.finish()
        self.assertEqual(p.returncode, 1, mmp.describe(p))
        self.assertEqual(len(mmp.parse_json_lines(p.stdout)), 1)
        self.assertIn("the 1 sample taken is written", p.stderr)
