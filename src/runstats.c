/*
 * The whole run, folded in sample by sample. Events are found by name in
 * an open-addressing hash of fixed size (twice the cap), so a sample costs
 * one lookup per kept event and the memory never grows after creation.
 * Statements follow one another: only the newest one changes, so each
 * sample touches one entry.
 */
#include <stdlib.h>
#include <string.h>

#include "names.h"
#include "runstats.h"
#include "strhash.h"

#define SLOTS (2 * RUNSTATS_MAX_EVENTS) /* a power of two */
#define RECENT 8

struct event_acc {
	struct run_event e;
	const struct event_name *interned; /* of the first event added */
	double sum; /* of current bytes: a double cannot overflow here */
};

struct runstats {
	struct run_totals t;
	double total_sum;
	struct event_acc *events; /* [RUNSTATS_MAX_EVENTS] */
	size_t n_events;
	struct run_statement *stmts; /* [RUNSTATS_MAX_STATEMENTS] */
	size_t n_stmts;
	struct run_statement *cur; /* the statement of the last sample, or NULL */
	/*
	 * The entries begun last, newest at recent[0]: a finished statement
	 * is one of them when a sample saw it (the one running at the sample
	 * before, as a rule), and a sample of one just finished finds it
	 * here. Bounded, so a finished statement costs a few compares.
	 */
	struct run_statement *recent[RECENT];
	bool has_prev;
	int64_t prev_total;        /* the total of the last sample */
	uint64_t first_queried_us; /* elapsed_us of the first sample queried */
	/*
	 * Index + 1 into events, 0 for empty: last, so that the 4 KiB of it
	 * split none of the fields above, which each sample sets.
	 */
	uint16_t slots[SLOTS];
};

_Static_assert(RUNSTATS_MAX_EVENTS < UINT16_MAX,
    "the slots hold an index + 1 in 16 bits");
_Static_assert((SLOTS & (SLOTS - 1)) == 0, "SLOTS is a power of two");

struct runstats *
runstats_create(void)
{
	struct runstats *r = calloc(1, sizeof(*r));

	if (r == NULL)
		return NULL;
	r->events = calloc(RUNSTATS_MAX_EVENTS, sizeof(*r->events));
	r->stmts = calloc(RUNSTATS_MAX_STATEMENTS, sizeof(*r->stmts));
	if (r->events == NULL || r->stmts == NULL) {
		runstats_free(r);
		return NULL;
	}
	return r;
}

void
runstats_free(struct runstats *r)
{
	if (r == NULL)
		return;
	free(r->events);
	free(r->stmts);
	free(r);
}

const struct run_totals *
runstats_totals(const struct runstats *r)
{
	return &r->t;
}

/* The event's accumulator, a new one if there is room, or NULL. */
static struct event_acc *
find_event(struct runstats *r, const struct event_stat *e, bool *is_new)
{
	const char *name = e->name;
	/*
	 * An entry (names.h) holds the hash of its name, and one entry is
	 * one name: hashing and comparing each name cost a thousand
	 * instructions a sample.
	 */
	size_t i = (e->interned != NULL ? e->interned->hash :
	    strhash(name, strlen(name))) & (SLOTS - 1);

	*is_new = false;
	/* At most half the slots are used: an empty one is always met. */
	for (;; i = (i + 1) & (SLOTS - 1)) {
		uint16_t k = r->slots[i];

		if (k == 0)
			break;
		const struct event_acc *a = &r->events[k - 1];

		if (a->interned != NULL && e->interned != NULL) {
			if (a->interned == e->interned)
				return &r->events[k - 1];
		} else if (strcmp(a->e.name, name) == 0)
			return &r->events[k - 1];
	}
	if (r->n_events == RUNSTATS_MAX_EVENTS)
		return NULL;
	r->slots[i] = (uint16_t)(++r->n_events);
	*is_new = true;
	return &r->events[r->n_events - 1];
}

