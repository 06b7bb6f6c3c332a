#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "when.h"

/* Days since 1970-01-01 of a date of the proleptic Gregorian calendar. */
static int64_t
days_from_civil(int64_t y, unsigned m, unsigned d)
{
	int64_t era;
	unsigned yoe, doy, doe;

	y -= m <= 2;
	era = (y >= 0 ? y : y - 399) / 400;
	yoe = (unsigned)(y - era * 400);
	doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
	doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
	return era * 146097 + (int64_t)doe - 719468;
}

/* The days of month m (1 to 12) of year y. */
static unsigned
month_days(unsigned y, unsigned m)
{
	static const unsigned char days[] = {
		31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31,
	};
	bool leap = (y % 4 == 0 && y % 100 != 0) || y % 400 == 0;

	return m == 2 && leap ? 29 : days[m - 1];
}

/* Reads exactly n digits. */
static bool
digits(const char **s, int n, unsigned *out)
{
	unsigned v = 0;

	for (int i = 0; i < n; i++) {
		if ((*s)[i] < '0' || (*s)[i] > '9')
			return false;
		v = v * 10 + (unsigned)((*s)[i] - '0');
	}
	*s += n;
	*out = v;
	return true;
}

static int
span_before(const char *s, int64_t now_ms, int64_t *ms)
{
	static const struct { char unit; int64_t ms; } units[] = {
		{ 's', 1000 }, { 'm', 60000 }, { 'h', 3600000 },
		{ 'd', 86400000 },
	};
	int64_t n = 0;
	const char *p = s + 1;

	if (*p < '0' || *p > '9')
		return -1;
	while (*p >= '0' && *p <= '9' && n < 1000000000)
		n = n * 10 + (*p++ - '0');
	for (size_t i = 0; i < sizeof(units) / sizeof(units[0]); i++)
		if (p[0] == units[i].unit && p[1] == '\0') {
			*ms = now_ms - n * units[i].ms;
			return 0;
		}
	return -1;
}

int
when_parse(const char *s, int64_t now_ms, int64_t *ms)
{
	unsigned y, mo, d, h, mi, sec = 0, frac = 0;
	const char *p = s;

	if (s[0] == '-')
		return span_before(s, now_ms, ms);
	if (!digits(&p, 4, &y) || *p++ != '-' || !digits(&p, 2, &mo) ||
	    *p++ != '-' || !digits(&p, 2, &d) || (*p != 'T' && *p != ' '))
		return -1;
	p++;
	if (!digits(&p, 2, &h) || *p++ != ':' || !digits(&p, 2, &mi))
		return -1;
	if (*p == ':' && (p++, !digits(&p, 2, &sec)))
		return -1;
	if (*p == '.' && (p++, !digits(&p, 3, &frac)))
		return -1;
	if (*p == 'Z')
		p++;
	if (*p != '\0' || mo < 1 || mo > 12 || d < 1 ||
	    d > month_days(y, mo) || h > 23 || mi > 59 || sec > 60)
		return -1;
	*ms = ((days_from_civil(y, mo, d) * 24 + h) * 60 + mi) * 60000 +
	    (int64_t)sec * 1000 + frac;
	return 0;
}

void
when_stamp(char *buf, size_t size, int64_t ms)
{
	time_t t = (time_t)(ms / 1000);
	struct tm tm;

	gmtime_r(&t, &tm);
	snprintf(buf, size, "%04d-%02d-%02dT%02d:%02d:%02d.%03dZ",
	    tm.tm_year + 1900, tm.tm_mon + 1, tm.tm_mday, tm.tm_hour,
	    tm.tm_min, tm.tm_sec, (int)(ms % 1000));
}
