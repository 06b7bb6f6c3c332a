/*
 * The sampling loop. Tick k is due at t0 + k * interval on the monotonic
 * clock, whatever the earlier samples cost, so the schedule never drifts.
 * When a sample ends after the next tick's due time, the ticks that can no
 * longer be met are skipped and counted instead of being taken late in a
 * burst. With a load bound, the ticks that would put the queries' share of
 * time over it are skipped the same way: the schedule stretches, but a
 * sample is never taken late. The bound is a budget: the run earns query
 * time as it goes, saves at most a second's worth (or the dearest earlier
 * query's cost, up to ten seconds' worth), and each query spends what it
 * took, so one slow query among cheap ones skips nothing; a source that
 * can read its dear part later is told what the tick can afford.
 *
 * Each sample also says what every kept event did since the previous one
 * (delta.h), and keeps the events that spiked in between even when their
 * current bytes are too small for the top N (topn.c).
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "delta.h"
#include "names.h"
#include "sampler.h"
#include "topn.h"

struct loop {
	const struct sampler_config *cfg;
	struct ring *ring;  /* the slot being filled owns the finished statements */
	const struct clock *clk;
	uint64_t t0;
	uint64_t origin;    /* elapsed time counts from here: t0, or the first reading before */
	uint64_t last_tick; /* first tick not to take (duration); 0: none */
	uint64_t end_ns;    /* when that tick is due, told to the source; 0: none */
	const struct event_stat **order; /* top-N scratch, grown to the largest n */
	size_t order_cap;
	struct delta_table *deltas; /* the previous reading of every event */
	/*
	 * What the last reading's events came to, for a reading in which
	 * none moved (delta_table_still()), as an idle thread's most are:
	 * its storage (order points into it), the top N at the front of
	 * order, the sum of the current bytes and those below zero. NULL
	 * events: nothing to reuse.
	 */
	struct {
		const struct event_stat *events;
		size_t n, top;
		int64_t total, negative_bytes;
		size_t negative_events;
	} last;
	int64_t credit_ns;  /* --max-load: query time earned, not spent; < 0: owed */
	uint64_t credit_at; /* when the credit was last brought up to date */
	uint64_t dearest_ns; /* the dearest query before the last: saved for */
};

/*
 * --max-load saves what the run earns in this long, or the dearest query's
 * cost when more, but never more than LOAD_SAVED_MAX_NS's earnings: a
 * stall of seconds must not let a burst follow.
 */
#define LOAD_SAVED_NS 1000000000u
#define LOAD_SAVED_MAX_NS 10000000000u

/*
 * Moves the events an active filter keeps to the front (the deltas are
 * already computed over all of them) and sums their current bytes.
 * Returns how many are kept.
 */
static size_t
keep_filtered(const struct event_filter *f, struct event_stat *events,
    size_t n, int64_t *kept_total)
{
	size_t kept = 0;

	*kept_total = 0;
	for (size_t i = 0; i < n; i++) {
		if (!filter_keeps(f, events[i].name))
			continue;
		if (i != kept) {
			struct event_stat tmp = events[kept];
			events[kept] = events[i];
			events[i] = tmp;
		}
		*kept_total += events[kept].current_bytes;
		kept++;
	}
	return kept;
}

/*
 * The totals and the top N of a reading in which no event moved: the
 * last reading's, in the same storage. Every delta is zero, so no event
 * spiked, nothing was allocated and nothing peaked between the two.
 */
static size_t
select_still(const struct loop *l, struct sample *s)
{
	s->total_bytes = l->last.total;
	s->alloc_delta_bytes = 0;
	s->between_peak_total = 0;
	s->negative_events = l->last.negative_events;
	s->negative_bytes = l->last.negative_bytes;
	s->filtered_total_bytes = s->total_bytes;
	return l->last.top;
}

/*
 * The deltas, the totals and the events a sample keeps, at the front of
 * l->order: the top N and the spikes behind them. Returns how many.
 */
