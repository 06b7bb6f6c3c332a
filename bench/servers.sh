#!/bin/bash
# make bench's part on each server: what one sample, one look of
# --bigger-than, one --list and a read of the server's /proc files cost at
# 0, 100 and 1,000 idle connections, beside the Python sampler's query
# (bench/poll_cost.py), against a throwaway MariaDB 10.11 and a throwaway
# Oracle MySQL 9.7 in turn (tests/sandbox.sh). Each server's table is
# rewritten whole in its own section of bench/RESULTS.md (poll-mariadb,
# poll-mysql; $MMP_BENCH_RESULTS if set), under a heading naming the tree
# and the date.
#
#   bench/servers.sh                 both, about 4 minutes
#   MMP_SERVERS=mysql bench/servers.sh
#   MMP_BENCH_QUICK=1: 0 and 100 connections, 10 queries each
set -euo pipefail
cd "$(dirname "$0")/.."

results=${MMP_BENCH_RESULTS:-bench/RESULTS.md}
args=(--counts 0,100,1000 --runs 40)
[ "${MMP_BENCH_QUICK:-}" = 1 ] && args=(--counts 0,100 --runs 10)

for kind in ${MMP_SERVERS:-mariadb mysql}; do
	dir=$(mktemp -d /tmp/mmp-bench-servers.XXXXXX)
	rmdir "$dir"
	export MMP_SERVER=$kind MMP_SANDBOX_DIR=$dir
	trap 'tests/sandbox.sh stop' EXIT
	tests/sandbox.sh start
	eval "$(tests/sandbox.sh env)"
	echo "== bench/poll_cost.py on $kind $MMP_SERVER_VERSION" >&2
	# Debian's python3: python3-pymysql is installed for it.
	/usr/bin/python3 bench/poll_cost.py --socket "$MMP_SOCKET" "${args[@]}" \
		--results "$results" --section "poll-$kind"
	tests/sandbox.sh stop
	trap - EXIT
done
