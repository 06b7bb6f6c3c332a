/*
 * --wait-for and --longer-than: looking at performance_schema.threads at
 * a low rate until a statement matches, and a sample source that ends when
 * that statement ends. Both ask the server through the session's table of
 * operations.
 */
#ifndef MYSQLMEMPROF_WATCH_H
#define MYSQLMEMPROF_WATCH_H

#include <signal.h>
#include <stdint.h>

#include "clock.h"
#include "history.h"
#include "match.h"
#include "pfs.h"
#include "session.h"
#include "source.h"

struct watch {
	struct session *session;   /* its own thread is never matched */
	struct match_filter filter;
	uint64_t poll_ns;          /* between two looks */
	uint64_t timeout_ns;       /* give up waiting after this long; 0: never */
	const struct clock *clk;
	volatile sig_atomic_t *stop;
	/* Called with a progress note; may be NULL. */
	void (*notify)(void *ctx, const char *msg);
	void *notify_ctx;
	struct match_seen seen;    /* the statements captured: zero at first */
	/*
	 * Borrowed; NULL: none. Each look then also reads the memory of the
	 * largest threads that run a statement the filter's pattern, user
	 * and database match, whatever its time and size, into the history.
	 */
	struct history *history;
	/*
	 * With min_bytes, the sessions' peaks at the last look, where the
	 * server keeps them (owned; watch_done() frees them), so that a
	 * statement past min_bytes only between two looks is found from its
	 * session's peak. Zero at first.
	 */
	struct watch_peak *peaks;
	size_t n_peaks, cap_peaks;
	bool peaks_valid;          /* the last look of this wait read them */
	bool peaks_noted;          /* a note said peaks cannot be had */
};

/* A session's peak at a look. */
struct watch_peak {
	uint64_t thread_id;
	int64_t peak_bytes;
};

enum watch_status {
	WATCH_FOUND,
	WATCH_TIMEOUT, /* nothing matched within timeout_ns */
	WATCH_STOPPED, /* *stop was set */
	WATCH_LOST,    /* the connection was lost; err says how */
	WATCH_ERROR,   /* err says why */
};

/*
 * Looks every poll_ns, the first time at once, until a statement that was
 * not captured yet matches (with a history, its readings up to that look
 * are in it). When several do, *m is the one whose thread
 * holds the most memory, and a note names the others. A running
 * statement whose session's peak rose to min_bytes or more since the last
 * look matches too, with m->between_looks; the first look of each call
 * only learns the peaks.
 */
enum watch_status watch_wait(struct watch *w, struct stmt_match *m,
    char *err, size_t errlen);

/* Remembers m as captured: watch_wait() will not give it again. */
void watch_captured(struct watch *w, const struct stmt_match *m);

/* Frees what the watch keeps between looks. */
void watch_done(struct watch *w);

enum follow_end {
	FOLLOW_RUNNING,  /* the source did not end for the statement */
	FOLLOW_FINISHED, /* it ended: the connection is idle or runs another */
	FOLLOW_CLOSED,   /* the connection closed */
};

struct follow {
	struct source inner;       /* the thread's memory */
	struct session *session;   /* the one inner reads through */
	struct stmt_match stmt;    /* the statement, as last seen */
	uint64_t poll_ns;          /* look at the statement at most this often */
	const struct clock *clk;
	uint64_t next_look_ns;     /* zero at first: look at the first read */
	enum follow_end end;       /* zero at first */
};

/*
 * Reads inner while the statement runs, looking at it before a read when
 * poll_ns has passed since the last look; then gives SOURCE_GONE, with
 * f->end saying why.
 */
struct source follow_source(struct follow *f);

#endif
