/*
 * CSV as RFC 4180 has it: CRLF line ends, text fields quoted, integers
 * bare so spreadsheets read them as numbers. Names are written byte for
 * byte, as the server gave them, but for a NUL and a leading formula
 * character (see output_csv_put_text()).
 */
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "output.h"
#include "output_format.h"
#include "units.h"
#include "utc.h"

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
 * A row is runs of columns of one level: the sample-level ones are the
 * same in every row of a sample (the statement among them, the longest
 * field), so they are written once, in o->scratch; an event's are written
 * into a buffer of their own, kept for the next sample (struct
 * csv_state). Each run is written with the commas before its fields; a
 * run starts at a column that follows one of the other level. span[j] is
 * the run that starts at column j, and where the next run starts.
 */
struct span {
	size_t from, to; /* bytes of its buffer */
	size_t next;     /* the column after the run */
};

/*
 * What CSV keeps between samples: the runs of the event written at each of
 * the first places of the last sample, written again while the event is
 * the same (output_format.h), as most of an idle thread's top events are:
 * copying them cost a tenth of writing their fifteen fields.
 */
#define KEPT_EVENTS 16
struct event_runs {
	struct output_event_key key;
	bool kept;
	struct obuf bytes;
	struct span span[SAMPLE_COLUMNS];
};

struct csv_state {
	struct event_runs kept[KEPT_EVENTS];
	struct event_runs other; /* a place beyond those, or no event */
	/*
	 * The sample's columns after the last event column, tail[0..n_tail):
	 * the same in most samples (output_run_same()).
	 */
	struct output_run_kept kept_tail;
	size_t tail[SAMPLE_COLUMNS], n_tail;
};

static void *
csv_init(const struct output_settings *set)
{
	struct csv_state *st = calloc(1, sizeof(struct csv_state));
	size_t j = SAMPLE_COLUMNS;

	(void)set;
	if (st == NULL)
		return NULL;
	while (j > 0 && sample_columns[j - 1].level == COLUMN_SAMPLE)
		j--;
	for (; j < SAMPLE_COLUMNS; j++)
		st->tail[st->n_tail++] = j;
	return st;
}

