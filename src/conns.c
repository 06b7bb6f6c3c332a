/*
 * Every connection beside the samples of --global. Read after the
 * sample, so the sample keeps its tick; a failed read is no sample lost:
 * it leaves no connections shown and no new reading, and the next
 * sample's read says what is wrong; a lost connection is said at once.
 */
#include <stdio.h>
#include <stdlib.h>

#include "conns.h"
#include "session.h"

/* The one note of a run on MariaDB without PROCESS: what it costs, the fix. */
static void
note_no_process(struct conns *c)
{
	if (c->noted || c->notify == NULL)
		return;
	c->noted = true;
	c->notify(c->notify_ctx, "every connection is read by summing "
	    "performance_schema's memory rows of every thread, so only every "
	    "30 s and with no peaks: information_schema.PROCESSLIST, the "
	    "server's own count, shows other accounts' sessions only to an "
	    "account with the PROCESS privilege (GRANT PROCESS ON *.* TO the "
	    "account mysqlmemprof connects as)");
}

static enum source_status
conns_read(void *ctx, uint64_t deadline_ns, struct reading *out, char *err,
    size_t errlen)
{
	struct conns *c = ctx;
	enum source_status st = c->inner.read(c->inner.ctx, deadline_ns, out,
	    err, errlen);
	struct session *s = c->session;
	int64_t now_ms;
	uint64_t now;
	enum pfs_status ps;
	char why[256];

	if (st != SOURCE_OK)
		return st;
	now = c->clk->now_ns(c->clk->ctx);
	if (!gate_due(&c->gate, now))
		return st;
	now_ms = c->clk->wall_ms(c->clk->ctx);
	if ((ps = s->ops->connections(s->conn, &s->kind, now_ms,
	    &s->conns_way, &c->list, why, sizeof(why))) != PFS_OK) {
		c->v = c->list.v;
		c->n = 0;
		/* The dear way stays at its beat, failed or not. */
		gate_arm(&c->gate, now, s->conns_way == CONNS_NO_PROCESS ?
		    CONNS_SLOW_NS : 0);
		if (!c->failed_noted && c->notify != NULL && ps != PFS_LOST) {
			char msg[400];

			c->failed_noted = true;
			snprintf(msg, sizeof(msg), "the connections could not be "
			    "read: %s; the record goes on without them", why);
			c->notify(c->notify_ctx, msg);
		}
		/*
		 * Lost: said now, not at the next read of the events, which
		 * may come at a slower beat (beat.h): the record's incident
		 * is written at once.
		 */
		if (ps == PFS_LOST) {
			snprintf(err, errlen, "%s", why);
			return SOURCE_LOST;
		}
		return st;
	}
	c->v = c->list.v;
	c->n = c->list.n;
	c->read_ms = now_ms;
	c->reads++;
	gate_reset(&c->gate);
	if (s->conns_way == CONNS_NO_PROCESS) {
		note_no_process(c);
		gate_arm(&c->gate, now, CONNS_SLOW_NS);
	}
	return st;
}

struct source
conns_source(struct conns *c)
{
	return (struct source){ .ctx = c, .read = conns_read };
}

void
conns_free(struct conns *c)
{
	free(c->list.v);
	c->list = (struct conn_list){ 0 };
	c->v = NULL;
	c->n = 0;
}
