/*
 * Waiting for a statement, and following it. Both look at one row set of
 * performance_schema.threads: the waiting every --poll on absolute
 * deadlines, the following at most every --poll, just before a sample, so
 * that no sample is taken of the connection once it is seen idle.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "units.h"
#include "watch.h"

/* How many other matches a note names, and how much of their text. */
#define NAMED_MAX 5
#define NAMED_TEXT 40

static void
tell(struct watch *w, const char *msg)
{
	if (w->notify != NULL)
		w->notify(w->notify_ctx, msg);
}

/* Appends "connection N (SIZE): TEXT" for m to buf. */
static void
name_match(char *buf, size_t size, const struct stmt_match *m)
{
	size_t len = strlen(buf);
	char bytes[32];

	units_bytes(m->current_bytes, bytes, sizeof(bytes));
	if (len < size)
		snprintf(buf + len, size - len, "connection %" PRIu64 " (%s): "
		    "%.*s%s", m->connection_id, bytes, NAMED_TEXT, m->text,
		    strlen(m->text) > NAMED_TEXT ? "..." : "");
}

/* Names the matches other than the chosen one, so none goes unnoticed. */
static void
tell_others(struct watch *w, const struct match_list *l, ptrdiff_t chosen)
{
	char msg[1536], bytes[32];
	size_t named = 0, others = 0;

	for (size_t i = 0; i < l->n; i++)
		if ((ptrdiff_t)i != chosen && !match_seen_has(&w->seen, &l->v[i]))
			others++;
	if (others == 0)
		return;
	units_bytes(l->v[chosen].current_bytes, bytes, sizeof(bytes));
	snprintf(msg, sizeof(msg), "%zu statements match; taking connection "
	    "%" PRIu64 ", the largest (%s); the others, for later: ", others + 1,
	    l->v[chosen].connection_id, bytes);
	for (size_t i = 0; i < l->n && named < NAMED_MAX; i++) {
		if ((ptrdiff_t)i == chosen || match_seen_has(&w->seen, &l->v[i]))
			continue;
		if (named++ > 0)
			strncat(msg, "; ", sizeof(msg) - strlen(msg) - 1);
		name_match(msg, sizeof(msg), &l->v[i]);
	}
	if (others > named) {
		size_t len = strlen(msg);
		snprintf(msg + len, sizeof(msg) - len, "; and %zu more",
		    others - named);
	}
	tell(w, msg);
}

enum watch_status
watch_wait(struct watch *w, struct stmt_match *m, char *err, size_t errlen)
{
	const struct clock *clk = w->clk;
	uint64_t t0 = clk->now_ns(clk->ctx);
	uint64_t k = 0;

	for (;;) {
		uint64_t due = t0 + k * w->poll_ns;
		struct match_list l;
		ptrdiff_t i;

		if (*w->stop)
			return WATCH_STOPPED;
		if (w->timeout_ns != 0 && due > t0 + w->timeout_ns)
			return WATCH_TIMEOUT;
		if (clk->sleep_until(clk->ctx, due) == EINTR)
			continue; /* a signal: look at *stop, then sleep again */
		struct session *s = w->session;
		enum pfs_status ps = s->ops->find_statements(s->conn,
		    &w->filter, s->own_thread, &l, err, errlen);
		if (ps == PFS_LOST)
			return WATCH_LOST;
		if (ps != PFS_OK)
			return WATCH_ERROR;
		if ((i = match_choose(&l, &w->seen)) >= 0) {
			*m = l.v[i];
			tell_others(w, &l, i);
			match_list_free(&l);
			return WATCH_FOUND;
		}
		match_list_free(&l);
		/* A look that took longer than --poll skips the missed ones. */
		uint64_t now = clk->now_ns(clk->ctx);
		k = now > due + w->poll_ns ? (now - t0) / w->poll_ns + 1 : k + 1;
	}
}

void
watch_captured(struct watch *w, const struct stmt_match *m)
{
	match_seen_add(&w->seen, m);
}

static enum source_status
follow_read(void *ctx, uint64_t deadline_ns, struct reading *out, char *err,
    size_t errlen)
{
	struct follow *f = ctx;
	uint64_t now = f->clk->now_ns(f->clk->ctx);
	enum source_status st;

	if (now >= f->next_look_ns) {
		struct stmt_match cur;
		bool running;

		struct session *s = f->session;

		switch (s->ops->thread_statement(s->conn, f->stmt.thread_id,
		    &running, &cur, err, errlen)) {
		case PFS_OK:
			if (!running || !match_still_running(&f->stmt, &cur)) {
				f->end = FOLLOW_FINISHED;
				return SOURCE_GONE;
			}
			f->stmt.time_s = cur.time_s;
			f->next_look_ns = now + f->poll_ns;
			break;
		case PFS_NOT_FOUND:
			f->end = FOLLOW_CLOSED;
			return SOURCE_GONE;
		case PFS_LOST:
			break; /* the read below reconnects; look again next time */
		default:
			return SOURCE_ERROR;
		}
	}
	st = f->inner.read(f->inner.ctx, deadline_ns, out, err, errlen);
	if (st == SOURCE_GONE)
		f->end = FOLLOW_CLOSED;
	return st;
}

struct source
follow_source(struct follow *f)
{
	return (struct source){ .ctx = f, .read = follow_read };
}
