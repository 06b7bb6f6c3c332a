/*
 * --explain: one reading of the server (the session's counted_layers,
 * estimate and measured_connections) and, when the pid it gives is its
 * process on this machine (procfs_check(), as --global's resident
 * figures), of /proc/PID (procfs_layers()) and its memory cgroup; the
 * answer worked out by explain_model.c and written by explain_out.c.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "capture.h"
#include "cgroup.h"
#include "exitcode.h"
#include "explain.h"
#include "explain_out.h"
#include "obuf.h"
#include "procfs.h"

/*
 * A part the server did not give: the connection lost ends the reading
 * (1); any other failure is a note, the part left out (0).
 */
static int
part_failed(const struct capture_env *env, enum pfs_status ps,
    const char *err)
{
	if (env->sig->stop)
		return EXIT_DONE;
	if (ps == PFS_LOST) {
		diag_say("%s", err);
		return EXIT_RUNTIME;
	}
	diag_say("warning: %s; that part of the answer is left out", err);
	return -1;
}

static int
read_server(const struct capture_env *env, struct explain_reading *r)
{
	struct session *s = env->session;
	enum pfs_status ps;
	char err[1024];
	int rc;

	ps = s->ops->counted_layers(s->conn, &r->counted, err, sizeof(err));
	if (ps != PFS_OK && (rc = part_failed(env, ps, err)) >= 0)
		return rc;
	r->has_counted = ps == PFS_OK;
	ps = s->ops->estimate(s->conn, &s->kind, &r->est, err, sizeof(err));
	if (ps != PFS_OK && (rc = part_failed(env, ps, err)) >= 0)
		return rc;
	r->has_estimate = ps == PFS_OK;
	ps = s->ops->measured_connections(s->conn, &s->kind, &s->conns_way,
	    &r->meas, err, sizeof(err));
	if (ps != PFS_OK && (rc = part_failed(env, ps, err)) >= 0)
		return rc;
	r->has_measured = ps == PFS_OK;
	return 0;
}

/* The process and its cgroup, when the server's pid is its process here. */
static void
read_process(const struct capture_env *env, struct explain_reading *r)
{
	const struct pfs_server_id *id = &env->session->server;
	const char *proc = env->proc != NULL ? env->proc : PROCFS_ROOT;
	const char *sys = env->sys != NULL ? env->sys : CGROUP_SYS_ROOT;
	char why[512];

	r->pid = id->pid;
	if (procfs_check(proc, id->pid, id->boot_s, why, sizeof(why)) !=
	    PROCMEM_TRUSTED) {
		snprintf(r->process_why, sizeof(r->process_why), "%s", why);
		return;
	}
	/*
	 * Its status is everyone's to read, its maps only its user's and
	 * root's: without them the status's layers still show.
	 */
	if (procfs_layers(proc, id->pid, &r->proc) != 0 && r->proc.rss < 0) {
		snprintf(r->process_why, sizeof(r->process_why), "%s",
		    r->proc.why);
		return;
	}
	r->has_process = true;
	if (r->proc.why[0] != '\0')
		diag_note(env->diag, "%s: %s", r->proc.why, r->proc.known ?
		    "the resident figures of its regions are unknown" :
		    "the allocator and its arenas are unknown");
	if (cgroup_find(proc, sys, id->pid, r->cgroup_dir,
	    sizeof(r->cgroup_dir)) != 0)
		r->cgroup_dir[0] = '\0';
	else
		(void)cgroup_read(r->cgroup_dir, &r->cg);
}

int
explain_read(const struct capture_env *env, struct explain_reading *r)
{
	struct session *s = env->session;
	struct clock sys = clock_system();
	const struct clock *clk = env->clk != NULL ? env->clk : &sys;
	int rc;

	memset(r, 0, sizeof(*r));
	r->server_version = s->ops->server_version(s->conn);
	r->mariadb = s->kind.flavour == SERVER_MARIADB;
	r->wall_ms = clk->wall_ms(clk->ctx);
	if ((rc = read_server(env, r)) != 0)
		return rc;
	read_process(env, r);
	return 0;
}

/* With --count or --duration: a run of --global first, the answer at its end. */
static bool
after_a_run(const struct options *o)
{
	return o->count > 0 || o->duration_s > 0;
}

int
explain_run(const struct capture_env *env)
{
	struct explain_reading r;
	struct explain e;
	struct obuf b = { 0 };
	struct outfile *f = env->out;
	int rc;

	if (after_a_run(env->opts)) {
		rc = capture_run(env, NULL, 0, NULL);
		if (rc != EXIT_DONE || env->sig->stop)
			return rc;
		if (env->session->conn == NULL) {
			diag_say("the server went away during the run: no "
			    "reading of its layers at its end");
			return EXIT_RUNTIME;
		}
	}
	if ((rc = explain_read(env, &r)) != 0)
		return rc;
	explain_work(&r, &e);
	for (size_t i = 0; i < e.notes_n; i++)
		diag_note(env->diag, "%s", e.notes[i]);
	if (env->opts->format->name[0] == 'j')
		explain_json(&b, &r, &e);
	else
		explain_text(&b, &r, &e, env->opts->exact_bytes);
	rc = EXIT_DONE;
	if (obuf_status(&b) != 0) {
		diag_say("out of memory writing the answer");
		rc = EXIT_RUNTIME;
	} else if (outfile_open(f) != 0)
		rc = EXIT_RUNTIME;
	else if (fwrite(b.p, 1, b.len, f->out.fp) != b.len ||
	    output_status(f->out.fp) != 0)
		rc = outfile_failed(f);
	obuf_free(&b);
	return rc;
}
