#!/bin/bash
# A throwaway server for the demo, the integration tests and the
# benchmarks: a private datadir, a unix socket and a loopback TCP port under
# one folder, with the memory instruments of performance_schema enabled and
# the consumer events_statements_current, which says what a thread runs.
#
# $MMP_SERVER says which server:
#   mariadb   MariaDB 10.11 of Debian 12, from the host (the default)
#   mysql     Oracle MySQL 9.7 of Debian unstable, run under chroot in the
#             sid root of tests/root.sh (made on first use)
#   mariadb11 MariaDB 11.8 of Debian 13, run under chroot in its trixie
#             root the same way
# A server in a root has its folder made inside the root, and the
# sandbox's folder is a symbolic link to it, so that one path names the
# same file on both sides: the socket, the logs, what the server writes.
#
#   tests/sandbox.sh start    create and start it (harmless when running)
#   tests/sandbox.sh stop     shut it down and remove its folder
#   tests/sandbox.sh env      print MMP_SOCKET=... MMP_PORT=... MMP_SERVER=...
#                             MMP_SERVER_VERSION=... (eval-able)
#   tests/sandbox.sh status   say whether it runs; exit 1 when it does not
#
# The folder is $MMP_SANDBOX_DIR, by default /tmp/mmp-sandbox-$(id -u).
# $MMP_SANDBOX_EXTRA_ARGS, split at spaces, is added to the server's
# options (the TLS tests start a server with certificates this way).
# $MMP_SANDBOX_INIT_ARGS, split the same way, is added to the options of
# the program that makes the data folder (the User-mode Linux guest of
# tests/uml.sh needs InnoDB's --innodb-buffer-pool-size-max small in both).
# $dir/launch holds the command that starts the server, one argument a
# line, for a test that kills the server and starts it again.
# Accounts: root without a password (socket only); mmp/mmp-pass with only
# SELECT on performance_schema (what the tool must work with); loader/
# loader-pass with everything on the `demo` database, for workloads.
set -euo pipefail

