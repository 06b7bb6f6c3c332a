/*
 * A named heap profile (heap_profile.h) written for people (text) and for
 * flame graphs (folded), into a buffer: the mode writes the buffer whole.
 * heap_pprof.h writes the third format.
 */
#ifndef MYSQLMEMPROF_HEAP_OUT_H
#define MYSQLMEMPROF_HEAP_OUT_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include "heap_profile.h"
#include "obuf.h"

/* What the profile is of, for its heading. */
struct heap_meta {
	pid_t pid;              /* 0: not known (a dump read alone) */
	const char *dump;       /* the dump's path */
	const char *base;       /* the base of a growth; NULL: none */
	size_t top;             /* stacks and functions shown; 0: all */
	bool exact;             /* --bytes */
};

/*
 * The total, the largest stacks (innermost frame first, as a debugger's
 * backtrace: the allocating call on top) with their bytes and share, then
 * the largest functions, inclusive and own bytes.
 */
void heap_out_text(struct obuf *b, const struct heap_profile *p,
    const struct heap_meta *m);

/*
 * One line a stack, "outer;...;inner BYTES", outermost first, as
 * flamegraph.pl and speedscope read them; in a name, ';' is written %3B
 * and '%' %25, control characters become spaces.
 */
void heap_out_folded(struct obuf *b, const struct heap_profile *p);

#endif
