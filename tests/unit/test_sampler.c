/*
 * The sampling loop against a fake clock and a fake source: deadlines,
 * skipped ticks, stop conditions, top-N and totals, and what each event did
 * between samples.
 */
#include <errno.h>
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#include "sampler.h"
#include "topn.h"

#define MS 1000000u

struct fake {
	uint64_t now;          /* the fake monotonic clock, ns */
	uint64_t wake_latency; /* added to every sleep */
	uint64_t sleeps[64];   /* deadlines asked for */
	size_t n_sleeps;
	int signal_on_sleep;   /* this sleep (1-based) is cut by a signal */
	int wake_on_sleep;     /* this one by a signal that does not stop */
	size_t wakes;          /* calls of the wake hook */
	int wake_fails;        /* the wake hook returns -1 */
	volatile sig_atomic_t stop;

	uint64_t cost[64];     /* what each read costs, ns (default 1 ms) */
	size_t reads;
	size_t gone_at;        /* this read (1-based) finds the thread gone */
	size_t error_at;
	size_t skip_at;        /* these reads give no reading, and go on */
	size_t skip_at2;
	uint64_t deadlines[64]; /* what each read was told */
	size_t gap_at;         /* this read reports a 2.5 s gap */
	struct event_stat events[8];
	size_t n_events;
	const struct statement *statements[64]; /* read i's; NULL: none */
	/* When set, read i returns script[i] instead of growing events[]. */
	const struct reading *script;
	size_t n_script;

	uint64_t seen_seq[64];
	uint64_t seen_elapsed[64];
	uint64_t seen_late[64];
	size_t n_seen;
	size_t stop_after;     /* the sink sets stop after this many */
	size_t fail_after;     /* the sink fails after this many */
};

static uint64_t
fake_now(void *ctx)
{
	return ((struct fake *)ctx)->now;
}

static int64_t
fake_wall(void *ctx)
{
	return 1700000000000 + (int64_t)(((struct fake *)ctx)->now / MS);
}

static int
fake_sleep(void *ctx, uint64_t deadline)
{
	struct fake *f = ctx;

	f->sleeps[f->n_sleeps++] = deadline;
	if ((int)f->n_sleeps == f->signal_on_sleep) {
		f->stop = 1;
		return EINTR;
	}
	if ((int)f->n_sleeps == f->wake_on_sleep)
		return EINTR;
	if (f->now < deadline)
		f->now = deadline;
	f->now += f->wake_latency;
	return 0;
}

static enum source_status
fake_read(void *ctx, uint64_t deadline_ns, struct reading *out, char *err,
    size_t errlen)
{
	struct fake *f = ctx;
	size_t i = f->reads++;

	f->deadlines[i] = deadline_ns;
	f->now += f->cost[i] != 0 ? f->cost[i] : 1 * MS;
	if (f->gone_at == i + 1)
		return SOURCE_GONE;
	if (f->skip_at == i + 1 || f->skip_at2 == i + 1) {
		snprintf(err, errlen, "query interrupted");
		return SOURCE_SKIPPED;
	}
	if (f->error_at == i + 1) {
		snprintf(err, errlen, "lost the connection");
		return SOURCE_ERROR;
	}
	if (f->script != NULL) {
		assert_true(i < f->n_script && f->script[i].n <= 8);
		/* Copied: a source's storage is its own, the events are not. */
		f->n_events = f->script[i].n;
		memcpy(f->events, f->script[i].events,
		    f->n_events * sizeof(f->events[0]));
		out->events_kept = f->script[i].events_kept;
		out->has_connection_bytes = f->script[i].has_connection_bytes;
		out->connection_bytes = f->script[i].connection_bytes;
		out->total_moved = f->script[i].total_moved;
	} else
		for (size_t k = 0; k < f->n_events; k++)
			f->events[k].current_bytes += 100; /* memory grows */
	out->events = f->events;
	out->n = f->n_events;
	out->gap_us = i + 1 == f->gap_at ? 2500000 : 0;
	out->started_ns = 0;
	if (i + 1 == f->gap_at) {
		/* As after a reconnect: the reading is of a query 2.5 s later. */
		f->now += 2500 * MS;
		out->started_ns = f->now - 1 * MS;
	}
	out->statement = f->statements[i];
	return SOURCE_OK;
}

static int
fake_sink(void *ctx, const struct sample *s)
{
	struct fake *f = ctx;

	f->seen_seq[f->n_seen] = s->seq;
	f->seen_elapsed[f->n_seen] = s->elapsed_us;
	f->seen_late[f->n_seen] = s->late_us;
	f->n_seen++;
	if (f->stop_after != 0 && f->n_seen >= f->stop_after)
		f->stop = 1;
	if (f->fail_after != 0 && f->n_seen >= f->fail_after)
		return -1;
	return 0;
}

static void
fake_events(struct fake *f)
{
	static const char *names[] = { "memory/a", "memory/b", "memory/c",
	    "memory/d", "memory/e" };

	for (size_t i = 0; i < 5; i++) {
		snprintf(f->events[i].name, sizeof(f->events[i].name), "%s",
		    names[i]);
		f->events[i].current_bytes = (int64_t)(i + 1) * 1000;
	}
	f->n_events = 5;
}

static enum sampler_end
run(struct fake *f, struct sampler_config *cfg, struct ring *r,
    struct sampler_stats *st, char *err, size_t errlen)
{
	struct clock clk = { f, fake_now, fake_wall, fake_sleep };
	struct source src = { f, fake_read };

