/*
 * The kernel's own line on an OOM kill, read from its log (/dev/kmsg):
 * the evidence that the kernel, not a crash, ended the server, and at
 * which limit ("Memory cgroup out of memory: Killed process 1234
 * (mariadbd) total-vm:..." or "oom-kill:...,task_memcg=/x,...,pid=1234,").
 * The parser takes one record's text, so the unit tests feed it fixtures.
 */
#ifndef MYSQLMEMPROF_KMSG_H
#define MYSQLMEMPROF_KMSG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define KMSG_PATH "/dev/kmsg"

struct kmsg_oom {
	uint64_t usec;  /* the record's time, microseconds after boot */
	bool killed;    /* "Killed process PID": else the "oom-kill:" line */
	char line[512]; /* its message, without the record's prefix */
};

/*
 * Whether one record of /dev/kmsg ("PRI,SEQ,USEC,FLAGS;MESSAGE", len
 * bytes; continuation lines after it are ignored) says the kernel killed
 * pid for memory; if so, its time and message into *out.
 */
bool kmsg_parse_oom(const char *record, size_t len, uint64_t pid,
    struct kmsg_oom *out);

/*
 * The kernel's line on killing pid, read from path (KMSG_PATH, or a test's
 * file) without waiting: the last "Killed process" record, else the last
 * "oom-kill:" one. 1 found, 0 none in what the log still holds, -1 with
 * errno (EPERM: reading the log needs CAP_SYSLOG when dmesg_restrict is 1).
 */
int kmsg_find_oom(const char *path, uint64_t pid, struct kmsg_oom *out);

#endif
