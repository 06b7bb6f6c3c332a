/*
 * Byte counts are formatted with integer arithmetic only: no rounding mode,
 * no locale decimal point, and INT64_MIN has a magnitude like any other.
 */
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

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

/* n as d digits, zeros first, at p; returns the end. */
static char *
put_digits(char *p, int64_t n, int d)
{
	for (int i = d - 1; i >= 0; i--, n /= 10)
		p[i] = (char)('0' + n % 10);
	return p + d;
}

/*
 * The civil date of a day since the epoch, by Howard Hinnant's
 * days_from_civil inverse (public domain): a sample's timestamp is written
 * once per sample in every format, and gmtime_r() with strftime() cost
 * more than the rest of a JSON sample's numbers.
 */
static void
civil(int64_t days, int64_t *y, int *m, int *d)
{
	int64_t z = days + 719468;
	int64_t era = (z >= 0 ? z : z - 146096) / 146097;
	int64_t doe = z - era * 146097;
	int64_t yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
	int64_t doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
	int64_t mp = (5 * doy + 2) / 153;

	*d = (int)(doy - (153 * mp + 2) / 5 + 1);
	*m = (int)(mp < 10 ? mp + 3 : mp - 9);
	*y = yoe + era * 400 + (*m <= 2);
}

/* "2026-11-21T23:49:56.": the part of a timestamp that is its second. */
#define TIMESTAMP_SECOND 20

void
units_timestamp(int64_t wall_ms, char *buf, size_t len)
{
	/* Floor division, so -1 ms is 23:59:59.999 of the day before. */
	int64_t secs = wall_ms / 1000, ms = wall_ms % 1000;
	time_t t;
	struct tm tm;
	char date[64];

	if (ms < 0) {
		ms += 1000;
		secs--;
	}
	/* Years 1000 to 9999 by hand; beyond, as the C library writes them. */
	if (secs >= -30610224000 && secs < 253402300800 && len >= 25) {
		/*
		 * The second written last, kept by each thread: samples taken
		 * within one second (at 10 ms, a hundred) write only its
		 * milliseconds, where the date cost three quarters of a
		 * timestamp.
		 */
		static _Thread_local struct {
			bool made;
			int64_t secs;
			char date[TIMESTAMP_SECOND];
		} last;
		char *p = buf;

		if (!last.made || last.secs != secs) {
			int64_t days = secs / 86400, sod = secs % 86400, y;
			int m, d;

			if (sod < 0) {
				sod += 86400;
				days--;
			}
			civil(days, &y, &m, &d);
			p = put_digits(p, y, 4);
			*p++ = '-';
			p = put_digits(p, m, 2);
			*p++ = '-';
			p = put_digits(p, d, 2);
			*p++ = 'T';
			p = put_digits(p, sod / 3600, 2);
			*p++ = ':';
			p = put_digits(p, sod / 60 % 60, 2);
			*p++ = ':';
			p = put_digits(p, sod % 60, 2);
			*p++ = '.';
			memcpy(last.date, buf, TIMESTAMP_SECOND);
			last.secs = secs;
			last.made = true;
		} else {
			memcpy(p, last.date, TIMESTAMP_SECOND);
			p += TIMESTAMP_SECOND;
		}
		p = put_digits(p, ms, 3);
		*p++ = 'Z';
		*p = '\0';
		return;
	}
	t = (time_t)secs;
	if ((int64_t)t != secs || gmtime_r(&t, &tm) == NULL ||
	    strftime(date, sizeof(date), "%Y-%m-%dT%H:%M:%S", &tm) == 0) {
		snprintf(buf, len, "?");
		return;
	}
	snprintf(buf, len, "%s.%03dZ", date, (int)ms);
}
