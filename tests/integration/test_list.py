"""--list in the three formats shows the workload's session."""

import json
import os
import re

import mmp


class List(mmp.TestCase):

    def setUp(self):
        super().setUp()
        self.w = self.start(mmp.idle())

    def test_list_text(self):
        p = self.run_ok(["--list"])
        # One line holds the session's thread id, connection id and user.
        want = {str(self.w.thread_id), str(self.w.connection_id), "loader"}
        mine = [l for l in p.stdout.splitlines() if want <= set(l.split())]
        self.assertEqual(len(mine), 1, mmp.describe(p))

    def test_list_csv(self):
        p = self.run_ok(["--list", "--format", "csv"])
        self.assertTrue(p.stdout.endswith("\r\n"), mmp.describe(p))
        rows = mmp.parse_csv(p.stdout)
        self.assertEqual(rows[0], mmp.LIST_HEADER, mmp.describe(p))
        threads = [dict(zip(mmp.LIST_HEADER, r)) for r in rows[1:]]
        for t in threads:
            self.assertEqual(len(t), len(mmp.LIST_HEADER), t)
            self.assertRegex(t["thread_id"], r"^\d+$", t)
            self.assertRegex(t["current_bytes"], r"^-?\d+$", t)
        mine = [t for t in threads if t["connection_id"] == str(self.w.connection_id)]
        self.assertEqual(len(mine), 1, mmp.describe(p))
        self.assertEqual(mine[0]["user"], "loader")
        self.assertEqual(mine[0]["thread_id"], str(self.w.thread_id))
        self.assertEqual(mine[0]["type"], "FOREGROUND")
        cur = [int(t["current_bytes"]) for t in threads]
        self.assertEqual(cur, sorted(cur, reverse=True), "not largest first")
        self.assertGreater(int(mine[0]["current_bytes"]), 100000)
        # Background threads are listed too.
        self.assertIn("BACKGROUND", {t["type"] for t in threads})

    def test_list_json(self):
        p = self.run_ok(["--list", "--format", "json"])
        # JSON Lines: one object per thread, each on a line of its own and
        # ended by "\n"; no array, no blank line, nothing else.
        self.assertTrue(p.stdout.endswith("\n"), mmp.describe(p))
        threads = []
        for line in p.stdout[:-1].split("\n"):
            try:
                t = json.loads(line)
            except ValueError as e:
                self.fail("not a JSON object: %r (%s)%s" %
                          (line, e, mmp.describe(p)))
            self.assertIs(type(t), dict, "%r%s" % (line, mmp.describe(p)))
            threads.append(t)
        self.assertGreater(len(threads), 1, mmp.describe(p))
        for t in threads:
            self.assertEqual(sorted(t), sorted(mmp.LIST_HEADER), t)
            self.assertIs(type(t["thread_id"]), int, t)
            self.assertIs(type(t["current_bytes"]), int, t)
        mine = [t for t in threads if t["connection_id"] == self.w.connection_id]
        self.assertEqual(len(mine), 1, mmp.describe(p))
        self.assertEqual(mine[0]["user"], "loader")
        self.assertEqual(mine[0]["thread_id"], self.w.thread_id)
        cur = [t["current_bytes"] for t in threads]
        self.assertEqual(cur, sorted(cur, reverse=True), "not largest first")
        # Background threads have no connection: null, not 0 or "".
        bg = [t for t in threads if t["type"] == "BACKGROUND"]
        self.assertTrue(bg)
        self.assertTrue(all(t["connection_id"] is None for t in bg), bg[:3])


class ListStatements(mmp.TestCase):
    """--list costs the server two statements: what it learns at connect
    (one statement) and the list."""

    def test_list_sends_two_statements(self):
        with mmp.general_log("list") as lines:
            p = self.run_ok(["--list"])
        # The session that sent the list: the Query lines of its id.
        ours = {m.group(1) for m in
                (re.search(r"\s(\d+) Query\s+SELECT t\.THREAD_ID", l)
                 for l in lines) if m}
        self.assertEqual(len(ours), 1, mmp.describe(p))
        conn = ours.pop()
        sent = [l for l in lines
                if re.search(r"\s%s Query\s" % conn, l)]
        self.assertEqual(len(sent), 2, "\n".join(sent))
