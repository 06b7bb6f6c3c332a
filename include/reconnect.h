/*
 * A sample source that survives the server going away: it wraps the
 * performance_schema reader, and when the connection is lost it reconnects
 * with bounded exponential backoff, checks that the target is still the
 * same thread, and reports how long it could not read.
 */
#ifndef MYSQLMEMPROF_RECONNECT_H
#define MYSQLMEMPROF_RECONNECT_H

#include <signal.h>
#include <stdint.h>

#include "clock.h"
#include "conn.h"
#include "pfs.h"
#include "source.h"

struct reconnect {
	struct conn **conn;             /* the caller's connection, replaced on reconnect */
	const struct conn_params *params;
	struct pfs_reader *reader;
	uint64_t thread_id;             /* 0: a grain, not a thread */
	uint64_t timeout_ns;            /* give up after this long; 0: never reconnect */
	int64_t server_boot_s;          /* from pfs_server_boot() at the first connect */
	const struct clock *clk;
	volatile sig_atomic_t *stop;
	/* Called with a progress note ("lost ...; reconnecting"); may be NULL. */
	void (*notify)(void *ctx, const char *msg);
	void *notify_ctx;
};

struct source reconnect_source(struct reconnect *rc);

#endif
