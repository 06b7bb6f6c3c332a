/*
 * The ring keeps one array of samples and one array of events, both
 * allocated in ring_create(): slot i owns events[i * max_events ...].
 */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "ring.h"

struct ring {
	size_t window;
	size_t max_events;
	size_t head; /* index of the oldest sample */
	size_t len;
	struct sample *samples;
	struct event_stat *events;
	/*
	 * Each slot's finished statements, grown as a sample brings more:
	 * most samples have none, so nothing is allocated before one does.
	 */
	struct finished_statement **finished;
	size_t *finished_cap;
};

struct ring *
ring_create(size_t window, size_t max_events)
{
	struct ring *r;

	if (window == 0 || max_events == 0 ||
	    max_events > SIZE_MAX / sizeof(struct event_stat))
		return NULL;
	if ((r = calloc(1, sizeof(*r))) == NULL)
		return NULL;
	r->window = window;
	r->max_events = max_events;
	r->samples = calloc(window, sizeof(*r->samples));
	r->events = calloc(window, max_events * sizeof(*r->events));
	r->finished = calloc(window, sizeof(*r->finished));
	r->finished_cap = calloc(window, sizeof(*r->finished_cap));
	if (r->samples == NULL || r->events == NULL || r->finished == NULL ||
	    r->finished_cap == NULL) {
		ring_free(r);
		return NULL;
	}
	for (size_t i = 0; i < window; i++)
		r->samples[i].events = r->events + i * max_events;
	return r;
}

void
ring_free(struct ring *r)
{
	if (r == NULL)
		return;
	if (r->finished != NULL)
		for (size_t i = 0; i < r->window; i++)
			free(r->finished[i]);
	free(r->finished);
	free(r->finished_cap);
	free(r->samples);
	free(r->events);
	free(r);
}

struct sample *
ring_slot(struct ring *r)
{
	struct sample *s = &r->samples[(r->head + r->len) % r->window];

	/* Keep the slot's storage: callers fill the fields, not the pointer. */
	struct event_stat *events = s->events;
	size_t at = offsetof(struct sample, statement);
	size_t after = at + sizeof(s->statement);

	/*
	 * All zero but the statement's buffers, which an empty statement
	 * leaves unread: zeroing them cost more than filling the rest.
	 */
	memset(s, 0, at);
	statement_clear(&s->statement);
	memset((char *)s + after, 0, sizeof(*s) - after);
	s->events = events;
	return s;
}

struct finished_statement *
ring_finished(struct ring *r, size_t n)
{
	size_t i = (r->head + r->len) % r->window;
	struct sample *s = &r->samples[i];

	if (n > r->finished_cap[i]) {
		struct finished_statement *p = realloc(r->finished[i],
		    n * sizeof(*p));

		if (p == NULL)
			return NULL;
		r->finished[i] = p;
		r->finished_cap[i] = n;
	}
	s->finished = r->finished[i];
	s->n_finished = n;
	return r->finished[i];
}

void
ring_commit(struct ring *r)
{
	if (r->len < r->window)
		r->len++;
	else
		r->head = (r->head + 1) % r->window;
}

size_t
ring_len(const struct ring *r)
{
	return r->len;
}

size_t
ring_window(const struct ring *r)
{
	return r->window;
}

size_t
ring_max_events(const struct ring *r)
{
	return r->max_events;
}

const struct sample *
ring_get(const struct ring *r, size_t i)
{
	if (i >= r->len)
		return NULL;
	return &r->samples[(r->head + i) % r->window];
}
