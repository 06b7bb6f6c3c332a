/*
 * CSV as RFC 4180 has it: CRLF line ends, text fields quoted, integers
 * bare so spreadsheets read them as numbers. Names are written byte for
 * byte, as the server gave them, but for a NUL and a leading formula
 * character (see put_text()).
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
 * after it, and a reader of the file must see that it does.
 */
static void
put_text(FILE *fp, const char *s, size_t n)
{
	putc_unlocked('"', fp);
	/*
	 * A spreadsheet runs a cell that begins with one of these as a
	 * formula, and any client can make its statement text
	 * =HYPERLINK(...): as OWASP recommends, a single quote before it
	 * makes it text again.
	 */
	if (n > 0 && memchr("=+-@\t\r", s[0], 6) != NULL)
		putc_unlocked('\'', fp);
	for (size_t i = 0; i < n; i++) {
		if (s[i] == '"')
			putc_unlocked('"', fp);
		if (s[i] == '\0')
			fputs_unlocked("\\0", fp);
		else
			putc_unlocked(s[i], fp);
	}
	putc_unlocked('"', fp);
}

/*
 * One field, after the comma that comes before it unless it is the first:
 * a null is empty, text is quoted, integers are bare.
 */
static void
put_field(FILE *fp, bool first, enum column_kind kind, bool known,
    const union column_value *v)
{
	char buf[OUTPUT_INT_MAX];

	if (!first)
		putc_unlocked(',', fp);
	if (!known)
		return;
	switch (kind) {
	case COLUMN_INT:
		fwrite_unlocked(buf, 1, output_int(buf, v->i), fp);
		break;
	case COLUMN_UINT:
		fwrite_unlocked(buf, 1, output_uint(buf, v->u), fp);
		break;
	case COLUMN_TEXT:
		put_text(fp, v->s, v->len);
		break;
	}
}

static int
csv_begin(struct output *o)
{
	for (size_t j = 0; j < SAMPLE_COLUMNS; j++) {
		if (j > 0)
			putc(',', o->fp);
		fputs(sample_columns[j].name, o->fp);
	}
	fputs(CRLF, o->fp);
	return output_status(o->fp);
}

/* One row; e is NULL for a sample that kept no event. */
static void
put_row(const struct output *o, const struct sample *s, const char *ts,
    const struct event_stat *e)
{
	const struct sample_row r = { .o = o, .s = s, .e = e, .timestamp = ts };
	union column_value v;

	for (size_t j = 0; j < SAMPLE_COLUMNS; j++) {
		const struct sample_column *c = &sample_columns[j];

		put_field(o->fp, j == 0, c->kind, sample_column_get(c, &r, &v),
		    &v);
	}
	fputs_unlocked(CRLF, o->fp);
}

static int
csv_sample(struct output *o, const struct sample *s)
{
	char ts[64];

	units_timestamp(s->wall_ms, ts, sizeof(ts));
	/* A sample without events still gets its row, so none is lost. */
	if (s->n_events == 0)
		put_row(o, s, ts, NULL);
	for (size_t i = 0; i < s->n_events; i++)
		put_row(o, s, ts, &s->events[i]);
	return output_status(o->fp);
}

static int
csv_threads(struct output *o, const struct thread_list *l)
{
	union column_value v;

	for (size_t j = 0; j < THREAD_COLUMNS; j++) {
		if (j > 0)
			putc(',', o->fp);
		fputs(thread_columns[j].name, o->fp);
	}
	fputs(CRLF, o->fp);
	for (size_t i = 0; i < l->n; i++) {
		for (size_t j = 0; j < THREAD_COLUMNS; j++) {
			const struct thread_column *c = &thread_columns[j];

			put_field(o->fp, j == 0, c->kind, c->get(&l->v[i], &v),
			    &v);
		}
		fputs(CRLF, o->fp);
	}
	return output_status(o->fp);
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
			putc(',', o->fp);
		fputs(statement_columns[j].name, o->fp);
	}
	fputs(CRLF, o->fp);
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

			put_field(o->fp, j == 0, c->kind, c->get(&r, &v), &v);
		}
		fputs(CRLF, o->fp);
	}
	return output_status(o->fp);
}

/* CSV has no footer: the summary is for people, who read the text format. */
const struct format format_csv = {
	.name = "csv",
	.begin = csv_begin,
	.sample = csv_sample,
	.threads = csv_threads,
	.statements = csv_statements,
};
