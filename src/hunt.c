/*
 * The hunt: look.c looks, follow.c follows, capture.c captures, and this file
 * goes round between them, reconnecting when the server goes away while
 * nothing is followed.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "clock.h"
#include "exitcode.h"
#include "history.h"
#include "reconnect.h"
#include "units.h"
#include "hunt.h"
#include "scrub.h"
#include "look.h"

/*
 * Whether --bigger-than takes a connection that holds the size idle too:
 * unless --running-only, or --wait-for, which names a statement, says not.
 */
static bool
holders_too(const struct options *o)
{
	return o->bigger_than_bytes > 0 && !o->running_only &&
	    o->wait_pattern == NULL;
}

/* "statement like 'X' running at least 5 s of user 'U' in database 'D'". */
static void
describe_wait(const struct options *o, char *buf, size_t size)
{
	char size_buf[32];
	size_t len;

	snprintf(buf, size, "statement");
	if (o->wait_pattern != NULL) {
		len = strlen(buf);
		snprintf(buf + len, size - len, " like '%s'", o->wait_pattern);
	}
	if (o->longer_than_s > 0) {
		len = strlen(buf);
		snprintf(buf + len, size - len, " running at least %" PRIu64
		    " s", o->longer_than_s);
	}
	if (o->bigger_than_bytes > 0) {
		units_bytes((int64_t)o->bigger_than_bytes, size_buf,
		    sizeof(size_buf));
		len = strlen(buf);
		snprintf(buf + len, size - len, " of a connection holding at "
		    "least %s", size_buf);
	}
	if (o->match_user != NULL) {
		len = strlen(buf);
		snprintf(buf + len, size - len, " of user '%s'", o->match_user);
	}
	if (o->match_db != NULL) {
		len = strlen(buf);
		snprintf(buf + len, size - len, " in database '%s'", o->match_db);
	}
	if (holders_too(o)) {
		len = strlen(buf);
		snprintf(buf + len, size - len, ", or a connection holding it "
		    "idle");
	}
}

/*
 * The connection was lost while waiting: connects again within
 * --reconnect-timeout, as during a capture. No thread is followed yet, so
 * a restarted server is fine. Returns 0, or -1 having said why.
 */
static int
rejoin(const struct capture_env *env, const struct clock *clk, char *err,
    size_t errlen)
{
	struct reconnect rc = {
		.session = env->session,
		.timeout_ns = env->opts->reconnect_timeout_s * 1000000000u,
		.clk = clk, .stop = &env->sig->stop,
		.notify = diag_note_cb, .notify_ctx = (void *)env->diag,
	};

	if (rc.timeout_ns == 0) {
		if (!env->sig->stop)
			diag_say("%s", err);
		return -1;
	}
	switch (reconnect_now(&rc, err, errlen)) {
	case SOURCE_OK:
		diag_note(env->diag, "reconnected; waiting goes on");
		return 0;
	case SOURCE_STOPPED:
		return -1;
	default:
		diag_say("%s", err);
		return -1;
	}
}

/*
 * The readings of m's statement the history holds, as the first samples
 * of its capture; *out is the caller's to free. Returns how many.
 */
static size_t
readings_before(struct history *h, const struct stmt_match *m,
    struct sampler_before **out)
{
	size_t depth = history_depth(h), n;
	const struct history_reading **r = calloc(depth, sizeof(*r));
	struct sampler_before *b;

	*out = NULL;
	if (r == NULL)
		return 0;
	n = history_take(h, m, r, depth);
	if (n == 0 || (b = calloc(n, sizeof(*b))) == NULL) {
		free(r);
		return 0;
	}
	for (size_t i = 0; i < n; i++)
		b[i] = (struct sampler_before){
			.rd = { .events = r[i]->events, .n = r[i]->n,
			    .statement = &r[i]->statement },
			.mono_ns = r[i]->mono_ns, .wall_ms = r[i]->wall_ms,
		};
	free(r);
	*out = b;
	return n;
}

/* The statement was past --bigger-than only between two looks. */
static void
note_between_looks(const struct diag *d, const struct options *o,
    const struct stmt_match *m)
{
	char size[32], peak[32], now[32];

	units_bytes((int64_t)o->bigger_than_bytes, size, sizeof(size));
	units_bytes(m->peak_bytes, peak, sizeof(peak));
	units_bytes(m->current_bytes, now, sizeof(now));
	diag_note(d, "crossed %s between looks, peak %s: its session's peak, "
	    "as the server keeps it, rose since the last look; it holds %s now",
	    size, peak, now);
}

/*
 * The statement had ended past --bigger-than, seen by its own peak: its
 * session's peak was past the size already, so it could not rise.
 */
