/*
 * Each form is a pattern (YYYY year, MM month, DD day, hh mm ss, fff
 * milliseconds; any other character as it is), which both the writer
 * and the reader walk: a form cannot be written one way and read
 * another. The calendar is Howard Hinnant's days_from_civil and its
 * inverse (public domain), integer arithmetic only: a sample's stamp is
 * written once per sample in every format, and gmtime_r() with
 * strftime() cost more than the rest of a JSON sample's numbers.
 */
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "utc.h"

static const char *const patterns[] = {
	[UTC_STAMP] = "YYYY-MM-DDThh:mm:ss.fffZ",
	[UTC_NAME] = "YYYYMMDDThhmmss.fffZ",
	[UTC_NAME_S] = "YYYYMMDDThhmmssZ",
	[UTC_CLOCK] = "hh:mm:ss",
	[UTC_CLOCK_MS] = "hh:mm:ss.fff",
};

/* A moment's fields, as the patterns' letters name them. */
struct civil {
	int64_t y;
	unsigned mo, d, h, mi, s, ms;
};

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

/* The fields of ms since the epoch, by floor division: -1 is 23:59:59.999. */
static void
civil_of(int64_t ms, struct civil *c)
{
	int64_t secs = ms / 1000, frac = ms % 1000, days, sod, z, era, doe;
	int64_t yoe, doy, mp;

	if (frac < 0) {
		frac += 1000;
		secs--;
	}
	days = secs / 86400;
	if ((sod = secs % 86400) < 0) {
		sod += 86400;
		days--;
	}
	z = days + 719468;
	era = (z >= 0 ? z : z - 146096) / 146097;
	doe = z - era * 146097;
	yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
	doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
	mp = (5 * doy + 2) / 153;
	c->d = (unsigned)(doy - (153 * mp + 2) / 5 + 1);
	c->mo = (unsigned)(mp < 10 ? mp + 3 : mp - 9);
	c->y = yoe + era * 400 + (c->mo <= 2);
	c->h = (unsigned)(sod / 3600);
	c->mi = (unsigned)(sod / 60 % 60);
	c->s = (unsigned)(sod % 60);
	c->ms = (unsigned)frac;
}

/* The days of month m (1 to 12) of year y. */
static unsigned
month_days(int64_t y, unsigned m)
{
	static const unsigned char days[] = {
		31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31,
	};
	bool leap = (y % 4 == 0 && y % 100 != 0) || y % 400 == 0;

	return m == 2 && leap ? 29 : days[m - 1];
}

/* ms since the epoch of c; -1 when the calendar has no such moment. */
static int
civil_ms(const struct civil *c, unsigned max_s, int64_t *ms)
{
	if (c->mo < 1 || c->mo > 12 || c->d < 1 ||
	    c->d > month_days(c->y, c->mo) || c->h > 23 || c->mi > 59 ||
	    c->s > max_s)
		return -1;
	*ms = ((days_from_civil(c->y, c->mo, c->d) * 24 + c->h) * 60 +
	    c->mi) * 60000 + (int64_t)c->s * 1000 + c->ms;
	return 0;
}

/* The field a pattern's letter names. */
static unsigned *
field(struct civil *c, char letter)
{
	switch (letter) {
	case 'M': return &c->mo;
	case 'D': return &c->d;
	case 'h': return &c->h;
	case 'm': return &c->mi;
	case 's': return &c->s;
	case 'f': return &c->ms;
	default: return NULL;
	}
}

/* n as w digits at least, zeros first (a sign before), at p; the end. */
static char *
put_number(char *p, int64_t n, int w)
{
	char digits[24];
	int len = 0;
	uint64_t u = n < 0 ? -(uint64_t)n : (uint64_t)n;

	do
		digits[len++] = (char)('0' + u % 10);
	while ((u /= 10) > 0);
	if (n < 0)
		*p++ = '-';
	while (w-- > len)
		*p++ = '0';
	while (len > 0)
		*p++ = digits[--len];
	return p;
}

