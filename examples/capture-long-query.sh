#!/bin/sh
# capture-long-query.sh: wait for a statement matching a LIKE pattern, then
# record the memory of its connection with mysqlmemprof until the statement
# ends, in capture-YYYYmmdd-HHMMSS-ID.csv (UTC time).
#
# mysqlmemprof does all of this itself now, with --wait-for (see
# mysqlmemprof(1), WAITING FOR A STATEMENT, and nightly.cron beside this
# file); this script only keeps the old command line working:
#
#   mysqlmemprof --wait-for=PATTERN --longer-than=SECONDS --wait-timeout=SECONDS \
#       --format=csv --output='DIR/capture-%Y%m%d-%H%M%S-%c.csv'
#
# usage: capture-long-query.sh [-d dir] [-f ms] [-i seconds] [-m seconds]
#            [-t seconds] pattern [connection options]
#
#   pattern      a SQL LIKE pattern matched against the statement text
#                (performance_schema.threads.PROCESSLIST_INFO), e.g.
#                'INSERT INTO reports.%' or '%GROUP BY customer_id%'
#   -d dir       where to write the CSV file (default: .)
#   -f ms        mysqlmemprof --frequency (default: 250)
#   -i seconds   how often to look at the statement: --poll (default: 1)
#   -m seconds   only a statement running for at least this long:
#                --longer-than (default: 0)
#   -t seconds   how long to wait for the statement: --wait-timeout
#                (default: 600)
#
# Any argument after the pattern goes to mysqlmemprof, e.g.
# --defaults-extra-file=/etc/memprof.cnf or -h db1 -u prof. Without one, it
# reads ~/.my.cnf ([client]), which is what cron wants: a password on a
# command line is visible to every user of the machine. The account needs
# only: GRANT SELECT ON performance_schema.* TO ...
#
# The environment may name the program: MYSQLMEMPROF (default: mysqlmemprof).
#
# Exit status: that of mysqlmemprof: 0 when the capture ended normally, 1 on
# a runtime error, 2 on bad usage, and 3 when no statement matched in time
# (this script gave 1 for that before mysqlmemprof had --wait-for).
#
# From cron, e.g. every night at 02:10 for the report job, with flock(1) so
# two runs never overlap. cron turns an unescaped % into a newline, so each
# % of the pattern is written \% in the crontab:
#
#   10 2 * * * cd /var/lib/memprof && flock -n .lock /usr/local/share/mysqlmemprof/capture-long-query.sh -t 3600 -m 5 'INSERT INTO reports.\%' >>capture.log 2>&1

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
MYSQLMEMPROF=${MYSQLMEMPROF:-mysqlmemprof}

# A % in the directory would be taken for a conversion of the pattern.
case $dir in
*%*) dir=$(printf '%s' "$dir" | sed 's/%/%%/g') ;;
esac

# The file names have always been in UTC.
TZ=UTC0 exec "$MYSQLMEMPROF" "$@" --wait-for="$pattern" \
	--longer-than="$min_time" --poll=$((poll * 1000)) \
	--wait-timeout="$timeout" --frequency="$frequency" --format=csv \
	--output="$dir/capture-%Y%m%d-%H%M%S-%c.csv"
