#!/bin/sh
# capture-long-query.sh: wait for a statement matching a LIKE pattern, then
# record the memory of its connection with mysqlmemprof until the statement
# ends, in capture-YYYYmmdd-HHMMSS-ID.csv (UTC time).
#
# usage: capture-long-query.sh [-d dir] [-f ms] [-i seconds] [-m seconds]
#            [-t seconds] pattern [connection options]
#
#   pattern      a SQL LIKE pattern matched against the statement text
#                (performance_schema.threads.PROCESSLIST_INFO), e.g.
#                'INSERT INTO reports.%' or '%GROUP BY customer_id%'
#   -d dir       where to write the CSV file (default: .)
#   -f ms        mysqlmemprof --frequency (default: 250)
#   -i seconds   how often to look at the statement (default: 1)
#   -m seconds   only a statement running for at least this long (default: 0)
#   -t seconds   how long to wait for the statement (default: 600)
#
# Any argument after the pattern goes to both the mysql client and
# mysqlmemprof, e.g. --defaults-extra-file=/etc/memprof.cnf or -h db1 -u prof.
# Without one, both read ~/.my.cnf ([client]), which is what cron wants: a
# password on a command line is visible to every user of the machine.
# The account needs only: GRANT SELECT ON performance_schema.* TO ...
#
# The environment may name the programs: MYSQL (default: mariadb, else
# mysql) and MYSQLMEMPROF (default: mysqlmemprof).
#
# Exit status: that of mysqlmemprof (0 when the capture ended normally), 1
# when no statement matched in time or the server could not be asked, 2 on
# bad usage.
#
# From cron, e.g. every night at 02:10 for the report job, with flock(1) so
# two runs never overlap. cron turns an unescaped % into a newline, so each
# % of the pattern is written \% in the crontab:
#
#   10 2 * * * cd /var/lib/memprof && flock -n .lock /usr/local/share/mysqlmemprof/capture-long-query.sh -t 3600 -m 5 'INSERT INTO reports.\%' >>capture.log 2>&1
#
# How the pattern reaches the server safely: it is never spliced into SQL
# text. The script sends it as a hexadecimal literal, X'4142...', made by
# od(1) from its bytes, and the server turns it back into a string with
# CONVERT(... USING utf8mb4). The SQL the script sends contains only hex
# digits where the pattern goes, so no quote, backslash, multibyte character
# or sql_mode (NO_BACKSLASH_ESCAPES, ANSI_QUOTES) can change its meaning.
# Escaping ' and \ by hand would depend on sql_mode and on the connection's
# character set. A side effect: the script's own query never matches the
# pattern, since its text holds the pattern in hex only.
#
# mysqlmemprof stops on its own when the thread ends. To stop it when the
# statement ends (the connection goes idle, or runs another statement), the
# script watches the connection and sends SIGTERM, on which mysqlmemprof
# finishes the sample in progress, closes the CSV properly and exits 0.
# SIGTERM rather than SIGINT: a shell script starts background programs with
# SIGINT ignored.

set -u

prog=${0##*/}
dir=.
frequency=250
poll=1
min_time=0
timeout=600

usage() {
	echo "usage: $prog [-d dir] [-f ms] [-i seconds] [-m seconds] [-t seconds] pattern [connection options]" >&2
	exit 2
}

# A decimal number, or exit 2 naming the option.
number() {
	case $2 in
	'' | *[!0-9]*) echo "$prog: -$1 $2: not a number" >&2; exit 2 ;;
	esac
}

while getopts d:f:i:m:t: opt; do
	case $opt in
	d) dir=$OPTARG ;;
	f) number f "$OPTARG"; frequency=$OPTARG ;;
	i) number i "$OPTARG"; poll=$OPTARG ;;
	m) number m "$OPTARG"; min_time=$OPTARG ;;
	t) number t "$OPTARG"; timeout=$OPTARG ;;
	*) usage ;;
	esac
