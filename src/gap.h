/*
 * The gap between the server's resident memory and what performance_schema
 * counts, read: gap_read() takes one reading for --explain (struct
 * explain_reading: the session's counted_layers, estimate and
 * measured_connections, and, when the server's pid is its process here,
 * /proc/PID in layers and its memory cgroup); gap_source() is a sample
 * source that takes it beside --global's samples at a slow beat and works
 * the answer out (explain_model.h), for an observer to copy: the
 * exporter's gauges, the recorder's incidents, the live view's key e.
 */
#ifndef MYSQLMEMPROF_GAP_H
#define MYSQLMEMPROF_GAP_H

#include <stdint.h>

#include "clock.h"
#include "gate.h"
#include "explain_model.h"
#include "session.h"
#include "source.h"

/*
 * A reading walks the process's smaps, holding its mmap lock, and delays
 * the sample due meanwhile by as long: at most this share of the time goes
 * to it (a reading of d is followed by none for GAP_SPACING * d).
 */
#define GAP_SPACING 1000

/* Where the readings of the process are; NULL for /proc, /sys/fs/cgroup. */
struct gap_roots {
	const char *proc, *sys;
};

/*
 * One reading into *r (r->wall_ms set from clk). A part the server does not
 * give is left out (r->has_* false), said through warn when given. Returns
 * 0, or -1 when the connection was lost (err says how).
 */
int gap_read(struct session *s, struct gap_roots roots,
    const struct clock *clk, struct explain_reading *r,
    void (*warn)(void *ctx, const char *msg), void *warn_ctx, char *err,
    size_t errlen);

struct gap {
	/* Set by the mode that asks for it: */
	uint64_t every_ns;          /* 0: --layers-every */
	/* The latest reading and its answer; reads counts them. */
	struct explain_reading r;
	struct explain e;
	uint64_t reads;
	uint64_t took_ns;           /* how long the latest reading took */

	/* Set by the capture that runs the chain, for each capture: */
	struct source inner;
	struct session *session;
	const struct clock *clk;
	struct gap_roots roots;
	struct gate gate;         /* reset: read after the next sample */
};

/*
 * Reads inner, then the gap when it is due and inner read: every every_ns,
 * or GAP_SPACING times the last reading's time when that is longer.
 */
struct source gap_source(struct gap *g);

#endif
