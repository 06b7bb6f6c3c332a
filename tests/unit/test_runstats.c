/*
 * The whole run's statistics: totals over more samples than any window,
 * events over every sample that kept them, statements ranked by the memory
 * they took rather than the memory the thread held, and the caps.
 */
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <setjmp.h>
#include <cmocka.h>

#include "fixtures.h"
#include "runstats.h"

#define MiB (INT64_C(1) << 20)

/* Feeds one sample of thread 42 with events e[0..n) and statement id. */
static void
feed(struct runstats *r, uint64_t seq, uint64_t stmt_id, int64_t total,
    struct event_stat *e, size_t n)
{
	struct sample s = {
		.seq = seq, .elapsed_us = (seq - 1) * 100000,
		.wall_ms = 1700000000000 + (int64_t)(seq - 1) * 100,
		.has_deltas = seq > 1, .thread_id = 42, .total_bytes = total,
		.n_events = n, .events = e,
	};

	if (stmt_id != 0) {
		s.statement.thread_id = 42;
		s.statement.has_id = true;
		s.statement.id = stmt_id;
		snprintf(s.statement.text, sizeof(s.statement.text),
		    "statement %ju", (uintmax_t)stmt_id);
	}
	for (size_t i = 0; s.has_deltas && i < n; i++)
		s.alloc_delta_bytes += e[i].delta.alloc_bytes;
	runstats_add(r, &s);
}

/*
 * The samples that kept an earlier reading's rows are counted, and of
 * them those with the server's own count of the thread: the total only.
 */
static void
test_kept_counted(void **state)
{
	struct runstats *r = runstats_create();
	const struct run_totals *t;
	struct event_stat e = ev("memory/x", 100);
	struct sample s = { .n_events = 1, .events = &e, .thread_id = 42,
	    .total_bytes = 100, .has_connection_bytes = true,
	    .connection_bytes = 120 };

	(void)state;
	assert_non_null(r);
	for (uint64_t i = 0; i < 6; i++) {
		s.seq = i + 1;
		s.elapsed_us = i * 250000;
		/* Read, kept twice with the count, then once without. */
		s.events_kept = i % 3 != 0;
		s.has_connection_bytes = i != 5;
		runstats_add(r, &s);
	}
	t = runstats_totals(r);
	assert_int_equal(t->samples, 6);
	assert_int_equal(t->kept, 4);
	assert_int_equal(t->total_only, 3);
	/* The events kept are the last reading's: not a drop to zero. */
	assert_int_equal(t->min_total, 100);
	runstats_free(r);
}

/*
 * The server time of the samples' queries: their sum over the time from
 * the first sample to the last, the first's own query not counted (it ran
 * before that time began); the history's readings, taken by a look, not
 * counted at all.
 */
static void
test_query_duty(void **state)
{
	struct runstats *r = runstats_create();
	const struct run_totals *t;
	struct event_stat e = ev("memory/x", 1);
	struct sample s = { .n_events = 1, .events = &e, .thread_id = 42 };

	(void)state;
	assert_non_null(r);
	assert_true(runstats_duty_pct(runstats_totals(r)) < 0);
	/* A reading of the history: before the run, and dearer. */
	s.waiting = true;
	s.seq = 1;
	s.query_us = 90000;
	runstats_add(r, &s);
	s.waiting = false;
	for (uint64_t i = 0; i < 11; i++) {
		s.seq = i + 2;
		s.elapsed_us = 5000000 + i * 100000; /* every 100 ms */
		s.query_us = i == 4 ? 3000 : 1000;
		runstats_add(r, &s);
		if (i == 0)
			assert_true(runstats_duty_pct(runstats_totals(r)) < 0);
	}
	t = runstats_totals(r);
	assert_int_equal(t->queried, 11);
	assert_int_equal(t->query_us_sum, 13000);
	assert_int_equal(t->query_us_max, 3000);
	assert_int_equal(t->queried_span_us, 1000000);
	/* 12 ms of queries in the 1 s after the first sample: 1.2%. */
	assert_true(runstats_duty_pct(t) > 1.19 &&
	    runstats_duty_pct(t) < 1.21);
	runstats_free(r);
}

/* A sample of only a total, as one event "memory/x". */
static void
feed_total(struct runstats *r, uint64_t seq, uint64_t stmt_id, int64_t total)
{
	struct event_stat e = ev("memory/x", total);

	feed(r, seq, stmt_id, total, &e, 1);
}

