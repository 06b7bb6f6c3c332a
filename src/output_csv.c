/*
 * CSV as RFC 4180 has it: CRLF line ends, text fields quoted, integers
 * bare so spreadsheets read them as numbers. Names are written byte for
 * byte, as the server gave them, but for a NUL and a leading formula
 * character (see output_csv_put_text()).
 */
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "output.h"
#include "output_format.h"
#include "units.h"

#define CRLF "\r\n"

/*
 * A text field, quoted with its quotes doubled as libcsv's csv_fwrite()
 * does, and kept from running as a formula. A NUL byte is written as \0,
 * as MySQL's SELECT ... INTO OUTFILE writes it: the statement goes on
 * after it, and a reader of the file must see that it does. What lies
 * between two quotes or NULs is copied in one piece.
 */
void
output_csv_put_text(struct obuf *b, const char *s, size_t n)
{
	const char *end = s + n, *quote, *nul, *stop;

	obuf_putc(b, '"');
	/*
	 * A spreadsheet runs a cell that begins with one of these as a
	 * formula, and any client can make its statement text
	 * =HYPERLINK(...): as OWASP recommends, a single quote before it
	 * makes it text again.
	 */
	if (n > 0 && memchr("=+-@\t\r", s[0], 6) != NULL)
		obuf_putc(b, '\'');
	quote = memchr(s, '"', n);
	nul = memchr(s, '\0', n);
	for (;;) {
		stop = quote == NULL || (nul != NULL && nul < quote) ? nul : quote;
		if (stop == NULL)
			break;
		obuf_write(b, s, (size_t)(stop - s));
		s = stop + 1;
		if (stop == quote) {
			obuf_write(b, "\"\"", 2);
			quote = memchr(s, '"', (size_t)(end - s));
		} else {
			obuf_write(b, "\\0", 2);
			nul = memchr(s, '\0', (size_t)(end - s));
		}
	}
	obuf_write(b, s, (size_t)(end - s));
	obuf_putc(b, '"');
}

/*
 * One field, after the comma that comes before it unless it is the first:
 * a null is empty, text is quoted, integers are bare.
 */
static void
put_field(struct obuf *b, bool first, enum column_kind kind,
    bool known, const union column_value *v)
{
	if (!first)
		obuf_putc(b, ',');
	if (!known)
		return;
	switch (kind) {
	case COLUMN_INT:
		obuf_int(b, v->i);
		break;
	case COLUMN_UINT:
		obuf_uint(b, v->u);
		break;
	case COLUMN_NAME:
		if (v->plain) {
			obuf_putc(b, '"');
			obuf_write(b, v->s, v->len);
			obuf_putc(b, '"');
			break;
		}
		/* FALLTHROUGH */
	case COLUMN_TEXT:
		output_csv_put_text(b, v->s, v->len);
		break;
	}
}

static int
csv_begin(struct output *o)
{
	for (size_t j = 0; j < SAMPLE_COLUMNS; j++) {
		if (j > 0)
			obuf_putc(&o->buf, ',');
		obuf_puts(&o->buf, sample_columns[j].name);
	}
	obuf_write(&o->buf, CRLF, 2);
	return obuf_status(&o->buf);
}

/*
 * The sample-level columns are the same in every row of a sample (the
 * statement among them, the longest field), so they are written once, in
 * o->scratch, each run of them with the commas before its fields; a run
 * starts at a column that follows an event column. span[j] is the run
 * that starts at column j, and where the next event column is.
 */
struct span {
	size_t from, to; /* bytes of o->scratch */
	size_t next;     /* the column after the run */
};

static void
put_sample_fields(struct output *o, const struct sample *s, const char *ts,
    struct span span[SAMPLE_COLUMNS])
{
	const struct sample_row r = { .o = o, .s = s, .timestamp = ts };
	struct obuf *b = &o->scratch;
	union column_value v;
	size_t at = 0;

	obuf_clear(b);
	for (size_t j = 0; j < SAMPLE_COLUMNS; j++) {
		const struct sample_column *c = &sample_columns[j];

		if (c->level != COLUMN_SAMPLE)
			continue;
		if (j == 0 || sample_columns[j - 1].level != COLUMN_SAMPLE) {
			at = j;
			span[at].from = b->len;
		}
		put_field(b, j == 0, c->kind, sample_column_get(c, &r, &v),
		    &v);
		span[at].to = b->len;
		span[at].next = j + 1;
	}
}

/*
 * An event column that is a field of e (its at), after its comma: loaded,
 * not asked of its getter, and written in place, null (empty) for a delta
 * of a sample without deltas.
 */
