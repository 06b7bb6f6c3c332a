/*
 * JSON's string writer, which copies runs of bytes that need no escape,
 * against the plain rule it must follow byte for byte: the writer of one
 * character at a time that it replaced, kept here as the reference.
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
#include "output_format.h"
#include "scrub.h"

/* The reference: output_json.c's put_ascii() and put_string() before runs. */
static void
ref_ascii(FILE *fp, unsigned char c)
{
	switch (c) {
	case '"':
		fputs("\\\"", fp);
		break;
	case '\\':
		fputs("\\\\", fp);
		break;
	case '\b':
		fputs("\\b", fp);
		break;
	case '\f':
		fputs("\\f", fp);
		break;
	case '\n':
		fputs("\\n", fp);
		break;
	case '\r':
		fputs("\\r", fp);
		break;
	case '\t':
		fputs("\\t", fp);
		break;
	default:
		if (c < 0x20 || c == 0x7f)
			fprintf(fp, "\\u%04x", c);
		else
			putc(c, fp);
	}
}

static void
ref_string(FILE *fp, const char *s, size_t n)
{
	size_t k;
	uint32_t cp;

	putc('"', fp);
	for (size_t i = 0; i < n; i += k) {
		if ((k = scrub_utf8(s + i, n - i, &cp)) == 0) {
			fputs("\\ufffd", fp);
			k = 1;
		} else if (k == 1)
			ref_ascii(fp, (unsigned char)s[i]);
		else if (!scrub_shown(cp))
			fprintf(fp, "\\u%04x", (unsigned)cp);
		else
			fwrite(s + i, 1, k, fp);
	}
	putc('"', fp);
}

/* One buffer for every check, as a format keeps it from sample to sample. */
static struct obuf out;

/* The n bytes at s, written both ways: the same bytes, or the test fails. */
static void
check(const char *s, size_t n)
{
	char *want = NULL;
	size_t want_len = 0;
	FILE *fp = open_memstream(&want, &want_len);

	assert_non_null(fp);
	ref_string(fp, s, n);
	assert_int_equal(fclose(fp), 0);
	obuf_clear(&out);
	output_json_put_string(&out, s, n);
	same_bytes(&out, want, want_len, s, n, "json");
}

static void
check_str(const char *s)
{
	check(s, strlen(s));
}

/* Every byte alone, and inside, before and after a run that needs nothing. */
static void
test_every_byte(void **state)
{
	(void)state;
	check("", 0);
	for (int c = 0; c < 256; c++) {
		char s[16];

		s[0] = (char)c;
		check(s, 1);
		memcpy(s, "abc", 3);
		s[3] = (char)c;
		memcpy(s + 4, "def", 3);
		check(s, 7);
		check(s, 4);		/* last */
		check(s + 3, 4);	/* first */
		memset(s, c, 5);	/* a run of it */
		check(s, 5);
	}
}

/* Every pair of bytes: each two-byte sequence, good or not, in its place. */
static void
test_every_pair(void **state)
{
	(void)state;
	for (int a = 0; a < 256; a++)
		for (int b = 0; b < 256; b++) {
			char s[5] = { 'x', (char)a, (char)b, 'y', (char)a };

			check(s, 5);
			check(s + 1, 2);
		}
}

