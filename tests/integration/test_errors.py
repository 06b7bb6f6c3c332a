"""Errors: exit status 1 (runtime) or 2 (usage), and exactly one line on
stderr that names the problem."""

import os
import subprocess

import mmp


class UsageErrors(mmp.TestCase):

    def test_no_target(self):
        p = mmp.run(["--count", "1"])
        self.assertOneErrorLine(p, 2)
        self.assertEqual(p.stdout, "")

    def test_two_targets(self):
        self.assertOneErrorLine(mmp.run(["--thread", "1", "--connection", "2"]), 2)
        self.assertOneErrorLine(mmp.run(["--list", "--thread", "1"]), 2)

    def test_bad_frequency(self):
        for value in ("0", "abc", "10x", "-5", ""):
            with self.subTest(value=value):
                p = mmp.run(["--thread", "1", "--frequency=" + value])
                self.assertOneErrorLine(p, 2, "frequency")
        p = mmp.run(["--thread", "1", "--frequency"])
        self.assertEqual(p.returncode, 2, mmp.describe(p))

    def test_bad_numbers(self):
        for args in (["--count", "x"], ["--top", "-1"], ["--window", "x"],
                     ["--duration", "1.5"], ["--thread", "abc"],
                     ["--port", "70000"]):
            with self.subTest(args=args):
                p = mmp.run(["--thread", "1"] + args if args[0] != "--thread" else args)
                self.assertOneErrorLine(p, 2, args[0].lstrip("-"))

    def test_bad_format(self):
        p = mmp.run(["--thread", "1", "--format", "xml"])
        self.assertOneErrorLine(p, 2, "xml")

    def test_unknown_option(self):
        p = mmp.run(["--thread", "1", "--bogus-option"])
        self.assertOneErrorLine(p, 2, "--bogus-option")

    def test_missing_defaults_file(self):
        path = "/nonexistent/mmp-no-such.cnf"
        p = mmp.run(["--defaults-file=" + path, "--thread", "1"], conn=False)
        self.assertOneErrorLine(p, 2, path)

    def test_help_and_version(self):
        p = mmp.run(["--help"], conn=False)
        self.assertEqual(p.returncode, 0, mmp.describe(p))
        self.assertIn("--connection", p.stdout)
        p = mmp.run(["-V"], conn=False)
        self.assertEqual(p.returncode, 0, mmp.describe(p))
        self.assertRegex(p.stdout, r"\d+\.\d+\.\d+")


class RuntimeErrors(mmp.TestCase):

    def test_wrong_password(self):
        p = mmp.run(["--thread", "1", "--count", "1"],
                    env=mmp.base_env(MYSQL_PWD="not-the-password"))
        self.assertOneErrorLine(p, 1, "Access denied")

    def test_wrong_password_on_command_line_over_tcp(self):
        p = mmp.run(["-h", mmp.HOST, "-P", mmp.PORT, "-u", "mmp",
                     "--password=nope", "--thread", "1", "--count", "1"],
                    conn=False, env=mmp.base_env(MYSQL_PWD=None))
        self.assertEqual(p.returncode, 1, mmp.describe(p))
        errors = [l for l in p.stderr.splitlines() if "warning" not in l.lower()]
        self.assertEqual(len(errors), 1, mmp.describe(p))
        self.assertIn("Access denied", errors[0])

    def test_bad_socket(self):
        path = "/tmp/mmp-no-such-dir/mysqld.sock"
        p = mmp.run(["--socket", path, "--thread", "1", "--count", "1"])
        self.assertOneErrorLine(p, 1, path)

    def test_no_such_thread(self):
        p = mmp.run(["--thread", "987654321", "--count", "1"])
        self.assertOneErrorLine(p, 1, "--list")
        p = mmp.run(["--connection", "987654321", "--count", "1"])
        self.assertOneErrorLine(p, 1, "--list")

    def test_memory_instruments_disabled(self):
        w = self.start(mmp.idle())
        mmp.root_sql("UPDATE performance_schema.setup_instruments "
                     "SET ENABLED = 'NO' WHERE NAME LIKE 'memory/%'")
        try:
            p = mmp.run(["--thread", str(w.thread_id), "--count", "1"])
        finally:
            mmp.root_sql("UPDATE performance_schema.setup_instruments "
                         "SET ENABLED = 'YES' WHERE NAME LIKE 'memory/%'")
        self.assertOneErrorLine(p, 1, "UPDATE performance_schema.setup_instruments")
        # And it works again once they are back.
        self.run_ok(["--thread", str(w.thread_id), "--count", "1"])
