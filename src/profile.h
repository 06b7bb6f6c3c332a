/*
 * What the profile formats (folded, pprof) share: which sample a profile
 * shows (--profile-at), the frames an instrument name makes, the extra
 * root frame (--profile-root), and how odd bytes and negative counters are
 * made fit for profilers. Pure: no I/O.
 */
#ifndef MYSQLMEMPROF_PROFILE_H
#define MYSQLMEMPROF_PROFILE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "sample.h"

/* --profile-at: which moment of the capture a profile shows. */
enum profile_at {
	PROFILE_AT_LAST, /* the last sample taken (default) */
	PROFILE_AT_PEAK, /* the sample with the largest total */
	PROFILE_AT_EACH, /* every sample, each into a file of its own (outfile.h) */
};

/* --profile-root: a frame above every instrument, or none. */
enum profile_root {
	PROFILE_ROOT_NONE,
	PROFILE_ROOT_THREAD,    /* "thread 42", or the grain: "global", ... */
	PROFILE_ROOT_STATEMENT, /* the statement's text, its digest, or "no statement" */
};

/*
 * The sample a profile will show, copied: the ring holds only --window
 * samples, and a peak may have left it long before the end.
 */
struct profile_keep {
	enum profile_at at;
	bool peak_of_filtered; /* the peak is of filtered_total_bytes (--events) */
	bool has;
	struct sample s;           /* s.events points at events */
	struct event_stat *events; /* owned */
	size_t cap;
};

/*
 * Offers a sample: it is kept when it is the one --profile-at asks for so
 * far. Returns 0, or -1 with errno set (out of memory).
 */
int profile_keep_offer(struct profile_keep *k, const struct sample *s);
/* Forgets the sample kept (a new capture begins); keeps the storage. */
void profile_keep_reset(struct profile_keep *k);
void profile_keep_free(struct profile_keep *k);

/*
 * Counters as profilers take them. CURRENT_ bytes and counts can be
 * negative (memory freed by a thread other than the one that allocated
 * it): a profile shows 0 there, as a heap holds no negative bytes and a
 * negative leaf would shrink every frame above it.
 */
static inline int64_t
profile_current(int64_t v)
{
	return v < 0 ? 0 : v;
}

/* SUM_ and COUNT_ are unsigned; a profile value is int64. */
static inline int64_t
profile_counter(uint64_t v)
{
	return v > INT64_MAX ? INT64_MAX : (int64_t)v;
}

/*
 * The frames of an instrument name, general first: "memory/innodb/row0sel"
 * has 3, each ending before a '/' or at the end. An empty part ("a//b")
 * is still a frame, so every name keeps its depth.
 */
size_t profile_frames(const char *name);
/* The length of the first n frames of name, without the '/' after them. */
size_t profile_prefix(const char *name, size_t n);

/*
 * Copies n bytes of s into dst (size bytes, at least 4) as valid UTF-8
 * without control characters: each control character becomes a space, a
 * byte that starts no UTF-8 sequence U+FFFD. It is cut at a character.
 * Returns the length written (dst is NUL-terminated).
 */
size_t profile_clean(char *dst, size_t size, const char *s, size_t n);

/*
 * The root frame --profile-root asks for, cleaned, into buf; NULL for
 * none. grain: as struct output has it, NULL for a thread.
 */
const char *profile_root_frame(enum profile_root r, const struct sample *s,
    const char *grain, char *buf, size_t size);

#endif
