/*
 * One capture: the target resolved, the ring made, the sampler run with
 * every sample going through the flight recorder to the output, and the
 * summary written.
 */
#include <inttypes.h>
#include <string.h>

#include "app_internal.h"
#include "outname.h"
#include "reconnect.h"
#include "sampler.h"

/* Finds the thread to sample; returns 0 or an exit status. */
static int
resolve_target(struct app *a, uint64_t *thread_id, uint64_t *connection_id)
{
	const struct options *o = &a->opts;
	char err[1024];
	enum pfs_status st;

	/* run_wait() found it, and left out our own thread. */
	if (a->follow != NULL) {
		*thread_id = a->follow->stmt.thread_id;
		*connection_id = a->follow->stmt.connection_id;
		return 0;
	}
	st = pfs_find_thread(a->conn, o->target == TARGET_CONNECTION ?
	    PFS_BY_CONNECTION : PFS_BY_THREAD, o->target_id, thread_id,
	    connection_id, err, sizeof(err));
	if (st != PFS_OK) {
		say("%s", err);
		return EXIT_RUNTIME;
	}
	if (*thread_id == a->own_thread) {
		say("thread %" PRIu64 " is mysqlmemprof's own connection; give "
		    "the thread of another session (see --list)", *thread_id);
		return EXIT_USAGE;
	}
	return 0;
}

/*
 * Says so when the ring for --window and --top would pass RING_LIMIT_BYTES;
 * `all` is the number of memory instruments, 0 while it is not known.
 */
bool
ring_too_big(const struct options *o, size_t all)
{
	size_t events = sampler_max_events(o->top, all);
	size_t per_sample = RING_LIMIT_BYTES / o->window;

	if (per_sample >= sizeof(struct sample) && events <= (per_sample -
	    sizeof(struct sample)) / sizeof(struct event_stat))
		return false;
	say("--window %zu with %zu events per sample needs more than %zu MiB; "
	    "lower --window or --top", o->window, events, RING_LIMIT_BYTES >> 20);
	return true;
}

static struct ring *
make_ring(struct app *a)
{
	const struct options *o = &a->opts;
	size_t events = sampler_max_events(o->top, a->instruments);
	struct ring *r;

	if ((r = ring_create(o->window, events > 0 ? events : 1)) == NULL)
		say("out of memory for a window of %zu samples", o->window);
	return r;
}

/*
 * Writes the format's header once per output. Before each capture of
 * --wait-for, text gets a heading that says which statement follows; CSV
 * and JSON rows tell captures apart by thread_id and sample.
 */
static int
begin_capture(struct app *a)
{
	const struct stmt_match *m;

	if (a->out_captures++ == 0 && output_begin(&a->out) != 0)
		return -1;
	if (a->follow == NULL)
		return 0;
	m = &a->follow->stmt;
	return output_capture(&a->out, &(struct output_capture){
		.number = a->capture_no, .started_s = (int64_t)time(NULL),
		.connection_id = m->connection_id, .thread_id = m->thread_id,
		.running_s = m->time_s, .text = m->text,
	});
}

/* Says why a capture of --wait-for ended. */
static void
note_capture_end(const struct app *a, const struct sampler_stats *stats)
{
	const char *why;

	switch (stats->end) {
	case SAMPLER_END_GONE:
		why = a->follow->end == FOLLOW_FINISHED ?
		    "the statement finished" : "the connection closed";
		break;
	case SAMPLER_END_COUNT:
		why = "--count reached";
		break;
	case SAMPLER_END_DURATION:
		why = "--duration reached";
		break;
	case SAMPLER_END_STOPPED:
		why = "interrupted";
		break;
	default:
		return; /* an error, said already */
	}
	note(a, "capture %" PRIu64 " ended (%s): connection %" PRIu64 ", %"
	    PRIu64 " samples", a->capture_no, why,
	    a->follow->stmt.connection_id, stats->taken);
}

/* SIGUSR1: writes the samples held, at once. */
static int
answer_dump(void *ctx)
{
	struct app *a = ctx;
	size_t n;

	if (!dump_requested)
		return 0;
	dump_requested = 0;
	if (recorder_dump(&a->rec, &n) != 0)
		return -1;
	if (a->opts.trigger_bytes > 0)
		note(a, "SIGUSR1: %zu held sample%s written", n, n == 1 ? "" :
		    "s");
	return 0;
}