static void
add_event(struct runstats *r, const struct event_stat *e, bool has_deltas)
{
	bool is_new;
	struct event_acc *a = find_event(r, e, &is_new);
	struct run_event *x;
	int64_t between = has_deltas ? event_between_peak(e) : 0;

	if (a == NULL) {
		r->t.events_left_out++;
		return;
	}
	x = &a->e;
	if (is_new) {
		a->interned = e->interned;
		memcpy(x->name, e->name, sizeof(x->name));
		x->min_bytes = x->max_bytes = x->peak_bytes = e->current_bytes;
		x->high_bytes = e->high_bytes;
	}
	if (e->current_bytes < 0 && (is_new || x->min_bytes >= 0))
		r->t.negative_events++;
	x->samples++;
	a->sum += (double)e->current_bytes;
	if (e->current_bytes < x->min_bytes)
		x->min_bytes = e->current_bytes;
	if (e->current_bytes > x->max_bytes)
		x->max_bytes = e->current_bytes;
	if (e->high_bytes > x->high_bytes)
		x->high_bytes = e->high_bytes;
	x->last_bytes = e->current_bytes;
	if (x->max_bytes > x->peak_bytes)
		x->peak_bytes = x->max_bytes;
	if (between > 0) {
		if (has_deltas && e->delta.unseen_peak) {
			x->unseen_peaks++;
			r->t.unseen_peaks++;
		} else {
			x->delta_spikes++;
			r->t.delta_spikes++;
		}
		if (between > x->largest_between_peak)
			x->largest_between_peak = between;
		if (between > x->peak_bytes)
			x->peak_bytes = between;
	}
}

/*
 * The finished statement with the least growth, to make room: never the
 * running one (r->cur), which a finished one may be added beside.
 */
static struct run_statement *
least_growth(struct runstats *r)
{
	struct run_statement *min = NULL;

	for (size_t i = 0; i < r->n_stmts; i++)
		if (&r->stmts[i] != r->cur && (min == NULL ||
		    r->stmts[i].growth_bytes < min->growth_bytes))
			min = &r->stmts[i];
	return min;
}

/* Room for a statement: a new entry, or the one with the least growth. */
static struct run_statement *
new_entry(struct runstats *r)
{
	struct run_statement *st;

	if (r->n_stmts < RUNSTATS_MAX_STATEMENTS)
		st = &r->stmts[r->n_stmts++];
	else {
		st = least_growth(r);
		r->t.statements_dropped++;
	}
	memmove(&r->recent[1], &r->recent[0],
	    (RECENT - 1) * sizeof(r->recent[0]));
	r->recent[0] = st;
	return st;
}

/* The entry of a statement begun lately, or NULL. */
static struct run_statement *
find_recent(struct runstats *r, const struct statement *s)
{
	for (size_t i = 0; i < RECENT && r->recent[i] != NULL; i++)
		if (statement_same(&r->recent[i]->statement, s))
			return r->recent[i];
	return NULL;
}

/* growth_bytes from the peak and the start. */
static void
settle_growth(struct run_statement *st)
{
	int64_t peak = run_statement_peak(st);

	/* A start far below zero (memory that moved) cannot overflow it. */
	if (peak <= st->start_bytes)
		st->growth_bytes = 0;
	else if (__builtin_sub_overflow(peak, st->start_bytes,
	    &st->growth_bytes))
		st->growth_bytes = INT64_MAX;
}

static void
begin_statement(struct runstats *r, const struct sample *s)
{
	struct run_statement *st;

	/* Finished before this sample, brought by it: the same statement. */
	if ((st = find_recent(r, &s->statement)) != NULL && st->samples == 0) {
		r->t.statements_unsampled--;
		r->cur = st;
		return;
	}
	st = new_entry(r);
	*st = (struct run_statement){
		.statement = s->statement,
		.first_seq = s->seq,
		.first_elapsed_us = s->elapsed_us,
		.first_wall_ms = s->wall_ms,
		.start_bytes = s->total_bytes,
		.peak_bytes = s->total_bytes,
		.between_peak_bytes = s->total_bytes,
	};
	/* It began after the sample before; it may have grown since. */
	if (r->has_prev && r->prev_total < st->start_bytes)
		st->start_bytes = r->prev_total;
	r->cur = st;
}

