/*
 * --wait-for and --longer-than: wait for a matching statement, capture its
 * thread until it ends, and with --repeat wait again.
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "app_internal.h"
#include "outname.h"
#include "reconnect.h"

/* "statement like 'X' running at least 5 s of user 'U' in database 'D'". */
static void
describe_wait(const struct options *o, char *buf, size_t size)
{
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
	if (o->match_user != NULL) {
		len = strlen(buf);
		snprintf(buf + len, size - len, " of user '%s'", o->match_user);
	}
	if (o->match_db != NULL) {
		len = strlen(buf);
		snprintf(buf + len, size - len, " in database '%s'", o->match_db);
	}
}

/*
 * Points opts.output at the file of a capture, from the --output pattern
 * and the local time. An existing file is never overwritten: an earlier
 * capture may have had the same name, so a number is added instead.
 */
static int
name_capture(struct app *a, const struct stmt_match *m)
{
	char name[4096], alt[4096];
	const char *path = name;
	struct stat st;
	time_t now = time(NULL);
	struct tm tm;
	char *copy;

	localtime_r(&now, &tm);
	if (outname_expand(a->output_pattern, m->connection_id, m->thread_id,
	    &tm, name, sizeof(name)) != 0) {
		say("--output '%s' gives an empty or too long file name; "
		    "change the pattern", a->output_pattern);
		return -1;
	}
	for (unsigned n = 2; lstat(path, &st) == 0; n++) {
		if (n > 1000 || outname_numbered(name, n, alt, sizeof(alt)) != 0) {
			say("--output %s exists, and so do the numbered names "
			    "after it; move them away", name);
			return -1;
		}
		path = alt;
	}
	if ((copy = strdup(path)) == NULL) {
		say("out of memory");
		return -1;
	}
	free(a->opts.output);
	a->opts.output = copy;
	return 0;
}

/*
 * The connection was lost while waiting: connects again within
 * --reconnect-timeout, as during a capture. No thread is followed yet, so
 * a restarted server is fine. Returns 0, or -1 having said why.
 */
static int
rejoin(struct app *a, char *err, size_t errlen)
{
	struct clock clk = clock_system();
	struct reconnect rc = {
		.conn = &a->conn, .params = &a->params,
		.timeout_ns = a->opts.reconnect_timeout_s * 1000000000u,
		.server_boot_s = a->server_boot_s, .clk = &clk,
		.stop = &stop_requested, .notify = note_cb, .notify_ctx = a,
	};

	if (rc.timeout_ns == 0) {
		say("%s", err);
		return -1;
	}
	switch (reconnect_now(&rc, err, errlen)) {
	case SOURCE_OK:
		break;
	case SOURCE_STOPPED:
		return -1;
	default:
		say("%s", err);
		return -1;
	}
	note(a, "reconnected; waiting goes on");
	/* The server may have restarted: what a capture compares with is new. */
	if (pfs_own_thread(a->conn, &a->own_thread, err, errlen) != PFS_OK ||
	    pfs_server_boot(a->conn, &a->server_boot_s, err, errlen) != PFS_OK) {
		say("%s", err);
		return -1;
	}
	return 0;
}

/*
 * --wait-for, --longer-than: waits for a matching statement, captures its
 * thread until the statement ends, and with --repeat waits again. Exit
 * status 3 when --wait-timeout passed before anything was captured.
 */
int
run_wait(struct app *a)
{
	const struct options *o = &a->opts;
	struct clock clk = clock_system();
	struct watch w = {
		.conn = &a->conn,
		.filter = { .pattern = o->wait_pattern, .user = o->match_user,
		    .db = o->match_db, .min_time_s = (int64_t)o->longer_than_s },
		.own_thread = a->own_thread,
		.poll_ns = o->poll_ms * 1000000u,
		.timeout_ns = o->wait_timeout_s * 1000000000u,
		.clk = &clk, .stop = &stop_requested,
		.notify = note_cb, .notify_ctx = a,
	};
	struct follow f;
	struct stmt_match m;
	char what[1024], err[1024];
	int rc = EXIT_DONE;

	/* The pattern is kept; opts.output becomes each capture's file. */
	if (o->output != NULL && outname_is_pattern(o->output)) {
		a->output_pattern = a->opts.output;
		a->opts.output = NULL;
	}
	describe_wait(o, what, sizeof(what));
	for (;;) {
		note(a, "waiting for a %s, looking every %" PRIu64 " ms; our own "
		    "thread is %" PRIu64, what, o->poll_ms, a->own_thread);
		switch (watch_wait(&w, &m, err, sizeof(err))) {
		case WATCH_FOUND:
			break;
		case WATCH_STOPPED:
			return EXIT_DONE;
		case WATCH_TIMEOUT:
			if (a->capture_no == 0) {
				say("no %s within --wait-timeout %" PRIu64 " s; "
				    "wait longer or widen the match", what,
				    o->wait_timeout_s);
				return EXIT_NO_MATCH;
			}
			note(a, "no other %s within --wait-timeout %" PRIu64
			    " s; %" PRIu64 " captures", what,
			    o->wait_timeout_s, a->capture_no);
			return EXIT_DONE;
		case WATCH_LOST:
			if (rejoin(a, err, sizeof(err)) != 0)
				return stop_requested ? EXIT_DONE : EXIT_RUNTIME;
			w.own_thread = a->own_thread;
			continue;
		case WATCH_ERROR:
			say("%s", err);
			return EXIT_RUNTIME;
		}
		note(a, "found connection %" PRIu64 " (thread %" PRIu64 ", user "
		    "%s) running for %" PRId64 " s: %.100s", m.connection_id,
		    m.thread_id, m.user, m.time_s, m.text);
		if (a->output_pattern != NULL && name_capture(a, &m) != 0)
			return EXIT_RUNTIME;
		f = (struct follow){ .stmt = m, .poll_ns = w.poll_ns };
		a->follow = &f;
		a->capture_no++;
		rc = run_sampling(a);
		a->follow = NULL;
		/* Still running (--count, --duration): not to be taken again. */
		if (f.end == FOLLOW_RUNNING)
			watch_captured(&w, &m);
		if (a->output_pattern != NULL) {
			if (close_output(a) != 0 && rc == EXIT_DONE)
				rc = EXIT_RUNTIME;
			a->out_captures = 0;
		}
		if (rc != EXIT_DONE || a->write_failed || stop_requested ||
		    !o->repeat)
			return rc;
		note(a, "%" PRIu64 " capture%s so far", a->capture_no,
		    a->capture_no == 1 ? "" : "s");
	}
}