	if (cfg->interval_ns == 0)
		cfg->interval_ns = 100 * MS;
	cfg->thread_id = 42;
	return sampler_run(cfg, &src, &clk, r, fake_sink, f, &f->stop, st,
	    err, errlen);
}

static void
test_deadlines_are_absolute(void **state)
{
	struct fake f = { .now = 5 * MS };
	struct sampler_config cfg = { .count = 5 };
	struct sampler_stats st;
	struct ring *r = ring_create(10, 10);
	char err[100];

	(void)state;
	fake_events(&f);
	f.cost[1] = 60 * MS; /* slow, but within the interval: no drift */
	assert_int_equal(run(&f, &cfg, r, &st, err, sizeof(err)),
	    SAMPLER_END_COUNT);
	assert_int_equal(st.taken, 5);
	assert_int_equal(st.skipped, 0);
	assert_int_equal(f.n_sleeps, 5);
	for (size_t i = 0; i < 5; i++) {
		assert_int_equal(f.sleeps[i], 5 * MS + i * 100 * MS);
		assert_int_equal(f.seen_seq[i], i + 1);
		assert_int_equal(f.seen_elapsed[i], i * 100000);
	}
	ring_free(r);
}

static void
test_slow_sample_skips_ticks(void **state)
{
	struct fake f = { 0 };
	struct sampler_config cfg = { .count = 4 };
	struct sampler_stats st;
	struct ring *r = ring_create(10, 10);
	char err[100];

	(void)state;
	fake_events(&f);
	f.cost[2] = 250 * MS; /* the tick at 200 ms ends at 450 ms */
	run(&f, &cfg, r, &st, err, sizeof(err));
	assert_int_equal(st.taken, 4);
	/* Ticks due at 300 and 400 ms could not start: skipped, not piled up. */
	assert_int_equal(st.skipped, 2);
	assert_int_equal(f.sleeps[3], 500 * MS);
	assert_int_equal(f.seen_elapsed[3], 500000);
	ring_free(r);
}

static void
test_lateness_is_recorded(void **state)
{
	struct fake f = { .wake_latency = 300000 };
	struct sampler_config cfg = { .count = 3 };
	struct sampler_stats st;
	struct ring *r = ring_create(10, 10);
	char err[100];

	(void)state;
	fake_events(&f);
	run(&f, &cfg, r, &st, err, sizeof(err));
	for (size_t i = 0; i < 3; i++)
		assert_int_equal(f.seen_late[i], 300);
	/* Lateness does not move later deadlines. */
	assert_int_equal(f.sleeps[2], 200 * MS);
	assert_int_equal(ring_get(r, 0)->query_us, 1000);
	ring_free(r);
}

static void
test_duration_stops_before_the_end(void **state)
{
	struct fake f = { 0 };
	struct sampler_config cfg = { .duration_ns = 1000 * MS };
	struct sampler_stats st;
	struct ring *r = ring_create(50, 10);
	char err[100];

	(void)state;
	fake_events(&f);
	assert_int_equal(run(&f, &cfg, r, &st, err, sizeof(err)),
	    SAMPLER_END_DURATION);
	assert_int_equal(st.taken, 10);
	assert_int_equal(f.seen_elapsed[9], 900000);
	ring_free(r);
}

static void
test_duration_does_not_count_ticks_past_the_end(void **state)
{
	struct fake f = { 0 };
	struct sampler_config cfg = { .duration_ns = 300 * MS };
	struct sampler_stats st;
	struct ring *r = ring_create(50, 10);
	char err[100];

	(void)state;
	fake_events(&f);
	f.cost[1] = 900 * MS; /* the tick at 100 ms ends at 1 s */
	run(&f, &cfg, r, &st, err, sizeof(err));
	assert_int_equal(st.taken, 2);
	assert_int_equal(st.skipped, 1); /* only the tick at 200 ms */
	ring_free(r);
}

/* A source that gives no reading this time loses that tick, not the run. */
/*
 * --max-load 10: a query of 25 ms must be paid back by 250 ms without
 * queries, so after it the ticks due at 100 and 200 ms are skipped for load
 * and the one at 300 ms is taken, on time; cheap queries skip nothing.
 */
static void
test_load_bound_stretches_on_the_schedule(void **state)
{
	struct fake f = { 0 };
	struct sampler_config cfg = { .count = 4, .max_load_pct = 10 };
	struct sampler_stats st;
	struct ring *r = ring_create(10, 10);
	char err[100];

	(void)state;
	fake_events(&f);
	f.cost[0] = 25 * MS;
	f.cost[1] = 5 * MS;  /* 50 ms to pay back: the next tick is fine */
	f.cost[2] = 10 * MS; /* exactly 100 ms: still the next tick */
	assert_int_equal(run(&f, &cfg, r, &st, err, sizeof(err)),
	    SAMPLER_END_COUNT);
	assert_int_equal(st.taken, 4);
	assert_int_equal(st.skipped, 2);
	assert_int_equal(st.load_skipped, 2);
	assert_int_equal(st.query_ns, 25 * MS + 5 * MS + 10 * MS + 1 * MS);
	assert_int_equal(st.slowest_query_ns, 25 * MS);
	for (size_t i = 0; i < 4; i++)
		assert_int_equal(f.seen_late[i], 0); /* never taken late */
	assert_int_equal(f.seen_elapsed[0], 0);
	assert_int_equal(f.seen_elapsed[1], 300000);
	assert_int_equal(f.seen_elapsed[2], 400000);
	assert_int_equal(f.seen_elapsed[3], 500000);
	ring_free(r);
}

