#!/bin/bash
# The builds beside the usual one (Debian 12's MariaDB Connector/C 3.3),
# each in a root of tests/root.sh, with the server that root holds:
#
#   oracle  Oracle's libmysqlclient 9.7 (Debian unstable, the sid root),
#           tested against Oracle MySQL 9.7 (MMP_SERVER=mysql)
#   trixie  MariaDB Connector/C 3.4 (Debian 13's libmariadb-dev, the
#           trixie root), tested against MariaDB 11.8 (MMP_SERVER=mariadb11)
#
# A copy of the working tree is built in the root with -Werror and its
# unit tests run there; then the binary, run from the host through the
# root's dynamic loader, goes through the integration tests against a
# sandbox server of its own. The last line is the runner's "integration:
# N passed, N failed, N skipped"; the exit status is non-zero when the
# build or any test failed.
#
#   tests/platform.sh oracle|trixie [TEST...]   TEST as for
#                       tests/integration/main.py; by default, the
#                       platform's list below
#
# The copy lives in $ROOT/tmp/mmp-NAME-build.TAG (TAG: of the checkout's
# path), made afresh each run (a copy
# keeps the mtimes of the tree, which cannot tell make what changed since
# the last one); build/NAME/mysqlmemprof links to its binary, which runs
# on the host, for MMP_BIN.
set -uo pipefail
cd "$(dirname "$0")/.."

die() {
	echo "platform: $*" >&2
	exit 1
}

name=${1:-}
shift || true
tests=("$@")
case "$name" in
oracle)
	suite=sid server=mysql client=oracle
	# Oracle's library sends every statement through another path (the
	# text protocol, parameters escaped): every test of what sends one.
	# The whole suite would take CI past its time; what is left out is
	# drawing (live, pictures, profiles, the exporter's pages) and the
	# options' checks, which never reach the library.
	default=(test_signals test_prompt test_tls test_faults test_conn_hints
		test_login_path test_sampling test_grains test_statements
		test_finished test_rank test_spikes test_hunt test_wait
		test_resident test_lifecycle test_list test_errors test_conns
		test_record test_explain)
	;;
trixie)
	suite=trixie server=mariadb11 client=connector-c
	default=() # the whole suite
	;;
*)
	echo "usage: $0 oracle|trixie [TEST...]" >&2
	exit 2
	;;
esac
[ ${#tests[@]} -gt 0 ] || tests=("${default[@]}")

tests/root.sh "$suite" ensure server build || die "no $suite root to build in"
root=$(tests/root.sh "$suite" path)
# One copy and one sandbox per checkout: two checkouts may run this at
# once, and one's copy must not be removed under the other's tests.
tag=$(printf '%s' "$PWD" | md5sum | cut -c1-8)
copy=/tmp/mmp-$name-build.$tag # as the root sees it
sbx=${MMP_PLATFORM_SANDBOX_DIR:-/tmp/mmp-$name-sbx.$tag}
inroot() {
	tests/root.sh "$suite" run sh -c "$1"
}

# The tracked files as they are in the working tree, and the new ones not
# yet added.
echo "== copying the tree into $root$copy"
rm -rf "$root$copy" && mkdir -p "$root$copy" || die "cannot make $root$copy"
git ls-files -z --cached --others --exclude-standard |
	rsync -a --from0 --files-from=- --ignore-missing-args ./ "$root$copy/" ||
	die "cannot copy the tree"

echo "== make WERROR=1 all unit (in the $suite root)"
inroot "cd $copy && make -j2 WERROR=1 all unit" ||
	die "the build in the $suite root failed"
# tests/run.sh reads process substitutions, /dev/fd, which needs /proc;
# the root has none mounted. It gets one in a mount namespace of this
# command's own, gone with it.
echo "== unit tests"
unshare --mount --propagation private sh -c \
	'mount -t proc proc "$1/proc" && shift && exec "$@"' sh "$root" \
	tests/root.sh "$suite" run sh -c "cd $copy && BUILD=build MMP_NO_DOCFIGURES='the documents, not the platform: make check runs it on the host' tests/run.sh --unit"
unit_rc=$?

# The binary links the root's glibc: relinked to run on the host through
# the root's dynamic loader and libraries (PT_INTERP and DT_RPATH, which
# dlopen() and the libraries' own needs follow too). Not a script that
# runs the loader: then /proc/PID/exe is the loader, and the tests that
# find the binary's process by it (test_prompt under strace) cannot.
loader=$root/usr/lib64/ld-linux-x86-64.so.2
[ -e "$loader" ] || loader=$root/lib64/ld-linux-x86-64.so.2
libs=$root/usr/lib/x86_64-linux-gnu:$root/lib/x86_64-linux-gnu
[ -e "$loader" ] || die "no dynamic loader in $root"
echo "== relinking build/mysqlmemprof to run on the host"
inroot "cd $copy && rm -f build/mysqlmemprof &&
	make WERROR=1 LDFLAGS='-Wl,--dynamic-linker=$loader -Wl,--disable-new-dtags -Wl,-rpath,$libs' build/mysqlmemprof" ||
	die "relinking failed"
mkdir -p "build/$name" && ln -sfn "$root$copy/build/mysqlmemprof" "build/$name/mysqlmemprof" ||
	die "cannot make build/$name/mysqlmemprof"
"build/$name/mysqlmemprof" --version >/dev/null ||
	die "build/$name/mysqlmemprof does not run on the host"

stop_sandbox() {
	MMP_SERVER=$server MMP_SANDBOX_DIR=$sbx tests/sandbox.sh stop >/dev/null ||
		echo "platform: could not stop the sandbox in $sbx" >&2
}
trap stop_sandbox EXIT
echo "== $server sandbox in $sbx"
MMP_SERVER=$server MMP_SANDBOX_DIR=$sbx tests/sandbox.sh start ||
	die "the sandbox did not start"
env=$(MMP_SERVER=$server MMP_SANDBOX_DIR=$sbx tests/sandbox.sh env) ||
	die "no sandbox environment"
eval "$env"
export MMP_SOCKET MMP_PORT MMP_HOST MMP_DIR MMP_SERVER MMP_SERVER_VERSION MMP_ROOT
export MMP_BIN=$PWD/build/$name/mysqlmemprof MMP_CLIENT=$client MMP_PLATFORM=$name
# test_login_path runs the sid root's mysql_config_editor on every platform.
tests/root.sh sid ensure server || die "no sid root for test_login_path"

echo "== integration tests with $MMP_BIN ($(ldd "$MMP_BIN" | awk '/libm(aria|ysql)/ { print $1 }')) against $MMP_SERVER $MMP_SERVER_VERSION"
out=$(mktemp) || die "no temporary file"
# All but the last line now: the runner's line comes at the very end.
PYTHONUNBUFFERED=1 timeout 900 python3 tests/integration/main.py "${tests[@]}" | tee "$out" | sed '$d'
rc=${PIPESTATUS[0]}
summary=$(tail -n 1 "$out")
rm -f "$out"
stop_sandbox
trap - EXIT
[ "$unit_rc" -eq 0 ] || echo "platform: the unit tests failed (see above)" >&2
# The runner's line last, for whoever adds it up.
echo "$summary"
[ "$rc" -eq 0 ] && [ "$unit_rc" -eq 0 ]
