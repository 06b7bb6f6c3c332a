#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "total.h"

static void
say(const struct total *t, const char *msg)
{
	if (t->notify != NULL)
		t->notify(t->notify_ctx, msg);
}

/* Without PROCESS on MariaDB: what it would change, once a run. */
static void
say_hidden(const struct total *t)
{
	char msg[600];

	snprintf(msg, sizeof(msg), "connection %llu's own memory count is not "
	    "shown to this account (MariaDB's PROCESSLIST shows other users' "
	    "connections only with PROCESS), so each tick reads the thread's "
	    "rows, which on MariaDB walks every thread's; with GRANT PROCESS "
	    "each tick would read the count, and the rows only when it or the "
	    "statement moves", (unsigned long long)t->ids.connection_id);
	say(t, msg);
}

/* The rows each tick from now on, as where the server keeps no count. */
static enum source_status
go_off(struct total *t, const char *why, uint64_t deadline_ns,
    struct reading *out, char *err, size_t errlen)
{
	t->off = true;
	if (why != NULL)
		say(t, why);
	return t->inner.read(t->inner.ctx, deadline_ns, out, err, errlen);
}

/*
 * The count moved by SIZE since the rows were read, or the statement
 * changed, or they are every_ns old: the rows are due.
 */
static bool
rows_due(const struct total *t, const struct pfs_own_count *oc,
    uint64_t now)
{
	int64_t moved;

	if (!t->have_rows || now - t->rows_at_ns >= t->every_ns)
		return true;
	if (oc->has_key && (!t->has_key || oc->key != t->key_at_rows))
		return true;
	if (__builtin_sub_overflow(oc->bytes, t->count_at_rows, &moved))
		return true;
	return moved >= t->moved_bytes || moved <= -t->moved_bytes;
}

/*
 * Whether this tick can afford the rows beside its count: no tick is
 * skipped to pay them back (the sampler's credit, --max-load).
 */
static bool
affordable(const struct total *t, uint64_t count_ns)
{
	return t->afford_ns == NULL ||
	    *t->afford_ns >= (int64_t)(t->rows_ns + count_ns);
}

/* Keeps a reading of the rows for the ticks until the next. */
static int
keep_rows(struct total *t, const struct reading *rd)
{
	if (rd->n > t->cap) {
		struct event_stat *k = realloc(t->kept, rd->n * sizeof(*k));

		if (k == NULL)
			return -1;
		t->kept = k;
		t->cap = rd->n;
	}
	if (rd->n > 0)
		memcpy(t->kept, rd->events, rd->n * sizeof(*t->kept));
	t->n = rd->n;
	t->has_statement = rd->statement != NULL;
	if (rd->statement != NULL)
		statement_set(&t->statement, rd->statement);
	return 0;
}

/* Reads the rows, with the count read just before. */
static enum source_status
read_rows(struct total *t, const struct pfs_own_count *oc,
    uint64_t deadline_ns, struct reading *out, char *err, size_t errlen)
{
	const struct clock *clk = t->clk;
	uint64_t at = clk->now_ns(clk->ctx);
	enum source_status st;

	st = t->inner.read(t->inner.ctx, deadline_ns, out, err, errlen);
	if (st != SOURCE_OK)
		return st;
	/* Out of memory: these rows go on, the next tick reads again. */
	t->have_rows = keep_rows(t, out) == 0;
	t->count_at_rows = oc->bytes;
	t->has_key = oc->has_key;
	t->key_at_rows = oc->key;
	t->rows_at_ns = at;
	t->rows_ns = clk->now_ns(clk->ctx) - at;
	out->has_connection_bytes = true;
	out->connection_bytes = oc->bytes;
	return SOURCE_OK;
}

/*
 * The count alone, with the rows last read. When the statement changed
 * since (its key moved) but the budget holds the rows back, the statement
 * is not the kept one: the sample says none rather than name the old one.
 */
static void
kept_rows(struct total *t, const struct pfs_own_count *oc,
    struct reading *out)
{
	bool moved_on = oc->has_key && (!t->has_key ||
	    oc->key != t->key_at_rows);
	int64_t moved;

	if (__builtin_sub_overflow(oc->bytes, t->count_at_rows, &moved))
		moved = oc->bytes < 0 ? INT64_MIN : INT64_MAX;
	/* Never written but for its thread: no id, no text. */
	t->unknown.thread_id = t->ids.thread_id;
	*out = (struct reading){
		.events = t->kept, .n = t->n, .events_kept = true,
		.statement = moved_on ? &t->unknown : t->has_statement ?
		    &t->statement : NULL,
		.has_connection_bytes = true, .connection_bytes = oc->bytes,
		.total_moved = moved,
	};
}

static enum source_status
total_read(void *ctx, uint64_t deadline_ns, struct reading *out, char *err,
    size_t errlen)
{
	struct total *t = ctx;
	struct session *s = t->session;
	const struct clock *clk = t->clk;
	struct pfs_own_count oc;
	enum pfs_status ps;
	enum source_status st;
	uint64_t start, now;
	char msg[1100];

	if (t->off)
		return t->inner.read(t->inner.ctx, deadline_ns, out, err,
		    errlen);
	start = clk->now_ns(clk->ctx);
	ps = s->ops->own_count(s->conn, &s->kind, &t->ids, &oc, err, errlen);
	now = clk->now_ns(clk->ctx);
	if (ps == PFS_NOT_FOUND)
		return go_off(t, NULL, deadline_ns, out, err, errlen);
	if (ps == PFS_LOST)
		return SOURCE_LOST;
	if (ps != PFS_OK) {
		/* A count that failed: this tick reads the rows, the next counts. */
		if (!t->failed_said) {
			snprintf(msg, sizeof(msg), "%s; the tick reads the "
			    "thread's rows instead", err);
			say(t, msg);
		}
		t->failed_said = true;
		t->have_rows = false;
		return t->inner.read(t->inner.ctx, deadline_ns, out, err,
		    errlen);
	}
	if (!oc.known) {
		/* Gone, or there and not shown to this account: the rows say. */
		if ((st = t->inner.read(t->inner.ctx, deadline_ns, out, err,
		    errlen)) != SOURCE_OK)
			return st;
		t->off = true;
		if (!s->own_count_hidden_said)
			say_hidden(t);
		s->own_count_hidden_said = true;
		return SOURCE_OK;
	}
	if (rows_due(t, &oc, now) && (!t->have_rows ||
	    affordable(t, now - start)))
		return read_rows(t, &oc, deadline_ns, out, err, errlen);
	kept_rows(t, &oc, out);
	return SOURCE_OK;
}

struct source
total_source(struct total *t)
{
	return (struct source){ .ctx = t, .read = total_read };
}

void
total_reread(struct total *t)
{
	t->have_rows = false;
}

void
total_free(struct total *t)
{
	free(t->kept);
	t->kept = NULL;
	t->n = t->cap = 0;
}
