/*
 * The one rule for what may reach a terminal (scrub.c), and that diag's
 * lines follow it: every code point is tried against the list of those a
 * terminal acts on, written out here on its own.
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <setjmp.h>
#include <cmocka.h>

#include "diag.h"
#include "json_check.h"
#include "scrub.h"

/* The code points a terminal acts on, from the issue and ECMA-48. */
static bool
refused(uint32_t cp)
{
	return cp <= 0x1f || (cp >= 0x7f && cp <= 0x9f) || cp == 0x2028 ||
	    cp == 0x2029 || (cp >= 0x202a && cp <= 0x202e) ||
	    (cp >= 0x2066 && cp <= 0x2069);
}

/* Every code point between two letters: kept, or one '?'. */
static void
test_every_code_point(void **state)
{
	(void)state;
	for (uint32_t cp = 1; cp <= 0x10ffff; cp++) {
		char s[8] = "a", want[8] = "a";
		size_t n;

		if (cp >= 0xd800 && cp <= 0xdfff)
			continue; /* surrogates are not UTF-8 */
		n = put_utf8(cp, s + 1);
		s[1 + n] = 'b';
		if (refused(cp))
			strcpy(want + 1, "?b");
		else
			memcpy(want + 1, s + 1, n + 2);
		assert_int_equal(scrub_shown(cp), !refused(cp));
		scrub_string(s);
		if (strcmp(s, want) != 0)
			fail_msg("U+%04X: got \"%s\"", (unsigned)cp, s);
	}
}

/* Bytes that start no UTF-8 sequence are one '?' each. */
static void
test_not_utf8(void **state)
{
	char s[] = "x\xff" "y\x80" "z\xc0\xaf" "w\xe2\x80" "v\xed\xa0\x80" "u";

	(void)state;
	scrub_string(s);
	assert_string_equal(s, "x?y?z??w??v???u");
}

/* diag's lines, read back from what stderr got. */
static char *
said(void (*say)(void), bool quiet)
{
	static char buf[4096];
	FILE *tmp = tmpfile();
	int saved = dup(2);
	size_t n;

	assert_non_null(tmp);
	fflush(stderr);
	assert_true(dup2(fileno(tmp), 2) == 2);
	say();
	if (quiet)
		diag_note(&(struct diag){ .quiet = true }, "hidden");
	fflush(stderr);
	assert_true(dup2(saved, 2) == 2);
	close(saved);
	rewind(tmp);
	n = fread(buf, 1, sizeof(buf) - 1, tmp);
	buf[n] = '\0';
	fclose(tmp);
	return buf;
}

static void
say_hostile(void)
{
	diag_say("user %s: %s", "\x1b[2Jroot\xe2\x80\xae" "gnp.exe",
	    "a\xc2\x9b" "31mb\xe2\x81\xa6" "c\xe2\x80\xa8" "d\te\n");
	diag_note(&(struct diag){ .quiet = false }, "note \xe2\x80\xad%s",
	    "caf\xc3\xa9");
}

/* Notes and errors follow the rule: the bidi controls and C1 too. */
static void
test_diag_lines(void **state)
{
	(void)state;
	assert_string_equal(said(say_hostile, true),
	    "mysqlmemprof: user ?[2Jroot?gnp.exe: a?31mb?c?d?e?\n"
	    "mysqlmemprof: note ?caf\xc3\xa9\n");
}

/* The byte-at-a-time rule scrub_ascii_run() must agree with. */
static size_t
ascii_run_ref(const char *s, size_t n, unsigned char low, unsigned char ex1,
    unsigned char ex2)
{
	size_t i = 0;

	while (i < n && (unsigned char)s[i] >= low &&
	    (unsigned char)s[i] < 0x7f && (unsigned char)s[i] != ex1 &&
	    (unsigned char)s[i] != ex2)
		i++;
	return i;
}

/*
 * Words of plain bytes with one byte at a border of the rule put at every
 * place, and random words: the eight-byte test and the byte loop agree.
 */
static void
test_ascii_run(void **state)
{
	static const unsigned char edge[] = {
		0x00, 0x01, 0x1f, 0x20, 0x21, 0x22, 0x5b, 0x5c, 0x5d, 0x7e,
		0x7f, 0x80, 0x81, 0xc3, 0xfe, 0xff,
	};
	static const unsigned char rules[][3] = {
		{ 0x20, '"', '\\' }, { 0x20, 0, 0 }, { 0x21, 0, 0 },
	};
	char buf[40];
	unsigned seed = 1;

	(void)state;
	for (size_t r = 0; r < sizeof(rules) / sizeof(rules[0]); r++) {
		unsigned char low = rules[r][0], e1 = rules[r][1],
		    e2 = rules[r][2];

		for (size_t n = 0; n <= sizeof(buf); n++)
			for (size_t at = 0; at < n; at++)
				for (size_t k = 0; k < sizeof(edge); k++) {
					memset(buf, 'a', n);
					buf[at] = (char)edge[k];
					assert_int_equal(scrub_ascii_run(buf, n,
					    low, e1, e2), ascii_run_ref(buf, n,
					    low, e1, e2));
				}
		for (size_t t = 0; t < 20000; t++) {
			size_t n = t % sizeof(buf);

			for (size_t i = 0; i < n; i++) {
				seed = seed * 1103515245 + 12345;
				/* Mostly plain, so that runs get long. */
				buf[i] = (char)((seed >> 16) % 8 != 0 ?
				    0x20 + (seed >> 20) % 0x5f : seed >> 24);
			}
			assert_int_equal(scrub_ascii_run(buf, n, low, e1, e2),
			    ascii_run_ref(buf, n, low, e1, e2));
		}
	}
}

/* A statement in a note: on one line, runs of white space one space. */
static void
test_oneline(void **state)
{
	char out[16];

	(void)state;
	assert_false(scrub_oneline("\n  SELECT\n\t  1,\r\n 2  ", out,
	    sizeof(out)));
	assert_string_equal(out, "SELECT 1, 2");
	assert_false(scrub_oneline("", out, sizeof(out)));
	assert_string_equal(out, "");
	assert_false(scrub_oneline(" \n\t ", out, sizeof(out)));
	assert_string_equal(out, "");
	/* Cut to the buffer, and said so. */
	assert_true(scrub_oneline("SELECT a FROM t WHERE b", out,
	    sizeof(out)));
	assert_string_equal(out, "SELECT a FROM t");
	assert_false(scrub_oneline("fifteen bytes!!", out, sizeof(out)));
	assert_string_equal(out, "fifteen bytes!!");
	/* A control that is not white space is diag's to show as '?'. */
	assert_false(scrub_oneline("a\x01b", out, sizeof(out)));
	assert_string_equal(out, "a\x01b");
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_every_code_point),
		cmocka_unit_test(test_ascii_run),
		cmocka_unit_test(test_not_utf8),
		cmocka_unit_test(test_diag_lines),
		cmocka_unit_test(test_oneline),
	};

	return cmocka_run_group_tests_name("scrub", tests, NULL, NULL);
}
