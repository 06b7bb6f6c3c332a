/*
 * A capture's chain of sources, from the rows' source up (capture_chain.h).
 */
#include <stdint.h>

#include "capture_chain.h"
#include "cgroup.h"
#include "conns.h"
#include "diag.h"
#include "gap.h"
#include "procfs.h"
#include "top_threads.h"

/* The guard saw the statements consumer switched off. */
static void
statements_off(void *ctx)
{
	struct capture_state *c = ctx;

	c->env->session->statements = STATEMENTS_OFF;
	c->env->session->ops->reader_without_statements(c->reader);
	/* The statement kept with the rows has an id no longer read. */
	if (c->total != NULL)
		total_reread(c->total);
}

/*
 * The foot of a thread's chain: its own count each tick, its rows when the
 * count moves (total.h); the rows alone with a grain or --rows-every 0.
 */
static struct source
own_count_chain(struct capture_state *c, struct total *tot,
    struct source rows, const struct sampler_config *cfg,
    const struct clock *clk, uint64_t connection_id)
{
	const struct options *o = c->opts;
	struct session *s = c->env->session;

	if (cfg->thread_id == 0 || o->rows_every_s == 0 ||
	    s->ops->own_count == NULL)
		return rows;
	*tot = (struct total){
		.inner = rows, .session = s, .clk = clk,
		.ids = { .thread_id = cfg->thread_id,
		    .connection_id = connection_id },
		.every_ns = o->rows_every_s * 1000000000ull,
		.moved_bytes = (int64_t)o->rows_moved_bytes,
		.afford_ns = cfg->afford_ns,
		.notify = diag_note_cb, .notify_ctx = (void *)c->env->diag,
	};
	c->total = tot;
	return total_source(tot);
}

/*
 * The sources a mode hands for the whole server (env's conns, gap and
 * top_threads), each over src; those of --global only with global.
 */
static struct source
server_wide_sources(const struct capture_env *env, struct source src,
    const struct clock *clk, bool global)
{
	const struct options *o = env->opts;
	struct session *s = env->session;

	/* Every connection beside the whole server's samples. */
	if (env->conns != NULL && global) {
		struct conns *cs = env->conns;

		cs->inner = src;
		cs->session = s;
		cs->clk = clk;
		cs->notify = diag_note_cb;
		cs->notify_ctx = (void *)env->diag;
		gate_reset(&cs->gate);
		src = conns_source(cs);
	}
	/* The gap in layers beside the whole server's samples (--layers-every). */
	if (env->gap != NULL && o->layers_every_s > 0 && global) {
		struct gap *g = env->gap;

		if (g->every_ns == 0)
			g->every_ns = o->layers_every_s * 1000000000ull;
		g->inner = src;
		g->session = s;
		g->clk = clk;
		g->roots = (struct gap_roots){ .proc = env->proc,
		    .sys = env->sys };
		gate_reset(&g->gate);
		src = gap_source(g);
	}
	/* The server's heap dumps kept (--record), at their slow beat. */
	if (env->heap_keep != NULL && global) {
		struct heap_keep *k = env->heap_keep;

		k->inner = src;
		k->session = s;
		k->clk = clk;
		k->proc = env->proc;
		k->notify = diag_note_cb;
		k->notify_ctx = (void *)env->diag;
		gate_reset(&k->gate);
		src = heap_keep_source(k);
	}
	if (env->top_threads != NULL) {
		struct top_threads *t = env->top_threads;

		t->inner = src;
		t->session = s;
		t->clk = clk;
		gate_reset(&t->gate);
		src = top_threads_source(t);
	}
	return src;
}

struct source
capture_chain_build(struct capture_state *c, struct capture_chain *ch,
    struct source rows,
    const struct sampler_config *cfg, const struct clock *clk,
    const enum pfs_grain *grain, uint64_t connection_id)
{
	const struct capture_env *env = c->env;
	const struct options *o = c->opts;
	const struct stmt_match *found = c->found;
	struct session *s = env->session;
	bool global = grain != NULL && *grain == GRAIN_GLOBAL;
	struct source src;

	ch->recon = (struct reconnect){
		.session = s, .inner = own_count_chain(c, &ch->tot, rows, cfg,
		    clk, grain != NULL ? 0 : connection_id),
		.thread_id = cfg->thread_id, .connection_id = connection_id,
		.timeout_ns = o->reconnect_timeout_s * 1000000000u,
		.clk = clk, .stop = &env->sig->stop,
		.notify = diag_note_cb, .notify_ctx = (void *)env->diag,
	};
	src = reconnect_source(&ch->recon);
	/* --record: the events at a slower beat than the samples. */
	if (env->events_every_ns > 0) {
		ch->bt = (struct beat){ .inner = src, .session = s, .clk = clk,
		    .every_ns = env->events_every_ns };
		src = beat_source(&ch->bt);
	}
	/* The whole server's process is beside the whole server's count. */
	if (global) {
		ch->res = (struct resident){
			.inner = src, .session = s, .clk = clk,
			.status_every_ns = env->events_every_ns,
			.proc = env->proc != NULL ? env->proc : PROCFS_ROOT,
			.sys = env->sys != NULL ? env->sys : CGROUP_SYS_ROOT,
			.notify = diag_note_cb, .notify_ctx = (void *)env->diag,
		};
		src = resident_source(&ch->res);
	}
	/* A thread's statements, each as the server recorded it once ended. */
	if (grain == NULL) {
		ch->fin = (struct finished){
			.inner = src, .session = s, .thread_id = cfg->thread_id,
			.notify = diag_note_cb, .notify_ctx = (void *)env->diag,
		};
		src = finished_source(&ch->fin);
	}
	src = server_wide_sources(env, src, clk, global);
	/* --record's slower beat is the setup's too: its cost is the server's. */
	ch->guard = (struct guard){
		.inner = src, .session = s, .thread_id = cfg->thread_id,
		.clk = clk, .every_ns = env->events_every_ns,
		.notify = diag_warn_cb,
		.statements_off = statements_off, .statements_off_ctx = c,
	};
	src = guard_source(&ch->guard);
	if (found != NULL) {
		c->follow = (struct follow){
			.inner = src, .session = s, .stmt = *found,
			.poll_ns = o->poll_ms * 1000000u, .clk = clk,
			.hold_bytes = (int64_t)o->bigger_than_bytes,
			.hold_ns = o->trigger_hold_s * 1000000000u,
		};
		src = follow_source(&c->follow);
	}
	return src;
}

