/*
 * The live view's copy of the window. Each column owns an array of events
 * that only grows, so a run of any length allocates no more once each
 * column has seen its largest sample. Names are interned: a column holds
 * ids, and the few hundred instruments a server has are each copied once.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "live_model.h"
#include "scrub.h"

int
live_model_init(struct live_model *m, size_t window, size_t max_events)
{
	memset(m, 0, sizeof(*m));
	if (window == 0)
		window = 1;
	if ((m->col = calloc(window, sizeof(*m->col))) == NULL)
		return -1;
	m->cap = window;
	m->max_events = max_events;
	return 0;
}

void
live_model_free(struct live_model *m)
{
	for (size_t i = 0; i < m->cap; i++)
		free(m->col[i].ev);
	free(m->col);
	for (size_t i = 0; i < m->n_names; i++)
		free(m->names[i]);
	free(m->names);
	thread_list_free(&m->threads);
	memset(m, 0, sizeof(*m));
}

void
live_model_begin(struct live_model *m, const char *server, const char *target,
    uint64_t interval_ms, int64_t running_s)
{
	snprintf(m->server, sizeof(m->server), "%s", server ? server : "");
	snprintf(m->target, sizeof(m->target), "%s", target ? target : "");
	scrub_string(m->server);
	scrub_string(m->target);
	m->interval_ms = interval_ms;
	m->taken = m->skipped = m->query_us = 0;
	m->statement[0] = '\0';
	m->running = false;
	m->statement_since_us = 0;
	m->statement_base_s = running_s;
	memset(&m->last, 0, sizeof(m->last));
	m->unseen = 0;
	m->end_note[0] = '\0';
	m->limit_bytes = m->most_total = 0;
	m->len = m->head = 0;
	m->state = LIVE_RUNNING;
}

/* The id of name, added when new; -1 when out of memory. */
static int64_t
intern(struct live_model *m, const char *name)
{
	char **v;

	for (size_t i = 0; i < m->n_names; i++)
		if (strcmp(m->names[i], name) == 0)
			return (int64_t)i;
	if (m->n_names == m->cap_names) {
		size_t cap = m->cap_names ? 2 * m->cap_names : 64;

		if ((v = realloc(m->names, cap * sizeof(*v))) == NULL)
			return -1;
		m->names = v;
		m->cap_names = cap;
	}
	if ((m->names[m->n_names] = strdup(name)) == NULL)
		return -1;
	scrub_string(m->names[m->n_names]);
	return (int64_t)m->n_names++;
}

/*
 * The statement of s, for the header. Between statements
 * events_statements_current keeps the last one and fills its digest in
 * when it ends: a text with no digest runs now, one with a digest ended.
 */
static void
note_statement(struct live_model *m, const struct sample *s, bool *changed)
{
	const struct statement *st = &s->statement;
	bool running = st->text[0] != '\0' && st->digest[0] == '\0';

	*changed = m->taken > 0 && !statement_same(&m->last, st);
	if (*changed || m->taken == 0) {
		m->statement_since_us = s->elapsed_us;
		if (*changed)
			m->statement_base_s = 0;
	} else if (m->running && !running) {
		m->statement_since_us = s->elapsed_us; /* it ended now */
		m->statement_base_s = 0;
	}
	m->running = running;
	m->last = *st;
	/* The text may hold NULs: shown up to the first, as a C string. */
	snprintf(m->statement, sizeof(m->statement), "%s", st->text);
	for (char *p = m->statement; *p != '\0'; p++)
		if (*p == '\n' || *p == '\t' || *p == '\r')
			*p = ' '; /* a header line stays one line */
	scrub_string(m->statement);
}

int
live_model_add(struct live_model *m, const struct sample *s, uint64_t taken,
    uint64_t skipped)
{
	struct live_column *c = &m->col[m->head];
	const struct live_column *prev = m->len > 0 ?
	    live_model_column(m, m->len - 1) : NULL;
	bool changed;

	if (c->n < s->n_events || c->ev == NULL) {
		size_t want = s->n_events > 0 ? s->n_events : 1;
		struct live_event *ev = realloc(c->ev, want * sizeof(*ev));

		if (ev == NULL)
			return -1;
		c->ev = ev;
	}
	/* Neither the statement of the sample before nor of this one. */
	c->unseen = 0;
	c->unseen_peak = 0;
	for (size_t i = 0; i < s->n_finished; i++) {
		const struct statement *f = &s->finished[i].statement;

		if ((m->last.has_id && m->last.id == f->id) ||
		    (s->statement.has_id && s->statement.id == f->id))
			continue;
		c->unseen++;
		if (s->finished[i].has_peak &&
		    s->finished[i].peak_bytes > c->unseen_peak)
			c->unseen_peak = s->finished[i].peak_bytes;
	}
	m->unseen += c->unseen;
	note_statement(m, s, &changed);
	c->seq = s->seq;
	c->elapsed_us = s->elapsed_us;
	c->total = s->total_bytes;
	c->has_resident = s->process.known;
	c->resident = s->process.known ? s->process.resident_bytes : 0;
	c->has_cgroup = s->process.has_cgroup;
	c->cgroup_usage = s->process.has_cgroup ?
	    s->process.cgroup_usage_bytes : 0;
	c->cgroup_limit = s->process.has_cgroup ?
	    s->process.cgroup_limit_bytes : -1;
	if (s->total_bytes > m->most_total)
		m->most_total = s->total_bytes;
	c->has_deltas = s->has_deltas;
	/* Kept with none before it (a replay's first): taken as read now. */
	c->kept = s->events_kept;
	c->rows_us = c->kept && prev != NULL ? prev->rows_us : s->elapsed_us;
	c->peak = false;
	c->new_statement = changed;
	c->n = 0;
	for (size_t i = 0; i < s->n_events; i++) {
		const struct event_stat *e = &s->events[i];
		int64_t id = intern(m, e->name);

		if (id < 0)
			return -1;
		c->ev[c->n++] = (struct live_event){
			.id = (uint32_t)id, .bytes = e->current_bytes,
			.high = e->high_bytes, .alloc = e->delta.alloc_bytes,
			/* Either kind of peak between samples. */
			.peak = s->has_deltas && event_between_peak(e) > 0,
		};
		c->peak |= c->ev[c->n - 1].peak;
	}
	m->head = (m->head + 1) % m->cap;
	if (m->len < m->cap)
		m->len++;
	m->taken = taken;
	m->skipped = skipped;
	m->query_us = s->query_us;
	return 0;
}

const struct live_column *
live_model_column(const struct live_model *m, size_t i)
{
	return &m->col[(m->head + m->cap - m->len + i) % m->cap];
}

void
live_model_set_threads(struct live_model *m, struct thread_list *l)
{
	thread_list_free(&m->threads);
	m->threads = *l;
	*l = (struct thread_list){ 0 };
}
