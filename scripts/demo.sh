#!/bin/bash
# `make demo`: profiles a memory-hungry statement on a throwaway MariaDB
# server. Starts the sandbox unless one runs, and stops it again at the end
# only if it started it.
set -euo pipefail
cd "$(dirname "$0")/.."

if [ ! -x ./mysqlmemprof ]; then
	echo "demo: ./mysqlmemprof is missing; run make first" >&2
	exit 1
fi

started=
cleanup() {
	if [ -n "${WORKLOAD_PID:-}" ]; then
		kill "$WORKLOAD_PID" 2>/dev/null || true
	fi
	if [ -n "$started" ]; then
		tests/sandbox.sh stop
	fi
}
trap cleanup EXIT
trap 'exit 130' INT TERM

if ! tests/sandbox.sh status >/dev/null 2>&1; then
	echo "== Starting a throwaway MariaDB server"
	started=1
	tests/sandbox.sh start
fi
eval "$(tests/sandbox.sh env)"
# shellcheck source=../tests/workload.sh
. tests/workload.sh

echo "== Loading 1,000,000 rows into demo.items (sequence engine)"
workload_load

echo "== Running tests/sql/hungry.sql: a GROUP BY into a large in-memory temporary table"
workload_hungry_start
echo "== Profiling its connection ($WORKLOAD_CONNECTION) as \`mmp\`, who may only SELECT from performance_schema"
# The run is kept as JSON (build/demo/run.jsonl) and shown as text by a
# second mysqlmemprof that replays it from the pipe as it comes, so that
# the report at the end is of the very run shown.
mkdir -p build/demo
echo "\$ MYSQL_PWD=... ./mysqlmemprof --connection $WORKLOAD_CONNECTION --socket $MMP_SOCKET --user mmp --frequency 250 --top 5 --format json |"
echo "    tee build/demo/run.jsonl | ./mysqlmemprof --read -"
echo
# The password goes through MYSQL_PWD, not the command line, where ps(1)
# could see it before the program scrubs it.
MYSQL_PWD=mmp-pass ./mysqlmemprof --connection "$WORKLOAD_CONNECTION" \
	--socket "$MMP_SOCKET" --user mmp --frequency 250 --top 5 \
	--format json | tee build/demo/run.jsonl | ./mysqlmemprof --read - -q
workload_wait
WORKLOAD_PID=

echo
echo "== The picture of the run: an HTML report and its chart as SVG"
echo "\$ ./mysqlmemprof --read build/demo/run.jsonl --format html -o build/demo/report.html"
./mysqlmemprof --read build/demo/run.jsonl --format html -o build/demo/report.html
./mysqlmemprof --read build/demo/run.jsonl --format svg -o build/demo/chart.svg -q
echo "Open file://$PWD/build/demo/report.html in a browser."

echo
echo "== The server's memory in layers: what performance_schema counts, what it does not, and why"
echo "\$ MYSQL_PWD=... ./mysqlmemprof --explain --socket $MMP_SOCKET --user mmp"
MYSQL_PWD=mmp-pass ./mysqlmemprof --explain --socket "$MMP_SOCKET" --user mmp -q

cat <<'EOF'

== What happened
The statement groups a million distinct rows into an in-memory (HEAP)
temporary table. The engine takes memory in blocks of about 20 MiB, which
performance_schema counts as memory/memory/HP_PTRS: the thread's total climbs
a step every few samples while the table fills. When the statement ended the
client disconnected, and mysqlmemprof stopped by itself and summed up.

The layers after it split the server process's resident memory: what
performance_schema counts by family, what it does not, the allocator, the
connections estimated and measured, and advice where a layer is large.

Next: ./mysqlmemprof --list shows every thread, largest first;
--format csv or json writes samples for a spreadsheet or jq, --format html
a report like build/demo/report.html; see man/mysqlmemprof.1.
EOF
