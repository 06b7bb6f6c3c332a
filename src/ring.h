/*
 * A fixed window of the most recent samples. All memory is allocated once
 * by ring_create(), so a run of any length uses the same memory.
 */
#ifndef MYSQLMEMPROF_RING_H
#define MYSQLMEMPROF_RING_H

#include <stddef.h>

#include "sample.h"

struct ring;

/* Room for `window` samples of up to `max_events` events each; NULL when out of memory. */
struct ring *ring_create(size_t window, size_t max_events);
void ring_free(struct ring *r);

/* The slot the next sample goes to; when the ring is full, the oldest one. */
struct sample *ring_slot(struct ring *r);
/*
 * Room for n finished statements in the slot ring_slot() last returned,
 * which its sample's finished then points to; NULL when out of memory.
 */
struct finished_statement *ring_finished(struct ring *r, size_t n);
/* Makes the slot returned by ring_slot() the newest sample. */
void ring_commit(struct ring *r);

size_t ring_len(const struct ring *r);
size_t ring_window(const struct ring *r);
size_t ring_max_events(const struct ring *r);
/* The i-th sample held, 0 being the oldest; i < ring_len(). */
const struct sample *ring_get(const struct ring *r, size_t i);

#endif
