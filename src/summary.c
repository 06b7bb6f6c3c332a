/*
 * The summary sorts every (event, sample) pair of the window by name, then
 * folds each run of one name into a line: O(n log n) for the whole window,
 * where looking each name up in a list would be quadratic.
 */
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "summary.h"

struct occurrence {
	const struct event_stat *e;
	size_t age; /* index in the ring: 0 is the oldest sample */
	bool has_deltas; /* the sample's */
};

static int
by_name_then_age(const void *a, const void *b)
{
	const struct occurrence *x = a, *y = b;
	int c = strcmp(x->e->name, y->e->name);

	if (c != 0)
		return c;
	return (x->age > y->age) - (x->age < y->age);
}

static int
by_max_bytes(const void *a, const void *b)
{
	const struct summary_event *x = a, *y = b;

	if (x->max_bytes != y->max_bytes)
		return x->max_bytes < y->max_bytes ? 1 : -1;
	return strcmp(x->name, y->name);
}

static int
by_largest_peak(const void *a, const void *b)
{
	const struct summary_event *x = *(const struct summary_event *const *)a;
	const struct summary_event *y = *(const struct summary_event *const *)b;

	if (x->largest_unseen_peak != y->largest_unseen_peak)
		return x->largest_unseen_peak < y->largest_unseen_peak ? 1 : -1;
	return strcmp(x->name, y->name);
}

static void
fold_totals(const struct ring *r, struct summary *s)
{
	const struct sample *first = ring_get(r, 0);
	const struct sample *last = ring_get(r, s->n_samples - 1);

	s->first_seq = first->seq;
	s->last_seq = last->seq;
	s->first_elapsed_us = first->elapsed_us;
	s->last_elapsed_us = last->elapsed_us;
	s->thread_id = last->thread_id;
	s->min_total = s->max_total = first->total_bytes;
	for (size_t i = 0; i < s->n_samples; i++) {
		int64_t t = ring_get(r, i)->total_bytes;

		if (t < s->min_total)
			s->min_total = t;
		if (t > s->max_total)
			s->max_total = t;
	}
	s->last_total = last->total_bytes;
}

/* Folds the run occ[0..n), all of one name and oldest first, into *ev. */
static void
fold_event(const struct occurrence *occ, size_t n, struct summary_event *ev)
{
	/* A double holds the sum of any window without overflow. */
	double sum = 0;

	memcpy(ev->name, occ[0].e->name, sizeof(ev->name));
	ev->samples = n;
	ev->min_bytes = ev->max_bytes = occ[0].e->current_bytes;
	ev->high_bytes = occ[0].e->high_bytes;
	for (size_t i = 0; i < n; i++) {
		const struct event_stat *e = occ[i].e;

		if (e->current_bytes < ev->min_bytes)
			ev->min_bytes = e->current_bytes;
		if (e->current_bytes > ev->max_bytes)
			ev->max_bytes = e->current_bytes;
		if (e->high_bytes > ev->high_bytes)
			ev->high_bytes = e->high_bytes;
		if (occ[i].has_deltas && e->delta.unseen_peak &&
		    (ev->unseen_peaks++ == 0 ||
		    e->high_bytes > ev->largest_unseen_peak))
			ev->largest_unseen_peak = e->high_bytes;
		sum += (double)e->current_bytes;
	}
	ev->mean_bytes = sum / (double)n;
	ev->last_bytes = occ[n - 1].e->current_bytes;
}

/* The length of the run of one name starting at occ[0]. */
static size_t
run_length(const struct occurrence *occ, size_t n)
{
	size_t k = 1;

	while (k < n && strcmp(occ[k].e->name, occ[0].e->name) == 0)
		k++;
	return k;
}

static struct occurrence *
collect(const struct ring *r, size_t *np)
{
	struct occurrence *occ;
	size_t n = 0, k = 0;

	for (size_t i = 0; i < ring_len(r); i++)
		n += ring_get(r, i)->n_events;
	*np = n;
	if (n == 0)
		return NULL;
	if ((occ = calloc(n, sizeof(*occ))) == NULL)
		return NULL;
	for (size_t i = 0; i < ring_len(r); i++) {
		const struct sample *s = ring_get(r, i);

		for (size_t j = 0; j < s->n_events; j++)
			occ[k++] = (struct occurrence){ &s->events[j], i,
			    s->has_deltas };
	}
	qsort(occ, n, sizeof(*occ), by_name_then_age);
	return occ;
}

/* Points out->peaks at the events that peaked unseen. */
static int
list_peaks(struct summary *out)
{
	size_t n = 0;

	for (size_t i = 0; i < out->n_events; i++)
		n += out->events[i].unseen_peaks > 0;
	if (n == 0)
		return 0;
	if ((out->peaks = calloc(n, sizeof(*out->peaks))) == NULL) {
		summary_free(out);
		return -1;
	}
	for (size_t i = 0; i < out->n_events; i++)
		if (out->events[i].unseen_peaks > 0)
			out->peaks[out->n_peaks++] = &out->events[i];
	qsort(out->peaks, n, sizeof(*out->peaks), by_largest_peak);
	return 0;
}

int
summary_build(const struct ring *r, uint64_t skipped, struct summary *out)
{
	struct occurrence *occ;
	size_t n, names = 0;

	*out = (struct summary){ .skipped = skipped };
	if ((out->n_samples = ring_len(r)) == 0)
		return 0;
	fold_totals(r, out);
	if ((occ = collect(r, &n)) == NULL)
		return n == 0 ? 0 : -1;
	for (size_t i = 0; i < n; i += run_length(occ + i, n - i))
		names++;
	if ((out->events = calloc(names, sizeof(*out->events))) == NULL) {
		free(occ);
		return -1;
	}
	for (size_t i = 0, k; i < n; i += k) {
		k = run_length(occ + i, n - i);
		fold_event(occ + i, k, &out->events[out->n_events++]);
	}
	free(occ);
	qsort(out->events, out->n_events, sizeof(*out->events), by_max_bytes);
	return list_peaks(out);
}

void
summary_free(struct summary *s)
{
	free(s->events);
	free(s->peaks);
	s->events = NULL;
	s->peaks = NULL;
	s->n_events = 0;
	s->n_peaks = 0;
}