/*
 * --max-load 10 is a budget: cheap queries save what they do not spend, so
 * a slow one after them skips nothing; but no more than a second's share
 * (100 ms) is saved, so one that costs more than that still pays back.
 */
static void
test_load_bound_saves_credit_up_to_a_second(void **state)
{
	struct fake f = { 0 };
	struct sampler_config cfg = { .count = 8, .max_load_pct = 10 };
	struct sampler_stats st;
	struct ring *r = ring_create(10, 10);
	char err[100];

	(void)state;
	fake_events(&f);
	/* Ticks 0 to 3 spend 1 ms of the 10 each earns: 26 ms saved. */
	f.cost[4] = 30 * MS; /* 26 + 10 earned since tick 3 covers it */
	f.cost[5] = 1 * MS;
	assert_int_equal(run(&f, &cfg, r, &st, err, sizeof(err)),
	    SAMPLER_END_COUNT);
	assert_int_equal(st.load_skipped, 0);
	assert_int_equal(f.seen_elapsed[5], 500000);
	ring_free(r);

	/* 40 cheap ticks would save 360 ms; 100 ms are kept. */
	memset(&f, 0, sizeof(f));
	fake_events(&f);
	cfg.count = 42;
	f.cost[40] = 150 * MS; /* 100 kept - 150: 50 ms owed, 500 ms */
	r = ring_create(10, 10);
	assert_int_equal(run(&f, &cfg, r, &st, err, sizeof(err)),
	    SAMPLER_END_COUNT);
	assert_int_equal(st.load_skipped, 3); /* 4100 missed, 4200 to 4400 */
	assert_int_equal(st.skipped, 4);
	assert_int_equal(f.seen_elapsed[41], 4500000);
	ring_free(r);
}

/* Without a bound the same costs skip nothing; a late tick is not a load skip. */
static void
test_no_load_bound_and_late_ticks(void **state)
{
	struct fake f = { 0 };
	struct sampler_config cfg = { .count = 3 };
	struct sampler_stats st;
	struct ring *r = ring_create(10, 10);
	char err[100];

	(void)state;
	fake_events(&f);
	f.cost[0] = 25 * MS;
	f.cost[1] = 150 * MS; /* ends after the tick at 200 ms was due */
	assert_int_equal(run(&f, &cfg, r, &st, err, sizeof(err)),
	    SAMPLER_END_COUNT);
	assert_int_equal(st.skipped, 1);
	assert_int_equal(st.load_skipped, 0);
	assert_int_equal(f.seen_elapsed[1], 100000);
	assert_int_equal(f.seen_elapsed[2], 300000);
	ring_free(r);
}

/* A lost reading's query cost the server too; the bound counts it. */
static void
test_load_bound_counts_lost_readings(void **state)
{
	struct fake f = { .skip_at = 1 };
	struct sampler_config cfg = { .count = 2, .max_load_pct = 50 };
	struct sampler_stats st;
	struct ring *r = ring_create(10, 10);
	char err[100];

	(void)state;
	fake_events(&f);
	f.cost[0] = 120 * MS; /* 240 ms to pay back: ticks 1 and 2 skipped */
	assert_int_equal(run(&f, &cfg, r, &st, err, sizeof(err)),
	    SAMPLER_END_COUNT);
	assert_int_equal(st.lost, 1);
	assert_int_equal(st.load_skipped, 1);  /* tick 2; tick 1 was missed */
	assert_int_equal(st.skipped, 1 + 1 + 1); /* the lost one, missed, load */
	assert_int_equal(f.seen_elapsed[0], 300000);
	ring_free(r);
}

/* Within --duration only the ticks before its end are counted. */
static void
test_load_skips_stop_at_the_duration(void **state)
{
	struct fake f = { 0 };
	struct sampler_config cfg = { .duration_ns = 300 * MS,
	    .max_load_pct = 1 };
	struct sampler_stats st;
	struct ring *r = ring_create(10, 10);
	char err[100];

	(void)state;
	fake_events(&f);
	f.cost[0] = 10 * MS; /* a second to pay back; the run ends before */
	assert_int_equal(run(&f, &cfg, r, &st, err, sizeof(err)),
	    SAMPLER_END_DURATION);
	assert_int_equal(st.taken, 1);
	assert_int_equal(st.load_skipped, 2); /* ticks 1 and 2 of 0..2 */
	ring_free(r);
}

static void
test_lost_reading_is_a_skipped_tick(void **state)
{
	struct fake f = { 0 };
	struct sampler_config cfg = { .count = 5 };
	struct sampler_stats st;
	struct ring *r = ring_create(50, 10);
	char err[100];

	(void)state;
	fake_events(&f);
	f.skip_at = 2;
	f.skip_at2 = 4;
	assert_int_equal(run(&f, &cfg, r, &st, err, sizeof(err)),
	    SAMPLER_END_COUNT);
	assert_int_equal(st.taken, 5);
	assert_int_equal(st.skipped, 2);
	assert_int_equal(st.lost, 2);
	assert_string_equal(st.lost_why, "query interrupted");
	/* Ticks 0, 2, 4, 5 and 6 (of 100 ms) have samples, numbered on. */
	assert_int_equal(f.seen_elapsed[1], 200000);
	assert_int_equal(f.seen_elapsed[4], 600000);
	assert_int_equal(f.seen_seq[4], 5);
	ring_free(r);
}

