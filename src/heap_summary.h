/*
 * A heap profile (heap_profile.h) summed for --explain: its total, the
 * part whose stacks pass through the server's instrumented allocation
 * (my_malloc and kin, which performance_schema counts while the call's
 * instrument is on) and the part around it (malloc, new, libraries'),
 * and the largest stacks, each a few frames of the server's own code.
 * Pure, and a plain struct: a reading that holds it is copied whole.
 */
#ifndef MYSQLMEMPROF_HEAP_SUMMARY_H
#define MYSQLMEMPROF_HEAP_SUMMARY_H

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "heap_profile.h"

#define HEAP_SUMMARY_STACKS 5   /* the largest stacks kept */
#define HEAP_SUMMARY_FRAMES 5   /* the frames kept of each */
#define HEAP_SUMMARY_NAME 120   /* a frame's name, cut there */

/* What became of the look at the server's heap profile. */
enum heap_state {
	HEAP_UNREAD = 0,        /* not looked at (the reading once a minute) */
	HEAP_NOT_PROFILED,      /* no jemalloc, no prof:true, or no dump yet */
	HEAP_FAILED,            /* profiled, but the dump could not be read */
	HEAP_READ,
};

/* Whether a stack passes through the server's instrumented calls. */
enum heap_mark {
	HEAP_MARK_NOT = 0,      /* no: its allocating call is named, not one */
	HEAP_MARK_INSTRUMENTED, /* a frame is one of them */
	/*
	 * Cannot tell: the call that allocated has no name (a static
	 * function; MySQL's my_malloc jumps into one), so it may be one.
	 */
	HEAP_MARK_UNNAMED,
};

struct heap_summary_stack {
	int64_t bytes;
	enum heap_mark mark;
	size_t nframes;
	/* Innermost first, without their parameters. */
	char frames[HEAP_SUMMARY_FRAMES][HEAP_SUMMARY_NAME];
};

struct heap_summary {
	enum heap_state state;
	char why[512];          /* NOT_PROFILED, FAILED: in words */
	char dump[PATH_MAX];    /* the dump read */
	int64_t age_s;          /* how long before the reading it was written */
	int64_t total_bytes;    /* live, scaled up from the samples */
	/* The stacks' bytes by mark: the three sum to total_bytes. */
	int64_t instrumented_bytes, other_bytes, unnamed_bytes;
	size_t nstacks;         /* of the profile */
	struct heap_summary_stack top[HEAP_SUMMARY_STACKS];
	size_t ntop;
};

/*
 * p summed into *out (state HEAP_READ; dump and age_s left to the
 * caller). A stack's frames start at its first frame outside a shared
 * library named lib*.so (libstdc++'s operator new, libc's): the server's
 * own code, its plugins' included.
 */
void heap_summary_make(const struct heap_profile *p, struct heap_summary *out);

/* Whether function name is one of the server's instrumented allocation calls. */
bool heap_summary_instrumented(const char *name);

/* name without its parameters into out ("update_hash(a*, int)": "update_hash"). */
void heap_summary_short(const char *name, char *out, size_t len);

#endif
