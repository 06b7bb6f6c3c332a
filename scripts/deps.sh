#!/bin/sh
# Installs the Debian packages that building, testing and the demo need,
# when any is missing. Safe to run again: it does nothing when all are there.
set -eu

packages="build-essential pkg-config default-libmysqlclient-dev libcsv-dev
libcmocka-dev mariadb-server mariadb-client python3 python3-pymysql
openssl strace valgrind clang libclang-rt-14-dev"

missing=""
for p in $packages; do
	if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "ok installed"; then
		missing="$missing $p"
	fi
done
[ -z "$missing" ] && exit 0

echo "deps: installing$missing" >&2
if [ "$(id -u)" -eq 0 ]; then
	sudo=""
elif command -v sudo >/dev/null 2>&1; then
	sudo="sudo"
else
	echo "deps: missing packages:$missing; install them as root (apt-get install$missing)" >&2
	exit 1
fi
export DEBIAN_FRONTEND=noninteractive
$sudo apt-get update -qq
# The server package tries to start a system-wide server; we never use it.
$sudo apt-get install -y -qq --no-install-recommends $missing >/dev/null
