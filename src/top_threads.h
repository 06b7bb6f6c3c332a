/*
 * A sample source that also reads the whole server's top threads, at most
 * once a second, on the sampling chain's connection: for the exporter of
 * --global, whose series name the threads that hold the most. Its observer
 * copies them after each sample, so no mode queries the server on its own.
 */
#ifndef MYSQLMEMPROF_TOP_THREADS_H
#define MYSQLMEMPROF_TOP_THREADS_H

#include <stddef.h>
#include <stdint.h>

#include "clock.h"
#include "gate.h"
#include "session.h"
#include "source.h"
#include "threads.h"

#define TOP_THREADS_EVERY_NS 1000000000ull

struct top_threads {
	/* Set by whoever asks for the threads (the exporter): */
	size_t max;               /* room in v */
	struct thread_total *v;   /* largest first; borrowed */
	/* The latest reading: v's first n; 0 when it failed. */
	size_t n;
	uint64_t reads;           /* readings so far: a new one changes it */

	/* Set by the capture that runs the chain, for each capture: */
	struct source inner;
	struct session *session;
	const struct clock *clk;
	struct gate gate;         /* reset: read with the next sample */
};

/* Reads inner, then the top threads when they are due and inner read. */
struct source top_threads_source(struct top_threads *t);

#endif
