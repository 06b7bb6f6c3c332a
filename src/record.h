/*
 * --record DIR: the black box. Captures the whole server, one capture a
 * run of it, for as long as it is not stopped, connecting again while the
 * server is away; writes each sample as --format json writes it, and
 * beside it the connections whose figures changed (conns.h), into the
 * append-only segments of DIR (segments.h). When the server goes away or
 * comes back another run, when its cgroup's OOM-kill count rises, or when
 * its resident memory passes --incident-share of the cgroup's limit, an
 * incident of the minutes before is written into DIR/incidents at once
 * (incident.h).
 */
#ifndef MYSQLMEMPROF_RECORD_H
#define MYSQLMEMPROF_RECORD_H

#include "capture_env.h"

/* Returns the exit status: 0 when stopped, 1 when DIR cannot be written. */
int record_run(const struct capture_env *env);

#endif
