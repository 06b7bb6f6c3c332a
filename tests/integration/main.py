"""Runs the integration tests; the last line of output is
"integration: N passed, N failed, N skipped" for tests/run.sh to add up.

    python3 tests/integration/main.py [-k PATTERN] [test names...]

Needs MMP_SOCKET, MMP_PORT (eval "$(tests/sandbox.sh env)") and the binary
(MMP_BIN, default ./mysqlmemprof)."""

import os
import sys
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

import mmp  # noqa: E402


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
    result = unittest.TextTestRunner(verbosity=2, stream=sys.stdout).run(suite)
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
    print("integration: %d passed, %d failed, %d skipped" %
          (passed, failed, len(result.skipped)))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
