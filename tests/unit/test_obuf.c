/*
 * The output buffer: its appenders, its growth, and what it says when it
 * cannot grow.
 */
#include <errno.h>
#include <stdarg.h>
#include <stddef.h>
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <setjmp.h>
#include <cmocka.h>

#include "obuf.h"

/* b's bytes, as a string, compared with want. */
static void
assert_holds(const struct obuf *b, const char *want)
{
	assert_int_equal(b->len, strlen(want));
	assert_memory_equal(b->p, want, b->len);
	assert_int_equal(obuf_status(b), 0);
}

static void
test_appenders(void **state)
{
	struct obuf b = { 0 };

	(void)state;
	obuf_putc(&b, '{');
	obuf_write(&b, "ab", 2);
	obuf_write(&b, "", 0);
	obuf_puts(&b, "cd");
	obuf_fill(&b, ' ', 3);
	obuf_fill(&b, 'x', 0);
	obuf_uint(&b, 0);
	obuf_putc(&b, ',');
	obuf_uint(&b, UINT64_MAX);
	obuf_putc(&b, ',');
	obuf_int(&b, INT64_MIN);
	obuf_putc(&b, ',');
	obuf_int(&b, -1);
	obuf_putc(&b, ',');
	obuf_int(&b, INT64_MAX);
	obuf_printf(&b, "|%s|%05d|", "p", 42);
	assert_holds(&b, "{abcd   0,18446744073709551615,"
	    "-9223372036854775808,-1,9223372036854775807|p|00042|");
	obuf_free(&b);
	assert_null(b.p);
	assert_int_equal(b.len, 0);
}

/*
 * obuf_uint_digits() counts the digits before it writes them: each side of
 * every power of ten, as printf writes it, and nothing past the digits.
 */
static void
test_digit_counts(void **state)
{
	uint64_t p = 1;

	(void)state;
	for (int k = 0; k < 20; k++, p *= 10) {
		uint64_t around[3] = { p - 1, p, p + 1 };

		for (int i = 0; i < 3; i++) {
			char want[32], got[OUTPUT_INT_MAX + 2];
			size_t n;

			memset(got, '#', sizeof(got));
			n = obuf_uint_digits(got, around[i]);
			snprintf(want, sizeof(want), "%" PRIu64, around[i]);
			assert_int_equal(n, strlen(want));
			assert_memory_equal(got, want, n);
			assert_int_equal(got[n], '#');
		}
	}
	char got[OUTPUT_INT_MAX + 1];
	assert_int_equal(obuf_uint_digits(got, UINT64_MAX), 20);
	assert_memory_equal(got, "18446744073709551615", 20);
}

/* obuf_clear() empties it and keeps its storage: no malloc per sample. */
static void
test_clear_keeps_storage(void **state)
{
	struct obuf b = { 0 };
	char *p;

	(void)state;
	obuf_puts(&b, "first sample");
	p = b.p;
	obuf_clear(&b);
	assert_int_equal(b.len, 0);
	obuf_puts(&b, "second");
	assert_ptr_equal(b.p, p);
	assert_holds(&b, "second");
	obuf_free(&b);
}

/*
 * Far more than the first allocation, written by every appender in
 * turn: each grows the buffer when it must, and nothing is lost.
 */
static void
test_growth(void **state)
{
	struct obuf b = { 0 };
	size_t n = 0;
	char *want = malloc(1 << 22);

	(void)state;
	assert_non_null(want);
	for (size_t i = 0; n < (1 << 22) - 200; i++) {
		char digits[32];
		size_t k;

		switch (i % 4) {
		case 0:
			obuf_putc(&b, (char)('a' + i % 26));
			want[n++] = (char)('a' + i % 26);
			break;
		case 1:
			k = i % 97;
			obuf_fill(&b, '.', k);
			memset(want + n, '.', k);
			n += k;
			break;
		case 2:
			obuf_uint(&b, (uint64_t)i * 7919);
			k = (size_t)snprintf(digits, sizeof(digits), "%zu",
			    i * 7919);
			memcpy(want + n, digits, k);
			n += k;
			break;
		case 3:
			obuf_printf(&b, "[%zu]", i);
			k = (size_t)snprintf(digits, sizeof(digits), "[%zu]", i);
			memcpy(want + n, digits, k);
			n += k;
			break;
		}
	}
	assert_int_equal(obuf_status(&b), 0);
	assert_int_equal(b.len, n);
	assert_memory_equal(b.p, want, n);
	assert_true(b.cap >= n);
	free(want);
	obuf_free(&b);
}

/* A printf longer than the room left is written whole. */
static void
test_printf_grows(void **state)
{
	struct obuf b = { 0 };
	char *big = malloc(100001);

	(void)state;
	assert_non_null(big);
	memset(big, 'z', 100000);
	big[100000] = '\0';
	obuf_puts(&b, "<");
	obuf_printf(&b, "%s>", big);
	assert_int_equal(b.len, 100002);
	assert_int_equal(b.p[0], '<');
	assert_memory_equal(b.p + 1, big, 100000);
	assert_int_equal(b.p[100001], '>');
	free(big);
	obuf_free(&b);
}

/*
 * When it cannot grow, the appender drops its bytes and the buffer says
 * ENOMEM until it is cleared.
 */
static void
test_cannot_grow(void **state)
{
	struct obuf b = { 0 };

	(void)state;
	obuf_puts(&b, "kept");
	assert_false(obuf_grow(&b, SIZE_MAX));
	errno = 0;
	assert_int_equal(obuf_status(&b), -1);
	assert_int_equal(errno, ENOMEM);
	/* It stays failed: the call's output is incomplete. */
	obuf_puts(&b, "more");
	assert_int_equal(obuf_status(&b), -1);
	obuf_clear(&b);
	assert_int_equal(obuf_status(&b), 0);
	obuf_puts(&b, "again");
	assert_holds(&b, "again");
	obuf_free(&b);
}

/* The integers by hand, as printf writes them, at every digit count. */
static void
int_as_printf(uint64_t u)
{
	char got[OUTPUT_INT_MAX + 1], want[32];
	int64_t i = (int64_t)u;

	got[obuf_uint_digits(got, u)] = '\0';
	snprintf(want, sizeof(want), "%ju", (uintmax_t)u);
	assert_string_equal(got, want);
	got[obuf_int_digits(got, i)] = '\0';
	snprintf(want, sizeof(want), "%jd", (intmax_t)i);
	assert_string_equal(got, want);
}

static void
test_integers(void **state)
{
	uint64_t p = 1, x = 88172645463325252ULL;

	(void)state;
	for (int d = 0; d < 20; d++, p *= 10)
		for (uint64_t k = 0; k < 3; k++) {
			int_as_printf(p - 1 + k);
			int_as_printf(p * 9 + k);
			int_as_printf(-(p + k));
		}
	for (int n = 0; n < 100000; n++) {
		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
		int_as_printf(x >> (n % 64));
	}
	int_as_printf(UINT64_MAX);
	int_as_printf((uint64_t)INT64_MIN);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_appenders),
		cmocka_unit_test(test_integers),
		cmocka_unit_test(test_digit_counts),
		cmocka_unit_test(test_clear_keeps_storage),
		cmocka_unit_test(test_growth),
		cmocka_unit_test(test_printf_grows),
		cmocka_unit_test(test_cannot_grow),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
