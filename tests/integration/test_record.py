"""The black box (--record DIR, issue 26): a real OOM kill of the sandbox
server in a memory cgroup of its own makes an incident that names the
connection and the statement that held the memory, and the recording goes
on once the server is started again; the recorder killed with SIGKILL at
random moments loses nothing but the line it was writing, and --read DIR
gives back everything before it.

The recorder runs as `mmprec`, an account with PROCESS beside SELECT on
performance_schema: on MariaDB, PROCESS is what lets it read every
connection's memory from information_schema.PROCESSLIST, as the manual
tells a recorder's account to have."""

import datetime
import glob
import json
import os
import random
import re
import shutil
import signal
import subprocess
import tempfile
import threading
import time
import unittest

import mmp

REC_USER = "mmprec"
REC_PASSWORD = "mmprec-pass"


def _has_record():
    try:
        out = subprocess.run([mmp.BIN, "--help"], capture_output=True,
                             timeout=10).stdout
    except OSError:
        return False
    return b"--record" in out


needs_record = unittest.skipUnless(
    _has_record(), "mysqlmemprof --help has no --record (the black box of "
    "issue 26 is not in this build)")


def _seconds(stamp):
    """A record's "timestamp" (2026-11-27T03:12:05.123Z) as Unix seconds."""
    return datetime.datetime.strptime(stamp, "%Y-%m-%dT%H:%M:%S.%fZ") \
        .replace(tzinfo=datetime.timezone.utc).timestamp()


def read_records(path):
    """The lines of a JSONL file of DIR: (objects of its whole lines, lines
    ended by a line end that do not parse, the unended last line or b"")."""
    with open(path, "rb") as f:
        data = f.read()
    *whole, torn = data.split(b"\n")
    objs, bad = [], []
    for line in whole:
        try:
            objs.append(json.loads(line))
        except ValueError:
            bad.append(line)
    return objs, bad, torn


def is_sample(obj):
    return "type" not in obj and "sample" in obj


def find_key(obj, key):
    """The values of key anywhere in obj, nested objects and lists too."""
    if isinstance(obj, dict):
        for k, v in obj.items():
            if k == key:
                yield v
            yield from find_key(v, key)
    elif isinstance(obj, list):
        for v in obj:
            yield from find_key(v, key)


@needs_record
class RecordCase(mmp.TestCase):

    @classmethod
    def setUpClass(cls):
        for host in ("localhost", "127.0.0.1"):
            mmp.root_sql(
                "CREATE USER IF NOT EXISTS '%s'@'%s' IDENTIFIED BY '%s'; "
                "GRANT SELECT ON performance_schema.* TO '%s'@'%s'; "
                "GRANT PROCESS ON *.* TO '%s'@'%s'" %
                (REC_USER, host, REC_PASSWORD, REC_USER, host,
                 REC_USER, host))

    def setUp(self):
        super().setUp()
        self.dir = tempfile.mkdtemp(prefix="mmp-record-")
        self.addCleanup(shutil.rmtree, self.dir, True)
        # MMP_RECORD_KEEP=DIR keeps a copy of the record (the README's
        # incident comes from one).
        keep = os.environ.get("MMP_RECORD_KEEP")
        if keep:
            self.addCleanup(lambda: shutil.copytree(
                self.dir, os.path.join(keep, "%s-%s" % (
                    mmp.SERVER, self._testMethodName)), dirs_exist_ok=True))

    def recorder(self, *args):
        """mysqlmemprof --record self.dir in the background."""
        return self.spawn(["--socket", mmp.SOCKET, "--user", REC_USER,
                           "--record", self.dir] + list(args),
                          env=mmp.base_env(MYSQL_PWD=REC_PASSWORD),
                          conn=False)

    def segments(self):
        return sorted(glob.glob(os.path.join(self.dir, "segments",
                                             "*.jsonl")))

    def segment_samples(self, strict=False):
        """The sample lines of DIR's segments, in order. strict: fails
        unless each line with its line end parses (only a last, unended
        line of a segment may be torn)."""
        out = []
        for path in self.segments():
            objs, bad, _ = read_records(path)
            if strict:
                self.assertEqual(bad, [], "whole lines that do not parse "
                                 "in %s" % path)
            out += [o for o in objs if is_sample(o)]
        return out

    def wait_samples(self, rec, done, what, timeout):
        """Waits until done(the segments' samples) is true; returns them."""
        deadline = time.monotonic() + timeout
        while True:
            samples = self.segment_samples()
            if done(samples):
                return samples
            if rec.proc.poll() is not None or time.monotonic() > deadline:
                p = rec.finish(signal.SIGKILL)
                self.fail("no %s in %s's segments%s" %
                          (what, self.dir, mmp.describe(p)))
            time.sleep(0.1)

    def incidents(self):
        """{stem: (its JSONL's objects, whether its HTML page is there)}."""
        out = {}
        folder = os.path.join(self.dir, "incidents")
        for path in sorted(glob.glob(os.path.join(folder, "*.jsonl"))):
            stem = path[:-len(".jsonl")]
            objs = read_records(path)[0]
            out[stem] = (objs, os.path.exists(stem + ".html"))
        return out

    def wait_incident(self, rec, kind, since, seconds):
        """Waits until DIR/incidents has an incident of kind, its page and
        lines, at most seconds after since (time.time()); returns (its
        path without .jsonl, its objects, a description of them)."""
        while True:
            found = [(stem, objs) for stem, (objs, page) in
                     self.incidents().items() if page and
                     any(o.get("type") == "incident" and
                         o.get("kind") == kind for o in objs)]
            if found:
                break
            if time.time() > since + seconds:
                p = rec.finish(signal.SIGKILL)
                self.fail("no %s incident (.jsonl and .html) in %s/incidents"
                          " %d s after it: %s%s" %
                          (kind, self.dir, seconds, sorted(self.incidents()),
                           mmp.describe(p)))
            time.sleep(0.1)
        stem, objs = found[0]
        return stem, objs, "\n%s.jsonl:\n%s" % (stem, "\n".join(
            json.dumps(o)[:300] for o in objs))


