/*
 * The record's connections lines (record.h): after each sample, one line
 * of the connections whose figures changed since the line before, and of
 * those gone; every connection at the start of a segment or a capture.
 * A connection that holds still costs nothing. The book is the
 * connections as the lines written (or read) so far say they are: the
 * writer compares with it, a reader (the incident) rebuilds it. Pure: it
 * writes into a buffer and reads a line given in memory.
 */
#ifndef MYSQLMEMPROF_CONNS_LINES_H
#define MYSQLMEMPROF_CONNS_LINES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "threads.h"
#include "obuf.h"

/*
 * A statement's start moves by a second between readings of a clock in
 * seconds (MySQL's PROCESSLIST_TIME): no change below this.
 */
#define CONNS_SINCE_SLACK_MS 1500

struct conns_book {
	struct conn_row *v; /* by connection id, ascending */
	size_t n, cap;
};

/*
 * Writes the line of what changed from book to the n rows of now (in any
 * order) at at_ms, or of every row with full, and makes book say now.
 * Returns 1 when a line was written, 0 when nothing changed, -1 out of
 * memory.
 */
int conns_line_put(struct obuf *b, struct conns_book *book,
    const struct conn_row *now, size_t n, bool full, int64_t at_ms);

/*
 * Applies a connections line (len bytes, no newline) to book. Returns 0,
 * 1 when the line is not a connections line, -1 when it does not parse
 * or out of memory.
 */
int conns_line_apply(struct conns_book *book, const char *line, size_t len);

/*
 * What a line applied changed (conns_line_follow()), ids ascending: the
 * connections whose rows it gave and the book holds now, and those the
 * book held before it and not after. Its owner frees it.
 */
struct conns_change {
	uint64_t *set, *gone;
	size_t n_set, n_gone, cap_set, cap_gone;
};

/* conns_line_apply(), and what it changed into ch (made anew). */
int conns_line_follow(struct conns_book *book, const char *line, size_t len,
    struct conns_change *ch);

void conns_change_free(struct conns_change *ch);

/* The row of connection id in book; NULL when it holds none. */
const struct conn_row *conns_book_find(const struct conns_book *book,
    uint64_t id);

void conns_book_free(struct conns_book *book);

#endif
