/*
 * --output patterns of --wait-for and --longer-than: one file per capture,
 * named after its connection, thread and start time, e.g.
 * capture-%Y%m%d-%H%M%S-%c.csv.
 */
#ifndef MYSQLMEMPROF_OUTNAME_H
#define MYSQLMEMPROF_OUTNAME_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <time.h>

/* Whether name holds a '%', which makes it a pattern. */
bool outname_is_pattern(const char *name);

/*
 * Checks a pattern: %c, %t, %N, %% and the strftime conversions of
 * OUTNAME_STRFTIME only. Returns 0, or -1 with err naming the problem.
 */
int outname_check(const char *pattern, char *err, size_t errlen);

/* The strftime conversions a pattern may hold, for messages and --help. */
#define OUTNAME_STRFTIME "aAbBCdeFgGhHIjklmMpRsSTuUVwWyYzZ"

/*
 * Expands a checked pattern for a capture: %c the connection id, %t the
 * thread id, %% a '%', the others as strftime(3) gives them for tm (the
 * local start time). Returns 0, or -1 when the name does not fit outlen.
 */
int outname_expand(const char *pattern, uint64_t connection_id,
    uint64_t thread_id, const struct tm *tm, char *out, size_t outlen);
/*
 * The same for one sample of --profile-at each: %N is its number, tm its
 * local time. outname_expand() gives %N as 0.
 */
int outname_expand_sample(const char *pattern, uint64_t connection_id,
    uint64_t thread_id, uint64_t sample, const struct tm *tm, char *out,
    size_t outlen);

/*
 * name with -n before its extension (capture.csv, 2: capture-2.csv), for a
 * name that is taken already. Returns 0, or -1 when it does not fit.
 */
int outname_numbered(const char *name, unsigned n, char *out, size_t outlen);

#endif
