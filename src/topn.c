/*
 * Top-N by sorting pointers: a thread has a few hundred events at most, so
 * a qsort of pointers costs microseconds and never moves the events.
 */
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

size_t
topn_select(const struct event_stat *src, size_t n, size_t k,
    const struct event_stat **order)
{
	for (size_t i = 0; i < n; i++)
		order[i] = &src[i];
	qsort(order, n, sizeof(*order), by_current_desc);
	return k == 0 || k > n ? n : k;
}
