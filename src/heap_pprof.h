/*
 * A named heap profile (heap_profile.h) as a gzipped
 * perftools.profiles.Profile, which `go tool pprof` reads: sample types
 * inuse_objects and inuse_space, the dump's mappings, a function per name
 * and a location per return address (its address, mapping and function).
 */
#ifndef MYSQLMEMPROF_HEAP_PPROF_H
#define MYSQLMEMPROF_HEAP_PPROF_H

#include <stddef.h>
#include <stdint.h>

#include "heap_profile.h"

/*
 * p encoded into a malloc'd buffer (*buf, *len; the caller frees it),
 * time_ns the dump's time (ns since the epoch; 0: unknown). 0, or -1
 * with errno (out of memory).
 */
int heap_pprof_encode(const struct heap_profile *p, int64_t time_ns,
    unsigned char **buf, size_t *len);

#endif
