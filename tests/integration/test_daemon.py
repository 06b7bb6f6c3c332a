"""Start-up conditions a daemon meets: standard output or error closed,
an --output that cannot be written, the device names people use."""

import os
import shutil
import stat
import subprocess
import tempfile

import mmp


def run_closed(args, fd, timeout=mmp.RUN_TIMEOUT):
    """Runs the binary with file descriptor fd closed, as `>&-` (1) or
    `2>&-` (2) leave it; what the other of the two gets is kept."""
    argv = [mmp.BIN] + mmp.CONN_ARGS + list(args)
    p = subprocess.run(argv, stdin=subprocess.DEVNULL, capture_output=True,
                       env=mmp.base_env(), timeout=timeout,
                       preexec_fn=lambda: os.close(fd))
    p.argv = argv + ["%d>&-" % fd]
    p.stdout = p.stdout.decode("utf-8", "replace")
    p.stderr = p.stderr.decode("utf-8", "replace")
    return p


class ClosedStandardFds(mmp.TestCase):
    """The server connection must never take fd 1 or 2: notes or samples
    written into it would break the protocol ("Got packets out of
    order"), and the run would lose its samples."""

    def test_stderr_closed_samples_still_written(self):
        p = run_closed(["--global", "--count", "2", "--frequency", "100",
                        "--format", "json"], 2)
        self.assertEqual(p.returncode, 0, mmp.describe(p))
        self.assertEqual(len(mmp.parse_json_lines(p.stdout)), 2,
                         mmp.describe(p))

    def test_stderr_closed_list(self):
        p = run_closed(["--list", "--format", "csv"], 2)
        self.assertEqual(p.returncode, 0, mmp.describe(p))
        self.assertEqual(mmp.parse_csv(p.stdout)[0], mmp.LIST_HEADER,
                         mmp.describe(p))

    def test_stdout_closed_is_a_write_error(self):
        # Samples written into /dev/null would be lost without a word:
        # refused at once, as coreutils' "write error", exit 1.
        for args in (["--global", "--count", "3", "--format", "json"],
                     ["--list"], ["--version"]):
            with self.subTest(args=args):
                p = run_closed(args, 1)
                self.assertOneErrorLine(p, 1, "standard output", "closed")

    def test_stdout_closed_output_file_no_lost_connection(self):
        # With --output the run goes on, and the connection is never
        # disturbed: one note, no reconnect, every sample in the file.
        with tempfile.TemporaryDirectory(prefix="mmp-out-") as d:
            out = os.path.join(d, "cap.json")
            p = run_closed(["--global", "--count", "3", "--frequency", "100",
                            "--format", "json", "--output", out], 1)
            self.assertEqual(p.returncode, 0, mmp.describe(p))
            self.assertNotIn("lost the connection", p.stderr, mmp.describe(p))
            self.assertNotIn("out of order", p.stderr, mmp.describe(p))
            self.assertEqual(len(p.stderr.splitlines()), 1, mmp.describe(p))
            with open(out) as f:
                self.assertEqual(len(mmp.parse_json_lines(f.read())), 3)


class OutputCheckedAtStart(mmp.TestCase):
    """--wait-for may wait for hours: an --output that could never be
    written is said at once, not when the capture is lost."""

    def setUp(self):
        super().setUp()
        self.dir = tempfile.mkdtemp(prefix="mmp-out-")

    def tearDown(self):
        super().tearDown()
        shutil.rmtree(self.dir, True)

    def test_missing_directory_or_bad_pattern(self):
        missing = os.path.join(self.dir, "no-such-dir")
        for out, words in (
                (os.path.join(missing, "cap.csv"), "create it first"),
                (os.path.join(missing, "cap-%c.csv"), "create it first"),
                (os.path.join(self.dir, "x" * 4200 + "-%c.csv"), "too long"),
                ("/etc/passwd/cap-%t.csv", "not a directory")):
            with self.subTest(out=out[:80]):
                p = mmp.run(["--wait-for", "SELECT /* mmp-never */%",
                             "--wait-timeout", "10", "--output", out])
                self.assertOneErrorLine(p, 1, words)
                self.assertLess(p.elapsed, 5, mmp.describe(p))
                self.assertIn("--output", p.stderr)
                self.assertFalse(os.path.exists(missing))