/* Each read is told when the run's time is up, so waits end by then. */
static void
test_reads_are_told_the_end(void **state)
{
	struct fake f = { .now = 7 * MS };
	struct sampler_config cfg = { .duration_ns = 250 * MS };
	struct sampler_stats st;
	struct ring *r = ring_create(50, 10);
	char err[100];

	(void)state;
	fake_events(&f);
	run(&f, &cfg, r, &st, err, sizeof(err));
	/* Ticks at 0, 100 and 200 ms; the run ends at the tick of 300 ms. */
	assert_int_equal(f.reads, 3);
	for (size_t i = 0; i < 3; i++)
		assert_int_equal(f.deadlines[i], 7 * MS + 300 * MS);

	f = (struct fake){ 0 };
	cfg = (struct sampler_config){ .count = 2 };
	fake_events(&f);
	run(&f, &cfg, r, &st, err, sizeof(err));
	assert_int_equal(f.deadlines[0], 0);
	ring_free(r);
}

/* The run's time ran out while the source waited: it ends on time. */
static void
test_lost_at_the_end_ends_the_run(void **state)
{
	struct fake f = { 0 };
	struct sampler_config cfg = { .duration_ns = 1000 * MS };
	struct sampler_stats st;
	struct ring *r = ring_create(50, 10);
	char err[100];

	(void)state;
	fake_events(&f);
	f.cost[2] = 5000 * MS; /* as a reconnect that gave up at the end */
	f.skip_at = 3;
	assert_int_equal(run(&f, &cfg, r, &st, err, sizeof(err)),
	    SAMPLER_END_DURATION);
	assert_int_equal(st.taken, 2);
	assert_int_equal(f.reads, 3);
	ring_free(r);
}

static void
test_thread_gone_ends_normally(void **state)
{
	struct fake f = { .gone_at = 4 };
	struct sampler_config cfg = { 0 };
	struct sampler_stats st;
	struct ring *r = ring_create(50, 10);
	char err[100];

	(void)state;
	fake_events(&f);
	assert_int_equal(run(&f, &cfg, r, &st, err, sizeof(err)),
	    SAMPLER_END_GONE);
	assert_int_equal(st.taken, 3);
	assert_int_equal(f.n_seen, 3);
	ring_free(r);
}

static void
test_source_error_carries_message(void **state)
{
	struct fake f = { .error_at = 2 };
	struct sampler_config cfg = { 0 };
	struct sampler_stats st;
	struct ring *r = ring_create(50, 10);
	char err[100] = "";

	(void)state;
	fake_events(&f);
	assert_int_equal(run(&f, &cfg, r, &st, err, sizeof(err)),
	    SAMPLER_END_SOURCE_ERROR);
	assert_int_equal(st.taken, 1);
	assert_string_equal(err, "lost the connection");
	ring_free(r);
}

static void
test_stop_flag_finishes_the_sample(void **state)
{
	struct fake f = { .stop_after = 2 };
	struct sampler_config cfg = { 0 };
	struct sampler_stats st;
	struct ring *r = ring_create(50, 10);
	char err[100];

	(void)state;
	fake_events(&f);
	assert_int_equal(run(&f, &cfg, r, &st, err, sizeof(err)),
	    SAMPLER_END_STOPPED);
	assert_int_equal(st.taken, 2);
	ring_free(r);
}

static void
test_signal_during_sleep_stops_at_once(void **state)
{
	struct fake f = { .signal_on_sleep = 3 };
	struct sampler_config cfg = { 0 };
	struct sampler_stats st;
	struct ring *r = ring_create(50, 10);
	char err[100];

	(void)state;
	fake_events(&f);
	assert_int_equal(run(&f, &cfg, r, &st, err, sizeof(err)),
	    SAMPLER_END_STOPPED);
	assert_int_equal(st.taken, 2);
	assert_int_equal(f.reads, 2); /* no read after the signal */
	ring_free(r);
}

static void
test_sink_error_stops(void **state)
{
	struct fake f = { .fail_after = 1 };
	struct sampler_config cfg = { 0 };
	struct sampler_stats st;
	struct ring *r = ring_create(50, 10);
	char err[100];

	(void)state;
	fake_events(&f);
	assert_int_equal(run(&f, &cfg, r, &st, err, sizeof(err)),
	    SAMPLER_END_SINK_ERROR);
	assert_int_equal(f.reads, 1);
	ring_free(r);
}

static int
fake_wake(void *ctx)
{
	struct fake *f = ctx;

	f->wakes++;
	return f->wake_fails ? -1 : 0;
}

/* A signal that does not stop (SIGUSR1) is answered, then the wait goes on. */
static void
test_signal_during_sleep_wakes(void **state)
{
	struct fake f = { .wake_on_sleep = 2 };
	struct sampler_config cfg = { .count = 3, .wake = fake_wake };
	struct sampler_stats st;
	struct ring *r = ring_create(10, 10);
	char err[100];

	(void)state;
	fake_events(&f);
	assert_int_equal(run(&f, &cfg, r, &st, err, sizeof(err)),
	    SAMPLER_END_COUNT);
	assert_int_equal(f.wakes, 1);
	assert_int_equal(st.taken, 3);
	/* The tick due at 100 ms is waited for again, not skipped. */
	assert_int_equal(f.sleeps[1], 100 * MS);
	assert_int_equal(f.sleeps[2], 100 * MS);
	assert_int_equal(st.skipped, 0);
	assert_int_equal(f.seen_elapsed[1], 100000);

	/* A failing hook ends the run as a failing sink does. */
	memset(&f, 0, sizeof(f));
	f.wake_on_sleep = 2;
	f.wake_fails = 1;
	fake_events(&f);
	assert_int_equal(run(&f, &cfg, r, &st, err, sizeof(err)),
	    SAMPLER_END_SINK_ERROR);
	assert_int_equal(st.taken, 1);
	ring_free(r);
}

