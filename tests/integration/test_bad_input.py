"""Bad input, as a table: each command line gets its exit status, exactly
one line on stderr naming the problem, and nothing on stdout. Run by
`make check SANITIZE=1` too, so no case may crash under ASan/UBSan."""

import os
import tempfile

import mmp

_dir = tempfile.mkdtemp(prefix="mmp-bad-")


def cnf(name, text, mode=0o644):
    path = os.path.join(_dir, name)
    with open(path, "wb") as f:
        f.write(text if isinstance(text, bytes) else text.encode())
    os.chmod(path, mode)
    return path


# (arguments, exit status, a word the message must contain)
CASES = [
    ([], 2, "no target"),
    (["--count", "3"], 2, "no target"),
    (["--live", "--read", "/dev/null"], 2, "needs a terminal"),
    (["--live", "--listen", "9104"], 2, "not --listen"),
    (["--thread", "1", "--connection", "2"], 2, "only one"),
    (["--list", "--thread", "1"], 2, "only one"),
    (["--connection", "1", "--list"], 2, "only one"),
    (["--thread", "abc"], 2, "not a number"),
    (["--thread", "0"], 2, "--thread"),
    (["--thread", "-1"], 2, "positive"),
    (["--thread", "99999999999999999999"], 2, "too large"),
    (["--thread", ""], 2, "empty"),
    (["--thread", "1e3"], 2, "trailing"),
    (["--thread", "0x10"], 2, "trailing"),
    (["--connection", "x1"], 2, "not a number"),
    (["--thread", "1", "--frequency", "0"], 2, "--frequency"),
    (["--thread", "1", "--frequency", "abc"], 2, "not a number"),
    (["--thread", "1", "--frequency", "10x"], 2, "trailing"),
    (["--thread", "1", "--frequency", "-5"], 2, "positive"),
    (["--thread", "1", "--frequency", "3600001"], 2, "too large"),
    (["--thread", "1", "--frequency", " 5"], 2, "not a number"),
    (["--thread", "1", "--count", "0"], 2, "--count"),
    (["--thread", "1", "--count", "many"], 2, "not a number"),
    (["--thread", "1", "--duration", "0"], 2, "--duration"),
    (["--thread", "1", "--duration", "1.5"], 2, "trailing"),
    (["--thread", "1", "--window", "0"], 2, "--window"),
    (["--thread", "1", "--window", "1000000"], 2, "too large"),
    (["--thread", "1", "--top", "-3"], 2, "negative"),
    (["--thread", "1", "--top", "100000"], 2, "too large"),
    (["--thread", "1", "--port", "0"], 2, "--port"),
    (["--thread", "1", "--port", "65536"], 2, "too large"),
    (["--thread", "1", "--connect-timeout", "0"], 2, "--connect-timeout"),
    (["--thread", "1", "--read-timeout", "soon"], 2, "not a number"),
    (["--thread", "1", "--reconnect-timeout", "-1"], 2, "negative"),
    (["--thread", "1", "--format", "xml"], 2, "text, csv, json"),
    (["--thread", "1", "--format", ""], 2, "unknown format"),
    (["--thread", "1", "--output", ""], 2, "empty file name"),
    (["--thread", "1", "--ssl-mode", "SOMETIMES"], 2, "--ssl-mode"),
    (["--thread", "1", "--ssl-mode", "VERIFY_CA"], 2, "--ssl-ca"),
    (["--thread", "1", "--bogus"], 2, "unknown option '--bogus'"),
    (["--thread", "1", "-Z"], 2, "unknown option '-Z'"),
    (["--thread"], 2, "needs a value"),
    (["--thread", "1", "--top"], 2, "needs a value"),
    (["--thread", "1", "stray"], 2, "unexpected argument"),
    (["--thread", "1", "a\nb"], 2, "unexpected argument"),
    (["--thread", "1", "--bytes=yes"], 2, "--bytes takes no value"),
    (["--global", "--for-user", "app"], 2, "only one"),
    (["--for-account", "app"], 2, "USER@HOST"),
    (["--for-host", ""], 2, "--for-host"),
    (["--global", "--events", ""], 2, "empty pattern"),
    (["--thread", "1", "--window", "100000", "--top", "10000"], 2, "--window"),
    (["--wait-for", "x", "--thread", "1"], 2, "only one"),
    (["--longer-than", "5", "--list"], 2, "only one"),
    (["--thread", "1", "--repeat"], 2, "--repeat needs --wait-for"),
    (["--list", "--poll", "100"], 2, "--poll needs"),
    (["--connection", "1", "--wait-timeout", "9"], 2, "--wait-timeout needs"),
    (["--wait-for", ""], 2, "empty value"),
    (["--longer-than", "soon"], 2, "not a number"),
    (["--wait-for", "x", "--poll", "5"], 2, "too small"),
    (["--wait-for", "x", "--wait-timeout", "0"], 2, "at least 1"),
    (["--wait-for", "x", "-o", "cap-%"], 2, "lone %"),
    (["--wait-for", "x", "-o", "cap-%Q.csv"], 2, "unknown conversion %Q"),
    (["--defaults-file=/nonexistent/x.cnf", "--thread", "1"], 2, "/nonexistent/x.cnf"),
    (["--defaults-file=/", "--thread", "1"], 2, "not a regular file"),
    (["--defaults-extra-file=/nonexistent/y.cnf", "--thread", "1"], 2, "y.cnf"),
    (["--defaults-file=" + cnf("unknown.cnf", "[mysqlmemprof]\nfoo=1\n"),
      "--thread", "1"], 2, "unknown option 'foo'"),
    (["--defaults-file=" + cnf("badnum.cnf", "[mysqlmemprof]\ntop=ten\n"),
      "--thread", "1"], 2, "--top 'ten'"),
    (["--defaults-file=" + cnf("quote.cnf", "[client]\npassword='x\n"),
      "--thread", "1"], 2, "unterminated quote"),
    (["--defaults-file=" + cnf("group.cnf", "[client\n"), "--thread", "1"],
     2, "without ']'"),
    (["--defaults-file=" + cnf("noval.cnf", "[client]\nport\n"),
      "--thread", "1"], 2, "needs a value"),
    (["--defaults-file=" + cnf("binary.cnf", b"[mysqlmemprof]\n\x00\xff\xfe=\x01\n"),
      "--thread", "1"], 2, "NUL byte"),
    (["--defaults-file=" + cnf("loop.cnf", "!include %s/loop.cnf\n" % _dir),
      "--thread", "1"], 2, "nested too deep"),
    (["--defaults-file=" + cnf("missinc.cnf", "!include /nonexistent/z.cnf\n"),
      "--thread", "1"], 2, "z.cnf"),
]


