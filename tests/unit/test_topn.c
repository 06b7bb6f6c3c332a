/* Top-N keeps the largest current bytes, in order, with stable ties. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "topn.h"

static struct event_stat
ev(const char *name, int64_t cur, int64_t high)
{
	struct event_stat e;

	memset(&e, 0, sizeof(e));
	strcpy(e.name, name);
	e.current_bytes = cur;
	e.high_bytes = high;
	return e;
}

static void
test_keeps_largest_first(void **state)
{
	struct event_stat src[] = {
		ev("memory/a", 10, 10), ev("memory/b", 500, 500),
		ev("memory/c", -7, 3), ev("memory/d", 40, 90),
		ev("memory/e", 0, 1000),
	};
	const struct event_stat *order[5];
	size_t n;

	(void)state;
	n = topn_select(src, 5, 3, order);
	assert_int_equal(n, 3);
	assert_string_equal(order[0]->name, "memory/b");
	assert_string_equal(order[1]->name, "memory/d");
	assert_string_equal(order[2]->name, "memory/a");
	/* The source array itself is left alone. */
	assert_string_equal(src[0].name, "memory/a");
}

static void
test_zero_means_all_and_negative_last(void **state)
{
	struct event_stat src[] = {
		ev("memory/neg", -100, 0), ev("memory/zero", 0, 0),
		ev("memory/pos", 1, 1),
	};
	const struct event_stat *order[3];

	(void)state;
	assert_int_equal(topn_select(src, 3, 0, order), 3);
	assert_string_equal(order[0]->name, "memory/pos");
	assert_string_equal(order[1]->name, "memory/zero");
	assert_string_equal(order[2]->name, "memory/neg");
	assert_int_equal(topn_select(src, 3, 10, order), 3);
	assert_int_equal(topn_select(src, 0, 10, order), 0);
}

static void
test_ties_by_high_then_name(void **state)
{
	struct event_stat src[] = {
		ev("memory/z", 8, 8), ev("memory/y", 8, 9), ev("memory/x", 8, 8),
	};
	const struct event_stat *order[3];

	(void)state;
	topn_select(src, 3, 0, order);
	assert_string_equal(order[0]->name, "memory/y");
	assert_string_equal(order[1]->name, "memory/x");
	assert_string_equal(order[2]->name, "memory/z");
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_keeps_largest_first),
		cmocka_unit_test(test_zero_means_all_and_negative_last),
		cmocka_unit_test(test_ties_by_high_then_name),
	};
	return cmocka_run_group_tests_name("topn", tests, NULL, NULL);
}
