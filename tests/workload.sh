# Workloads on the sandbox, for the demo and the benchmarks (the integration
# tests read the same SQL files from Python). Source it after
# `eval "$(tests/sandbox.sh env)"`; it needs MMP_SOCKET.
#
#   workload_load                 (re)creates demo.items, 1,000,000 rows
#   workload_hungry_start [ROWS]  runs tests/sql/hungry.sql in the background
#                                 as `loader`; sets WORKLOAD_PID and
#                                 WORKLOAD_CONNECTION (its PROCESSLIST id)
#   workload_wait                 waits for it; its status is the client's

workload_sql_dir=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)/sql

# The mariadb client as the workload account, without option files.
workload_client() {
	mariadb --no-defaults --connect-timeout=10 -uloader -ploader-pass \
		-S "$MMP_SOCKET" demo "$@"
}

workload_load() {
	workload_client <"$workload_sql_dir/load.sql"
}

workload_hungry_start() {
	local rows=${1:-1000000} waited=0
	WORKLOAD_OUT=$(mktemp "${TMPDIR:-/tmp}/mmp-workload.XXXXXX")
	# -n flushes each result at once: the connection id arrives while the
	# statement still runs.
	{
		echo "SET @mmp_rows = $rows;"
		echo "SELECT CONNECTION_ID();"
		cat "$workload_sql_dir/hungry.sql"
	} | workload_client -N -n >"$WORKLOAD_OUT" 2>&1 &
	WORKLOAD_PID=$!
	# A whole first line, not the start of one.
	until [ "$(wc -l <"$WORKLOAD_OUT")" -ge 1 ]; do
		if ! kill -0 "$WORKLOAD_PID" 2>/dev/null || [ "$waited" -ge 500 ]; then
			echo "workload: no connection id from the client" >&2
			cat "$WORKLOAD_OUT" >&2
			return 1
		fi
		sleep 0.02
		waited=$((waited + 1))
	done
	WORKLOAD_CONNECTION=$(head -n 1 "$WORKLOAD_OUT")
	if ! [[ $WORKLOAD_CONNECTION =~ ^[0-9]+$ ]]; then
		echo "workload: unexpected output: $WORKLOAD_CONNECTION" >&2
		return 1
	fi
}

workload_wait() {
	local rc=0
	wait "$WORKLOAD_PID" || rc=$?
	rm -f "$WORKLOAD_OUT"
	return "$rc"
}