/* Each sample keeps the statement its reading names; none is all zero. */
static void
test_statement_is_kept(void **state)
{
	struct fake f = { 0 };
	struct sampler_config cfg = { .count = 3 };
	struct sampler_stats st;
	struct ring *r = ring_create(10, 10);
	struct statement a = { .has_id = true, .id = 7, .text = "SELECT 1" };
	char err[100];

	(void)state;
	fake_events(&f);
	f.statements[0] = &a;
	f.statements[2] = &a;
	run(&f, &cfg, r, &st, err, sizeof(err));
	assert_int_equal(ring_len(r), 3);
	assert_true(ring_get(r, 0)->statement.has_id);
	assert_int_equal(ring_get(r, 0)->statement.id, 7);
	assert_string_equal(ring_get(r, 0)->statement.text, "SELECT 1");
	assert_false(statement_known(&ring_get(r, 1)->statement));
	assert_true(statement_same(&ring_get(r, 0)->statement,
	    &ring_get(r, 2)->statement));
	ring_free(r);
}

static void
test_top_n_and_total(void **state)
{
	struct fake f = { 0 };
	struct sampler_config cfg = { .count = 1, .top = 2 };
	struct sampler_stats st;
	struct ring *r = ring_create(5, 2);
	const struct sample *s;
	char err[100];

	(void)state;
	fake_events(&f);
	run(&f, &cfg, r, &st, err, sizeof(err));
	s = ring_get(r, 0);
	assert_int_equal(s->n_events, 2);
	assert_string_equal(s->events[0].name, "memory/e");
	assert_int_equal(s->events[0].current_bytes, 5100);
	assert_string_equal(s->events[1].name, "memory/d");
	/* The total counts every event, not just the kept ones. */
	assert_int_equal(s->total_bytes, 1100 + 2100 + 3100 + 4100 + 5100);
	assert_int_equal(s->thread_id, 42);
	assert_int_equal(s->wall_ms, 1700000000000);
	ring_free(r);
}

static void
test_gap_is_passed_on(void **state)
{
	struct fake f = { .gap_at = 2 };
	struct sampler_config cfg = { .count = 3 };
	struct sampler_stats st;
	struct ring *r = ring_create(5, 5);
	char err[100];

	(void)state;
	fake_events(&f);
	run(&f, &cfg, r, &st, err, sizeof(err));
	assert_int_equal(ring_get(r, 0)->gap_ms, 0);
	assert_int_equal(ring_get(r, 1)->gap_ms, 2500);
	assert_int_equal(ring_get(r, 2)->gap_ms, 0);
	/* The sample is stamped with the query that gave it, not the failed one. */
	assert_int_equal(ring_get(r, 1)->elapsed_us, 100000 + 2500000);
	assert_int_equal(ring_get(r, 1)->wall_ms - ring_get(r, 0)->wall_ms,
	    100 + 2500);
	ring_free(r);
}

static void
test_filter_before_top_n(void **state)
{
	char *exclude[] = { (char *)"memory/e", (char *)"%/D" };
	struct event_filter filter = { NULL, 0, exclude, 2 };
	struct fake f = { 0 };
	struct sampler_config cfg = { .count = 1, .top = 2, .filter = &filter };
	struct sampler_stats st;
	struct ring *r = ring_create(5, 2);
	const struct sample *s;
	char err[100];

	(void)state;
	fake_events(&f);
	run(&f, &cfg, r, &st, err, sizeof(err));
	s = ring_get(r, 0);
	/* e and d are the largest, but filtered out before the top 2. */
	assert_int_equal(s->n_events, 2);
	assert_string_equal(s->events[0].name, "memory/c");
	assert_string_equal(s->events[1].name, "memory/b");
	assert_int_equal(s->total_bytes, 1100 + 2100 + 3100 + 4100 + 5100);
	assert_int_equal(s->filtered_total_bytes, 1100 + 2100 + 3100);
	ring_free(r);
}

static void
test_ring_holds_the_last_window(void **state)
{
	struct fake f = { 0 };
	struct sampler_config cfg = { .count = 7 };
	struct sampler_stats st;
	struct ring *r = ring_create(3, 10);
	char err[100];

	(void)state;
	fake_events(&f);
	run(&f, &cfg, r, &st, err, sizeof(err));
	assert_int_equal(ring_len(r), 3);
	assert_int_equal(ring_get(r, 0)->seq, 5);
	assert_int_equal(ring_get(r, 2)->seq, 7);
	assert_int_equal(f.n_seen, 7); /* every sample reached the sink */
	ring_free(r);
}

/* An event of a scripted reading, its counts derived from the bytes. */
static struct event_stat
evs(const char *name, int64_t cur, int64_t high, uint64_t alloc,
    uint64_t freed)
{
	struct event_stat e;

	memset(&e, 0, sizeof(e));
	snprintf(e.name, sizeof(e.name), "%s", name);
	e.current_bytes = cur;
	e.high_bytes = high;
	e.alloc_bytes = alloc;
	e.free_bytes = freed;
	e.alloc_count = alloc / 100;
	e.free_count = freed / 100;
	e.current_count = (int64_t)(e.alloc_count - e.free_count);
	return e;
}

#define READING(a) { .events = (struct event_stat *)(a), \
	.n = sizeof(a) / sizeof((a)[0]) }

static const struct event_stat *
find(const struct sample *s, const char *name)
{
	for (size_t i = 0; i < s->n_events; i++)
		if (strcmp(s->events[i].name, name) == 0)
			return &s->events[i];
	return NULL;
}

