/* Choosing the events a sample keeps. */
#ifndef MYSQLMEMPROF_TOPN_H
#define MYSQLMEMPROF_TOPN_H

#include <stddef.h>

#include "sample.h"

/* At most this many spike events are kept on top of the top N. */
#define TOPN_MAX_SPIKES 16
/* The least allocated since the previous sample that makes a spike. */
#define TOPN_SPIKE_MIN_BYTES (1024 * 1024)

/*
 * Puts into order[] pointers to the k events of src[0..n) with the largest
 * current bytes, largest first (ties: larger high-water mark, then name);
 * k == 0 means all. order[] must hold n pointers; the events after the
 * first k are left in it in no order. Returns how many it kept.
 */
size_t topn_select(const struct event_stat *src, size_t n, size_t k,
    const struct event_stat **order);

/*
 * After topn_select() kept k of the n events in order[], also keeps up to
 * max_spikes of the others that spiked since the previous sample (see
 * topn.c), the largest spikes first. Returns the new count; order[] stays
 * largest current bytes first.
 */
size_t topn_add_spikes(const struct event_stat **order, size_t n, size_t k,
    size_t max_spikes);

#endif