static void
add_to_statement(struct runstats *r, const struct sample *s)
{
	struct run_statement *st;

	if (!statement_known(&s->statement)) {
		r->cur = NULL;
		return;
	}
	if (r->cur == NULL || !statement_same(&r->cur->statement,
	    &s->statement))
		begin_statement(r, s);
	st = r->cur;
	/* MariaDB gives the digest only once the statement has ended. */
	if (st->statement.digest[0] == '\0')
		memcpy(st->statement.digest, s->statement.digest,
		    sizeof(st->statement.digest));
	st->samples++;
	st->last_seq = s->seq;
	st->last_elapsed_us = s->elapsed_us;
	st->last_wall_ms = s->wall_ms;
	if (s->total_bytes > st->peak_bytes)
		st->peak_bytes = s->total_bytes;
	if (st->peak_bytes > st->between_peak_bytes)
		st->between_peak_bytes = st->peak_bytes;
	/*
	 * A peak between the first sample and the one before is not the
	 * statement's for sure: it may be its predecessor's.
	 */
	if (st->samples > 1 && s->between_peak_total > st->between_peak_bytes)
		st->between_peak_bytes = s->between_peak_total;
	st->alloc_bytes += s->alloc_delta_bytes;
	settle_growth(st);
}

/*
 * A statement the server recorded once finished, which ended before s:
 * the entry its samples made, else one of its own, begun between the
 * sample before and s, from the lower of their totals.
 */
static void
add_finished(struct runstats *r, const struct sample *s,
    const struct finished_statement *f)
{
	struct run_statement *st = find_recent(r, &f->statement);
	struct run_totals *t = &r->t;

	t->statements_lost += f->lost_before;
	if (st != NULL && st->finished)
		return; /* read twice: once is enough */
	t->statements_finished++;
	if (st == NULL) {
		st = new_entry(r);
		*st = (struct run_statement){
			.statement = f->statement,
			.first_seq = s->seq, .last_seq = s->seq,
			.first_elapsed_us = s->elapsed_us,
			.last_elapsed_us = s->elapsed_us,
			.first_wall_ms = s->wall_ms, .last_wall_ms = s->wall_ms,
			.start_bytes = s->total_bytes,
		};
		if (r->has_prev && r->prev_total < st->start_bytes)
			st->start_bytes = r->prev_total;
		t->statements_unsampled++;
	}
	if (st->statement.digest[0] == '\0')
		memcpy(st->statement.digest, f->statement.digest,
		    sizeof(st->statement.digest));
	st->finished = true;
	st->server_us = f->duration_us;
	st->rows_sent = f->rows_sent;
	st->rows_examined = f->rows_examined;
	if (f->has_peak) {
		st->exact = true;
		st->exact_peak_bytes = f->peak_bytes;
		t->statements_exact++;
	}
	settle_growth(st);
}

/* A sample's query, taken while sampling. */
static void
add_query(struct runstats *r, const struct sample *s)
{
	struct run_totals *t = &r->t;

	if (t->queried++ == 0) {
		r->first_queried_us = s->elapsed_us;
		t->first_query_us = s->query_us;
	}
	t->queried_span_us = s->elapsed_us - r->first_queried_us;
	/* Saturated: a replayed capture may hold any value. */
	t->query_us_sum = t->query_us_sum > UINT64_MAX - s->query_us ?
	    UINT64_MAX : t->query_us_sum + s->query_us;
	if (s->query_us > t->query_us_max)
		t->query_us_max = s->query_us;
}

/* The largest gap between the process's pages and the total counted. */
static void
add_process(struct run_totals *t, const struct sample *s)
{
	int64_t gap;

	if (!sample_untracked(s, &gap))
		return;
	if (t->process_samples++ == 0 || gap > t->max_untracked) {
		t->max_untracked = gap;
		t->max_untracked_resident = s->process.resident_bytes;
		t->max_untracked_seq = s->seq;
		t->max_untracked_wall_ms = s->wall_ms;
	}
}

/* Whether usage u of limit l is closer to its limit than the kept one. */
static bool
closer(const struct run_totals *t, int64_t u, int64_t l)
{
	if (l < 0)
		return t->cgroup_limit < 0 && u > t->cgroup_usage;
	if (t->cgroup_limit < 0)
		return true;
	/* u/l > kept usage/kept limit, without dividing. */
	return (__int128)u * t->cgroup_limit >
	    (__int128)t->cgroup_usage * l;
}

/* Where the cgroup's usage came closest to its limit, and the kills. */
static void
add_cgroup(struct run_totals *t, const struct sample *s)
{
	const struct process_memory *p = &s->process;

	if (!p->has_cgroup)
		return;
	if (t->cgroup_samples++ == 0) {
		t->cgroup_kills_first = p->cgroup_oom_kills;
		t->cgroup_limit = -1;
		t->cgroup_usage = -1;
	}
	t->cgroup_kills_last = p->cgroup_oom_kills;
	if (closer(t, p->cgroup_usage_bytes, p->cgroup_limit_bytes)) {
		t->cgroup_usage = p->cgroup_usage_bytes;
		t->cgroup_limit = p->cgroup_limit_bytes;
		t->cgroup_seq = s->seq;
		t->cgroup_wall_ms = s->wall_ms;
	}
}

