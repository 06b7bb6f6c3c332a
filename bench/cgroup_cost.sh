#!/bin/bash
# What one sample of --global costs the client beside the server's process
# and its memory cgroup: the instructions it runs (callgrind: a run of
# $long samples less a run of 1, over $long - 1) and the files it opens per
# sample under /proc and /sys/fs/cgroup (strace, the same difference), for
# each binary named (default ./mysqlmemprof); and, with the last one, how
# long a reading of the layers takes (--explain's, which --record, --listen
# and --live of --global make every --layers-every): its walk of the
# server's smaps (the reads' time, strace -T) and the whole run, against
# the server of
# `tests/sandbox.sh env` (MMP_SOCKET; a throwaway MariaDB 10.11 when none
# is set). Its lines are for a report; nothing is written to RESULTS.md.
#
#   bench/cgroup_cost.sh [BINARY...]
#   bench/cgroup_cost.sh /tmp/before/mysqlmemprof ./mysqlmemprof
set -euo pipefail
cd "$(dirname "$0")/.."

long=41
bins=("$@")
[ ${#bins[@]} -eq 0 ] && bins=(./mysqlmemprof)
if [ -z "${MMP_SOCKET:-}" ]; then
	dir=$(mktemp -d /tmp/mmp-bench-cgroup.XXXXXX)
	rmdir "$dir"
	export MMP_SERVER=mariadb MMP_SANDBOX_DIR=$dir
	trap 'tests/sandbox.sh stop' EXIT
	tests/sandbox.sh start >&2
	eval "$(tests/sandbox.sh env)"
fi
tmp=$(mktemp -d /tmp/mmp-cgroup-cost.XXXXXX)
trap 'rm -rf "$tmp"; [ -n "${dir:-}" ] && tests/sandbox.sh stop' EXIT

# The instructions of a run of n samples, all threads.
instructions() {
	valgrind --tool=callgrind --callgrind-out-file="$tmp/cg" \
		"$1" --socket "$MMP_SOCKET" --user root --global --count "$2" \
		--frequency 100 --format csv -o /dev/null 2>/dev/null
	awk '/^(summary|totals):/ { print $2; exit }' "$tmp/cg"
}

# The files under /proc/PID and /sys/fs/cgroup a run of n samples opens
# (and those it looks for with access()): "call path" a line.
opened() {
	strace -f -qq -e trace=openat,open,access -o "$tmp/st" \
		"$1" --socket "$MMP_SOCKET" --user root --global --count "$2" \
		--frequency 100 --format csv -o /dev/null 2>/dev/null
	grep -E '"/proc/[0-9]+/|"/sys/fs/cgroup/' "$tmp/st" |
		sed -E 's/^[0-9]+ +([a-z]+)\(.*"([^"]*)".*/\1 \2/' >"$tmp/files.$2"
	grep -c '^open' "$tmp/files.$2" || true
}

for bin in "${bins[@]}"; do
	one=$(instructions "$bin" 1)
	many=$(instructions "$bin" $long)
	f1=$(opened "$bin" 1)
	fn=$(opened "$bin" $long)
	echo "$bin ($("$bin" --version 2>/dev/null | head -1)):"
	echo "  instructions per --global sample: $(((many - one) / (long - 1)))"
	printf '  files opened per sample: %s\n' \
		"$(echo "scale=2; ($fn - $f1) / ($long - 1)" | bc)"
	echo "  opened by $long samples, each file:"
	sort "$tmp/files.$long" | uniq -c | sed -E 's/^ */    /'
done

# The layers' reading: the smaps walk (the mmap lock held) and the run.
bin=${bins[${#bins[@]} - 1]}
pid=$(cat "$MMP_DIR/server.pid")
rss=$(awk '/^VmRSS:/ { print int($2 / 1024) }' /proc/"$pid"/status)
for i in 1 2 3 4 5; do
	start=$(date +%s%N)
	strace -f -qq -T -e trace=read -P /proc/"$pid"/smaps -o "$tmp/walk" \
		"$bin" --socket "$MMP_SOCKET" --user root --explain \
		--format json >/dev/null 2>&1
	end=$(date +%s%N)
	awk -F'<' '{ t += substr($NF, 1, length($NF) - 1) }
		END { printf "%.1f", t * 1000 }' "$tmp/walk" >"$tmp/ms.$i"
	echo "$(cat "$tmp/ms.$i") $(((end - start) / 1000000))" >>"$tmp/walks"
done
echo "the layers' reading, server of $rss MiB resident, 5 runs of --explain:"
sort -n "$tmp/walks" | awk '{ w[NR] = $1; r[NR] = $2 }
	END { printf "  smaps walk: median %s ms, longest %s ms\n", w[3], w[5]
	      n = asort(r); printf "  whole run (under strace): median %s ms, longest %s ms\n", r[3], r[5] }'
