/*
 * CSV's quoting of a text field, which copies what lies between quotes
 * and NULs in one piece, against the writer of one byte at a time that it
 * replaced, kept here as the reference.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <setjmp.h>
#include <cmocka.h>

#include "obuf.h"
#include "writer_check.h"
#include "output_format.h"

/* The reference: output_csv.c's put_text() before runs. */
static void
ref_text(FILE *fp, const char *s, size_t n)
{
	putc('"', fp);
	if (n > 0 && memchr("=+-@\t\r", s[0], 6) != NULL)
		putc('\'', fp);
	for (size_t i = 0; i < n; i++) {
		if (s[i] == '"')
			putc('"', fp);
		if (s[i] == '\0')
			fputs("\\0", fp);
		else
			putc(s[i], fp);
	}
	putc('"', fp);
}

static struct obuf out;

static void
check(const char *s, size_t n)
{
	char *want = NULL;
	size_t want_len = 0;
	FILE *fp = open_memstream(&want, &want_len);

	assert_non_null(fp);
	ref_text(fp, s, n);
	assert_int_equal(fclose(fp), 0);
	obuf_clear(&out);
	output_csv_put_text(&out, s, n);
	same_bytes(&out, want, want_len, s, n, "csv");
}

static void
test_every_byte(void **state)
{
	(void)state;
	check("", 0);
	for (int c = 0; c < 256; c++) {
		char s[16];

		memcpy(s, "ab\"", 3);
		s[3] = (char)c;
		memcpy(s + 4, "c\0d", 3);
		check(s, 7);
		check(s + 3, 1);
		check(s + 3, 4);
		check(s, 4);
		memset(s, c, 5);
		check(s, 5);
	}
}

/* Quotes and NULs in every order and number, and long plain runs. */
static void
test_random(void **state)
{
	static const char pool[] = { 'a', ' ', '"', '\0', '=', '+', '-', '@',
	    '\t', '\r', '\n', ',', '\'' };

	(void)state;
	random_strings((const unsigned char *)pool, sizeof(pool), 0x853c49e6748fea9bu, 20000, 64, check);
}

static void
test_long(void **state)
{
	size_t n = 1 << 20;
	char *s = malloc(n);

	(void)state;
	assert_non_null(s);
	memset(s, 'q', n);
	check(s, n);
	for (size_t i = 7; i < n; i += 30011)
		s[i] = i % 2 ? '"' : '\0';
	s[n - 1] = '"';
	check(s, n);
	free(s);
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
		cmocka_unit_test(test_random),
		cmocka_unit_test(test_long),
	};

	return cmocka_run_group_tests(tests, NULL, teardown);
}
