/*
 * Choosing among matching statements and remembering the captured ones.
 * Kept apart from the queries so that the rules are tested without a
 * server.
 */
#include <stdlib.h>
#include <string.h>

#include "match.h"

int
match_list_add(struct match_list *l, const struct stmt_match *m)
{
	if (l->n == l->cap) {
		size_t cap = l->cap ? l->cap * 2 : 8;
		struct stmt_match *p = realloc(l->v, cap * sizeof(*p));

		if (p == NULL)
			return -1;
		l->v = p;
		l->cap = cap;
	}
	l->v[l->n++] = *m;
	return 0;
}

void
match_list_free(struct match_list *l)
{
	free(l->v);
	memset(l, 0, sizeof(*l));
}

bool
match_same(const struct stmt_match *a, const struct stmt_match *b)
{
	int64_t d = a->start_s - b->start_s;

	return a->thread_id == b->thread_id && a->completed == b->completed &&
	    a->event_id == b->event_id && strcmp(a->digest, b->digest) == 0 && d >= -1 && d <= 1;
}

bool
match_seen_has(const struct match_seen *s, const struct stmt_match *m)
{
	for (size_t i = 0; i < s->n; i++)
		if (match_same(&s->v[i], m))
			return true;
	return false;
}

void
match_seen_add(struct match_seen *s, const struct stmt_match *m)
{
	if (s->n < MATCH_SEEN_MAX) {
		s->v[s->n++] = *m;
		return;
	}
	/* Full: the oldest goes, as its statement has long ended. */
	s->v[s->next] = *m;
	s->next = (s->next + 1) % MATCH_SEEN_MAX;
}

/* Whether a should be captured rather than b. */
static bool
better(const struct stmt_match *a, const struct stmt_match *b)
{
	if (a->ended != b->ended)
		return !a->ended;
	if (a->ended && a->peak_bytes != b->peak_bytes)
		return a->peak_bytes > b->peak_bytes;
	if (a->current_bytes != b->current_bytes)
		return a->current_bytes > b->current_bytes;
	if (a->time_s != b->time_s)
		return a->time_s > b->time_s;
	return a->thread_id < b->thread_id;
}

ptrdiff_t
match_choose(const struct match_list *l, const struct match_seen *seen)
{
	ptrdiff_t best = -1;

	for (size_t i = 0; i < l->n; i++) {
		if (seen != NULL && match_seen_has(seen, &l->v[i]))
			continue;
		if (best < 0 || better(&l->v[i], &l->v[best]))
			best = (ptrdiff_t)i;
	}
	return best;
}

bool
match_still_running(const struct stmt_match *was, const struct stmt_match *now)
{
	return match_same(was, now) && now->time_s >= was->time_s;
}
