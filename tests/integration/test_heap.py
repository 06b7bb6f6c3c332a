"""--heap on a real server: the sandbox started again with jemalloc
preloaded and its profiling on, some 129 MiB held in user variables whose
memory instruments are off, and the stacks through the user-variable code
found holding it in each format (pprof read by `go tool pprof`); then the
one line and exit status of a server not profiled, a dump cut short and a
dump of another process. Skipped, saying how to install it, only when
jemalloc is not installed where the server runs."""
import glob
import json
import os
import re
import shutil
import subprocess
import tempfile
import time

import mmp

MIB = 1 << 20
EXIT_RUNTIME, EXIT_NO_PROFILE = 1, 5
# The instruments of user variables, the same names on MariaDB 10.11 and
# MySQL 9.7: switched off, their memory is counted nowhere but in the heap.
USER_VARS = ("NAME IN ('memory/sql/user_var_entry', "
             "'memory/sql/user_var_entry::value', 'memory/sql/String::value')")
# A frame of the code that holds a user variable's value.
USER_VAR_FRAME = re.compile(r"update_hash|Item_func_set_user_var|"
                            r"set_var_user|user_var_entry")
HELD = 9 * 15000000


def instruments(enabled):
    mmp.root_sql("UPDATE performance_schema.setup_instruments SET ENABLED = "
                 "'%s' WHERE %s" % ("YES" if enabled else "NO", USER_VARS))


def dumps(host_prefix, pid):
    return sorted(glob.glob("%s.%d.*.heap" % (host_prefix, pid)),
                  key=lambda p: int(p.split(".")[-3]))


