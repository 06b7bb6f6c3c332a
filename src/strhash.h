/*
 * The hash of the open-addressing tables keyed by name (delta.c,
 * runstats.c, pprof.c): FNV-1a, since event names share long prefixes
 * and it mixes every byte.
 */
#ifndef MYSQLMEMPROF_STRHASH_H
#define MYSQLMEMPROF_STRHASH_H

#include <stddef.h>
#include <stdint.h>

/* The hash of the n bytes at s. */
static inline size_t
strhash(const char *s, size_t n)
{
	uint64_t h = 14695981039346656037u;

	for (size_t i = 0; i < n; i++)
		h = (h ^ (unsigned char)s[i]) * 1099511628211u;
	return (size_t)h;
}

#endif
