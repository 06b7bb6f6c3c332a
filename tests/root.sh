#!/bin/bash
# The Debian roots that hold what Debian 12 lacks, one per suite:
#   sid     Debian unstable: Oracle MySQL 9.7 (the sandbox's MMP_SERVER=mysql)
#           and Oracle's libmysqlclient 9.7 (tests/platform.sh oracle)
#   trixie  Debian 13: MariaDB 11.8 (MMP_SERVER=mariadb11) and MariaDB
#           Connector/C 3.4 (tests/platform.sh trixie)
#   bookworm Debian 12 as a new host has it, for the package's tests
#           (tests/package.sh, which installs the .deb under an overlay)
# Each is made by `debootstrap --variant=minbase SUITE` and reused by every
# later run; the servers in it run under chroot, and their socket and
# loopback port are reached from the host.
#
#   tests/root.sh SUITE ensure [SET...]  make the root unless it is there, and
#                                        install each package set not yet in
#                                        it: server (the default), build,
#                                        package (man-db, to read the page)
#   tests/root.sh SUITE path             print the root's folder
#   tests/root.sh SUITE rebuild [SET...] remove it, then ensure
#   tests/root.sh SUITE remove           remove it (about 800 MB, 1.5 GB with build)
#   tests/root.sh SUITE run CMD...       run CMD inside it (chroot)
#
# The roots live in $MMP_ROOT_CACHE/SUITE, by default under
# ${XDG_CACHE_HOME:-$HOME/.cache}/mysqlmemprof: outside any checkout, so
# that a fresh clone reuses them (CI points MMP_ROOT_CACHE at an empty
# folder, so that a missing install step fails there as it would for a new
# user). Making one needs root, debootstrap (scripts/deps.sh --test) and
# Debian's archive.
set -euo pipefail

# HOME may be unset (a CI runner, cron): the account's home then.
home=${HOME:-$(getent passwd "$(id -u)" | cut -d: -f6)}
base=${MMP_ROOT_CACHE:-${XDG_CACHE_HOME:-$home/.cache}/mysqlmemprof}
[[ $base == /* ]] || base=$PWD/$base
base=${base%/}
mirror=${MMP_DEBIAN_MIRROR:-http://deb.debian.org/debian}

die() {
	echo "root: $*" >&2
	exit 1
}

usage() {
	echo "usage: $0 sid|trixie|bookworm ensure [server|build|package]... | path | rebuild [SET...] | remove | run CMD..." >&2
	exit 2
}

suite=${1:-}
shift || true
# What `make` needs beside the client library; each suite adds its own.
build_common="build-essential pkg-config libcsv-dev libncurses-dev
	libjansson-dev protobuf-c-compiler libprotobuf-c-dev zlib1g-dev
	libmicrohttpd-dev libcmocka-dev libssl-dev libdw-dev libelf-dev"
# The package sets, by name; a stamp file in the root says which are in.
declare -A sets
case "$suite" in
sid)
	# libjemalloc2: the allocator --explain's tests preload into the server.
	sets[server]="mysql-server-core mysql-client-core libjemalloc2"
	# Oracle's client library in place of Connector/C
	# (default-libmysqlclient-dev is Oracle's in unstable too);
	# mysql_config_editor, for the tests of --login-path, is in the
	# server set's client.
	sets[build]="libmysqlclient-dev $build_common"
	;;
trixie)
	sets[server]="mariadb-server-core mariadb-client-core libjemalloc2"
	# libmariadb-dev alone, as a user of Debian 13 builds: the Makefile
	# finds it by pkg-config's libmariadb.
	sets[build]="libmariadb-dev $build_common"
	sets[package]="man-db"
	;;
bookworm)
	# The host is Debian 12: its server is the host's.
	sets[package]="man-db"
	;;
*) usage ;;
esac
cache=$base/$suite

# The archive's Release file, seen from these machines, may be past its
# Valid-Until date, which apt refuses by default; the packages are still
# checked against their signed hashes.
apt_in_root() {
	chroot "$cache" env DEBIAN_FRONTEND=noninteractive LC_ALL=C \
		apt-get -o Acquire::Check-Valid-Until=false -o APT::Sandbox::User=root "$@"
}

make_root() {
	local tmp=$cache.tmp
	[ "$(id -u)" -eq 0 ] || die "making the root needs root (debootstrap, chroot)"
	command -v debootstrap >/dev/null || die "debootstrap is missing; run scripts/deps.sh --test"
	rm -rf --one-file-system "$tmp"
	mkdir -p "$base"
	echo "root: making a Debian $suite root in $cache (about a minute)" >&2
	if ! debootstrap --variant=minbase "$suite" "$tmp" "$mirror" >"$tmp.log" 2>&1; then
		tail -n 20 "$tmp.log" >&2
		die "debootstrap $suite failed (log: $tmp.log)"
	fi
	rm -f "$tmp.log"
	mv "$tmp" "$cache"
}

# The stamp holds a line per set installed, with its packages, so that a
# set that gained a package is installed again.
install_set() {
	local set=$1 stamp=$cache/.mmp-sets line
	[ -n "${sets[$set]:-}" ] || die "no package set '$set' in $suite (${!sets[*]})"
	line="$set: $(echo ${sets[$set]})"
	grep -qxF "$line" "$stamp" 2>/dev/null && return 0
	echo "root: installing the $set packages into $cache" >&2
	if ! { apt_in_root update -qq &&
		apt_in_root install -y -qq --no-install-recommends ${sets[$set]}; } \
		>"$cache/.mmp-apt.log" 2>&1; then
		tail -n 20 "$cache/.mmp-apt.log" >&2
		die "installing the $set packages failed (log: $cache/.mmp-apt.log)"
	fi
	echo "$line" >>"$stamp"
}

cmd_ensure() {
	local set
	[ $# -gt 0 ] || set -- server
	[ -x "$cache/usr/bin/apt-get" ] || make_root
	for set in "$@"; do
		install_set "$set"
	done
}

cmd_remove() {
	rm -rf --one-file-system "$cache" "$cache.tmp" "$cache.tmp.log"
}

# One command at a time per root: two test runs must not both make it.
lock() {
	mkdir -p "$base"
	exec 8>"$cache.lock"
	flock -w 900 8 || die "another command holds $cache.lock"
}

case "${1:-}" in
ensure) shift; lock; cmd_ensure "$@" ;;
rebuild) shift; lock; cmd_remove; cmd_ensure "$@" ;;
remove) lock; cmd_remove ;;
path) echo "$cache" ;;
run)
	shift
	[ -x "$cache/usr/bin/apt-get" ] || die "no $suite root in $cache; run: $0 $suite ensure"
	exec chroot "$cache" "$@"
	;;
*) usage ;;
esac