static void
note_ended(const struct diag *d, const struct options *o,
    const struct stmt_match *m)
{
	char size[32], peak[32], now[32];

	units_bytes((int64_t)o->bigger_than_bytes, size, sizeof(size));
	units_bytes(m->peak_bytes, peak, sizeof(peak));
	units_bytes(m->current_bytes, now, sizeof(now));
	diag_note(d, "crossed %s between looks, peak %s: the statement's own "
	    "peak, as the server kept it when it ended (events_statements_"
	    "history.MAX_TOTAL_MEMORY, event %" PRIu64 "); its session's "
	    "peak was past the size already; the connection holds %s now",
	    size, peak, m->event_id, now);
}

/* ", 45% of connection_memory_limit 64.0 MiB", or "" without a limit. */
static void
of_limit(const struct session *s, int64_t bytes, char *buf, size_t size)
{
	char limit[32];

	buf[0] = '\0';
	if (s->limits.connection <= 0)
		return;
	units_bytes(s->limits.connection, limit, sizeof(limit));
	snprintf(buf, size, ", %.0f%% of connection_memory_limit %s",
	    (double)bytes * 100 / (double)s->limits.connection, limit);
}

/* What was found, and how it was found. */
static void
note_found(const struct capture_env *env, const struct stmt_match *m)
{
	const struct diag *d = env->diag;
	char held[32], limit[128], text[101];

	scrub_oneline(m->text, text, sizeof(text));
	units_bytes(m->current_bytes, held, sizeof(held));
	of_limit(env->session, m->current_bytes, limit, sizeof(limit));
	if (m->ended) {
		units_bytes(m->peak_bytes, held, sizeof(held));
		of_limit(env->session, m->peak_bytes, limit, sizeof(limit));
		diag_note(d, "found connection %" PRIu64 " (thread %" PRIu64
		    ", user %s): a statement that ended before this look, "
		    "after %" PRId64 ".%03" PRId64 " s, peak %s%s: %s",
		    m->connection_id, m->thread_id, m->user,
		    m->duration_ms / 1000, m->duration_ms % 1000, held, limit,
		    text);
		note_ended(d, env->opts, m);
		return;
	}
	if (m->idle)
		diag_note(d, "found connection %" PRIu64 " (thread %" PRIu64
		    ", user %s) idle for %" PRId64 " s, holding %s%s: it runs "
		    "no statement; it is captured until it holds less than "
		    "--bigger-than for --trigger-hold %" PRIu64 " s (--running-"
		    "only leaves such connections out)", m->connection_id,
		    m->thread_id, m->user, m->time_s, held, limit,
		    env->opts->trigger_hold_s);
	else if (m->current_bytes > 0)
		diag_note(d, "found connection %" PRIu64 " (thread %" PRIu64
		    ", user %s) running for %" PRId64 " s, holding %s%s: "
		    "%s", m->connection_id, m->thread_id, m->user,
		    m->time_s, held, limit, text);
	else
		diag_note(d, "found connection %" PRIu64 " (thread %" PRIu64
		    ", user %s) running for %" PRId64 " s: %s",
		    m->connection_id, m->thread_id, m->user, m->time_s,
		    text);
	if (m->between_looks)
		note_between_looks(d, env->opts, m);
}

/* After a capture: whether to wait for another. */
static bool
wait_again(const struct capture_env *env, int rc)
{
	return rc == EXIT_DONE && !env->out->failed && !env->sig->stop &&
	    env->opts->repeat;
}

/* hunt_run() with the look w, its history w->history or NULL. */
static int
wait_with(const struct capture_env *env, struct look *w)
{
	const struct options *o = env->opts;
	const struct diag *d = env->diag;
	struct outfile *f = env->out;
	struct history *h = w->history;
	struct stmt_match m;
	struct sampler_before *before;
	size_t n_before;
	enum follow_end end;
	uint64_t captures = 0;
	char what[1024], err[1024];
	int rc;

	describe_wait(o, what, sizeof(what));
	for (;;) {
		diag_note(d, "waiting for a %s, looking every %" PRIu64 " ms; "
		    "our own thread is %" PRIu64, what, o->poll_ms,
		    env->session->own_thread);
		switch (look_find(w, &m, err, sizeof(err))) {
		case LOOK_FOUND:
			break;
		case LOOK_STOPPED:
			return EXIT_DONE;
		case LOOK_TIMEOUT:
			if (captures == 0) {
				diag_say("no %s within --wait-timeout %" PRIu64
				    " s; wait longer or widen the match", what,
				    o->wait_timeout_s);
				return EXIT_NO_MATCH;
			}
			diag_note(d, "no other %s within --wait-timeout %"
			    PRIu64 " s; %" PRIu64 " captures", what,
			    o->wait_timeout_s, captures);
			return EXIT_DONE;
		case LOOK_LOST:
			if (rejoin(env, w->clk, err, sizeof(err)) != 0)
				return env->sig->stop ? EXIT_DONE : EXIT_RUNTIME;
			continue;
		case LOOK_ERROR:
			if (env->sig->stop)
				return EXIT_DONE;
			diag_say("%s", err);
			return EXIT_RUNTIME;
		}
		note_found(env, &m);
		if (f->pattern != NULL && outfile_name(f, m.connection_id,
		    m.thread_id) != 0)
			return EXIT_RUNTIME;
		before = NULL;
		/* The history's readings are of what runs now, not of it. */
		n_before = h != NULL && !m.ended ? readings_before(h, &m,
		    &before) : 0;
		if (n_before > 0)
			diag_note(d, "the capture begins with %zu reading%s "
			    "taken while waiting, the first %.1f s before it "
			    "was found", n_before, n_before == 1 ? "" : "s",
			    (double)(before[n_before - 1].mono_ns -
			    before[0].mono_ns) / 1e9);
		rc = capture_run_from(env, &m, before, n_before, ++captures,
		    &end);
		free(before);
		/* Still running (--count, --duration): not to be taken again. */
		if (end == FOLLOW_RUNNING)
			look_captured(w, &m);
		/* A pattern gives each capture a file of its own. */
		if (f->pattern != NULL && outfile_close(f) != 0 &&
		    rc == EXIT_DONE)
			rc = EXIT_RUNTIME;
		if (!wait_again(env, rc))
			return rc;
		diag_note(d, "%" PRIu64 " capture%s so far", captures,
		    captures == 1 ? "" : "s");
	}
}

