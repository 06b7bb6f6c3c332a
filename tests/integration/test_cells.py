"""What reaches a person or a spreadsheet: statement text kept whole past a
NUL byte in every format."""

import json

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
