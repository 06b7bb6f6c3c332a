/*
 * One reading of the gap (gap.h), and the source that takes it beside the
 * samples. The source reads after the sample, so the sample keeps its
 * tick; a failed reading is no sample lost: the answer before it stays,
 * and the next sample's read says what is wrong with the connection.
 */
#include <stdio.h>
#include <string.h>

#include "cgroup.h"
#include "gap.h"
#include "procfs.h"

/* A part the server did not give: said, and left out. */
static int
part(enum pfs_status ps, bool *has, const char *err,
    void (*warn)(void *ctx, const char *msg), void *warn_ctx)
{
	*has = ps == PFS_OK;
	if (ps == PFS_LOST)
		return -1;
	if (ps != PFS_OK && warn != NULL)
		warn(warn_ctx, err);
	return 0;
}

/* The process and its cgroup, when the server's pid is its process here. */
static void
read_process(const struct session *s, struct gap_roots roots,
    struct explain_reading *r)
{
	const char *proc = roots.proc != NULL ? roots.proc : PROCFS_ROOT;
	const char *sys = roots.sys != NULL ? roots.sys : CGROUP_SYS_ROOT;
	char why[512];

	r->pid = s->server.pid;
	if (procfs_check(proc, s->server.pid, s->server.boot_s, why,
	    sizeof(why)) != PROCMEM_TRUSTED) {
		snprintf(r->process_why, sizeof(r->process_why), "%s", why);
		return;
	}
	/*
	 * Its status is everyone's to read, its maps only its user's and
	 * root's: without them the status's layers still show.
	 */
	if (procfs_layers(proc, s->server.pid, &r->proc) != 0 &&
	    r->proc.rss < 0) {
		snprintf(r->process_why, sizeof(r->process_why), "%s",
		    r->proc.why);
		return;
	}
	r->has_process = true;
	if (cgroup_find(proc, sys, s->server.pid, r->cgroup_dir,
	    sizeof(r->cgroup_dir)) != 0)
		r->cgroup_dir[0] = '\0';
	else
		(void)cgroup_read(r->cgroup_dir, &r->cg);
}

int
gap_read(struct session *s, struct gap_roots roots, const struct clock *clk,
    struct explain_reading *r, void (*warn)(void *ctx, const char *msg),
    void *warn_ctx, char *err, size_t errlen)
{
	const char *version = s->ops->server_version(s->conn);

	memset(r, 0, sizeof(*r));
	snprintf(r->server_version, sizeof(r->server_version), "%s",
	    version != NULL ? version : "");
	r->wall_ms = clk->wall_ms(clk->ctx);
	if (part(s->ops->counted_layers(s->conn, &r->counted, err, errlen),
	    &r->has_counted, err, warn, warn_ctx) != 0 ||
	    part(s->ops->estimate(s->conn, &s->kind, &r->est, err, errlen),
	    &r->has_estimate, err, warn, warn_ctx) != 0 ||
	    part(s->ops->measured_connections(s->conn, &s->kind,
	    &s->conns_way, &r->meas, err, errlen), &r->has_measured, err, warn,
	    warn_ctx) != 0)
		return -1;
	read_process(s, roots, r);
	return 0;
}

static enum source_status
gap_source_read(void *ctx, uint64_t deadline_ns, struct reading *out,
    char *err, size_t errlen)
{
	struct gap *g = ctx;
	enum source_status st = g->inner.read(g->inner.ctx, deadline_ns, out,
	    err, errlen);
	struct explain_reading r;
	uint64_t now, spaced;
	char why[1024];
	int rc;

	if (st != SOURCE_OK)
		return st;
	now = g->clk->now_ns(g->clk->ctx);
	if (!gate_due(&g->gate, now))
		return st;
	rc = gap_read(g->session, g->roots, g->clk, &r, NULL, NULL, why,
	    sizeof(why));
	g->took_ns = g->clk->now_ns(g->clk->ctx) - now;
	spaced = g->took_ns * GAP_SPACING;
	gate_arm(&g->gate, now, spaced > g->every_ns ? spaced : g->every_ns);
	/* The answer before stays whole until a new one is. */
	if (rc != 0)
		return st;
	g->r = r;
	explain_work(&g->r, &g->e);
	g->reads++;
	return st;
}

struct source
gap_source(struct gap *g)
{
	return (struct source){ .ctx = g, .read = gap_source_read };
}