static size_t
select_events(struct loop *l, struct sample *s, struct event_stat *events,
    size_t n, size_t max_events)
{
	bool filtered = filter_active(l->cfg->filter);
	size_t keep, room;

	if (!filtered && s->has_deltas && delta_table_still(l->deltas) &&
	    l->last.events == events && l->last.n == n)
		return select_still(l, s);
	s->total_bytes = 0;
	for (size_t i = 0; i < n; i++)
		s->total_bytes += events[i].current_bytes;
	/* Over every event read, before the filter and the top N. */
	delta_sums(s, events, n);
	/* The total counts every event; the filter only limits what is kept. */
	if (filtered)
		n = keep_filtered(l->cfg->filter, events, n,
		    &s->filtered_total_bytes);
	else
		s->filtered_total_bytes = s->total_bytes;
	keep = topn_select(events, n, l->cfg->top, l->order);
	/* A filter moves the events: the next reading is not in place. */
	l->last.events = filtered ? NULL : events;
	l->last.n = n;
	l->last.top = keep;
	l->last.total = s->total_bytes;
	l->last.negative_events = s->negative_events;
	l->last.negative_bytes = s->negative_bytes;
	/* Spikes go into the room the ring has beyond the top N. */
	room = max_events > keep ? max_events - keep : 0;
	return topn_add_spikes(l->order, n, keep,
	    room < TOPN_MAX_SPIKES ? room : TOPN_MAX_SPIKES);
}

/*
 * Event src into a ring slot: its name by its length, then the rest. The
 * whole struct is 504 bytes, 385 of them the name's room, which a name
 * of some 40 bytes leaves unread: copying all of it, top and spikes, cost
 * some 60 cache lines a sample.
 */
static void
copy_event(struct event_stat *dst, const struct event_stat *src)
{
	size_t len = src->interned != NULL ? src->interned->len :
	    strlen(src->name);
	size_t at = offsetof(struct event_stat, interned);

	memcpy(dst->name, src->name, len);
	dst->name[len] = '\0';
	memcpy((char *)dst + at, (const char *)src + at, sizeof(*dst) - at);
}

/* Fills a ring slot from one reading of the source. */
static int
fill_sample(struct loop *l, struct sample *s, const struct reading *rd,
    size_t max_events)
{
	struct event_stat *events = rd->events;
	size_t n = rd->n;
	size_t keep, want;
	int has_deltas;

	if (n > l->order_cap) {
		const struct event_stat **p = realloc(l->order, n * sizeof(*p));
		if (p == NULL)
			return -1;
		l->order = p;
		l->order_cap = n;
	}
	if ((has_deltas = delta_table_update_marked(l->deltas, events, n,
	    rd->seq, rd->after, rd->unmoved)) < 0)
		return -1;
	s->has_deltas = has_deltas;
	keep = select_events(l, s, events, n, max_events);
	want = keep < max_events ? keep : max_events;
	for (size_t i = 0; i < want; i++)
		copy_event(&s->events[i], l->order[i]);
	s->n_events = want;
	s->thread_id = l->cfg->thread_id;
	s->gap_ms = rd->gap_us / 1000;
	s->setup_off = rd->setup_off;
	s->process = rd->process;
	s->events_kept = rd->events_kept;
	s->has_connection_bytes = rd->has_connection_bytes;
	s->connection_bytes = rd->connection_bytes;
	/* The kept rows' sum moved by the server's own count (total.h). */
	if (__builtin_add_overflow(s->total_bytes, rd->total_moved,
	    &s->total_bytes))
		s->total_bytes = rd->total_moved < 0 ? INT64_MIN : INT64_MAX;
	if (!filter_active(l->cfg->filter))
		s->filtered_total_bytes = s->total_bytes;
	s->waiting = false;
	if (rd->statement != NULL)
		statement_set(&s->statement, rd->statement);
	if (rd->n_finished > 0) {
		struct finished_statement *f = ring_finished(l->ring,
		    rd->n_finished);

		if (f == NULL)
			return -1;
		memcpy(f, rd->finished, rd->n_finished * sizeof(*f));
	}
	return 0;
}

