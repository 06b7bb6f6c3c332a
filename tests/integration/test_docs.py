"""The examples of README.md and doc/*.md, run against the sandbox server:
each must exit as the document says and print output of the shape the
document shows.

The convention the documents follow:

- An example is a fenced block opened with ```console. Each line that
  starts with "$ " is a command (a line ending in "\\" goes on with the
  next); the lines after it, up to the next command, are its output,
  standard output and standard error together, as printed. A block of
  output alone is not an example: fence it as ```text.
- The commands name no connection options: they run under bash in a
  scratch folder, with a $HOME whose .my.cnf's [client] connects as the
  sandbox's account `mmp` (SELECT on performance_schema only) over its
  socket, as a reader's own .my.cnf would. Other programs (curl, head,
  cut, jq) may take part.
- Before each command that runs mysqlmemprof on the server, a session of
  the account `loader` starts tests/sql/hungry.sql (a GROUP BY that grows
  an in-memory temporary table to about 200 MiB over some seconds):
  whatever the document gives to --connection or --thread (a number, or
  CONN and THREAD) becomes that session's connection or thread id. The
  port of --listen becomes a free one, wherever the block names it.
- A command ending in " &" runs in the background until the block ends
  (then SIGTERM); the checker waits for its first sample before the next
  command. Its output is compared once it has ended.
- A command must exit 0, unless the block then shows "$ echo $?" and the
  status on the next line.
- The output is compared by shape: each line the document shows must have
  its like in the real output, numbers, ids, sizes, times, server versions
  and instrument names masked, in any order, as many times as it likes
  (so row counts do not matter). Headings, the lines of column names, CSV
  header lines, the row labels and the words of every line are compared;
  a JSON line's keys must all be in some real JSON line; a note
  ("mysqlmemprof: ...") is compared up to its first number. A line "..."
  stands for lines left out. An item under --explain's "## Advice ##"
  holds when the run gave advice or said it had none: advice follows
  the server's state at the moment (a fresh server's arenas hold too
  little for theirs).
- The blocks of a document run in order in one scratch folder: a block may
  read what an earlier one wrote (as `--read DIR` the folder an earlier
  `--record DIR` made: DIR is a name like any other there).
- A block that cannot run here (a package install, systemctl, an OOM kill,
  a server of another kind) has, on a line of its own just above its
  fence, <!-- not run: WHY -->; one whose output only one server family
  gives has <!-- only on: mariadb --> or <!-- only on: mysql -->. The
  checker prints the blocks it did not run, and why.

Run alone, it prints the real output of each example, to paste:

    python3 tests/integration/test_docs.py --show README.md [BLOCK]
"""

import glob
import json
import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import mmp  # noqa: E402

DOCS = ["README.md"] + sorted(
    os.path.relpath(p, mmp.REPO)
    for p in glob.glob(os.path.join(mmp.REPO, "doc", "*.md")))

COMMAND_TIMEOUT = 90
UNITS = {"B", "KiB", "MiB", "GiB", "TiB", "bytes", "ms", "s", "µs", "%",
         "ms/sample", "MiB/s", "KiB/s", "B/s", "GiB/s", "min", "h"}
CSV_HEADER_RE = re.compile(r"^[a-z_][a-z0-9_]*(,[a-z_][a-z0-9_]*)+$")
MARK_RE = re.compile(r"^<!-- (not run|only on): (.+?) -->$")


class Block:
    """A console block: its commands, each (command, output lines,
    expected exit status, background), and its marks."""

    def __init__(self, doc, line):
        self.doc, self.line = doc, line
        self.commands = []
        self.not_run = None
        self.only_on = None

    def name(self):
        return "%s:%d" % (self.doc, self.line)


def blocks(doc):
    """The console blocks of doc (a path under the tree)."""
    with open(os.path.join(mmp.REPO, doc)) as f:
        lines = f.read().splitlines()
    out, i = [], 0
    while i < len(lines):
        if lines[i].strip() != "```console":
            i += 1
            continue
        b = Block(doc, i + 1)
        j = i - 1
        while j >= 0 and (MARK_RE.match(lines[j].strip()) or
                          not lines[j].strip()):
            m = MARK_RE.match(lines[j].strip())
            if m and m.group(1) == "not run":
                b.not_run = m.group(2)
            elif m:
                b.only_on = m.group(2)
            if not lines[j].strip() and j < i - 1:
                break
            j -= 1
        i += 1
        body = []
        while i < len(lines) and lines[i].strip() != "```":
            body.append(lines[i])
            i += 1
        i += 1
        parse_body(b, body)
        out.append(b)
    return out


