/*
 * The hunt's looks (--wait-for, --longer-than, --bigger-than): reading
 * performance_schema.threads at a low rate until a statement matches,
 * through the session's table of operations. follow.h follows it.
 */
#ifndef MYSQLMEMPROF_LOOK_H
#define MYSQLMEMPROF_LOOK_H

#include <signal.h>
#include <stdint.h>

#include "clock.h"
#include "history.h"
#include "match.h"
#include "pfs.h"
#include "session.h"
#include "source.h"

struct look {
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
	 * server keeps them (owned; look_done() frees them), so that a
	 * statement past min_bytes only between two looks is found from its
	 * session's peak. Zero at first.
	 */
	struct look_peak *peaks;
	size_t n_peaks, cap_peaks;
	bool peaks_valid;          /* the last look of this wait read them */
	bool peaks_noted;          /* a note said peaks cannot be had */
	/*
	 * With min_bytes, where the server keeps each statement's peak: for
	 * each session with ended statements past min_bytes, the newest
	 * EVENT_ID of them accounted for, by thread (owned). A newer one is
	 * a match, ended. Until ends_known, a look only learns them; so does
	 * the look after a capture for the thread captured (learn_thread).
	 */
	struct look_end *ends;
	size_t n_ends;
	bool ends_known;
	bool ends_off;             /* the server keeps no statement's peak */
	uint64_t learn_thread;     /* 0: none */
};

/* A session's ended statements past the size, accounted for up to event_id. */
struct look_end {
	uint64_t thread_id;
	uint64_t event_id;
};

/* A session's peak at a look. */
struct look_peak {
	uint64_t thread_id;
	int64_t peak_bytes;
};

enum look_status {
	LOOK_FOUND,
	LOOK_TIMEOUT, /* nothing matched within timeout_ns */
	LOOK_STOPPED, /* *stop was set */
	LOOK_LOST,    /* the connection was lost; err says how */
	LOOK_ERROR,   /* err says why */
};

/*
 * Looks every poll_ns, the first time at once, until a statement that was
 * not captured yet matches (with a history, its readings up to that look
 * are in it). When several do, *m is the one whose thread
 * holds the most memory, and a note names the others. A running
 * statement whose session's peak rose to min_bytes or more since the last
 * look matches too, with m->between_looks; the first look of each call
 * only learns the peaks. So does a statement that ended past min_bytes,
 * by its own peak, on a session whose peak was past it (m->ended), where
 * the server keeps that peak; the first look of all only learns them.
 * With filter.idle_bytes, a connection that runs no statement and holds
 * that much matches too, with m->idle.
 */
enum look_status look_find(struct look *w, struct stmt_match *m,
    char *err, size_t errlen);

/* Remembers m as captured: look_find() will not give it again. */
void look_captured(struct look *w, const struct stmt_match *m);

/* Frees what the look keeps between looks. */
void look_done(struct look *w);

#endif
