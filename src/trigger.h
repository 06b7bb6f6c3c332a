/*
 * The flight recorder's decisions (--trigger-bytes, --trigger-hold): which
 * samples are written and when. Only the totals and times of the samples
 * drive it, so tests need neither output nor clock.
 */
#ifndef MYSQLMEMPROF_TRIGGER_H
#define MYSQLMEMPROF_TRIGGER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "ring.h"
#include "sample.h"

struct trigger {
	int64_t threshold;       /* --trigger-bytes */
	uint64_t hold_us;        /* --trigger-hold */
	bool writing;            /* since the total reached the threshold */
	bool below;              /* writing, and below it since ... */
	uint64_t below_since_us; /* ... this due time */
	uint64_t written;        /* seq of the last sample written; 0: none */
};

enum trigger_action {
	TRIGGER_HOLD,  /* keep the sample in the ring, write nothing */
	TRIGGER_START, /* the total reached it: write what is held, then it */
	TRIGGER_WRITE, /* write the sample */
};

void trigger_init(struct trigger *t, int64_t threshold, uint64_t hold_us);

/*
 * Decides for s, the newest sample. A sample is written from the one whose
 * total reaches the threshold on, while the total stays at or above it or
 * has been below it for less than the hold, counted between the times the
 * samples were due.
 */
enum trigger_action trigger_next(struct trigger *t, const struct sample *s);

/* The index in r of the oldest sample not written; ring_len(r) when none. */
size_t trigger_unwritten(const struct trigger *t, const struct ring *r);

/* Records that the sample seq, and every one before it, was written. */
void trigger_written(struct trigger *t, uint64_t seq);

#endif
