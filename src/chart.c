/*
 * The picture of a whole run in bounded memory (see chart.h). Columns are
 * filled per_column samples at a time; when the last one is full and no
 * column is free, neighbours are merged in pairs and per_column doubles,
 * so a run of any length fits in CHART_MAX_COLUMNS columns whose spans
 * stay equal.
 */
#include <stdlib.h>
#include <string.h>

#include "chart.h"

struct chart *
chart_create(void)
{
	struct chart *c = malloc(sizeof(*c));

	if (c != NULL)
		chart_reset(c);
	return c;
}

void
chart_free(struct chart *c)
{
	free(c);
}

void
chart_reset(struct chart *c)
{
	/* Not memset of the whole: values are cleared as columns are opened. */
	c->n_columns = 0;
	c->per_column = 1;
	c->n_events = 0;
	c->untracked = 0;
	c->n_statements = 0;
	c->dropped_statements = 0;
	c->samples = 0;
	c->kept = 0;
	c->gaps = 0;
	c->max_total = 0;
	c->has_resident = false;
	c->max_resident = 0;
	c->has_limit = false;
	c->min_limit = c->max_limit = 0;
	c->interval_us = 0;
	c->last_due_us = 0;
	c->has_last_statement = false;
	c->in_kept_run = false;
}

int64_t
chart_value(const struct chart *c, size_t i, size_t e)
{
	return c->values[i * CHART_MAX_EVENTS + e];
}

static int64_t
min64(int64_t a, int64_t b)
{
	return a < b ? a : b;
}

static int64_t
max64(int64_t a, int64_t b)
{
	return a > b ? a : b;
}

/* Column b folded into column a, which comes just before it. */
static void
fold(struct chart *c, size_t a, size_t b)
{
	struct chart_column *x = &c->columns[a];
	const struct chart_column *y = &c->columns[b];
	int64_t *va = &c->values[a * CHART_MAX_EVENTS];
	const int64_t *vb = &c->values[b * CHART_MAX_EVENTS];

	for (size_t e = 0; e < CHART_MAX_EVENTS; e++)
		va[e] = max64(va[e], vb[e]);
	x->last_us = y->last_us;
	x->samples += y->samples;
	x->total = max64(x->total, y->total);
	x->rows_read |= y->rows_read;
	if (y->has_resident) {
		x->resident = x->has_resident ? max64(x->resident, y->resident) :
		    y->resident;
		x->has_resident = true;
	}
	if (y->has_limit) {
		x->limit = x->has_limit ? min64(x->limit, y->limit) : y->limit;
		x->has_limit = true;
	}
	/* The widest gap is the one shown. */
	if (y->gap_to_us - y->gap_from_us > x->gap_to_us - x->gap_from_us) {
		x->gap_from_us = y->gap_from_us;
		x->gap_to_us = y->gap_to_us;
	}
	if (y->unseen_peak && (!x->unseen_peak ||
	    y->unseen_peak_bytes > x->unseen_peak_bytes)) {
		x->unseen_peak = true;
		x->unseen_peak_bytes = y->unseen_peak_bytes;
		x->unseen_peak_event = y->unseen_peak_event;
	}
}

/* Halves the columns: 0 and 1 become 0, 2 and 3 become 1, ... */
static void
merge_pairs(struct chart *c)
{
	size_t n = 0;

	for (size_t i = 0; i < c->n_columns; i += 2, n++) {
		if (n != i) {
			c->columns[n] = c->columns[i];
			memcpy(&c->values[n * CHART_MAX_EVENTS],
			    &c->values[i * CHART_MAX_EVENTS],
			    sizeof(int64_t) * CHART_MAX_EVENTS);
		}
		if (i + 1 < c->n_columns)
			fold(c, n, i + 1);
	}
	c->n_columns = n;
	c->per_column *= 2;
}

/* The column the next sample goes to: the last one, or a new one. */
static struct chart_column *
column_for(struct chart *c, const struct sample *s, bool gap)
{
	struct chart_column *col;

	if (c->n_columns > 0 && !gap &&
	    c->columns[c->n_columns - 1].samples < c->per_column)
		return &c->columns[c->n_columns - 1];
	if (c->n_columns == CHART_MAX_COLUMNS)
		merge_pairs(c);
	/* After a merge, the last column may have room again. */
	if (c->n_columns > 0 && !gap &&
	    c->columns[c->n_columns - 1].samples < c->per_column)
		return &c->columns[c->n_columns - 1];
	col = &c->columns[c->n_columns];
	memset(col, 0, sizeof(*col));
	memset(&c->values[c->n_columns * CHART_MAX_EVENTS], 0,
	    sizeof(int64_t) * CHART_MAX_EVENTS);
	col->first_us = s->elapsed_us;
	col->first_wall_ms = s->wall_ms;
	c->n_columns++;
	return col;
}

/* The index of the event of that name, added if there is room; -1 if not. */
static int
event_index(struct chart *c, const char *name)
{
	for (size_t e = 0; e < c->n_events; e++)
		if (strcmp(c->events[e].name, name) == 0)
			return (int)e;
	if (c->n_events == CHART_MAX_EVENTS) {
		c->untracked++;
		return -1;
	}
	strcpy(c->events[c->n_events].name, name);
	c->events[c->n_events].max_bytes = 0;
	return (int)c->n_events++;
}

