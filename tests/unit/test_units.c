#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <setjmp.h>
#include <cmocka.h>

#include "units.h"

static void
check_bytes(int64_t v, const char *want)
{
	char buf[64];

	memset(buf, 'x', sizeof(buf));
	assert_int_equal(units_bytes(v, buf, sizeof(buf)), strlen(want));
	assert_string_equal(buf, want);
}

static void
test_bytes_small(void **state)
{
	(void)state;
	check_bytes(0, "0 B");
	check_bytes(1, "1 B");
	check_bytes(512, "512 B");
	check_bytes(1023, "1023 B");
	check_bytes(-1, "-1 B");
	check_bytes(-1023, "-1023 B");
}

/*
 * A buffer too small for any value gets the start of what a large one
 * gets, NUL-ended, as snprintf() would cut it; nothing past its end.
 */
static void
test_bytes_cut(void **state)
{
	static const int64_t values[] = { 0, 7, -1023, 1536, -1048575,
	    INT64_MIN, INT64_MAX };

	(void)state;
	for (size_t i = 0; i < sizeof(values) / sizeof(values[0]); i++) {
		char whole[64], cut[32];

		units_bytes(values[i], whole, sizeof(whole));
		for (size_t len = 1; len < 24; len++) {
			char want[64];
			size_t n = strlen(whole) < len - 1 ? strlen(whole) : len - 1;

			memcpy(want, whole, n);
			want[n] = '\0';
			memset(cut, 'x', sizeof(cut));
			assert_int_equal(units_bytes(values[i], cut, len), n);
			assert_string_equal(cut, want);
			assert_int_equal(cut[len], 'x');
		}
	}
}

static void
test_bytes_units(void **state)
{
	(void)state;
	check_bytes(1024, "1.00 KiB");
	check_bytes(1536, "1.50 KiB");
	check_bytes(25826, "25.22 KiB");
	check_bytes(10180, "9.94 KiB");
	check_bytes(1024 * 1024 + 512 * 1024, "1.50 MiB");
	check_bytes(3LL << 30, "3.00 GiB");
	check_bytes(1LL << 40, "1.00 TiB");
	check_bytes(1289748, "1.23 MiB");
}

static void
test_bytes_rounding(void **state)
{
	(void)state;
	/* 1.125 KiB is a tie: half up. */
	check_bytes(1152, "1.13 KiB");
	/* 1.12402 KiB */
	check_bytes(1151, "1.12 KiB");
	/* 1023.999 KiB rounds up to the next unit, not to "1024.00 KiB". */
	check_bytes((1LL << 20) - 1, "1.00 MiB");
	check_bytes((1LL << 20) - 6, "1023.99 KiB");
	check_bytes((1LL << 30) - 1, "1.00 GiB");
	/* The largest unit keeps counting: there is none to move to. */
	check_bytes((1LL << 50) - 1, "1024.00 TiB");
	check_bytes(1LL << 50, "1024.00 TiB");
}

static void
test_bytes_extremes(void **state)
{
	(void)state;
	/* 2^63 - 1 bytes is 8388608 TiB less one byte. */
	check_bytes(INT64_MAX, "8388608.00 TiB");
	check_bytes(INT64_MIN, "-8388608.00 TiB");
	check_bytes(INT64_MIN + 1, "-8388608.00 TiB");
	check_bytes(-1536, "-1.50 KiB");
	check_bytes(-1024, "-1.00 KiB");
	check_bytes(-((1LL << 20) - 1), "-1.00 MiB");
}

static void
test_bytes_truncates(void **state)
{
	char buf[6];

	(void)state;
	units_bytes(25826, buf, sizeof(buf));
	assert_string_equal(buf, "25.22");
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_bytes_small),
		cmocka_unit_test(test_bytes_units),
		cmocka_unit_test(test_bytes_cut),
		cmocka_unit_test(test_bytes_rounding),
		cmocka_unit_test(test_bytes_extremes),
		cmocka_unit_test(test_bytes_truncates),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
