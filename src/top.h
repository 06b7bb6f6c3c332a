/*
 * --live --list: a `top` of the server's threads in the live view, largest
 * memory first, looked at every --frequency; Enter opens a thread's view
 * (a capture of it), Esc comes back to the list.
 */
#ifndef MYSQLMEMPROF_TOP_H
#define MYSQLMEMPROF_TOP_H

#include "capture.h"

/*
 * Takes the terminal (live.h) for as long as it runs, over env's connected
 * session. Returns the exit status.
 */
int top_run(const struct capture_env *env);

#endif
