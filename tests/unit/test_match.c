/*
 * Matching statements: the one with the most memory is taken, a captured
 * statement is not taken again, and a new run of the same text is told
 * from the old one.
 */
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#include "match.h"

static struct stmt_match
stmt(uint64_t thread, int64_t bytes, int64_t time_s, int64_t start_s,
    const char *digest, uint64_t completed)
{
	struct stmt_match m;

	memset(&m, 0, sizeof(m));
	m.thread_id = thread;
	m.connection_id = thread + 1000;
	m.current_bytes = bytes;
	m.time_s = time_s;
	m.start_s = start_s;
	m.completed = completed;
	snprintf(m.digest, sizeof(m.digest), "%s", digest);
	return m;
}

static void
test_choose_largest(void **state)
{
	struct match_list l = { 0 };
	struct match_seen seen = { 0 };
	struct stmt_match a = stmt(10, 5000, 3, 100, "9:1", 4);
	struct stmt_match b = stmt(11, 90000, 1, 102, "9:2", 0);
	struct stmt_match c = stmt(12, 700, 30, 73, "9:3", 7);

	(void)state;
	assert_int_equal(match_choose(&l, &seen), -1);
	assert_int_equal(match_list_add(&l, &a), 0);
	assert_int_equal(match_list_add(&l, &b), 0);
	assert_int_equal(match_list_add(&l, &c), 0);
	assert_int_equal(match_choose(&l, &seen), 1);
	assert_int_equal(match_choose(&l, NULL), 1);
	/* Once b is captured, the next largest. */
	match_seen_add(&seen, &b);
	assert_int_equal(match_choose(&l, &seen), 0);
	match_seen_add(&seen, &a);
	match_seen_add(&seen, &c);
	assert_int_equal(match_choose(&l, &seen), -1);
	match_list_free(&l);
	assert_null(l.v);
	assert_int_equal(l.n, 0);
}

static void
test_ties(void **state)
{
	struct match_list l = { 0 };
	struct stmt_match young = stmt(5, 100, 2, 0, "1:1", 0);
	struct stmt_match old = stmt(9, 100, 8, 0, "1:1", 0);
	struct stmt_match old_low = stmt(3, 100, 8, 0, "1:1", 0);

	(void)state;
	match_list_add(&l, &young);
	match_list_add(&l, &old);
	assert_int_equal(match_choose(&l, NULL), 1); /* the longest running */
	match_list_add(&l, &old_low);
	assert_int_equal(match_choose(&l, NULL), 2); /* then the lowest thread */
	match_list_free(&l);
}

static void
test_same_statement(void **state)
{
	struct stmt_match a = stmt(10, 0, 5, 100, "20:77", 3);
	struct stmt_match b;

	(void)state;
	b = a;
	assert_true(match_same(&a, &b));
	/* PROCESSLIST_TIME is whole seconds: the start wobbles by one. */
	b.start_s = 101;
	assert_true(match_same(&a, &b));
	b.start_s = 99;
	assert_true(match_same(&a, &b));
	b.start_s = 102;
	assert_false(match_same(&a, &b));
	b = a;
	b.thread_id = 11;
	assert_false(match_same(&a, &b));
	b = a;
	strcpy(b.digest, "20:78");
	assert_false(match_same(&a, &b));
	/* The same text again, within the second: a statement ended between. */
	b = a;
	b.completed = 4;
	assert_false(match_same(&a, &b));
}

static void
test_still_running(void **state)
{
	struct stmt_match was = stmt(10, 0, 5, 100, "20:77", 3);
	struct stmt_match now = was;

	(void)state;
	now.time_s = 6;
	assert_true(match_still_running(&was, &now));
	now.time_s = 5;
	assert_true(match_still_running(&was, &now));
	/* A new run of the same text starts again from 0. */
	now.time_s = 4;
	assert_false(match_still_running(&was, &now));
	now = was;
	now.completed = 4;
	assert_false(match_still_running(&was, &now));
	now = was;
	strcpy(now.digest, "21:5");
	assert_false(match_still_running(&was, &now));
}

static void
test_seen_keeps_the_latest(void **state)
{
	struct match_seen seen = { 0 };
	struct stmt_match first = stmt(1, 0, 0, 0, "1:1", 0);

	(void)state;
	match_seen_add(&seen, &first);
	for (uint64_t t = 2; t <= MATCH_SEEN_MAX; t++) {
		struct stmt_match m = stmt(t, 0, 0, 0, "1:1", 0);
		match_seen_add(&seen, &m);
	}
	assert_true(match_seen_has(&seen, &first));
	/* One more: the oldest goes. */
	struct stmt_match last = stmt(999, 0, 0, 0, "1:1", 0);
	match_seen_add(&seen, &last);
	assert_false(match_seen_has(&seen, &first));
	assert_true(match_seen_has(&seen, &last));
	struct stmt_match second = stmt(2, 0, 0, 0, "1:1", 0);
	assert_true(match_seen_has(&seen, &second));
	assert_int_equal(seen.n, MATCH_SEEN_MAX);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_choose_largest),
		cmocka_unit_test(test_ties),
		cmocka_unit_test(test_same_statement),
		cmocka_unit_test(test_still_running),
		cmocka_unit_test(test_seen_keeps_the_latest),
	};
	return cmocka_run_group_tests_name("match", tests, NULL, NULL);
}
