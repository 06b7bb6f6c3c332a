/*
 * --heap, a mode: the server's process's newest jemalloc heap profile
 * (found from its environment, or --heap-dir), or the growth since a base
 * (--heap-base), its frames named (symbols.h), written as text, folded or
 * pprof (heap_out.h, heap_pprof.h); --heap-file: one dump, no server.
 */
#ifndef MYSQLMEMPROF_HEAP_H
#define MYSQLMEMPROF_HEAP_H

#include "capture_env.h"

/* The mode: the profile written whole to the output, or one line why not. */
int heap_run(const struct capture_env *env);

#endif
