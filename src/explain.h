/*
 * --explain, a mode: one reading of the whole server and its process, its
 * resident memory split into layers, each with its cause, its jemalloc
 * heap profile's largest stacks beside them when it is profiled, and
 * advice (explain_model.h), written as text or JSON (explain_out.h); with --count
 * or --duration, a capture of --global first and the reading at its end.
 */
#ifndef MYSQLMEMPROF_EXPLAIN_H
#define MYSQLMEMPROF_EXPLAIN_H

#include "capture_env.h"
#include "explain_model.h"

/*
 * One reading into *r: the session's layers, estimate and connections,
 * and, when the server's pid is its process here, /proc and its cgroup.
 * Returns 0, or an exit status having said why (the server failed).
 */
int explain_read(const struct capture_env *env, struct explain_reading *r);

/* The mode: one reading, its answer written to the output. */
int explain_run(const struct capture_env *env);

#endif
