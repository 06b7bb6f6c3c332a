/*
 * Reconnecting. The backoff starts at 100 ms and doubles up to 5 s, so a
 * restarting server is found within seconds without hammering it, and the
 * whole attempt ends after --reconnect-timeout. A signal ends it at once.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>

#include "reconnect.h"

#define FIRST_BACKOFF_NS (100 * 1000000ull)
#define MAX_BACKOFF_NS (5000 * 1000000ull)
/* Boot times computed from UPTIME wobble by a second or so. */
#define BOOT_SLACK_S 2

static void
tell(struct reconnect *rc, const char *msg)
{
	if (rc->notify != NULL)
		rc->notify(rc->notify_ctx, msg);
}

/* Tries one connection; returns SOURCE_OK, SOURCE_LOST (retry) or SOURCE_ERROR. */
static enum source_status
try_once(struct reconnect *rc, char *err, size_t errlen)
{
	struct conn *c;
	uint64_t connection_id;
	int64_t boot;

	if (conn_open(&c, rc->params, err, errlen) != CONN_OK)
		return SOURCE_LOST;
	if (pfs_server_boot(c, &boot, err, errlen) != PFS_OK) {
		conn_close(c);
		return SOURCE_LOST;
	}
	/* A summary over many threads outlives a restart; a thread does not. */
	if (rc->thread_id != 0 && (boot > rc->server_boot_s + BOOT_SLACK_S ||
	    boot < rc->server_boot_s - BOOT_SLACK_S)) {
		conn_close(c);
		snprintf(err, errlen, "the server restarted, so thread %" PRIu64
		    " is gone; start a new capture (see --list)", rc->thread_id);
		return SOURCE_ERROR;
	}
	switch (rc->thread_id == 0 ? PFS_OK : pfs_find_thread(c,
	    PFS_BY_THREAD, rc->thread_id, NULL, &connection_id, err, errlen)) {
	case PFS_OK:
		break;
	case PFS_LOST:
		conn_close(c);
		return SOURCE_LOST;
	case PFS_NOT_FOUND:
		snprintf(err, errlen, "thread %" PRIu64 " no longer exists after "
		    "reconnecting; start a new capture (see --list)",
		    rc->thread_id);
		conn_close(c);
		return SOURCE_ERROR;
	default:
		conn_close(c);
		return SOURCE_ERROR;
	}
	conn_close(*rc->conn);
	*rc->conn = c;
	if (rc->reader != NULL)
		pfs_reader_use(rc->reader, c);
	return SOURCE_OK;
}

enum source_status
reconnect_now(struct reconnect *rc, char *err, size_t errlen)
{
	const struct clock *clk = rc->clk;
	uint64_t start = clk->now_ns(clk->ctx);
	uint64_t deadline = start + rc->timeout_ns;
	uint64_t backoff = FIRST_BACKOFF_NS;
	char msg[1200];

	snprintf(msg, sizeof(msg), "%s; reconnecting for up to %" PRIu64 " s",
	    err, rc->timeout_ns / 1000000000u);
	tell(rc, msg);
	for (;;) {
		uint64_t now = clk->now_ns(clk->ctx);
		uint64_t wake = now + backoff < deadline ? now + backoff : deadline;

		/* Woken early: look at *stop, then sleep to the same time. */
		do {
			if (*rc->stop)
				return SOURCE_STOPPED;
		} while (clk->sleep_until(clk->ctx, wake) == EINTR);
		enum source_status st = try_once(rc, err, errlen);
		if (st != SOURCE_LOST)
			return st;
		if (clk->now_ns(clk->ctx) >= deadline) {
			char last[1024];

			snprintf(last, sizeof(last), "%s", err);
			snprintf(err, errlen, "could not reconnect within "
			    "--reconnect-timeout %" PRIu64 " s: %s",
			    rc->timeout_ns / 1000000000u, last);
			return SOURCE_ERROR;
		}
		backoff = backoff * 2 < MAX_BACKOFF_NS ? backoff * 2 :
		    MAX_BACKOFF_NS;
	}
}

static enum source_status
reconnect_read(void *ctx, struct reading *out, char *err, size_t errlen)
{
	struct reconnect *rc = ctx;
	struct source inner = pfs_reader_source(rc->reader);
	enum source_status st;
	uint64_t lost_at;

	st = inner.read(inner.ctx, out, err, errlen);
	if (st != SOURCE_LOST || rc->timeout_ns == 0)
		return st;
	lost_at = rc->clk->now_ns(rc->clk->ctx);
	if ((st = reconnect_now(rc, err, errlen)) != SOURCE_OK)
		return st;
	tell(rc, "reconnected; sampling goes on");
	uint64_t again = rc->clk->now_ns(rc->clk->ctx);
	st = inner.read(inner.ctx, out, err, errlen);
	if (st == SOURCE_OK) {
		out->gap_us = (again - lost_at) / 1000;
		out->started_ns = again; /* the sample is of this read */
	}
	return st;
}

struct source
reconnect_source(struct reconnect *rc)
{
	return (struct source){ .ctx = rc, .read = reconnect_read };
}
