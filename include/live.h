/*
 * --live: the full-screen view in the terminal. A capture (or waiting for
 * one) runs on the calling thread as usual, a watcher copying each sample
 * into the view's model; a thread of the view's own owns the terminal,
 * reads the keys and draws, so the sampler never waits on drawing. With
 * --list, a `top` of the server's threads that opens a thread's view.
 */
#ifndef MYSQLMEMPROF_LIVE_H
#define MYSQLMEMPROF_LIVE_H

#include "capture.h"

/*
 * Whether standard input and output are a terminal the view can take;
 * says why not (a usage error) when they are not.
 */
int live_check_terminal(void);

/*
 * Runs the mode the options ask for in the live view and returns the exit
 * status. env->watcher is its own; the terminal is restored on every way
 * out, then what was said on stderr meanwhile and the summary follow.
 */
int live_run(const struct capture_env *env);

#endif