class Heap(mmp.TestCase):

    @classmethod
    def setUpClass(cls):
        root = mmp.launch_argv()
        root = root[1] if root[0] == "chroot" else ""
        # Inside the server's root, where a chroot server writes.
        os.makedirs(root + "/tmp", exist_ok=True)
        cls.folder = tempfile.mkdtemp(prefix="mmp-heap-", dir=root + "/tmp")
        os.chmod(cls.folder, 0o777)
        cls.host_prefix = cls.folder + "/jeprof"
        prefix = cls.prefix = cls.host_prefix[len(root):]
        cls.preload = mmp.server_with_preload("jemalloc", {
            "MALLOC_CONF": "prof:true,prof_prefix:%s,lg_prof_interval:26"
                           % prefix})
        try:
            cls.srv = cls.preload.__enter__()
        except BaseException:
            shutil.rmtree(cls.folder, ignore_errors=True)
            raise

    @classmethod
    def tearDownClass(cls):
        cls.preload.__exit__(None, None, None)
        shutil.rmtree(cls.folder, ignore_errors=True)

    def hold_user_variables(self):
        """Nine 15,000,000-byte user variables held by a sleeping session,
        their instruments off, and a dump written after them."""
        packet = mmp.root_sql("SELECT @@global.max_allowed_packet")[0][0]
        mmp.root_sql("SET GLOBAL max_allowed_packet = %d" % (64 * MIB))
        instruments(False)
        self.addCleanup(instruments, True)
        self.addCleanup(mmp.root_sql,
                        "SET GLOBAL max_allowed_packet = %s" % packet)
        self.start(mmp.Workload("".join(
            "SET @mmp_heap%d = REPEAT('x', 15000000);\n" % i
            for i in range(9)), "SELECT SLEEP(300);"))
        before = len(dumps(self.host_prefix, self.srv.pid))
        # lg_prof_interval:26: a dump each 64 MiB allocated; allocate
        # until one comes after the variables are held.
        deadline = time.monotonic() + 60
        while len(dumps(self.host_prefix, self.srv.pid)) == before:
            self.assertLess(time.monotonic(), deadline,
                            "no dump in %s" % self.folder)
            mmp.root_sql("SELECT LENGTH(REPEAT('y', 15000000))")
        time.sleep(0.5)  # the dump begun is whole

    def heap(self, *args):
        return mmp.run(["--heap"] + list(args))

    def test_user_variables_in_every_format(self):
        self.hold_user_variables()
        p = self.heap()
        self.assertEqual(p.returncode, 0, mmp.describe(p))
        self.check_text(p.stdout, p)
        p = self.heap("--format", "folded")
        self.assertEqual(p.returncode, 0, mmp.describe(p))
        held = sum(int(l.rsplit(" ", 1)[1]) for l in p.stdout.splitlines()
                   if USER_VAR_FRAME.search(l.rsplit(" ", 1)[0]))
        self.assertGreaterEqual(held, 100 * MIB, mmp.describe(p))
        for line in p.stdout.splitlines():
            self.assertRegex(line, r"^[^ ;][^;]*(;[^;]+)* \d+$")
            self.assertNotIn("je_", line.split(";")[-1])
            # Outermost first: the command dispatched, then the variable set.
            frames = line.rsplit(" ", 1)[0].split(";")
            if any(USER_VAR_FRAME.search(f) for f in frames):
                first = min(i for i, f in enumerate(frames)
                            if USER_VAR_FRAME.search(f))
                self.assertTrue(any(f.startswith("dispatch_command")
                                    for f in frames[:first]), line)
        self.check_pprof()
        # The growth since the first dump, before the variables were set.
        p = self.heap("--heap-base", "first")
        self.assertEqual(p.returncode, 0, mmp.describe(p))
        first = os.path.basename(dumps(self.host_prefix, self.srv.pid)[0])
        self.assertRegex(p.stdout, r"growth since: \S+/%s\n" % re.escape(first))
        self.check_text(p.stdout, p)

    def test_explain_shows_the_stacks(self):
        """--explain: the profile beside the layers, the user variables'
        stack held >= 100 MiB, marked as through the instrumented calls
        (my_malloc) whose instruments are off: in the not-counted part."""
        self.hold_user_variables()
        p = mmp.run(["--explain", "--format", "json"])
        self.assertEqual(p.returncode, 0, mmp.describe(p))
        d = json.loads(p.stdout)
        h = d["heap"]
        self.assertEqual(h["state"], "read", mmp.describe(p))
        self.assertTrue(os.path.basename(h["dump"]).startswith(
            "jeprof.%d." % self.srv.pid), h)
        self.assertGreaterEqual(h["age_seconds"], 0, h)
        self.assertEqual(h["total_bytes"], h["instrumented_bytes"] +
                         h["not_instrumented_bytes"] + h["unnamed_bytes"], h)
        held = [s for s in h["stacks"]
                if any(USER_VAR_FRAME.search(f) for f in s["frames"])]
        self.assertTrue(held, h)
        self.assertGreaterEqual(held[0]["bytes"], 100 * MIB, h)
        # MySQL's my_malloc and my_realloc jump into a static function
        # its mysqld does not export: the call is unnamed, so not known.
        mysql = os.environ.get("MMP_SERVER") == "mysql"
        self.assertIn(held[0]["instrumented"], (True, None) if mysql
                      else (True,), h)
        if held[0]["instrumented"]:
            self.assertGreaterEqual(h["instrumented_bytes"],
                                    held[0]["bytes"], h)
            self.assertIn("more: instrumented code that no instrument "
                          "counts", h["says"], h)
        # Their instruments off: in the layer not counted, not the counted.
        ly = {l["layer"]: l for l in d["layers"]}
        self.assertGreaterEqual(ly["not_counted"]["bytes"], 100 * MIB, h)
        p = mmp.run(["--explain"])
        self.assertEqual(p.returncode, 0, mmp.describe(p))
        self.assertRegex(p.stdout, r"\n +[\d.]+ MiB  heap profile \(jemalloc, "
                         r"dump \d+ s old\): live, \d+%% of the anonymous "
                         r"pages  \(\S+/jeprof\.%d\.\d+\.\w+\.heap\)\n"
                         % self.srv.pid, mmp.describe(p))
        m = re.search(r"^ +([\d.]+) MiB  (instrumented|unnamed call) +"
                      r"(.*)$", p.stdout, re.M)
        self.assertIsNotNone(m, mmp.describe(p))
        self.assertGreaterEqual(float(m.group(1)), 100, mmp.describe(p))
        self.assertRegex(m.group(3), USER_VAR_FRAME, mmp.describe(p))
        if not mysql:
            self.assertEqual(m.group(2), "instrumented", mmp.describe(p))

    def check_text(self, text, p):
        """The largest stack holds the variables: over 100 MiB, through
        the user-variable code, named."""
        m = re.search(r"^#1 +([\d.]+) MiB +[\d.]+%.*\n((?: {6}.*\n)+)",
                      text, re.M)
        self.assertIsNotNone(m, mmp.describe(p))
        self.assertGreaterEqual(float(m.group(1)), 100, mmp.describe(p))
        self.assertRegex(m.group(2), USER_VAR_FRAME, mmp.describe(p))
        # A chroot's dumps are read through /proc/PID/root.
        self.assertRegex(text, r"jemalloc heap profile of pid %d: (%s|%s)\."
                         % (self.srv.pid, re.escape(self.host_prefix),
                            re.escape("/proc/%d/root%s" % (self.srv.pid,
                                                           self.prefix))))

    def check_pprof(self):
        out = os.path.join(self.folder, "heap.pb.gz")
        p = self.heap("--format", "pprof", "-o", out)
        self.assertEqual(p.returncode, 0, mmp.describe(p))
        top = subprocess.run(
            ["go", "tool", "pprof", "-top", "-cum", "-sample_index",
             "inuse_space", "-unit", "MB", out],
            capture_output=True, text=True, timeout=120,
            env=dict(os.environ, HOME=self.folder, PPROF_TMPDIR=self.folder))
        self.assertEqual(top.returncode, 0, top.stderr)
        held = [float(m.group(1)) for m in re.finditer(
            r"^\s*\S+\s+\S+%\s+\S+%\s+([\d.]+)MB\s+\S+%\s+(.*)$",
            top.stdout, re.M) if USER_VAR_FRAME.search(m.group(2))]
        self.assertTrue(held, top.stdout)
        self.assertGreaterEqual(max(held) * 1e6, 100 * MIB, top.stdout)

    def copy_of_newest(self, folder, pid=None, cut=False, seq=None):
        """The server's newest dump copied into folder, named as of pid
        (and of seq), cut in the middle of its stacks when cut is set."""
        src = dumps(self.host_prefix, self.srv.pid)[-1]
        name = os.path.basename(src).split(".")
        name[1] = str(pid or self.srv.pid)
        if seq is not None:
            name[2] = str(seq)
        dst = os.path.join(folder, ".".join(name))
        with open(src, "rb") as f:
            data = f.read()
        with open(dst, "wb") as f:
            f.write(data[:len(data) // 3] if cut else data)
        return dst

    def test_dump_cut_short(self):
        with tempfile.TemporaryDirectory() as d:
            self.copy_of_newest(d, cut=True)
            p = self.heap("--heap-dir", d, "--quiet")
        self.assertEqual(p.returncode, EXIT_RUNTIME, mmp.describe(p))
        self.assertEqual(len(p.stderr.strip().splitlines()), 1, p.stderr)
        self.assertRegex(p.stderr, r"/jeprof\.%d\.\d+\.\w+\.heap: line \d+: "
                         r"cut short.*; jemalloc may still be writing it: "
                         r"run again in a moment" % self.srv.pid)
        self.assertEqual(p.stdout, "")

    def test_newest_cut_short_reads_the_one_before(self):
        """A newest dump jemalloc is still writing: the one before is
        read, and one note says so."""
        with tempfile.TemporaryDirectory() as d:
            whole = self.copy_of_newest(d, seq=1)
            cut = self.copy_of_newest(d, cut=True, seq=2)
            p = self.heap("--heap-dir", d)
        self.assertEqual(p.returncode, 0, mmp.describe(p))
        notes = [l for l in p.stderr.splitlines() if "cut short" in l]
        self.assertEqual(len(notes), 1, p.stderr)
        self.assertIn("%s: line " % cut, notes[0])
        self.assertIn("reading the one before, %s" % whole, notes[0])
        self.assertIn("jemalloc heap profile of pid %d: %s\n"
                      % (self.srv.pid, whole), p.stdout)

    def test_stripped_binary(self):
        """A dump whose maps name a copy of the server's binary with no
        symbol table: profile written, its frames file+offset, and one
        note naming the file and how to get names."""
        newest = dumps(self.host_prefix, self.srv.pid)[-1]
        with open(newest) as f:
            text = f.read()
        if "\nMAPPED_LIBRARIES:\n" not in text:
            self.skipTest("the server's jemalloc wrote no maps (no /proc "
                          "in its root)")
        binary = next(l.split()[-1] for l in text.splitlines()
                      if " r-xp " in l and re.search(r"/(mariadbd|mysqld)$", l))
        root = mmp.launch_argv()
        root = root[1] if root[0] == "chroot" else ""
        with tempfile.TemporaryDirectory() as d:
            stripped = os.path.join(d, "mariadbd-stripped")
            subprocess.run(["objcopy", "-R", ".dynsym", "-R", ".dynstr",
                            "-R", ".gnu.hash", "-R", ".gnu.version",
                            "-R", ".gnu.version_r", "-R", ".gnu_debuglink",
                            root + binary, stripped], check=True)
            dump = os.path.join(d, "jeprof.%d.1.i1.heap" % self.srv.pid)
            with open(dump, "w") as f:
                f.write(text.replace(" " + binary + "\n",
                                     " " + stripped + "\n"))
            p = mmp.run(["--heap-file", dump], conn=False)
        self.assertEqual(p.returncode, 0, mmp.describe(p))
        self.assertRegex(p.stdout, r"\n {6}mariadbd-stripped\+0x[0-9a-f]+\n")
        notes = [l for l in p.stderr.splitlines() if "no symbols" in l]
        self.assertEqual(len(notes), 1, p.stderr)
        self.assertIn("the server's binary %s has no symbols to read"
                      % stripped, notes[0])
        self.assertIn("mariadb-server-core-dbgsym", notes[0])
        self.assertIn("/usr/lib/debug/.build-id/", notes[0])

    def test_share_unnamed(self):
        """The share of bytes allocated in code of the server's binary
        that no symbol names (its static functions, with no .symtab): a
        note with that share, as the folded output has it, when it is a
        quarter or more, and how to get the names."""
        dump = dumps(self.host_prefix, self.srv.pid)[-1]
        with open(dump) as f:
            if "\nMAPPED_LIBRARIES:\n" not in f.read():
                self.skipTest("the server's jemalloc wrote no maps (no "
                              "/proc in its root)")
        p = mmp.run(["--heap-file", dump, "--format", "folded"], conn=False)
        self.assertEqual(p.returncode, 0, mmp.describe(p))
        total = unnamed = 0
        for line in p.stdout.splitlines():
            frames, n = line.rsplit(" ", 1)
            total += int(n)
            if re.fullmatch(r"(mariadbd|mysqld)\+0x[0-9a-f]+",
                            frames.split(";")[-1]):
                unnamed += int(n)
        notes = [l for l in p.stderr.splitlines()
                 if "of the bytes were allocated in code of" in l]
        if unnamed * 4 < total:
            # Under a quarter: no note, and the note itself goes untested.
            self.assertEqual(notes, [], p.stderr)
            self.skipTest("%.0f%% of the bytes unnamed here, under the "
                          "quarter that brings the note" %
                          (100.0 * unnamed / total))
        self.assertEqual(len(notes), 1, p.stderr)
        share = float(re.search(r"(\d+)% of the bytes", notes[0]).group(1))
        self.assertAlmostEqual(share, 100.0 * unnamed / total, delta=1)
        self.assertRegex(notes[0], r"code of \S*/(mariadbd|mysqld) that its "
                         r"symbols do not name.*-dbgsym")

    def test_file_without_maps(self):
        """A dump with no MAPPED_LIBRARIES (a chroot's without /proc)
        given alone: one line that names both causes and the fix."""
        with open(dumps(self.host_prefix, self.srv.pid)[-1]) as f:
            text = f.read().split("\nMAPPED_LIBRARIES:\n")[0]
        with tempfile.TemporaryDirectory() as d:
            dump = os.path.join(d, "jeprof.%d.1.i1.heap" % self.srv.pid)
            with open(dump, "w") as f:
                f.write(text.rstrip("\n") + "\n")
            p = mmp.run(["--heap-file", dump, "--quiet"], conn=False)
        self.assertEqual(p.returncode, EXIT_RUNTIME, mmp.describe(p))
        self.assertEqual(len(p.stderr.strip().splitlines()), 1, p.stderr)
        self.assertIn("%s: line " % dump, p.stderr)
        self.assertIn("or wrote it where the server's root had no /proc",
                      p.stderr)
        self.assertIn("run --heap against the server itself", p.stderr)
        self.assertEqual(p.stdout, "")

    def test_file_not_a_dump(self):
        with tempfile.NamedTemporaryFile("w", suffix=".heap") as f:
            f.write("heap_v1 is not what jemalloc 5 writes\n")
            f.flush()
            p = mmp.run(["--heap-file", f.name, "--quiet"], conn=False)
        self.assertEqual(p.returncode, EXIT_RUNTIME, mmp.describe(p))
        self.assertEqual(len(p.stderr.strip().splitlines()), 1, p.stderr)
        self.assertIn("%s: not a jemalloc heap_v2 dump" % f.name, p.stderr)
        self.assertIn("give a dump jemalloc wrote", p.stderr)
        self.assertEqual(p.stdout, "")

    def test_dump_of_another_process(self):
        with tempfile.TemporaryDirectory() as d:
            other = self.copy_of_newest(d, pid=self.srv.pid + 100000)
            p = self.heap("--heap-base", other)
            self.assertEqual(p.returncode, EXIT_RUNTIME, mmp.describe(p))
            self.assertIn("is a dump of pid %d, not of the server's "
                          "process (pid %d)" % (self.srv.pid + 100000,
                                                self.srv.pid), p.stderr)
            p = self.heap("--heap-dir", d)
        self.assertEqual(p.returncode, EXIT_NO_PROFILE, mmp.describe(p))
        self.assertIn("no dump of the server's process (pid %d) under %s/ "
                      "yet, only 1 dump of other processes (pid %d)"
                      % (self.srv.pid, d, self.srv.pid + 100000), p.stderr)


class NotProfiled(mmp.TestCase):

    def test_server_without_jemalloc(self):
        p = mmp.run(["--heap"])
        self.assertEqual(p.returncode, EXIT_NO_PROFILE, mmp.describe(p))
        self.assertEqual(len(p.stderr.strip().splitlines()), 1, p.stderr)
        self.assertRegex(p.stderr, r"does not run on jemalloc: start it "
                         r"with jemalloc's profiling, .*\[Service\] "
                         r"Environment=LD_PRELOAD=.*MALLOC_CONF=prof:true")
        self.assertEqual(p.stdout, "")

    def test_explain_without_profiling(self):
        """--explain says in JSON why there is no profile, and writes no
        part of one in its text."""
        p = mmp.run(["--explain", "--format", "json"])
        self.assertEqual(p.returncode, 0, mmp.describe(p))
        h = json.loads(p.stdout)["heap"]
        self.assertEqual(h["state"], "not_profiled", h)
        self.assertRegex(h["why"], r"does not run on jemalloc: start it "
                         r"with jemalloc's profiling", h)
        self.assertEqual(h["stacks"], [], h)
        p = mmp.run(["--explain"])
        self.assertEqual(p.returncode, 0, mmp.describe(p))
        self.assertNotIn("heap profile", p.stdout)
        self.assertEqual(p.stderr, "")

    def test_jemalloc_without_profiling(self):
        with mmp.server_with_preload("jemalloc"):
            p = mmp.run(["--heap"])
        self.assertEqual(p.returncode, EXIT_NO_PROFILE, mmp.describe(p))
        self.assertIn("runs on jemalloc without profiling (MALLOC_CONF has "
                      "no prof:true)", p.stderr)
