#!/bin/bash
# cgroup v2 for real: the black box's OOM-kill tests
# (tests/integration/uml_cgroup2.py) run in a User-mode Linux guest, whose
# kernel (Debian's user-mode-linux, Linux 6.1) mounts cgroup v2 only, where
# the host runs cgroup v1. No KVM is needed: the guest is a process of the
# host, its root the host's / read-only through hostfs, so the guest runs
# this tree's binary and the host's MariaDB 10.11. In the guest the
# sandbox server (tests/sandbox.sh) runs in
# /sys/fs/cgroup/system.slice/mariadb.service, as systemd runs it, and the
# kernel's OOM killer kills it there.
#
#   tests/uml.sh     boot the guest, run the tests in it, power it off
#
# The last line is main.py's: "integration: N passed, N failed, N skipped",
# which tests/run.sh adds up; the exit status is 0 unless a test failed.
# Without /usr/bin/linux.uml (apt-get install user-mode-linux) or root
# the tests are skipped, saying why; with MMP_UML_REQUIRED=1 (CI) that is a
# failure. A guest that does not boot, or does not say how its tests went,
# is a failure. The guest is killed after MMP_UML_TIMEOUT seconds
# (default 240). $MMP_BIN is the binary (default ./mysqlmemprof);
# MMP_UML_KEEP=DIR keeps the guest's results there: the console, the
# tests' output, each test's record (MMP_RECORD_KEEP of test_record.py).
# MMP_UML_TESTS=NAME runs another test there (a name for main.py, with no
# space), MMP_UML_KERNEL=PATH another kernel. The wall time is about a
# minute on two idle cores, two on busy ones.
#
# The guest's side: the kernel starts this script as its init (pid 1) with
# MMP_UML_GUEST=1 and the rest of the words KEY=value of its command line in
# the environment. The host's folder MMP_UML_OUT is mounted at the same
# path (hostfs, writable) to carry the results out; /tmp and /run are a
# tmpfs, the root being read-only. InnoDB reserves its buffer pool's
# largest size up front, more than the guest's address space holds unless
# --innodb-buffer-pool-size-max says less.
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
repo=$(dirname "$here")
uml=${MMP_UML_KERNEL:-/usr/bin/linux.uml}
# The folder of the server's memory cgroup in the guest, as systemd names it.
service=/sys/fs/cgroup/system.slice/mariadb.service
innodb=--innodb-buffer-pool-size-max=128M

# --- The guest's side (pid 1 of the guest). ---

# The guest's file systems: what the host's read-only root does not give,
# and /dev/fd for bash's <(...) (the kernel's devtmpfs has no links).
guest_mounts() {
	mount -t proc proc /proc &&
		mount -t sysfs sysfs /sys &&
		mount -t cgroup2 cgroup2 /sys/fs/cgroup &&
		mount -t hostfs none "$MMP_UML_OUT" -o "$MMP_UML_OUT" &&
		mount -t tmpfs tmpfs /tmp &&
		mount -t tmpfs tmpfs /run &&
		guest_remounts &&
		ln -s /proc/self/fd /dev/fd &&
		ip link set lo up
}

