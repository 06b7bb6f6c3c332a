/*
 * --explain: one reading of the gap (gap_read(): the server's layers and,
 * when the pid it gives is its process on this machine, /proc/PID and its
 * memory cgroup) and of its jemalloc heap profile when it has one
 * (heap_read_summary()), the answer worked out by explain_model.c and
 * written by explain_out.c.
 */
#include <stdio.h>
#include <string.h>

#include "capture.h"
#include "exitcode.h"
#include "explain.h"
#include "explain_out.h"
#include "gap.h"
#include "heap.h"
#include "obuf.h"

/* A part the server did not give: a warning, the part left out. */
static void
warn_part(void *ctx, const char *msg)
{
	(void)ctx;
	diag_say("warning: %s; that part of the answer is left out", msg);
}

int
explain_read(const struct capture_env *env, struct explain_reading *r)
{
	struct clock sys = clock_system();
	const struct clock *clk = env->clk != NULL ? env->clk : &sys;
	char err[1024];

	if (gap_read(env->session, (struct gap_roots){ .proc = env->proc,
	    .sys = env->sys }, clk, r, warn_part, NULL, err,
	    sizeof(err)) != 0) {
		if (env->sig->stop)
			return EXIT_DONE;
		diag_say("%s", err);
		return EXIT_RUNTIME;
	}
	if (r->has_process && r->proc.why[0] != '\0')
		diag_note(env->diag, "%s: %s", r->proc.why, r->proc.known ?
		    "the resident figures of its regions are unknown" :
		    "the allocator and its arenas are unknown");
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
			    "reading of its layers at its end; run "
			    "mysqlmemprof --explain again once it is back");
			return EXIT_RUNTIME;
		}
	}
	/* Stopped during the reading: no answer, as Ctrl-C before a list. */
	if ((rc = explain_read(env, &r)) != 0 || env->sig->stop)
		return rc;
	/* The dump is read here, not in gap_read(): once, not a minute. */
	if (r.has_process && heap_read_summary(env, r.wall_ms, &r.heap) != 0 &&
	    r.heap.state == HEAP_FAILED)
		diag_note(env->diag, "no heap profile beside the layers: %s",
		    r.heap.why);
	explain_work(&r, &e);
	for (size_t i = 0; i < e.notes_n; i++)
		diag_note(env->diag, "%s", e.notes[i]);
	if (strcmp(env->opts->format->name, "json") == 0)
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
