#!/bin/bash
# The shell loop people write around the mariadb client: every interval,
# the top 4 memory events of one thread, with a sleep after each query.
#
#   shell_sampler.sh -S SOCKET -u USER -t THREAD_ID [-i SECONDS] [-n COUNT]
#
# The password comes from $MYSQL_PWD, which the client reads. -n 0 (the
# default) runs until interrupted; -i defaults to 0.25.
set -eu

socket="" user="" thread="" interval=0.25 count=0
while getopts "S:u:t:i:n:" opt; do
	case $opt in
	S) socket=$OPTARG ;;
	u) user=$OPTARG ;;
	t) thread=$OPTARG ;;
	i) interval=$OPTARG ;;
	n) count=$OPTARG ;;
	*) echo "usage: $0 -S SOCKET -u USER -t THREAD_ID [-i SECONDS] [-n COUNT]" >&2; exit 2 ;;
	esac
done
[[ $thread =~ ^[0-9]+$ && $count =~ ^[0-9]+$ ]] || { echo "$0: -t and -n take numbers" >&2; exit 2; }

query="SELECT event_name, current_number_of_bytes_used
FROM performance_schema.memory_summary_by_thread_by_event_name
WHERE thread_id = $thread
ORDER BY current_number_of_bytes_used DESC LIMIT 4"

taken=0
while :; do
	echo "## Memory usage at time $(date '+%F %T.%N') ##"
	mariadb --no-defaults -S "$socket" -u "$user" -N -B -e "$query"
	taken=$((taken + 1))
	[ "$count" -ne 0 ] && [ "$taken" -ge "$count" ] && break
	sleep "$interval"
done
