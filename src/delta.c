/*
 * The previous reading, copied, with an open-addressing hash of its names:
 * each update is one lookup per event, O(n), and the memory follows the
 * largest reading seen (a few hundred events at most), not the length of
 * the run.
 *
 * The source leaves out the events a thread never used, so an event missing
 * from the previous reading had all its counters at zero then: it counts
 * from zero, and a short-lived first allocation still shows.
 */
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "delta.h"
#include "strhash.h"

#define MIN_CAPACITY 128

struct prev_event {
	char name[EVENT_NAME_MAX + 1];
	const struct event_name *interned; /* as the event's (sample.h) */
	int64_t current_bytes;
	int64_t high_bytes;
	uint64_t alloc_bytes;
	uint64_t free_bytes;
	uint64_t alloc_count;
	uint64_t free_count;
};

struct delta_table {
	struct prev_event *prev; /* the previous reading: prev[0..n) */
	size_t n, cap;
	/* Index + 1 into prev, 0 for an empty slot; n_slots >= 2 * cap. */
	size_t *slots;
	size_t n_slots;          /* a power of two */
	bool primed;             /* a reading has been kept */
	/*
	 * The last update found each event where it stood, none of them
	 * moved: delta_table_still().
	 */
	bool still;
	/* The reading of the last update and its events (update_marked()). */
	uint64_t seq;
	const struct event_stat *events;
};

struct delta_table *
delta_table_create(void)
{
	return calloc(1, sizeof(struct delta_table));
}

void
delta_table_free(struct delta_table *t)
{
	if (t == NULL)
		return;
	free(t->prev);
	free(t->slots);
	free(t);
}

size_t
delta_table_capacity(const struct delta_table *t)
{
	return t->cap;
}

/* The slot that holds name, or the empty slot where it would go. */
static size_t *
find_slot(const struct delta_table *t, const char *name)
{
	size_t mask = t->n_slots - 1;
	size_t i = strhash(name, strlen(name)) & mask;

	/* At most half the slots are used, so an empty one is always met. */
	for (;; i = (i + 1) & mask) {
		size_t *slot = &t->slots[i];

		if (*slot == 0 || strcmp(t->prev[*slot - 1].name, name) == 0)
			return slot;
	}
}

static void
index_prev(struct delta_table *t)
{
	if (t->n_slots == 0)
		return; /* nothing read yet: no table, and nothing to index */
	memset(t->slots, 0, t->n_slots * sizeof(*t->slots));
	for (size_t i = 0; i < t->n; i++)
		*find_slot(t, t->prev[i].name) = i + 1;
}

/* Room for n events; the previous reading stays indexed. */
static int
reserve(struct delta_table *t, size_t n)
{
	size_t cap, n_slots = 1;
	struct prev_event *prev;
	size_t *slots;

	if (n <= t->cap)
		return 0;
	cap = n > MIN_CAPACITY ? n : MIN_CAPACITY;
	if (cap < 2 * t->cap)
		cap = 2 * t->cap;
	if (cap > SIZE_MAX / 4 / sizeof(*prev))
		return -1;
	while (n_slots < 2 * cap)
		n_slots *= 2;
	if ((prev = realloc(t->prev, cap * sizeof(*prev))) == NULL)
		return -1;
	t->prev = prev;
	if ((slots = calloc(n_slots, sizeof(*slots))) == NULL)
		return -1;
	free(t->slots);
	t->slots = slots;
	t->n_slots = n_slots;
	t->cap = cap;
	index_prev(t);
	return 0;
}

/* now - then, or 0 for a counter that went backwards. */
static uint64_t
since(uint64_t now, uint64_t then)
{
	return now > then ? now - then : 0;
}

static int64_t
at_least_zero(int64_t v)
{
	return v > 0 ? v : 0;
}

/*
 * The lower bound of a peak the byte and count deltas prove (sample.h,
 * spike_bytes), or 0.
 */
static int64_t
delta_spike(const struct event_delta *d, int64_t then, int64_t now)
{
	uint64_t held_then = (uint64_t)at_least_zero(then);
	uint64_t held_now = (uint64_t)at_least_zero(now);
	uint64_t came_and_went, largest;

	if (d->free_bytes <= held_then || d->alloc_bytes <= held_now ||
	    d->alloc_count == 0)
		return 0;
	came_and_went = d->free_bytes - held_then;
	if (d->alloc_bytes - held_now < came_and_went)
		came_and_went = d->alloc_bytes - held_now;
	/* One of the allocations was at least the mean, rounded up. */
	largest = came_and_went / d->alloc_count +
	    (came_and_went % d->alloc_count != 0);
	if (largest > INT64_MAX)
		largest = INT64_MAX;
	if ((int64_t)largest <= then || (int64_t)largest <= now)
		return 0;
	return (int64_t)largest;
}

/*
 * The counters p kept are e's: nothing was allocated or freed between the
 * readings, as with most of an idle thread's events.
 */
static bool
unchanged(const struct prev_event *p, const struct event_stat *e)
{
	return e->alloc_count == p->alloc_count &&
	    e->free_count == p->free_count &&
	    e->alloc_bytes == p->alloc_bytes &&
	    e->free_bytes == p->free_bytes &&
	    e->current_bytes == p->current_bytes &&
	    e->high_bytes == p->high_bytes;
}

/*
 * An event whose counters did not move has no delta: no allocation to
 * count, no peak to find. Tested first, since working the delta out
 * (the spike's division among it) cost some 90 instructions an event.
 */
