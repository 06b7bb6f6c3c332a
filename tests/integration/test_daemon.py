"""Start-up conditions a daemon meets: standard output or error closed,
an --output that cannot be written, the device names people use."""

import os
import subprocess
import time

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

    def test_stdout_closed_no_lost_connection(self):
        # The samples go nowhere, as the person asked, and the connection
        # is never disturbed: one note, no reconnect.
        p = run_closed(["--global", "--count", "3", "--frequency", "100",
                        "--format", "json"], 1)
        self.assertEqual(p.returncode, 0, mmp.describe(p))
        self.assertNotIn("lost the connection", p.stderr, mmp.describe(p))
        self.assertNotIn("out of order", p.stderr, mmp.describe(p))
        self.assertEqual(len(p.stderr.splitlines()), 1, mmp.describe(p))