static void
csv_free(void *state)
{
	struct csv_state *st = state;

	for (size_t i = 0; i < KEPT_EVENTS; i++)
		obuf_free(&st->kept[i].bytes);
	obuf_free(&st->other.bytes);
	output_run_kept_free(&st->kept_tail);
	free(st);
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

/*
 * A field of a run: a number is written in place after its comma, room
 * made once for both, where a call for each cost a third of the field;
 * text and null as put_field() writes them.
 */
static void
put_value(struct obuf *b, bool first, enum column_kind kind, bool known,
    const union column_value *v)
{
	char *p;

	if (!known || kind == COLUMN_TEXT || kind == COLUMN_NAME) {
		put_field(b, first, kind, known, v);
		return;
	}
	if (b->cap - b->len < 1 + OUTPUT_INT_MAX &&
	    !obuf_grow(b, 1 + OUTPUT_INT_MAX))
		return;
	p = b->p + b->len;
	if (!first)
		*p++ = ',';
	p += kind == COLUMN_UINT ? obuf_uint_digits(p, v->u) :
	    obuf_int_digits(p, v->i);
	b->len = (size_t)(p - b->p);
}

/*
 * The runs of the columns of one level into b, their spans in span: the
 * sample's (r->e unused), or the event r->e's (NULL: a sample that kept
 * no event, whose event columns are null).
 */
static void
put_runs(struct obuf *b, const struct sample_row *r, enum column_level level,
    struct span span[SAMPLE_COLUMNS], size_t to)
{
	union column_value v;

	obuf_clear(b);
	for (size_t j = 0; j < to;) {
		size_t at = j;

		if (sample_columns[j].level != level) {
			j++;
			continue;
		}
		/* A run's span is set at its ends, not at each field. */
		span[at].from = b->len;
		for (; j < to && sample_columns[j].level == level; j++) {
			const struct sample_column *c = &sample_columns[j];

			if (c->at != 0 && r->e != NULL && j > 0)
				put_loaded(b, c, r->e, r->s->has_deltas);
			else
				put_value(b, j == 0, c->kind,
				    sample_column_get(c, r, &v), &v);
		}
		span[at].to = b->len;
		span[at].next = j;
	}
}

/*
 * The event columns of event i of s (none: i == n_events, for a sample
 * that kept no event), from what was kept of it when it is the same.
 */
static const struct event_runs *
event_runs(struct output *o, struct csv_state *st, const struct sample *s,
    size_t i)
{
	const struct event_stat *e = i < s->n_events ? &s->events[i] : NULL;
	struct event_runs *k = e != NULL && i < KEPT_EVENTS ? &st->kept[i] :
	    &st->other;
	const struct sample_row r = { .o = o, .s = s, .e = e };

	if (k->kept && output_event_same(&k->key, e, s->has_deltas))
		return k;
	put_runs(&k->bytes, &r, COLUMN_EVENT, k->span, SAMPLE_COLUMNS);
	k->kept = k != &st->other && !k->bytes.failed;
	if (k->kept)
		output_event_keep(&k->key, e, s->has_deltas);
	return k;
}

/* One row: the runs of both levels in column order. */
static void
put_row(struct output *o, const struct span *span,
    const struct event_runs *ev)
{
	struct obuf *b = &o->buf;
	/* Room for the whole row at once: its runs are all the two buffers hold. */
	size_t room = o->scratch.len + ev->bytes.len + 2;
	char *p;

	if (b->cap - b->len < room && !obuf_grow(b, room))
		return;
	p = b->p + b->len;
	for (size_t j = 0; j < SAMPLE_COLUMNS;) {
		const struct obuf *from = &o->scratch;
		const struct span *sp = &span[j];

		if (sample_columns[j].level == COLUMN_EVENT) {
			from = &ev->bytes;
			sp = &ev->span[j];
		}
		memcpy(p, from->p + sp->from, sp->to - sp->from);
		p += sp->to - sp->from;
		j = sp->next;
	}
	memcpy(p, CRLF, 2);
	b->len = (size_t)(p + 2 - b->p);
}

/*
 * The sample's runs into o->scratch, the last one from the bytes kept of
 * it while its values stay the same.
 */
static void
put_sample_runs(struct output *o, struct csv_state *st,
    const struct sample_row *r, struct span span[SAMPLE_COLUMNS])
{
	struct obuf *b = &o->scratch;
	size_t from, at = st->n_tail > 0 ? st->tail[0] : SAMPLE_COLUMNS;

	put_runs(b, r, COLUMN_SAMPLE, span, at);
	if (at == SAMPLE_COLUMNS)
		return;
	from = b->len;
	span[at].from = from;
	span[at].next = SAMPLE_COLUMNS;
	if (output_run_same(&st->kept_tail, r, st->tail, st->n_tail))
		obuf_write(b, st->kept_tail.written.p,
		    st->kept_tail.written.len);
	else {
		union column_value v;

		for (size_t k = 0; k < st->n_tail; k++) {
			const struct sample_column *c =
			    &sample_columns[st->tail[k]];

			put_value(b, st->tail[k] == 0, c->kind,
			    sample_column_get(c, r, &v), &v);
		}
		if (!b->failed)
			output_run_keep(&st->kept_tail, r, st->tail, st->n_tail,
			    b->p + from, b->len - from);
	}
	span[at].to = b->len;
}

static int
csv_sample(struct output *o, const struct sample *s)
{
	struct csv_state *st = o->state;
	struct span span[SAMPLE_COLUMNS];
	char ts[64];
	const struct sample_row r = { .o = o, .s = s, .timestamp = ts };

	utc_format(ts, sizeof(ts), s->wall_ms, UTC_STAMP);
	put_sample_runs(o, st, &r, span);
	if (obuf_status(&o->scratch) != 0)
		return -1;
	/* A sample without events still gets its row, so none is lost. */
	for (size_t i = 0; i < s->n_events || i == 0; i++) {
		const struct event_runs *ev = event_runs(o, st, s, i);

		if (obuf_status(&ev->bytes) != 0)
			return -1;
		put_row(o, span, ev);
	}
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

		utc_format(first, sizeof(first), rs->first_wall_ms, UTC_STAMP);
		utc_format(last, sizeof(last), rs->last_wall_ms, UTC_STAMP);
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
	.init = csv_init,
	.free = csv_free,
	.begin = csv_begin,
	.sample = csv_sample,
	.threads = csv_threads,
	.statements = csv_statements,
};
