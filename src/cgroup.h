/*
 * The memory cgroup a process is in, and its figures: usage, the limit the
 * kernel's OOM killer acts on, and its counts of OOM kills; on v2 also the
 * threshold it throttles at, the times it did, and how long its tasks
 * waited for memory. cgroup v2 (memory.current, memory.max, memory.high,
 * memory.events, memory.pressure) and v1's memory controller
 * (memory.usage_in_bytes, memory.limit_in_bytes, memory.oom_control,
 * memory.stat). The limits change rarely and take a walk up the tree, so
 * they are read apart (cgroup_read_limits) from the counters of each
 * sample (cgroup_read_counts). The parsers take text, so the unit tests
 * feed them fixtures; the readers open the files under roots they are
 * handed (a test's trees).
 */
#ifndef MYSQLMEMPROF_CGROUP_H
#define MYSQLMEMPROF_CGROUP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "sample.h"

#define CGROUP_SYS_ROOT "/sys/fs/cgroup"

/*
 * v1 says "no limit" with the largest page count in bytes
 * (9223372036854771712 with 4 KiB pages); any limit at or above this is
 * none. No machine has 2^62 bytes.
 */
#define CGROUP_V1_NO_LIMIT ((int64_t)1 << 62)

/*
 * The memory cgroup in /proc/PID/cgroup's text: v1's line whose
 * controllers name "memory" (ID:memory:/path), else v2's "0::/path".
 * *version is 1 or 2, the path goes into path. -1 when neither is there.
 */
int cgroup_parse_membership(const char *text, int *version, char *path,
    size_t len);

/*
 * A limit file's text (memory.max, memory.high, memory.limit_in_bytes):
 * bytes, or -1 for "max" and v1's no-limit value. -1 returned on junk.
 */
int cgroup_parse_limit(const char *text, int64_t *bytes);

/* A file of one count (memory.current, memory.usage_in_bytes). */
int cgroup_parse_count(const char *text, int64_t *n);

/*
 * The value of the line "key N" of memory.events, memory.stat or
 * memory.oom_control; -1 when there is none.
 */
int cgroup_parse_key(const char *text, const char *key, int64_t *n);

/*
 * The avg10 of memory.pressure's line kind ("some", "full"), in
 * hundredths of a percent; -1 when there is none or it is junk.
 */
int cgroup_parse_pressure(const char *text, const char *kind,
    int64_t *hundredths);

/*
 * The folder of pid's memory cgroup into dir: from root proc's
 * PID/cgroup, under sys (CGROUP_SYS_ROOT; v1 in sys/memory, v2 in sys or,
 * on a hybrid machine, sys/unified), where its usage can be read. 0, or
 * -1 with errno (ENOENT: no memory cgroup of the process found there).
 */
int cgroup_find(const char *proc, const char *sys, uint64_t pid, char *dir,
    size_t len);

/* What of a memory cgroup changes rarely: read at most once a minute. */
struct cgroup_limits {
	char dir[4096];
	int version;          /* 1 or 2 */
	int64_t limit_bytes;  /* the lowest max on its way up; -1: none */
	int64_t high_bytes;   /* v2: the lowest memory.high; -1: none */
	bool has_pressure;    /* v2: the kernel has PSI (memory.pressure) */
};

/*
 * The version and limits of the cgroup in dir into *l, walking up the
 * tree. 0, or -1 with errno (ENOENT: no memory cgroup there).
 */
int cgroup_read_limits(const char *dir, struct cgroup_limits *l);

/*
 * The counters of l's cgroup (its usage, events, pressure) and l's limits
 * into out's cgroup_* fields and has_cgroup (nothing else of out is
 * touched): the files of one sample. Needs only the folder, so it reads on
 * after the process has died. 0, or -1 with errno when the usage cannot be
 * read (the cgroup was removed).
 */
int cgroup_read_counts(const struct cgroup_limits *l,
    struct process_memory *out);

/* Both, for a reading on its own (--explain, an incident). */
int cgroup_read(const char *dir, struct process_memory *out);

#endif
