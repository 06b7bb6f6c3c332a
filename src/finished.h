/*
 * The statements a followed thread finished: a sample source on the
 * capture's chain that, after a reading of the thread, reads the rows its
 * events_statements_history gained, each with the server's exact peak
 * (MySQL 8.0.31+), and hands them on with the reading. Sampling misses a
 * statement that starts and ends between two samples and sees a spike
 * shorter than the interval only as a lower bound; the server's record of
 * each statement misses neither.
 *
 * It reads only when the reading's statement changed or ended since the
 * one before, or at the first reading when its statement had ended (one
 * round trip then, none otherwise), so a thread running one long
 * statement, or idle, costs nothing more.
 */
#ifndef MYSQLMEMPROF_FINISHED_H
#define MYSQLMEMPROF_FINISHED_H

#include <stdbool.h>
#include <stdint.h>

#include "pfs.h"
#include "session.h"
#include "source.h"

struct finished {
	struct source inner;
	struct session *session;
	uint64_t thread_id;
	/* Called with a note, each kind once; may be NULL. */
	void (*notify)(void *ctx, const char *msg);
	void *notify_ctx;

	/* Zero at first. */
	bool off;            /* the server keeps no statement's peak: no reads */
	bool started;        /* a statement id was seen */
	uint64_t from;       /* the EVENT_ID the next read starts at */
	uint64_t last_id;    /* the statement of the latest reading */
	bool last_ended;
	bool pending;        /* a read failed, or more rows wait: read again */
	uint64_t reads;      /* reads of the history */
	uint64_t lost;       /* statements known to have ended unseen, at least */
	bool said_consumer;
	struct pfs_history buf;
};

/* Reads inner, then the statements the thread finished since, when due. */
struct source finished_source(struct finished *f);

/*
 * Whether the statements finished since the reading before are worth a
 * read, given this reading's statement: it changed or ended (the first:
 * it ended). Updates f.
 */
bool finished_due(struct finished *f, const struct statement *now);

/*
 * Marks the gap before the rows of one read (h, asked from f->from) and
 * moves f->from past them; returns the statements lost before them.
 */
uint64_t finished_gaps(struct finished *f, struct pfs_history *h);

#endif
