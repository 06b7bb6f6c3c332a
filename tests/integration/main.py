"""Runs the integration tests; the last line of output is
"integration: N passed, N failed, N skipped" for tests/run.sh to add up.

    python3 tests/integration/main.py [-k PATTERN] [test names...]

Needs MMP_SOCKET, MMP_PORT (eval "$(tests/sandbox.sh env)") and the binary
(MMP_BIN, default ./mysqlmemprof)."""

import os
import sys
import time
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

import mmp  # noqa: E402


class TimedResult(unittest.TextTestResult):
    """Keeps each test's time and each file's (from its first test's start
    to its last test's end, so a setUpClass between its tests counts),
    for the slowest to be named: make check has a time to keep."""

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.times = {}
        self.files = {}

    def startTest(self, test):
        self._started = time.monotonic()
        super().startTest(test)

    def stopTest(self, test):
        super().stopTest(test)
        end = time.monotonic()
        self.times[test.id()] = end - self._started
        f = test.id().split(".")[0]
        first, _ = self.files.get(f, (self._started, end))
        self.files[f] = (first, end)


def print_slowest(result, n=8):
    """The n slowest files and tests, before the runner's last line."""
    files = sorted(((e - b, f) for f, (b, e) in result.files.items()),
                   reverse=True)[:n]
    tests = sorted(((t, i) for i, t in result.times.items()),
                   reverse=True)[:n]
    print("slowest files: " + ", ".join("%s %.0f s" % (f, t)
                                        for t, f in files))
    print("slowest tests: " + ", ".join("%s %.1f s" % (i, t)
                                        for t, i in tests))


def main():
    if not mmp.SOCKET or not mmp.PORT:
        print("integration: MMP_SOCKET and MMP_PORT are not set; run "
              'eval "$(tests/sandbox.sh env)"', file=sys.stderr)
        return 2
    if not os.access(mmp.BIN, os.X_OK):
        print("integration: %s is missing; run make" % mmp.BIN, file=sys.stderr)
        return 2
    args = sys.argv[1:]
    loader = unittest.TestLoader()
    if "-k" in args:
        i = args.index("-k")
        loader.testNamePatterns = ["*%s*" % args[i + 1]]
        del args[i:i + 2]
    if args:
        suite = loader.loadTestsFromNames(args)
    else:
        suite = loader.discover(HERE, pattern="test_*.py", top_level_dir=HERE)
    result = unittest.TextTestRunner(verbosity=2, stream=sys.stdout,
                                     resultclass=TimedResult).run(suite)
    sys.stdout.flush()
    # A test with failing subtests is one failed test, not several.
    failed_ids = set()
    for test, _ in result.failures + result.errors:
        failed_ids.add(getattr(test, "test_case", test).id())
    for test in result.unexpectedSuccesses:
        failed_ids.add(test.id())
    failed = len(failed_ids)
    # A failed setUpClass or setUpModule is a failure of no test that ran
    # (unittest reports it through a stand-in, and runs none of its tests).
    ran_failed = {i for i in failed_ids if not i.startswith("setUp")}
    passed = result.testsRun - len(ran_failed) - len(result.skipped)
    for test, reason in result.skipped:
        print("skipped on %s: %s: %s" % (mmp.SERVER, test.id(), reason))
    print_slowest(result)
    print("integration: %d passed, %d failed, %d skipped" %
          (passed, failed, len(result.skipped)))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