static void
delta_is(const struct event_stat *e, uint64_t alloc, uint64_t freed,
    bool unseen)
{
	assert_non_null(e);
	if (e->delta.alloc_bytes != alloc || e->delta.free_bytes != freed ||
	    e->delta.alloc_count != alloc / 100 ||
	    e->delta.free_count != freed / 100 ||
	    e->delta.unseen_peak != unseen)
		fail_msg("%s: delta %ju/%ju bytes, %ju/%ju allocs, peak %d; "
		    "want %ju/%ju, %ju/%ju, %d", e->name,
		    (uintmax_t)e->delta.alloc_bytes,
		    (uintmax_t)e->delta.free_bytes,
		    (uintmax_t)e->delta.alloc_count,
		    (uintmax_t)e->delta.free_count, e->delta.unseen_peak,
		    (uintmax_t)alloc, (uintmax_t)freed,
		    (uintmax_t)(alloc / 100), (uintmax_t)(freed / 100),
		    unseen);
}

/*
 * Top 1 in a ring with no room for spikes: "late" stays out of the first
 * two samples, then its deltas in the third are against the second
 * reading, not the first nor zero. "big" goes backwards in the third.
 */
static void
test_deltas_against_the_previous_reading(void **state)
{
	struct event_stat r1[] = {
		evs("memory/big", 5000, 5000, 10000, 5000),
		evs("memory/late", 100, 100, 1000, 900),
	};
	struct event_stat r2[] = {
		evs("memory/late", 300, 300, 1500, 1200),
		evs("memory/big", 6000, 6000, 11000, 5000),
	};
	struct event_stat r3[] = {
		evs("memory/big", 6000, 6000, 10900, 5000),
		evs("memory/late", 9000, 9000, 10500, 1500),
	};
	const struct reading script[] = {
		READING(r1), READING(r2), READING(r3),
	};
	struct fake f = { .script = script, .n_script = 3 };
	struct sampler_config cfg = { .count = 3, .top = 1 };
	struct sampler_stats st;
	struct ring *r = ring_create(5, 1);
	const struct sample *s;
	char err[100];

	(void)state;
	assert_int_equal(run(&f, &cfg, r, &st, err, sizeof(err)),
	    SAMPLER_END_COUNT);
	s = ring_get(r, 0);
	assert_false(s->has_deltas);
	assert_int_equal(s->n_events, 1);
	delta_is(find(s, "memory/big"), 0, 0, false);
	s = ring_get(r, 1);
	assert_true(s->has_deltas);
	assert_int_equal(s->n_events, 1);
	delta_is(find(s, "memory/big"), 1000, 0, false);
	assert_null(find(s, "memory/late"));
	s = ring_get(r, 2);
	assert_true(s->has_deltas);
	assert_int_equal(s->n_events, 1);
	delta_is(find(s, "memory/late"), 9000, 300, false);
	ring_free(r);
}

/*
 * The spike rule in the loop: "var" holds nothing at either sample but
 * peaked at 15 MB between them; "churn" allocated and freed 2 MiB, more
 * than "b" holds; "small" allocated more than 1 MiB, but less than "b"
 * holds. With room in the ring, the first two
 * are kept after the top 2, largest current first.
 */
static void
test_spikes_kept_beyond_the_top(void **state)
{
	struct event_stat r1[] = {
		evs("memory/a", 4000000, 4000000, 4000000, 0),
		evs("memory/b", 2000000, 2000000, 2000000, 0),
		evs("memory/churn", 500, 500, 500, 0),
		evs("memory/small", 400, 400, 400, 0),
	};
	struct event_stat r2[] = {
		evs("memory/a", 4000000, 4000000, 4000000, 0),
		evs("memory/b", 2000000, 2000000, 2000000, 0),
		evs("memory/churn", 500, 500, 500 + 2097152, 2097152),
		evs("memory/small", 400, 400, 400 + 1999900, 1999900),
		evs("memory/sql/user_var_entry::value", 0, 15000008,
		    15000008, 15000008),
	};
	const struct reading script[] = { READING(r1), READING(r2) };
	struct fake f = { .script = script, .n_script = 2 };
	struct sampler_config cfg = { .count = 2, .top = 2 };
	struct sampler_stats st;
	struct ring *r = ring_create(5, sampler_max_events(2, 100));
	const struct sample *s;
	char err[100];

	(void)state;
	assert_int_equal(ring_max_events(r), 2 + TOPN_MAX_SPIKES);
	run(&f, &cfg, r, &st, err, sizeof(err));
	/* The first sample has nothing to compare with: no spike. */
	assert_int_equal(ring_get(r, 0)->n_events, 2);
	s = ring_get(r, 1);
	assert_int_equal(s->n_events, 4);
	assert_string_equal(s->events[0].name, "memory/a");
	assert_string_equal(s->events[1].name, "memory/b");
	assert_string_equal(s->events[2].name, "memory/churn");
	assert_string_equal(s->events[3].name,
	    "memory/sql/user_var_entry::value");
	delta_is(&s->events[2], 2097152, 2097152, false);
	delta_is(&s->events[3], 15000008, 15000008, true);
	assert_int_equal(s->events[3].high_bytes, 15000008);
	/* The total is still over every event. */
	assert_int_equal(s->total_bytes, 6000900);
	ring_free(r);
}

/*
 * A reading in which nothing moved since the one before (an idle
 * thread's, as most are) has the same top N and totals, no delta, and
 * none of the spikes the reading before kept; an event below zero is
 * still counted so.
 */
