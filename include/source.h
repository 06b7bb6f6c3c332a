/*
 * Where samples come from. The sampler sees only this interface, so unit
 * tests drive it with a fake and the program with performance_schema.
 */
#ifndef MYSQLMEMPROF_SOURCE_H
#define MYSQLMEMPROF_SOURCE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "sample.h"

enum source_status {
	SOURCE_OK,
	SOURCE_GONE,    /* the target no longer exists: a normal end */
	SOURCE_LOST,    /* the connection to the server was lost; err says how */
	SOURCE_STOPPED, /* a stop was asked for while the source waited */
	SOURCE_SKIPPED, /* no reading this time, but the source goes on; err says why */
	SOURCE_ERROR,   /* the source failed; err says why */
};

/* One reading of the target. */
struct reading {
	struct event_stat *events; /* owned by the source, valid until the next read */
	size_t n;
	/*
	 * Time the source could not read before this reading (it lost the
	 * server and reconnected), in microseconds; 0 normally.
	 */
	uint64_t gap_us;
	/*
	 * When the query that gave this reading started, on the monotonic
	 * clock, if not when read() was called (after a reconnect); else 0.
	 */
	uint64_t started_ns;
	/* The statement the target runs; NULL when the source cannot tell. */
	const struct statement *statement;
	/* SETUP_OFF_* (sample.h): what was switched off while sampling. */
	unsigned setup_off;
	/* The events are an earlier reading's, not read now (beat.h). */
	bool events_kept;
	/*
	 * The server's own count of the thread now (total.h), and what it
	 * moved since the kept events were read: the total is their sum and
	 * that. Without it, 0.
	 */
	bool has_connection_bytes;
	int64_t connection_bytes;
	int64_t total_moved;
	/* The server's process (sample.h), when a source on the chain read it. */
	struct process_memory process;
	/*
	 * The statements the target finished since the previous reading,
	 * oldest first, owned by the source until the next read; none: 0.
	 */
	const struct finished_statement *finished;
	size_t n_finished;
	/*
	 * Which reading this is (seq, unique in the process; 0: unmarked),
	 * and whether its events are those of reading after, in the same
	 * places and the same memory, none of their counters moved: a
	 * consumer that kept reading after compares nothing (delta.h). A
	 * source that hands on other events than its inner one's leaves
	 * these 0.
	 */
	uint64_t seq, after;
	bool unmoved;
};

struct source {
	void *ctx;
	/*
	 * Reads every event of the target into *out. deadline_ns is when the
	 * run's time is up, on the monotonic clock (0: no limit): a source
	 * that waits (to reconnect) gives up that reading by then.
	 */
	enum source_status (*read)(void *ctx, uint64_t deadline_ns,
	    struct reading *out, char *err, size_t errlen);
};

#endif
