/*
 * The gate of the slower sources: due at once when new or reset, then
 * not before its interval has passed on the monotonic clock, and due
 * with every sample when armed with no interval.
 */
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include "gate.h"

#define S 1000000000ull

static void
test_new_is_due(void **state)
{
	struct gate g = { 0 };

	(void)state;
	assert_true(gate_due(&g, 0));
	assert_true(gate_due(&g, 5 * S));
}

static void
test_armed_waits_its_interval(void **state)
{
	struct gate g = { 0 };

	(void)state;
	gate_arm(&g, 100 * S, 10 * S);
	assert_false(gate_due(&g, 100 * S));
	assert_false(gate_due(&g, 110 * S - 1));
	assert_true(gate_due(&g, 110 * S));
	assert_true(gate_due(&g, 200 * S));
	/* Armed again from when it read, not from when it was due. */
	gate_arm(&g, 115 * S, 10 * S);
	assert_false(gate_due(&g, 124 * S));
	assert_true(gate_due(&g, 125 * S));
}

static void
test_armed_at_zero(void **state)
{
	struct gate g = { 0 };

	(void)state;
	/* A fake clock starts at 0: armed there, it still waits. */
	gate_arm(&g, 0, 30 * S);
	assert_false(gate_due(&g, 0));
	assert_false(gate_due(&g, 30 * S - 1));
	assert_true(gate_due(&g, 30 * S));
}

static void
test_no_interval_and_reset(void **state)
{
	struct gate g = { 0 };

	(void)state;
	gate_arm(&g, 7 * S, 0);
	assert_true(gate_due(&g, 7 * S));
	gate_arm(&g, 7 * S, 60 * S);
	assert_false(gate_due(&g, 8 * S));
	gate_reset(&g);
	assert_true(gate_due(&g, 8 * S));
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_new_is_due),
		cmocka_unit_test(test_armed_waits_its_interval),
		cmocka_unit_test(test_armed_at_zero),
		cmocka_unit_test(test_no_interval_and_reset),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