static void
test_still_reading_keeps_no_spike(void **state)
{
	struct event_stat r1[] = {
		evs("memory/a", 4000000, 4000000, 4000000, 0),
		evs("memory/b", 2000000, 2000000, 2000000, 0),
		evs("memory/churn", 500, 500, 500, 0),
		evs("memory/neg", -300, 0, 0, 300),
	};
	struct event_stat r2[] = {
		evs("memory/a", 4000000, 4000000, 4000000, 0),
		evs("memory/b", 2000000, 2000000, 2000000, 0),
		evs("memory/churn", 500, 500, 500 + 2097152, 2097152),
		evs("memory/neg", -300, 0, 0, 300),
	};
	const struct reading script[] = { READING(r1), READING(r2),
	    READING(r2), READING(r2) };
	struct fake f = { .script = script, .n_script = 4 };
	struct sampler_config cfg = { .count = 4, .top = 2 };
	struct sampler_stats st;
	struct ring *r = ring_create(5, sampler_max_events(2, 100));
	char err[100];

	(void)state;
	run(&f, &cfg, r, &st, err, sizeof(err));
	assert_int_equal(ring_get(r, 1)->n_events, 3);
	assert_true(ring_get(r, 1)->alloc_delta_bytes > 0);
	for (size_t i = 2; i < 4; i++) {
		const struct sample *s = ring_get(r, i);

		assert_int_equal(s->n_events, 2);
		assert_string_equal(s->events[0].name, "memory/a");
		assert_string_equal(s->events[1].name, "memory/b");
		delta_is(&s->events[0], 0, 0, false);
		assert_int_equal(s->total_bytes, 6000200);
		assert_int_equal(s->filtered_total_bytes, 6000200);
		assert_int_equal(s->alloc_delta_bytes, 0);
		assert_int_equal(s->between_peak_total, 0);
		assert_int_equal(s->negative_events, 1);
		assert_int_equal(s->negative_bytes, -300);
	}
	ring_free(r);
}

/*
 * A tick of the thread's own count alone (total.h): the kept rows' sum
 * moved by the count's move, the count carried, the sample counted kept;
 * the kept rows changed nothing since, so no delta.
 */
static void
test_total_only_moves_the_kept_sum(void **state)
{
	struct event_stat r1[] = {
		evs("memory/a", 4000000, 4000000, 4000000, 0),
		evs("memory/b", 1000, 1000, 1000, 0),
	};
	const struct reading script[] = {
		{ .events = r1, .n = 2, .has_connection_bytes = true,
		    .connection_bytes = 4100000 },
		{ .events = r1, .n = 2, .has_connection_bytes = true,
		    .connection_bytes = 4150000, .total_moved = 50000,
		    .events_kept = true },
		{ .events = r1, .n = 2, .has_connection_bytes = true,
		    .connection_bytes = 4000000, .total_moved = -100000,
		    .events_kept = true },
	};
	struct fake f = { .script = script, .n_script = 3 };
	struct sampler_config cfg = { .count = 3 };
	struct sampler_stats st;
	struct ring *r = ring_create(5, 10);
	const struct sample *s;
	char err[100];

	(void)state;
	run(&f, &cfg, r, &st, err, sizeof(err));
	assert_int_equal(st.taken, 3);
	assert_int_equal(st.kept, 2);
	s = ring_get(r, 0);
	assert_false(s->events_kept);
	assert_int_equal(s->total_bytes, 4001000);
	assert_int_equal(s->connection_bytes, 4100000);
	s = ring_get(r, 1);
	assert_true(s->events_kept && s->has_connection_bytes);
	assert_int_equal(s->total_bytes, 4051000);
	assert_int_equal(s->filtered_total_bytes, 4051000);
	assert_int_equal(s->connection_bytes, 4150000);
	assert_int_equal(s->alloc_delta_bytes, 0);
	assert_int_equal(s->events[0].current_bytes, 4000000);
	s = ring_get(r, 2);
	assert_int_equal(s->total_bytes, 3901000);
	ring_free(r);
}

/*
 * What a sample sums over every event read, kept or not (top 1): the
 * bytes allocated since the previous sample, the total at the largest
 * peak between samples, and the events below zero.
 */
static void
test_sample_sums_over_every_event(void **state)
{
	struct event_stat r1[] = {
		evs("memory/a", 4000000, 4000000, 4000000, 0),
		evs("memory/var", 0, 0, 0, 0),
		evs("memory/neg", -500, 0, 0, 500),
	};
	struct event_stat r2[] = {
		evs("memory/a", 4000000, 4000000, 4001000, 1000),
		evs("memory/var", 0, 15000008, 15000008, 15000008),
		evs("memory/neg", -700, 0, 0, 700),
	};
	const struct reading script[] = { READING(r1), READING(r2) };
	struct fake f = { .script = script, .n_script = 2 };
	struct sampler_config cfg = { .count = 2, .top = 1 };
	struct sampler_stats st;
	struct ring *r = ring_create(5, 1);
	const struct sample *s;
	char err[100];

	(void)state;
	run(&f, &cfg, r, &st, err, sizeof(err));
	s = ring_get(r, 0);
	assert_int_equal(s->alloc_delta_bytes, 0);
	assert_int_equal(s->between_peak_total, 0);
	assert_int_equal(s->negative_events, 1);
	assert_int_equal(s->negative_bytes, -500);
	s = ring_get(r, 1);
	assert_int_equal(s->n_events, 1);
	assert_int_equal(s->alloc_delta_bytes, 1000 + 15000008);
	assert_int_equal(s->total_bytes, 4000000 - 700);
	assert_int_equal(s->between_peak_total, 4000000 - 700 + 15000008);
	assert_int_equal(s->negative_events, 1);
	assert_int_equal(s->negative_bytes, -700);
	ring_free(r);
}