static int
sink_sample(void *ctx, const struct sample *s)
{
	struct app *a = ctx;

	if (reopen_requested && reopen_output(a) != 0)
		return -1;
	if (recorder_sample(&a->rec, s) != 0)
		return -1;
	return answer_dump(a);
}

/* Says once when samples will have no statement ids, and how to fix it. */
static void
check_statements(struct app *a)
{
	char msg[1024];

	if (a->statements_checked)
		return;
	a->statements_checked = true;
	switch (pfs_check_statements(a->conn, msg, sizeof(msg))) {
	case PFS_OK:
		return;
	case PFS_DISABLED:
		a->statements_off = true;
		break;
	default:
		break; /* a failed check: the reader will say what is wrong */
	}
	note(a, "%s", msg);
}

/* With --trigger-bytes, what is held and how to have it written. */
static void
note_trigger(const struct app *a, const struct sampler_stats *stats)
{
	const struct options *o = &a->opts;

	if (o->trigger_bytes == 0)
		return;
	if (stats == NULL)
		note(a, "writing nothing until the thread total reaches "
		    "%" PRIu64 " bytes (--trigger-bytes), then the last %zu "
		    "samples up to that one; kill -USR1 %ld writes the samples "
		    "held",
		    o->trigger_bytes, o->window, (long)getpid());
	else if (a->rec.crossings == 0)
		note(a, "the thread total never reached --trigger-bytes "
		    "%" PRIu64 " in %" PRIu64 " samples; %" PRIu64 " written on "
		    "SIGUSR1", o->trigger_bytes, stats->taken, a->rec.written);
}

void
note_cb(void *ctx, const char *msg)
{
	note(ctx, "%s", msg);
}

/* The grain of --global and --for-*; false for a thread. */
static bool
target_grain(const struct options *o, enum pfs_grain *g)
{
	switch (o->target) {
	case TARGET_GLOBAL: *g = GRAIN_GLOBAL; return true;
	case TARGET_USER: *g = GRAIN_USER; return true;
	case TARGET_HOST: *g = GRAIN_HOST; return true;
	case TARGET_ACCOUNT: *g = GRAIN_ACCOUNT; return true;
	default: return false;
	}
}

/*
 * Checks that the grain has rows and names it for the output ("global",
 * "user:app", "host:localhost", "account:app@localhost").
 */
static int
check_grain(struct app *a, enum pfs_grain g)
{
	const struct options *o = &a->opts;
	char err[1024];

	if (pfs_check_grain(a->conn, g, o->grain_user, o->grain_host, err,
	    sizeof(err)) != PFS_OK) {
		say("%s", err);
		return EXIT_RUNTIME;
	}
	if (g == GRAIN_GLOBAL)
		snprintf(a->grain, sizeof(a->grain), "global");
	else if (g == GRAIN_USER)
		snprintf(a->grain, sizeof(a->grain), "user:%s", o->grain_user);
	else if (g == GRAIN_HOST)
		snprintf(a->grain, sizeof(a->grain), "host:%s", o->grain_host);
	else
		snprintf(a->grain, sizeof(a->grain), "account:%s@%s",
		    o->grain_user, o->grain_host);
	a->out.grain = a->grain;
	return 0;
}

