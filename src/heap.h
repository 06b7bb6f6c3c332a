/*
 * --heap, a mode: the server's process's newest jemalloc heap profile
 * (found from its environment, or --heap-dir), or the growth since a base
 * (--heap-base), its frames named (symbols.h), written as text, folded or
 * pprof (heap_out.h, heap_pprof.h); --heap-file: one dump, no server.
 */
#ifndef MYSQLMEMPROF_HEAP_H
#define MYSQLMEMPROF_HEAP_H

#include "capture_env.h"
#include "heap_summary.h"

/* The mode: the profile written whole to the output, or one line why not. */
int heap_run(const struct capture_env *env);

/*
 * For --explain: the server's newest dump read, named and summed into
 * *out, its age from now_ms (the wall clock). Returns 0, or the exit
 * status with out->state and out->why saying why not (EXIT_NO_PROFILE:
 * not profiled or no dump yet); a dump that cannot be read is said on
 * stderr as --heap says it.
 */
int heap_read_summary(const struct capture_env *env, int64_t now_ms,
    struct heap_summary *out);

#endif