def parse_body(b, body):
    k = 0
    while k < len(body):
        line = body[k]
        k += 1
        if not line.startswith("$ "):
            if not b.commands:
                raise AssertionError("%s: output before any command: %r"
                                     % (b.name(), line))
            b.commands[-1]["output"].append(line)
            continue
        cmd = line[2:]
        while cmd.endswith("\\") and k < len(body):
            cmd = cmd[:-1] + "\n" + body[k]
            k += 1
        if cmd.strip() == "echo $?":
            if not b.commands or k >= len(body):
                raise AssertionError("%s: echo $? without a status" %
                                     b.name())
            b.commands[-1]["status"] = int(body[k].strip())
            k += 1
            continue
        bg = cmd.rstrip().endswith("&")
        b.commands.append({"cmd": cmd.rstrip().rstrip("&").rstrip(),
                           "output": [], "status": 0, "background": bg})
    if not b.commands:
        raise AssertionError("%s: a console block with no command (fence "
                             "output alone as ```text)" % b.name())


# The shape of a line.

def shape(line):
    """line with what changes from run to run masked: each word holding a
    digit, a '/' or a ';' (numbers, ids, times, versions, instrument names,
    folded stacks) and a lone '-' becomes N, a unit after it goes, and a
    run of N is one."""
    out = []
    line = mmp.unstamped(line.rstrip())
    # The server's version is one masked word, whatever it holds: MariaDB
    # 11.8 from Debian says "11.8.9-MariaDB-0+deb13u1 from Debian".
    if mmp.SERVER_VERSION:
        line = line.replace(mmp.SERVER_VERSION, "0")
    for t in line.split():
        if re.search(r"[\d/;]", t) or t in ("-", "-)"):
            if not out or out[-1] != "N":
                out.append("N")
        elif out and out[-1] == "N" and t.rstrip(",;:)") in UNITS:
            continue
        else:
            out.append(t)
    return " ".join(out)


def note_prefix(line):
    """A note's words up to its first masked one."""
    words = shape(line).split(" N")[0]
    return words


def json_keys(obj, at=""):
    keys = set()
    if isinstance(obj, dict):
        for k, v in obj.items():
            keys.add(at + k)
            keys |= json_keys(v, at + k + ".")
    elif isinstance(obj, list):
        for v in obj:
            keys |= json_keys(v, at + "[]")
    return keys


def is_note(line):
    return mmp.unstamped(line).startswith("mysqlmemprof: ")


def mismatches(shown, real):
    """The lines of shown (the document's output) that have no like in real
    (the output of the run), each with why."""
    real = [l for l in real if l.strip()]
    shapes = {shape(l) for l in real}
    notes = {note_prefix(l) for l in real if is_note(l)}
    objs = []
    for l in real:
        if l.startswith("{"):
            try:
                objs.append(json_keys(json.loads(l)))
            except ValueError:
                pass
    bad = []
    advice = False
    for l in shown:
        s = l.strip()
        if s.startswith("## "):
            advice = s == "## Advice ##"
        if not s or s == "...":
            continue
        # --explain's advice follows the server's state at the moment (a
        # fresh server's arenas hold too little for theirs): an item shown
        # holds when the run gave advice or said it had none.
        if advice and s.startswith("- ") and any(
                r.startswith((" - ", " none: ")) for r in real):
            continue
        if s.startswith("{"):
            try:
                keys = json_keys(json.loads(s))
            except ValueError:
                bad.append((l, "not JSON"))
                continue
            if not any(keys <= o for o in objs):
                near = min(objs, key=lambda o: len(keys - o), default=set())
                bad.append((l, "keys not printed: %s" %
                            ", ".join(sorted(keys - near))))
        elif CSV_HEADER_RE.match(s):
            if s not in (r.strip() for r in real):
                bad.append((l, "no such CSV header"))
        elif is_note(l):
            if note_prefix(l) not in notes:
                bad.append((l, "no note '%s'" % note_prefix(l)))
        elif shape(l) not in shapes:
            bad.append((l, "no line of the shape '%s'" % shape(l)))
    return bad


