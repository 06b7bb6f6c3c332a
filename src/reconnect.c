/*
 * Reconnecting. The backoff is reconnect_backoff()'s (reconnect.h), and
 * the whole attempt ends after --reconnect-timeout. A signal ends it at
 * once.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>

#include "reconnect.h"

/* Boot times computed from UPTIME wobble by a second or so. */
#define BOOT_SLACK_S 2

uint64_t
reconnect_backoff(uint64_t wait_ns)
{
	if (wait_ns == 0)
		return RECONNECT_FIRST_NS;
	return wait_ns < RECONNECT_MAX_NS / 2 ? wait_ns * 2 : RECONNECT_MAX_NS;
}

static void
tell(struct reconnect *rc, const char *msg)
{
	if (rc->notify != NULL)
		rc->notify(rc->notify_ctx, msg);
}

/* Whether id is another run of the server than the one the session knew. */
static bool
restarted(const struct session *s, const struct pfs_server_id *id)
{
	if (s->server.pid != 0 && id->pid != 0 && s->server.pid != id->pid)
		return true;
	return id->boot_s > s->server.boot_s + BOOT_SLACK_S ||
	    id->boot_s < s->server.boot_s - BOOT_SLACK_S;
}

/*
 * What the new connection finds, before it replaces the old one: the
 * server still set up for sampling, and for a thread, the same run of the
 * server and the same session on that thread.
 */
static enum pfs_status
check(struct reconnect *rc, struct conn *c, struct pfs_preflight *pf,
    char *err, size_t errlen)
{
	const struct session_ops *ops = rc->session->ops;
	uint64_t connection_id;
	enum pfs_status st;

	if ((st = ops->preflight(c, pf, err, errlen)) != PFS_OK)
		return st;
	if (rc->thread_id != 0) {
		/* A summary over many threads outlives a restart; a thread does not. */
		if (restarted(rc->session, &pf->server)) {
			snprintf(err, errlen, "the server restarted, so thread %"
			    PRIu64 " is gone; start a new capture (see --list)",
			    rc->thread_id);
			return PFS_NOT_ALLOWED;
		}
		st = ops->find_thread(c, PFS_BY_THREAD, rc->thread_id, NULL,
		    &connection_id, err, errlen);
		if (st == PFS_NOT_FOUND)
			snprintf(err, errlen, "thread %" PRIu64 " no longer "
			    "exists after reconnecting; start a new capture "
			    "(see --list)", rc->thread_id);
		if (st != PFS_OK)
			return st;
		if (connection_id != rc->connection_id) {
			snprintf(err, errlen, "thread %" PRIu64 " is another "
			    "session after reconnecting (connection %" PRIu64
			    ", not %" PRIu64 "); start a new capture (see "
			    "--list)", rc->thread_id, connection_id,
			    rc->connection_id);
			return PFS_NOT_ALLOWED;
		}
	}
	return PFS_OK;
}

/* Lowers *timeout_s to the whole seconds from now to until (0: none), and one. */
static void
cap_timeout(unsigned *timeout_s, uint64_t now, uint64_t until)
{
	if (until > now && (until - now) / 1000000000u < *timeout_s)
		*timeout_s = (unsigned)((until - now) / 1000000000u) + 1;
}

/*
 * Tries one connection, waiting on the server no later than until, or
 * for its queries run_end (0: none), give or take a second; returns SOURCE_OK, SOURCE_LOST (retry) or
 * SOURCE_ERROR. On success the session holds the new connection and our
 * new thread.
 */
static enum source_status
try_once(struct reconnect *rc, uint64_t until, uint64_t run_end, char *err,
    size_t errlen)
{
	struct session *s = rc->session;
	struct conn_params p = s->params;
	struct pfs_preflight pf;
	struct conn *c;
	uint64_t now = rc->clk->now_ns(rc->clk->ctx);
	enum pfs_status st;

	/*
	 * A server that accepts and then says nothing would hold a try for
	 * the whole --connect-timeout: no try outlasts the time left. A
	 * connection made for a run about to end answers by its end.
	 */
	cap_timeout(&p.connect_timeout_s, now, until);
	cap_timeout(&p.read_timeout_s, now, run_end);
	/* Kept for the mode: CONN_UNTRUSTED ends it with a status its own. */
	switch ((s->opened = s->ops->open(&c, &p, err, errlen))) {
	case CONN_OK:
		break;
	case CONN_UNTRUSTED:
		/* Another server: trying again cannot help, nor can the mode. */
		return SOURCE_ERROR;
	default:
		return SOURCE_LOST;
	}
	if ((st = check(rc, c, &pf, err, errlen)) != PFS_OK) {
		s->ops->close(c);
		/* What may pass is tried again; a definite answer ends it. */
		return st == PFS_LOST || st == PFS_ERROR ? SOURCE_LOST :
		    SOURCE_ERROR;
	}
	s->ops->close(s->conn);
	s->conn = c;
	s->own_thread = pf.own_thread;
	/* An upgrade may have come with a restart, a limit with SET GLOBAL. */
	s->kind = pf.kind;
	s->sample_scans_threads = pf.sample_scans_threads;
	s->limits_read = false;
	s->conns_way = CONNS_UNKNOWN; /* privileges may have changed too */
	/*
	 * With a thread, the boot time it was found under stays the one to
	 * compare with, so the slack cannot walk away over many reconnects.
	 * Without one, the server may have restarted: its new run counts.
	 */
	if (rc->thread_id == 0)
		s->server = pf.server;
	return SOURCE_OK;
}