/* The run of one letter at *pat: its length, *pat past it. */
static int
run_of(const char **pat)
{
	const char *p = *pat;

	while (**pat == *p)
		(*pat)++;
	return (int)(*pat - p);
}

static void
write_form(char *out, const struct civil *c, const char *pat)
{
	struct civil f = *c;

	while (*pat != '\0') {
		char letter = *pat;
		int w;

		if (letter != 'Y' && field(&f, letter) == NULL) {
			*out++ = *pat++;
			continue;
		}
		w = run_of(&pat);
		out = put_number(out, letter == 'Y' ? f.y :
		    *field(&f, letter), w);
	}
	*out = '\0';
}

void
utc_format(char *buf, size_t size, int64_t ms, enum utc_form form)
{
	/*
	 * The second written last, kept by each thread: samples taken
	 * within one second (at 10 ms, a hundred) patch its milliseconds
	 * only, where the date cost three quarters of a stamp.
	 */
	static _Thread_local struct {
		bool made;
		enum utc_form form;
		int64_t secs;
		size_t len, frac_at; /* frac_at 0: the form has no ms */
		char text[UTC_MAX];
	} last;
	int64_t secs = ms / 1000 - (ms % 1000 < 0);
	int64_t frac = ms % 1000 + (ms % 1000 < 0 ? 1000 : 0);
	size_t n;

	if (!last.made || last.form != form || last.secs != secs) {
		const char *pat = patterns[form], *f = strchr(pat, 'f');
		struct civil c;

		civil_of(ms, &c);
		write_form(last.text, &c, pat);
		last.len = strlen(last.text);
		/* After the year, which may take more than its 4 digits. */
		last.frac_at = f == NULL ? 0 :
		    last.len - strlen(pat) + (size_t)(f - pat);
		last.made = true;
		last.form = form;
		last.secs = secs;
	} else if (last.frac_at > 0)
		put_number(last.text + last.frac_at, frac, 3);
	if (size == 0)
		return;
	n = last.len < size - 1 ? last.len : size - 1;
	memcpy(buf, last.text, n);
	buf[n] = '\0';
}

/* Exactly n digits at *s, *s past them. */
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

int
utc_scan(const char *s, enum utc_form form, int64_t *ms, const char **end)
{
	struct civil c = { .y = 1970, .mo = 1, .d = 1 };
	const char *pat = patterns[form];
	unsigned y;

	while (*pat != '\0') {
		char letter = *pat;
		unsigned *to = letter == 'Y' ? &y : field(&c, letter);

		if (to == NULL) {
			if (*s++ != *pat++)
				return -1;
			continue;
		}
		if (!digits(&s, run_of(&pat), to))
			return -1;
		if (letter == 'Y')
			c.y = y;
	}
	if (end != NULL)
		*end = s;
	else if (*s != '\0')
		return -1;
	return civil_ms(&c, 59, ms);
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
utc_when(const char *s, int64_t now_ms, int64_t *ms)
{
	struct civil c = { 0 };
	unsigned y;
	const char *p = s;

	if (s[0] == '-')
		return span_before(s, now_ms, ms);
	if (!digits(&p, 4, &y) || *p++ != '-' || !digits(&p, 2, &c.mo) ||
	    *p++ != '-' || !digits(&p, 2, &c.d) || (*p != 'T' && *p != ' '))
		return -1;
	p++;
	if (!digits(&p, 2, &c.h) || *p++ != ':' || !digits(&p, 2, &c.mi))
		return -1;
	if (*p == ':' && (p++, !digits(&p, 2, &c.s)))
		return -1;
	if (*p == '.' && (p++, !digits(&p, 3, &c.ms)))
		return -1;
	if (*p == 'Z')
		p++;
	c.y = y;
	/* A leap second people may type: the minute's end. */
	return *p != '\0' ? -1 : civil_ms(&c, 60, ms);
}
