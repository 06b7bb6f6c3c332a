/*
 * --read: a capture written by --format json replayed instead of sampling
 * a server, through the output format and the summary, as sar -f does.
 */
#ifndef MYSQLMEMPROF_REPLAY_H
#define MYSQLMEMPROF_REPLAY_H

#include "options.h"
#include "diag.h"
#include "signals.h"

/*
 * Replays o->read_path ("-": standard input) to --output in --format.
 * Returns the exit status: 1 when the file is not a capture, naming the
 * line, or when it was cut short (the samples before are written).
 */
int replay_run(const struct options *o, struct signal_flags *sig,
    const struct diag *d);

#endif
