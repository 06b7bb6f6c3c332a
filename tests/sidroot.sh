#!/bin/bash
# The Debian-unstable root that holds what Debian 12 lacks: Oracle MySQL 9.7
# (the sandbox's MMP_SERVER=mysql) and Oracle's libmysqlclient 9.7 (the
# build against Oracle's library). Made once by debootstrap and reused by
# every later run; the servers in it run under chroot, and their socket
# and loopback port are reached from the host.
#
#   tests/sidroot.sh ensure [SET...]  make the root unless it is there, and
#                                     install each package set not yet in it:
#                                     server (the default), build
#   tests/sidroot.sh path             print the root's folder
#   tests/sidroot.sh rebuild [SET...] remove it, then ensure
#   tests/sidroot.sh remove           remove it (about 800 MB, 1.5 GB with build)
#   tests/sidroot.sh run CMD...       run CMD inside it (chroot)
#
# The folder is $MMP_ROOT_CACHE, by default
# ${XDG_CACHE_HOME:-$HOME/.cache}/mysqlmemprof/sid: outside any checkout,
# so that a fresh clone and CI reuse it. Making it needs root, debootstrap
# (scripts/deps.sh --test) and Debian's archive.
set -euo pipefail

# HOME may be unset (a CI runner, cron): the account's home then.
home=${HOME:-$(getent passwd "$(id -u)" | cut -d: -f6)}
cache=${MMP_ROOT_CACHE:-${XDG_CACHE_HOME:-$home/.cache}/mysqlmemprof/sid}
[[ $cache == /* ]] || cache=$PWD/$cache
cache=${cache%/}
mirror=${MMP_DEBIAN_MIRROR:-http://deb.debian.org/debian}

# The package sets, by name; a stamp file in the root says which are in.
declare -A sets=(
	[server]="mysql-server-core mysql-client-core"
	# What `make` needs, with Oracle's client library in place of
	# Connector/C (default-libmysqlclient-dev is Oracle's in unstable too).
	[build]="libmysqlclient-dev build-essential pkg-config libcsv-dev
		libncurses-dev libjansson-dev protobuf-c-compiler libprotobuf-c-dev
		zlib1g-dev libmicrohttpd-dev libcmocka-dev libssl-dev"
)

die() {
	echo "sidroot: $*" >&2
	exit 1
}

# The archive's Release file, seen from these machines, is past its
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
	mkdir -p "$(dirname "$cache")"
	echo "sidroot: making a Debian unstable root in $cache (about a minute)" >&2
	if ! debootstrap --variant=minbase sid "$tmp" "$mirror" >"$tmp.log" 2>&1; then
		tail -n 20 "$tmp.log" >&2
		die "debootstrap failed (log: $tmp.log)"
	fi
	rm -f "$tmp.log"
	mv "$tmp" "$cache"
}

# The stamp holds a line per set installed, with its packages, so that a
# set that gained a package is installed again.
install_set() {
	local set=$1 stamp=$cache/.mmp-sets line
	[ -n "${sets[$set]:-}" ] || die "no package set '$set' (server, build)"
	line="$set: $(echo ${sets[$set]})"
	grep -qxF "$line" "$stamp" 2>/dev/null && return 0
	echo "sidroot: installing the $set packages into $cache" >&2
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

# One command at a time: two test runs must not both make the root.
lock() {
	mkdir -p "$(dirname "$cache")"
	exec 8>"$cache.lock"
	flock -w 600 8 || die "another command holds $cache.lock"
}

case "${1:-}" in
ensure) shift; lock; cmd_ensure "$@" ;;
rebuild) shift; lock; cmd_remove; cmd_ensure "$@" ;;
remove) lock; cmd_remove ;;
path) echo "$cache" ;;
run)
	shift
	[ -x "$cache/usr/bin/apt-get" ] || die "no root in $cache; run: $0 ensure"
	exec chroot "$cache" "$@"
	;;
*)
	echo "usage: $0 ensure [server|build]... | path | rebuild [SET...] | remove | run CMD..." >&2
	exit 2
	;;
esac
