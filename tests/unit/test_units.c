#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

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

static void
check_ts(int64_t ms, const char *want)
{
	char buf[64];

	memset(buf, 'x', sizeof(buf));
	units_timestamp(ms, buf, sizeof(buf));
	assert_string_equal(buf, want);
}

static void
test_timestamp(void **state)
{
	(void)state;
	check_ts(0, "1970-01-01T00:00:00.000Z");
	check_ts(1795304996123LL, "2026-11-21T23:49:56.123Z");
	check_ts(951782400000LL, "2000-02-29T00:00:00.000Z");
	check_ts(1, "1970-01-01T00:00:00.001Z");
	check_ts(999, "1970-01-01T00:00:00.999Z");
	check_ts(1000, "1970-01-01T00:00:01.000Z");
}

/*
 * Each thread keeps the second it wrote last: the next timestamp of that
 * second writes only its milliseconds, and any other second is written
 * whole, one a day apart, a minute apart or the one before among them.
 */
static void
test_timestamp_same_second(void **state)
{
	(void)state;
	check_ts(1795304996123LL, "2026-11-21T23:49:56.123Z");
	check_ts(1795304996999LL, "2026-11-21T23:49:56.999Z");
	check_ts(1795304996000LL, "2026-11-21T23:49:56.000Z");
	check_ts(1795304997000LL, "2026-11-21T23:49:57.000Z");
	check_ts(1795304996500LL, "2026-11-21T23:49:56.500Z");
	check_ts(1795391396500LL, "2026-11-22T23:49:56.500Z");
	check_ts(1795391336500LL, "2026-11-22T23:48:56.500Z");
	check_ts(1795391336501LL, "2026-11-22T23:48:56.501Z");
	check_ts(-1, "1969-12-31T23:59:59.999Z");
	check_ts(-1000, "1969-12-31T23:59:59.000Z");
	check_ts(-1001, "1969-12-31T23:59:58.999Z");
}

static void
test_timestamp_negative(void **state)
{
	(void)state;
	/* Floor division: -1 ms is the last millisecond of 1969. */
	check_ts(-1, "1969-12-31T23:59:59.999Z");
	check_ts(-999, "1969-12-31T23:59:59.001Z");
	check_ts(-1000, "1969-12-31T23:59:59.000Z");
	check_ts(-1001, "1969-12-31T23:59:58.999Z");
	check_ts(-86400000LL, "1969-12-31T00:00:00.000Z");
}

/*
 * Written by hand for years 1000 to 9999: the same as gmtime_r() and
 * strftime() write, for every day of four centuries around now, each at
 * a different time of day, and near the ends of the range.
 */
static void
test_timestamp_by_hand(void **state)
{
	char want[96], date[32];
	struct tm tm;
	time_t t;
	int64_t starts[] = { -30610224000LL - 200LL * 86400, -2208988800LL,
	    4102444800LL,
	    253402300800LL - 400LL * 86400 };

	(void)state;
	for (size_t k = 0; k < sizeof(starts) / sizeof(starts[0]); k++)
		for (int64_t day = 0; day < 400; day++) {
			int64_t s = starts[k] + day * 86400 + (day * 7919) % 86400;

			t = (time_t)s;
			assert_non_null(gmtime_r(&t, &tm));
			strftime(date, sizeof(date), "%Y-%m-%dT%H:%M:%S", &tm);
			snprintf(want, sizeof(want), "%s.%03dZ", date,
			    (int)(day % 1000));
			check_ts(s * 1000 + day % 1000, want);
		}
	for (int64_t s = -210866803200LL; s < 32503680000LL; s += 86400 * 97 + 3607) {
		if (s < -62167219200LL) /* before year 0: glibc's own */
			continue;
		t = (time_t)s;
		assert_non_null(gmtime_r(&t, &tm));
		strftime(date, sizeof(date), "%Y-%m-%dT%H:%M:%S", &tm);
		snprintf(want, sizeof(want), "%s.000Z", date);
		check_ts(s * 1000, want);
	}
}

static void
test_timestamp_extremes(void **state)
{
	char buf[64];

	(void)state;
	/* Out of range for struct tm: something is written, and it is short. */
	units_timestamp(INT64_MAX, buf, sizeof(buf));
	assert_true(strlen(buf) < sizeof(buf));
	units_timestamp(INT64_MIN, buf, sizeof(buf));
	assert_true(strlen(buf) < sizeof(buf));
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
		cmocka_unit_test(test_timestamp),
		cmocka_unit_test(test_timestamp_same_second),
		cmocka_unit_test(test_timestamp_negative),
		cmocka_unit_test(test_timestamp_by_hand),
		cmocka_unit_test(test_timestamp_extremes),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
