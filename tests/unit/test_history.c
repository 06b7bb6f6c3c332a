/*
 * The history kept while waiting: bounded in threads and readings, it
 * forgets the threads a look left out and gives a thread's readings of one
 * statement in order.
 */
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#include "history.h"

/* A reading of thread at time t (seconds) of the statement run `completed`. */
static struct history_reading
reading(uint64_t thread, uint64_t t, uint64_t completed, int64_t bytes,
    struct event_stat *ev)
{
	struct history_reading r;

	memset(&r, 0, sizeof(r));
	memset(ev, 0, 2 * sizeof(*ev));
	r.stmt.thread_id = thread;
	r.stmt.connection_id = thread + 100;
	r.stmt.start_s = 1000 + (int64_t)completed * 50;
	r.stmt.time_s = (int64_t)t;
	r.stmt.completed = completed;
	r.stmt.current_bytes = bytes;
	snprintf(r.stmt.digest, sizeof(r.stmt.digest), "12:%llu",
	    (unsigned long long)completed);
	r.mono_ns = t * 1000000000u;
	r.wall_ms = 1700000000000 + (int64_t)t * 1000;
	snprintf(ev[0].name, sizeof(ev[0].name), "memory/sql/a");
	ev[0].current_bytes = bytes;
	snprintf(ev[1].name, sizeof(ev[1].name), "memory/sql/b");
	ev[1].current_bytes = 1;
	r.events = ev;
	r.n = 2;
	return r;
}

static int
add(struct history *h, uint64_t thread, uint64_t t, uint64_t completed,
    int64_t bytes)
{
	struct event_stat ev[2];
	struct history_reading r = reading(thread, t, completed, bytes, ev);

	return history_add(h, &r);
}

/* Only the last depth readings are kept, oldest first, copies of each. */
static void
test_depth_bounds_and_order(void **state)
{
	struct history *h = history_create(3, 10);
	const struct history_reading *got[8];
	struct stmt_match m;

	(void)state;
	assert_non_null(h);
	assert_int_equal(history_depth(h), 3);
	for (uint64_t t = 1; t <= 5; t++) {
		history_begin_look(h);
		assert_int_equal(add(h, 7, t, 0, (int64_t)t * 100), 0);
		history_end_look(h);
	}
	m = reading(7, 5, 0, 0, (struct event_stat[2]){ 0 }).stmt;
	assert_int_equal(history_take(h, &m, got, 8), 3);
	for (size_t i = 0; i < 3; i++) {
		assert_int_equal(got[i]->mono_ns, (3 + i) * 1000000000u);
		assert_int_equal(got[i]->n, 2);
		assert_int_equal(got[i]->events[0].current_bytes,
		    (int64_t)(3 + i) * 100);
		assert_string_equal(got[i]->events[1].name, "memory/sql/b");
	}
	/* max limits it to the newest. */
	assert_int_equal(history_take(h, &m, got, 2), 2);
	assert_int_equal(got[0]->mono_ns, 4000000000u);
	history_free(h);
}

/* A thread a look leaves out is forgotten; no look takes more threads than the cap. */
static void
test_evicts_threads_left_out(void **state)
{
	struct history *h = history_create(4, 10);
	const struct history_reading *got[4];
	struct stmt_match m1 = reading(1, 1, 0, 0, (struct event_stat[2]){ 0 }).stmt;
	struct stmt_match m2 = reading(2, 1, 0, 0, (struct event_stat[2]){ 0 }).stmt;

	(void)state;
	history_begin_look(h);
	assert_int_equal(add(h, 1, 1, 0, 10), 0);
	assert_int_equal(add(h, 2, 1, 0, 20), 0);
	history_end_look(h);
	history_begin_look(h);
	assert_int_equal(add(h, 2, 2, 0, 30), 0);
	history_end_look(h);
	assert_int_equal(history_take(h, &m1, got, 4), 0);
	assert_int_equal(history_take(h, &m2, got, 4), 2);
	/* One look: HISTORY_THREADS threads, and no more. */
	history_begin_look(h);
	for (uint64_t t = 0; t < HISTORY_THREADS; t++)
		assert_int_equal(add(h, 100 + t, 3, 0, 5), 0);
	assert_int_equal(add(h, 999, 3, 0, 5), -1);
	history_end_look(h);
	/* Thread 2 was pushed out by the newcomers. */
	assert_int_equal(history_take(h, &m2, got, 4), 0);
	history_free(h);
}

