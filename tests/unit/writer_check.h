/*
 * What the tests of the output writers share: each new writer is checked
 * against a copy of the old one it replaced, byte for byte, over every
 * byte, every pair and many random strings drawn from the bytes that
 * matter to it.
 */
#ifndef MYSQLMEMPROF_WRITER_CHECK_H
#define MYSQLMEMPROF_WRITER_CHECK_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "obuf.h"

/*
 * Fails unless got holds the want_len bytes at want, which the old writer
 * wrote of the n bytes at in to a memory stream (how: what); frees want.
 */
static inline void
same_bytes(const struct obuf *got, char *want, size_t want_len,
    const char *in, size_t n, const char *what)
{
	assert_int_equal(obuf_status(got), 0);
	/* Nothing written: got->p may still be NULL. */
	if (got->len != want_len || (want_len > 0 &&
	    memcmp(got->p, want, want_len) != 0)) {
		print_error("%s, input of %zu bytes, first 0x%02x: got %.*s, "
		    "want %s\n", what, n, n > 0 ? (unsigned char)in[0] : 0,
		    (int)got->len, got->p != NULL ? got->p : "", want);
		fail();
	}
	free(want);
}

/*
 * count strings of up to max - 1 bytes, each byte drawn from pool by a
 * xorshift from seed, each handed to check.
 */
static inline void
random_strings(const unsigned char *pool, size_t npool, uint64_t seed,
    int count, size_t max, void (*check)(const char *s, size_t n))
{
	char s[256];
	uint64_t x = seed;

	assert_true(max <= sizeof(s));
	for (int i = 0; i < count; i++) {
		size_t n;

		x ^= x << 13, x ^= x >> 7, x ^= x << 17;
		n = x % max;
		for (size_t j = 0; j < n; j++) {
			x ^= x << 13, x ^= x >> 7, x ^= x << 17;
			s[j] = (char)pool[x % npool];
		}
		check(s, n);
	}
}

#endif
