#!/bin/bash
# The Debian package, as a DBA meets it: `make deb`, lintian on the .deb,
# then `apt-get install ./mysqlmemprof_*.deb` into a fresh Debian 12
# (bookworm) and a fresh Debian 13 (trixie) root, where
#   - `mysqlmemprof --version` says the changelog's version, `man
#     mysqlmemprof` shows the page;
#   - the system account mysqlmemprof, its state folder (0700) and the
#     credentials files (0640, root:mysqlmemprof) are there;
#   - the recorder unit's own command line, run as that account against a
#     server of that Debian release, writes a record;
#   - `systemd-analyze verify` passes on the installed units;
#   - `apt-get remove` keeps the conffiles, the record and the account, and
#     `apt-get purge` removes the conffiles and the record (Debian keeps
#     system accounts).
#
#   tests/package.sh [SUITE...]     default: bookworm trixie
#
# Each root is the cached one of tests/root.sh (with its `package` set)
# under an overlay, so that what the package does to it is thrown away and
# the next run starts fresh. The server: the host's MariaDB 10.11 for
# bookworm (this host is Debian 12), MariaDB 11.8 of the trixie root for
# trixie, each started by tests/sandbox.sh and reached over loopback TCP.
# Needs root (chroot, mount). The last line is "package: N passed, N
# failed"; the exit status is non-zero when a check failed.
set -uo pipefail
cd "$(dirname "$0")/.."
top=$PWD

[ "$(id -u)" -eq 0 ] || { echo "package: needs root (chroot, mount)" >&2; exit 1; }
suites=("$@")
[ ${#suites[@]} -gt 0 ] || suites=(bookworm trixie)
passed=0 failed=0
work=$(mktemp -d /var/tmp/mmp-package.XXXXXX)
merged= sandboxes=()

ok() { passed=$((passed + 1)); echo "package: $suite: ok: $*"; }
bad() { failed=$((failed + 1)); echo "package: $suite: FAILED: $*"; }
# check WHAT CMD...: a check that passes when CMD does.
check() {
	local what=$1
	shift
	if "$@"; then ok "$what"; else bad "$what"; fi
}
in_root() { chroot "$merged" env LC_ALL=C PATH=/usr/sbin:/usr/bin:/sbin:/bin "$@"; }
apt_root() {
	in_root env DEBIAN_FRONTEND=noninteractive apt-get -qq \
		-o Acquire::Check-Valid-Until=false -o APT::Sandbox::User=root "$@"
}

unmount_root() {
	[ -n "$merged" ] || return 0
	umount "$merged/proc" 2>/dev/null
	umount "$merged" 2>/dev/null
	merged=
}
cleanup() {
	unmount_root
	for sb in "${sandboxes[@]}"; do
		env $sb tests/sandbox.sh stop >/dev/null 2>&1
	done
	rm -rf --one-file-system "$work"
}
trap cleanup EXIT
trap 'echo "package: interrupted" >&2; exit 130' INT TERM

# The cached root of SUITE, writable through an overlay at $merged.
mount_root() {
	local lower
	tests/root.sh "$suite" ensure package >&2 || return 1
	lower=$(tests/root.sh "$suite" path)
	mkdir -p "$work/$suite"/{upper,work,merged}
	merged=$work/$suite/merged
	mount -t overlay overlay -o "lowerdir=$lower,upperdir=$work/$suite/upper,workdir=$work/$suite/work" "$merged" &&
		mount -t proc proc "$merged/proc"
}

# A server of the suite's release; sets port.
start_server() {
	local kind env
	case "$suite" in
	bookworm) kind=mariadb ;;
	trixie) kind=mariadb11 ;;
	esac
	env="MMP_SERVER=$kind MMP_SANDBOX_DIR=$work/sandbox-$kind"
	sandboxes+=("$env")
	env $env tests/sandbox.sh start >&2 || return 1
	port=$(env $env tests/sandbox.sh env | sed -n 's/^MMP_PORT=//p')
	[ -n "$port" ]
}

# The recorder's ExecStart=, its continuation lines joined.
exec_start() {
	sed -n '/^ExecStart=/,/[^\\]$/p' "$merged/lib/systemd/system/mysqlmemprof-record.service" |
		sed 's/^ExecStart=//; s/\\$//' | tr '\n' ' '
}

has_account() { in_root getent passwd mysqlmemprof >/dev/null; }
# Names as the root's own accounts say them, not the host's.
mode_owner() { [ "$(in_root stat -c '%a %U:%G' "$1")" = "$2" ]; }