class DeviceNames(mmp.TestCase):
    """/dev/stdout and its kin are symbolic links, yet what people mean;
    they are known by name, and the descriptor is duplicated."""

    def test_dev_stdout_stderr_fd(self):
        for out, where in (("/dev/stdout", "stdout"),
                           ("/dev/stderr", "stderr"),
                           ("/dev/fd/1", "stdout"),
                           ("/proc/self/fd/2", "stderr")):
            with self.subTest(out=out):
                p = mmp.run(["--global", "--count", "1", "--format", "json",
                             "-q", "--output", out])
                self.assertEqual(p.returncode, 0, mmp.describe(p))
                samples = mmp.parse_json_lines(getattr(p, where))
                self.assertEqual(len(samples), 1, mmp.describe(p))

    def test_fd_of_our_own_connection_refused(self):
        # Only 0-2 are inherited, so fd 3 is the server connection.
        p = mmp.run(["--global", "--count", "1", "--output", "/dev/fd/3"])
        self.assertOneErrorLine(p, 1, "socket")

    def test_fd_not_open_for_writing(self):
        p = mmp.run(["--global", "--count", "1", "--output", "/dev/fd/7"])
        self.assertOneErrorLine(p, 1, "not open for writing")


class SharedDirectory(mmp.TestCase):
    """In a sticky directory anyone writes to, a file or FIFO another user
    made is refused, as protected_regular would (it is off here: the
    tests run as root, which it does not protect either way)."""

    def setUp(self):
        super().setUp()
        self.dir = tempfile.mkdtemp(prefix="mmp-sticky-")
        os.chmod(self.dir, 0o1777)

    def tearDown(self):
        super().tearDown()
        shutil.rmtree(self.dir, True)

    def planted(self, name, fifo=False):
        path = os.path.join(self.dir, name)
        if fifo:
            os.mkfifo(path, 0o666)
        else:
            with open(path, "w") as f:
                f.write("theirs\n")
            os.chmod(path, 0o666)
        os.chown(path, 65534, 65534)
        return path

    def test_other_users_file_refused(self):
        if os.geteuid() == 65534:
            self.skipTest("runs as the user the file is given to")
        path = self.planted("cap.csv")
        p = mmp.run(["--global", "--count", "1", "--output", path])
        self.assertOneErrorLine(p, 1, "another user")
        with open(path) as f:
            self.assertEqual(f.read(), "theirs\n")

    def test_other_users_fifo_refused(self):
        if os.geteuid() == 65534:
            self.skipTest("runs as the user the FIFO is given to")
        path = self.planted("cap.fifo", fifo=True)
        # A reader is there, so only the owner check can refuse it.
        reader = os.open(path, os.O_RDONLY | os.O_NONBLOCK)
        try:
            p = mmp.run(["--global", "--count", "1", "--output", path])
            self.assertOneErrorLine(p, 1, "another user")
            try:
                got = os.read(reader, 4096)
            except BlockingIOError:
                got = b""
            self.assertEqual(got, b"")
        finally:
            os.close(reader)

    def test_own_file_accepted_and_private(self):
        path = os.path.join(self.dir, "mine.csv")
        old = os.umask(0)
        try:
            p = mmp.run(["--global", "--count", "1", "--format", "csv",
                         "-q", "--output", path])
        finally:
            os.umask(old)
        self.assertEqual(p.returncode, 0, mmp.describe(p))
        self.assertEqual(stat.S_IMODE(os.stat(path).st_mode), 0o600)
        p = mmp.run(["--global", "--count", "1", "--format", "csv", "-q",
                     "--output", path])
        self.assertEqual(p.returncode, 0, mmp.describe(p))


class OptionFileKinds(mmp.TestCase):
    """Only regular files are option files: a FIFO would block the start
    forever. The null device is an empty one."""

    def setUp(self):
        super().setUp()
        self.dir = tempfile.mkdtemp(prefix="mmp-cnf-")
        self.fifo = os.path.join(self.dir, "my.cnf")
        os.mkfifo(self.fifo, 0o600)

    def tearDown(self):
        super().tearDown()
        shutil.rmtree(self.dir, True)

    def test_defaults_file_dev_null(self):
        p = mmp.run(["--defaults-file=/dev/null", "--global", "--count", "1",
                     "--format", "json", "-q"])
        self.assertEqual(p.returncode, 0, mmp.describe(p))
        self.assertEqual(len(mmp.parse_json_lines(p.stdout)), 1)

    def test_fifo_refused_at_once(self):
        inc = os.path.join(self.dir, "inc.cnf")
        with open(inc, "w") as f:
            f.write("[client]\n!include %s\n" % self.fifo)
        for opt in ("--defaults-file=", "--defaults-extra-file="):
            for path in (self.fifo, inc):
                with self.subTest(opt=opt, path=path):
                    p = mmp.run([opt + path, "--global", "--count", "1"],
                                timeout=10)
                    self.assertOneErrorLine(p, 2, "not a regular file")

    def test_fifo_as_home_my_cnf_is_skipped(self):
        os.mkfifo(os.path.join(self.dir, ".my.cnf"), 0o600)
        p = mmp.run(["--global", "--count", "1", "--format", "json"],
                    env=mmp.base_env(HOME=self.dir), timeout=10)
        self.assertEqual(p.returncode, 0, mmp.describe(p))
        self.assertIn(".my.cnf: not a regular file", p.stderr)