static void
put_loaded(struct obuf *b, const struct sample_column *c,
    const struct event_stat *e, bool deltas)
{
	uint64_t u = sample_column_load(c, e);
	char *p;

	if (b->cap - b->len < 1 + OUTPUT_INT_MAX &&
	    !obuf_grow(b, 1 + OUTPUT_INT_MAX))
		return;
	p = b->p + b->len;
	*p++ = ',';
	if (!c->deltas || deltas)
		p += c->kind == COLUMN_UINT ? obuf_uint_digits(p, u) :
		    obuf_int_digits(p, (int64_t)u);
	b->len = (size_t)(p - b->p);
}

/* One row; e is NULL for a sample that kept no event. */
static void
put_row(struct output *o, const struct sample *s, const struct span *span,
    const struct event_stat *e)
{
	const struct sample_row r = { .o = o, .s = s, .e = e };
	struct obuf *b = &o->buf;
	union column_value v;

	for (size_t j = 0; j < SAMPLE_COLUMNS;) {
		const struct sample_column *c = &sample_columns[j];

		if (c->level == COLUMN_SAMPLE) {
			obuf_write(b, o->scratch.p + span[j].from,
			    span[j].to - span[j].from);
			j = span[j].next;
			continue;
		}
		if (c->at != 0 && e != NULL && j > 0)
			put_loaded(b, c, e, s->has_deltas);
		else
			put_field(b, j == 0, c->kind,
			    sample_column_get(c, &r, &v), &v);
		j++;
	}
	obuf_write(b, CRLF, 2);
}

static int
csv_sample(struct output *o, const struct sample *s)
{
	struct span span[SAMPLE_COLUMNS];
	char ts[64];

	units_timestamp(s->wall_ms, ts, sizeof(ts));
	put_sample_fields(o, s, ts, span);
	if (obuf_status(&o->scratch) != 0)
		return -1;
	/* A sample without events still gets its row, so none is lost. */
	if (s->n_events == 0)
		put_row(o, s, span, NULL);
	for (size_t i = 0; i < s->n_events; i++)
		put_row(o, s, span, &s->events[i]);
	return obuf_status(&o->buf);
}

static int
csv_threads(struct output *o, const struct thread_list *l)
{
	union column_value v;

	for (size_t j = 0; j < THREAD_COLUMNS; j++) {
		if (j > 0)
			obuf_putc(&o->buf, ',');
		obuf_puts(&o->buf, thread_columns[j].name);
	}
	obuf_write(&o->buf, CRLF, 2);
	for (size_t i = 0; i < l->n; i++) {
		for (size_t j = 0; j < THREAD_COLUMNS; j++) {
			const struct thread_column *c = &thread_columns[j];

			put_field(&o->buf, j == 0, c->kind, c->get(&l->v[i], &v),
			    &v);
		}
		obuf_write(&o->buf, CRLF, 2);
	}
	return obuf_status(&o->buf);
}

/*
 * --statements: a header, then one row per statement, the most growth
 * first. A later capture of --repeat adds its rows to a file that has
 * them already: no second header then.
 */
static int
csv_statements(struct output *o, const struct summary *sum)
{
	union column_value v;
	char first[64], last[64];
	struct stat st;
	int fd = fileno(o->fp);

	if (fd >= 0 && fstat(fd, &st) == 0 && S_ISREG(st.st_mode) &&
	    st.st_size > 0)
		goto rows;
	for (size_t j = 0; j < STATEMENT_COLUMNS; j++) {
		if (j > 0)
			obuf_putc(&o->buf, ',');
		obuf_puts(&o->buf, statement_columns[j].name);
	}
	obuf_write(&o->buf, CRLF, 2);
rows:
	for (size_t i = 0; i < sum->n_run_statements; i++) {
		const struct run_statement *rs = &sum->run_statements[i];
		struct statement_row r = { .st = rs, .rank = i + 1,
		    .thread_id = sum->thread_id, .first_timestamp = first,
		    .last_timestamp = last };

		units_timestamp(rs->first_wall_ms, first, sizeof(first));
		units_timestamp(rs->last_wall_ms, last, sizeof(last));
		for (size_t j = 0; j < STATEMENT_COLUMNS; j++) {
			const struct statement_column *c = &statement_columns[j];

			put_field(&o->buf, j == 0, c->kind, c->get(&r, &v), &v);
		}
		obuf_write(&o->buf, CRLF, 2);
	}
	return obuf_status(&o->buf);
}

/* CSV has no footer: the summary is for people, who read the text format. */
const struct format format_csv = {
	.name = "csv",
	.begin = csv_begin,
	.sample = csv_sample,
	.threads = csv_threads,
	.statements = csv_statements,
};
