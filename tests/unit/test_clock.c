/*
 * The schedule of deadlines and the wait for one, on a fake clock whose
 * time moves only when the code under test sleeps: the --live --list top
 * looks at the threads on it, and must neither drift, nor make up missed
 * looks in a burst, nor sleep past what it waits for (Enter, a stop).
 */
#include <errno.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include "clock.h"

#define MS 1000000ull

struct fake {
	uint64_t now;
	size_t sleeps;
	uint64_t longest;  /* the longest sleep asked for */
	uint64_t wake_by;  /* a signal: each sleep ends at most this far on */
	uint64_t done_at;  /* done() says so from this time; 0: never */
	size_t asked;      /* done() calls */
};

static uint64_t
fake_now(void *ctx)
{
	return ((struct fake *)ctx)->now;
}

static int64_t
fake_wall(void *ctx)
{
	(void)ctx;
	return 0;
}

static int
fake_sleep(void *ctx, uint64_t deadline)
{
	struct fake *f = ctx;

	f->sleeps++;
	assert_true(deadline > f->now);
	if (deadline - f->now > f->longest)
		f->longest = deadline - f->now;
	if (f->wake_by != 0 && deadline - f->now > f->wake_by) {
		f->now += f->wake_by;
		return EINTR;
	}
	f->now = deadline;
	return 0;
}

static bool
fake_done(void *ctx)
{
	struct fake *f = ctx;

	f->asked++;
	return f->done_at != 0 && f->now >= f->done_at;
}

static struct clock
clock_of(struct fake *f)
{
	return (struct clock){ f, fake_now, fake_wall, fake_sleep };
}

/* On time, the next deadline is one period after the last: no drift. */
static void
test_next_deadline_keeps_the_phase(void **state)
{
	(void)state;
	assert_int_equal(clock_next_deadline(0, 100 * MS, 30 * MS), 100 * MS);
	assert_int_equal(clock_next_deadline(100 * MS, 100 * MS, 199 * MS),
	    200 * MS);
	/* Due exactly now: it is not missed. */
	assert_int_equal(clock_next_deadline(0, 100 * MS, 100 * MS), 100 * MS);
}

/* A slow turn skips the deadlines it let pass, on the same phase. */
static void
test_next_deadline_skips_missed(void **state)
{
	(void)state;
	assert_int_equal(clock_next_deadline(0, 100 * MS, 250 * MS), 300 * MS);
	assert_int_equal(clock_next_deadline(0, 100 * MS, 300 * MS), 300 * MS);
	assert_int_equal(clock_next_deadline(0, 100 * MS, 301 * MS), 400 * MS);
	assert_int_equal(clock_next_deadline(1000 * MS, 1000 * MS,
	    5500 * MS), 6000 * MS);
}

static void
test_next_deadline_of_no_period_is_now(void **state)
{
	(void)state;
	assert_int_equal(clock_next_deadline(5, 0, 70), 70);
}

/* Nothing to wait for: sleeps to the deadline in slices of every_ns. */
static void
test_wait_reaches_the_deadline_in_slices(void **state)
{
	struct fake f = { .now = 0 };
	struct clock c = clock_of(&f);

	(void)state;
	assert_false(clock_wait(&c, 1000 * MS, 50 * MS, fake_done, &f));
	assert_int_equal(f.now, 1000 * MS);
	assert_int_equal(f.sleeps, 20);
	assert_int_equal(f.longest, 50 * MS);
	assert_int_equal(f.asked, 21);
}

/* What it waits for comes: it returns within a slice of it. */
static void
test_wait_ends_when_done(void **state)
{
	struct fake f = { .now = 0, .done_at = 120 * MS };
	struct clock c = clock_of(&f);

	(void)state;
	assert_true(clock_wait(&c, 1000 * MS, 50 * MS, fake_done, &f));
	assert_int_equal(f.now, 150 * MS);
}

/* Already done: no sleep at all. */
static void
test_wait_done_at_once(void **state)
{
	struct fake f = { .now = 10 * MS, .done_at = 1 };
	struct clock c = clock_of(&f);

	(void)state;
	assert_true(clock_wait(&c, 1000 * MS, 50 * MS, fake_done, &f));
	assert_int_equal(f.sleeps, 0);
}

/* A deadline already passed: no sleep, and not done. */
static void
test_wait_past_deadline(void **state)
{
	struct fake f = { .now = 2000 * MS };
	struct clock c = clock_of(&f);

	(void)state;
	assert_false(clock_wait(&c, 1000 * MS, 50 * MS, fake_done, &f));
	assert_int_equal(f.sleeps, 0);
}

/* Woken early (a signal): it asks again and sleeps on to the deadline. */
static void
test_wait_asks_again_after_a_signal(void **state)
{
	struct fake f = { .now = 0, .wake_by = 7 * MS };
	struct clock c = clock_of(&f);

	(void)state;
	assert_false(clock_wait(&c, 100 * MS, 50 * MS, fake_done, &f));
	assert_int_equal(f.now, 100 * MS);
	assert_int_equal(f.asked, f.sleeps + 1);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_next_deadline_keeps_the_phase),
		cmocka_unit_test(test_next_deadline_skips_missed),
		cmocka_unit_test(test_next_deadline_of_no_period_is_now),
		cmocka_unit_test(test_wait_reaches_the_deadline_in_slices),
		cmocka_unit_test(test_wait_ends_when_done),
		cmocka_unit_test(test_wait_done_at_once),
		cmocka_unit_test(test_wait_past_deadline),
		cmocka_unit_test(test_wait_asks_again_after_a_signal),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
