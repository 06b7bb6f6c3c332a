/*
 * The top threads beside the samples. Read after the sample, so the
 * sample keeps its tick; a failed look is no sample lost: it leaves no
 * threads shown, and the next sample's read says what is wrong.
 */
#include "top_threads.h"

static enum source_status
top_threads_read(void *ctx, uint64_t deadline_ns, struct reading *out,
    char *err, size_t errlen)
{
	struct top_threads *t = ctx;
	enum source_status st = t->inner.read(t->inner.ctx, deadline_ns, out,
	    err, errlen);
	struct session *s = t->session;
	uint64_t now;
	char why[256];

	if (st != SOURCE_OK || t->max == 0)
		return st;
	now = t->clk->now_ns(t->clk->ctx);
	if (!gate_due(&t->gate, now))
		return st;
	gate_arm(&t->gate, now, TOP_THREADS_EVERY_NS);
	if (s->ops->top_threads(s->conn, t->max, t->v, &t->n, why,
	    sizeof(why)) != PFS_OK)
		t->n = 0;
	t->reads++;
	return st;
}

struct source
top_threads_source(struct top_threads *t)
{
	return (struct source){ .ctx = t, .read = top_threads_read };
}
