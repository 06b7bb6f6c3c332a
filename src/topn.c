/*
 * Top-N by ordering pointers, which never moves the events: a partial
 * insertion for a top N, a qsort for all of them.
 *
 * The spike rule: an event outside the top N is kept all the same when,
 * since the previous sample, it peaked unseen (its high-water mark rose
 * above the current bytes of both samples), or it allocated at least
 * TOPN_SPIKE_MIN_BYTES (1 MiB) and at least the smallest current bytes
 * among the top N: had it held what it allocated, it would have been in
 * the top N. Up to TOPN_MAX_SPIKES such events are kept, those with the
 * largest spike (the unseen peak or the bytes allocated, whichever is
 * larger) first. A sample can thus keep N + TOPN_MAX_SPIKES events.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "topn.h"

static int
by_current_desc(const void *a, const void *b)
{
	const struct event_stat *x = *(const struct event_stat *const *)a;
	const struct event_stat *y = *(const struct event_stat *const *)b;

	if (x->current_bytes != y->current_bytes)
		return x->current_bytes > y->current_bytes ? -1 : 1;
	if (x->high_bytes != y->high_bytes)
		return x->high_bytes > y->high_bytes ? -1 : 1;
	return strcmp(x->name, y->name);
}

/* x goes before y: by_current_desc() on the pointers themselves. */
static inline int
before(const struct event_stat *x, const struct event_stat *y)
{
	return by_current_desc(&x, &y) < 0;
}

/*
 * With k < n, only the first k need an order: each event is inserted into
 * the sorted first k, or left where it is, and one pushed out takes its
 * place. For a top 4 of a few dozen events that is a tenth of a qsort of
 * them all, paid on every sample; and most events have fewer bytes than
 * the least of the top k, which one comparison tells.
 */
size_t
topn_select(const struct event_stat *src, size_t n, size_t k,
    const struct event_stat **order)
{
	if (k == 0 || k >= n) {
		for (size_t i = 0; i < n; i++)
			order[i] = &src[i];
		if (n > 1) /* with none, order may be NULL: qsort may not take it */
			qsort(order, n, sizeof(*order), by_current_desc);
		return n;
	}
	for (size_t i = 0; i < n; i++) {
		const struct event_stat *e = &src[i];
		size_t j = i;

		if (i >= k) {
			const struct event_stat *least = order[k - 1];

			if (e->current_bytes < least->current_bytes ||
			    !before(e, least)) {
				order[i] = e;
				continue;
			}
			order[i] = least; /* pushed out, into e's place */
			j = k - 1;
		}
		for (; j > 0 && before(e, order[j - 1]); j--)
			order[j] = order[j - 1];
		order[j] = e;
	}
	return k;
}

/* How large a spike is: the unseen peak or the bytes allocated. */
static uint64_t
spike_bytes(const struct event_stat *e)
{
	uint64_t peak = e->delta.unseen_peak && e->high_bytes > 0 ?
	    (uint64_t)e->high_bytes : 0;

	return peak > e->delta.alloc_bytes ? peak : e->delta.alloc_bytes;
}

static int
by_spike_desc(const void *a, const void *b)
{
	const struct event_stat *x = *(const struct event_stat *const *)a;
	const struct event_stat *y = *(const struct event_stat *const *)b;
	uint64_t sx = spike_bytes(x), sy = spike_bytes(y);

	if (sx != sy)
		return sx > sy ? -1 : 1;
	return by_current_desc(a, b);
}

static int
is_spike(const struct event_stat *e, uint64_t min_alloc)
{
	return e->delta.unseen_peak || e->delta.alloc_bytes >= min_alloc;
}

size_t
topn_add_spikes(const struct event_stat **order, size_t n, size_t k,
    size_t max_spikes)
{
	int64_t least = k > 0 ? order[k - 1]->current_bytes : 0;
	uint64_t min_alloc = TOPN_SPIKE_MIN_BYTES;
	size_t found = 0;

	if (k >= n || max_spikes == 0)
		return k;
	if (least > 0 && (uint64_t)least > min_alloc)
		min_alloc = (uint64_t)least;
	/* Spikes move up behind the top N. */
	for (size_t i = k; i < n; i++)
		if (is_spike(order[i], min_alloc))
			order[k + found++] = order[i];
	if (found > max_spikes) {
		qsort(order + k, found, sizeof(*order), by_spike_desc);
		found = max_spikes;
	}
	/* Behind the top N the events are in no order (topn_select()). */
	if (found > 1)
		qsort(order + k, found, sizeof(*order), by_current_desc);
	return k + found;
}
