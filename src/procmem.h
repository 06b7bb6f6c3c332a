/*
 * What the kernel's files say of a process, parsed from their text: its
 * resident pages (/proc/PID/status, else /proc/PID/smaps_rollup), and
 * whether a process id the server gave is that server (its binary and its
 * start time). No file is opened here (procfs.h opens them), so the unit
 * tests feed it fixture text.
 */
#ifndef MYSQLMEMPROF_PROCMEM_H
#define MYSQLMEMPROF_PROCMEM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "sample.h"

/*
 * A server process may seem to start this long after the server's UPTIME
 * says it did and still be the same run: UPTIME and the process's start
 * are whole seconds, and the kernel's boot time (btime) moves when the
 * clock is stepped. Before, there is no bound: a process starts before
 * the server it runs counts its uptime, by as long as its start takes
 * (performance_schema and the buffer pool allocated first, a busy host,
 * or a container's entry script that runs before exec).
 */
#define PROCMEM_CLOCK_SLACK_S 5

/*
 * The resident, anonymous and file bytes of /proc/PID/smaps_rollup's text
 * (Rss, Anonymous; file pages are the rest of Rss) into out, known set.
 * Returns 0, or -1 when a field is missing.
 */
int procmem_parse_rollup(const char *text, struct process_memory *out);

/*
 * The line "key: N kB" of a file that gives sizes so (status, smaps_rollup),
 * in bytes; -1 when it is missing or not a number of kB.
 */
int procmem_parse_kb(const char *text, const char *key, int64_t *bytes);

/* The same from /proc/PID/status (VmRSS, RssAnon), which needs no ptrace right. */
int procmem_parse_status(const char *text, struct process_memory *out);

/*
 * The start time of /proc/PID/stat's text, in clock ticks after boot
 * (field 22, counted after the last ')' since the name may hold any).
 */
int procmem_parse_start(const char *stat, uint64_t *ticks);

/* The boot time of /proc/stat's text ("btime"), seconds since the epoch. */
int procmem_parse_btime(const char *text, int64_t *btime_s);

/*
 * Whether a name is the server's binary: the last part of the path of
 * /proc/PID/exe (under chroot, the path inside its root; " (deleted)"
 * after an upgrade), or /proc/PID/comm, is mysqld or mariadbd.
 */
bool procmem_is_server_name(const char *path);

/* What the files of one process id say; NULL: could not be read. */
struct procmem_facts {
	const char *exe;       /* the target of /proc/PID/exe */
	const char *comm;      /* /proc/PID/comm, for when exe is not ours to read */
	const char *stat;      /* /proc/PID/stat */
	const char *proc_stat; /* /proc/stat */
	long ticks_per_s;      /* sysconf(_SC_CLK_TCK) */
};

enum procmem_trust {
	PROCMEM_TRUSTED,
	PROCMEM_NO_PID,      /* the server gave none (THREAD_OS_ID is NULL) */
	PROCMEM_NO_PROCESS,  /* no such process here: the server is elsewhere */
	PROCMEM_NOT_SERVER,  /* a process, but not mysqld or mariadbd */
	PROCMEM_OTHER_START, /* a server started after the one connected to */
	PROCMEM_UNREADABLE,  /* its files could not be read */
};

/*
 * Whether pid is the process of the server that started at boot_s (its
 * UPTIME's start), from the facts: a mysqld or mariadbd that started at or
 * before boot_s (a process that started after it reuses the id of an
 * ended one). *why says why not, for a note.
 */
enum procmem_trust procmem_trust(uint64_t pid, int64_t boot_s,
    const struct procmem_facts *f, char *why, size_t whylen);

#endif
