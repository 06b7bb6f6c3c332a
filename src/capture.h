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

#include "capture_env.h"
#include "options.h"
#include "follow.h"
#include "match.h"
#include "session.h"

/*
 * Whether the ring that --window and --top ask for stays within the limit
 * (1 GiB); says so when not. instruments: the memory instruments of the
 * server, 0 while not known.
 */
bool capture_ring_fits(const struct options *o, size_t instruments);

/*
 * MySQL's connection_memory_limit and its kin: read through s's operations
 * the first time a connection is asked, then kept in s->limits. NULL when
 * the read failed, with err saying why (err may be NULL); asked again then.
 */
const struct pfs_memory_limits *capture_memory_limits(struct session *s,
    char *err, size_t errlen);

/*
 * Captures the thread, connection or grain of the options; or, when found
 * is not NULL, the statement --wait-for found (number: 1, 2, ...) until it
 * ends, *end saying how. Returns the exit status.
 */
int capture_run(const struct capture_env *env, const struct stmt_match *found,
    uint64_t number, enum follow_end *end);

/*
 * capture_run() of a statement found by waiting, whose first samples are
 * the n readings of before, taken while waiting (oldest first; borrowed).
 */
int capture_run_from(const struct capture_env *env,
    const struct stmt_match *found, const struct sampler_before *before,
    size_t n, uint64_t number, enum follow_end *end);

#endif