class OomKill(RecordCase):

    def test_oom_kill_makes_an_incident_and_recording_goes_on(self):
        with mmp.server_in_memory_cgroup() as cg:
            pid = mmp.server_pid()
            kills = cg.oom_kills()
            rec = self.recorder("--frequency", "1000")
            self.wait_samples(rec, lambda s: len(s) >= 2, "two samples", 30)
            grow_at = time.time()
            w = self.start(mmp.grower())
            took = mmp.wait_oom_kill(pid, w)
            killed_at = time.time()
            self.assertEqual(cg.oom_kills(), kills + 1)

            # The incident, page and lines, within 5 s of the kill.
            stem, objs, desc = self.wait_incident(rec, "oom-kill",
                                                  killed_at, 5)
            print("\n%s: OOM kill %.1f s into the growth; incident %.1f s "
                  "after it" % (mmp.SERVER, took, time.time() - killed_at),
                  end=" ", flush=True)
            self.check_incident(objs, cg, kills, w, grow_at, killed_at,
                                desc)
            with open(stem + ".html", errors="replace") as f:
                page = f.read()
            self.assertIn("mmp_seed", page, "the statement on the page")
            # The gap in layers (read once a minute, the first with the
            # first sample): its line in the window, its table on the page,
            # the cgroup's limit in it.
            layers = [o for o in objs if o.get("type") == "explain"]
            self.assertTrue(layers, "no layers in the window" + desc)
            self.assertEqual(layers[-1]["cgroup"]["limit_bytes"], cg.limit,
                             desc)
            self.assertIn("<h2>The memory in layers, at ", page)
            self.assertRegex(page, r"<td class=\"text\" style=\"padding-"
                             r"left:1em\">resident</td>")

            new = mmp.restart_killed_server(pid)
            self.assertNotEqual(new, pid)
        # Recording goes on: samples of the server started again.
        back_at = time.time()
        self.wait_samples(
            rec, lambda s: any(_seconds(x["timestamp"]) > back_at for x in s),
            "sample after the restart", 30)
        self.assertIsNone(rec.proc.poll(), "the recorder ended")
        # SIGTERM ends it at once, with status 0.
        p = self.finish_ok(rec, sig=signal.SIGTERM)
        if os.environ.get("MMP_RECORD_KEEP"):
            with open(os.path.join(self.dir, "recorder.stderr"), "w") as f:
                f.write(p.stderr)

    def check_incident(self, objs, cg, kills, w, grow_at, killed_at, desc):
        # Before the kill: the server's end was seen within 50 ms of it, and
        # it takes a moment to die.
        at = killed_at - 0.5
        samples = [o for o in objs if is_sample(o) and
                   _seconds(o["timestamp"]) < at]
        # The minutes before: from before the growth began.
        self.assertTrue(samples, "no samples before the kill" + desc)
        self.assertLess(_seconds(samples[0]["timestamp"]), grow_at, desc)
        # Resident memory against the limit, the resident growing.
        for s in samples:
            self.assertIs(type(s.get("process_resident_bytes")), int, desc)
            self.assertEqual(s.get("cgroup_limit_bytes"), cg.limit, desc)
        resident = [s["process_resident_bytes"] for s in samples]
        self.assertGreater(max(resident) - min(resident), 50 << 20,
                           "resident memory did not grow" + desc)
        # The OOM-kill count rising, from the samples to the incident.
        counts = [v for o in objs for v in find_key(o, "cgroup_oom_kills")
                  if type(v) is int]
        self.assertTrue(counts, "no cgroup_oom_kills" + desc)
        self.assertEqual(counts[0], kills, desc)
        self.assertEqual(max(counts), kills + 1, desc)
        # The largest holder before the kill: the growing connection, its
        # statement. The connections lines are the whole list (full) or
        # the changes since the line before, with the ids gone.
        held = {}
        largest = None
        for o in objs:
            if o.get("type") != "connections" or \
                    _seconds(o["timestamp"]) >= at:
                continue
            if o.get("full"):
                held = {}
            for r in o.get("rows", []):
                held[r.get("id", r.get("connection_id"))] = r
            for gone in o.get("gone", []):
                held.pop(gone, None)
            if held:
                largest = max(held.values(), key=lambda r: r["bytes"] or 0)
        self.assertIsNotNone(largest, "no connections before the kill" + desc)
        self.assertEqual(largest.get("id", largest.get("connection_id")),
                         w.connection_id, desc)
        self.assertGreater(largest["bytes"], 50 << 20, desc)
        text = largest.get("text") or ""
        self.assertTrue(text, desc)
        self.assertEqual(text[:300], mmp.GROW_SQL[:len(text[:300])], desc)


