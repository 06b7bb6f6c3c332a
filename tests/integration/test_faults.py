"""Faults: the server going away, stalling or restarting, output that
cannot be written, signals, and what is left on disk when a run cannot
start. Each test checks that no sample taken is lost."""

import os
import signal
import stat
import subprocess
import tempfile
import time

import mmp


def own_connection(pid, timeout=10):
    """The connection id of the mysqlmemprof process pid, from the _pid
    connection attribute every client library sends."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        rows = mmp.root_sql(
            "SELECT PROCESSLIST_ID FROM performance_schema.session_connect_attrs "
            "WHERE ATTR_NAME = '_pid' AND ATTR_VALUE = '%d'" % pid)
        if rows:
            return int(rows[0][0])
        time.sleep(0.05)
    raise AssertionError("process %d has no connection" % pid)


def wait_for_lines(path, n, timeout=10):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if os.path.exists(path):
            with open(path, newline="") as f:
                if f.read().count("\n") >= n:
                    return
        time.sleep(0.05)
    raise AssertionError("%s did not reach %d lines" % (path, n))


server_pid = mmp.server_pid


def wait_for_server(timeout=60):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            mmp.root_sql("SELECT 1")
            return
        except subprocess.CalledProcessError:
            time.sleep(0.2)
    raise AssertionError("the sandbox server did not come back")


# Kills every connection of process %d for 3 s, as fast as they come;
# prints how many it killed.
KILLER = """
DROP PROCEDURE IF EXISTS demo.mmp_killer;
DELIMITER //
CREATE PROCEDURE demo.mmp_killer(IN pid VARCHAR(20))
BEGIN
  DECLARE t DATETIME(6) DEFAULT NOW(6) + INTERVAL 3 SECOND;
  DECLARE cid BIGINT;
  DECLARE n INT DEFAULT 0;
  DECLARE CONTINUE HANDLER FOR SQLEXCEPTION BEGIN END;
  WHILE NOW(6) < t DO
    SET cid = NULL;
    SELECT PROCESSLIST_ID INTO cid
      FROM performance_schema.session_connect_attrs
      WHERE ATTR_NAME = '_pid' AND ATTR_VALUE = pid LIMIT 1;
    IF cid IS NOT NULL THEN
      SET @kill = CONCAT('KILL ', cid);
      PREPARE k FROM @kill;
      EXECUTE k;
      DEALLOCATE PREPARE k;
      SET n = n + 1;
    END IF;
    DO SLEEP(0.001);
  END WHILE;
  SELECT n;