/*
 * --bigger-than N%: the size, from the connection_memory_limit the session
 * read at connect. Returns 0, or an exit status having said why not.
 */
static int
size_of_limit(const struct capture_env *env, struct options *o)
{
	struct session *s = env->session;
	char size[32], limit[32], err[256];
	const struct pfs_memory_limits *l;

	if (o->bigger_than_pct == 0)
		return 0;
	if ((l = capture_memory_limits(s, err, sizeof(err))) == NULL) {
		diag_say("--bigger-than %u%%: cannot read connection_memory_limit: "
		    "%s; give a size, e.g. --bigger-than 1G", o->bigger_than_pct,
		    err);
		return EXIT_RUNTIME;
	}
	if (!l->known) {
		diag_say("--bigger-than %u%%: %s has no connection_memory_limit "
		    "(MySQL 8.0.28 and later have it); give a size, e.g. "
		    "--bigger-than 1G", o->bigger_than_pct,
		    s->ops->server_version(s->conn));
		return EXIT_USAGE;
	}
	if (s->limits.connection <= 0) {
		diag_say("--bigger-than %u%%: connection_memory_limit is not set "
		    "on this server (it is at its default, no limit); give a "
		    "size, e.g. --bigger-than 1G, or SET GLOBAL "
		    "connection_memory_limit", o->bigger_than_pct);
		return EXIT_USAGE;
	}
	o->bigger_than_bytes = (uint64_t)(s->limits.connection / 100 *
	    o->bigger_than_pct + s->limits.connection % 100 *
	    o->bigger_than_pct / 100);
	units_bytes((int64_t)o->bigger_than_bytes, size, sizeof(size));
	units_bytes(s->limits.connection, limit, sizeof(limit));
	diag_note(env->diag, "--bigger-than %u%%: %s, of connection_memory_limit "
	    "%s (MySQL does not hold privileged accounts such as root to it)",
	    o->bigger_than_pct, size, limit);
	return 0;
}

int
hunt_run(const struct capture_env *env)
{
	struct options o = *env->opts; /* a copy: --bigger-than N% is set */
	struct capture_env sized = *env;
	struct clock clk = env->clk != NULL ? *env->clk : clock_system();
	struct look w;
	int rc;

	if ((rc = size_of_limit(env, &o)) != 0)
		return rc;
	/* What was found is said against the limit, where one is set. */
	(void)capture_memory_limits(env->session, NULL, 0);
	sized.opts = &o;
	w = (struct look){
		.session = env->session,
		.filter = { .pattern = o.wait_pattern, .user = o.match_user,
		    .db = o.match_db, .min_time_s = (int64_t)o.longer_than_s,
		    .min_bytes = (int64_t)o.bigger_than_bytes,
		    .idle_bytes = holders_too(&o) ?
		    (int64_t)o.bigger_than_bytes : 0 },
		.poll_ns = o.poll_ms * 1000000u,
		.timeout_ns = o.wait_timeout_s * 1000000000u,
		.clk = &clk, .stop = &env->sig->stop,
		.notify = diag_note_cb, .notify_ctx = (void *)env->diag,
	};
	/* --window readings of each candidate, within HISTORY_MAX_BYTES. */
	if ((w.history = history_create(o.window,
	    env->session->instruments)) == NULL)
		diag_note(env->diag, "out of memory for the history kept while "
		    "waiting; captures begin when found");
	rc = wait_with(&sized, &w);
	look_done(&w);
	history_free(w.history);
	return rc;
}
