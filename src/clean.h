/*
 * Text from the server, written to a terminal one cell per code point:
 * what scrub.h refuses (controls, bidi controls, line separators, bytes
 * that are not UTF-8) shows as '?', so a hostile name can neither move the
 * cursor nor break the alignment of a table. Private to the text format.
 */
#ifndef MYSQLMEMPROF_CLEAN_H
#define MYSQLMEMPROF_CLEAN_H

#include <stdbool.h>
#include <stddef.h>

#include "obuf.h"

/*
 * Writes s in at most max cells and returns the cells used; a NULL b only
 * measures. With oneline, each run of white space is one space, and none
 * leads or trails.
 */
size_t clean_put(struct obuf *b, const char *s, size_t max,
    bool oneline);
/* The same for the n bytes at s, which may hold NULs (shown as '?'). */
size_t clean_put_len(struct obuf *b, const char *s, size_t n,
    size_t max, bool oneline);

/* The cells s takes. */
size_t clean_width(const char *s, bool oneline);

/* s on one line, left-aligned or right-aligned in a column of width cells. */
void clean_left(struct obuf *b, const char *s, size_t width,
    bool oneline);
void clean_right(struct obuf *b, const char *s, size_t width);

/* s on one line of at most width cells (4 or more), cut with "...". */
void clean_cut(struct obuf *b, const char *s, size_t width);
/* The same for the n bytes at s, which may hold NULs. */
void clean_cut_len(struct obuf *b, const char *s, size_t n,
    size_t width);

#endif
