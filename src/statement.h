/*
 * The statement a thread was running when a sample was taken, as
 * performance_schema.events_statements_current (or, without it,
 * threads.PROCESSLIST_INFO) tells it.
 */
#ifndef MYSQLMEMPROF_STATEMENT_H
#define MYSQLMEMPROF_STATEMENT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* MySQL 8 digests are SHA-256 in hex; MariaDB's are MD5, 32 characters. */
#define STATEMENT_DIGEST_MAX 64
/* The text is the first 200 characters, of up to 4 bytes each in utf8mb4. */
#define STATEMENT_TEXT_CHARS 200
#define STATEMENT_TEXT_MAX (STATEMENT_TEXT_CHARS * 4)

/*
 * All zero: nothing is known. An empty digest or text means unknown. The
 * fields read or set with each sample come first, together, and the text
 * last: with text_len behind the 801 bytes of text, setting and comparing
 * a statement touched one cache line more each time.
 */
struct statement {
	uint64_t thread_id;
	bool has_id;
	/*
	 * It has ended: events_statements_current keeps a thread's last
	 * statement while the thread idles (END_EVENT_ID set).
	 */
	bool ended;
	uint64_t id; /* EVENT_ID: with the thread, names one statement */
	/*
	 * The text may hold NUL bytes: any client can send them, and the
	 * rest of the statement still runs. text_len counts them; 0 when the
	 * text was set as a C string, which then ends at its first NUL.
	 */
	size_t text_len;
	char digest[STATEMENT_DIGEST_MAX + 1];
	char text[STATEMENT_TEXT_MAX + 1];
};

/*
 * A statement the followed thread finished, as the server recorded it in
 * events_statements_history once it ended (finished.h): every one is
 * known, those that ran between two samples too.
 */
struct finished_statement {
	struct statement statement; /* its id, digest and text */
	uint64_t end_id;      /* END_EVENT_ID: the last event id it used */
	uint64_t duration_us; /* TIMER_WAIT, the server's clock */
	uint64_t rows_sent, rows_examined;
	/*
	 * MAX_TOTAL_MEMORY (MySQL 8.0.31+): the session's largest total while
	 * it ran, exact, with what the session held when it began.
	 */
	bool has_peak;
	int64_t peak_bytes;
	/*
	 * Statements known to have ended unseen just before it, lost from
	 * the thread's history before a read came (at least this many).
	 */
	uint64_t lost_before;
};

/*
 * Copies n bytes of v into a digest or text buffer of max bytes (plus the
 * NUL); a longer value is cut before the UTF-8 character that does not
 * fit. A NULL v leaves it empty.
 */
void statement_copy(char *dst, size_t max, const char *v, size_t n);

/*
 * Sets the text to the n bytes of v, NUL bytes included, cut as
 * statement_copy() cuts; a NULL v leaves it empty.
 */
void statement_set_text(struct statement *s, const char *v, size_t n);

/*
 * Copies src to dst: its fields, and the bytes of its digest and text
 * with their NUL, not the unused rest of them, which a struct copy moved
 * whole (some 900 bytes) for a statement of a few dozen.
 */
void statement_set(struct statement *dst, const struct statement *src);

/*
 * Makes s the empty statement: nothing known. Only what is read of an
 * empty one is written, not the 900 bytes of its buffers.
 */
void statement_clear(struct statement *s);

/* The bytes of the text, NUL bytes included. */
size_t statement_text_len(const struct statement *s);

/*
 * Whether a and b are the same statement: of the same thread, and the same
 * id when both have one; without ids, the same digest and text.
 */
bool statement_same(const struct statement *a, const struct statement *b);

/* Whether anything is known of it. */
bool statement_known(const struct statement *s);

#endif
