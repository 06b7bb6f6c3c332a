/*
 * While waiting: the latest readings of the threads that could be found,
 * so that a capture begins with its thread's memory from before it was
 * found, back to the start of its statement where the history reaches.
 *
 * Bounded: at most HISTORY_THREADS threads (the largest of each look),
 * each with its last `depth` readings of at most max_events events, and
 * depth is lowered so that all of it stays within HISTORY_MAX_BYTES.
 */
#ifndef MYSQLMEMPROF_HISTORY_H
#define MYSQLMEMPROF_HISTORY_H

#include <stddef.h>
#include <stdint.h>

#include "match.h"
#include "sample.h"
#include "statement.h"

/* Threads kept per look: the largest candidates. */
#define HISTORY_THREADS 8
/* The most the history may hold, events and readings together. */
#define HISTORY_MAX_BYTES ((size_t)64 << 20)

/* One reading of one thread, taken while waiting. */
struct history_reading {
	struct stmt_match stmt;      /* what the thread ran, as the look saw it */
	struct statement statement;  /* the same, as a sample shows it */
	uint64_t mono_ns;            /* when it was taken, monotonic clock */
	int64_t wall_ms;             /* the same, wall clock */
	struct event_stat *events;   /* owned by the history */
	size_t n;
};

struct history;

/*
 * Room for the last depth readings (--window) of HISTORY_THREADS threads
 * of up to max_events events each (the server's memory instruments),
 * depth lowered to fit HISTORY_MAX_BYTES. NULL when out of memory.
 */
struct history *history_create(size_t depth, size_t max_events);
void history_free(struct history *h);

/* The readings kept per thread, after the cap; at least 1. */
size_t history_depth(const struct history *h);

/*
 * A look begins: history_add() then takes its readings, and
 * history_end_look() forgets the threads it did not add to, so the
 * history holds only threads of the latest look.
 */
void history_begin_look(struct history *h);
/*
 * Adds a copy of a reading of stmt->thread_id, its oldest reading going
 * when depth are held; events past max_events are left out. Returns -1
 * when out of memory, or when the look added HISTORY_THREADS threads
 * already.
 */
int history_add(struct history *h, const struct history_reading *r);
void history_end_look(struct history *h);

/*
 * The readings of m's statement, oldest first: the newest run of readings
 * of its thread that show that statement. The newest must show m
 * (match_same() but for the count of ended statements, which the readings
 * need not have); the others, when the server gave statement ids, the
 * newest one's id and start, whatever their text, else the same as m.
 * Fills out with up to max pointers, valid until the next history_add()
 * or history_begin_look(); returns how many.
 */
size_t history_take(const struct history *h, const struct stmt_match *m,
    const struct history_reading **out, size_t max);

#endif
