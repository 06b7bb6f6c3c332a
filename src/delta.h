/*
 * What each event of a thread did between two readings. The table keeps
 * the previous reading's counters of every event, not only the kept ones,
 * so an event that enters the top-N late still gets true deltas.
 */
#ifndef MYSQLMEMPROF_DELTA_H
#define MYSQLMEMPROF_DELTA_H

#include <stdbool.h>
#include <stddef.h>

#include "sample.h"

struct delta_table;

/* An empty table; NULL when out of memory. The caller owns it. */
struct delta_table *delta_table_create(void);
void delta_table_free(struct delta_table *t);

/*
 * Sets ev[i].delta for each of the n events against the previous reading,
 * then keeps this one's counters for the next call. Returns 1, 0 for the
 * first reading (every delta zero), or -1 when out of memory.
 */
int delta_table_update(struct delta_table *t, struct event_stat *ev,
    size_t n);

/*
 * delta_table_update() for reading seq, which says its events are those
 * of reading after, none moved (unmoved, source.h): when the last update
 * was of that reading, in the same memory, and found nothing moved, the
 * deltas it zeroed stand and nothing is compared.
 */
int delta_table_update_marked(struct delta_table *t, struct event_stat *ev,
    size_t n, uint64_t seq, uint64_t after, bool unmoved);

/*
 * Whether the last update had a previous reading with the same events in
 * the same places and found none of them moved: every delta zero, and
 * what follows from the counters alone the same as for that reading.
 */
bool delta_table_still(const struct delta_table *t);

/*
 * What a sample says over the n events of its reading, from their deltas:
 * the bytes allocated since the previous sample, the events below zero
 * and their sum, and the thread total at the largest peak between the two
 * samples (s->total_bytes with that one event at its peak); without
 * deltas (the first sample) only the events below zero. Needs
 * s->total_bytes and s->has_deltas set.
 */
void delta_sums(struct sample *s, const struct event_stat *ev, size_t n);

/* How many events the table has room for: it grows only with the reading. */
size_t delta_table_capacity(const struct delta_table *t);

#endif