done
shift $((OPTIND - 1))
[ $# -ge 1 ] || usage
pattern=$1
shift
[ -n "$pattern" ] || { echo "$prog: the pattern is empty" >&2; exit 2; }
[ "$poll" -ge 1 ] || { echo "$prog: -i must be at least 1" >&2; exit 2; }
if ! [ -d "$dir" ] || ! [ -w "$dir" ]; then
	echo "$prog: -d $dir: not a writable directory" >&2
	exit 2
fi

if [ -z "${MYSQL:-}" ]; then
	if command -v mariadb >/dev/null 2>&1; then MYSQL=mariadb; else MYSQL=mysql; fi
fi
MYSQLMEMPROF=${MYSQLMEMPROF:-mysqlmemprof}
command -v "$MYSQL" >/dev/null 2>&1 ||
	{ echo "$prog: $MYSQL: not found; set MYSQL to the mysql client" >&2; exit 1; }
command -v "$MYSQLMEMPROF" >/dev/null 2>&1 ||
	{ echo "$prog: $MYSQLMEMPROF: not found; set MYSQLMEMPROF or PATH" >&2; exit 1; }

# The pattern as a hexadecimal literal: only the digits 0-9a-f.
hex=$(printf '%s' "$pattern" | od -An -v -tx1 | tr -d ' \n')
like="CONVERT(X'$hex' USING utf8mb4)"

# Runs one query; connection options first, as the mysql client wants
# --defaults-file and --no-defaults before any other option.
sql() {
	"$MYSQL" "$@" --batch --skip-column-names --connect-timeout=10 -e "$query"
}

# The connection running a matching statement for longest, if any.
query="SELECT PROCESSLIST_ID FROM performance_schema.threads
 WHERE TYPE = 'FOREGROUND' AND PROCESSLIST_COMMAND = 'Query'
   AND PROCESSLIST_ID <> CONNECTION_ID()
   AND PROCESSLIST_TIME >= $min_time
   AND PROCESSLIST_INFO LIKE $like
 ORDER BY PROCESSLIST_TIME DESC LIMIT 1"

start=$(date +%s)
id=
while :; do
	id=$(sql "$@") ||
		{ echo "$prog: cannot query the server with $MYSQL (see above)" >&2; exit 1; }
	[ -n "$id" ] && break
	if [ $(($(date +%s) - start)) -ge "$timeout" ]; then
		echo "$prog: no statement like '$pattern' ran for ${min_time}s within ${timeout}s" >&2
		exit 1
	fi
	sleep "$poll"
done
case $id in
*[!0-9]*) echo "$prog: unexpected answer from the server: $id" >&2; exit 1 ;;
esac

# What identifies the statement: its text (as a digest) and its age, which
# only grows while the same statement runs. A new statement with the same
# text has a smaller age.
query="SELECT CONCAT(PROCESSLIST_TIME, ' ', MD5(PROCESSLIST_INFO))
  FROM performance_schema.threads
 WHERE PROCESSLIST_ID = $id AND PROCESSLIST_COMMAND = 'Query'"
state=$(sql "$@") || exit 1
[ -n "$state" ] || { echo "$prog: connection $id finished before the capture began" >&2; exit 1; }
digest=${state#* }
age=${state%% *}

out="$dir/capture-$(date -u +%Y%m%d-%H%M%S)-$id.csv"
echo "$prog: connection $id runs a statement like '$pattern' for ${age}s; writing $out" >&2
"$MYSQLMEMPROF" "$@" --connection="$id" --frequency="$frequency" \
	--format=csv --output="$out" &
pid=$!

# If this script is told to stop, let mysqlmemprof close its file first.
trap 'kill -TERM "$pid" 2>/dev/null' INT TERM HUP

while kill -0 "$pid" 2>/dev/null; do
	sleep "$poll"
	state=$(sql "$@") || continue # a failed look is no reason to stop
	if [ -z "$state" ] || [ "${state#* }" != "$digest" ] || [ "${state%% *}" -lt "$age" ]; then
		echo "$prog: the statement of connection $id has ended; stopping mysqlmemprof" >&2
		kill -TERM "$pid" 2>/dev/null
		break
	fi
	age=${state%% *}
done

# wait returns early when a trapped signal arrives; wait again until the
# capture has really ended.
while :; do
	wait "$pid"
	status=$?
	kill -0 "$pid" 2>/dev/null || break
done
echo "$prog: $out: mysqlmemprof exited with status $status" >&2
exit "$status"
