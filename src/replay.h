/*
 * --read: a capture written by --format json, or the record of --record,
 * replayed instead of sampling a server, through the output format, the
 * summary and the live view, as sar -f does.
 */
#ifndef MYSQLMEMPROF_REPLAY_H
#define MYSQLMEMPROF_REPLAY_H

#include "capture_env.h"

/*
 * Replays o->read_path ("-": standard input; a folder --record wrote) to
 * --output in --format, and to env's observer (the live view) when it
 * has one. Returns the exit status: 1 when the file is not a capture,
 * naming the line, or when it was cut short (the samples before are
 * written).
 */
int replay_run(const struct capture_env *env);

#endif