/* --reconnect-timeout has passed: err, the last failure, says so. */
static enum source_status
timed_out(const struct reconnect *rc, char *err, size_t errlen)
{
	char last[1024];

	snprintf(last, sizeof(last), "%s", err);
	snprintf(err, errlen, "could not reconnect within --reconnect-timeout "
	    "%" PRIu64 " s: %s", rc->timeout_ns / 1000000000u, last);
	return SOURCE_ERROR;
}

/*
 * Tries until give_up (the end of --reconnect-timeout since the first
 * loss) or, sooner, until the run's time is up at run_end (0: none), when
 * it returns SOURCE_SKIPPED: the reading is lost, the run ends on time.
 */
static enum source_status
reconnect_until(struct reconnect *rc, uint64_t give_up, uint64_t run_end,
    char *err, size_t errlen)
{
	const struct clock *clk = rc->clk;
	uint64_t deadline = run_end != 0 && run_end < give_up ? run_end : give_up;
	uint64_t backoff = reconnect_backoff(0);
	uint64_t start = clk->now_ns(clk->ctx);
	uint64_t left = give_up > start ? give_up - start : 0;
	char msg[1200];

	snprintf(msg, sizeof(msg), "%s; reconnecting for up to %" PRIu64 " s",
	    err, (left + 500000000u) / 1000000000u);
	tell(rc, msg);
	for (;;) {
		uint64_t now = clk->now_ns(clk->ctx);
		uint64_t wake = now + backoff < deadline ? now + backoff : deadline;

		/* Woken early: look at *stop, then sleep to the same time. */
		do {
			if (*rc->stop)
				return SOURCE_STOPPED;
		} while (clk->sleep_until(clk->ctx, wake) == EINTR);
		enum source_status st = try_once(rc, deadline, run_end, err,
		    errlen);
		if (st != SOURCE_LOST)
			return st;
		if (clk->now_ns(clk->ctx) >= deadline) {
			char last[1024];

			if (deadline == give_up)
				return timed_out(rc, err, errlen);
			snprintf(last, sizeof(last), "%s", err);
			snprintf(err, errlen, "the run's time was up while "
			    "reconnecting: %s", last);
			return SOURCE_SKIPPED;
		}
		backoff = reconnect_backoff(backoff);
	}
}

enum source_status
reconnect_now(struct reconnect *rc, char *err, size_t errlen)
{
	return reconnect_until(rc, rc->clk->now_ns(rc->clk->ctx) +
	    rc->timeout_ns, 0, err, errlen);
}

/*
 * A loss right after a reconnect is the same outage: the time to reconnect
 * counts from the first loss, and the connection is tried again until it
 * is up or that time has passed.
 */
static enum source_status
reconnect_read(void *ctx, uint64_t deadline_ns, struct reading *out,
    char *err, size_t errlen)
{
	struct reconnect *rc = ctx;
	const struct clock *clk = rc->clk;
	struct source inner = rc->inner;
	enum source_status st;
	uint64_t lost_at, again;

	st = inner.read(inner.ctx, deadline_ns, out, err, errlen);
	if (st != SOURCE_LOST || rc->timeout_ns == 0)
		return st;
	lost_at = clk->now_ns(clk->ctx);
	for (;;) {
		st = reconnect_until(rc, lost_at + rc->timeout_ns, deadline_ns,
		    err, errlen);
		if (st != SOURCE_OK)
			return st;
		tell(rc, "reconnected; sampling goes on");
		again = clk->now_ns(clk->ctx);
		st = inner.read(inner.ctx, deadline_ns, out, err, errlen);
		if (st != SOURCE_LOST)
			break;
		if (clk->now_ns(clk->ctx) >= lost_at + rc->timeout_ns)
			return timed_out(rc, err, errlen);
	}
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
