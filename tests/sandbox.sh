#!/bin/bash
# A throwaway MariaDB server for the demo, the integration tests and the
# benchmarks: a private datadir, a unix socket and a loopback TCP port under
# one folder, with the memory instruments of performance_schema enabled and
# the consumer events_statements_current, which says what a thread runs.
#
#   tests/sandbox.sh start    create and start it (harmless when running)
#   tests/sandbox.sh stop     shut it down and remove its folder
#   tests/sandbox.sh env      print MMP_SOCKET=... MMP_PORT=... (eval-able)
#   tests/sandbox.sh status   say whether it runs; exit 1 when it does not
#
# The folder is $MMP_SANDBOX_DIR, by default /tmp/mmp-sandbox-$(id -u).
# $MMP_SANDBOX_EXTRA_ARGS, split at spaces, is added to the server's
# options (the TLS tests start a server with certificates this way).
# Accounts: root without a password (socket only); mmp/mmp-pass with only
# SELECT on performance_schema (what the tool must work with); loader/
# loader-pass with everything on the `demo` database, for workloads.
set -euo pipefail

dir=${MMP_SANDBOX_DIR:-/tmp/mmp-sandbox-$(id -u)}
[[ $dir == /* ]] || dir=$PWD/$dir
dir=${dir%/}
sock=$dir/sock
marker=$dir/.mmp-sandbox
start_timeout=${MMP_SANDBOX_START_TIMEOUT:-60}
stop_timeout=${MMP_SANDBOX_STOP_TIMEOUT:-30}

die() {
	echo "sandbox: $*" >&2
	exit 1
}

# The server's pid when it runs, from the pid file of our folder.
server_pid() {
	local pid
	[ -r "$dir/mariadbd.pid" ] || return 1
	pid=$(cat "$dir/mariadbd.pid" 2>/dev/null) || return 1
	[[ $pid =~ ^[0-9]+$ ]] || return 1
	kill -0 "$pid" 2>/dev/null || return 1
	echo "$pid"
}

# mariadb-admin as root over our socket, never reading option files.
admin() {
	mariadb-admin --no-defaults --connect-timeout=2 -uroot -S "$sock" "$@"
}

root_sql() {
	mariadb --no-defaults --connect-timeout=5 -uroot -S "$sock" "$@"
}

is_running() {
	server_pid >/dev/null && admin ping >/dev/null 2>&1
}

error_log_tail() {
	if [ -r "$dir/error.log" ]; then
		echo "--- last lines of $dir/error.log:" >&2
		tail -n 20 "$dir/error.log" >&2
	fi
}

# A TCP port on 127.0.0.1 nobody listens on right now.
free_port() {
	python3 -c 'import socket
s = socket.socket()
s.bind(("127.0.0.1", 0))
print(s.getsockname()[1])'
}

# Starts mariadbd once on the port in $dir/port; returns 0 when it answers,
# 1 when it died (the caller may retry on another port), 2 on timeout.
launch() {
	local user_opt=() pid waited=0
	[ "$(id -u)" -eq 0 ] && user_opt=(--user=root)
	: >"$dir/error.log"
	mariadbd --no-defaults "${user_opt[@]}" \
		--datadir="$dir/data" --tmpdir="$dir/tmp" \
		--socket="$sock" --pid-file="$dir/mariadbd.pid" \
		--log-error="$dir/error.log" \
		--port="$(cat "$dir/port")" --bind-address=127.0.0.1 \
		--skip-name-resolve --skip-log-bin \
		--performance-schema=ON \
		--performance-schema-instrument='memory/%=ON' \
		--performance-schema-consumer-events-statements-current=ON \
		--innodb-buffer-pool-size=64M --innodb-log-file-size=16M \
		--max-connections=100 \
		${MMP_SANDBOX_EXTRA_ARGS:-} \
		</dev/null >/dev/null 2>&1 9>&- &
	pid=$!
	echo "$pid" >"$dir/launcher.pid"
	while ! admin ping >/dev/null 2>&1; do
		if ! kill -0 "$pid" 2>/dev/null; then
			return 1
		fi
		if [ "$waited" -ge $((start_timeout * 5)) ]; then
			return 2
		fi
		sleep 0.2
		waited=$((waited + 1))
	done
	return 0
}

setup_accounts() {
	root_sql <<-'SQL'
		-- Anonymous accounts would shadow the named ones on localhost.
		DELETE FROM mysql.global_priv WHERE User = '';
		FLUSH PRIVILEGES;
		CREATE USER 'mmp'@'localhost' IDENTIFIED BY 'mmp-pass';
		CREATE USER 'mmp'@'127.0.0.1' IDENTIFIED BY 'mmp-pass';
		GRANT SELECT ON performance_schema.* TO 'mmp'@'localhost';
		GRANT SELECT ON performance_schema.* TO 'mmp'@'127.0.0.1';
		CREATE DATABASE demo;
		CREATE USER 'loader'@'localhost' IDENTIFIED BY 'loader-pass';
		CREATE USER 'loader'@'127.0.0.1' IDENTIFIED BY 'loader-pass';
		GRANT ALL ON demo.* TO 'loader'@'localhost';
		GRANT ALL ON demo.* TO 'loader'@'127.0.0.1';
	SQL
}

cmd_start() {
	local rc tries
	if is_running; then
		echo "sandbox: already running in $dir" >&2
		return 0
	fi
	if [ -e "$dir" ]; then
		# A leftover of a crash or a kill: ours only if it has the marker.
		[ -e "$marker" ] || die "$dir exists and is not a sandbox; remove it or set MMP_SANDBOX_DIR"
		if pid=$(server_pid); then
			die "a server (pid $pid) runs in $dir but does not answer; run: $0 stop"
		fi
		rm -rf "$dir"
	fi
	[ ${#sock} -lt 100 ] || die "socket path $sock is too long (${#sock} chars); set a shorter MMP_SANDBOX_DIR"

	mkdir -p "$dir"
	chmod 700 "$dir"
	: >"$marker"
	mkdir "$dir/data" "$dir/tmp"

	if ! mariadb-install-db --no-defaults --datadir="$dir/data" \
		--auth-root-authentication-method=normal --skip-test-db \
		--skip-name-resolve $([ "$(id -u)" -eq 0 ] && echo --user=root) \
		>"$dir/install.log" 2>&1; then
		tail -n 20 "$dir/install.log" >&2
		die "mariadb-install-db failed (log: $dir/install.log)"
	fi

	# Another program may take our port between choosing and binding it.
	for tries in 1 2 3; do
		free_port >"$dir/port"
		rc=0
		launch || rc=$?
		[ "$rc" -eq 0 ] && break
		if [ "$rc" -eq 1 ] && grep -qiE "bind|address already in use" "$dir/error.log"; then
			continue
		fi
		error_log_tail
		if [ "$rc" -eq 2 ]; then
			kill_server
			die "the server did not answer within ${start_timeout}s"
		fi
		die "the server did not start"
	done
	if [ "$rc" -ne 0 ]; then
		error_log_tail
		die "the server could not bind a port after 3 tries"
	fi

	if ! setup_accounts; then
		error_log_tail
		die "creating the accounts failed"
	fi
}

# Stops the server of our folder: a clean shutdown, then signals.
kill_server() {
	local pid waited=0
	pid=$(server_pid) || pid=$(cat "$dir/launcher.pid" 2>/dev/null) || return 0
	[[ $pid =~ ^[0-9]+$ ]] || return 0
	kill -0 "$pid" 2>/dev/null || return 0
	# A test may have left it stopped (SIGSTOP) to play a stalled server.
	kill -CONT "$pid" 2>/dev/null || true
	admin shutdown >/dev/null 2>&1 || kill -TERM "$pid" 2>/dev/null || true
	while kill -0 "$pid" 2>/dev/null; do
		if [ "$waited" -ge $((stop_timeout * 5)) ]; then
			echo "sandbox: server $pid did not stop in ${stop_timeout}s; killing it" >&2
			kill -KILL "$pid" 2>/dev/null || true
			sleep 0.5
			break
		fi
		# A shutdown that was not accepted: ask with a signal instead.
		[ "$waited" -eq 25 ] && kill -TERM "$pid" 2>/dev/null
		sleep 0.2
		waited=$((waited + 1))
	done
}

cmd_stop() {
	[ -e "$dir" ] || return 0
	[ -e "$marker" ] || die "$dir is not a sandbox; not touching it"
	kill_server
	rm -rf "$dir"
	# A command waiting on the lock holds it open; it still works.
	rm -f "$dir.lock"
}

cmd_env() {
	is_running || die "not running in $dir; run: $0 start"
	printf "MMP_SOCKET='%s'\nMMP_PORT='%s'\nMMP_HOST='127.0.0.1'\nMMP_DIR='%s'\n" \
		"$sock" "$(cat "$dir/port")" "$dir"
}

cmd_status() {
	local pid
	if is_running; then
		pid=$(server_pid)
		echo "sandbox: running (pid $pid, socket $sock, port $(cat "$dir/port"))"
	else
		echo "sandbox: not running ($dir)"
		return 1
	fi
}

# One command at a time per folder: two concurrent starts must not race.
lock() {
	exec 9>"$dir.lock"
	flock -w 120 9 || die "another sandbox command holds $dir.lock"
}

case "${1:-}" in
start) lock; cmd_start ;;
stop) lock; cmd_stop ;;
env) cmd_env ;;
status) cmd_status ;;
*)
	echo "usage: $0 start|stop|env|status" >&2
	exit 2
	;;
esac
