/*
 * Byte counts are formatted with integer arithmetic only: no rounding mode,
 * no locale decimal point, and INT64_MIN has a magnitude like any other.
 */
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "obuf.h"
#include "units.h"

/* The man page promises these units; larger counts stay in TiB. */
static const char unit_names[][4] = { "B", "KiB", "MiB", "GiB", "TiB" };
#define UNIT_LAST (sizeof(unit_names) / sizeof(unit_names[0]) - 1)

/*
 * Hundredths of rem / 2^shift, rounded half up. Multiplying one decimal
 * digit at a time keeps rem * 10 below 2^64 for any shift up to 60.
 */
static uint64_t
hundredths(uint64_t rem, unsigned shift)
{
	uint64_t mask = ((uint64_t)1 << shift) - 1;
	uint64_t tenths, cents;

	rem *= 10;
	tenths = rem >> shift;
	rem = (rem & mask) * 10;
	cents = tenths * 10 + (rem >> shift);
	rem &= mask;
	if (rem >= (uint64_t)1 << (shift - 1))
		cents++;
	return cents;
}

/* The most units_bytes() writes: "-", INT64_MIN's digits, " B" and a NUL. */
#define BYTES_MAX 24

/*
 * By hand, not snprintf(): text writes one per event of every sample, and
 * snprintf() was half the cost of its sample. Into buf when it has room
 * for any value, else beside it and then cut to fit.
 */
size_t
units_bytes(int64_t bytes, char *buf, size_t len)
{
	/* Negating in unsigned arithmetic is defined, even for INT64_MIN. */
	uint64_t mag = bytes < 0 ? -(uint64_t)bytes : (uint64_t)bytes;
	uint64_t whole, cents;
	unsigned u = 0;
	char tmp[BYTES_MAX];
	char *p = len >= BYTES_MAX ? buf : tmp;

	if (bytes < 0)
		*p++ = '-';
	if (mag < 1024) {
		p += obuf_uint_digits(p, mag);
		memcpy(p, " B", 3);
		p += 2;
		goto out;
	}
	while (u < UNIT_LAST && mag >> (10 * (u + 1)) != 0)
		u++;
	whole = mag >> (10 * u);
	cents = hundredths(mag & (((uint64_t)1 << (10 * u)) - 1), 10 * u);
	if (cents == 100) {
		whole++;
		cents = 0;
	}
	/* 1048575 rounds to 1024.00 KiB, which people read as 1.00 MiB. */
	if (whole == 1024 && u < UNIT_LAST) {
		whole = 1;
		u++;
	}
	p += obuf_uint_digits(p, whole);
	*p++ = '.';
	*p++ = (char)('0' + cents / 10);
	*p++ = (char)('0' + cents % 10);
	*p++ = ' ';
	/* From KiB on, every unit is three letters: with its NUL, four bytes. */
	memcpy(p, unit_names[u], 4);
	p += 3;
out:
	if (len >= BYTES_MAX)
		return (size_t)(p - buf);
	if (len > 0) {
		size_t n = strlen(tmp) < len - 1 ? strlen(tmp) : len - 1;

		memcpy(buf, tmp, n);
		buf[n] = '\0';
		return n;
	}
	return 0;
}
