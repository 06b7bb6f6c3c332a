/*
 * The flight recorder's decisions, driven by totals over time: which
 * samples are written when the total reaches the threshold, how long
 * writing goes on after it falls, and that SIGUSR1 dumps what is held
 * without writing any sample twice.
 */
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <setjmp.h>
#include <cmocka.h>

#include "fixtures.h"
#include "ring.h"
#include "trigger.h"

#define SECOND 1000000u /* us */
#define MAX_WRITTEN 128

/* A run: one sample a second into a ring, as the recorder drives it. */
struct run {
	struct ring *ring;
	struct trigger t;
	uint64_t seq;
	uint64_t written[MAX_WRITTEN]; /* seqs, in the order written */
	size_t n_written;
	size_t starts;
	size_t held_at_start[8]; /* samples before the crossing, per start */
};

static void
run_init(struct run *r, size_t window, int64_t threshold, uint64_t hold_s)
{
	memset(r, 0, sizeof(*r));
	assert_non_null(r->ring = ring_create(window, 1));
	trigger_init(&r->t, threshold, hold_s * SECOND);
}

static void
write_unwritten(struct run *r)
{
	for (size_t i = trigger_unwritten(&r->t, r->ring);
	    i < ring_len(r->ring); i++) {
		uint64_t seq = ring_get(r->ring, i)->seq;

		assert_true(r->n_written < MAX_WRITTEN);
		r->written[r->n_written++] = seq;
		trigger_written(&r->t, seq);
	}
}

/*
 * Takes one sample with that total, due a second after the one before and
 * taken late_us after that; returns what the trigger decided.
 */
static enum trigger_action
step_late(struct run *r, int64_t total, uint64_t late_us)
{
	struct sample proto = { .seq = ++r->seq,
	    .elapsed_us = (r->seq - 1) * SECOND + late_us,
	    .late_us = late_us, .total_bytes = total };
	enum trigger_action a;

	push(r->ring, &proto, NULL, 0);
	a = trigger_next(&r->t, ring_get(r->ring, ring_len(r->ring) - 1));
	if (a == TRIGGER_START) {
		assert_true(r->starts < 8);
		r->held_at_start[r->starts++] = ring_len(r->ring) - 1 -
		    trigger_unwritten(&r->t, r->ring);
	}
	if (a != TRIGGER_HOLD)
		write_unwritten(r);
	return a;
}

static enum trigger_action
step(struct run *r, int64_t total)
{
	return step_late(r, total, 0);
}

static void
steps(struct run *r, const int64_t *totals, size_t n)
{
	for (size_t i = 0; i < n; i++)
		step(r, totals[i]);
}

/* written[from..from+n) is first, first+1, ... */
static void
written_run(const struct run *r, size_t from, uint64_t first, size_t n)
{
	assert_true(from + n <= r->n_written);
	for (size_t i = 0; i < n; i++)
		if (r->written[from + i] != first + i)
			fail_msg("written[%zu] is sample %ju, want %ju",
			    from + i, (uintmax_t)r->written[from + i],
			    (uintmax_t)(first + i));
}

static void
no_sample_twice(const struct run *r)
{
	for (size_t i = 1; i < r->n_written; i++)
		if (r->written[i] <= r->written[i - 1])
			fail_msg("sample %ju written after sample %ju",
			    (uintmax_t)r->written[i],
			    (uintmax_t)r->written[i - 1]);
}

/*
 * Window 5, hold 2 s. Samples 1 to 7 stay below; 8 reaches it: 4 to 8 are
 * written, the four before it and it. 10 falls below at 9 s, 11 is 1 s
 * below and written, 12 is 2 s below: held, and writing stops. 15 reaches
 * it again: 12 to 15, as 11 was written already.
 */
static void
test_window_before_the_crossing(void **state)
{
	static const int64_t totals[] = { 1, 2, 3, 4, 5, 6, 7, 100, 100, 50,
	    50, 50, 50, 50, 200 };
	struct run r;

	(void)state;
	run_init(&r, 5, 100, 2);
	for (size_t i = 0; i < 7; i++)
		assert_int_equal(step(&r, totals[i]), TRIGGER_HOLD);
	assert_int_equal(r.n_written, 0);
	assert_int_equal(step(&r, 100), TRIGGER_START);
	written_run(&r, 0, 4, 5);
	assert_int_equal(r.held_at_start[0], 4);
	assert_int_equal(step(&r, 100), TRIGGER_WRITE);
	assert_int_equal(step(&r, 50), TRIGGER_WRITE);
	assert_int_equal(step(&r, 50), TRIGGER_WRITE);
	assert_int_equal(step(&r, 50), TRIGGER_HOLD);
	assert_int_equal(step(&r, 50), TRIGGER_HOLD);
	assert_int_equal(step(&r, 50), TRIGGER_HOLD);
	written_run(&r, 0, 4, 8);
	assert_int_equal(r.n_written, 8);
	assert_int_equal(step(&r, 200), TRIGGER_START);
	assert_int_equal(r.held_at_start[1], 3);
	written_run(&r, 8, 12, 4);
	assert_int_equal(r.n_written, 12);
	no_sample_twice(&r);
	ring_free(r.ring);
}

/* Fewer samples than the window: from the first one. */
static void
test_crossing_before_the_window_is_full(void **state)
{
	static const int64_t totals[] = { 10, 20, 30 };
	struct run r;

	(void)state;
	run_init(&r, 50, 30, 5);
	steps(&r, totals, 3);
	assert_int_equal(r.starts, 1);
	written_run(&r, 0, 1, 3);
	assert_int_equal(r.n_written, 3);
	ring_free(r.ring);
}

