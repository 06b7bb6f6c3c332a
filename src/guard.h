/*
 * A sample source that watches the setup of performance_schema while it
 * samples: at most once a second it asks whether the memory instruments,
 * the statements consumer and the target thread's instrumentation are as
 * they were, and says once when one was switched off. Without this, a
 * total just freezes, or every sample names a statement long ended.
 */
#ifndef MYSQLMEMPROF_GUARD_H
#define MYSQLMEMPROF_GUARD_H

#include <stdbool.h>
#include <stdint.h>

#include "clock.h"
#include "gate.h"
#include "pfs.h"
#include "session.h"
#include "source.h"

#define GUARD_EVERY_NS 1000000000ull

struct guard {
	struct source inner;
	struct session *session;
	uint64_t thread_id;        /* 0: a grain, no thread to watch */
	const struct clock *clk;
	uint64_t every_ns;         /* a look at most this often; 0: GUARD_EVERY_NS */
	/* Called with a warning ("... was switched off"); may be NULL. */
	void (*notify)(void *ctx, const char *msg);
	void *notify_ctx;
	/* Called once when statements are no longer recorded; may be NULL. */
	void (*statements_off)(void *ctx);
	void *statements_off_ctx;

	/* Zero at first: the first look is the reference. */
	bool looked;
	struct pfs_setup first;
	struct gate gate;
	unsigned off;              /* SETUP_OFF_* at the last look */
	unsigned said;             /* SETUP_OFF_* warned about, each once */
};

/* Reads inner, looking at the setup before a read when it is due. */
struct source guard_source(struct guard *g);

#endif
