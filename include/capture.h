/*
 * One capture: the target resolved, the ring made, the sampler run over a
 * source that reconnects (and, for a statement found by waiting, ends with
 * the statement), every sample handed through the flight recorder to the
 * output, and the summary written.
 */
#ifndef MYSQLMEMPROF_CAPTURE_H
#define MYSQLMEMPROF_CAPTURE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "cli.h"
#include "diag.h"
#include "match.h"
#include "outfile.h"
#include "session.h"
#include "signals.h"
#include "watch.h"

/* What a capture works with; all of it borrowed from the caller. */
struct capture_env {
	const struct options *opts;
	struct session *session;
	struct outfile *out;
	const struct diag *diag;
	struct signal_flags *sig;
};

/*
 * Whether the ring that --window and --top ask for stays within the limit
 * (1 GiB); says so when not. instruments: the memory instruments of the
 * server, 0 while not known.
 */
bool capture_ring_fits(const struct options *o, size_t instruments);

/*
 * Captures the thread, connection or grain of the options; or, when found
 * is not NULL, the statement --wait-for found (number: 1, 2, ...) until it
 * ends, *end saying how. Returns the exit status.
 */
int capture_run(const struct capture_env *env, const struct stmt_match *found,
    uint64_t number, enum follow_end *end);

#endif
