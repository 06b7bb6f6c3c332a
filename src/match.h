/*
 * The statements --wait-for and --longer-than find: which one to capture
 * when several match, and which were captured already, so that --repeat
 * captures each statement once.
 */
#ifndef MYSQLMEMPROF_MATCH_H
#define MYSQLMEMPROF_MATCH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* The start of a statement's text kept for messages, in bytes. */
#define MATCH_TEXT_MAX 400

/*
 * A thread running a statement, or holding memory idle, as
 * performance_schema.threads shows it.
 */
struct stmt_match {
	uint64_t thread_id;
	uint64_t connection_id;
	int64_t time_s;        /* PROCESSLIST_TIME: seconds it has run */
	int64_t start_s;       /* when it started, server time (within 1 s) */
	char digest[48];       /* length and CRC32 of the whole text */
	uint64_t completed;    /* statements the thread had ended before it */
	char user[256];        /* "" when none */
	char db[256];
	char text[MATCH_TEXT_MAX + 1]; /* the start of the text */
	int64_t current_bytes; /* the thread's instrumented memory */
	/*
	 * The most the session ever held, as the server keeps it (MySQL
	 * 8.0.31+, MariaDB: see pfs_find_statements()); 0: not known.
	 */
	int64_t peak_bytes;
	bool peak_only;        /* listed for its peak alone: no candidate */
	bool between_looks;    /* taken from its peak: past the size only between two looks */
	/*
	 * Runs no statement (time_s: how long it has been so), and holds the
	 * size: a connection found holding memory while idle.
	 */
	bool idle;
	/*
	 * A statement that had ended when a look found it past the size
	 * (MySQL 8.0.31+'s events_statements_history): peak_bytes is its own
	 * peak, as the server kept it, event_id its EVENT_ID, duration_ms how
	 * long it ran (time_s in whole seconds), current_bytes what its
	 * connection holds now; start_s and completed are 0.
	 */
	bool ended;
	uint64_t event_id;
	int64_t duration_ms;
};

struct match_list {
	struct stmt_match *v; /* owned by the list */
	size_t n, cap;
	bool peaks;           /* the server was asked for the sessions' peaks */
};

/* Appends a copy of m; returns -1 when out of memory. */
int match_list_add(struct match_list *l, const struct stmt_match *m);
void match_list_free(struct match_list *l);

/* How many captured statements are remembered: the latest ones. */
#define MATCH_SEEN_MAX 64

struct match_seen {
	struct stmt_match v[MATCH_SEEN_MAX];
	size_t n;    /* entries in use */
	size_t next; /* where the next one goes, once full */
};

/*
 * Whether a and b are the same run of a statement: same thread, same text,
 * no statement ended in between and, since PROCESSLIST_TIME counts whole
 * seconds, starts at most 1 s apart. (The count of ended statements tells
 * apart two runs of one text within a second, when the statement
 * instruments are on, as they are by default.) Ended statements are told
 * apart by their EVENT_ID.
 */
bool match_same(const struct stmt_match *a, const struct stmt_match *b);
bool match_seen_has(const struct match_seen *s, const struct stmt_match *m);
void match_seen_add(struct match_seen *s, const struct stmt_match *m);

/*
 * The match to capture: the one not yet captured with the most current
 * bytes (then the longest running, then the lowest thread id), a running
 * one before one that ended (the latter, with the largest peak, is still
 * there at the next look); -1 if none.
 */
ptrdiff_t match_choose(const struct match_list *l,
    const struct match_seen *seen);

/*
 * Whether now, a later look at the thread of was, is still the same
 * statement: match_same(), and its time did not go back (a new run of the
 * same text starts again from 0).
 */
bool match_still_running(const struct stmt_match *was,
    const struct stmt_match *now);

#endif
