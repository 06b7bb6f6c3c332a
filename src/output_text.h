/*
 * What the text format's files share, and only they: output_text.c (the
 * samples, the triggers, the captures, and the row), output_text_summary.c
 * (the summary at the end, --statements) and output_text_list.c (--list).
 * Names come from the server and statements from any client, so
 * everything is written through clean.h: a hostile name can neither
 * move the cursor nor break the alignment. Every callback writes into
 * o->buf (obuf.h), which output.c sends on in one write.
 */
#ifndef MYSQLMEMPROF_OUTPUT_TEXT_H
#define MYSQLMEMPROF_OUTPUT_TEXT_H

#include <inttypes.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "output.h"
#include "clean.h"
#include "units.h"

#define NAME_WIDTH      27 /* the least name column, as users know it */
#define STATEMENT_LINE  100 /* the statement above a sample */
#define TOTAL_LABEL     "(thread total)"
#define CELL            32 /* room for any number the text format writes */

static inline size_t
max_size(size_t a, size_t b)
{
	return a > b ? a : b;
}

/* Every instrument the program sees is a memory/ one: the prefix is noise. */
static inline const char *
short_name(const char *name)
{
	static const char prefix[] = "memory/";

	/*
	 * Byte by byte, stopping at the first that differs (a NUL among
	 * them): strncmp() cost more than the rest of a row's name.
	 */
	for (size_t i = 0; i < sizeof(prefix) - 1; i++)
		if (name[i] != prefix[i])
			return name;
	return name + sizeof(prefix) - 1;
}

/* v as text writes bytes, into buf (CELL bytes); returns its length. */
static inline size_t
fmt_bytes(const struct output *o, int64_t v, char *buf)
{
	if (o->settings.exact_bytes)
		return (size_t)snprintf(buf, CELL, "%" PRId64, v);
	return units_bytes(v, buf, CELL);
}

static inline void
put_statement_text(struct obuf *b, const struct statement *st)
{
	if (statement_text_len(st) > 0)
		clean_cut_len(b, st->text, statement_text_len(st),
		    STATEMENT_LINE);
	else if (st->has_id)
		obuf_printf(b, "(statement %" PRIu64 ", no text)", st->id);
	else
		obuf_puts(b, "(none)");
}

/* "(thread total)", or for another grain "(global total)", "(user:app total)". */
static inline const char *
total_label(const struct output *o, char *buf, size_t len)
{
	if (o->grain == NULL)
		return TOTAL_LABEL;
	snprintf(buf, len, "(%s total)", o->grain);
	return buf;
}


/* The summary at the end of a capture (output_text_summary.c). */
int output_text_end(struct output *o, const struct summary *s);
/* --statements: the ranking the summary shows (output_text_summary.c). */
int output_text_statements(struct output *o, const struct summary *s);
/* --list: a table of thread_columns[] (output_text_list.c). */
int output_text_threads(struct output *o, const struct thread_list *l);

#endif
