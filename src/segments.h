/*
 * The black box's folder (--record DIR): its records in append-only
 * segments of JSON lines under DIR/segments, each named by the UTC time
 * of its first record, so that names sort as time does; a new segment
 * past a size or an age, the oldest removed to stay within --record-size
 * and --record-age; each written line whole in one write(), the segment
 * synced when it is left and every few seconds. One recorder a folder:
 * DIR/lock is held for as long as it records. Reading: the list of the
 * segments, oldest first (--read DIR, the incidents).
 */
#ifndef MYSQLMEMPROF_SEGMENTS_H
#define MYSQLMEMPROF_SEGMENTS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* The newest segment is synced at least this often while written. */
#define SEGMENTS_SYNC_MS 3000
/* A segment holds at most a 16th of --record-size, within these. */
#define SEGMENTS_MIN_BYTES ((uint64_t)64 << 10)
#define SEGMENTS_MAX_BYTES ((uint64_t)16 << 20)
/* And spans at most an eighth of --record-age, and an hour. */
#define SEGMENTS_MAX_MS (3600 * 1000)

struct segments {
	char dir[4096];      /* DIR */
	int segfd;           /* DIR/segments */
	int lockfd;
	int fd;              /* the segment written; -1: none yet */
	char name[64];       /* its name under DIR/segments */
	uint64_t bytes;      /* its size */
	int64_t opened_ms;   /* the time of its first record */
	int64_t synced_ms;   /* of its last sync */
	uint64_t max_bytes;  /* --record-size */
	int64_t max_age_ms;  /* --record-age */
	uint64_t segment_bytes;
	int64_t segment_ms;
};

/*
 * Makes DIR (mode 0700: the records hold statements), DIR/segments and
 * DIR/incidents, and takes the lock. Returns 0, or -1 with err saying
 * why and what to do.
 */
int segments_open(struct segments *g, const char *dir, uint64_t max_bytes,
    int64_t max_age_ms, char *err, size_t errlen);

/*
 * Before a record of about n bytes written at now_ms: begins a new
 * segment when there is none, or the one written is full or old, and then
 * removes the oldest beyond the bounds. Returns 1 when a segment was
 * begun (its first lines must say what a reader needs to start there), 0
 * when not, -1 with err set.
 */
int segments_turn(struct segments *g, int64_t now_ms, size_t n, char *err,
    size_t errlen);

/* Appends n bytes of whole lines in one write; syncs when due. 0 or -1. */
int segments_write(struct segments *g, const void *p, size_t n,
    int64_t now_ms, char *err, size_t errlen);

/*
 * Removes the oldest segments, never the one written, beyond --record-size
 * and --record-age; segments_turn() does at each new segment, the
 * recorder too while the server is away and nothing is written.
 */
void segments_prune(struct segments *g, int64_t now_ms);

/* Syncs and closes the segment, and lets go of the lock. */
void segments_close(struct segments *g);

/*
 * The segments under dir, oldest first: *paths, each a whole path,
 * allocated (segments_list_free()). Returns 0 (none is 0 with *n 0), or
 * -1 with errno set.
 */
int segments_list(const char *dir, char ***paths, size_t *n);
void segments_list_free(char **paths, size_t n);

/* Whether name is a segment's: 20261127T031200.123Z.jsonl. */
bool segments_is_name(const char *name);

#endif
