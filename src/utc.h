/*
 * UTC time as the tool writes and reads it, every shape in one place,
 * since the records are named and stamped in UTC: the stamp of every
 * line and column (2026-11-27T03:05:00.123Z), the names of the record's
 * segments and kept dumps (20261127T030500.123Z) and incidents
 * (20261127T030500Z), a picture's clock (03:05:00), and the moments
 * --since and --until take. Pure: the wall clock is the caller's.
 */
#ifndef MYSQLMEMPROF_UTC_H
#define MYSQLMEMPROF_UTC_H

#include <stddef.h>
#include <stdint.h>

enum utc_form {
	UTC_STAMP,    /* 2026-11-27T03:05:00.123Z: ISO 8601, ms, Z */
	UTC_NAME,     /* 20261127T030500.123Z: a segment's, a kept dump's */
	UTC_NAME_S,   /* 20261127T030500Z: an incident's, to the second */
	UTC_CLOCK,    /* 03:05:00: a picture's axis */
	UTC_CLOCK_MS, /* 03:05:00.123 */
};

/* Room for any form of any moment, years of many digits too. */
#define UTC_MAX 48

/*
 * ms since the epoch (before it too) in form into buf, cut to size as
 * snprintf() cuts.
 */
void utc_format(char *buf, size_t size, int64_t ms, enum utc_form form);

/*
 * The form at the start of s, exactly (a date the calendar has, seconds
 * below 60): *ms, and *end past it, or s must end there when end is
 * NULL. Returns 0, or -1 leaving *ms alone.
 */
int utc_scan(const char *s, enum utc_form form, int64_t *ms,
    const char **end);

/*
 * A moment as --since and --until take it: the stamp with its seconds,
 * milliseconds and Z optional (and a space for the T), or a span before
 * now_ms (-10m, -2h, -30s, -1d), as journalctl's. Returns 0, or -1 when
 * s is neither, leaving *ms alone.
 */
int utc_when(const char *s, int64_t now_ms, int64_t *ms);

#endif
