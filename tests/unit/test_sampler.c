/*
 * The sampling loop against a fake clock and a fake source: deadlines,
 * skipped ticks, stop conditions, top-N and totals.
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

#define MS 1000000u

struct fake {
	uint64_t now;          /* the fake monotonic clock, ns */
	uint64_t wake_latency; /* added to every sleep */
	uint64_t sleeps[64];   /* deadlines asked for */
	size_t n_sleeps;
	int signal_on_sleep;   /* this sleep (1-based) is cut by a signal */
	volatile sig_atomic_t stop;

	uint64_t cost[64];     /* what each read costs, ns (default 1 ms) */
	size_t reads;
	size_t gone_at;        /* this read (1-based) finds the thread gone */
	size_t error_at;
	size_t gap_at;         /* this read reports a 2.5 s gap */
	struct event_stat events[5];
	size_t n_events;

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
	if (f->now < deadline)
		f->now = deadline;
	f->now += f->wake_latency;
	return 0;
}

static enum source_status
fake_read(void *ctx, struct reading *out, char *err, size_t errlen)
{
	struct fake *f = ctx;
	size_t i = f->reads++;

	f->now += f->cost[i] != 0 ? f->cost[i] : 1 * MS;
	if (f->gone_at == i + 1)
		return SOURCE_GONE;
	if (f->error_at == i + 1) {
		snprintf(err, errlen, "lost the connection");
		return SOURCE_ERROR;
	}
	for (size_t k = 0; k < f->n_events; k++)
		f->events[k].current_bytes += 100; /* memory grows */
	out->events = f->events;
	out->n = f->n_events;
	out->gap_us = i + 1 == f->gap_at ? 2500000 : 0;
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

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_deadlines_are_absolute),
		cmocka_unit_test(test_slow_sample_skips_ticks),
		cmocka_unit_test(test_lateness_is_recorded),
		cmocka_unit_test(test_duration_stops_before_the_end),
		cmocka_unit_test(test_duration_does_not_count_ticks_past_the_end),
		cmocka_unit_test(test_thread_gone_ends_normally),
		cmocka_unit_test(test_source_error_carries_message),
		cmocka_unit_test(test_stop_flag_finishes_the_sample),
		cmocka_unit_test(test_signal_during_sleep_stops_at_once),
		cmocka_unit_test(test_sink_error_stops),
		cmocka_unit_test(test_top_n_and_total),
		cmocka_unit_test(test_gap_is_passed_on),
		cmocka_unit_test(test_ring_holds_the_last_window),
	};
	return cmocka_run_group_tests_name("sampler", tests, NULL, NULL);
}
