/*
 * Between the sampler and the output: writes each sample as it comes, or,
 * with --trigger-bytes, holds the samples in the ring and writes them as
 * the trigger decides (trigger.h), and on SIGUSR1.
 */
#ifndef MYSQLMEMPROF_RECORDER_H
#define MYSQLMEMPROF_RECORDER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "output.h"
#include "ring.h"
#include "sample.h"
#include "trigger.h"

struct recorder {
	struct output *out;      /* not owned */
	const struct ring *ring; /* not owned; the samples held */
	bool triggered;          /* --trigger-bytes was given */
	struct trigger trigger;
	uint64_t crossings;      /* times the total reached the threshold */
	uint64_t written;        /* samples written */
};

/* threshold 0: no trigger, every sample is written. */
void recorder_init(struct recorder *rc, struct output *out,
    const struct ring *ring, int64_t threshold, uint64_t hold_us);

/* Takes s, the ring's newest sample. Returns 0, or -1 with errno set. */
int recorder_sample(struct recorder *rc, const struct sample *s);

/*
 * Writes the samples held and not written yet (SIGUSR1) and sets *n to how
 * many; nothing without a trigger. Returns 0, or -1 with errno set.
 */
int recorder_dump(struct recorder *rc, size_t *n);

#endif
