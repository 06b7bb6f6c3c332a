/*
 * The buffer of the output formats (see obuf.h), and the integers
 * they write by hand.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "obuf.h"

/* A sample of ten events is some 5 KiB of JSON: one malloc covers most. */
#define OB_FIRST 8192

bool
obuf_grow(struct obuf *b, size_t n)
{
	size_t cap = b->cap > 0 ? b->cap : OB_FIRST;
	char *p;

	if (b->failed)
		return false;
	while (cap - b->len < n) {
		if (cap > SIZE_MAX / 2)
			goto fail;
		cap *= 2;
	}
	if ((p = realloc(b->p, cap)) == NULL)
		goto fail;
	b->p = p;
	b->cap = cap;
	return true;
fail:
	b->failed = true;
	return false;
}

int
obuf_status(const struct obuf *b)
{
	if (!b->failed)
		return 0;
	errno = ENOMEM;
	return -1;
}

void
obuf_clear(struct obuf *b)
{
	b->len = 0;
	b->failed = false;
}

void
obuf_free(struct obuf *b)
{
	free(b->p);
	*b = (struct obuf){ 0 };
}

void
obuf_fill(struct obuf *b, char c, size_t n)
{
	if (n == 0 || (b->cap - b->len < n && !obuf_grow(b, n)))
		return;
	memset(b->p + b->len, c, n);
	b->len += n;
}

/*
 * Integers are written by hand: a sample of ten events has some 250 of
 * them, and a printf for each cost more than the rest of the row. Digits
 * by hand never depend on the locale either.
 */
size_t
obuf_uint_digits(char *buf, uint64_t v)
{
	/* Two digits a step: a sample writes some 70 numbers, most short. */
	static const char pairs[201] =
	    "00010203040506070809101112131415161718192021222324252627282930"
	    "31323334353637383940414243444546474849505152535455565758596061"
	    "62636465666768697071727374757677787980818283848586878889909192"
	    "93949596979899";
	static const uint64_t tens[20] = {
		1ULL, 10ULL, 100ULL, 1000ULL, 10000ULL, 100000ULL, 1000000ULL,
		10000000ULL, 100000000ULL, 1000000000ULL, 10000000000ULL,
		100000000000ULL, 1000000000000ULL, 10000000000000ULL,
		100000000000000ULL, 1000000000000000ULL, 10000000000000000ULL,
		100000000000000000ULL, 1000000000000000000ULL,
		10000000000000000000ULL,
	};
	/*
	 * The digits are counted first and written in place, from the last:
	 * writing them to the side and copying them over cost a third more.
	 * The count comes from the highest bit (1233/4096 is just over
	 * log10(2)), one short for the upper part of each power of ten: a
	 * loop of divisions by 10 was a third of the cost of a number.
	 */
	if (v < 10) {
		buf[0] = (char)('0' + v);
		return 1;
	}
	size_t n = (size_t)((64 - __builtin_clzll(v)) * 1233) >> 12;

	n += v >= tens[n];
	char *p = buf + n;

	while (v >= 100) {
		unsigned d = (unsigned)(v % 100) * 2;

		v /= 100;
		*--p = pairs[d + 1];
		*--p = pairs[d];
	}
	if (v >= 10) {
		*--p = pairs[v * 2 + 1];
		*--p = pairs[v * 2];
	} else
		*--p = (char)('0' + v);
	return n;
}

size_t
obuf_int_digits(char *buf, int64_t v)
{
	if (v >= 0)
		return obuf_uint_digits(buf, (uint64_t)v);
	buf[0] = '-';
	return 1 + obuf_uint_digits(buf + 1, -(uint64_t)v); /* INT64_MIN too */
}

void
obuf_uint(struct obuf *b, uint64_t v)
{
	if (b->cap - b->len < OUTPUT_INT_MAX && !obuf_grow(b, OUTPUT_INT_MAX))
		return;
	b->len += obuf_uint_digits(b->p + b->len, v);
}

void
obuf_int(struct obuf *b, int64_t v)
{
	if (b->cap - b->len < OUTPUT_INT_MAX && !obuf_grow(b, OUTPUT_INT_MAX))
		return;
	b->len += obuf_int_digits(b->p + b->len, v);
}

void
obuf_printf(struct obuf *b, const char *fmt, ...)
{
	va_list ap;
	int n;

	if (b->cap == b->len && !obuf_grow(b, 1))
		return; /* vsnprintf gets somewhere to write its NUL */
	va_start(ap, fmt);
	n = vsnprintf(b->p + b->len, b->cap - b->len, fmt, ap);
	va_end(ap);
	if (n < 0) {
		b->failed = true; /* only a bad format: never here */
		return;
	}
	if ((size_t)n >= b->cap - b->len) {
		if (!obuf_grow(b, (size_t)n + 1))
			return;
		va_start(ap, fmt);
		vsnprintf(b->p + b->len, b->cap - b->len, fmt, ap);
		va_end(ap);
	}
	b->len += (size_t)n;
}
