/*
 * The writing helpers the formats share: integers without printf, and
 * UTF-8 read strictly, so that every format sees the same code points.
 */
#include <stdint.h>
#include <string.h>

#include "output_format.h"

/*
 * Integers are written by hand: a sample of ten events has some 250 of
 * them, and a printf for each cost more than the rest of the row. Digits
 * by hand never depend on the locale either.
 */
size_t
output_uint(char *buf, uint64_t v)
{
	char digits[OUTPUT_INT_MAX];
	size_t i = sizeof(digits);

	do
		digits[--i] = (char)('0' + v % 10);
	while ((v /= 10) != 0);
	memcpy(buf, digits + i, sizeof(digits) - i);
	return sizeof(digits) - i;
}

size_t
output_int(char *buf, int64_t v)
{
	if (v >= 0)
		return output_uint(buf, (uint64_t)v);
	buf[0] = '-';
	return 1 + output_uint(buf + 1, -(uint64_t)v); /* INT64_MIN too */
}

size_t
output_utf8(const char *str, size_t n, uint32_t *cp)
{
	const unsigned char *s = (const unsigned char *)str;
	/* The range of the second byte: Unicode 15, table 3-7. */
	unsigned char lo = 0x80, hi = 0xbf;
	size_t len;
	uint32_t c;

	if (n == 0)
		return 0;
	if (s[0] < 0x80) {
		*cp = s[0];
		return 1;
	}
	if (s[0] < 0xc2)	/* a continuation byte, or an overlong C0/C1 */
		return 0;
	if (s[0] < 0xe0) {
		len = 2;
		c = s[0] & 0x1f;
	} else if (s[0] < 0xf0) {
		len = 3;
		c = s[0] & 0x0f;
		if (s[0] == 0xe0)	/* overlong */
			lo = 0xa0;
		if (s[0] == 0xed)	/* UTF-16 surrogates */
			hi = 0x9f;
	} else if (s[0] < 0xf5) {
		len = 4;
		c = s[0] & 0x07;
		if (s[0] == 0xf0)	/* overlong */
			lo = 0x90;
		if (s[0] == 0xf4)	/* beyond U+10FFFF */
			hi = 0x8f;
	} else
		return 0;
	if (n < len)
		return 0;
	for (size_t i = 1; i < len; i++) {
		if (s[i] < lo || s[i] > hi)
			return 0;
		c = c << 6 | (s[i] & 0x3f);
		lo = 0x80;
		hi = 0xbf;
	}
	*cp = c;
	return len;
}