size_t
sampler_max_events(size_t top, size_t all)
{
	if (top == 0)
		return all;
	return top <= SIZE_MAX - TOPN_MAX_SPIKES ? top + TOPN_MAX_SPIKES :
	    SIZE_MAX;
}

/* The first tick due at or after time t. */
static uint64_t
tick_at(const struct loop *l, uint64_t t)
{
	uint64_t interval = l->cfg->interval_ns;

	return t <= l->t0 ? 0 : (t - l->t0 + interval - 1) / interval;
}

/* How many of the ticks from..to-1 are before the end (--duration). */
static uint64_t
ticks_between(const struct loop *l, uint64_t from, uint64_t to)
{
	if (l->last_tick != 0 && to > l->last_tick)
		to = l->last_tick;
	return to > from ? to - from : 0;
}

/* What the credit will be at time t, before any query then. */
static int64_t
load_credit_at(const struct loop *l, unsigned pct, uint64_t t)
{
	uint64_t share = LOAD_SAVED_NS / 100 * pct;
	uint64_t most = LOAD_SAVED_MAX_NS / 100 * pct;
	int64_t cap = (int64_t)(l->dearest_ns <= share ? share :
	    l->dearest_ns < most ? l->dearest_ns : most);
	uint64_t span = t > l->credit_at ? t - l->credit_at : 0;
	uint64_t earned = span / 100 * pct + span % 100 * pct / 100;

	return earned >= (uint64_t)(cap - l->credit_ns) ? cap :
	    l->credit_ns + (int64_t)earned;
}

/* What a tick starting at t may spend with no tick skipped for it. */
static int64_t
load_afford(const struct loop *l, uint64_t t)
{
	unsigned pct = l->cfg->max_load_pct;

	return pct == 0 || pct >= 100 ? INT64_MAX : load_credit_at(l, pct, t);
}

/*
 * The query time owed after a query that started at start and took
 * query_ns, under a bound of pct percent: each ns of the run earns pct/100
 * ns, at most LOAD_SAVED_NS's earnings are kept, or the dearest earlier
 * query's cost when more (a thread's rows read now and then beside a
 * cheap count each tick, total.h, are saved for, not paid back by skipped
 * ticks), the query spends what it took. 0 when the credit covers it.
 */
static uint64_t
load_owed(struct loop *l, unsigned pct, uint64_t start, uint64_t query_ns)
{
	/* Both stay within what int64_t holds: c <= cap, a query ends. */
	int64_t c = load_credit_at(l, pct, start);

	c -= query_ns < (uint64_t)INT64_MAX / 2 ? (int64_t)query_ns :
	    INT64_MAX / 2;
	l->credit_ns = c;
	l->credit_at = start;
	if (query_ns > l->dearest_ns)
		l->dearest_ns = query_ns;
	return c < 0 ? (uint64_t)-c : 0;
}

/*
 * The index of the next tick to take after tick k, whose query started at
 * start and took query_ns, ended at time now. Ticks already due are skipped
 * as missed; then, with a load bound, those due before what the query owes
 * is earned back.
 */
static uint64_t
next_tick(struct loop *l, uint64_t k, uint64_t start,
    uint64_t query_ns, uint64_t now, struct sampler_stats *stats)
{
	uint64_t next = k + 1;
	uint64_t open = tick_at(l, now);
	unsigned pct = l->cfg->max_load_pct;

	if (open > next) {
		stats->skipped += ticks_between(l, next, open);
		next = open;
	}
	if (pct != 0 && pct < 100) {
		uint64_t owed = load_owed(l, pct, start, query_ns);
		uint64_t paid = tick_at(l, start + owed / pct * 100 +
		    owed % pct * 100 / pct);
		uint64_t n = ticks_between(l, next, paid);

		stats->skipped += n;
		stats->load_skipped += n;
		if (paid > next)
			next = paid;
	}
	return next;
}