class KillNine(RecordCase):

    def test_kill_9_loses_only_the_line_being_written(self):
        seed = random.randrange(1 << 30)
        rng = random.Random(seed)
        kept = []
        # Every 50 ms, no tick skipped for its cost (--max-load 0), so
        # that a run of a second writes some 20 samples.
        for i in range(10):
            rec = self.recorder("--frequency", "50", "--max-load", "0")
            time.sleep(rng.uniform(0.1, 1.0))
            rec.kill()
            desc = "\nkill %d of 10 (seed %d) in %s" % (i + 1, seed,
                                                        self.dir)
            # By time: a segment's name is that of its first record, with
            # -2, -3 when one second has two, which sort before it.
            stamps = sorted(s["timestamp"] for s in
                            self.segment_samples(strict=True))
            # Nothing written before an earlier kill was lost.
            self.assertEqual(stamps[:len(kept)], kept, desc)
            kept = stamps
            p = mmp.run(["--read", self.dir, "--format", "json"],
                        conn=False)
            self.assertEqual(p.returncode, 0, mmp.describe(p) + desc)
            read = [s["timestamp"] for s in mmp.parse_json_lines(p.stdout)]
            self.assertEqual(read, stamps, mmp.describe(p) + desc)
        # Every run but a few killed before their first sample wrote some.
        self.assertGreater(len(kept), 30, kept)


