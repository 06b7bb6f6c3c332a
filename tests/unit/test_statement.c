/*
 * Statements: what makes two samples' statements the same, and how a
 * text too long for its buffer is cut.
 */
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <setjmp.h>
#include <cmocka.h>

#include "statement.h"

static struct statement
st(uint64_t thread, bool has_id, uint64_t id, const char *digest,
    const char *text)
{
	struct statement s = { .thread_id = thread, .has_id = has_id,
	    .id = id };

	snprintf(s.digest, sizeof(s.digest), "%s", digest);
	snprintf(s.text, sizeof(s.text), "%s", text);
	return s;
}

static void
test_same(void **state)
{
	struct statement a = st(42, true, 7, "", "SELECT 1");
	struct statement none = st(42, false, 0, "", "");
	struct statement b;

	(void)state;
	assert_true(statement_same(&a, &a));
	/* The digest comes when it ends: still the same statement. */
	b = st(42, true, 7, "0123456789abcdef0123456789abcdef", "SELECT 1");
	assert_true(statement_same(&a, &b));
	/* Run again: a new id, the same text. */
	b = st(42, true, 8, "", "SELECT 1");
	assert_false(statement_same(&a, &b));
	/* The same id in another thread is another statement. */
	b = st(43, true, 7, "", "SELECT 1");
	assert_false(statement_same(&a, &b));
	/* One with an id, one without. */
	b = st(42, false, 0, "", "SELECT 1");
	assert_false(statement_same(&a, &b));
	assert_false(statement_same(&b, &a));
	/* Without ids, the text and digest decide. */
	assert_true(statement_same(&b, &b));
	assert_false(statement_same(&b, &none));
	assert_true(statement_same(&none, &none));
	a = st(42, false, 0, "", "SELECT 2");
	assert_false(statement_same(&a, &b));
	a = st(42, false, 0, "ab", "SELECT 1");
	assert_false(statement_same(&a, &b));
}

static void
test_known(void **state)
{
	struct statement s = { .thread_id = 42 };

	(void)state;
	assert_false(statement_known(&s));
	s.has_id = true;
	assert_true(statement_known(&s));
	s = (struct statement){ .thread_id = 42 };
	s.text[0] = 'x';
	assert_true(statement_known(&s));
	s = (struct statement){ .thread_id = 42 };
	s.digest[0] = 'x';
	assert_true(statement_known(&s));
}

/* Copy into a buffer of 6 bytes plus the NUL. */
static void
copy_is(const char *v, size_t n, const char *want)
{
	char buf[7];

	memset(buf, '#', sizeof(buf));
	statement_copy(buf, 6, v, n);
	if (strcmp(buf, want) != 0)
		fail_msg("copy of %zu bytes: \"%s\", want \"%s\"", n, buf,
		    want);
}

static void
test_copy(void **state)
{
	(void)state;
	copy_is(NULL, 5, "");
	copy_is("abc", 3, "abc");
	copy_is("abcdef", 6, "abcdef");
	copy_is("abcdefgh", 8, "abcdef");
	/* The length counts, not a NUL: "ab" of "abcd". */
	copy_is("abcd", 2, "ab");
	/* "abcd" then an "é" that does not fit whole: cut before it. */
	copy_is("abcde\xc3\xa9", 7, "abcde");
	copy_is("abcd\xc3\xa9z", 7, "abcd\xc3\xa9");
	/* A 4-byte character across the end. */
	copy_is("abc\xf0\x9f\x98\x80xyz", 10, "abc");
	copy_is("ab\xf0\x9f\x98\x80xyz", 9, "ab\xf0\x9f\x98\x80");
	copy_is("a\xe2\x82\xac\xe2\x82\xac", 7, "a\xe2\x82\xac");
	/* Not UTF-8 at all: continuation bytes are cut, at most 3 of them. */
	copy_is("\x80\x80\x80\x80\x80\x80\x80\x80", 8, "\x80\x80\x80");
}

/*
 * A text with a NUL byte is kept whole, with its length; two texts that
 * differ only after the NUL are two statements.
 */
static void
test_text_with_nul(void **state)
{
	static const char a[] = "SELECT /* x \0 */ SLEEP(3)";
	static const char b[] = "SELECT /* x \0 */ SLEEP(4)";
	struct statement s = { .thread_id = 1 }, t = { .thread_id = 1 };

	(void)state;
	statement_set_text(&s, a, sizeof(a) - 1);
	assert_int_equal(statement_text_len(&s), sizeof(a) - 1);
	assert_memory_equal(s.text, a, sizeof(a));
	statement_set_text(&t, b, sizeof(b) - 1);
	assert_false(statement_same(&s, &t));
	statement_set_text(&t, a, sizeof(a) - 1);
	assert_true(statement_same(&s, &t));
	/* Only a NUL is known still. */
	statement_set_text(&t, "\0", 1);
	assert_true(statement_known(&t));
	/* Set as a C string, the text ends at its NUL. */
	snprintf(t.text, sizeof(t.text), "SELECT 1");
	t.text_len = 0;
	assert_int_equal(statement_text_len(&t), 8);
	statement_set_text(&t, NULL, 5);
	assert_int_equal(statement_text_len(&t), 0);
}

/*
 * statement_set() copies what the statement holds, a NUL inside its text
 * and a text set as a C string among it, over whatever dst held.
 */
static void
test_set(void **state)
{
	struct statement src = st(42, true, 7,
	    "0123456789abcdef0123456789abcdef", "");
	struct statement plain = st(43, false, 0, "", "SELECT 2");
	struct statement dst;

	(void)state;
	statement_set_text(&src, "SELECT '\0' AS x", 16);
	src.ended = true;
	memset(&dst, 'x', sizeof(dst));
	dst.ended = false; /* a bool holds 0 or 1 */
	statement_set(&dst, &src);
	assert_true(dst.thread_id == 42 && dst.has_id && dst.id == 7);
	assert_true(dst.ended);
	assert_string_equal(dst.digest, src.digest);
	assert_int_equal(statement_text_len(&dst), 16);
	assert_memory_equal(dst.text, "SELECT '\0' AS x", 17);
	/* A shorter one over it: nothing of the longer one is left. */
	statement_set(&dst, &plain);
	assert_true(dst.thread_id == 43 && !dst.has_id && dst.id == 0);
	assert_false(dst.ended);
	assert_string_equal(dst.digest, "");
	assert_int_equal(statement_text_len(&dst), 8);
	assert_string_equal(dst.text, "SELECT 2");
	assert_true(statement_same(&dst, &plain));
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_same),
		cmocka_unit_test(test_known),
		cmocka_unit_test(test_copy),
		cmocka_unit_test(test_text_with_nul),
		cmocka_unit_test(test_set),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