/*
 * Hands the readings from before the run to the sink, through the ring
 * and the deltas as any sample, so the first sample of the run has its
 * deltas since the last of them. Returns 0, or the end it met.
 */
static int
feed_before(struct loop *l, struct ring *ring, sampler_sink sink,
    void *sink_ctx, struct sampler_stats *stats, enum sampler_end *end,
    char *err, size_t errlen)
{
	const struct sampler_config *cfg = l->cfg;

	for (size_t i = 0; i < cfg->n_before; i++) {
		const struct sampler_before *b = &cfg->before[i];
		struct sample *s = ring_slot(ring);

		if (fill_sample(l, s, &b->rd, ring_max_events(ring)) != 0) {
			snprintf(err, errlen, "out of memory");
			*end = SAMPLER_END_SOURCE_ERROR;
			return -1;
		}
		s->seq = stats->taken + 1;
		s->elapsed_us = b->mono_ns > l->origin ?
		    (b->mono_ns - l->origin) / 1000 : 0;
		s->late_us = 0;
		s->query_us = 0;
		s->wall_ms = b->wall_ms;
		s->waiting = true;
		ring_commit(ring);
		stats->taken++;
		stats->before++;
		if (sink(sink_ctx, s) != 0) {
			*end = SAMPLER_END_SINK_ERROR;
			return -1;
		}
	}
	return 0;
}

/* The loop's state before its first tick; 0, or -1 out of memory. */
static int
loop_begin(struct loop *l, const struct sampler_config *cfg,
    const struct clock *clk)
{
	if (cfg->duration_ns != 0)
		l->last_tick = (cfg->duration_ns + cfg->interval_ns - 1) /
		    cfg->interval_ns;
	if ((l->deltas = delta_table_create()) == NULL)
		return -1;
	l->t0 = l->credit_at = clk->now_ns(clk->ctx);
	l->origin = cfg->n_before > 0 && cfg->before[0].mono_ns < l->t0 ?
	    cfg->before[0].mono_ns : l->t0;
	if (l->last_tick != 0)
		l->end_ns = l->t0 + l->last_tick * cfg->interval_ns;
	return 0;
}

/*
 * Waits for tick k's deadline. Returns 1 when it is due, 0 when a signal
 * was answered (look at *stop and sleep again), or -1 with *end set when
 * the run ends before it.
 */
static int
wait_tick(const struct loop *l, uint64_t k, void *sink_ctx,
    volatile sig_atomic_t *stop, enum sampler_end *end)
{
	const struct sampler_config *cfg = l->cfg;

	if (*stop) {
		*end = SAMPLER_END_STOPPED;
		return -1;
	}
	if (l->last_tick != 0 && k >= l->last_tick) {
		*end = SAMPLER_END_DURATION;
		return -1;
	}
	if (l->clk->sleep_until(l->clk->ctx, l->t0 + k * cfg->interval_ns) ==
	    EINTR) {
		if (cfg->wake != NULL && cfg->wake(sink_ctx) != 0) {
			*end = SAMPLER_END_SINK_ERROR;
			return -1;
		}
		return 0;
	}
	return 1;
}

/* When a reading was taken: wall time, and its start and end. */
struct read_times {
	int64_t wall_ms;
	uint64_t start, done; /* monotonic */
};

/* One reading of the source, timed. */
static enum source_status
read_timed(struct loop *l, const struct source *src, struct reading *rd,
    struct read_times *t, char *err, size_t errlen)
{
	const struct clock *clk = l->clk;
	enum source_status st;

	t->wall_ms = clk->wall_ms(clk->ctx);
	t->start = clk->now_ns(clk->ctx);
	if (l->cfg->afford_ns != NULL)
		*l->cfg->afford_ns = load_afford(l, t->start);
	st = src->read(src->ctx, l->end_ns, rd, err, errlen);
	t->done = clk->now_ns(clk->ctx);
	/* After a reconnect the reading is of a later query than the first. */
	if (st == SOURCE_OK && rd->started_ns > t->start) {
		t->wall_ms += (int64_t)((rd->started_ns - t->start) / 1000000u);
		t->start = rd->started_ns;
	}
	return st;
}