class ReadWindow(RecordCase):

    def test_since_and_until_pick_the_samples_between(self):
        rec = self.recorder("--frequency", "200")
        self.wait_samples(rec, lambda s: len(s) >= 12, "twelve samples", 30)
        self.finish_ok(rec, sig=signal.SIGTERM)
        stamps = [s["timestamp"] for s in self.segment_samples(strict=True)]
        since, until = stamps[3], stamps[8]
        p = mmp.run(["--read", self.dir, "--since", since, "--until", until,
                     "--format", "json"], conn=False)
        self.assertEqual(p.returncode, 0, mmp.describe(p))
        read = [s["timestamp"] for s in mmp.parse_json_lines(p.stdout)]
        self.assertEqual(read, stamps[3:9], mmp.describe(p))
        # The samples between reads of the events have them back.
        samples = mmp.parse_json_lines(p.stdout)
        self.assertTrue(all(s["events"] for s in samples), samples)
        # A span before now: all of them, recorded seconds ago.
        p = mmp.run(["--read", self.dir, "--since", "-10m", "--format",
                     "json"], conn=False)
        self.assertEqual(
            [s["timestamp"] for s in mmp.parse_json_lines(p.stdout)], stamps)
        # A folder with no record is one line and status 1.
        empty = tempfile.mkdtemp(prefix="mmp-record-empty-")
        self.addCleanup(shutil.rmtree, empty, True)
        p = mmp.run(["--read", empty], conn=False)
        self.assertEqual(p.returncode, 1, mmp.describe(p))
        self.assertIn("no records", p.stderr)
        self.assertEqual(len(p.stderr.strip().splitlines()), 1, p.stderr)

    def test_count_ends_the_recording_without_an_incident(self):
        rec = self.recorder("--frequency", "100", "--count", "3")
        p = self.finish_ok(rec, timeout=30)
        self.assertEqual(len(self.segment_samples(strict=True)), 3,
                         mmp.describe(p))
        self.assertEqual(os.listdir(os.path.join(self.dir, "incidents")),
                         [], mmp.describe(p))


class OneIncidentAnEvent(RecordCase):

    def kinds(self):
        """The kinds of the incidents in DIR, a second of a kind in the
        same second (-2) as its kind."""
        return sorted(re.sub(r"-\d+$", "", stem.rsplit("Z-", 1)[1])
                      for stem in self.incidents())

    def test_restart_in_the_same_cgroup_is_no_second_kill(self):
        """A server killed and started again in its cgroup, as systemd or
        Kubernetes do: one oom-kill incident, then the restart; the count
        the new run's samples see is no new kill."""
        with mmp.server_in_memory_cgroup() as cg:
            pid = mmp.server_pid()
            rec = self.recorder("--frequency", "500")
            self.wait_samples(rec, lambda s: len(s) >= 2, "two samples", 30)
            w = self.start(mmp.grower())
            mmp.wait_oom_kill(pid, w)
            # Room to start again: a server recovering from the kill takes
            # more than it held (MySQL's did not come back within the old
            # limit), as an administrator would give it.
            cg.set_limit(cg.limit + (1 << 30))
            mmp.restart_killed_server(pid, cg)
            back_at = time.time()
            self.wait_samples(
                rec, lambda s: sum(_seconds(x["timestamp"]) > back_at
                                   for x in s) >= 3,
                "three samples after the restart", 60)
            p = self.finish_ok(rec, sig=signal.SIGTERM)
        kinds = self.kinds()
        self.assertEqual(kinds.count("oom-kill"), 1, kinds + [p.stderr])
        self.assertEqual(kinds.count("restarted"), 1, kinds + [p.stderr])

    def test_our_connection_killed_is_no_incident(self):
        """KILL of the recorder's own connection: the server runs on, so
        a note, no incident, and recording goes on."""
        rec = self.recorder("--frequency", "200")
        samples = self.wait_samples(rec, lambda s: len(s) >= 3,
                                    "three samples", 30)
        ids = [int(i) for (i,) in mmp.root_sql(
            "SELECT ID FROM information_schema.PROCESSLIST WHERE USER = "
            "'%s'" % REC_USER)] if not mmp.MYSQL else [int(i) for (i,) in
            mmp.root_sql("SELECT PROCESSLIST_ID FROM performance_schema."
                         "threads WHERE PROCESSLIST_USER = '%s'" % REC_USER)]
        self.assertTrue(ids, "the recorder's connection")
        for i in ids:
            mmp.root_sql("KILL %d" % i)
        n = len(samples)
        self.wait_samples(rec, lambda s: len(s) >= n + 5,
                          "samples after the KILL", 30)
        p = self.finish_ok(rec, sig=signal.SIGTERM)
        self.assertEqual(self.kinds(), [], p.stderr)
        self.assertIn("only the connection was lost", p.stderr)

    def test_an_account_refused_at_the_start_ends_it(self):
        """Access denied before anything was recorded is the account's to
        mend: one line and status 1, not a wait for ever."""
        p = mmp.run(["--socket", mmp.SOCKET, "--user", REC_USER,
                     "--record", self.dir],
                    env=mmp.base_env(MYSQL_PWD="not-" + REC_PASSWORD),
                    conn=False)
        self.assertEqual(p.returncode, 1, mmp.describe(p))
        self.assertIn("Access denied", p.stderr)