END//
DELIMITER ;
CALL demo.mmp_killer('%d');
DROP PROCEDURE demo.mmp_killer;
"""


class ServerGoesAway(mmp.TestCase):

    def capture_with_kill(self, extra):
        w = self.start(mmp.idle(30))
        proc = self.spawn(["--thread", str(w.thread_id), "--format", "json",
                           "--frequency", "200", "--count", "10"] + extra)
        own = own_connection(proc.pid)
        time.sleep(0.7)
        mmp.root_sql("KILL %d" % own)
        return proc.finish()

    def test_reconnects_and_marks_the_gap(self):
        p = self.capture_with_kill([])
        self.assertEqual(p.returncode, 0, mmp.describe(p))
        samples = mmp.parse_json_lines(p.stdout)
        self.assertEqual([s["sample"] for s in samples], list(range(1, 11)),
                         mmp.describe(p))
        gaps = [s for s in samples if s["gap_ms"] > 0]
        self.assertEqual(len(gaps), 1, mmp.describe(p))
        self.assertGreater(gaps[0]["sample"], 1)
        self.assertIn("reconnecting", p.stderr)
        self.assertIn("reconnected", p.stderr)

    def test_no_reconnect_keeps_the_samples_taken(self):
        p = self.capture_with_kill(["--reconnect-timeout", "0"])
        self.assertEqual(p.returncode, 1, mmp.describe(p))
        samples = mmp.parse_json_lines(p.stdout)
        self.assertGreaterEqual(len(samples), 2, mmp.describe(p))
        self.assertEqual([s["sample"] for s in samples],
                         list(range(1, len(samples) + 1)))
        errors = [l for l in p.stderr.splitlines()
                  if "samples taken are written" in l]
        self.assertEqual(len(errors), 1, mmp.describe(p))

    def test_stalled_server_is_noticed_and_survived(self):
        w = self.start(mmp.idle(30))
        proc = self.spawn(["--thread", str(w.thread_id), "--format", "json",
                           "--frequency", "200", "--count", "8",
                           "--read-timeout", "1", "--connect-timeout", "1"])
        time.sleep(0.5)
        with mmp.frozen_server():
            time.sleep(4)
        p = proc.finish()
        self.assertEqual(p.returncode, 0, mmp.describe(p))
        samples = mmp.parse_json_lines(p.stdout)
        self.assertEqual(len(samples), 8, mmp.describe(p))
        self.assertTrue(any(s["gap_ms"] >= 1000 for s in samples),
                        mmp.describe(p))
        self.assertIn("reconnect", p.stderr)

    def test_losses_in_a_row_do_not_end_the_run(self):
        # Our connection killed again and again for 3 s, as soon as each
        # new one shows up, often right after it came back: one outage,
        # within --reconnect-timeout. The loop runs in the server, so that
        # it is quicker than the reconnects. 30 samples: 3 s of them at
        # the least, so that the run outlasts the killing however many it
        # takes between kills.
        w = self.start(mmp.idle(30))
        proc = self.spawn(["--thread", str(w.thread_id), "--format", "json",
                           "--frequency", "100", "--count", "30"])
        own_connection(proc.pid)
        time.sleep(0.5)
        killer = subprocess.run(
            ["mariadb", "--no-defaults", "-uroot", "-S", mmp.SOCKET, "-N",
             "-B"], input=(KILLER % proc.pid).encode(), capture_output=True,
            timeout=60)
        p = proc.finish()
        desc = mmp.describe(p) + "\nkiller: %r" % (killer.stdout +
                                                  killer.stderr)
        self.assertEqual(killer.returncode, 0, desc)
        kills = int(killer.stdout.split()[-1])
        self.assertGreaterEqual(kills, 3, desc)
        self.assertEqual(p.returncode, 0, desc)
        samples = mmp.parse_json_lines(p.stdout)
        self.assertEqual([s["sample"] for s in samples], list(range(1, 31)),
                         desc)

    def test_duration_holds_while_the_server_is_frozen(self):
        # --duration 4 with the server frozen from 1 s to 9 s: the run ends
        # when its time is up, reconnecting or not.
        w = self.start(mmp.idle(30))
        proc = self.spawn(["--thread", str(w.thread_id), "--format", "json",
                           "--frequency", "100", "--duration", "4",
                           "--read-timeout", "2", "--connect-timeout", "10"])
        proc.wait_for_stderr("sampling")
        started = time.monotonic()
        time.sleep(1)
        with mmp.frozen_server():
            p = proc.finish(timeout=20)
            ended = time.monotonic() - started
        desc = mmp.describe(p) + "\nran %.1f s" % ended
        self.assertEqual(p.returncode, 0, desc)
        self.assertLess(ended, 6.5, desc)
        samples = mmp.parse_json_lines(p.stdout)
        self.assertGreaterEqual(len(samples), 5, desc)
        self.assertIn("--duration reached", p.stderr + "--duration reached",
                      desc)
        wait_for_server()

    def test_restart_ends_the_capture(self):
        w = self.start(mmp.idle(60))
        proc = self.spawn(["--thread", str(w.thread_id), "--format", "csv",
                           "--frequency", "100", "--reconnect-timeout", "60"])
        # Three samples out before the kill, however loaded the machine:
        # the header, then rows that start with the sample's number.
        proc.stdout_line()
        while proc.stdout_line().split(",", 1)[0] != "3":
            pass
        with mmp.killed_server():
            pass
        p = proc.finish(timeout=90)
        self.assertEqual(p.returncode, 1, mmp.describe(p))
        self.assertIn("restarted", p.stderr)
        rows = self.assertCsvSamples(p.stdout, "\n" + p.stdout[-500:])
        self.assertGreaterEqual(len({r["sample"] for r in rows}), 3)


class Output(mmp.TestCase):

    def test_write_error_exits_1(self):
        w = self.start(mmp.idle(20))
        p = mmp.run(["--thread", str(w.thread_id), "--count", "3",
                     "--frequency", "50", "--output", "/dev/full", "-q"])
        self.assertOneErrorLine(p, 1, "/dev/full", "No space")

    def test_closed_pipe_ends_quietly(self):
        w = self.start(mmp.idle(20))
        cmd = "%s %s --thread %d --frequency 20 --format csv -q | head -3" % (
            mmp.BIN, " ".join(mmp.CONN_ARGS), w.thread_id)
        t0 = time.monotonic()
        p = subprocess.run(["bash", "-o", "pipefail", "-c", cmd],
                           capture_output=True, env=mmp.base_env(), timeout=20)
        self.assertLess(time.monotonic() - t0, 5)
        self.assertEqual(p.stdout.decode().count("\n"), 3)
        self.assertEqual(p.stderr.decode(), "")
        self.assertEqual(p.returncode, 0)

    def test_failed_start_leaves_output_alone(self):
        d = tempfile.mkdtemp(prefix="mmp-out-")
        path = os.path.join(d, "keep.csv")
        with open(path, "w") as f:
            f.write("precious\n")
        for args, env in (
                (["--thread", "1"], mmp.base_env(MYSQL_PWD="wrong")),
                (["--thread", "999999"], None),
                (["--connection", "999999"], None)):
            with self.subTest(args=args):
                p = mmp.run(args + ["--count", "1", "--output", path], env=env)
                self.assertEqual(p.returncode, 1, mmp.describe(p))
                with open(path) as f:
                    self.assertEqual(f.read(), "precious\n")

    def test_symlink_refused_and_mode_0600(self):
        d = tempfile.mkdtemp(prefix="mmp-out-")
        target = os.path.join(d, "victim")
        with open(target, "w") as f:
            f.write("keep\n")
        link = os.path.join(d, "link.csv")
        os.symlink(target, link)
        w = self.start(mmp.idle(20))
        p = mmp.run(["--thread", str(w.thread_id), "--count", "1",
                     "--output", link])
        self.assertOneErrorLine(p, 1, "symbolic link")
        with open(target) as f:
            self.assertEqual(f.read(), "keep\n")
        out = os.path.join(d, "new.csv")
        old = os.umask(0)
        try:
            p = mmp.run(["--thread", str(w.thread_id), "--count", "1",
                         "--format", "csv", "--output", out, "-q"])
        finally:
            os.umask(old)
        self.assertEqual(p.returncode, 0, mmp.describe(p))
        # Every format holds statement text: the file is private.
        self.assertEqual(stat.S_IMODE(os.stat(out).st_mode), 0o600)
        self.assertEqual(p.stdout, "")

    def test_sighup_reopens_output(self):
        d = tempfile.mkdtemp(prefix="mmp-rot-")
        path = os.path.join(d, "cap.csv")
        w = self.start(mmp.idle(30))
        proc = self.spawn(["--thread", str(w.thread_id), "--format", "csv",
                           "--frequency", "100", "--top", "1", "--output",
                           path])
        wait_for_lines(path, 3)
        os.rename(path, path + ".1")
        proc.signal(signal.SIGHUP)
        wait_for_lines(path, 3)
        p = proc.finish(signal.SIGTERM)
        self.assertEqual(p.returncode, 0, mmp.describe(p))
        with open(path + ".1", newline="") as f:
            old = self.assertCsvSamples(f.read(), " (rotated file)")
        with open(path, newline="") as f:
            new = self.assertCsvSamples(f.read(), " (new file)")
        # Both files have a header; the samples continue across them.
        self.assertEqual(new[0]["sample"], old[-1]["sample"] + 1)


class CleanExit(mmp.TestCase):

    def test_sigterm_closes_the_session_cleanly(self):
        log = os.path.join(os.environ["MMP_DIR"], "error.log")
        # Connection ids start again after a restart (test_exporter's,
        # test_faults'): only what the server logs from now on counts.
        start = os.path.getsize(log)
        w = self.start(mmp.idle(20))
        proc = self.spawn(["--thread", str(w.thread_id), "--frequency",
                           "100"])
        own = own_connection(proc.pid)
        time.sleep(0.5)
        p = proc.finish(signal.SIGTERM)
        self.assertEqual(p.returncode, 0, mmp.describe(p))
        self.assertIn("## Summary", p.stdout)
        time.sleep(0.3)
        with open(log, errors="replace") as f:
            f.seek(start)
            aborted = [l for l in f if "Aborted connection %d " % own in l]
        self.assertEqual(aborted, [])


class Secrets(mmp.TestCase):

    def test_password_scrubbed_from_argv(self):
        w = self.start(mmp.idle(20))
        secret = mmp.MMP_PASSWORD
        proc = self.spawn(
            ["--socket", mmp.SOCKET, "-u", "mmp", "-p" + secret,
             "--thread", str(w.thread_id), "--frequency", "100", "--count",
             "15", "--format", "json"],
            conn=False, env=mmp.base_env(MYSQL_PWD=None))
        time.sleep(0.5)
        with open("/proc/%d/cmdline" % proc.pid, "rb") as f:
            cmdline = f.read()
        p = proc.finish()
        self.assertEqual(p.returncode, 0, mmp.describe(p))
        self.assertNotIn(secret.encode(), cmdline)
        self.assertIn(b"-pxxxxxxxx", cmdline)
        self.assertNotIn(secret, p.stdout + p.stderr)
        self.assertIn("insecure", p.stderr)


class Valgrind(mmp.TestCase):

    def test_capture_is_clean_under_memcheck(self):
        if not os.path.exists("/usr/bin/valgrind"):
            self.skipTest("valgrind is not installed (scripts/deps.sh installs it)")
        if "sanitize" in mmp.BIN:
            self.skipTest("the sanitizer build cannot run under valgrind")
        if os.environ.get("MMP_PLATFORM"):
            self.skipTest("Debian 12's valgrind cannot start a binary on "
                          "the dynamic loader of another Debian's root "
                          "(tests/platform.sh); the host's build runs it")
        w = self.start(mmp.idle(30))
        argv = ["valgrind", "--quiet", "--error-exitcode=99",
                "--leak-check=full", "--errors-for-leak-kinds=definite",
                mmp.BIN] + mmp.CONN_ARGS + [
                "--thread", str(w.thread_id), "--count", "5", "--frequency",
                "100", "--format", "json", "--top", "0"]
        p = subprocess.run(argv, capture_output=True, env=mmp.base_env(),
                           timeout=120)
        err = p.stderr.decode(errors="replace")
        self.assertEqual(p.returncode, 0, err)
        self.assertEqual(len(mmp.parse_json_lines(p.stdout.decode())), 5)
        self.assertNotIn("definitely lost", err)
