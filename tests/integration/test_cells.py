"""What reaches a person or a spreadsheet: statement text kept whole past a
NUL byte in every format, and CSV cells a spreadsheet would run as a
formula neutralised."""

import subprocess
import time

import mmp


def binary_workload(sql):
    """A session whose statement may hold any byte: the mariadb client
    passes NULs only with --binary-mode, and comments with --comments."""
    orig = mmp._loader_argv
    mmp._loader_argv = lambda: orig() + ["--binary-mode", "--comments"]
    try:
        return mmp.Workload("", sql)
    finally:
        mmp._loader_argv = orig


class StatementText(mmp.TestCase):

    def test_nul_byte_keeps_the_rest(self):
        w = self.start(binary_workload(
            "SELECT /* harmless \0 */ SLEEP(20) AS really_runs_this;"))
        args = ["--connection", str(w.connection_id), "--count", "1", "-q"]
        p = self.run_ok(args + ["--format", "json"])
        got = [s["statement"] for s in mmp.parse_json_lines(p.stdout)]
        self.assertEqual(got, ["SELECT /* harmless \0 */ SLEEP(20) AS "
                               "really_runs_this"], mmp.describe(p))
        p = self.run_ok(args + ["--format", "csv"])
        rows = mmp.parse_csv(p.stdout)
        col = rows[0].index("statement")
        self.assertEqual(rows[1][col], "SELECT /* harmless \\0 */ SLEEP(20) "
                         "AS really_runs_this", mmp.describe(p))
        p = self.run_ok(args)
        self.assertIn("## statement: SELECT /* harmless ? */ SLEEP(20) AS "
                      "really_runs_this ##", p.stdout, mmp.describe(p))
        # --list keeps the whole text too, and so do --wait-for's notes.
        p = self.run_ok(["--list", "--format", "json"])
        mine = [t for t in mmp.parse_json_lines(p.stdout)
                if t["connection_id"] == w.connection_id]
        self.assertEqual(mine[0]["statement"], "SELECT /* harmless \0 */ "
                         "SLEEP(20) AS really_runs_this", mmp.describe(p))
        p = self.run_ok(["--list"])
        self.assertIn("SELECT /* harmless ? */ SLEEP(20) AS really_runs_this",
                      p.stdout, mmp.describe(p))
        p = self.run_ok(["--wait-for", "%really_runs_this%", "--count", "1",
                         "--poll", "100"])
        self.assertIn("SELECT /* harmless ? */ SLEEP(20) AS really_runs_this",
                      p.stderr, mmp.describe(p))


class Spreadsheet(mmp.TestCase):

    USER = "=HYPERLINK(\"http://evil/\",\"x\")"

    def setUp(self):
        super().setUp()
        user = self.USER.replace('"', '\\"')
        mmp.root_sql("DROP USER IF EXISTS '%s'@'localhost'; CREATE USER "
                     "'%s'@'localhost' IDENTIFIED BY 'x'" % (user, user))
        self.proc = subprocess.Popen(
            ["mariadb", "--no-defaults", "-u" + self.USER, "-px", "-S",
             mmp.SOCKET, "-N", "-e", "SELECT SLEEP(20)"],
            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)

    def tearDown(self):
        for row in mmp.root_sql("SELECT ID FROM information_schema.PROCESSLIST "
                                "WHERE USER LIKE '=HYPERLINK%'"):
            mmp.root_sql("KILL %s" % row[0])
        self.proc.kill()
        self.proc.wait()
        self.proc.stderr.close()
        mmp.root_sql("DROP USER IF EXISTS '%s'@'localhost'" %
                     self.USER.replace('"', '\\"'))
        super().tearDown()

    def test_list_cell_that_looks_like_a_formula(self):
        # An account name is anyone's to choose, and begins with '='.
        deadline = time.monotonic() + 10
        while True:
            p = self.run_ok(["--list", "--format", "csv"])
            rows = mmp.parse_csv(p.stdout)
            col = rows[0].index("user")
            cells = [r[col] for r in rows[1:] if "HYPERLINK" in r[col]]
            if cells or time.monotonic() > deadline:
                break
            time.sleep(0.2)
        self.assertTrue(cells, mmp.describe(p))
        for c in cells:
            self.assertEqual(c, "'" + self.USER, mmp.describe(p))