FAKETIME_LIB = "/usr/lib/x86_64-linux-gnu/faketime/libfaketime.so.1"


@unittest.skipUnless(os.path.exists(FAKETIME_LIB),
                     "no libfaketime (Debian's faketime, scripts/deps.sh "
                     "--test) to step the recorder's wall clock")
class WallClockSteps(RecordCase):

    def test_two_days_forward_and_back_lose_nothing(self):
        """libfaketime steps the recorder's wall clock (only: its
        monotonic clock is left alone) two days forward, then back, while
        it records under --record-age 1: the samples written before stay,
        and the segment is synced every few seconds after the step back
        as before it. --frequency 50: the three segments come twice as
        fast as at 100, for as many samples."""
        rc = os.path.join(self.dir, "..", os.path.basename(self.dir) + ".rc")
        self.addCleanup(lambda: os.path.exists(rc) and os.unlink(rc))
        with open(rc, "w") as f:
            f.write("+0\n")
        # A sanitizer build wants its runtime first among the libraries;
        # libfaketime preloaded comes before it, which is harmless here.
        env = mmp.base_env(MYSQL_PWD=REC_PASSWORD, LD_PRELOAD=FAKETIME_LIB,
                           FAKETIME_TIMESTAMP_FILE=rc, FAKETIME_NO_CACHE="1",
                           FAKETIME_DONT_FAKE_MONOTONIC="1",
                           ASAN_OPTIONS=os.environ.get("ASAN_OPTIONS", "") +
                           ":verify_asan_link_order=0")
        rec = self.spawn(["--socket", mmp.SOCKET, "--user", REC_USER,
                          "--record", self.dir, "--frequency", "50",
                          "--record-age", "1", "--record-size", "1M"],
                         env=env, conn=False)
        # Three segments (of 64 KiB) before the step: pruning by the wall
        # clock would remove all but the last two.
        deadline = time.monotonic() + 90
        while len(self.segments()) < 3:
            if rec.proc.poll() is not None or time.monotonic() > deadline:
                p = rec.finish(signal.SIGKILL)
                self.fail("no third segment in %s%s" % (self.dir,
                                                         mmp.describe(p)))
            time.sleep(0.2)
        before = [s["timestamp"] for s in self.segment_samples()]
        for offset in ("+2d", "+0"):
            with open(rc, "w") as f:
                f.write(offset + "\n")
            n = len(self.segment_samples())
            self.wait_samples(rec, lambda s: len(s) >= n + 20,
                              "samples after the step to %s" % offset, 30)
        # A turn syncs the segment it leaves: the syncs of the segments
        # begun meanwhile are not the ones every few seconds.
        begun = set(self.segments())
        syncs = self.count_syncs(rec.proc.pid, 7)
        turns = len(set(self.segments()) - begun)
        p = self.finish_ok(rec, sig=signal.SIGTERM)
        stamps = [s["timestamp"] for s in self.segment_samples(strict=True)]
        self.assertEqual([s for s in before if s not in stamps], [],
                         "samples pruned by the step" + mmp.describe(p))
        # Some were written two days ahead, and then some back again.
        ahead = [s for s in stamps if _seconds(s) > time.time() + 86400]
        self.assertGreater(len(ahead), 10, stamps)
        self.assertGreater(len([s for s in stamps[stamps.index(ahead[-1]):]
                                if _seconds(s) < time.time() + 60]), 10,
                           stamps)
        if syncs is not None:
            self.assertGreaterEqual(syncs - turns, 1, "fdatasync calls in "
                                    "the 7 s after the step back, less the "
                                    "%d turns" % turns)
        r = mmp.run(["--read", self.dir, "--format", "json"], conn=False)
        self.assertEqual(r.returncode, 0, mmp.describe(r))
        self.assertEqual(sorted(s["timestamp"] for s in
                                mmp.parse_json_lines(r.stdout)),
                         sorted(stamps), mmp.describe(r))

    @staticmethod
    def count_syncs(pid, seconds):
        """The fdatasync calls of pid's threads within seconds, by strace
        (None without it)."""
        if shutil.which("strace") is None:
            return None
        p = subprocess.run(["timeout", "-s", "INT", str(seconds), "strace",
                            "-f", "-e", "trace=fdatasync", "-p", str(pid)],
                           capture_output=True, timeout=seconds + 10)
        return p.stderr.count(b"fdatasync(")