# Running a block.

def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Runner:
    """Runs a block's commands in a scratch folder; returns for each its
    real output lines and exit status."""

    def __init__(self):
        self.dir = tempfile.mkdtemp(prefix="mmp-docs-")
        home = os.path.join(self.dir, "home")
        os.mkdir(home)
        cnf = os.path.join(home, ".my.cnf")
        with open(cnf, "w") as f:
            f.write("[client]\nuser=%s\npassword=%s\nsocket=%s\n" % (
                mmp.MMP_USER, mmp.MMP_PASSWORD, mmp.SOCKET))
        os.chmod(cnf, 0o600)
        bindir = os.path.join(self.dir, "bin")
        os.mkdir(bindir)
        os.symlink(mmp.BIN, os.path.join(bindir, "mysqlmemprof"))
        self.env = mmp.base_env(HOME=home, MYSQL_PWD=None,
                                PATH=bindir + ":" + os.environ["PATH"])
        self.work = os.path.join(self.dir, "work")
        os.mkdir(self.work)
        self.workload = None
        self.background = []

    def close(self):
        self.end_block()
        shutil.rmtree(self.dir, ignore_errors=True)

    def _end_workload(self):
        if self.workload is not None:
            self.workload.kill()
            self.workload = None

    def _ids(self, cmd):
        """cmd with the ids of a fresh hungry session, when it runs
        mysqlmemprof on the server."""
        if not re.search(r"\bmysqlmemprof\b", cmd) or "--read" in cmd:
            return cmd
        self._end_workload()
        mmp.ensure_demo_table()
        self.workload = mmp.hungry()
        self._wait_grown(self.workload)
        cmd = re.sub(r"(--connection[= ])(\d+|CONN)\b",
                     lambda m: m.group(1) + str(self.workload.connection_id),
                     cmd)
        if "--thread" in cmd:
            cmd = re.sub(r"(--thread[= ])(\d+|THREAD)\b",
                         lambda m: m.group(1) + str(self.workload.thread_id),
                         cmd)
        return cmd

    @staticmethod
    def _wait_grown(w):
        """Waits until session w runs the GROUP BY and holds 16 MiB, so
        that each example finds it at the same point, whatever the load."""
        deadline = time.monotonic() + 30
        sql = ("SELECT PROCESSLIST_INFO FROM performance_schema.threads "
               "WHERE PROCESSLIST_ID = %d" % w.connection_id)
        while time.monotonic() < deadline:
            info = mmp.root_sql(sql)
            if (info and info[0][0].startswith("SELECT COUNT(*) AS groups_")
                    and mmp.connection_memory().get(w.connection_id, 0)
                    >= 16 << 20):
                return
            time.sleep(0.1)
        raise AssertionError("the hungry session %d did not grow to 16 MiB "
                             "in 30 s" % w.connection_id)

    def end_block(self):
        """Ends what a block started: its session, its background runs."""
        self._end_workload()
        for p, out in self.background:
            if p.poll() is None:
                p.kill()
                p.wait()
            out.close()
        self.background = []

    def run(self, block):
        ports = {}
        for c in block.commands:
            for m in re.finditer(r"--listen[= ](?:[\w.]+:)?(\d+)", c["cmd"]):
                ports.setdefault(m.group(1), str(free_port()))
        results = []
        for c in block.commands:
            cmd = c["cmd"]
            for old, new in ports.items():
                cmd = re.sub(r"\b%s\b" % old, new, cmd)
            cmd = self._ids(cmd)
            if c["background"]:
                results.append(self._start(cmd))
            else:
                results.append(self._run_one(cmd))
        return [r() if callable(r) else r for r in results]

    def _run_one(self, cmd):
        """(cmd, exit status, output lines); the status is "a timeout"
        when the command and what it started were killed after
        COMMAND_TIMEOUT."""
        p = subprocess.Popen(["bash", "-c", "exec 2>&1\n" + cmd],
                             cwd=self.work, env=self.env,
                             stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                             start_new_session=True)
        try:
            out, _ = p.communicate(timeout=COMMAND_TIMEOUT)
            status = p.returncode
        except subprocess.TimeoutExpired:
            os.killpg(p.pid, signal.SIGKILL)
            out, _ = p.communicate()
            status = "a timeout (%d s)" % COMMAND_TIMEOUT
        return cmd, status, out.decode("utf-8", "replace").splitlines()

    def _start(self, cmd):
        out = open(os.path.join(self.dir, "bg%d" % len(self.background)),
                   "w+b")
        p = subprocess.Popen(["bash", "-c", "exec " + cmd], cwd=self.work,
                             env=self.env, stdin=subprocess.DEVNULL,
                             stdout=out, stderr=subprocess.STDOUT)
        self.background.append((p, out))
        deadline = time.monotonic() + 20
        while time.monotonic() < deadline and p.poll() is None:
            out.seek(0)
            if b"sampling " in out.read():
                break
            time.sleep(0.1)
        time.sleep(1.5)  # its first sample

        def finish():
            if p.poll() is None:
                p.send_signal(signal.SIGTERM)
            try:
                p.wait(timeout=COMMAND_TIMEOUT)
            except subprocess.TimeoutExpired:
                p.kill()
                p.wait()
            out.seek(0)
            return (cmd, p.returncode,
                    out.read().decode("utf-8", "replace").splitlines())
        return finish


