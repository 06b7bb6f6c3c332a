#!/bin/bash
# `make check`: the unit test binaries ($BUILD/test_*, cmocka) and
# bench/docfigures.py (the documents' figures of bench/RESULTS.md), then the
# integration tests (tests/integration, Python) against the real binary and
# a throwaway server of each kind in $MMP_SERVERS (default "mariadb mysql":
# MariaDB 10.11 and Oracle MySQL 9.7; mariadb11 is Debian 13's MariaDB
# 11.8, see tests/sandbox.sh), one part per server. The part "uml" is
# tests/uml.sh: the black box's OOM-kill tests on cgroup v2, in a
# User-mode Linux guest, with MariaDB 10.11 in it (CI runs it as a step of
# its own: make check stays within its 15 minutes). The last
# line is "N passed, N failed, N skipped" over all parts; the exit status
# is non-zero when anything failed.
#
#   BUILD=build tests/run.sh            everything
#   tests/run.sh --unit | --integration one half
#   MMP_SERVERS=mysql tests/run.sh --integration
#
# Each server lives in $MMP_SANDBOX_DIR-KIND, by default a fresh folder per
# run that is removed at the end; a server already running there is used
# and left running.
set -uo pipefail
cd "$(dirname "$0")/.."

BUILD=${BUILD:-build}
export MMP_BIN=${MMP_BIN:-$PWD/mysqlmemprof}
do_unit=1 do_integration=1
case "${1:-}" in
--unit) do_integration= ;;
--integration) do_unit= ;;
"") ;;
*) echo "usage: $0 [--unit | --integration]" >&2; exit 2 ;;
esac

passed=0
failed=0
skipped=0
failures=()
servers=${MMP_SERVERS:-mariadb mysql}

