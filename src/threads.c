/* The list of --list belongs to whoever filled it; this frees it. */
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
