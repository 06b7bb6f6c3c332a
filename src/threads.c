/*
 * The list of --list belongs to whoever filled it; this frees it. And the
 * one way a thread is named to people.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>

#include "threads.h"

void
thread_list_free(struct thread_list *l)
{
	if (l == NULL)
		return;
	for (size_t i = 0; i < l->n; i++) {
		struct thread_info *t = &l->v[i];

		free(t->type);
		free(t->name);
		free(t->user);
		free(t->host);
		free(t->command);
		free(t->state);
		free(t->statement);
	}
	free(l->v);
	l->v = NULL;
	l->n = 0;
}

const char *
thread_label(char *buf, size_t len, uint64_t thread_id,
    uint64_t connection_id)
{
	if (connection_id != 0)
		snprintf(buf, len, "thread %" PRIu64 " (connection %"
		    PRIu64 ")", thread_id, connection_id);
	else
		snprintf(buf, len, "thread %" PRIu64 " (background)",
		    thread_id);
	return buf;
}

int
conn_list_reserve(struct conn_list *l, size_t n)
{
	struct conn_row *p;
	size_t cap;

	if (n <= l->cap)
		return 0;
	cap = l->cap != 0 ? l->cap : 64;
	while (cap < n)
		cap *= 2;
	if ((p = realloc(l->v, cap * sizeof(*p))) == NULL)
		return -1;
	l->v = p;
	l->cap = cap;
	return 0;
}
