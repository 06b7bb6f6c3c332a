#!/bin/bash
# The build against Oracle's libmysqlclient 9.7 (Debian unstable), beside
# the usual one against MariaDB Connector/C: in the root of
# tests/sidroot.sh, a copy of the working tree is built with -Werror and
# its unit tests run; then the binary, run from the host through the
# root's dynamic loader, goes through the integration tests that exercise
# the connection (connecting, TLS, reconnecting, the prompt, signals while
# blocked) against a MySQL 9.7 sandbox of its own. The last line is the
# runner's "integration: N passed, N failed, N skipped"; the exit status is
# non-zero when the build or any test failed.
#
#   tests/oracle.sh [TEST...]     TEST as for tests/integration/main.py;
#                                 by default the subset below
#
# The copy lives in $ROOT/tmp/mmp-oracle-build, made afresh each run (a
# copy keeps the mtimes of the tree, which cannot tell make what changed
# since the last one); build/oracle/mysqlmemprof links to its binary,
# which runs on the host, for MMP_BIN.
set -uo pipefail
cd "$(dirname "$0")/.."

tests=("$@")
[ ${#tests[@]} -gt 0 ] || tests=(test_signals test_prompt test_tls
	test_faults.ServerGoesAway test_conn_hints)

die() {
	echo "oracle: $*" >&2
	exit 1
}

tests/sidroot.sh ensure server build || die "no root to build in"
root=$(tests/sidroot.sh path)
copy=/tmp/mmp-oracle-build # as the root sees it
sbx=${MMP_ORACLE_SANDBOX_DIR:-/tmp/mmp-oracle-sbx}

# The tracked files as they are in the working tree, and the new ones not
# yet added.
echo "== copying the tree into $root$copy"
rm -rf "$root$copy" && mkdir -p "$root$copy" || die "cannot make $root$copy"
git ls-files -z --cached --others --exclude-standard |
	rsync -a --from0 --files-from=- --ignore-missing-args ./ "$root$copy/" ||
	die "cannot copy the tree"

echo "== make WERROR=1 all unit (Oracle's libmysqlclient)"
tests/sidroot.sh run sh -c "cd $copy && make -j2 WERROR=1 all unit" ||
	die "the build against Oracle's library failed"
# tests/run.sh reads process substitutions, /dev/fd, which needs /proc;
# the root has none mounted. It gets one in a mount namespace of this
# command's own, gone with it.
echo "== unit tests"
unshare --mount --propagation private sh -c \
	'mount -t proc proc "$1/proc" && shift && exec "$@"' sh "$root" \
	tests/sidroot.sh run sh -c "cd $copy && BUILD=build tests/run.sh --unit"
unit_rc=$?

# The binary links the root's glibc: relinked to run on the host through
# the root's dynamic loader and libraries (PT_INTERP and DT_RPATH, which
# dlopen() and the libraries' own needs follow too). Not a script that
# runs the loader: then /proc/PID/exe is the loader, and the tests that
# find the binary's process by it (test_prompt under strace) cannot.
loader=$root/usr/lib64/ld-linux-x86-64.so.2
libs=$root/usr/lib/x86_64-linux-gnu:$root/lib/x86_64-linux-gnu
[ -e "$loader" ] || die "no dynamic loader at $loader"
echo "== relinking build/mysqlmemprof to run on the host"
tests/sidroot.sh run sh -c "cd $copy && rm -f build/mysqlmemprof &&
	make WERROR=1 LDFLAGS='-Wl,--dynamic-linker=$loader -Wl,--disable-new-dtags -Wl,-rpath,$libs' build/mysqlmemprof" ||
	die "relinking failed"
mkdir -p build/oracle && ln -sfn "$root$copy/build/mysqlmemprof" build/oracle/mysqlmemprof ||
	die "cannot make build/oracle/mysqlmemprof"
build/oracle/mysqlmemprof --version >/dev/null ||
	die "build/oracle/mysqlmemprof does not run on the host"

stop_sandbox() {
	MMP_SERVER=mysql MMP_SANDBOX_DIR=$sbx tests/sandbox.sh stop >/dev/null ||
		echo "oracle: could not stop the sandbox in $sbx" >&2
}
trap stop_sandbox EXIT
echo "== MySQL 9.7 sandbox in $sbx"
MMP_SERVER=mysql MMP_SANDBOX_DIR=$sbx tests/sandbox.sh start ||
	die "the sandbox did not start"
env=$(MMP_SERVER=mysql MMP_SANDBOX_DIR=$sbx tests/sandbox.sh env) ||
	die "no sandbox environment"
eval "$env"
export MMP_SOCKET MMP_PORT MMP_HOST MMP_DIR MMP_SERVER MMP_SERVER_VERSION MMP_ROOT
export MMP_BIN=$PWD/build/oracle/mysqlmemprof MMP_CLIENT=oracle

echo "== integration tests with $MMP_BIN against MySQL $MMP_SERVER_VERSION"
out=$(mktemp) || die "no temporary file"
# All but the last line now: the runner's line comes at the very end.
python3 tests/integration/main.py "${tests[@]}" | tee "$out" | sed '$d'
rc=${PIPESTATUS[0]}
summary=$(tail -n 1 "$out")
rm -f "$out"
stop_sandbox
trap - EXIT
[ "$unit_rc" -eq 0 ] || echo "oracle: the unit tests failed (see above)" >&2
# The runner's line last, for whoever adds it up.
echo "$summary"
[ "$rc" -eq 0 ] && [ "$unit_rc" -eq 0 ]