/*
 * Whether time went by without samples before s: a reconnect says so in
 * gap_ms; a skipped tick shows as a step between due times of more than
 * one interval, the interval being the smallest step seen.
 */
static bool
gap_before(struct chart *c, const struct sample *s)
{
	uint64_t due = s->elapsed_us - (s->late_us < s->elapsed_us ?
	    s->late_us : s->elapsed_us);
	uint64_t step;
	bool gap = false;

	if (c->samples == 0) {
		c->last_due_us = due;
		return false;
	}
	step = due > c->last_due_us ? due - c->last_due_us : 0;
	c->last_due_us = due;
	if (s->gap_ms > 0)
		gap = true;
	else if (c->interval_us > 0 && step > c->interval_us + c->interval_us / 2)
		gap = true;
	if (step > 0 && (c->interval_us == 0 || step < c->interval_us))
		c->interval_us = step;
	return gap;
}

/* Statement runs: a new one each time the thread runs another statement. */
static void
note_statement(struct chart *c, const struct sample *s)
{
	struct chart_statement *st;

	if (!c->has_last_statement ||
	    !statement_same(&c->last_statement, &s->statement)) {
		c->last_statement = s->statement;
		c->has_last_statement = true;
		c->in_kept_run = false;
		if (!statement_known(&s->statement))
			return;
		if (c->n_statements == CHART_MAX_STATEMENTS) {
			c->dropped_statements++;
			return;
		}
		st = &c->statements[c->n_statements++];
		st->statement = s->statement;
		st->first_seq = s->seq;
		st->first_us = s->elapsed_us;
		st->first_total = s->total_bytes;
		st->peak_total = s->total_bytes;
		c->in_kept_run = true;
	}
	if (!c->in_kept_run)
		return;
	st = &c->statements[c->n_statements - 1];
	st->last_seq = s->seq;
	st->last_us = s->elapsed_us;
	st->peak_total = max64(st->peak_total, s->total_bytes);
}

void
chart_add(struct chart *c, const struct sample *s)
{
	bool gap = gap_before(c, s);
	struct chart_column *col = column_for(c, s, gap);
	size_t i = (size_t)(col - c->columns);
	int64_t *v = &c->values[i * CHART_MAX_EVENTS];

	if (gap) {
		c->gaps++;
		if (col->samples == 0 && i > 0) {
			col->gap_from_us = c->columns[i - 1].last_us;
			col->gap_to_us = s->elapsed_us;
		}
	}
	col->last_us = s->elapsed_us;
	col->total = col->samples == 0 ? s->total_bytes :
	    max64(col->total, s->total_bytes);
	col->samples++;
	col->rows_read |= !s->events_kept;
	c->kept += s->events_kept;
	c->max_total = c->samples == 0 ? s->total_bytes :
	    max64(c->max_total, s->total_bytes);
	if (s->process.known) {
		col->resident = col->has_resident ? max64(col->resident,
		    s->process.resident_bytes) : s->process.resident_bytes;
		col->has_resident = true;
		c->max_resident = c->has_resident ? max64(c->max_resident,
		    s->process.resident_bytes) : s->process.resident_bytes;
		c->has_resident = true;
	}
	if (s->process.has_cgroup && s->process.cgroup_limit_bytes >= 0) {
		int64_t l = s->process.cgroup_limit_bytes;

		col->limit = col->has_limit ? min64(col->limit, l) : l;
		col->has_limit = true;
		c->min_limit = c->has_limit ? min64(c->min_limit, l) : l;
		c->max_limit = c->has_limit ? max64(c->max_limit, l) : l;
		c->has_limit = true;
	}
	for (size_t k = 0; k < s->n_events; k++) {
		const struct event_stat *e = &s->events[k];
		int x = event_index(c, e->name);
		int64_t peak;

		if (x < 0)
			continue;
		v[x] = max64(v[x], e->current_bytes);
		c->events[x].max_bytes = max64(c->events[x].max_bytes,
		    e->current_bytes);
		/* Either kind: a risen high-water mark, or a spike the deltas prove. */
		peak = s->has_deltas ? event_between_peak(e) : 0;
		if (peak > 0 && (!col->unseen_peak ||
		    peak > col->unseen_peak_bytes)) {
			col->unseen_peak = true;
			col->unseen_peak_bytes = peak;
			col->unseen_peak_event = c->events[x].name;
		}
	}
	note_statement(c, s);
	c->samples++;
}

size_t
chart_top(const struct chart *c, size_t *out, size_t k)
{
	size_t n = 0;

	for (size_t e = 0; e < c->n_events; e++) {
		size_t j;

		if (c->events[e].max_bytes <= 0)
			continue;
		/* Insertion into the k largest so far. */
		for (j = n; j > 0 && c->events[out[j - 1]].max_bytes <
		    c->events[e].max_bytes; j--)
			if (j < k)
				out[j] = out[j - 1];
		if (j < k) {
			out[j] = e;
			if (n < k)
				n++;
		}
	}
	return n;
}
