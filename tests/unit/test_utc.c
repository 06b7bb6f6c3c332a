/*
 * UTC time written and read (utc.c): the stamp of every sample and line,
 * by hand and as the C library writes it, the names of segments, dumps
 * and incidents and a picture's clock, each read back; --since and
 * --until's moments, the UTC forms the records are stamped with and
 * people type, the spans before a given now, what is neither. The expected figures are date(1)'s:
 * date -u -d 2026-11-27T03:05:00Z +%s.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include <setjmp.h>
#include <cmocka.h>

#include "utc.h"

#define AT_0305 ((int64_t)1795748700 * 1000) /* 2026-11-27T03:05:00Z */
#define NOW ((int64_t)1795748700123)         /* and 123 ms */

static int64_t
parsed(const char *s)
{
	int64_t ms = 42;

	if (utc_when(s, NOW, &ms) != 0)
		fail_msg("utc_when refused \"%s\"", s);
	return ms;
}

static void
refused(const char *s)
{
	int64_t ms = 42;

	if (utc_when(s, NOW, &ms) == 0)
		fail_msg("utc_when took \"%s\" as %lld", s, (long long)ms);
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
	utc_format(buf, sizeof(buf), AT_0305 + 7009, UTC_STAMP);
	assert_string_equal(buf, "2026-11-27T03:05:07.009Z");
	utc_format(buf, sizeof(buf), 0, UTC_STAMP);
	assert_string_equal(buf, "1970-01-01T00:00:00.000Z");
	for (size_t i = 0; i < sizeof(moments) / sizeof(moments[0]); i++) {
		utc_format(buf, sizeof(buf), moments[i], UTC_STAMP);
		assert_int_equal(strlen(buf), 24);
		assert_int_equal(utc_when(buf, NOW, &back), 0);
		assert_int_equal(back, moments[i]);
	}
	/* A buffer too short is cut, not overrun. */
	memset(buf, 'x', sizeof(buf));
	utc_format(buf, 11, AT_0305, UTC_STAMP);
	assert_string_equal(buf, "2026-11-27");
	assert_int_equal(buf[11], 'x');
}