/* Far more samples than a window: the max is the largest of all of them. */
static void
test_whole_run_totals(void **state)
{
	struct runstats *r = runstats_create();
	const struct run_totals *t;
	struct run_event *ev_out;
	size_t n;

	(void)state;
	assert_non_null(r);
	for (uint64_t i = 1; i <= 500; i++)
		feed_total(r, i, 0, i == 37 ? 99 * MiB : (int64_t)i * 1000);
	t = runstats_totals(r);
	assert_int_equal(t->samples, 500);
	assert_int_equal(t->first_seq, 1);
	assert_int_equal(t->last_seq, 500);
	assert_int_equal(t->max_total, 99 * MiB);
	assert_int_equal(t->min_total, 1000);
	assert_int_equal(t->last_total, 500000);
	assert_int_equal(runstats_events(r, &ev_out, &n), 0);
	assert_int_equal(n, 1);
	assert_string_equal(ev_out[0].name, "memory/x");
	assert_int_equal(ev_out[0].samples, 500);
	assert_int_equal(ev_out[0].max_bytes, 99 * MiB);
	assert_int_equal(ev_out[0].min_bytes, 1000);
	assert_int_equal(ev_out[0].last_bytes, 500000);
	free(ev_out);
	runstats_free(r);
}

/*
 * Statement 2 takes 49 MiB; statement 3 starts while the thread still holds
 * 100 MiB it did not take, and adds 1 MiB: 2 ranks first, though 3's peak
 * is higher.
 */
static void
test_growth_not_inherited_memory(void **state)
{
	struct runstats *r = runstats_create();
	struct run_statement *st;
	size_t n;

	(void)state;
	feed_total(r, 1, 1, 1 * MiB);
	feed_total(r, 2, 2, 1 * MiB);
	feed_total(r, 3, 2, 30 * MiB);
	feed_total(r, 4, 2, 50 * MiB);
	feed_total(r, 5, 0, 100 * MiB);
	feed_total(r, 6, 3, 100 * MiB);
	feed_total(r, 7, 3, 101 * MiB);
	assert_int_equal(runstats_statements(r, &st, &n), 0);
	assert_int_equal(n, 3);
	assert_int_equal(st[0].statement.id, 2);
	assert_int_equal(st[0].start_bytes, 1 * MiB);
	assert_int_equal(st[0].peak_bytes, 50 * MiB);
	assert_int_equal(st[0].growth_bytes, 49 * MiB);
	assert_int_equal(st[0].first_seq, 2);
	assert_int_equal(st[0].last_seq, 4);
	assert_int_equal(st[0].samples, 3);
	assert_int_equal(st[0].last_elapsed_us - st[0].first_elapsed_us,
	    200000);
	assert_int_equal(st[1].statement.id, 3);
	assert_int_equal(st[1].growth_bytes, 1 * MiB);
	assert_int_equal(st[2].statement.id, 1);
	assert_int_equal(st[2].growth_bytes, 0);
	free(st);
	runstats_free(r);
}

/*
 * A statement begins somewhere between the sample before it and its first:
 * its start is the lower of the two, so neither what it took before its
 * first sample nor what its predecessor freed counts against it.
 */
static void
test_start_is_the_lower_neighbour(void **state)
{
	struct runstats *r = runstats_create();
	struct run_statement *st;
	size_t n;

	(void)state;
	feed_total(r, 1, 1, 80 * MiB); /* the predecessor, at its peak */
	feed_total(r, 2, 2, 2 * MiB);  /* it freed; 2 began */
	feed_total(r, 3, 2, 3 * MiB);
	feed_total(r, 4, 3, 40 * MiB); /* 3 took 30 MiB before its first sample */
	assert_int_equal(runstats_statements(r, &st, &n), 0);
	assert_int_equal(n, 3);
	assert_int_equal(st[0].statement.id, 3);
	assert_int_equal(st[0].start_bytes, 3 * MiB);
	assert_int_equal(st[0].growth_bytes, 37 * MiB);
	assert_int_equal(st[1].statement.id, 2);
	assert_int_equal(st[1].start_bytes, 2 * MiB);
	assert_int_equal(st[1].growth_bytes, 1 * MiB);
	free(st);
	runstats_free(r);
}

/*
 * Peaks between samples: of an event (either kind counted apart) and of
 * the statement, whose growth includes them; the bytes it allocated.
 */
