/*
 * The text format's writer of server text, which copies runs of plain
 * ASCII, against the plain rule it must follow byte for byte: the writer
 * of one code point at a time that it replaced, kept here as the
 * reference.
 */
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <setjmp.h>
#include <cmocka.h>

#include "obuf.h"
#include "writer_check.h"
#include "clean.h"
#include "scrub.h"

static bool
ref_is_space(uint32_t cp)
{
	return cp == ' ' || (cp >= '\t' && cp <= '\r');
}

/* The reference: output_clean.c's clean_put_len() before runs. */
static size_t
ref_put_len(FILE *fp, const char *s, size_t n, size_t max, bool oneline)
{
	size_t cols = 0, k;
	bool space = false;
	uint32_t cp;

	for (size_t i = 0; i < n; i += k) {
		const char *out = s + i;

		if ((k = scrub_utf8(s + i, n - i, &cp)) == 0) {
			k = 1;
			out = "?";
		} else if (oneline && ref_is_space(cp)) {
			space = cols > 0;
			continue;
		} else if (!scrub_shown(cp))
			out = "?";
		if (cols + space + 1 > max)
			break;
		if (space) {
			putc(' ', fp);
			cols++;
			space = false;
		}
		fwrite(out, 1, out == s + i ? k : 1, fp);
		cols++;
	}
	return cols;
}

static struct obuf out;

/* Both ways, at each width and both ways of white space. */
static void
check(const char *s, size_t n)
{
	static const size_t widths[] = { 0, 1, 2, 3, 4, 5, 7, 10, 27, SIZE_MAX };

	for (size_t w = 0; w < sizeof(widths) / sizeof(widths[0]); w++)
		for (int oneline = 0; oneline < 2; oneline++) {
			char *want = NULL;
			size_t want_len = 0, want_cols, cols;
			FILE *fp = open_memstream(&want, &want_len);

			assert_non_null(fp);
			want_cols = ref_put_len(fp, s, n, widths[w], oneline);
			assert_int_equal(fclose(fp), 0);
			obuf_clear(&out);
			cols = clean_put_len(&out, s, n, widths[w], oneline);
			assert_int_equal(cols, want_cols);
			assert_int_equal(clean_put_len(NULL, s, n, widths[w],
			    oneline), want_cols);
			same_bytes(&out, want, want_len, s, n, oneline ?
			    "one line" : "as it is");
		}
}

static void
test_every_byte(void **state)
{
	(void)state;
	check("", 0);
	for (int c = 0; c < 256; c++) {
		char s[16];

		memcpy(s, "ab ", 3);
		s[3] = (char)c;
		memcpy(s + 4, " cd\t", 4);
		check(s, 8);
		check(s + 3, 1);
		check(s + 3, 5);
		memset(s, c, 6);
		check(s, 6);
	}
}

static void
test_every_pair(void **state)
{
	(void)state;
	for (int a = 0; a < 256; a++)
		for (int b = 0; b < 256; b++) {
			char s[5] = { 'x', (char)a, (char)b, 'y', (char)a };

			check(s, 5);
		}
}

static void
test_random(void **state)
{
	static const unsigned char pool[] = { 'a', 'Z', '~', ' ', ' ', '\t',
	    '\n', '\r', '\v', '\0', 0x01, 0x7f, 0x80, 0xa0, 0xa8, 0xbf, 0xc2,
	    0xe2, 0xe6, 0xf0, 0xff };

	(void)state;
	random_strings(pool, sizeof(pool), 0x2545f4914f6cdd1du, 5000, 48, check);
}

/* The helpers built on it: padding, alignment and the cut with "...". */
#define HELPERS "sql/THD   |  1.5 KiB|SELECT *...|short"
static void
test_helpers(void **state)
{
	(void)state;
	obuf_clear(&out);
	clean_left(&out, "sql/THD", 10, false);
	obuf_putc(&out, '|');
	clean_right(&out, "1.5 KiB", 9);
	obuf_putc(&out, '|');
	clean_cut(&out, "SELECT  *\n FROM t WHERE a = 1", 12);
	obuf_putc(&out, '|');
	clean_cut(&out, "short", 12);
	assert_int_equal(clean_width("  a \t b  ", true), 3);
	assert_int_equal(out.len, strlen(HELPERS));
	assert_memory_equal(out.p, HELPERS, out.len);
}

static int
teardown(void **state)
{
	(void)state;
	obuf_free(&out);
	return 0;
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_every_byte),
		cmocka_unit_test(test_every_pair),
		cmocka_unit_test(test_random),
		cmocka_unit_test(test_helpers),
	};

	return cmocka_run_group_tests(tests, NULL, teardown);
}
