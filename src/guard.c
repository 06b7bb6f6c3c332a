/*
 * Watching the setup. The look shares the connection of the samples and
 * costs about a third of a millisecond of server time; once a second is
 * enough for a change made by hand to be noticed before anyone reads the
 * capture.
 */
#include <inttypes.h>
#include <stdio.h>

#include "guard.h"

static void
tell(struct guard *g, const char *msg)
{
	if (g->notify != NULL)
		g->notify(g->notify_ctx, msg);
}

/* Says what was switched off since the first look, each thing once. */
static void
compare(struct guard *g, const struct pfs_setup *now)
{
	char msg[600];
	unsigned news;

	g->off = (now->memory_enabled < g->first.memory_enabled ?
	    SETUP_OFF_MEMORY : 0) |
	    (g->first.statements && !now->statements ? SETUP_OFF_STATEMENTS : 0) |
	    (g->first.instrumented == 1 && now->instrumented == 0 ?
	    SETUP_OFF_THREAD : 0);
	news = g->off & ~g->said;
	g->said |= news;
	if (news & SETUP_OFF_MEMORY) {
		snprintf(msg, sizeof(msg), "memory instruments were switched off "
		    "while sampling (%zu of %zu enabled now): later totals leave "
		    "out what they count; enable them again with UPDATE "
		    "performance_schema.setup_instruments SET ENABLED = 'YES' "
		    "WHERE NAME LIKE 'memory/%%'", now->memory_enabled,
		    g->first.memory_enabled);
		tell(g, msg);
	}
	if (news & SETUP_OFF_STATEMENTS) {
		tell(g, "a statements consumer of performance_schema was "
		    "switched off while sampling: later samples carry only the "
		    "text of a running statement, with no id or digest");
		if (g->statements_off != NULL)
			g->statements_off(g->statements_off_ctx);
	}
	if (news & SETUP_OFF_THREAD) {
		snprintf(msg, sizeof(msg), "thread %" PRIu64 " was switched to "
		    "INSTRUMENTED = 'NO' while sampling: its memory is no longer "
		    "counted; UPDATE performance_schema.threads SET INSTRUMENTED "
		    "= 'YES' WHERE THREAD_ID = %" PRIu64 " counts it again",
		    g->thread_id, g->thread_id);
		tell(g, msg);
	}
}

static enum source_status
guard_read(void *ctx, uint64_t deadline_ns, struct reading *out, char *err,
    size_t errlen)
{
	struct guard *g = ctx;
	uint64_t now = g->clk->now_ns(g->clk->ctx);

	if (gate_due(&g->gate, now)) {
		struct session *s = g->session;
		struct pfs_setup setup;
		char why[256];

		/* A look that fails is no reading lost: the read says why. */
		if (s->ops->setup(s->conn, g->thread_id, &setup, why,
		    sizeof(why)) == PFS_OK) {
			if (!g->looked)
				g->first = setup;
			else
				compare(g, &setup);
			g->looked = true;
		}
		gate_arm(&g->gate, now, g->every_ns > 0 ? g->every_ns :
		    GUARD_EVERY_NS);
	}
	enum source_status st = g->inner.read(g->inner.ctx, deadline_ns, out,
	    err, errlen);

	if (st == SOURCE_OK)
		out->setup_off = g->off;
	return st;
}

struct source
guard_source(struct guard *g)
{
	return (struct source){ .ctx = g, .read = guard_read };
}
