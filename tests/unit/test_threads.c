/*
 * A thread is named to people one way: with its connection, or as a
 * background thread; the capture's note and the live view both use it.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "threads.h"

static void
test_label_with_connection(void **state)
{
	char buf[64];

	(void)state;
	assert_string_equal(thread_label(buf, sizeof(buf), 42, 7),
	    "thread 42 (connection 7)");
}

static void
test_label_of_a_background_thread(void **state)
{
	char buf[64];

	(void)state;
	assert_string_equal(thread_label(buf, sizeof(buf), 3, 0),
	    "thread 3 (background)");
}

/* A short buffer is cut, never overrun. */
static void
test_label_is_cut_to_the_buffer(void **state)
{
	char buf[12];

	(void)state;
	memset(buf, 'x', sizeof(buf));
	thread_label(buf, 10, 18446744073709551615u, 1);
	assert_string_equal(buf, "thread 18");
	assert_int_equal(buf[10], 'x');
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_label_with_connection),
		cmocka_unit_test(test_label_of_a_background_thread),
		cmocka_unit_test(test_label_is_cut_to_the_buffer),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
