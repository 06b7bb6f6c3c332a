/*
 * A moment as --since and --until take it: a UTC time in ISO 8601
 * (2026-11-27T03:05, with seconds, milliseconds and a Z if one likes:
 * the timestamps of the records read back too), since the
 * records are named and stamped in UTC; or a span before now (-10m, -2h,
 * -30s, -1d), as journalctl's. Pure: now is handed in.
 */
#ifndef MYSQLMEMPROF_WHEN_H
#define MYSQLMEMPROF_WHEN_H

#include <stddef.h>
#include <stdint.h>

/* *ms: milliseconds since the epoch. Returns 0, or -1 when s is neither. */
int when_parse(const char *s, int64_t now_ms, int64_t *ms);

/* ms since the epoch as the records stamp it: 2026-11-27T03:05:00.123Z. */
void when_stamp(char *buf, size_t size, int64_t ms);

#endif