/* Only the statement's own readings: not those of the one before it. */
static void
test_takes_only_the_statement(void **state)
{
	struct history *h = history_create(10, 10);
	const struct history_reading *got[10];
	struct stmt_match now = reading(5, 9, 1, 0, (struct event_stat[2]){ 0 }).stmt;
	struct stmt_match gone = reading(5, 9, 7, 0, (struct event_stat[2]){ 0 }).stmt;

	(void)state;
	for (uint64_t t = 1; t <= 6; t++) {
		history_begin_look(h);
		/* Statement 0 runs until 3 s, statement 1 from 4 s. */
		assert_int_equal(add(h, 5, t, t <= 3 ? 0 : 1, 10), 0);
		history_end_look(h);
	}
	assert_int_equal(history_take(h, &now, got, 10), 3);
	assert_int_equal(got[0]->mono_ns, 4000000000u);
	assert_int_equal(got[2]->mono_ns, 6000000000u);
	assert_int_equal(history_take(h, &gone, got, 10), 0);
	history_free(h);
}

/*
 * Two runs of one text within a second, as a look that leaves the count of
 * ended statements 0 sees them: the statement ids tell them apart.
 */
static void
test_statement_ids_split_runs(void **state)
{
	struct history *h = history_create(10, 10);
	const struct history_reading *got[10];
	struct event_stat ev[2];
	struct stmt_match m;

	(void)state;
	for (uint64_t t = 1; t <= 4; t++) {
		struct history_reading r = reading(5, t, 0, 10, ev);

		r.stmt.start_s = 1000;
		r.statement.has_id = true;
		r.statement.id = t <= 2 ? 70 : 71;
		history_begin_look(h);
		assert_int_equal(history_add(h, &r), 0);
		history_end_look(h);
	}
	m = reading(5, 4, 0, 0, ev).stmt;
	m.start_s = 1000;
	m.completed = 33; /* as pfs_thread_statement() gives it */
	assert_int_equal(history_take(h, &m, got, 10), 2);
	assert_int_equal(got[0]->statement.id, 71);
	history_free(h);
}

/*
 * MySQL shows a stored function's statement in PROCESSLIST_INFO from its
 * first call on: the text, and its digest, change in the middle of the
 * statement. The statement id and the start do not: the readings from
 * before the change are the same run. Without ids, the text decides.
 */
static void
test_text_changes_within_one_statement(void **state)
{
	struct history *h = history_create(10, 10);
	const struct history_reading *got[10];
	struct event_stat ev[2];
	struct stmt_match m;

	(void)state;
	for (int ids = 1; ids >= 0; ids--) {
		for (uint64_t t = 1; t <= 4; t++) {
			struct history_reading r = reading(5, t, 0, 10, ev);

			r.stmt.start_s = 1000 + (t == 4); /* whole seconds */
			snprintf(r.stmt.digest, sizeof(r.stmt.digest), "%s",
			    t <= 2 ? "30:111" : "92:222");
			r.statement.has_id = ids;
			r.statement.id = 70;
			history_begin_look(h);
			assert_int_equal(history_add(h, &r), 0);
			history_end_look(h);
		}
		m = reading(5, 4, 0, 0, ev).stmt;
		m.start_s = 1000;
		snprintf(m.digest, sizeof(m.digest), "92:222");
		assert_int_equal(history_take(h, &m, got, 10), ids ? 4 : 2);
		assert_int_equal(got[0]->mono_ns, (ids ? 1 : 3) * 1000000000u);
		/* A statement the newest reading does not show has none. */
		snprintf(m.digest, sizeof(m.digest), "30:111");
		assert_int_equal(history_take(h, &m, got, 10), 0);
	}
	history_free(h);
}

/* The depth is lowered so that the worst case stays under the cap. */
static void
test_memory_cap(void **state)
{
	size_t events = 1000;
	struct history *h = history_create(100000, events);

	(void)state;
	assert_non_null(h);
	assert_true(history_depth(h) >= 1);
	assert_true(history_depth(h) < 100000);
	assert_true(HISTORY_THREADS * history_depth(h) * events *
	    sizeof(struct event_stat) <= HISTORY_MAX_BYTES);
	history_free(h);
	/* Events past max_events are left out. */
	h = history_create(2, 1);
	history_begin_look(h);
	assert_int_equal(add(h, 3, 1, 0, 10), 0);
	history_end_look(h);
	const struct history_reading *got[2];
	struct stmt_match m = reading(3, 1, 0, 0, (struct event_stat[2]){ 0 }).stmt;
	assert_int_equal(history_take(h, &m, got, 2), 1);
	assert_int_equal(got[0]->n, 1);
	history_free(h);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_depth_bounds_and_order),
		cmocka_unit_test(test_evicts_threads_left_out),
		cmocka_unit_test(test_takes_only_the_statement),
		cmocka_unit_test(test_statement_ids_split_runs),
		cmocka_unit_test(test_text_changes_within_one_statement),
		cmocka_unit_test(test_memory_cap),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
