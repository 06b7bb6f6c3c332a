/*
 * A heap dump named (issue 34): each return address of a jemalloc dump
 * (heapdump.h) given a function by a namer (symbols.h for a process), the
 * allocator's own frames dropped from the top of each stack, and the bytes
 * summed by function, inclusive and own. Pure: what names an address is
 * handed in, so the unit tests name them by hand.
 */
#ifndef MYSQLMEMPROF_HEAP_PROFILE_H
#define MYSQLMEMPROF_HEAP_PROFILE_H

#include <stddef.h>
#include <stdint.h>

#include "heapdump.h"
#include "symbols.h"

/* Names return address pc into *out, as symbols_lookup() does. */
typedef void heap_namer(void *ctx, uint64_t pc, struct symbol *out);

/* One return address, with its function and mapping. */
struct heap_location {
	uint64_t pc;
	size_t func;            /* index into funcs */
	size_t map;             /* index into the dump's maps; SIZE_MAX: none */
};

/* One function: the locations named alike. */
struct heap_function {
	char *name;             /* owned */
	int64_t own_bytes;      /* of the stacks whose innermost frame it is */
	int64_t own_objects;
	int64_t incl_bytes;     /* of the stacks it is in, once a stack */
	int64_t incl_objects;
};

/* One stack, the allocator's frames dropped. */
struct heap_pstack {
	size_t *locs;           /* indexes into locs, innermost first */
	size_t depth;
	int64_t bytes, objects;
};

struct heap_profile {
	struct heap_location *locs;     /* sorted by pc */
	size_t nlocs;
	struct heap_function *funcs;    /* largest inclusive bytes first */
	size_t nfuncs;
	struct heap_pstack *stacks;     /* largest bytes first */
	size_t nstacks;
	const struct heap_mapping *maps; /* the dump's, borrowed */
	size_t nmaps;
	uint64_t rate;
	int64_t total_bytes, total_objects;
};

/*
 * d named by name(ctx, pc) into *p (owned; heap_profile_free); pc is the
 * return address as the dump has it (symbols_lookup() names the call
 * before it). Stacks that hold no byte are left out. 0, or -1 with errno
 * (out of memory).
 */
int heap_profile_build(const struct heap_dump *d, heap_namer *name,
    void *ctx, struct heap_profile *p);
void heap_profile_free(struct heap_profile *p);

/* Whether a mapped file is jemalloc (libjemalloc.so.2, ...). */
int heap_profile_is_allocator(const char *path);

#endif