static void
compare(struct event_stat *e, const struct prev_event *p)
{
	if (unchanged(p, e)) {
		e->delta = (struct event_delta){ 0 };
		return;
	}
	e->delta = (struct event_delta){
		.alloc_bytes = since(e->alloc_bytes, p->alloc_bytes),
		.free_bytes = since(e->free_bytes, p->free_bytes),
		.alloc_count = since(e->alloc_count, p->alloc_count),
		.free_count = since(e->free_count, p->free_count),
		/*
		 * A higher high-water mark is a new peak since the previous
		 * reading; unless one of the two readings saw it, it fell
		 * between them.
		 */
		.unseen_peak = e->high_bytes > p->high_bytes &&
		    e->high_bytes > p->current_bytes &&
		    e->high_bytes > e->current_bytes,
	};
	e->delta.spike_bytes = delta_spike(&e->delta, p->current_bytes,
	    e->current_bytes);
}

/*
 * Two names with entries are one name when their entries are one
 * (names.h); without both, they are compared.
 */
static bool
same_name(const struct prev_event *p, const struct event_stat *e)
{
	if (p->interned != NULL && e->interned != NULL)
		return p->interned == e->interned;
	return strcmp(p->name, e->name) == 0;
}

/* Keeps e's counters in p; its name too, unless p already has it. */
static void
keep(struct prev_event *p, const struct event_stat *e, bool same_name)
{
	if (!same_name)
		memcpy(p->name, e->name, sizeof(p->name));
	p->interned = e->interned;
	p->current_bytes = e->current_bytes;
	p->high_bytes = e->high_bytes;
	p->alloc_bytes = e->alloc_bytes;
	p->free_bytes = e->free_bytes;
	p->alloc_count = e->alloc_count;
	p->free_count = e->free_count;
}

/*
 * Whether each of the n events has the name that stood in its place: the
 * server gives a thread's rows in the same order each time. On the way,
 * each event's delta against its place, none kept yet: if a name moved,
 * the caller looks every event up and works its delta out again; *still
 * says whether none moved.
 */
static bool
in_place(const struct delta_table *t, struct event_stat *ev, size_t n,
    bool *still)
{
	*still = true;
	if (n != t->n)
		return false;
	for (size_t i = 0; i < n; i++) {
		if (!same_name(&t->prev[i], &ev[i]))
			return false;
		if (unchanged(&t->prev[i], &ev[i]))
			ev[i].delta = (struct event_delta){ 0 };
		else {
			compare(&ev[i], &t->prev[i]);
			*still = false;
		}
	}
	return true;
}

int
delta_table_update(struct delta_table *t, struct event_stat *ev, size_t n)
{
	static const struct prev_event zero;
	int had_prev = t->primed;

	t->seq = 0;
	if (reserve(t, n) != 0)
		return -1;
	/*
	 * While the names stand where they stood, no lookup is needed, nor
	 * new names or a new index, and an event whose counters did not move
	 * (most of an idle thread's) has nothing to keep: one pass over the
	 * names that compares, then, if any moved, one that keeps them. Two
	 * events with one entry (names.h) have one name: strcmp() cost a
	 * thousand instructions a sample.
	 */
	if (had_prev && in_place(t, ev, n, &t->still)) {
		for (size_t i = 0; i < n && !t->still; i++)
			if (!unchanged(&t->prev[i], &ev[i]))
				keep(&t->prev[i], &ev[i], true);
		return 1;
	}
	t->still = false;
	for (size_t i = 0; i < n; i++) {
		const struct prev_event *p = &zero;

		if (!had_prev) {
			ev[i].delta = (struct event_delta){ 0 };
			continue;
		}
		size_t slot = *find_slot(t, ev[i].name);

		if (slot != 0)
			p = &t->prev[slot - 1];
		compare(&ev[i], p);
	}
	for (size_t i = 0; i < n; i++)
		keep(&t->prev[i], &ev[i], false);
	t->n = n;
	t->primed = true;
	index_prev(t);
	return had_prev;
}

int
delta_table_update_marked(struct delta_table *t, struct event_stat *ev,
    size_t n, uint64_t seq, uint64_t after, bool unmoved)
{
	int r;

	/* An idle thread's usual reading: the compare cost 40 a row. */
	if (unmoved && after != 0 && after == t->seq && t->still &&
	    ev == t->events && n == t->n) {
		t->seq = seq;
		return 1;
	}
	r = delta_table_update(t, ev, n);
	t->seq = r < 0 ? 0 : seq;
	t->events = ev;
	return r;
}

bool
delta_table_still(const struct delta_table *t)
{
	return t->still;
}

void
delta_sums(struct sample *s, const struct event_stat *ev, size_t n)
{
	uint64_t alloc = 0;
	bool peaked = false;

	s->negative_events = 0;
	s->negative_bytes = 0;
	s->between_peak_total = 0;
	for (size_t i = 0; i < n; i++) {
		alloc += ev[i].delta.alloc_bytes;
		peaked |= ev[i].delta.unseen_peak | (ev[i].delta.spike_bytes > 0);
		if (ev[i].current_bytes < 0) {
			s->negative_events++;
			/* Saturated, as below: the counters are the server's. */
			if (__builtin_add_overflow(s->negative_bytes,
			    ev[i].current_bytes, &s->negative_bytes))
				s->negative_bytes = INT64_MIN;
		}
	}
	s->alloc_delta_bytes = s->has_deltas ? alloc : 0;
	/* Most samples have no event that peaked between them: no second pass. */
	for (size_t i = 0; s->has_deltas && peaked && i < n; i++) {
		int64_t peak = event_between_peak(&ev[i]);
		int64_t t;

		/* Counters are the server's: saturate rather than overflow. */
		if (__builtin_sub_overflow(s->total_bytes, ev[i].current_bytes,
		    &t) || __builtin_add_overflow(t, peak, &t))
			t = INT64_MAX;
		if (peak > 0 && (s->between_peak_total == 0 ||
		    t > s->between_peak_total))
			s->between_peak_total = t;
	}
}