/* Three- and four-byte sequences around the edges of what is well formed. */
static void
test_utf8_edges(void **state)
{
	static const unsigned char leads3[] = { 0xe0, 0xe1, 0xe2, 0xed, 0xee,
	    0xef };
	static const unsigned char leads4[] = { 0xf0, 0xf1, 0xf3, 0xf4, 0xf5 };
	static const unsigned char seconds[] = { 0x7f, 0x80, 0x8f, 0x90, 0x9f,
	    0xa0, 0xbf, 0xc0 };

	(void)state;
	for (size_t i = 0; i < sizeof(leads3); i++)
		for (int b = 0x70; b < 0xd0; b++)
			for (size_t k = 0; k < sizeof(seconds); k++) {
				char s[6] = { 'a', (char)leads3[i], (char)b,
				    (char)seconds[k], 'z', 'z' };

				check(s, 6);
				check(s, 4);	/* ends with it */
				check(s, 3);	/* cut inside it */
			}
	for (size_t i = 0; i < sizeof(leads4); i++)
		for (size_t j = 0; j < sizeof(seconds); j++)
			for (size_t k = 0; k < sizeof(seconds); k++) {
				char s[7] = { 'a', (char)leads4[i],
				    (char)seconds[j], (char)seconds[k],
				    (char)0x80, 'z', (char)0xbf };

				check(s, 7);
				check(s, 5);
				check(s, 4);	/* cut inside it */
			}
}

/* What the escaping is for, named. */
static void
test_named_cases(void **state)
{
	(void)state;
	check_str("memory/sql/THD::main_mem_root");
	check_str("SELECT \"a\\b\" FROM t WHERE x = 'y'\n\tAND z");
	check("a\0b\0", 4);				/* NUL */
	check_str("line\xe2\x80\xa8" "sep\xe2\x80\xa9" "para");	/* U+2028/9 */
	check_str("\xe2\x80\xaa\xe2\x80\xae" "bidi\xe2\x81\xa6\xe2\x81\xa9");
	check_str("\xe2\x80\xa7\xe2\x80\xaf\xe2\x81\xa5\xe2\x81\xaa");	/* beside them */
	check_str("\xc2\x80\xc2\x9f\xc2\xa0 C1 and NBSP");
	check_str("\x7f" "DEL\x1b[31mred\x1b[0m");
	check_str("caf\xc3\xa9 \xe6\x97\xa5\xe6\x9c\xac \xf0\x9f\x90\xac");
	check_str("\xef\xbf\xbd\xef\xbf\xbe\xef\xbf\xbf");	/* U+FFFD..FFFF */
	check_str("\xc0\xaf overlong \xe0\x80\xaf \xf0\x80\x80\xaf");
	check_str("\xed\xa0\x80 surrogate \xf4\x90\x80\x80 beyond");
	check_str("truncated \xe6\x97");
	check_str("truncated \xf0\x9f\x90");
	check_str("\x80\xbf lone continuations");
	check_str("\xf8\x88\x80\x80\x80 five \xfe\xff");
}

/* Random strings drawn from the bytes that matter, many of them. */
static void
test_random(void **state)
{
	static const unsigned char pool[] = { 'a', 'Z', ' ', '"', '\\', '/',
	    '\0', '\n', '\t', 0x01, 0x1f, 0x7f, 0x80, 0x9f, 0xa0, 0xa8, 0xbf,
	    0xc0, 0xc2, 0xdf, 0xe0, 0xe2, 0xed, 0xef, 0xf0, 0xf4, 0xf5, 0xff };

	(void)state;
	random_strings(pool, sizeof(pool), 0x9e3779b97f4a7c15u, 20000, 64, check);
}

/*
 * A statement far longer than the buffer's first allocation, plain with
 * escapes scattered in it: the buffer grows while a run is copied.
 */
static void
test_long_string(void **state)
{
	size_t n = 3 << 20;
	char *s = malloc(n);

	(void)state;
	assert_non_null(s);
	for (size_t i = 0; i < n; i++)
		s[i] = (char)('a' + i % 26);
	check(s, n);
	for (size_t i = 5000; i < n; i += 70001)
		s[i] = i % 2 ? '"' : '\n';
	memcpy(s + n - 3, "\xe2\x80\xa8", 3);
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
		cmocka_unit_test(test_every_pair),
		cmocka_unit_test(test_utf8_edges),
		cmocka_unit_test(test_named_cases),
		cmocka_unit_test(test_random),
		cmocka_unit_test(test_long_string),
	};

	return cmocka_run_group_tests(tests, NULL, teardown);
}