static void
test_peaks_between_samples(void **state)
{
	struct runstats *r = runstats_create();
	struct event_stat e1 = ev("memory/v", 1000), e2 = ev("memory/v", 1000),
	    e3 = ev("memory/v", 1000);
	struct run_event *evs;
	struct run_statement *st;
	size_t n;

	(void)state;
	e2.delta = (struct event_delta){ .alloc_bytes = 15 * MiB,
	    .free_bytes = 15 * MiB, .alloc_count = 1, .free_count = 1,
	    .unseen_peak = true };
	e2.high_bytes = 15 * MiB;
	e3.delta = (struct event_delta){ .alloc_bytes = 15 * MiB,
	    .free_bytes = 15 * MiB, .alloc_count = 1, .free_count = 1,
	    .spike_bytes = 15 * MiB - 1000 };
	e3.high_bytes = 15 * MiB;
	feed(r, 1, 7, 1000, &e1, 1);
	feed(r, 2, 7, 1000, &e2, 1);
	feed(r, 3, 7, 1000, &e3, 1);
	assert_int_equal(runstats_totals(r)->unseen_peaks, 1);
	assert_int_equal(runstats_totals(r)->delta_spikes, 1);
	assert_int_equal(runstats_events(r, &evs, &n), 0);
	assert_int_equal(evs[0].unseen_peaks, 1);
	assert_int_equal(evs[0].delta_spikes, 1);
	assert_int_equal(evs[0].largest_between_peak, 15 * MiB);
	assert_int_equal(evs[0].peak_bytes, 15 * MiB);
	assert_int_equal(evs[0].max_bytes, 1000);
	free(evs);
	assert_int_equal(runstats_statements(r, &st, &n), 0);
	assert_int_equal(st[0].peak_bytes, 1000);
	assert_int_equal(st[0].alloc_bytes, 30 * MiB);
	free(st);
	runstats_free(r);
}

/* The statement's between-samples peak comes from the sample's estimate. */
static void
test_statement_between_peak(void **state)
{
	struct runstats *r = runstats_create();
	struct sample s = { .seq = 1, .thread_id = 42, .total_bytes = MiB };
	struct run_statement *st;
	size_t n;

	(void)state;
	s.statement = (struct statement){ .thread_id = 42, .has_id = true,
	    .id = 9 };
	runstats_add(r, &s);
	s.seq = 2;
	s.has_deltas = true;
	s.between_peak_total = 20 * MiB;
	runstats_add(r, &s);
	assert_int_equal(runstats_statements(r, &st, &n), 0);
	assert_int_equal(st[0].peak_bytes, MiB);
	assert_int_equal(st[0].between_peak_bytes, 20 * MiB);
	assert_int_equal(st[0].growth_bytes, 19 * MiB);
	assert_int_equal(runstats_totals(r)->between_peak_total, 20 * MiB);
	free(st);
	runstats_free(r);
}

static void
test_negative_events_counted_once(void **state)
{
	struct runstats *r = runstats_create();
	struct event_stat e[2] = { ev("memory/a", -5000), ev("memory/b", 10) };

	(void)state;
	struct sample s = { .seq = 3, .negative_events = 3,
	    .negative_bytes = -9000 };

	feed(r, 1, 0, -4990, e, 2);
	feed(r, 2, 0, -4990, e, 2);
	assert_int_equal(runstats_totals(r)->negative_events, 1);
	/* Over every event read, kept or not, as the sampler counts them. */
	runstats_add(r, &s);
	s.negative_events = 1;
	s.negative_bytes = -10;
	runstats_add(r, &s);
	assert_int_equal(runstats_totals(r)->most_negative_events, 3);
	assert_int_equal(runstats_totals(r)->lowest_negative_bytes, -9000);
	runstats_free(r);
}

/*
 * More statements than the cap: those with the least growth make room,
 * and are counted; the largest is kept whatever its place in the run.
 */
static void
test_statement_cap(void **state)
{
	struct runstats *r = runstats_create();
	struct run_statement *st;
	uint64_t seq = 1;
	size_t n;

	(void)state;
	/* The big one first, then many that grow by 1 KiB each. */
	feed_total(r, seq++, 1, 0);
	feed_total(r, seq++, 1, 500 * MiB);
	for (uint64_t id = 2; id <= RUNSTATS_MAX_STATEMENTS + 10; id++) {
		feed_total(r, seq++, 0, 0);
		feed_total(r, seq++, id, 0);
		feed_total(r, seq++, id, 1024);
	}
	assert_int_equal(runstats_totals(r)->statements_dropped, 10);
	assert_int_equal(runstats_statements(r, &st, &n), 0);
	assert_int_equal(n, RUNSTATS_MAX_STATEMENTS);
	assert_int_equal(st[0].statement.id, 1);
	assert_int_equal(st[0].growth_bytes, 500 * MiB);
	free(st);
	runstats_free(r);
}