class BadInput(mmp.TestCase):

    def test_table(self):
        self.assertGreaterEqual(len(CASES), 40)
        for args, status, word in CASES:
            with self.subTest(args=args):
                p = mmp.run(args, conn=False)
                self.assertOneErrorLine(p, status, word)
                self.assertEqual(p.stdout, "", mmp.describe(p))

    def test_control_characters_never_reach_the_terminal(self):
        # A newline, an ESC and a C1 CSI (U+009B) in what the message quotes.
        p = mmp.run(["--thread", "1", "a\nb\x1b[2J\u009b2Jc"], conn=False)
        line = self.assertOneErrorLine(p, 2, "unexpected argument")
        for bad in ("\x1b", "\u009b", "\n"):
            self.assertNotIn(bad, line)

    def test_world_writable_option_file_is_ignored(self):
        path = cnf("open.cnf", "[client]\nuser=nobody-here\n", 0o666)
        p = mmp.run(["--defaults-extra-file=" + path, "--thread", "1",
                     "--count", "1", "--format", "json", "-q"])
        self.assertEqual(p.returncode, 0, mmp.describe(p))
        self.assertIn("world-writable", p.stderr)

    def test_huge_option_file_line(self):
        path = cnf("huge.cnf", "[client]\n# " + "x" * 1000000 + "\nuser=mmp\n")
        p = mmp.run(["--defaults-file=" + path, "--socket", mmp.SOCKET,
                     "--thread", "1", "--count", "1", "-q"], conn=False)
        self.assertEqual(p.returncode, 0, mmp.describe(p))
