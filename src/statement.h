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

/* All zero: nothing is known. An empty digest or text means unknown. */
struct statement {
	uint64_t thread_id;
	bool has_id;
	uint64_t id; /* EVENT_ID: with the thread, names one statement */
	char digest[STATEMENT_DIGEST_MAX + 1];
	/*
	 * The text may hold NUL bytes: any client can send them, and the
	 * rest of the statement still runs. text_len counts them; 0 when the
	 * text was set as a C string, which then ends at its first NUL.
	 */
	char text[STATEMENT_TEXT_MAX + 1];
	size_t text_len;
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
