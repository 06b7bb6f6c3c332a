/*
 * A sample source that survives the server going away: it wraps another
 * source that reads through a session, and when the connection is lost it
 * reconnects with bounded exponential backoff, checks that the server is
 * still set up for sampling, the same run of it, and the target the same
 * session, refreshes the session in place, and reports how long it could
 * not read.
 */
#ifndef MYSQLMEMPROF_RECONNECT_H
#define MYSQLMEMPROF_RECONNECT_H

#include <signal.h>
#include <stdint.h>

#include "clock.h"
#include "session.h"
#include "source.h"

struct reconnect {
	struct session *session;   /* refreshed in place on reconnect */
	struct source inner;       /* reads through session->conn; unused by reconnect_now() */
	uint64_t thread_id;        /* the target; 0: none (a grain, or waiting) */
	uint64_t connection_id;    /* the target's; 0: a background thread */
	uint64_t timeout_ns;       /* give up after this long; 0: never reconnect */
	const struct clock *clk;
	volatile sig_atomic_t *stop;
	/* Called with a progress note ("lost ...; reconnecting"); may be NULL. */
	void (*notify)(void *ctx, const char *msg);
	void *notify_ctx;
};

/*
 * The one policy of every wait before connecting again: a capture's
 * reconnect, waiting's (wait.c, through reconnect_now()) and the
 * exporter's next capture. The first wait is short, so a restarting
 * server is found within a second; each is twice the last, up to a few
 * seconds, so a server that stays down is not hammered.
 */
#define RECONNECT_FIRST_NS (100 * 1000000ull)
#define RECONNECT_MAX_NS (5000 * 1000000ull)

/* The wait after one of wait_ns (0: none yet, the first). */
uint64_t reconnect_backoff(uint64_t wait_ns);

struct source reconnect_source(struct reconnect *rc);

/*
 * Reconnects now, err saying what was lost: SOURCE_OK, SOURCE_STOPPED, or
 * SOURCE_ERROR when the time ran out or the target is gone (err says).
 */
enum source_status reconnect_now(struct reconnect *rc, char *err,
    size_t errlen);

#endif