/* How a reading that is neither a sample nor a skipped tick ends the run. */
static enum sampler_end
source_end(enum source_status st)
{
	if (st == SOURCE_GONE)
		return SAMPLER_END_GONE;
	if (st == SOURCE_STOPPED)
		return SAMPLER_END_STOPPED;
	return SAMPLER_END_SOURCE_ERROR;
}

/*
 * Reading rd, of the tick due at due, made the ring's next sample and
 * counted; NULL when out of memory.
 */
static struct sample *
keep_reading(struct loop *l, const struct reading *rd,
    const struct read_times *t, uint64_t due, struct sampler_stats *stats)
{
	struct sample *s = ring_slot(l->ring);
	uint64_t took = t->done - t->start;

	if (fill_sample(l, s, rd, ring_max_events(l->ring)) != 0)
		return NULL;
	s->seq = stats->taken + 1;
	s->elapsed_us = (t->start - l->origin) / 1000;
	s->late_us = t->start > due ? (t->start - due) / 1000 : 0;
	s->query_us = took / 1000;
	stats->query_ns += took;
	if (took > stats->slowest_query_ns)
		stats->slowest_query_ns = took;
	s->wall_ms = t->wall_ms;
	ring_commit(l->ring);
	stats->taken++;
	stats->kept += s->events_kept;
	return s;
}

enum sampler_end
sampler_run(const struct sampler_config *cfg, const struct source *src,
    const struct clock *clk, struct ring *ring, sampler_sink sink,
    void *sink_ctx, volatile sig_atomic_t *stop, struct sampler_stats *stats,
    char *err, size_t errlen)
{
	struct loop l = { .cfg = cfg, .clk = clk, .ring = ring };
	enum sampler_end end;
	uint64_t k = 0;

	memset(stats, 0, sizeof(*stats));
	if (loop_begin(&l, cfg, clk) != 0) {
		snprintf(err, errlen, "out of memory");
		stats->end = SAMPLER_END_SOURCE_ERROR;
		return stats->end;
	}
	if (feed_before(&l, ring, sink, sink_ctx, stats, &end, err,
	    errlen) != 0)
		goto out;
	for (;;) {
		uint64_t due = l.t0 + k * cfg->interval_ns;
		struct reading rd = { 0 };
		struct read_times t;
		enum source_status st;
		struct sample *s;
		int w;

		if ((w = wait_tick(&l, k, sink_ctx, stop, &end)) < 0)
			break;
		if (w == 0)
			continue;
		st = read_timed(&l, src, &rd, &t, err, errlen);
		/* A reading lost, the source still there: a tick skipped. */
		if (st == SOURCE_SKIPPED) {
			stats->skipped++;
			stats->lost++;
			snprintf(stats->lost_why, sizeof(stats->lost_why), "%s",
			    err);
			k = next_tick(&l, k, t.start, t.done - t.start,
			    clk->now_ns(clk->ctx), stats);
			continue;
		}
		if (st != SOURCE_OK) {
			end = source_end(st);
			break;
		}
		if ((s = keep_reading(&l, &rd, &t, due, stats)) == NULL) {
			snprintf(err, errlen, "out of memory");
			end = SAMPLER_END_SOURCE_ERROR;
			break;
		}
		if (sink(sink_ctx, s) != 0) {
			end = SAMPLER_END_SINK_ERROR;
			break;
		}
		if (cfg->count != 0 && stats->taken - stats->before >=
		    cfg->count) {
			end = SAMPLER_END_COUNT;
			break;
		}
		k = next_tick(&l, k, t.start, t.done - t.start,
		    clk->now_ns(clk->ctx), stats);
	}
out:
	free(l.order);
	delta_table_free(l.deltas);
	stats->end = end;
	return end;
}
