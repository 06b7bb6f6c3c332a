/*
 * The memory cgroup a process is in, and its figures: usage, the limit the
 * kernel's OOM killer acts on, and its counts of OOM kills. cgroup v2
 * (memory.current, memory.max, memory.high, memory.events, memory.stat)
 * and v1's memory controller (memory.usage_in_bytes, memory.limit_in_bytes,
 * memory.oom_control, memory.stat). The parsers take text, so the unit
 * tests feed them fixtures; cgroup_find() and cgroup_read() open the files
 * under roots they are handed (a test's trees).
 */
#ifndef MYSQLMEMPROF_CGROUP_H
#define MYSQLMEMPROF_CGROUP_H

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
 * The folder of pid's memory cgroup into dir: from root proc's
 * PID/cgroup, under sys (CGROUP_SYS_ROOT; v1 in sys/memory, v2 in sys or,
 * on a hybrid machine, sys/unified), where its usage can be read. 0, or
 * -1 with errno (ENOENT: no memory cgroup of the process found there).
 */
int cgroup_find(const char *proc, const char *sys, uint64_t pid, char *dir,
    size_t len);

/*
 * The figures of the cgroup in dir into out's cgroup_* fields and
 * has_cgroup (nothing else of out is touched). Needs only the folder, so it
 * reads on after the process has died. 0, or -1 with errno when the usage
 * cannot be read (the cgroup was removed).
 */
int cgroup_read(const char *dir, struct process_memory *out);

#endif
