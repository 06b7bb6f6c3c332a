/*
 * --since and --until's moments (when.c): the UTC forms the records are
 * stamped with and people type, the spans before a given now, what is
 * neither, and the stamp read back. The expected figures are date(1)'s:
 * date -u -d 2026-11-27T03:05:00Z +%s.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <setjmp.h>
#include <cmocka.h>

#include "when.h"

#define AT_0305 ((int64_t)1795748700 * 1000) /* 2026-11-27T03:05:00Z */
#define NOW ((int64_t)1795748700123)         /* and 123 ms */

static int64_t
parsed(const char *s)
{
	int64_t ms = 42;

	if (when_parse(s, NOW, &ms) != 0)
		fail_msg("when_parse refused \"%s\"", s);
	return ms;
}

static void
refused(const char *s)
{
	int64_t ms = 42;

	if (when_parse(s, NOW, &ms) == 0)
		fail_msg("when_parse took \"%s\" as %lld", s, (long long)ms);
	/* What is refused leaves the result alone. */
	assert_int_equal(ms, 42);
}

static void
test_utc_forms(void **state)
{
	(void)state;
	assert_int_equal(parsed("2026-11-27T03:05"), AT_0305);
	assert_int_equal(parsed("2026-11-27T03:05Z"), AT_0305);
	assert_int_equal(parsed("2026-11-27 03:05"), AT_0305);
	assert_int_equal(parsed("2026-11-27T03:05:07"), AT_0305 + 7000);
	assert_int_equal(parsed("2026-11-27T03:05:07Z"), AT_0305 + 7000);
	assert_int_equal(parsed("2026-11-27 03:05:07Z"), AT_0305 + 7000);
	assert_int_equal(parsed("2026-11-27T03:05:07.123"), AT_0305 + 7123);
	assert_int_equal(parsed("2026-11-27T03:05:07.123Z"), AT_0305 + 7123);
	assert_int_equal(parsed("2026-11-27T03:05:07.009Z"), AT_0305 + 7009);
	/* The calendar: the epoch, a leap day, the day after a century's. */
	assert_int_equal(parsed("1970-01-01T00:00:00Z"), 0);
	assert_int_equal(parsed("2024-02-29T23:59:59Z"),
	    (int64_t)1709251199 * 1000);
	assert_int_equal(parsed("2000-03-01T00:00"), (int64_t)951868800 * 1000);
	assert_int_equal(parsed("2026-12-31T23:59:59.999Z"),
	    (int64_t)1798761599 * 1000 + 999);
}

static void
test_spans(void **state)
{
	(void)state;
	assert_int_equal(parsed("-30s"), NOW - 30 * 1000);
	assert_int_equal(parsed("-10m"), NOW - 10 * 60 * 1000);
	assert_int_equal(parsed("-2h"), NOW - 2 * 3600 * 1000);
	assert_int_equal(parsed("-1d"), NOW - 86400 * 1000);
	assert_int_equal(parsed("-0s"), NOW);
	assert_int_equal(parsed("-90m"), NOW - 90 * 60 * 1000);
}

static void
test_refusals(void **state)
{
	(void)state;
	refused("");
	refused("-");
	refused("-5x");
	refused("-5");
	refused("-m");
	refused("-5mm");
	refused("-5m ");
	refused("+5m");
	refused("5m");
	refused("2026-11-27");
	refused("2026-11-27T");
	refused("2026-11-27T03");
	refused("2026-11-27T3:05");
	refused("2026-11-27T25:00");
	refused("2026-11-27T24:00");
	refused("2026-11-27T03:60");
	refused("2026-11-27T03:05:61");
	refused("2026-13-01T00:00");
	refused("2026-00-01T00:00");
	refused("2026-11-00T00:00");
	refused("2026-11-32T00:00");
	/* Days the month has not. */
	refused("2026-02-29T00:00");
	refused("2026-02-30T00:00");
	refused("2026-04-31T00:00");
	refused("1900-02-29T00:00");
	refused("26-11-27T03:05");
	refused("2026/11/27T03:05");
	refused("2026-11-27x03:05");
	/* Trailing junk. */
	refused("2026-11-27T03:05x");
	refused("2026-11-27T03:05:07ZZ");
	refused("2026-11-27T03:05:07Z ");
	refused("2026-11-27T03:05:07+01:00");
	refused("2026-11-27T03:05:07.1Z");
	refused("2026-11-27T03:05:07.1234Z");
	refused("2026-11-27T03:05:07.");
}

static void
test_stamp(void **state)
{
	static const int64_t moments[] = {
		0, 1, 999, 1000, AT_0305, AT_0305 + 7123, NOW,
		(int64_t)1709251199 * 1000 + 999, (int64_t)951868800 * 1000,
		(int64_t)4102444799 * 1000 + 500, /* 2099-12-31T23:59:59.5 */
	};
	char buf[64];
	int64_t back;

	(void)state;
	when_stamp(buf, sizeof(buf), AT_0305 + 7009);
	assert_string_equal(buf, "2026-11-27T03:05:07.009Z");
	when_stamp(buf, sizeof(buf), 0);
	assert_string_equal(buf, "1970-01-01T00:00:00.000Z");
	for (size_t i = 0; i < sizeof(moments) / sizeof(moments[0]); i++) {
		when_stamp(buf, sizeof(buf), moments[i]);
		assert_int_equal(strlen(buf), 24);
		assert_int_equal(when_parse(buf, NOW, &back), 0);
		assert_int_equal(back, moments[i]);
	}
	/* A buffer too short is cut, not overrun. */
	memset(buf, 'x', sizeof(buf));
	when_stamp(buf, 11, AT_0305);
	assert_string_equal(buf, "2026-11-27");
	assert_int_equal(buf[11], 'x');
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_utc_forms),
		cmocka_unit_test(test_spans),
		cmocka_unit_test(test_refusals),
		cmocka_unit_test(test_stamp),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