class HostileFolder(RecordCase):

    def test_a_planted_segments_link_is_refused(self):
        """DIR/segments a link, planted by whoever may write DIR, to a
        folder of files named as segments: the recorder refuses, with one
        line, and removes none of them (it used to prune them)."""
        outside = tempfile.mkdtemp(prefix="mmp-record-outside-")
        self.addCleanup(shutil.rmtree, outside, True)
        names = ["20200101T00000%d.000Z.jsonl" % i for i in range(5)]
        for n in names:
            with open(os.path.join(outside, n), "w") as f:
                f.write("{}\n")
        os.symlink(outside, os.path.join(self.dir, "segments"))
        p = mmp.run(["--socket", mmp.SOCKET, "--user", REC_USER, "--record",
                     self.dir, "--record-age", "1", "--record-size", "1M",
                     "--count", "3"],
                    env=mmp.base_env(MYSQL_PWD=REC_PASSWORD), conn=False)
        self.assertEqual(p.returncode, 1, mmp.describe(p))
        self.assertIn("segments is a link", p.stderr)
        self.assertIn("remove it", p.stderr)
        self.assertEqual(len(p.stderr.strip().splitlines()), 1, p.stderr)
        self.assertEqual(sorted(os.listdir(outside)), names)

    def test_a_folder_others_may_write_is_refused(self):
        os.chmod(self.dir, 0o777)
        p = mmp.run(["--socket", mmp.SOCKET, "--user", REC_USER, "--record",
                     self.dir, "--count", "3"],
                    env=mmp.base_env(MYSQL_PWD=REC_PASSWORD), conn=False)
        self.assertEqual(p.returncode, 1, mmp.describe(p))
        self.assertIn("may be written by other accounts", p.stderr)
        self.assertIn("chmod 700 %s" % self.dir, p.stderr)
        self.assertEqual(len(p.stderr.strip().splitlines()), 1, p.stderr)
        self.assertFalse(os.path.exists(os.path.join(self.dir, "segments")))


def _busy_clients(n, statements=3000):
    """n sessions of `loader`, each changing its memory every 20 ms with a
    long statement, so that each sample writes a line of n connections;
    their SQL from a file, so that starting them does not wait on them."""
    pad = "/* " + "p" * 400 + " */"
    procs = []
    for _ in range(n):
        f = tempfile.TemporaryFile()
        f.write("".join("SET @x = REPEAT('x', %d) %s; DO SLEEP(0.02);\n" % (
            random.randrange(1000, 200000), pad)
            for _ in range(statements)).encode())
        f.seek(0)
        procs.append(subprocess.Popen(
            mmp._loader_argv(), stdin=f, stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL))
        f.close()
    return procs


class _Filler(threading.Thread):
    """Another's file at path that takes all the room on its disk, and
    what the recorder frees too, until stopped."""

    def __init__(self, path):
        super().__init__(daemon=True)
        self.path = path
        self.stop = threading.Event()
        self.start()

    def run(self):
        with open(self.path, "wb", buffering=0) as f:
            while not self.stop.is_set():
                try:
                    f.write(b"\0" * 4096)
                except OSError:
                    time.sleep(0.001)

    def remove(self):
        self.stop.set()
        self.join()
        os.unlink(self.path)


@unittest.skipUnless(os.geteuid() == 0, "mounting a small tmpfs as DIR's "
                     "disk needs root")
