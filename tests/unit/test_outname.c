/*
 * --output patterns: %c, %t, %% and strftime conversions expand; a lone %
 * at the end, an unknown conversion or one that could put a slash or
 * whitespace into a name are refused; a taken name gets a number.
 */
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#include "outname.h"

/* 2026-11-21 02:10:03, a Saturday. */
static struct tm
night(void)
{
	struct tm tm;

	memset(&tm, 0, sizeof(tm));
	tm.tm_year = 126;
	tm.tm_mon = 10;
	tm.tm_mday = 21;
	tm.tm_hour = 2;
	tm.tm_min = 10;
	tm.tm_sec = 3;
	tm.tm_wday = 6;
	tm.tm_yday = 324;
	tm.tm_isdst = -1;
	return tm;
}

static void
expect(const char *pattern, const char *want)
{
	struct tm tm = night();
	char out[256], err[256] = "";

	if (outname_check(pattern, err, sizeof(err)) != 0)
		fail_msg("'%s' refused: %s", pattern, err);
	if (outname_expand(pattern, 1234, 77, &tm, out, sizeof(out)) != 0)
		fail_msg("'%s' did not expand", pattern);
	if (strcmp(out, want) != 0)
		fail_msg("'%s' gave '%s', wanted '%s'", pattern, out, want);
}

static void
test_expands(void **state)
{
	(void)state;
	expect("capture-%Y%m%d-%H%M%S-%c.csv", "capture-20261121-021003-1234.csv");
	expect("t%t-c%c", "t77-c1234");
	expect("100%%-%c", "100%-1234");
	expect("%%c is literal", "%c is literal");
	expect("%F_%T", "2026-11-21_02:10:03");
	expect("%a-%j", "Sat-325");
	expect("/var/log/mmp/%Y/%c.json", "/var/log/mmp/2026/1234.json");
	expect("plain.csv", "plain.csv");
}

static void
test_is_pattern(void **state)
{
	(void)state;
	assert_true(outname_is_pattern("a-%c"));
	assert_true(outname_is_pattern("%%"));
	assert_false(outname_is_pattern("capture.csv"));
	assert_false(outname_is_pattern(""));
}

static void
test_refuses(void **state)
{
	static const struct {
		const char *pattern;
		const char *word;
	} bad[] = {
		{ "capture-%", "lone %" },
		{ "a%%%", "lone %" },
		{ "%q.csv", "unknown conversion %q" },
		{ "%D.csv", "unknown conversion %D" },  /* slashes */
		{ "%n.csv", "unknown conversion %n" },  /* a newline */
		{ "%x.csv", "unknown conversion %x" },  /* the locale's */
		{ "%Ey.csv", "unknown conversion %E" }, /* modifiers */
		{ "% .csv", "unknown conversion % " },
		{ "%\t.csv", "unknown conversion after %" },
		{ "%\xc3\xa9", "unknown conversion after %" },
	};
	struct tm tm = night();

	(void)state;
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		char err[256] = "", out[64];

		if (outname_check(bad[i].pattern, err, sizeof(err)) != -1 ||
		    strstr(err, bad[i].word) == NULL || strchr(err, '\n') ||
		    strchr(err, '\t'))
			fail_msg("'%s': message '%s', wanted '%s'",
			    bad[i].pattern, err, bad[i].word);
		/* expand() never reads past a refused conversion either. */
		assert_int_equal(outname_expand(bad[i].pattern, 1, 2, &tm, out,
		    sizeof(out)), -1);
	}
}

static void
test_too_long_or_empty(void **state)
{
	struct tm tm = night();
	char out[16];

	(void)state;
	assert_int_equal(outname_expand("abcdefghijklmno", 1, 2, &tm, out,
	    sizeof(out)), 0);
	assert_string_equal(out, "abcdefghijklmno");
	assert_int_equal(outname_expand("abcdefghijklmnop", 1, 2, &tm, out,
	    sizeof(out)), -1);
	assert_int_equal(outname_expand("cap-%c-%Y", 123456789, 2, &tm, out,
	    sizeof(out)), -1);
	assert_int_equal(outname_expand("", 1, 2, &tm, out, sizeof(out)), -1);
	/* %N, the sample of --profile-at each; 0 for a capture. */
	assert_int_equal(outname_check("m-%t-%N.pb.gz", out, sizeof(out)), 0);
	assert_int_equal(outname_expand_sample("m-%t-%N-%%N.pb.gz", 1, 2, 37,
	    &tm, out, sizeof(out)), 0);
	assert_string_equal(out, "m-2-37-%N.pb.gz");
	assert_int_equal(outname_expand("m-%N", 1, 2, &tm, out, sizeof(out)),
	    0);
	assert_string_equal(out, "m-0");
	assert_int_equal(outname_expand("%p", 1, 2, &tm, out, 0), -1);
}

static void
test_numbered(void **state)
{
	char out[64];

	(void)state;
	assert_int_equal(outname_numbered("capture.csv", 2, out, sizeof(out)), 0);
	assert_string_equal(out, "capture-2.csv");
	assert_int_equal(outname_numbered("dir.d/capture", 3, out, sizeof(out)), 0);
	assert_string_equal(out, "dir.d/capture-3");
	assert_int_equal(outname_numbered("logs/.hidden", 2, out, sizeof(out)), 0);
	assert_string_equal(out, "logs/.hidden-2");
	assert_int_equal(outname_numbered("a.tar.gz", 12, out, sizeof(out)), 0);
	assert_string_equal(out, "a.tar-12.gz");
	assert_int_equal(outname_numbered("capture.csv", 2, out, 13), -1);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_expands),
		cmocka_unit_test(test_is_pattern),
		cmocka_unit_test(test_refuses),
		cmocka_unit_test(test_too_long_or_empty),
		cmocka_unit_test(test_numbered),
	};
	return cmocka_run_group_tests_name("outname", tests, NULL, NULL);
}
