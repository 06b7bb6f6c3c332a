/*
 * The summary sorts every (event, sample) pair of the window by name, then
 * folds each run of one name into a line: O(n log n) for the whole window,
 * where looking each name up in a list would be quadratic. The share of
 * each statement is folded the same way over its own samples.
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

/*
 * The same grouping by the names' entries (names.h), for a ring whose
 * events all have one: a pointer comparison, where strcmp() cost a tenth
 * of a sample for each sample of the run. Only the grouping matters: the
 * events are ranked by by_max_bytes() afterwards.
 */
static int
by_entry_then_age(const void *a, const void *b)
{
	const struct occurrence *x = a, *y = b;
	uintptr_t p = (uintptr_t)x->e->interned, q = (uintptr_t)y->e->interned;

	if (p != q)
		return (p > q) - (p < q);
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

/*
 * The length of the run of one name starting at occ[0], grouped by their
 * entries (by_entry) or their names.
 */
static size_t
run_length(const struct occurrence *occ, size_t n, bool by_entry)
{
	size_t k = 1;

	while (k < n && (by_entry ? occ[k].e->interned == occ[0].e->interned :
	    strcmp(occ[k].e->name, occ[0].e->name) == 0))
		k++;
	return k;
}

#define GROUPS_MAX 32

/*
 * Puts base[0..n), elements of size bytes, in groups of one key each,
 * every group in the order its elements had, when they have at most
 * GROUPS_MAX keys: two passes and a copy, where sorting the 200 events of
 * a window of 50 samples of a top 4 cost some 80,000 instructions.
 * Returns false, base as it was, for more keys or out of memory.
 */
static bool
group_by_key(void *base, size_t n, size_t size,
    const void *(*key)(const void *))
{
	const void *keys[GROUPS_MAX];
	size_t at[GROUPS_MAX] = { 0 }, nk = 0, sum = 0;
	unsigned char *b = base, *tmp, *group;

	if ((group = malloc(n + n * size)) == NULL)
		return false;
	tmp = group + n;
	for (size_t i = 0; i < n; i++) {
		const void *k = key(b + i * size);
		size_t j = 0;

		while (j < nk && keys[j] != k)
			j++;
		if (j == nk && nk++ == GROUPS_MAX) {
			free(group);
			return false;
		}
		keys[j] = k;
		at[j]++;
		group[i] = (unsigned char)j;
	}
	for (size_t j = 0; j < nk; j++) {
		size_t c = at[j];

		at[j] = sum;
		sum += c;
	}
	for (size_t i = 0; i < n; i++)
		memcpy(tmp + at[group[i]]++ * size, b + i * size, size);
	memcpy(base, tmp, n * size);
	free(group);
	return true;
}

static const void *
occurrence_entry(const void *p)
{
	return ((const struct occurrence *)p)->e->interned;
}

/*
 * Every event of the ring, grouped by name, oldest first within each;
 * *by_entry says whether they were grouped by their entries.
 */
static struct occurrence *
collect(const struct ring *r, size_t *np, bool *by_entry)
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
	*by_entry = true;
	for (size_t i = 0; i < n && *by_entry; i++)
		*by_entry = occ[i].e->interned != NULL;
	/* Collected oldest first: a group keeps that order. */
	if (!*by_entry || !group_by_key(occ, n, sizeof(*occ),
	    occurrence_entry))
		qsort(occ, n, sizeof(*occ), *by_entry ? by_entry_then_age :
		    by_name_then_age);
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

/* An event of one sample, for the top events of a statement. */
struct named_bytes {
	const char *name;
	const struct event_name *interned; /* the event's, or NULL */
	int64_t bytes;
};

static int
by_name(const void *a, const void *b)
{
	return strcmp(((const struct named_bytes *)a)->name,
	    ((const struct named_bytes *)b)->name);
}

/*
 * The same grouping by the names' entries, when every event has one: as
 * by_entry_then_age(), only the grouping matters, keep_top() ranks.
 */
static int
by_entry(const void *a, const void *b)
{
	uintptr_t p = (uintptr_t)((const struct named_bytes *)a)->interned;
	uintptr_t q = (uintptr_t)((const struct named_bytes *)b)->interned;

	return (p > q) - (p < q);
}

static const void *
named_entry(const void *p)
{
	return ((const struct named_bytes *)p)->interned;
}

/* Whether x and y are one event's: by entry when both have one. */
static bool
same_event(const struct named_bytes *x, const struct named_bytes *y)
{
	if (x->interned != NULL && y->interned != NULL)
		return x->interned == y->interned;
	return strcmp(x->name, y->name) == 0;
}

/* Whether (name, bytes) goes before top[i]: more bytes, then the name. */
static bool
ranks_before(const struct summary_statement *st, size_t i, const char *name,
    int64_t bytes)
{
	if (bytes != st->top[i].max_bytes)
		return bytes > st->top[i].max_bytes;
	return strcmp(name, st->top[i].name) < 0;
}

/* Keeps (name, bytes) when it is among the largest of the statement. */
static void
keep_top(struct summary_statement *st, const char *name, int64_t bytes)
{
	size_t i = st->n_top;

	if (i == SUMMARY_STATEMENT_TOP) {
		if (!ranks_before(st, i - 1, name, bytes))
			return;
		i--;
	} else
		st->n_top++;
	for (; i > 0 && ranks_before(st, i - 1, name, bytes); i--)
		st->top[i] = st->top[i - 1];
	st->top[i].name = name;
	st->top[i].max_bytes = bytes;
}

/* Folds the n samples of the ring from first, all of one statement. */
static void
fold_statement(const struct ring *r, size_t first, size_t n,
    struct named_bytes *scratch, struct summary_statement *st)
{
	const struct sample *s = ring_get(r, first);
	size_t k = 0;
	bool entries = true;

	st->statement = &s->statement;
	st->samples = n;
	st->first_seq = s->seq;
	st->peak_total = s->total_bytes;
	for (size_t i = first; i < first + n; i++) {
		s = ring_get(r, i);
		if (s->total_bytes > st->peak_total)
			st->peak_total = s->total_bytes;
		for (size_t j = 0; j < s->n_events; j++) {
			const struct event_stat *e = &s->events[j];

			scratch[k++] = (struct named_bytes){ e->name,
			    e->interned, e->current_bytes };
			entries &= e->interned != NULL;
		}
	}
	st->last_seq = s->seq;
	st->final_total = s->total_bytes;
	/* By entry where each has one, as collect() does. */
	if (!entries || !group_by_key(scratch, k, sizeof(*scratch),
	    named_entry))
		qsort(scratch, k, sizeof(*scratch), entries ? by_entry :
		    by_name);
	for (size_t i = 0, j; i < k; i = j) {
		int64_t max = scratch[i].bytes;

		for (j = i + 1; j < k && same_event(&scratch[j], &scratch[i]);
		    j++)
			if (scratch[j].bytes > max)
				max = scratch[j].bytes;
		keep_top(st, scratch[i].name, max);
	}
}

/* Splits the window into runs of one statement. */
static int
list_statements(const struct ring *r, struct summary *out)
{
	size_t n = ring_len(r), runs = 1, events = 0;
	struct named_bytes *scratch;

	for (size_t i = 0; i < n; i++) {
		events += ring_get(r, i)->n_events;
		if (i > 0 && !statement_same(&ring_get(r, i - 1)->statement,
		    &ring_get(r, i)->statement))
			runs++;
	}
	out->statements = calloc(runs, sizeof(*out->statements));
	scratch = malloc((events > 0 ? events : 1) * sizeof(*scratch));
	if (out->statements == NULL || scratch == NULL) {
		free(scratch);
		return -1;
	}
	for (size_t i = 0, k = 1; i < n; i += k) {
		const struct statement *st = &ring_get(r, i)->statement;

		for (k = 1; i + k < n &&
		    statement_same(st, &ring_get(r, i + k)->statement); k++)
			;
		fold_statement(r, i, k, scratch,
		    &out->statements[out->n_statements++]);
	}
	free(scratch);
	return 0;
}

int
summary_build(const struct ring *r, uint64_t skipped, struct summary *out)
{
	struct occurrence *occ;
	size_t n, names = 0;
	bool by_entry;

	*out = (struct summary){ .skipped = skipped };
	if ((out->n_samples = ring_len(r)) == 0)
		return 0;
	fold_totals(r, out);
	if (list_statements(r, out) != 0) {
		summary_free(out);
		return -1;
	}
	if ((occ = collect(r, &n, &by_entry)) == NULL) {
		if (n == 0)
			return 0;
		summary_free(out);
		return -1;
	}
	for (size_t i = 0; i < n; i += run_length(occ + i, n - i, by_entry))
		names++;
	if ((out->events = calloc(names, sizeof(*out->events))) == NULL) {
		free(occ);
		summary_free(out);
		return -1;
	}
	for (size_t i = 0, k; i < n; i += k) {
		k = run_length(occ + i, n - i, by_entry);
		fold_event(occ + i, k, &out->events[out->n_events++]);
	}
	free(occ);
	qsort(out->events, out->n_events, sizeof(*out->events), by_max_bytes);
	return list_peaks(out);
}

int
summary_add_run(struct summary *s, const struct runstats *r)
{
	s->run = *runstats_totals(r);
	if (runstats_events(r, &s->run_events, &s->n_run_events) != 0 ||
	    runstats_statements(r, &s->run_statements,
	    &s->n_run_statements) != 0)
		return -1;
	s->has_run = true;
	return 0;
}

void
summary_free(struct summary *s)
{
	free(s->run_events);
	free(s->run_statements);
	s->run_events = NULL;
	s->run_statements = NULL;
	s->n_run_events = s->n_run_statements = 0;
	s->has_run = false;
	free(s->events);
	free(s->peaks);
	free(s->statements);
	s->events = NULL;
	s->peaks = NULL;
	s->statements = NULL;
	s->n_events = 0;
	s->n_peaks = 0;
	s->n_statements = 0;
}

int64_t
summary_most_held(const struct summary *s)
{
	if (!s->has_run || s->run.samples == 0)
		return s->max_total;
	return s->run.between_peak_total > s->run.max_total ?
	    s->run.between_peak_total : s->run.max_total;
}