/* Reaching the threshold exactly counts; one byte less does not. */
static void
test_threshold_is_inclusive(void **state)
{
	struct run r;

	(void)state;
	run_init(&r, 4, 1024, 5);
	assert_int_equal(step(&r, 1023), TRIGGER_HOLD);
	assert_int_equal(step(&r, 1024), TRIGGER_START);
	written_run(&r, 0, 1, 2);
	ring_free(r.ring);
}

/* Back above the threshold during the hold: the hold starts again later. */
static void
test_hold_restarts_when_it_rises_again(void **state)
{
	struct run r;

	(void)state;
	run_init(&r, 3, 100, 3);
	step(&r, 100);                  /* 1 at 0 s: start */
	step(&r, 10);                   /* 2 at 1 s: below, 0 s */
	step(&r, 10);                   /* 3: 1 s */
	step(&r, 150);                  /* 4: above again */
	assert_int_equal(step(&r, 10), TRIGGER_WRITE); /* 5 at 4 s: 0 s */
	assert_int_equal(step(&r, 10), TRIGGER_WRITE); /* 6: 1 s */
	assert_int_equal(step(&r, 10), TRIGGER_WRITE); /* 7: 2 s */
	assert_int_equal(step(&r, 10), TRIGGER_HOLD);  /* 8: 3 s */
	written_run(&r, 0, 1, 7);
	assert_int_equal(r.n_written, 7);
	assert_int_equal(r.starts, 1);
	ring_free(r.ring);
}

/*
 * The hold counts between due times: a sample taken late, or its query
 * rounded down to microseconds, does not lengthen or shorten it.
 */
static void
test_hold_counts_due_times(void **state)
{
	struct run r;

	(void)state;
	run_init(&r, 4, 100, 1);
	step(&r, 100);                 /* 1 at 0 s */
	/* 2, due at 1 s, taken 0.3 s late: below from 1 s on. */
	assert_int_equal(step_late(&r, 1, 300000), TRIGGER_WRITE);
	/* Taken 0.7 s after 2, but due 1 s after it: the hold is over. */
	assert_int_equal(step(&r, 1), TRIGGER_HOLD);
	step(&r, 100);                 /* 4: again */
	assert_int_equal(step(&r, 1), TRIGGER_WRITE);
	/* 1 us short of due + 1 s, as elapsed and late round apart. */
	r.seq++;
	{
		struct sample proto = { .seq = r.seq,
		    .elapsed_us = 5 * SECOND + 999, .late_us = 1000,
		    .total_bytes = 1 };

		push(r.ring, &proto, NULL, 0);
		assert_int_equal(trigger_next(&r.t,
		    ring_get(r.ring, ring_len(r.ring) - 1)), TRIGGER_HOLD);
	}
	ring_free(r.ring);
}

/* A hold of 0: the first sample below is not written. */
static void
test_hold_zero(void **state)
{
	static const int64_t totals[] = { 5, 500, 600, 5, 5, 700 };
	struct run r;

	(void)state;
	run_init(&r, 10, 500, 0);
	steps(&r, totals, 6);
	/* 1 to 3, then 4 and 5 held, then 4 to 6 when 6 reaches it. */
	assert_int_equal(r.n_written, 6);
	written_run(&r, 0, 1, 6);
	assert_int_equal(r.starts, 2);
	assert_int_equal(r.held_at_start[1], 2);
	ring_free(r.ring);
}

/*
 * SIGUSR1 writes what is held; a crossing after it writes only what came
 * since; a dump while writing or right after another writes nothing.
 */
static void
test_dump_on_signal(void **state)
{
	struct run r;

	(void)state;
	run_init(&r, 4, 1000, 1);
	step(&r, 1);
	step(&r, 2);
	step(&r, 3);
	write_unwritten(&r); /* SIGUSR1 */
	written_run(&r, 0, 1, 3);
	write_unwritten(&r); /* again: nothing new */
	assert_int_equal(r.n_written, 3);
	step(&r, 4);
	step(&r, 5);
	assert_int_equal(step(&r, 1000), TRIGGER_START);
	assert_int_equal(r.held_at_start[0], 2);
	written_run(&r, 3, 4, 3);
	write_unwritten(&r); /* while writing: nothing held */
	assert_int_equal(r.n_written, 6);
	/* Wrapped: samples that left the window unwritten are gone. */
	step(&r, 1);         /* 7 at 6 s: below, 0 s, written */
	step(&r, 1);         /* 8: 1 s, held */
	for (int i = 0; i < 5; i++)
		step(&r, 1); /* 9 to 13 */
	write_unwritten(&r);
	written_run(&r, 6, 7, 1);
	written_run(&r, 7, 10, 4);
	assert_int_equal(r.n_written, 11);
	no_sample_twice(&r);
	ring_free(r.ring);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_window_before_the_crossing),
		cmocka_unit_test(test_crossing_before_the_window_is_full),
		cmocka_unit_test(test_threshold_is_inclusive),
		cmocka_unit_test(test_hold_restarts_when_it_rises_again),
		cmocka_unit_test(test_hold_counts_due_times),
		cmocka_unit_test(test_hold_zero),
		cmocka_unit_test(test_dump_on_signal),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
