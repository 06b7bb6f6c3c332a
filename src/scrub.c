/*
 * The rule for text that may reach a terminal (see scrub.h), and the
 * strict UTF-8 reader it rests on, so that every writer sees the same code
 * points.
 */
#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "scrub.h"

size_t
scrub_utf8(const char *str, size_t n, uint32_t *cp)
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

bool
scrub_shown(uint32_t cp)
{
	return !(cp < 0x20 || (cp >= 0x7f && cp < 0xa0) ||
	    (cp >= 0x2028 && cp <= 0x202e) || (cp >= 0x2066 && cp <= 0x2069));
}

void
scrub_string(char *s)
{
	size_t n = strlen(s), k, w = 0;
	uint32_t cp;

	/* What is written is never longer than what was read. */
	for (size_t i = 0; i < n; i += k) {
		if ((k = scrub_utf8(s + i, n - i, &cp)) == 0 ||
		    !scrub_shown(cp)) {
			s[w++] = '?';
			k = k == 0 ? 1 : k;
			continue;
		}
		memmove(s + w, s + i, k);
		w += k;
	}
	s[w] = '\0';
}

static bool
is_space(char c)
{
	return c == ' ' || (c >= '\t' && c <= '\r');
}

bool
scrub_oneline(const char *s, char *out, size_t size)
{
	size_t w = 0;

	while (is_space(*s))
		s++;
	for (; *s != '\0'; s++) {
		if (is_space(*s) && (is_space(s[1]) || s[1] == '\0'))
			continue;
		if (w + 1 >= size) {
			out[w] = '\0';
			return true;
		}
		out[w++] = is_space(*s) ? ' ' : *s;
	}
	out[w] = '\0';
	return false;
}

/* Each byte of a word: 0x01 in every byte times the byte. */
#define BYTES(c) (UINT64_C(0x0101010101010101) * (c))
#define HIGH_BITS BYTES(0x80)

/* Whether a byte of w is 0: exact as a truth value, whatever w holds. */
static inline bool
has_zero(uint64_t w)
{
	return ((w - BYTES(1)) & ~w & HIGH_BITS) != 0;
}

/*
 * Whether a byte of w is below low (at most 0x80), or 0x7f or above; the
 * tests of Hacker's Delight 6-1, exact as truth values. A byte of 0xff
 * carries into the next, but it is itself out of range already.
 */
static inline bool
out_of_range(uint64_t w, unsigned char low)
{
	return (((w - BYTES(low)) & ~w) | (w + BYTES(1)) | w) & HIGH_BITS;
}

size_t
scrub_ascii_run(const char *s, size_t n, unsigned char low,
    unsigned char ex1, unsigned char ex2)
{
	size_t i = 0;

	for (; n - i >= 8; i += 8) {
		uint64_t w;

		memcpy(&w, s + i, 8); /* any alignment; one load */
		if (out_of_range(w, low) || has_zero(w ^ BYTES(ex1)) ||
		    has_zero(w ^ BYTES(ex2)))
			break;
	}
	for (; i < n; i++) {
		unsigned char c = (unsigned char)s[i];

		if (c < low || c >= 0x7f || c == ex1 || c == ex2)
			break;
	}
	return i;
}
