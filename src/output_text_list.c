/*
 * --list in text: the threads as a table of thread_columns[]
 * (output_format.h) under their heads.
 */
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "output.h"
#include "clean.h"
#include "output_format.h"
#include "output_text.h"

#define STATEMENT_WIDTH 60 /* the last column of --list: a row on one line */

/*
 * --list as a table of thread_columns[] under their heads, leaving out a
 * column without one: numbers to the right, text to the left, and the last
 * column, the statement, cut and not padded.
 */
static size_t
list_last(void)
{
	size_t j = THREAD_COLUMNS - 1;

	while (thread_columns[j].head == NULL)
		j--;
	return j;
}

/*
 * The text of one cell: "-" for a null; numbers are formatted into buf.
 * *len is its bytes, which may hold a NUL.
 */
static const char *
list_cell(const struct output *o, const struct thread_column *c,
    const struct thread_info *t, char *buf, size_t *len)
{
	union column_value v;
	const char *s;

	*len = 0;
	if (!c->get(t, &v))
		return *len = 1, "-";
	switch (c->kind) {
	case COLUMN_INT:
		if (c->bytes)
			fmt_bytes(o, v.i, buf);
		else
			snprintf(buf, CELL, "%" PRId64, v.i);
		return *len = strlen(buf), buf;
	case COLUMN_UINT:
		snprintf(buf, CELL, "%" PRIu64, v.u);
		return *len = strlen(buf), buf;
	case COLUMN_TEXT:
	default:
		/* A prefix all values share is noise: "thread/x" shows as "x". */
		s = v.s;
		*len = v.len;
		if (c->prefix != NULL &&
		    strncmp(v.s, c->prefix, strlen(c->prefix)) == 0) {
			s += strlen(c->prefix);
			*len -= strlen(c->prefix);
		}
		return s;
	}
}

static void
put_list_row(struct obuf *b, const char *const cell[THREAD_COLUMNS],
    const size_t len[THREAD_COLUMNS], const size_t w[THREAD_COLUMNS])
{
	size_t last = list_last();
	const char *sep = " ";

	for (size_t j = 0; j <= last; j++) {
		if (thread_columns[j].head == NULL)
			continue;
		obuf_puts(b, sep);
		sep = "  ";
		if (j == last)
			clean_cut_len(b, cell[j], len[j], STATEMENT_WIDTH);
		else if (thread_columns[j].kind != COLUMN_TEXT)
			clean_right(b, cell[j], w[j]);
		else
			clean_left(b, cell[j], w[j], true);
	}
	obuf_putc(b, '\n');
}

int
output_text_threads(struct output *o, const struct thread_list *l)
{
	size_t w[THREAD_COLUMNS];
	const char *cell[THREAD_COLUMNS];
	size_t len[THREAD_COLUMNS];
	char buf[THREAD_COLUMNS][CELL];

	for (size_t j = 0; j < THREAD_COLUMNS; j++) {
		cell[j] = thread_columns[j].head;
		len[j] = w[j] = cell[j] != NULL ? strlen(cell[j]) : 0;
	}
	for (size_t i = 0; i < l->n; i++)
		for (size_t j = 0; j < THREAD_COLUMNS; j++) {
			size_t n;

			w[j] = max_size(w[j], clean_width(list_cell(o,
			    &thread_columns[j], &l->v[i], buf[j], &n), true));
		}
	put_list_row(&o->buf, cell, len, w);
	for (size_t i = 0; i < l->n; i++) {
		for (size_t j = 0; j < THREAD_COLUMNS; j++)
			cell[j] = list_cell(o, &thread_columns[j], &l->v[i],
			    buf[j], &len[j]);
		put_list_row(&o->buf, cell, len, w);
	}
	return obuf_status(&o->buf);
}