/*
 * Every event kept (top 0): which ones peaked unseen, and a counter that
 * went backwards, which must give 0 and not a wrapped 2^64 - 100.
 */
static void
test_unseen_peaks_and_backwards(void **state)
{
	struct event_stat r1[] = {
		evs("memory/rise", 100, 1000, 5000, 4900),
		evs("memory/seen", 100, 1000, 5000, 4900),
		evs("memory/flat", 100, 1000, 5000, 4900),
		evs("memory/back", 5000, 5000, 10000, 5000),
	};
	struct event_stat r2[] = {
		evs("memory/rise", 200, 3000, 8000, 7800),
		evs("memory/seen", 3000, 3000, 7900, 4900),
		evs("memory/flat", 100, 1000, 5900, 5800),
		evs("memory/back", 3000, 5000, 9900, 6900),
	};
	const struct reading script[] = { READING(r1), READING(r2) };
	struct fake f = { .script = script, .n_script = 2 };
	struct sampler_config cfg = { .count = 2, .top = 0 };
	struct sampler_stats st;
	struct ring *r = ring_create(5, 8);
	const struct sample *s;
	char err[100];

	(void)state;
	run(&f, &cfg, r, &st, err, sizeof(err));
	s = ring_get(r, 0);
	assert_int_equal(s->n_events, 4);
	for (size_t i = 0; i < s->n_events; i++)
		delta_is(&s->events[i], 0, 0, false);
	s = ring_get(r, 1);
	assert_int_equal(s->n_events, 4);
	delta_is(find(s, "memory/rise"), 3000, 2900, true);
	delta_is(find(s, "memory/seen"), 2900, 0, false);
	delta_is(find(s, "memory/flat"), 900, 900, false);
	delta_is(find(s, "memory/back"), 0, 1900, false);
	ring_free(r);
}

/* A ring with room for the top N only keeps no spike, and still counts. */
static void
test_no_room_no_spikes(void **state)
{
	struct event_stat r1[] = {
		evs("memory/a", 4000, 4000, 4000, 0),
	};
	struct event_stat r2[] = {
		evs("memory/a", 4000, 4000, 4000, 0),
		evs("memory/peak", 0, 15000008, 15000008, 15000008),
	};
	const struct reading script[] = { READING(r1), READING(r2) };
	struct fake f = { .script = script, .n_script = 2 };
	struct sampler_config cfg = { .count = 2, .top = 1 };
	struct sampler_stats st;
	struct ring *r = ring_create(5, 1);
	char err[100];

	(void)state;
	assert_int_equal(run(&f, &cfg, r, &st, err, sizeof(err)),
	    SAMPLER_END_COUNT);
	assert_int_equal(ring_get(r, 1)->n_events, 1);
	assert_string_equal(ring_get(r, 1)->events[0].name, "memory/a");
	ring_free(r);
}

static void
test_max_events(void **state)
{
	(void)state;
	assert_int_equal(sampler_max_events(10, 268), 10 + TOPN_MAX_SPIKES);
	assert_int_equal(sampler_max_events(0, 268), 268);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_deadlines_are_absolute),
		cmocka_unit_test(test_sample_sums_over_every_event),
		cmocka_unit_test(test_slow_sample_skips_ticks),
		cmocka_unit_test(test_lateness_is_recorded),
		cmocka_unit_test(test_duration_stops_before_the_end),
		cmocka_unit_test(test_duration_does_not_count_ticks_past_the_end),
		cmocka_unit_test(test_lost_reading_is_a_skipped_tick),
		cmocka_unit_test(test_load_bound_stretches_on_the_schedule),
		cmocka_unit_test(test_load_bound_saves_credit_up_to_a_second),
		cmocka_unit_test(test_no_load_bound_and_late_ticks),
		cmocka_unit_test(test_load_bound_counts_lost_readings),
		cmocka_unit_test(test_load_skips_stop_at_the_duration),
		cmocka_unit_test(test_reads_are_told_the_end),
		cmocka_unit_test(test_lost_at_the_end_ends_the_run),
		cmocka_unit_test(test_thread_gone_ends_normally),
		cmocka_unit_test(test_source_error_carries_message),
		cmocka_unit_test(test_stop_flag_finishes_the_sample),
		cmocka_unit_test(test_signal_during_sleep_stops_at_once),
		cmocka_unit_test(test_sink_error_stops),
		cmocka_unit_test(test_signal_during_sleep_wakes),
		cmocka_unit_test(test_statement_is_kept),
		cmocka_unit_test(test_top_n_and_total),
		cmocka_unit_test(test_gap_is_passed_on),
		cmocka_unit_test(test_filter_before_top_n),
		cmocka_unit_test(test_ring_holds_the_last_window),
		cmocka_unit_test(test_deltas_against_the_previous_reading),
		cmocka_unit_test(test_spikes_kept_beyond_the_top),
		cmocka_unit_test(test_still_reading_keeps_no_spike),
		cmocka_unit_test(test_unseen_peaks_and_backwards),
		cmocka_unit_test(test_no_room_no_spikes),
		cmocka_unit_test(test_max_events),
		cmocka_unit_test(test_total_only_moves_the_kept_sum),
	};
	return cmocka_run_group_tests_name("sampler", tests, NULL, NULL);
}