/* More event names than the cap: the rest are counted, not kept. */
static void
test_event_cap(void **state)
{
	struct runstats *r = runstats_create();
	struct run_event *evs;
	struct event_stat e;
	char name[64];
	size_t n;

	(void)state;
	for (int i = 0; i < RUNSTATS_MAX_EVENTS + 3; i++) {
		snprintf(name, sizeof(name), "memory/e%d", i);
		e = ev(name, i);
		feed(r, (uint64_t)i + 1, 0, i, &e, 1);
	}
	assert_int_equal(runstats_totals(r)->events_left_out, 3);
	assert_int_equal(runstats_events(r, &evs, &n), 0);
	assert_int_equal(n, RUNSTATS_MAX_EVENTS);
	free(evs);
	runstats_free(r);
}

/* Feeds a sample as feed() does, bringing finished statements f[0..nf). */
static void
feed_finished(struct runstats *r, uint64_t seq, uint64_t stmt_id,
    int64_t total, const struct finished_statement *f, size_t nf)
{
	struct event_stat e = ev("memory/x", total);
	struct sample s = {
		.seq = seq, .elapsed_us = (seq - 1) * 1000000,
		.wall_ms = 1700000000000 + (int64_t)(seq - 1) * 1000,
		.has_deltas = seq > 1, .thread_id = 42, .total_bytes = total,
		.n_events = 1, .events = &e, .finished = f, .n_finished = nf,
	};

	if (stmt_id != 0) {
		s.statement.thread_id = 42;
		s.statement.has_id = true;
		s.statement.id = stmt_id;
	}
	runstats_add(r, &s);
}

static struct finished_statement
done(uint64_t id, bool has_peak, int64_t peak, uint64_t lost)
{
	struct finished_statement f = {
		.statement = { .thread_id = 42, .has_id = true, .id = id,
		    .ended = true },
		.end_id = id + 1, .duration_us = 150000, .rows_sent = 1,
		.rows_examined = 50000, .has_peak = has_peak,
		.peak_bytes = peak, .lost_before = lost,
	};

	snprintf(f.statement.text, sizeof(f.statement.text), "finished %ju",
	    (uintmax_t)id);
	return f;
}

/*
 * Statement 10 sampled at 5 MiB, its exact peak 30 MiB: the exact one
 * ranks it, the sampled one beside it says what sampling missed.
 * Statement 20 ran between two samples: no sample saw it, yet it is
 * ranked by its exact peak over the lower of the totals around it.
 * Statement 30 has no peak (a server that keeps none): sampled, ranked
 * by its samples. Each is one entry, however many times it is seen.
 */
static void
test_finished_merge_and_rank(void **state)
{
	struct runstats *r = runstats_create();
	const struct run_totals *t;
	struct run_statement *st;
	struct finished_statement f[2];
	size_t n;

	(void)state;
	feed_finished(r, 1, 10, 1 * MiB, NULL, 0);
	feed_finished(r, 2, 10, 5 * MiB, NULL, 0);
	/* 10 ended, 20 ran and ended; 30 runs at sample 3. */
	f[0] = done(10, true, 30 * MiB, 0);
	f[1] = done(20, true, 40 * MiB, 0);
	feed_finished(r, 3, 30, 2 * MiB, f, 2);
	feed_finished(r, 4, 30, 3 * MiB, NULL, 0);
	/* 30 ended, read twice (a read tried again): counted once. */
	f[0] = done(30, false, 0, 2);
	feed_finished(r, 5, 30, 1 * MiB, f, 1);
	feed_finished(r, 6, 30, 1 * MiB, f, 1);

	assert_int_equal(runstats_statements(r, &st, &n), 0);
	assert_int_equal(n, 3);
	/* 20: 40 MiB over min(5, 2) MiB, no sample. */
	assert_int_equal(st[0].statement.id, 20);
	assert_true(st[0].exact && st[0].finished);
	assert_int_equal(st[0].samples, 0);
	assert_int_equal(st[0].start_bytes, 2 * MiB);
	assert_int_equal(st[0].growth_bytes, 38 * MiB);
	assert_int_equal(run_statement_missed(&st[0]), -1);
	assert_int_equal(st[0].first_seq, 3);
	assert_int_equal(st[0].rows_examined, 50000);
	assert_int_equal(st[0].server_us, 150000);
	/* 10: 30 MiB exact, 5 MiB sampled: 25 MiB missed. */
	assert_int_equal(st[1].statement.id, 10);
	assert_true(st[1].exact);
	assert_int_equal(st[1].samples, 2);
	assert_int_equal(run_statement_peak(&st[1]), 30 * MiB);
	assert_int_equal(st[1].between_peak_bytes, 5 * MiB);
	assert_int_equal(run_statement_missed(&st[1]), 25 * MiB);
	assert_int_equal(st[1].growth_bytes, 29 * MiB);
	/* 30: no exact peak, sampled. */
	assert_int_equal(st[2].statement.id, 30);
	assert_false(st[2].exact);
	assert_true(st[2].finished);
	assert_int_equal(run_statement_peak(&st[2]), 3 * MiB);
	t = runstats_totals(r);
	assert_int_equal(t->statements_finished, 3);
	assert_int_equal(t->statements_exact, 2);
	assert_int_equal(t->statements_unsampled, 1);
	assert_int_equal(t->statements_lost, 4); /* lost_before, each read */
	free(st);
	runstats_free(r);
}