# A folder of the host's under /tmp or /run (a clone there, as CI's may
# be, or the binary's) is hidden by the guest's tmpfs: it is mounted again
# at its path, from the host's, read-only.
guest_remounts() {
	local d
	for d in "$repo" "$(dirname "$MMP_BIN")"; do
		case $d in /tmp | /tmp/* | /run | /run/*) ;; *) continue ;; esac
		[ -d "$d" ] && continue
		mkdir -p "$d" && mount -r -t hostfs none "$d" -o "$d" || return 1
	done
}

# system.slice/mariadb.service with the memory controller handed down to it.
guest_cgroups() {
	echo +memory >/sys/fs/cgroup/cgroup.subtree_control &&
		mkdir -p "$service" &&
		echo +memory >"$(dirname "$service")/cgroup.subtree_control"
}

# The sandbox made and started from inside the service's cgroup, so that
# the server is charged there from its first page on. Its program and
# libraries are run from a copy on the tmpfs, which the root cgroup wrote:
# reclaim at the service's limit then finds nothing of the server's own to
# evict but a few pages, and the kernel kills it at the limit. From the
# host's files (hostfs), reclaim evicted the server's code and read it
# back again for a minute or more before the kill (no swap, no PSI).
guest_sandbox() {
	local server copy=/tmp/mmp-uml-program libs
	server=$(command -v mariadbd) || return 1
	mapfile -t libs < <(ldd "$server" | awk '$3 ~ /^\// { print $3 }')
	mkdir -p "$copy/lib" &&
		cp "$server" "$copy/" &&
		cp "${libs[@]}" "$copy/lib/" ||
		return 1
	export PATH=$copy:$PATH LD_LIBRARY_PATH=$copy/lib
	export MMP_SANDBOX_DIR=/tmp/mmp-uml MMP_SERVER=mariadb
	export MMP_SANDBOX_EXTRA_ARGS=$innodb MMP_SANDBOX_INIT_ARGS=$innodb
	(echo "$BASHPID" >"$service/cgroup.procs" &&
		exec "$here/sandbox.sh" start) || return 1
	eval "$("$here/sandbox.sh" env)" || return 1
	export MMP_SOCKET MMP_PORT MMP_HOST MMP_DIR MMP_SERVER MMP_SERVER_VERSION MMP_ROOT
}

guest() {
	local out=$MMP_UML_OUT rc
	export PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin
	export HOME=/tmp LC_ALL=C PYTHONDONTWRITEBYTECODE=1
	# Whatever happens, the guest ends; pid 1 must not exit (a panic).
	trap 'sync; echo o >/proc/sysrq-trigger; sleep 60' EXIT
	if ! guest_mounts; then
		echo "uml: the guest's mounts failed" >&2
		return
	fi
	: >"$out/booted"
	if ! guest_cgroups || ! guest_sandbox; then
		echo "uml: the server did not start in $service" >&2
		echo "integration: 0 passed, 1 failed, 0 skipped" >"$out/summary"
		return
	fi
	cd "$repo" || return
	MMP_RECORD_KEEP=$out/record python3 tests/integration/main.py \
		"${MMP_UML_TESTS:-uml_cgroup2}" 2>&1 | tee "$out/tests.log"
	rc=${PIPESTATUS[0]}
	grep -E '^integration: ' "$out/tests.log" | tail -n 1 >"$out/summary"
	echo "$rc" >"$out/rc"
	"$here/sandbox.sh" stop
}

if [ "${MMP_UML_GUEST:-}" = 1 ]; then
	guest
	exit 0
fi

# --- The host's side. ---

# Skipped, saying why; a failure instead when MMP_UML_REQUIRED=1.
not_here() {
	if [ "${MMP_UML_REQUIRED:-}" = 1 ]; then
		echo "uml: $* (MMP_UML_REQUIRED=1)" >&2
		echo "integration: 0 passed, 1 failed, 0 skipped"
		exit 1
	fi
	echo "skipped on uml: tests/uml.sh: $*"
	echo "integration: 0 passed, 0 failed, 1 skipped"
	exit 0
}

failed() {
	echo "uml: $*" >&2
	echo "integration: 0 passed, 1 failed, 0 skipped"
	exit 1
}

[ -x "$uml" ] || not_here "$uml is missing (apt-get install user-mode-linux)"
[ "$(id -u)" -eq 0 ] || not_here "needs root: the guest reads and runs the host's files as this user may (run as root)"
bin=${MMP_BIN:-$repo/mysqlmemprof}
[[ $bin == /* ]] || bin=$PWD/$bin
[ -x "$bin" ] || failed "$bin is missing (make)"

# Not under /tmp: the guest's /tmp is a tmpfs of its own.
out=$(mktemp -d /var/tmp/mmp-uml.XXXXXX) || exit 1
guest=
cleanup() {
	# Interrupted: timeout signals the guest's processes, then kills them.
	[ -z "$guest" ] || { kill -TERM "$guest" 2>/dev/null; wait "$guest"; }
	if [ -n "${MMP_UML_KEEP:-}" ]; then
		mkdir -p "$MMP_UML_KEEP" && cp -a "$out/." "$MMP_UML_KEEP/"
	fi
	rm -rf --one-file-system "$out"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

limit=${MMP_UML_TIMEOUT:-240}
echo "== uml: booting $uml (cgroup v2; killed after ${limit}s)"
SECONDS=0
# timeout signals the guest's whole process group: the kernel's process
# and those it runs the guest's processes in. The guest's console is
# fd 1; `quiet` keeps the kernel's boot out of it, not its OOM lines. In
# the background, so that a signal to this script is handled at once.
: >"$out/console.log"
timeout -k 10 "$limit" "$uml" mem=1024M root=/dev/root rootfstype=hostfs \
	rootflags=/ ro quiet init="$here/uml.sh" con=null con0=null,fd:1 \
	MMP_UML_GUEST=1 MMP_UML_OUT="$out" MMP_BIN="$bin" \
	${MMP_UML_TESTS:+MMP_UML_TESTS="$MMP_UML_TESTS"} \
	</dev/null >"$out/console.log" 2>&1 &
guest=$!
tail -n +1 -s 0.2 -f --pid="$guest" "$out/console.log" &
rc=0
wait "$guest" || rc=$?
guest=
wait
echo "== uml: the guest ran ${SECONDS}s"
if [ "$rc" -eq 124 ] || [ "$rc" -eq 137 ]; then
	failed "the guest was killed after ${limit}s (MMP_UML_TIMEOUT)"
fi
[ -e "$out/booted" ] || failed "the guest did not boot ($uml exit $rc)"
summary=$(cat "$out/summary" 2>/dev/null)
[[ $summary =~ ^integration:\ [0-9]+\ passed,\ [0-9]+\ failed,\ [0-9]+\ skipped$ ]] ||
	failed "the guest's tests did not say how they went"
echo "$summary"
[ "$(cat "$out/rc" 2>/dev/null)" = 0 ]