# Adds up the "[  PASSED  ] N test(s)." and "[  FAILED  ] N test(s)" lines
# of a cmocka binary; one that crashes or says nothing counts as one.
run_unit() {
	local bin=$1 out rc p f
	out=$(timeout 120 "$bin" 2>&1)
	rc=$?
	printf '%s\n' "$out"
	read -r p f < <(printf '%s\n' "$out" | awk '
		/^\[  PASSED  \] [0-9]+ test/ { p += $4 }
		/^\[  FAILED  \] [0-9]+ test/ { f += $4 }
		END { print p + 0, f + 0 }')
	if [ "$rc" -ne 0 ] && [ "$f" -eq 0 ]; then
		f=1 # crashed, timed out or failed outside a test
	fi
	if [ "$rc" -eq 0 ] && [ "$p" -eq 0 ] && [ "$f" -eq 0 ]; then
		p=1 # no cmocka summary: the binary is one test
	fi
	passed=$((passed + p))
	failed=$((failed + f))
	[ "$f" -eq 0 ] || failures+=("$(basename "$bin") (exit $rc)")
}

if [ -n "$do_unit" ]; then
	units=0
	for bin in "$BUILD"/test_*; do
		[ -f "$bin" ] && [ -x "$bin" ] || continue
		units=$((units + 1))
		echo "== $bin"
		run_unit "$bin"
	done
	if [ "$units" -eq 0 ]; then
		echo "run: no unit test binaries in $BUILD (make unit)" >&2
		failed=$((failed + 1))
		failures+=("no unit tests in $BUILD")
	fi
	# The figures the guide and the manual quote from bench/RESULTS.md
	# (bench/docfigures.py): one test.
	echo "== bench/docfigures.py"
	if [ -n "${MMP_NO_DOCFIGURES:-}" ]; then
		# tests/platform.sh's roots have no python3; make check on
		# the host checks the same documents.
		echo "skipped: $MMP_NO_DOCFIGURES"
		skipped=$((skipped + 1))
	elif python3 bench/docfigures.py -q; then
		passed=$((passed + 1))
	else
		failed=$((failed + 1))
		failures+=("bench/docfigures.py")
	fi
fi

started=
child=
stop_sandbox() {
	if [ -n "$child" ]; then
		# The tests and every program they started.
		kill -TERM -- "-$child" 2>/dev/null
		wait "$child" 2>/dev/null
		child=
	fi
	if [ -n "$started" ]; then
		tests/sandbox.sh stop || true
		started=
	fi
}
trap stop_sandbox EXIT
trap 'echo "run: interrupted" >&2; exit 130' INT TERM

# Adds up the last line of a part's log ($1), "integration: N passed, N
# failed, N skipped", for the part $2 that ended with status $3.
count_part() {
	local log=$1 kind=$2 rc=$3 line p f sk
	line=$(grep -E '^integration: [0-9]+ passed, [0-9]+ failed, [0-9]+ skipped$' "$log" | tail -n 1)
	if [ -n "$line" ]; then
		read -r _ p _ f _ sk _ <<<"$line"
		passed=$((passed + p))
		failed=$((failed + f))
		skipped=$((skipped + sk))
		[ "$f" -eq 0 ] || failures+=("$kind: $f integration test(s)")
	fi
	if [ -z "$line" ] || { [ "$rc" -ne 0 ] && [ "$f" -eq 0 ]; }; then
		failed=$((failed + 1))
		failures+=("$kind: integration runner (exit $rc)")
	fi
	echo "== $kind ${MMP_SERVER_VERSION:-}: ${line#integration: }"
}

# Runs a part ($@) with its output in $log and its status in $rc, both the
# caller's. In the background so that a signal to this script is handled
# at once, and in a process group of its own (its id is $child) so that
# stopping it stops what it started. tail shows the log as it grows and
# ends after the part does.
run_part() {
	local follower
	PYTHONUNBUFFERED=1 setsid "$@" >"$log" 2>&1 &
	child=$!
	tail -n +1 -s 0.2 -f --pid="$child" "$log" &
	follower=$!
	rc=0
	wait "$child" || rc=$?
	child=
	wait "$follower"
}

# tests/uml.sh, which boots its guest and starts its server there (bounded
# by its own timeout).
run_uml() {
	local log rc
	log=$(mktemp)
	run_part tests/uml.sh
	MMP_SERVER_VERSION="(cgroup v2, User-mode Linux)" count_part "$log" uml "$rc"
	rm -f "$log"
}

# The integration suite against one server kind ($1); adds to the totals.
run_integration() {
	local kind=$1 log rc
	export MMP_SERVER=$kind
	export MMP_SANDBOX_DIR=$sandbox_base-$kind
	if ! tests/sandbox.sh status >/dev/null 2>&1; then
		started=1
	fi
	if ! tests/sandbox.sh start; then
		failed=$((failed + 1))
		failures+=("$kind: sandbox server did not start")
		stop_sandbox
		return
	fi
	eval "$(tests/sandbox.sh env)"
	export MMP_SOCKET MMP_PORT MMP_HOST MMP_DIR MMP_SERVER MMP_SERVER_VERSION MMP_ROOT
	echo "== integration tests (tests/integration) against $MMP_BIN on $kind $MMP_SERVER_VERSION"
	log=$(mktemp)
	run_part timeout 600 python3 tests/integration/main.py
	count_part "$log" "$kind" "$rc"
	rm -f "$log"
	stop_sandbox
}

if [ -n "$do_integration" ]; then
	sandbox_base=${MMP_SANDBOX_DIR:-}
	if [ -z "$sandbox_base" ]; then
		sandbox_base=$(mktemp -d /tmp/mmp-check.XXXXXX)
		rmdir "$sandbox_base"
	fi
	if [ ! -x "$MMP_BIN" ]; then
		echo "run: $MMP_BIN is missing (make)" >&2
		failed=$((failed + 1))
		failures+=("no binary")
	elif ! tests/root.sh sid ensure server; then
		# Before the first part, whichever it is: every part's
		# test_login_path runs the sid root's mysql_config_editor, and
		# a fresh machine has no root until something makes it.
		failed=$((failed + 1))
		failures+=("no sid root (tests/root.sh sid ensure server)")
	else
		for kind in $servers; do
			if [ "$kind" = uml ]; then
				run_uml
			else
				run_integration "$kind"
			fi
		done
	fi
fi

if [ "${#failures[@]}" -gt 0 ]; then
	echo "== failed: ${failures[*]}"
fi
echo "$passed passed, $failed failed, $skipped skipped"
[ "$failed" -eq 0 ]