class FullDisk(RecordCase):

    def setUp(self):
        super().setUp()
        self.disk = tempfile.mkdtemp(prefix="mmp-record-disk-")
        self.addCleanup(shutil.rmtree, self.disk, True)
        # 640 KiB: the segment that first fills it holds more than 8 times
        # the least segment (64 KiB), so that segments become an eighth of
        # it (segments.c, full()) and the next turn can remove it.
        subprocess.run(["mount", "-t", "tmpfs", "-o", "size=640k,mode=0700",
                        "tmpfs", self.disk], check=True)
        self.addCleanup(subprocess.run, ["umount", "-l", self.disk])
        self.dir = os.path.join(self.disk, "rec")
        clients = _busy_clients(32)

        def stop():
            for c in clients:
                c.kill()
                c.wait()
        self.addCleanup(stop)

    def test_a_full_disk_loses_the_oldest_and_recording_goes_on(self):
        """A disk of 640 KiB under the default --record-size of 256 MiB:
        one line says the disk is full and what to do, the oldest segment
        goes rather than new samples, and the recording goes on; another
        file that takes the whole disk loses samples until it is removed,
        then recording resumes by itself and says so; no torn line stays,
        and --read DIR reads it all."""
        full = "is full"
        again = "again: "
        t0 = time.time()
        # Every 50 ms: the disk fills in half the time, for as many
        # samples; the 32 clients make a sample dear, and a tick skipped
        # for its cost would only stretch the filling (--max-load 0).
        rec = self.recorder("--frequency", "50", "--max-load", "0")
        err = rec.wait_for_stderr(full, timeout=90)
        line = [x for x in err.splitlines() if full in x][0]
        self.assertIn("free space on it, or give a smaller --record-size",
                      line)
        # Its own segments filled it: the oldest goes, at once.
        rec.wait_for_stderr(again, timeout=30)
        n = len(self.segment_samples())
        self.wait_samples(rec, lambda s: len(s) >= n + 20,
                          "samples after the disk filled", 30)
        # Another's file takes the disk: samples are lost, not the run.
        filler = _Filler(os.path.join(self.disk, "filler"))
        self.addCleanup(filler.stop.set)
        self.wait_stderr_count(rec, full, 2, 60)
        time.sleep(2)
        self.assertIsNone(rec.proc.poll(), "the recorder ended")
        filler.remove()
        self.wait_stderr_count(rec, again, 2, 30)
        n = len(self.segment_samples())
        self.wait_samples(rec, lambda s: len(s) >= n + 10,
                          "samples once there was room again", 30)
        p = self.finish_ok(rec, sig=signal.SIGTERM)
        t1 = time.time()
        self.assertEqual(p.stderr.count(full), 2, p.stderr)
        # No torn line, not even a last one.
        for path in self.segments():
            objs, bad, torn = read_records(path)
            self.assertEqual((bad, torn), ([], b""), path)
        stamps = [_seconds(s["timestamp"]) for s in
                  self.segment_samples(strict=True)]
        # The oldest went; the newest are there to the end.
        self.assertGreater(min(stamps), t0 + 1, p.stderr)
        self.assertGreater(max(stamps), t1 - 3, p.stderr)
        r = mmp.run(["--read", self.dir, "--format", "json"], conn=False)
        self.assertEqual(r.returncode, 0, mmp.describe(r))
        self.assertEqual(len(mmp.parse_json_lines(r.stdout)), len(stamps),
                         mmp.describe(r))

    @staticmethod
    def wait_stderr_count(rec, words, count, timeout):
        rec._pump(lambda: rec._err.count(words.encode()) >= count,
                  "%d × %r on stderr" % (count, words), timeout)


