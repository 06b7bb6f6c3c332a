/*
 * The server's process beside the samples. Read after the sample, so the
 * sample keeps its tick. A failed read is no sample lost: the figure is
 * absent from that sample, never a guess.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "procfs.h"
#include "resident.h"

static void
note(struct resident *r, const char *why)
{
	char msg[768];

	if (r->noted || r->notify == NULL)
		return;
	r->noted = true;
	snprintf(msg, sizeof(msg), "the server's resident memory is not "
	    "shown: %s; the process_* and untracked_bytes columns are null "
	    "(see THE MEMORY PERFORMANCE_SCHEMA DOES NOT SEE in "
	    "mysqlmemprof(1))", why);
	r->notify(r->notify_ctx, msg);
}

/* The cgroup's figures are absent: once, beside the process's. */
static void
cgroup_note(struct resident *r, const char *why)
{
	char msg[4608];

	if (r->cgroup_noted || r->notify == NULL)
		return;
	r->cgroup_noted = true;
	snprintf(msg, sizeof(msg), "the server's memory cgroup is not shown: "
	    "%s; the cgroup_* columns are null (see THE MEMORY "
	    "PERFORMANCE_SCHEMA DOES NOT SEE in mysqlmemprof(1))", why);
	r->notify(r->notify_ctx, msg);
}

/* The trusted process's memory cgroup and its limits, found anew. */
static void
find_cgroup(struct resident *r)
{
	char dir[sizeof(r->cgroup.dir)], why[sizeof(dir) + 128];

	r->cgroup.dir[0] = '\0';
	if (cgroup_find(r->proc, r->sys, r->pid, dir, sizeof(dir)) == 0 &&
	    cgroup_read_limits(dir, &r->cgroup) == 0)
		return;
	r->cgroup.dir[0] = '\0';
	if (errno == ENOENT)
		snprintf(why, sizeof(why), "process %" PRIu64 " is in no memory "
		    "cgroup found under %s", r->pid, r->sys);
	else
		snprintf(why, sizeof(why), "cannot read the cgroup of process "
		    "%" PRIu64 ": %s", r->pid, strerror(errno));
	cgroup_note(r, why);
}

/*
 * Once per run of the server the session knows (each connect learns its
 * process id and start): whether that id is the server's process here.
 */
static void
check_process(struct resident *r)
{
	const struct pfs_server_id *id = &r->session->server;
	char why[512];

	if (r->has_checked && r->checked.pid == id->pid &&
	    r->checked.boot_s == id->boot_s)
		return;
	r->has_checked = true;
	r->checked = *id;
	r->pid = 0;
	r->cgroup.dir[0] = '\0';
	r->next_cgroup_ns = 0;
	if (procfs_check(r->proc, id->pid, id->boot_s, why, sizeof(why)) ==
	    PROCMEM_TRUSTED)
		r->pid = id->pid;
	else
		note(r, why);
}

/* The server's own count, at most once a second (or status_every_ns); kept between. */
static void
read_status(struct resident *r, struct process_memory *p)
{
	struct session *s = r->session;
	uint64_t now = r->clk->now_ns(r->clk->ctx);
	char err[256];

	if (gate_due(&r->status, now)) {
		gate_arm(&r->status, now, r->status_every_ns > 0 ?
		    r->status_every_ns : RESIDENT_STATUS_EVERY_NS);
		if (s->ops->server_memory(s->conn, &s->kind, &r->status_bytes,
		    &r->has_status, err, sizeof(err)) != PFS_OK)
			r->has_status = false;
	}
	p->has_status = r->has_status;
	p->status_bytes = r->has_status ? r->status_bytes : 0;
}

/*
 * The trusted process's pid and its cgroup's figures into *p: the counters
 * (two or three files), and the folder and limits found again when due.
 */
static void
read_cgroup(struct resident *r, struct process_memory *p)
{
	char why[sizeof(r->cgroup.dir) + 128];
	uint64_t now = r->clk->now_ns(r->clk->ctx);

	p->pid = r->pid;
	if (now >= r->next_cgroup_ns) {
		r->next_cgroup_ns = now + RESIDENT_CGROUP_EVERY_NS;
		find_cgroup(r);
	}
	if (r->cgroup.dir[0] == '\0' || cgroup_read_counts(&r->cgroup, p) == 0)
		return;
	/* Removed: looked for again when next due. */
	snprintf(why, sizeof(why), "cannot read %s: %s", r->cgroup.dir,
	    strerror(errno));
	r->cgroup.dir[0] = '\0';
	cgroup_note(r, why);
}

static enum source_status
resident_read(void *ctx, uint64_t deadline_ns, struct reading *out,
    char *err, size_t errlen)
{
	struct resident *r = ctx;
	enum source_status st = r->inner.read(r->inner.ctx, deadline_ns, out,
	    err, errlen);
	char why[512];

	if (st != SOURCE_OK)
		return st;
	memset(&out->process, 0, sizeof(out->process));
	check_process(r);
	if (r->pid != 0 && procfs_memory(r->proc, r->pid, &out->process) !=
	    0) {
		/* Gone, or no longer ours to read: check again at the next connect. */
		snprintf(why, sizeof(why), "cannot read process %" PRIu64 ": %s",
		    r->pid, strerror(errno));
		r->pid = 0;
		note(r, why);
	}
	if (r->pid != 0)
		read_cgroup(r, &out->process);
	read_status(r, &out->process);
	return st;
}

struct source
resident_source(struct resident *r)
{
	return (struct source){ .ctx = r, .read = resident_read };
}
