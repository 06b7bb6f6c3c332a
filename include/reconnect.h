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
	struct pfs_reader *reader;      /* pointed at the new connection; may be NULL */
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

/*
 * Reconnects now, err saying what was lost: SOURCE_OK, SOURCE_STOPPED, or
 * SOURCE_ERROR when the time ran out or the target is gone (err says).
 */
enum source_status reconnect_now(struct reconnect *rc, char *err,
    size_t errlen);

#endif
