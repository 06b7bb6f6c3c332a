/*
 * --wait-for and --longer-than: wait for a matching statement, capture its
 * thread until the statement ends, and with --repeat wait again.
 */
#ifndef MYSQLMEMPROF_HUNT_H
#define MYSQLMEMPROF_HUNT_H

#include "capture.h"

/*
 * Waits and captures as the options say. Returns the exit status: 3
 * (EXIT_NO_MATCH) when --wait-timeout passed before anything was captured.
 */
int hunt_run(const struct capture_env *env);

#endif
