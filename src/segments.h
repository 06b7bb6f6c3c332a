/*
 * The black box's folder (--record DIR): its records in append-only
 * segments of JSON lines under DIR/segments, each named by the UTC time
 * of its first record, so that names sort as time does; a new segment
 * past a size or an age, the oldest removed to stay within --record-size
 * and --record-age, or for room on a full disk; each written line whole
 * in one write(), the segment synced when it is left and every few
 * seconds. Ages and cadence on the record's clock (struct segments), not
 * the wall clock's. DIR opened once, what is inside reached from its
 * descriptor without following links. One recorder a folder: DIR/lock is
 * held for as long as it records. Reading: the list of the segments,
 * oldest first (--read DIR by its path, the incidents by the recorder's
 * descriptor).
 */
#ifndef MYSQLMEMPROF_SEGMENTS_H
#define MYSQLMEMPROF_SEGMENTS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "clock.h"

/* The newest segment is synced at least this often while written. */
#define SEGMENTS_SYNC_MS 3000
/* A segment holds at most a 16th of --record-size, within these. */
#define SEGMENTS_MIN_BYTES ((uint64_t)64 << 10)
#define SEGMENTS_MAX_BYTES ((uint64_t)16 << 20)
/* And spans at most an eighth of --record-age, and an hour. */
#define SEGMENTS_MAX_MS (3600 * 1000)
/*
 * Returned by segments_turn(), segments_write(), segments_sync() and
 * segments_close() when the disk is full: at a write when no older
 * segment is left to make room (nothing of it was written); at the sync
 * or the close of a segment (XFS, btrfs, NFS and quotas may say so only
 * there), whose lines since the last sync may then be lost, and which is
 * left. The next turn begins a segment again, and the recording goes on.
 */
#define SEGMENTS_FULL (-2)

/* A segment begun by this run: when, on the record's clock. */
struct segments_mine {
	char name[64];
	int64_t begun_ms;
};

/*
 * The record's clock: the wall time at open plus the monotonic time
 * since, so that a step of the wall clock moves neither the cadence nor
 * the ages; the names and the lines keep the wall time.
 */
struct segments {
	char dir[4096];      /* DIR, for messages */
	int dirfd;           /* DIR, opened once */
	int segfd;           /* DIR/segments, reached from dirfd */
	int incfd;           /* DIR/incidents, reached from dirfd */
	int lockfd;
	int fd;              /* the segment written; -1: none yet */
	char name[64];       /* its name under DIR/segments */
	uint64_t bytes;      /* its size */
	struct clock clk;
	int64_t t0_ms;       /* the wall time at open */
	uint64_t t0_ns;      /* the monotonic time then */
	int64_t opened_ms;   /* on the record's clock: its beginning */
	int64_t synced_ms;   /* and its last sync */
	bool full;           /* its disk was full: a segment is begun again */
	bool room_due;       /* a sync said so: the next begun makes room */
	uint64_t max_bytes;  /* --record-size */
	int64_t max_age_ms;  /* --record-age */
	uint64_t segment_bytes;
	int64_t segment_ms;
	/* fdatasync(): a test's to replace, as no tmpfs fails a sync. */
	int (*sync)(int fd);
	/* This run's segments, in the order begun (owned, freed at close). */
	struct segments_mine *mine;
	size_t n_mine, cap_mine;
};

/*
 * Makes DIR (mode 0700: the records hold statements), DIR/segments and
 * DIR/incidents, refuses any of them another account owns or may write,
 * and takes the lock; clk is the record's clock (copied). Returns 0, or
 * -1 with err saying why and what to do.
 */
int segments_open(struct segments *g, const char *dir, uint64_t max_bytes,
    int64_t max_age_ms, const struct clock *clk, char *err, size_t errlen);

/* Now on the record's clock, in ms since the epoch. */
int64_t segments_now(const struct segments *g);

/*
 * Before a record of about n bytes, whose wall time wall_ms names a
 * segment begun for it: begins a new segment when there is none, or the
 * one written is full or old, and then removes the oldest beyond the
 * bounds. Returns 1 when a segment was begun (its first lines must say
 * what a reader needs to start there), 0 when not, SEGMENTS_FULL, or -1;
 * err is set with the last two.
 */
int segments_turn(struct segments *g, int64_t wall_ms, size_t n, char *err,
    size_t errlen);

/*
 * Appends n bytes of whole lines; syncs when due. 0, SEGMENTS_FULL (no
 * byte of them stays; or, from the sync, the segment is left), or -1;
 * err is set with the last two.
 */
int segments_write(struct segments *g, const void *p, size_t n, char *err,
    size_t errlen);

/*
 * Syncs the segment written now (an incident's line). 0, SEGMENTS_FULL
 * or -1; err is set with the last two.
 */
int segments_sync(struct segments *g, char *err, size_t errlen);

/*
 * Removes the oldest segments, never the one written, beyond --record-size
 * and --record-age; segments_turn() does at each new segment, the
 * recorder too while the server is away and nothing is written.
 */
void segments_prune(struct segments *g);

/*
 * Syncs and closes the segment, lets go of the lock and the folders.
 * Returns 0, or SEGMENTS_FULL or -1 with err set when the last sync or
 * the close failed.
 */
int segments_close(struct segments *g, char *err, size_t errlen);

/*
 * The segments under dir, oldest first: *paths, each a whole path,
 * allocated (dirlist_free()). Returns 0 (none is 0 with *n 0), or
 * -1 with errno set.
 */
int segments_list(const char *dir, char ***paths, size_t *n);
/*
 * The same of the folder segfd (the recorder's DIR/segments, reached
 * without following links): *names, each a name in it.
 */
int segments_list_at(int segfd, char ***names, size_t *n);

/* Whether name is a segment's: 20261127T031200.123Z.jsonl. */
bool segments_is_name(const char *name);

#endif