dir=${MMP_SANDBOX_DIR:-/tmp/mmp-sandbox-$(id -u)}
[[ $dir == /* ]] || dir=$PWD/$dir
dir=${dir%/}
kind=${MMP_SERVER:-mariadb}
here=$(cd "$(dirname "$0")" && pwd)
# suite: the root of tests/root.sh the server runs in, none for the host's.
case "$kind" in
mariadb) suite= ;;
mysql) suite=sid ;;
mariadb11) suite=trixie ;;
*) echo "sandbox: MMP_SERVER=$kind: not a server kind (mariadb, mysql, mariadb11)" >&2; exit 2 ;;
esac
root=
if [ -n "$suite" ]; then
	root=$("$here/root.sh" "$suite" path)
	[ "$(id -u)" -eq 0 ] || { echo "sandbox: MMP_SERVER=$kind runs its server under chroot, which needs root; run as root, or use MMP_SERVER=mariadb" >&2; exit 1; }
fi
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
	[ -r "$dir/server.pid" ] || return 1
	pid=$(cat "$dir/server.pid" 2>/dev/null) || return 1
	[[ $pid =~ ^[0-9]+$ ]] || return 1
	kill -0 "$pid" 2>/dev/null || return 1
	echo "$pid"
}

# mariadb-admin as root over our socket, never reading option files. The
# host's MariaDB clients serve MySQL too: root has no password.
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

# The server's command line: the options both kinds take, then each
# kind's own. MySQL 9 starts its X plugin on a port of its own unless told
# not to, and limits LOAD DATA and SELECT INTO OUTFILE to a folder unless
# --secure-file-priv is empty.
server_argv() {
	local user_opt=()
	[ "$(id -u)" -eq 0 ] && user_opt=(--user=root)
	case "$kind" in
	mariadb) echo mariadbd ;;
	mysql) printf '%s\n' chroot "$root" mysqld ;;
	mariadb11) printf '%s\n' chroot "$root" mariadbd ;;
	esac
	printf '%s\n' --no-defaults "${user_opt[@]}" \
		--datadir="$dir/data" --tmpdir="$dir/tmp" \
		--socket="$sock" --pid-file="$dir/server.pid" \
		--log-error="$dir/error.log" \
		--port="$(cat "$dir/port")" --bind-address=127.0.0.1 \
		--skip-name-resolve --skip-log-bin \
		--performance-schema=ON \
		--performance-schema-instrument='memory/%=ON' \
		--performance-schema-consumer-events-statements-current=ON \
		--innodb-buffer-pool-size=64M \
		--max-connections=100
	case "$kind" in
	mariadb) echo --innodb-log-file-size=16M ;;
	# MariaDB 11.4 and later make themselves a certificate at start: off,
	# so that the sandbox is a server without TLS as 10.11's is (test_tls
	# starts one with its certificates, whose options come later and win).
	mariadb11) printf '%s\n' --innodb-log-file-size=16M --skip-ssl ;;
	mysql) printf '%s\n' --mysqlx=OFF --secure-file-priv= ;;
	esac
	# Split at spaces, as documented above.
	[ -z "${MMP_SANDBOX_EXTRA_ARGS:-}" ] || printf '%s\n' ${MMP_SANDBOX_EXTRA_ARGS}
}

# Starts the server once on the port in $dir/port; returns 0 when it
# answers, 1 when it died (the caller may retry on another port), 2 on
# timeout.
launch() {
	local pid waited=0 argv=()
	server_argv >"$dir/launch"
	mapfile -t argv <"$dir/launch"
	: >"$dir/error.log"
	"${argv[@]}" </dev/null >/dev/null 2>&1 9>&- 8>&- &
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

# MySQL 9 has no mysql_native_password: its accounts take the default,
# caching_sha2_password, which Debian 12's Connector/C speaks over the
# socket and over TLS.
setup_accounts() {
	# Anonymous accounts would shadow the named ones on localhost; only
	# mariadb-install-db makes them.
	if [ "$kind" != mysql ]; then
		root_sql -e "DELETE FROM mysql.global_priv WHERE User = ''; FLUSH PRIVILEGES;"
	fi
	root_sql <<-'SQL'
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
		remove_folder
	fi
	[ ${#sock} -lt 100 ] || die "socket path $sock is too long (${#sock} chars); set a shorter MMP_SANDBOX_DIR"

	make_folder

	if ! init_datadir >"$dir/install.log" 2>&1; then
		tail -n 20 "$dir/install.log" >&2
		die "making the data folder failed (log: $dir/install.log)"
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

# The sandbox's folder; for MySQL, inside the root with a link to it.
make_folder() {
	if [ -n "$root" ]; then
		"$here/root.sh" "$suite" ensure server
		rm -rf --one-file-system "${root:?}$dir"
		mkdir -p "$root$dir"
		chmod 700 "$root$dir"
		mkdir -p "$(dirname "$dir")"
		ln -s "$root$dir" "$dir"
	else
		mkdir -p "$dir"
		chmod 700 "$dir"
	fi
	: >"$marker"
	echo "$kind" >"$dir/kind"
	mkdir "$dir/data" "$dir/tmp"
}

init_datadir() {
	local user_opt=()
	[ "$(id -u)" -eq 0 ] && user_opt=(--user=root)
	# Split at spaces, as documented above.
	user_opt+=(${MMP_SANDBOX_INIT_ARGS:-})
	case "$kind" in
	mariadb)
		mariadb-install-db --no-defaults --datadir="$dir/data" \
			--auth-root-authentication-method=normal --skip-test-db \
			--skip-name-resolve "${user_opt[@]}"
		;;
	mariadb11)
		# --force: the root has no /etc/hosts, and the script refuses
		# a host name it cannot resolve, which --skip-name-resolve
		# never asks it to.
		chroot "$root" mariadb-install-db --no-defaults --datadir="$dir/data" \
			--auth-root-authentication-method=normal --skip-test-db \
			--skip-name-resolve --force "${user_opt[@]}"
		;;
	mysql)
		chroot "$root" mysqld --no-defaults --initialize-insecure \
			"${user_opt[@]}" --datadir="$dir/data"
		;;
	esac
}

# Removes the folder (and, for MySQL, what the link points at).
remove_folder() {
	local real
	if [ -L "$dir" ]; then
		real=$(readlink "$dir")
		rm -f "$dir"
		rm -rf --one-file-system "$real"
	else
		rm -rf --one-file-system "$dir"
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
	remove_folder
	# A command waiting on the lock holds it open; it still works.
	rm -f "$dir.lock"
}

cmd_env() {
	is_running || die "not running in $dir; run: $0 start"
	printf "MMP_SOCKET='%s'\nMMP_PORT='%s'\nMMP_HOST='127.0.0.1'\nMMP_DIR='%s'\n" \
		"$sock" "$(cat "$dir/port")" "$dir"
	printf "MMP_SERVER='%s'\nMMP_SERVER_VERSION='%s'\nMMP_ROOT='%s'\n" \
		"$(running_kind)" "$(root_sql -N -B -e 'SELECT VERSION()')" "$root"
}

# The kind of the server running in the folder, whatever MMP_SERVER says.
running_kind() {
	cat "$dir/kind" 2>/dev/null || echo "$kind"
}

cmd_status() {
	local pid
	if is_running; then
		pid=$(server_pid)
		echo "sandbox: $(running_kind) running (pid $pid, socket $sock, port $(cat "$dir/port"))"
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
