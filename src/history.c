/*
 * The history kept while waiting: HISTORY_THREADS slots, each a ring of
 * the last depth readings of one thread. A slot's buffers stay allocated
 * when its thread is forgotten, for the next thread to use; the cap is on
 * the most they can grow to, so it holds whatever the server reports.
 */
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "history.h"

struct slot {
	uint64_t thread_id;  /* 0: free */
	bool seen;           /* added to in this look */
	struct history_reading *r; /* depth readings, a ring */
	size_t *cap;         /* room of each reading's events */
	size_t start, len;   /* the oldest, and how many are held */
};

struct history {
	struct slot slots[HISTORY_THREADS];
	size_t depth;
	size_t max_events;
	size_t added; /* threads added to in this look */
};

struct history *
history_create(size_t depth, size_t max_events)
{
	size_t per_reading, most;
	struct history *h;

	if (max_events == 0)
		max_events = 1;
	per_reading = sizeof(struct history_reading) + sizeof(size_t) +
	    max_events * sizeof(struct event_stat);
	most = HISTORY_MAX_BYTES / HISTORY_THREADS / per_reading;
	if (depth > most)
		depth = most;
	if (depth == 0)
		depth = 1;
	if ((h = calloc(1, sizeof(*h))) == NULL)
		return NULL;
	h->depth = depth;
	h->max_events = max_events;
	for (size_t i = 0; i < HISTORY_THREADS; i++) {
		h->slots[i].r = calloc(depth, sizeof(*h->slots[i].r));
		h->slots[i].cap = calloc(depth, sizeof(*h->slots[i].cap));
		if (h->slots[i].r == NULL || h->slots[i].cap == NULL) {
			history_free(h);
			return NULL;
		}
	}
	return h;
}

void
history_free(struct history *h)
{
	if (h == NULL)
		return;
	for (size_t i = 0; i < HISTORY_THREADS; i++) {
		for (size_t j = 0; h->slots[i].r != NULL && j < h->depth; j++)
			free(h->slots[i].r[j].events);
		free(h->slots[i].r);
		free(h->slots[i].cap);
	}
	free(h);
}

size_t
history_depth(const struct history *h)
{
	return h->depth;
}

void
history_begin_look(struct history *h)
{
	for (size_t i = 0; i < HISTORY_THREADS; i++)
		h->slots[i].seen = false;
	h->added = 0;
}

void
history_end_look(struct history *h)
{
	for (size_t i = 0; i < HISTORY_THREADS; i++) {
		struct slot *s = &h->slots[i];

		if (!s->seen) {
			s->thread_id = 0;
			s->start = s->len = 0;
		}
	}
}

/*
 * The slot of thread_id, or a free one, or one not added to in this look
 * (there is one: a look adds at most HISTORY_THREADS threads).
 */
static struct slot *
slot_for(struct history *h, uint64_t thread_id)
{
	struct slot *other = NULL;

	for (size_t i = 0; i < HISTORY_THREADS; i++)
		if (h->slots[i].thread_id == thread_id && thread_id != 0)
			return &h->slots[i];
	if (h->added >= HISTORY_THREADS)
		return NULL;
	for (size_t i = 0; i < HISTORY_THREADS; i++) {
		struct slot *s = &h->slots[i];

		if (s->thread_id == 0)
			return s;
		if (!s->seen && other == NULL)
			other = s;
	}
	return other;
}

int
history_add(struct history *h, const struct history_reading *r)
{
	struct slot *s = slot_for(h, r->stmt.thread_id);
	struct history_reading *dst;
	size_t n = r->n < h->max_events ? r->n : h->max_events;
	size_t at, *cap;

	if (s == NULL)
		return -1;
	if (s->thread_id != r->stmt.thread_id) {
		s->thread_id = r->stmt.thread_id;
		s->start = s->len = 0;
	}
	if (!s->seen) {
		s->seen = true;
		h->added++;
	}
	/* The oldest goes when the ring is full; grown first, so a failure leaves it whole. */
	at = (s->start + s->len) % h->depth;
	dst = &s->r[at];
	cap = &s->cap[at];
	if (n > *cap) {
		struct event_stat *p = realloc(dst->events, n * sizeof(*p));

		if (p == NULL)
			return -1;
		dst->events = p;
		*cap = n;
	}
	if (s->len == h->depth)
		s->start = (s->start + 1) % h->depth;
	else
		s->len++;
	struct event_stat *keep = dst->events;
	*dst = *r;
	dst->events = keep;
	dst->n = n;
	if (n > 0)
		memcpy(dst->events, r->events, n * sizeof(*dst->events));
	return 0;
}

/*
 * match_same() but for the count of ended statements, which a look for
 * the history leaves 0.
 */
static bool
same_statement(const struct history_reading *r, const struct stmt_match *m)
{
	struct stmt_match a = r->stmt;

	a.completed = m->completed;
	return match_same(&a, m);
}

/*
 * Whether r is of the same run as newest, the reading of m's statement.
 * The top-level statement's id, when the server gives it, names the run
 * whatever its text: MySQL shows a stored function's statement in
 * PROCESSLIST_INFO from its first call to the end of the statement, so
 * the text, and the digest made of it, change while the id stays. Its
 * start, which the text does not move, guards against the stale ids of
 * a statements consumer turned off. Without ids, match_same() decides.
 */
static bool
same_run(const struct history_reading *r, const struct stmt_match *m,
    const struct history_reading *newest)
{
	int64_t d = r->stmt.start_s - m->start_s;

	if (r->statement.has_id && newest->statement.has_id)
		return r->stmt.thread_id == m->thread_id && d >= -1 &&
		    d <= 1 && r->statement.id == newest->statement.id;
	return same_statement(r, m);
}

size_t
history_take(const struct history *h, const struct stmt_match *m,
    const struct history_reading **out, size_t max)
{
	const struct slot *s = NULL;
	const struct history_reading *newest;
	size_t run = 0, first;

	for (size_t i = 0; i < HISTORY_THREADS && s == NULL; i++)
		if (h->slots[i].thread_id == m->thread_id && m->thread_id != 0)
			s = &h->slots[i];
	if (s == NULL)
		return 0;
	if (s->len == 0)
		return 0;
	newest = &s->r[(s->start + s->len - 1) % h->depth];
	/* The newest is the look that found m: of m's statement, text and all. */
	if (!same_statement(newest, m))
		return 0;
	/* The newest run of the statement, counted back from the end. */
	while (run < s->len && same_run(&s->r[(s->start + s->len - 1 -
	    run) % h->depth], m, newest))
		run++;
	if (run > max)
		run = max;
	first = s->len - run;
	for (size_t i = 0; i < run; i++)
		out[i] = &s->r[(s->start + first + i) % h->depth];
	return run;
}
