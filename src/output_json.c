/*
 * JSON Lines: one object per sample. Event names are bytes from the server,
 * so strings are escaped to be valid JSON whatever they hold.
 */
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "output.h"
#include "output_format.h"
#include "scrub.h"
#include "units.h"

static void
put_ascii(FILE *fp, unsigned char c)
{
	switch (c) {
	case '"':
		fputs("\\\"", fp);
		break;
	case '\\':
		fputs("\\\\", fp);
		break;
	case '\b':
		fputs("\\b", fp);
		break;
	case '\f':
		fputs("\\f", fp);
		break;
	case '\n':
		fputs("\\n", fp);
		break;
	case '\r':
		fputs("\\r", fp);
		break;
	case '\t':
		fputs("\\t", fp);
		break;
	default:
		if (c < 0x20 || c == 0x7f)
			fprintf(fp, "\\u%04x", c);
		else
			putc(c, fp);
	}
}

/*
 * Each byte that starts no well-formed UTF-8 sequence becomes U+FFFD, so a
 * name cut inside a character by the server still reads back. What
 * scrub.h keeps from terminals (DEL, the C1 controls, the line separators,
 * the bidi controls) needs no escape in JSON, but escaped it cannot reach
 * a terminal when someone reads the output with cat: statements come from
 * any client.
 */
static void
put_string(FILE *fp, const char *s, size_t n)
{
	size_t k;
	uint32_t cp;

	putc('"', fp);
	for (size_t i = 0; i < n; i += k) {
		if ((k = scrub_utf8(s + i, n - i, &cp)) == 0) {
			fputs("\\ufffd", fp);
			k = 1;
		} else if (k == 1)
			put_ascii(fp, (unsigned char)s[i]);
		else if (!scrub_shown(cp))
			fprintf(fp, "\\u%04x", (unsigned)cp);
		else
			fwrite(s + i, 1, k, fp);
	}
	putc('"', fp);
}

/*
 * A key and its value; the keys are the column names, which need no
 * escape. What follows the name is one write: a line has some 150 of them.
 */
static void
put_member(FILE *fp, const char *name, enum column_kind kind, bool known,
    const union column_value *v)
{
	char buf[2 + OUTPUT_INT_MAX] = "\":";
	size_t n = 2;

	putc_unlocked('"', fp);
	fputs_unlocked(name, fp);
	if (!known) {
		fputs_unlocked("\":null", fp);
		return;
	}
	switch (kind) {
	case COLUMN_INT:
		n += output_int(buf + n, v->i);
		break;
	case COLUMN_UINT:
		n += output_uint(buf + n, v->u);
		break;
	case COLUMN_TEXT:
		break;
	}
	fwrite_unlocked(buf, 1, n, fp);
	if (kind == COLUMN_TEXT)
		put_string(fp, v->s, v->len);
}

/*
 * Every event has every key, so each line has one shape: what the getters
 * call null is written as null.
 */
static void
put_events(FILE *fp, const struct sample_row *sample)
{
	struct sample_row r = *sample;
	union column_value v;

	fputs("\"events\":[", fp);
	for (size_t i = 0; i < r.s->n_events; i++) {
		char sep = '{';

		r.e = &r.s->events[i];
		if (i > 0)
			putc(',', fp);
		for (size_t j = 0; j < SAMPLE_COLUMNS; j++) {
			const struct sample_column *c = &sample_columns[j];

			if (c->level != COLUMN_EVENT)
				continue;
			putc(sep, fp);
			sep = ',';
			put_member(fp, c->name, c->kind,
			    sample_column_get(c, &r, &v), &v);
		}
		putc('}', fp);
	}
	putc(']', fp);
}

/* Where the event columns end, the "events" array stands (output_format.h). */
static size_t
events_at(void)
{
	size_t j = SAMPLE_COLUMNS - 1;

	while (sample_columns[j].level != COLUMN_EVENT)
		j--;
	return j;
}

static int
json_sample(struct output *o, const struct sample *s)
{
	char ts[64];
	struct sample_row r = { .o = o, .s = s, .timestamp = ts };
	size_t events = events_at();
	union column_value v;
	char sep = '{';

	units_timestamp(s->wall_ms, ts, sizeof(ts));
	for (size_t j = 0; j < SAMPLE_COLUMNS; j++) {
		const struct sample_column *c = &sample_columns[j];

		if (c->level == COLUMN_EVENT && j != events)
			continue;
		putc(sep, o->fp);
		sep = ',';
		if (j == events)
			put_events(o->fp, &r);
		else
			put_member(o->fp, c->name, c->kind,
			    sample_column_get(c, &r, &v), &v);
	}
	fputs("}\n", o->fp);
	return output_status(o->fp);
}

static int
json_threads(struct output *o, const struct thread_list *l)
{
	union column_value v;

	for (size_t i = 0; i < l->n; i++) {
		for (size_t j = 0; j < THREAD_COLUMNS; j++) {
			const struct thread_column *c = &thread_columns[j];

			putc(j == 0 ? '{' : ',', o->fp);
			put_member(o->fp, c->name, c->kind,
			    c->get(&l->v[i], &v), &v);
		}
		fputs("}\n", o->fp);
	}
	return output_status(o->fp);
}

/*
 * --statements: one line per statement, the most growth first, each
 * marked "type":"statement" so that it is never read as a sample.
 */
static int
json_statements(struct output *o, const struct summary *sum)
{
	union column_value v;
	char first[64], last[64];

	for (size_t i = 0; i < sum->n_run_statements; i++) {
		const struct run_statement *st = &sum->run_statements[i];
		struct statement_row r = { .st = st, .rank = i + 1,
		    .thread_id = sum->thread_id, .first_timestamp = first,
		    .last_timestamp = last };

		units_timestamp(st->first_wall_ms, first, sizeof(first));
		units_timestamp(st->last_wall_ms, last, sizeof(last));
		fputs("{\"type\":\"statement\"", o->fp);
		for (size_t j = 0; j < STATEMENT_COLUMNS; j++) {
			const struct statement_column *c = &statement_columns[j];

			putc(',', o->fp);
			put_member(o->fp, c->name, c->kind, c->get(&r, &v), &v);
		}
		fputs("}\n", o->fp);
	}
	return output_status(o->fp);
}

/* No header and no footer: every line stands alone, even after a crash. */
const struct format format_json = {
	.name = "json",
	.sample = json_sample,
	.threads = json_threads,
	.statements = json_statements,
};