def check_block(block, runner):
    """The problems of block's run in runner (the scratch folder of its
    document): a list of lines, empty when it holds."""
    try:
        results = runner.run(block)
    finally:
        runner.end_block()
    return problems_of(block, results)


def problems_of(block, results):
    """What of block does not hold in results, Runner.run()'s."""
    problems = []
    for c, (cmd, status, real) in zip(block.commands, results):
        if status != c["status"]:
            problems.append("$ %s\n  exit %s, the document says %s" % (
                cmd, status, c["status"]))
        bad = mismatches(c["output"], real)
        if bad:
            problems.append("$ %s\n%s\n  --- what it printed:\n%s" % (
                cmd, "\n".join("  %s\n    %s" % (l, why) for l, why in bad),
                "\n".join("  | " + l for l in real[:60])))
    return problems


def skip_reason(block):
    if block.not_run:
        return "not run: " + block.not_run
    if block.only_on and block.only_on != mmp.FAMILY:
        return "only on " + block.only_on
    return None


class Docs(mmp.TestCase):
    """Each document's examples, a subtest each."""

    def check_doc(self, doc):
        """Runs doc's examples in order in one scratch folder, so that a
        block may read what an earlier one wrote (DIR)."""
        found = blocks(doc)
        ran = 0
        runner = Runner()
        self.addCleanup(runner.close)
        for b in found:
            why = skip_reason(b)
            if why:
                print("\n  %s: %s" % (b.name(), why), end="")
                continue
            ran += 1
            with self.subTest(block=b.name()):
                problems = check_block(b, runner)
                if problems:
                    self.fail("\n%s: its example does not hold:\n%s" % (
                        b.name(), "\n".join(problems)))
        if found:
            print("\n  %s: %d examples run on %s, %d not run" % (
                doc, ran, mmp.SERVER, len(found) - ran), end=" ")
        return found, ran

    def test_readme(self):
        found, ran = self.check_doc("README.md")
        # The landing page shows its jobs by real examples: most must run.
        self.assertGreaterEqual(ran, 5, "README.md: %d examples run" % ran)

    def test_guide(self):
        pages = [d for d in DOCS if d != "README.md"]
        found = sum(len(self.check_doc(d)[0]) for d in pages)
        if not found:
            self.skipTest("doc/ has no console examples yet")


def show(doc, which=None):
    """Prints what each example of doc (or the one at line which, after
    running those before it) really prints here, and what does not hold."""
    r = Runner()
    try:
        for b in blocks(doc):
            mine = which is None or b.line == int(which)
            if mine:
                print("==== %s%s" % (b.name(), " (%s)" % skip_reason(b)
                                      if skip_reason(b) else ""))
            if skip_reason(b) and (which is None or not mine):
                continue
            try:
                results = r.run(b)
            finally:
                r.end_block()
            if not mine:
                continue
            for cmd, status, real in results:
                print("$ " + cmd)
                print("\n".join(real))
                if status:
                    print("$ echo $?\n%s" % status)
            for p in problems_of(b, results):
                print("PROBLEM " + p)
    finally:
        r.close()


if __name__ == "__main__" and sys.argv[1:2] == ["--show"]:
    show(*sys.argv[2:4])