class HeapKept(RecordCase):
    """The server started profiled by jemalloc (issue 34): the record keeps
    its newest dumps in DIR/heap, and the page of the incident its end
    makes draws the last of them, the user variables' stack named in the
    flame graph and the tables."""

    def test_an_incident_draws_the_last_dump_kept(self):
        import test_heap as th
        root = mmp.launch_argv()
        root = root[1] if root[0] == "chroot" else ""
        os.makedirs(root + "/tmp", exist_ok=True)
        folder = tempfile.mkdtemp(prefix="mmp-heap-", dir=root + "/tmp")
        self.addCleanup(shutil.rmtree, folder, True)
        os.chmod(folder, 0o777)
        host_prefix = folder + "/jeprof"
        with mmp.server_with_preload("jemalloc", {
                "MALLOC_CONF": "prof:true,prof_prefix:%s,lg_prof_interval:26"
                               % host_prefix[len(root):]}) as srv:
            self.alloc_until_dump(th, host_prefix, srv.pid)
            with open(th.dumps(host_prefix, srv.pid)[-1]) as f:
                if "\nMAPPED_LIBRARIES:\n" not in f.read():
                    self.skipTest("the server's jemalloc wrote no maps (no "
                                  "/proc in its root): the black box keeps "
                                  "whole dumps only")
            rec = self.recorder()
            heap = os.path.join(self.dir, "heap")
            self.wait_samples(rec, lambda s: len(s) > 0 and os.listdir(heap),
                              "dump kept", 30)
            th.instruments(False)
            self.addCleanup(th.instruments, True)
            self.hold(th, host_prefix, srv.pid)
            os.kill(srv.pid, signal.SIGKILL)
            gone_at = time.time()
            stem, objs, desc = self.wait_incident(rec, "server-gone",
                                                  gone_at, 30)
            rec.finish(signal.SIGTERM)
        kept = sorted(os.listdir(heap))
        self.assertTrue(1 <= len(kept) <= 3, kept)
        for name in kept:
            self.assertRegex(name, r"^\d{8}T\d{6}\.\d{3}Z-%d\.\d+\.heap$"
                             % srv.pid)
        line = [o for o in objs if o.get("type") == "incident"][0]
        self.assertEqual(line["heap_dump"], "heap/" + kept[-1], desc)
        self.assertGreaterEqual(line["heap_bytes"], 100 << 20, desc)
        with open(stem + ".html", encoding="utf-8") as f:
            page = f.read()
        self.check_page(th, page)

    def alloc_until_dump(self, th, host_prefix, pid):
        deadline = time.monotonic() + 60
        while not th.dumps(host_prefix, pid):
            self.assertLess(time.monotonic(), deadline, "no dump")
            mmp.root_sql("SELECT LENGTH(REPEAT('y', 15000000))")
        time.sleep(0.5)

    def hold(self, th, host_prefix, pid):
        """Nine 15,000,000-byte user variables held, a dump after them."""
        packet = mmp.root_sql("SELECT @@global.max_allowed_packet")[0][0]
        mmp.root_sql("SET GLOBAL max_allowed_packet = %d" % (64 << 20))
        self.addCleanup(mmp.root_sql,
                        "SET GLOBAL max_allowed_packet = %s" % packet)
        self.start(mmp.Workload("".join(
            "SET @mmp_heap%d = REPEAT('x', 15000000);\n" % i
            for i in range(9)), "SELECT SLEEP(300);"))
        before = len(th.dumps(host_prefix, pid))
        deadline = time.monotonic() + 60
        while len(th.dumps(host_prefix, pid)) == before:
            self.assertLess(time.monotonic(), deadline, "no dump")
            mmp.root_sql("SELECT LENGTH(REPEAT('y', 15000000))")
        time.sleep(0.5)

    def check_page(self, th, page):
        self.assertIn("<h2>Heap profile</h2>", page)
        self.assertIn("Live heap by stack", page, "no flame graph")
        at = page.index("Live heap by stack")
        svg = page[page.rindex("<svg", 0, at):page.index("</svg>", at) + 6]
        if shutil.which("xmllint"):
            x = subprocess.run(["xmllint", "--noout", "-"], input=svg,
                               capture_output=True, text=True)
            self.assertEqual(x.returncode, 0, x.stderr)
        self.assertNotIn("<script", page)
        # A frame of the user variables' code, with its bytes.
        self.assertRegex(svg, r"<title>[^<]*(%s)[^<]*\((1[0-9]{2}|"
                         r"[2-9][0-9]{2})\.\d\d MiB" % th.USER_VAR_FRAME.pattern)
        tables = page.split("<h2>The largest stacks</h2>", 1)[1]
        first_row = re.search(r"<tr><td title=\"(\d+) bytes\">.*?</tr>",
                              tables).group(0)
        self.assertGreaterEqual(int(re.search(r"\"(\d+) bytes",
                                              first_row).group(1)), 100 << 20)
        self.assertRegex(first_row, th.USER_VAR_FRAME)
        self.assertIn("<h2>The growth since the dump before</h2>", page)
        growth = page.split("<h2>The growth since the dump before</h2>")[1]
        self.assertRegex(growth, th.USER_VAR_FRAME)