test_installed() {
	local version
	version=$(sed -n '1s/^[^(]*(\([^)]*\)).*/\1/p' debian/changelog)
	check "--version says $version" \
		bash -c '[[ "$(chroot "$0" mysqlmemprof --version)" == *"$1"* ]]' "$merged" "$version"
	check "man mysqlmemprof shows the page" \
		bash -c 'chroot "$0" env MANPAGER=cat LC_ALL=C man mysqlmemprof 2>/dev/null | grep -q "^SYNOPSIS"' "$merged"
	check "the system account mysqlmemprof" has_account
	check "its state folder, 0700" mode_owner /var/lib/mysqlmemprof "700 mysqlmemprof:mysqlmemprof"
	check "record.cnf, 0640 root:mysqlmemprof" mode_owner /etc/mysqlmemprof/record.cnf "640 root:mysqlmemprof"
	check "exporter.cnf, 0640 root:mysqlmemprof" mode_owner /etc/mysqlmemprof/exporter.cnf "640 root:mysqlmemprof"
	check "record.cnf is a conffile" \
		grep -qx /etc/mysqlmemprof/record.cnf "$merged/var/lib/dpkg/info/mysqlmemprof.conffiles"
	check "systemd-analyze verify on the units" in_root systemd-analyze verify \
		/lib/systemd/system/mysqlmemprof-record.service \
		/lib/systemd/system/mysqlmemprof-exporter.service
}

# The unit's command line as the account, for a few seconds; SIGTERM ends
# it with status 0, and the record holds samples.
test_recorder() {
	local cmd rc
	printf '[client]\nuser = mmp\npassword = mmp-pass\nhost = 127.0.0.1\nport = %s\n' \
		"$port" >>"$merged/etc/mysqlmemprof/record.cnf"
	cmd=$(exec_start)
	in_root timeout --preserve-status -s TERM 6 \
		setpriv --reuid=mysqlmemprof --regid=mysqlmemprof --init-groups $cmd \
		>"$work/$suite-record.log" 2>&1
	rc=$?
	check "the recorder's command line as mysqlmemprof exits 0 on SIGTERM" test "$rc" -eq 0
	[ "$rc" -eq 0 ] || tail -n 5 "$work/$suite-record.log"
	check "it wrote samples into /var/lib/mysqlmemprof" \
		bash -c 'cat "$0"/var/lib/mysqlmemprof/segments/*.jsonl 2>/dev/null | grep -v "\"type\":" | grep -q "\"sample\":"' "$merged"
	cp -r "$merged/var/lib/mysqlmemprof" "$work/$suite-record" 2>/dev/null
}

test_remove() {
	apt_root remove -y mysqlmemprof >/dev/null 2>&1
	check "remove: the program is gone" test ! -e "$merged/usr/bin/mysqlmemprof"
	check "remove: the conffiles stay" test -f "$merged/etc/mysqlmemprof/record.cnf"
	check "remove: the record stays" test -d "$merged/var/lib/mysqlmemprof/segments"
	apt_root purge -y mysqlmemprof >/dev/null 2>&1
	check "purge: /etc/mysqlmemprof is gone" test ! -e "$merged/etc/mysqlmemprof"
	check "purge: the record is gone" test ! -e "$merged/var/lib/mysqlmemprof"
	check "purge: the units are gone" test ! -e "$merged/lib/systemd/system/mysqlmemprof-record.service"
	check "purge: the account stays (Debian keeps system accounts)" has_account
}

# lintian and the roots' debootstrap are test tools (make check installs
# them too); make deb installs the build's own.
scripts/deps.sh --test || exit 1
echo "== package: make deb"
# The unit tests are make check's; the build here is the package's.
if ! DEB_BUILD_OPTIONS=nocheck make -s deb >"$work/deb.log" 2>&1; then
	tail -n 30 "$work/deb.log"
	echo "package: make deb failed"
	exit 1
fi
deb=$(ls build/deb/mysqlmemprof_*.deb)
suite=lintian
if lintian --fail-on error,warning "$deb" >"$work/lintian.log" 2>&1; then
	ok "no error or warning left unexplained"
else
	cat "$work/lintian.log"
	bad "lintian reported errors or warnings"
fi

for suite in "${suites[@]}"; do
	echo "== package: $suite"
	if ! mount_root || ! start_server; then
		bad "no $suite root or server"
		unmount_root
		continue
	fi
	cp "$deb" "$merged/tmp/"
	if apt_root install -y "/tmp/$(basename "$deb")" >"$work/$suite-apt.log" 2>&1; then
		ok "apt-get install ./$(basename "$deb")"
		test_installed
		test_recorder
		test_remove
	else
		tail -n 20 "$work/$suite-apt.log"
		bad "apt-get install ./$(basename "$deb")"
	fi
	unmount_root
done
echo "package: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