double
runstats_duty_pct(const struct run_totals *t)
{
	if (t->queried < 2 || t->queried_span_us == 0)
		return -1;
	return (double)(t->query_us_sum - t->first_query_us) /
	    (double)t->queried_span_us * 100;
}

void
runstats_add(struct runstats *r, const struct sample *s)
{
	struct run_totals *t = &r->t;

	if (t->samples++ == 0) {
		t->first_seq = s->seq;
		t->first_elapsed_us = s->elapsed_us;
		t->min_total = t->max_total = t->between_peak_total =
		    s->total_bytes;
	}
	t->last_seq = s->seq;
	t->last_elapsed_us = s->elapsed_us;
	t->last_total = s->total_bytes;
	t->kept += s->events_kept;
	t->total_only += s->events_kept && s->has_connection_bytes;
	if (s->total_bytes < t->min_total)
		t->min_total = s->total_bytes;
	if (s->total_bytes > t->max_total)
		t->max_total = s->total_bytes;
	if (t->max_total > t->between_peak_total)
		t->between_peak_total = t->max_total;
	if (s->has_deltas && s->between_peak_total > t->between_peak_total)
		t->between_peak_total = s->between_peak_total;
	if (s->negative_events > t->most_negative_events)
		t->most_negative_events = s->negative_events;
	if (s->negative_bytes < t->lowest_negative_bytes)
		t->lowest_negative_bytes = s->negative_bytes;
	r->total_sum += (double)s->total_bytes;
	t->mean_total = r->total_sum / (double)t->samples;
	if (!s->waiting)
		add_query(r, s);
	add_process(t, s);
	add_cgroup(t, s);
	for (size_t i = 0; i < s->n_events; i++)
		add_event(r, &s->events[i], s->has_deltas);
	/* They ended before this sample was taken. */
	for (size_t i = 0; i < s->n_finished; i++)
		add_finished(r, s, &s->finished[i]);
	add_to_statement(r, s);
	/*
	 * A total with kept rows and no statement (total.h: another began,
	 * its rows not read yet) holds the new one's growth: not its start.
	 */
	if (s->events_kept && !statement_known(&s->statement))
		return;
	r->has_prev = true;
	r->prev_total = s->total_bytes;
}

static int
by_max_bytes(const void *a, const void *b)
{
	const struct run_event *x = a, *y = b;

	if (x->max_bytes != y->max_bytes)
		return x->max_bytes < y->max_bytes ? 1 : -1;
	return strcmp(x->name, y->name);
}

/* Largest growth first; then the earlier statement. */
static int
by_growth(const void *a, const void *b)
{
	const struct run_statement *x = a, *y = b;

	if (x->growth_bytes != y->growth_bytes)
		return x->growth_bytes < y->growth_bytes ? 1 : -1;
	return (x->first_seq > y->first_seq) - (x->first_seq < y->first_seq);
}

int
runstats_events(const struct runstats *r, struct run_event **out, size_t *n)
{
	*out = NULL;
	*n = 0;
	if (r->n_events == 0)
		return 0;
	if ((*out = calloc(r->n_events, sizeof(**out))) == NULL)
		return -1;
	for (size_t i = 0; i < r->n_events; i++) {
		(*out)[i] = r->events[i].e;
		(*out)[i].mean_bytes = r->events[i].sum /
		    (double)r->events[i].e.samples;
	}
	*n = r->n_events;
	qsort(*out, *n, sizeof(**out), by_max_bytes);
	return 0;
}

int
runstats_statements(const struct runstats *r, struct run_statement **out,
    size_t *n)
{
	*out = NULL;
	*n = 0;
	if (r->n_stmts == 0)
		return 0;
	if ((*out = malloc(r->n_stmts * sizeof(**out))) == NULL)
		return -1;
	memcpy(*out, r->stmts, r->n_stmts * sizeof(**out));
	*n = r->n_stmts;
	qsort(*out, *n, sizeof(**out), by_growth);
	return 0;
}
