/*
 * The black box's heap profiles (--record DIR, issue 34): the newest
 * jemalloc dumps of the recorded server copied whole into DIR/heap, so
 * that an incident's page can draw the last one before it. A dump is
 * copied raw (named at the incident, from its own MAPPED_LIBRARIES), as
 * STAMP-PID.SEQ.heap, STAMP the UTC time jemalloc wrote it, so that names
 * sort as time does; through a temporary name, whole or not at all. At
 * most HEAP_KEEP_DUMPS are kept, and their bytes within the bound given
 * (the record's share of --record-size): the oldest go first. A dump
 * being written or cut short does not parse and is not copied; nothing
 * outside DIR/heap is written or removed.
 */
#ifndef MYSQLMEMPROF_HEAPKEEP_H
#define MYSQLMEMPROF_HEAPKEEP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "clock.h"
#include "gate.h"
#include "session.h"
#include "source.h"

#define HEAP_KEEP_DUMPS 3
/* How often the source looks for a new dump. */
#define HEAP_KEEP_EVERY_NS (60 * 1000000000ull)

/* One dump kept. */
struct heap_kept {
	char name[96];          /* under DIR/heap */
	int64_t ms;             /* when jemalloc wrote it, UTC */
	uint64_t size;          /* of the file */
	int64_t total_bytes;    /* the profile's total */
};

struct heap_keep {
	int fd;                 /* DIR/heap; -1: not open */
	uint64_t max_bytes;     /* the dumps kept, together */
	struct heap_kept kept[HEAP_KEEP_DUMPS + 1]; /* oldest first */
	size_t n;
	uint64_t bytes;         /* of the files kept */
	uint64_t copies;        /* dumps copied by this run */
	/* The source's (heap_keep_source()), set by the capture: */
	uint64_t every_ns;      /* 0: HEAP_KEEP_EVERY_NS */
	struct source inner;
	struct session *session;
	const struct clock *clk;
	const char *proc;       /* NULL: /proc */
	void (*notify)(void *ctx, const char *msg);
	void *notify_ctx;
	struct gate gate;
	bool said;              /* the note of a server not profiled */
	/* The process last seen profiled, and where it writes its dumps. */
	pid_t pid;              /* 0: none yet */
	char prefix[4096];
};

/*
 * Makes DIR/heap (0700) from dirfd (DIR, opened by the recorder), opens
 * it without following a link, takes the dumps an earlier run kept and
 * removes what a crash left half-written. 0, or -1 with err set.
 */
int heap_keep_open(struct heap_keep *k, int dirfd, const char *dir,
    uint64_t max_bytes, char *err, size_t errlen);
void heap_keep_close(struct heap_keep *k);

/*
 * Copies the newest whole dump of pid under prefix (heap_find_files())
 * when it is newer than the newest kept, then removes the oldest beyond
 * the bounds. 1 when one was copied, 0 when none was new, whole or small
 * enough (why says which when given), -1 with err set.
 */
int heap_keep_dumps(struct heap_keep *k, const char *prefix, pid_t pid,
    char *why, size_t whylen);

/*
 * Looks again now (an incident begins) for a newer dump of the process
 * last seen profiled, even when it has gone: its last dumps are beside
 * its prefix still. 1 when one was copied, else 0.
 */
int heap_keep_again(struct heap_keep *k);

/*
 * The last dump kept written at or before ms, and in *base the one
 * before it (NULL: none); NULL when none was.
 */
const struct heap_kept *heap_keep_before(const struct heap_keep *k,
    int64_t ms, const struct heap_kept **base);

/*
 * The whole of the regular file name in the folder dirfd (no link
 * followed), at most max bytes, into an allocated buffer of *len bytes;
 * NULL when it is none, larger, or changed size while read (a dump
 * jemalloc is still writing).
 */
char *heap_keep_read(int dirfd, const char *name, uint64_t max, size_t *len);

/*
 * Reads inner, then, every every_ns when the server's process is here
 * (its pid trusted through /proc) and profiled, keeps its newest dump.
 * A server not profiled is said once through notify.
 */
struct source heap_keep_source(struct heap_keep *k);

#endif