static void
check_ts(int64_t ms, const char *want)
{
	char buf[64];

	memset(buf, 'x', sizeof(buf));
	utc_format(buf, sizeof(buf), ms, UTC_STAMP);
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
 * The same as gmtime_r() and strftime() write for years 1000 to 9999,
 * for every day of four centuries around now, each at a different time
 * of day, and near the ends of the range; beyond, the year keeps its
 * four digits at least, as ISO 8601 and the readers want it.
 */
static void
test_timestamp_by_hand(void **state)
{
	char want[96], date[32];
	struct tm tm;
	time_t t;
	int64_t starts[] = { -30610224000LL, -2208988800LL,
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
	for (int64_t s = -30610224000LL; s < 32503680000LL;
	    s += 86400 * 97 + 3607) {
		t = (time_t)s;
		assert_non_null(gmtime_r(&t, &tm));
		strftime(date, sizeof(date), "%Y-%m-%dT%H:%M:%S", &tm);
		snprintf(want, sizeof(want), "%s.000Z", date);
		check_ts(s * 1000, want);
	}
	check_ts(-30610224000000LL - 1, "0999-12-31T23:59:59.999Z");
	check_ts(-62167219200000LL, "0000-01-01T00:00:00.000Z");
	check_ts(253402300800000LL, "10000-01-01T00:00:00.000Z");
	check_ts(-62167219200000LL - 86400000, "-0001-12-31T00:00:00.000Z");
}

static void
test_timestamp_extremes(void **state)
{
	char buf[64];

	(void)state;
	/* Out of range for struct tm: something is written, and it is short. */
	utc_format(buf, sizeof(buf), INT64_MAX, UTC_STAMP);
	assert_true(strlen(buf) < sizeof(buf));
	utc_format(buf, sizeof(buf), INT64_MIN, UTC_STAMP);
	assert_true(strlen(buf) < sizeof(buf));
}

static void
check_form(int64_t ms, enum utc_form form, const char *want)
{
	char buf[UTC_MAX];
	const char *end;
	int64_t back = 42;

	memset(buf, 'x', sizeof(buf));
	utc_format(buf, sizeof(buf), ms, form);
	assert_string_equal(buf, want);
	if (form == UTC_CLOCK || form == UTC_CLOCK_MS)
		return;
	/* Read back, whole and as the head of a longer name. */
	assert_int_equal(utc_scan(buf, form, &back, NULL), 0);
	assert_int_equal(back, form == UTC_NAME_S ? ms / 1000 * 1000 : ms);
	strcat(buf, ".jsonl");
	assert_int_equal(utc_scan(buf, form, &back, &end), 0);
	assert_string_equal(end, ".jsonl");
	assert_int_not_equal(utc_scan(buf, form, &back, NULL), 0);
}

/* Every form, written and read back: the record's names sort as time. */
static void
test_forms(void **state)
{
	(void)state;
	check_form(AT_0305 + 7123, UTC_STAMP, "2026-11-27T03:05:07.123Z");
	check_form(AT_0305 + 7123, UTC_NAME, "20261127T030507.123Z");
	check_form(AT_0305 + 7123, UTC_NAME_S, "20261127T030507Z");
	check_form(AT_0305 + 7123, UTC_CLOCK, "03:05:07");
	check_form(AT_0305 + 7123, UTC_CLOCK_MS, "03:05:07.123");
	/* The same second again, in another form: the kept second is not it. */
	check_form(AT_0305 + 7124, UTC_NAME, "20261127T030507.124Z");
	check_form(AT_0305 + 7125, UTC_STAMP, "2026-11-27T03:05:07.125Z");
	check_form(AT_0305 + 7126, UTC_NAME_S, "20261127T030507Z");
	check_form(AT_0305 + 7127, UTC_CLOCK_MS, "03:05:07.127");
	check_form(0, UTC_NAME, "19700101T000000.000Z");
	check_form(951782400000LL, UTC_NAME, "20000229T000000.000Z");
	check_form((int64_t)4102444799 * 1000 + 999, UTC_NAME,
	    "20991231T235959.999Z");
	check_form(-1, UTC_CLOCK_MS, "23:59:59.999");
	check_form(-1001, UTC_CLOCK, "23:59:58");
}

static void
not_scanned(const char *s, enum utc_form form)
{
	int64_t ms = 42;
	const char *end = NULL;

	if (utc_scan(s, form, &ms, &end) == 0)
		fail_msg("utc_scan took \"%s\" as %lld", s, (long long)ms);
	assert_int_equal(ms, 42);
}

/* The forms read exactly: what the calendar has not, and shapes near. */
static void
test_scan_refusals(void **state)
{
	int64_t ms;

	(void)state;
	assert_int_equal(utc_scan("2024-02-29T23:59:59.999Z", UTC_STAMP, &ms,
	    NULL), 0);
	assert_int_equal(ms, (int64_t)1709251199 * 1000 + 999);
	not_scanned("", UTC_STAMP);
	not_scanned("2026-11-27T03:05:07.123", UTC_STAMP);
	not_scanned("2026-11-27T03:05:07Z", UTC_STAMP);
	not_scanned("2026-11-27 03:05:07.123Z", UTC_STAMP);
	not_scanned("2026-02-29T00:00:00.000Z", UTC_STAMP);
	not_scanned("1900-02-29T00:00:00.000Z", UTC_STAMP);
	not_scanned("2026-02-31T00:00:00.000Z", UTC_STAMP);
	not_scanned("2026-13-01T00:00:00.000Z", UTC_STAMP);
	not_scanned("2026-00-01T00:00:00.000Z", UTC_STAMP);
	not_scanned("2026-11-00T00:00:00.000Z", UTC_STAMP);
	not_scanned("2026-11-27T24:00:00.000Z", UTC_STAMP);
	not_scanned("2026-11-27T03:60:00.000Z", UTC_STAMP);
	not_scanned("2026-11-27T03:05:60.000Z", UTC_STAMP);
	not_scanned("2026-+1-27T03:05:07.123Z", UTC_STAMP);
	not_scanned("2026-11-27T03:05: 7.123Z", UTC_STAMP);
	not_scanned("2026-11-27T03:05:07.12Z", UTC_STAMP);
	not_scanned("20261127T030507.123", UTC_NAME);
	not_scanned("20261127T030507Z", UTC_NAME);
	not_scanned("20261127-030507.123Z", UTC_NAME);
	not_scanned("2026112xT030507.123Z", UTC_NAME);
	not_scanned("20261399T030507.123Z", UTC_NAME);
	not_scanned("20261127T030507.123Z", UTC_NAME_S);
}


int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_utc_forms),
		cmocka_unit_test(test_spans),
		cmocka_unit_test(test_refusals),
		cmocka_unit_test(test_stamp),
		cmocka_unit_test(test_timestamp),
		cmocka_unit_test(test_timestamp_same_second),
		cmocka_unit_test(test_timestamp_negative),
		cmocka_unit_test(test_timestamp_by_hand),
		cmocka_unit_test(test_timestamp_extremes),
		cmocka_unit_test(test_forms),
		cmocka_unit_test(test_scan_refusals),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
