/*
 * A sample source that reads the events of its inner source at a slower
 * beat than the samples: between two readings each sample gets the last
 * events again, flagged as kept (struct reading's events_kept), so that
 * the sources above it (the process, the connections) still read each
 * tick. --record's whole-server breakdown: on MariaDB each reading of the
 * global memory table walks every thread's rows (bench/RESULTS.md), too
 * dear once a second at a thousand connections. Between reads the server
 * is asked whether it is there (the session's ping), the least a round
 * trip costs, so that a server gone is known at the next tick: a lost
 * connection is SOURCE_LOST as the inner read's would be.
 */
#ifndef MYSQLMEMPROF_BEAT_H
#define MYSQLMEMPROF_BEAT_H

#include <stddef.h>
#include <stdint.h>

#include "clock.h"
#include "gate.h"
#include "session.h"
#include "source.h"

struct beat {
	/* Set by the capture that runs the chain: */
	struct source inner;
	struct session *session;  /* asked between reads whether it answers */
	const struct clock *clk;
	uint64_t every_ns;        /* read inner at most this often */

	/* Its own, zero at first: */
	struct gate gate;         /* reset: read with the next sample */
	struct event_stat *kept;  /* the last reading's events */
	size_t n, cap;
};

/* Reads inner when due, else hands the kept events again. */
struct source beat_source(struct beat *b);

void beat_free(struct beat *b);

#endif
