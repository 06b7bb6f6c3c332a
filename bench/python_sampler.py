#!/usr/bin/python3
"""The Python sampler people write today, re-created for the benchmark.

It is the popular script: every interval it asks for the top 4 memory events
of one thread, prints them, then sleeps for the interval after the work
(time.sleep), so each sample comes later than the one before. Kept as it
is, with only what the benchmark needs added: --count to stop, connection
options, and --timing-log, which records time.monotonic() at the start of
each query in memory and writes it out at the end, so the log changes
neither the work nor the sleeping; --query-log, the same for the time each
query took (execute and fetch), in seconds. SIGINT ends it with its logs
written.

It uses Debian's python3-pymysql (or python3-mysqldb when that is the one
installed), hence the interpreter in the first line.
"""
import argparse
import datetime
import sys
import time

try:
    import pymysql as driver
except ImportError:  # pragma: no cover - depends on what is installed
    import MySQLdb as driver

QUERY = ("SELECT event_name, current_number_of_bytes_used "
         "FROM performance_schema.memory_summary_by_thread_by_event_name "
         "WHERE thread_id = %s "
         "ORDER BY current_number_of_bytes_used DESC LIMIT 4")


def format_bytes(size):
    """25.22Kb, as the script prints it."""
    for unit in ("b", "Kb", "Mb", "Gb"):
        if abs(size) < 1024:
            return "%.2f%s" % (size, unit)
        size /= 1024.0
    return "%.2fTb" % size


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--thread", type=int, required=True,
                    help="performance_schema THREAD_ID")
    ap.add_argument("--interval", type=float, default=0.25,
                    help="seconds to sleep after each sample (0.25)")
    ap.add_argument("--count", type=int, default=0,
                    help="stop after this many samples (0: never)")
    ap.add_argument("-S", "--socket", default=None)
    ap.add_argument("-H", "--host", default="localhost")
    ap.add_argument("-P", "--port", type=int, default=3306)
    ap.add_argument("-u", "--user", default="root")
    ap.add_argument("-p", "--password", default="")
    ap.add_argument("--timing-log", default=None,
                    help="write the monotonic start of each query here")
    ap.add_argument("--query-log", default=None,
                    help="write the time each query took here")
    args = ap.parse_args()

    conn_args = dict(user=args.user, password=args.password)
    if args.socket:
        conn_args["unix_socket"] = args.socket
    else:
        conn_args.update(host=args.host, port=args.port)
    db = driver.connect(**conn_args)
    cursor = db.cursor()

    starts = [] if args.timing_log else None
    took = [] if args.query_log else None
    taken = 0
    try:
        while True:
            if starts is not None:
                starts.append(time.monotonic())
            if took is not None:
                t0 = time.monotonic()
            cursor.execute(QUERY, (args.thread,))
            rows = cursor.fetchall()
            if took is not None:
                took.append(time.monotonic() - t0)
            print("## Memory usage at time %s ##" % datetime.datetime.now())
            for name, used in rows:
                print(" %s -> %s" % (name, format_bytes(used)))
            taken += 1
            if args.count and taken >= args.count:
                break
            time.sleep(args.interval)
    except KeyboardInterrupt:
        pass
    finally:
        db.close()
        if starts is not None:
            with open(args.timing_log, "w") as f:
                f.write("".join("%.9f\n" % t for t in starts))
        if took is not None:
            with open(args.query_log, "w") as f:
                f.write("".join("%.9f\n" % t for t in took))
    return 0


if __name__ == "__main__":
    sys.exit(main())
