/*
 * The statements a followed thread finished. MySQL numbers every event of
 * a thread in turn: a top-level statement takes EVENT_ID, the events
 * inside it the ids up to its END_EVENT_ID, and the next statement the id
 * after that. The thread's history keeps its last few statements, of any
 * level, and pushes the oldest out; a read that finds its first row past
 * the id it asked from, while the oldest row kept is past that id too,
 * knows that statements ended and were pushed out before it came.
 */
#include <inttypes.h>
#include <stdio.h>

#include "finished.h"

static void
tell(struct finished *f, const char *msg)
{
	if (f->notify != NULL)
		f->notify(f->notify_ctx, msg);
}

bool
finished_due(struct finished *f, const struct statement *now)
{
	bool due;

	if (!f->started) {
		/*
		 * The first statement seen is the first of the capture: read
		 * from it on; an ended one is there already, a running one
		 * not yet.
		 */
		f->started = true;
		f->from = now->id;
		due = now->ended;
	} else
		due = now->id != f->last_id || (now->ended && !f->last_ended) ||
		    f->pending;
	f->last_id = now->id;
	f->last_ended = now->ended;
	return due;
}

uint64_t
finished_gaps(struct finished *f, struct pfs_history *h)
{
	uint64_t lost = 0;

	if (h->n == 0)
		return 0;
	/* What lies between is pushed out only when the oldest kept is past it. */
	if (h->rows[0].statement.id > f->from && h->oldest > f->from) {
		h->rows[0].lost_before = 1;
		lost = 1;
	}
	f->from = h->rows[h->n - 1].end_id + 1;
	return lost;
}

/* The server keeps no statement's peak: said once a run, no more reads. */
static void
no_peaks(struct finished *f)
{
	struct session *s = f->session;

	f->off = true;
	if (s->no_statement_peaks)
		return;
	s->no_statement_peaks = true;
	tell(f, "the peaks of statements are sampled: this server keeps "
	    "no statement's own peak (MySQL 8.0.31 and later keep it, "
	    "in events_statements_history.MAX_TOTAL_MEMORY), so a "
	    "statement shorter than --frequency may go unseen");
}

/* One read of the history; a failed one is tried again at the next reading. */
static void
read_history(struct finished *f, struct reading *out)
{
	struct session *s = f->session;
	struct pfs_history *h = &f->buf;
	char err[512];
	uint64_t lost;

	f->pending = true;
	if (s->ops->thread_history(s->conn, &s->kind, f->thread_id, f->from,
	    h, err, sizeof(err)) != PFS_OK)
		return;
	f->pending = false;
	f->reads++;
	if (!h->peaks) {
		no_peaks(f);
		return;
	}
	if (!h->consumer) {
		if (!f->said_consumer)
			tell(f, "events_statements_history is off: statements "
			    "that end between two samples go unseen, and peaks "
			    "are sampled; UPDATE performance_schema.setup_consumers "
			    "SET ENABLED = 'YES' WHERE NAME = "
			    "'events_statements_history' switches it on");
		f->said_consumer = true;
		return;
	}
	/* Counted in the rows: the capture says how many at its end. */
	if ((lost = finished_gaps(f, h)) > 0)
		f->lost += lost;
	/* A full read: more rows may wait for the next reading. */
	f->pending = h->n == PFS_HISTORY_ROWS;
	out->finished = h->rows;
	out->n_finished = h->n;
}

static enum source_status
finished_read(void *ctx, uint64_t deadline_ns, struct reading *out,
    char *err, size_t errlen)
{
	struct finished *f = ctx;
	enum source_status st = f->inner.read(f->inner.ctx, deadline_ns, out,
	    err, errlen);

	if (st != SOURCE_OK || f->off || out->statement == NULL ||
	    !out->statement->has_id)
		return st;
	/*
	 * At the first reading, whether the server keeps statements' peaks
	 * at all, without a query: said at the start, not at the first end.
	 */
	if (!f->started) {
		struct session *s = f->session;
		struct pfs_history *h = &f->buf;
		char why[256];

		if (s->ops->thread_history(s->conn, &s->kind, f->thread_id,
		    PFS_HISTORY_PROBE, h, why, sizeof(why)) == PFS_OK &&
		    !h->peaks) {
			no_peaks(f);
			return st;
		}
	}
	if (finished_due(f, out->statement))
		read_history(f, out);
	return st;
}

struct source
finished_source(struct finished *f)
{
	return (struct source){ .ctx = f, .read = finished_read };
}
