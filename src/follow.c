/*
 * Following the statement a hunt found: a source that reads the thread's
 * memory while the statement runs. It looks at the statement (the same row
 * set of performance_schema.threads the looks read) at most every --poll,
 * just before a sample, so that no sample is taken of the connection once
 * it is seen idle. A connection found holding memory idle is followed by
 * its memory instead: until it holds less than the size for a while.
 */
#include "follow.h"

/* An idle holder's reading: whether it has been below the size long enough. */
static void
hold_check(struct follow *f, const struct reading *r, uint64_t now)
{
	int64_t total = 0;

	for (size_t i = 0; i < r->n; i++)
		total += r->events[i].current_bytes;
	/* Kept rows (total.h): the count says what moved since. */
	if (__builtin_add_overflow(total, r->total_moved, &total))
		total = r->total_moved < 0 ? INT64_MIN : INT64_MAX;
	if (total >= f->hold_bytes) {
		f->below = false;
		return;
	}
	if (!f->below) {
		f->below = true;
		f->below_since_ns = now;
	}
	if (now - f->below_since_ns >= f->hold_ns)
		f->released = true;
}

/* An idle holder: read until it released what it held, or closed. */
static enum source_status
follow_holder(struct follow *f, uint64_t deadline_ns, struct reading *out,
    char *err, size_t errlen)
{
	enum source_status st;

	if (f->released) {
		f->end = FOLLOW_RELEASED;
		return SOURCE_GONE;
	}
	st = f->inner.read(f->inner.ctx, deadline_ns, out, err, errlen);
	if (st == SOURCE_GONE)
		f->end = FOLLOW_CLOSED;
	else if (st == SOURCE_OK)
		hold_check(f, out, f->clk->now_ns(f->clk->ctx));
	return st;
}

static enum source_status
follow_read(void *ctx, uint64_t deadline_ns, struct reading *out, char *err,
    size_t errlen)
{
	struct follow *f = ctx;
	uint64_t now = f->clk->now_ns(f->clk->ctx);
	enum source_status st;

	if (f->stmt.idle)
		return follow_holder(f, deadline_ns, out, err, errlen);
	if (gate_due(&f->look, now)) {
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
			gate_arm(&f->look, now, f->poll_ns);
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
