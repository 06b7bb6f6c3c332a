"""The harness of the black box's tests (mmp.server_in_memory_cgroup(),
mmp.grower()): the sandbox server in a memory cgroup of its own, one
statement that grows until the kernel's OOM killer kills the server, and
the server started again."""

import time

import mmp


class OomKill(mmp.TestCase):

    def test_the_kernel_kills_the_server_in_its_cgroup(self):
        with mmp.server_in_memory_cgroup() as cg:
            pid = mmp.server_pid()
            self.assertIn(pid, cg.pids())
            kills = cg.oom_kills()
            self.assertLess(cg.usage(), cg.limit)
            w = self.start(mmp.grower())
            # The statement's memory is its connection's, the largest there
            # is, as the server counts it: what the recorder shows.
            time.sleep(1.5)
            held = mmp.connection_memory()
            self.assertEqual(max(held, key=held.get), w.connection_id, held)
            self.assertGreater(held[w.connection_id], 20 << 20, held)
            took = mmp.wait_oom_kill(pid, w)
            print("\n%s: OOM kill %.1f s after the statement began, limit "
                  "%d MiB" % (mmp.SERVER, took + 1.5, cg.limit >> 20),
                  end=" ", flush=True)
            self.assertEqual(cg.oom_kills(), kills + 1)
            line = mmp.kernel_oom_line(pid)
            self.assertIsNotNone(line, "no kernel line on killing %d" % pid)
            self.assertIn("out of memory", line)
            rc, _, err = w.wait()
            self.assertNotEqual(rc, 0)
            # Lost connection (2013), or its TLS's end (2026, MySQL).
            self.assertRegex(err, r"ERROR 20(13|26) ")
            new = mmp.restart_killed_server(pid)
        self.assertNotEqual(new, pid)
        self.assertEqual(mmp.root_sql("SELECT 1"), [["1"]])