int
run_sampling(struct app *a)
{
	const struct options *o = &a->opts;
	struct sampler_config cfg = {
		.interval_ns = o->frequency_ms * 1000000u,
		.count = o->count,
		.duration_ns = o->duration_s * 1000000000u,
		.top = o->top,
	};
	struct pfs_reader *reader = NULL;
	struct reconnect recon;
	struct sampler_stats stats;
	struct summary sum;
	struct ring *ring;
	struct clock clk = clock_system();
	struct source src;
	uint64_t connection_id = 0;
	char err[1024] = "";
	int rc;

	enum pfs_grain grain;
	bool is_grain = target_grain(o, &grain);

	if (is_grain)
		rc = check_grain(a, grain);
	else
		rc = resolve_target(a, &cfg.thread_id, &connection_id);
	if (rc != 0)
		return rc;
	a->filter = (struct event_filter){
		.include = o->include_events, .n_include = o->n_include_events,
		.exclude = o->exclude_events, .n_exclude = o->n_exclude_events,
	};
	cfg.filter = &a->filter;
	a->out.filtered = filter_active(&a->filter);
	if (ring_too_big(o, a->instruments))
		return EXIT_USAGE;
	if ((ring = make_ring(a)) == NULL)
		return EXIT_RUNTIME;
	if (!is_grain)
		check_statements(a);
	recorder_init(&a->rec, &a->out, ring, (int64_t)o->trigger_bytes,
	    o->trigger_hold_s * 1000000u);
	cfg.wake = answer_dump;
	dump_requested = 0;
	reader = is_grain ? pfs_reader_create_grain(a->conn, grain,
	    o->grain_user, o->grain_host) :
	    pfs_reader_create(a->conn, cfg.thread_id);
	if (reader == NULL) {
		say("out of memory");
		ring_free(ring);
		return EXIT_RUNTIME;
	}
	if (a->statements_off)
		pfs_reader_without_statements(reader);
	recon = (struct reconnect){
		.conn = &a->conn, .params = &a->params, .reader = reader,
		.thread_id = cfg.thread_id,
		.timeout_ns = o->reconnect_timeout_s * 1000000000u,
		.server_boot_s = a->server_boot_s, .clk = &clk,
		.stop = &stop_requested, .notify = note_cb,
		.notify_ctx = a,
	};
	src = reconnect_source(&recon);
	if (a->follow != NULL) {
		a->follow->inner = src;
		a->follow->conn = &a->conn;
		a->follow->clk = &clk;
		src = follow_source(a->follow);
	}
	if (open_output(a) != 0) {
		rc = EXIT_RUNTIME;
		goto done;
	}
	char what[700];
	if (is_grain)
		snprintf(what, sizeof(what), "%s", a->grain);
	else if (connection_id != 0)
		snprintf(what, sizeof(what), "thread %" PRIu64 " (connection "
		    "%" PRIu64 ")", cfg.thread_id, connection_id);
	else
		snprintf(what, sizeof(what), "thread %" PRIu64 " (a background "
		    "thread)", cfg.thread_id);
	const char *cipher = conn_cipher(a->conn);
	char own[64] = "";
	/* While waiting for statements, the waiting note said it already. */
	if (a->follow == NULL)
		snprintf(own, sizeof(own), "; our own thread is %" PRIu64,
		    a->own_thread);
	note(a, "sampling %s every %" PRIu64 " ms on %s%s%s%s", what,
	    o->frequency_ms, conn_server_version(a->conn),
	    cipher != NULL ? " over TLS " : "", cipher != NULL ? cipher : "",
	    own);
	if (begin_capture(a) != 0) {
		rc = write_failed(a);
		goto done;
	}

	note_trigger(a, NULL);
	sampler_run(&cfg, &src, &clk, ring, sink_sample, a, &stop_requested,
	    &stats, err, sizeof(err));
	note_trigger(a, &stats);

	rc = EXIT_DONE;
	switch (stats.end) {
	case SAMPLER_END_SINK_ERROR:
		rc = write_failed(a);
		goto done;
	case SAMPLER_END_SOURCE_ERROR:
		say("%s; the %" PRIu64 " samples taken are written", err,
		    stats.taken);
		rc = EXIT_RUNTIME;
		break;
	case SAMPLER_END_GONE:
		if (a->follow == NULL)
			note(a, "thread %" PRIu64 " ended after %" PRIu64
			    " samples", cfg.thread_id, stats.taken);
		break;
	default:
		break;
	}
	if (a->follow != NULL)
		note_capture_end(a, &stats);
	if (stats.skipped > 0)
		note(a, "%" PRIu64 " tick%s skipped: a sample, or a reconnect, "
		    "took longer than --frequency %" PRIu64 " ms", stats.skipped,
		    stats.skipped == 1 ? "" : "s", o->frequency_ms);
	if (summary_build(ring, stats.skipped, &sum) != 0) {
		say("out of memory building the summary");
		rc = EXIT_RUNTIME;
		goto done;
	}
	sum.thread_id = cfg.thread_id;
	if (output_end(&a->out, &sum) != 0 && rc == EXIT_DONE)
		rc = write_failed(a);
	summary_free(&sum);
done:
	pfs_reader_free(reader);
	ring_free(ring);
	return rc;
}