/*
 * A statement that ended before the sample that brought it, which sees
 * the thread idle with it: one entry, its only sample taken after it.
 */
static void
test_finished_then_seen_idle(void **state)
{
	struct runstats *r = runstats_create();
	struct run_statement *st;
	struct finished_statement f = done(20, true, 40 * MiB, 0);
	size_t n;

	(void)state;
	feed_finished(r, 1, 10, 1 * MiB, NULL, 0);
	feed_finished(r, 2, 20, 1 * MiB, &f, 1);
	feed_finished(r, 3, 20, 1 * MiB, NULL, 0);
	assert_int_equal(runstats_statements(r, &st, &n), 0);
	assert_int_equal(n, 2);
	assert_int_equal(st[0].statement.id, 20);
	assert_int_equal(st[0].samples, 2);
	assert_int_equal(run_statement_missed(&st[0]), 39 * MiB);
	assert_int_equal(runstats_totals(r)->statements_unsampled, 0);
	free(st);
	runstats_free(r);
}

/*
 * A full table: a statement the server recorded as finished takes the
 * room of the one with the least growth, never of the statement still
 * running, which has none yet.
 */
static void
test_full_table_keeps_the_running_statement(void **state)
{
	struct runstats *r = runstats_create();
	struct run_statement *st;
	struct finished_statement f = done(4000, true, 10 * MiB, 0);
	uint64_t seq = 1;
	size_t n;

	(void)state;
	assert_non_null(r);
	/* RUNSTATS_MAX_STATEMENTS - 1 of 2 MiB growth each. */
	for (uint64_t id = 1; id < RUNSTATS_MAX_STATEMENTS; id++) {
		feed_finished(r, seq++, id, 1 * MiB, NULL, 0);
		feed_finished(r, seq++, id, 3 * MiB, NULL, 0);
	}
	/* The last room: one that runs, no growth; then 4000 ends beside it. */
	feed_finished(r, seq++, 5000, 1 * MiB, NULL, 0);
	feed_finished(r, seq, 5000, 1 * MiB, &f, 1);
	assert_int_equal(runstats_statements(r, &st, &n), 0);
	assert_int_equal(n, RUNSTATS_MAX_STATEMENTS);
	for (size_t i = 0; i < n; i++)
		if (st[i].statement.id == 5000) {
			assert_int_equal(st[i].first_seq, seq - 1);
			assert_int_equal(st[i].samples, 2);
		}
	assert_int_equal(runstats_totals(r)->statements_dropped, 1);
	free(st);
	runstats_free(r);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_whole_run_totals),
		cmocka_unit_test(test_query_duty),
		cmocka_unit_test(test_kept_counted),
		cmocka_unit_test(test_growth_not_inherited_memory),
		cmocka_unit_test(test_start_is_the_lower_neighbour),
		cmocka_unit_test(test_peaks_between_samples),
		cmocka_unit_test(test_statement_between_peak),
		cmocka_unit_test(test_negative_events_counted_once),
		cmocka_unit_test(test_statement_cap),
		cmocka_unit_test(test_event_cap),
		cmocka_unit_test(test_full_table_keeps_the_running_statement),
		cmocka_unit_test(test_finished_merge_and_rank),
		cmocka_unit_test(test_finished_then_seen_idle),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
