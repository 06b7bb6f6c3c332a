#!/bin/sh
# Installs the Debian packages that are missing, and does nothing when all
# are there. Without an argument: what building and `make demo` need.
# With --test: that, and what only the tests and fuzzers use (`make check`),
# so that a user who runs the tool is not given test tools. With --deb:
# what `make deb` needs to build the package.
set -eu

packages="build-essential pkg-config default-libmysqlclient-dev libcsv-dev
mariadb-server mariadb-client python3 libncurses-dev libjansson-dev"
# --login-path: .mylogin.cnf is AES-128-ECB, read with OpenSSL's libcrypto.
packages="$packages libssl-dev"
# --format pprof: protoc-c generates the C of proto/profile.proto.
packages="$packages protobuf-c-compiler libprotobuf-c-dev zlib1g-dev"
test_packages="libcmocka-dev python3-pymysql openssl strace valgrind clang debootstrap
libclang-rt-14-dev tmux chromium libxml2-utils rsync"
# `go tool pprof` reads the pprof files the tests write.
test_packages="$test_packages golang-go"
# --listen: the exporter's HTTP server.
packages="$packages libmicrohttpd-dev"
# --heap: the ELF files' symbols, read with elfutils' libdw and libelf.
packages="$packages libdw-dev libelf-dev"
# --listen's tests: a real Prometheus, and its promtool.
test_packages="$test_packages prometheus"
# --explain's tests: an allocator to preload into the server.
test_packages="$test_packages libjemalloc2"
# tests/uml.sh: a Linux kernel with cgroup v2 only, run as a process.
test_packages="$test_packages user-mode-linux"
# make bench: the workload beside each sampler; perf, where a sample's
# time goes (the kernel's tracepoints and its CPU clock).
test_packages="$test_packages sysbench linux-perf"
# --record's tests: libfaketime steps the recorder's wall clock.
test_packages="$test_packages faketime"

# make deb: what dpkg-buildpackage and debian/rules need beside the build.
deb_packages="debhelper dpkg-dev libcmocka-dev"
# The package's tests: lintian on it.
test_packages="$test_packages debhelper dpkg-dev lintian"

case "${1:-}" in
--test) packages="$packages $test_packages" ;;
--deb) packages="$packages $deb_packages" ;;
"") ;;
*) echo "usage: $0 [--test | --deb]" >&2; exit 2 ;;
esac

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
