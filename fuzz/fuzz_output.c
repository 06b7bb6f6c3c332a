/*
 * libFuzzer harness for the output formats: whatever bytes an event name
 * holds and whatever values the counters have, CSV must parse back (libcsv,
 * strict) to the same fields in every row, every JSON line must be valid
 * JSON that gives the name back when it was valid UTF-8, folded must give
 * one line per event with one frame per part of its name, and text, pprof
 * and the summary must not crash.
 */
#include <csv.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../tests/unit/json_check.h"
#include "output.h"
#include "../src/output_format.h"
#include "output_table.h"
#include "ring.h"
#include "runstats.h"
#include "summary.h"

#define MAX_EVENTS 6

struct input {
	const uint8_t *p;
	size_t left;
};

static uint64_t
take_u64(struct input *in)
{
	uint64_t v = 0;

	for (int i = 0; i < 8 && in->left > 0; i++, in->p++, in->left--)
		v = v << 8 | *in->p;
	return v;
}

/* A name: a length byte, then that many bytes (NULs end it early). */
static void
take_name(struct input *in, char *name)
{
	size_t n = in->left > 0 ? *in->p % 64 : 0;

	if (in->left > 0) {
		in->p++;
		in->left--;
	}
	if (n > in->left)
		n = in->left;
	memcpy(name, in->p, n);
	name[n] = '\0';
	in->p += n;
	in->left -= n;
}

static bool
valid_utf8(const char *s)
{
	struct json j;
	char buf[EVENT_NAME_MAX * 2 + 16];
	size_t n = strlen(s);

	/* Quote it raw: the checker accepts it only if it is valid UTF-8. */
	if (n + 3 > sizeof(buf) || strpbrk(s, "\"\\") != NULL)
		return false;
	for (const char *p = s; *p != '\0'; p++)
		if ((unsigned char)*p < 0x20)
			return false;
	snprintf(buf, sizeof(buf), "{\"x\":\"%s\"}", s);
	return json_check_object(&j, buf, strlen(buf));
}

static char *
render(const char *format, const struct ring *r, const struct summary *sum,
    size_t *len)
{
	struct output o = { .fmt = output_table_find(format) };
	char *buf = NULL;

	o.fp = open_memstream(&buf, len);
	if (o.fp == NULL)
		abort();
	if (output_begin(&o) != 0)
		abort();
	for (size_t i = 0; i < ring_len(r); i++)
		if (output_sample(&o, ring_get(r, i)) != 0)
			abort();
	if (output_end(&o, sum) != 0)
		abort();
	output_release(&o);
	fclose(o.fp);
	return buf;
}

/* What --statements writes in the format. */
static char *
render_statements(const char *format, const struct summary *sum, size_t *len)
{
	struct output o = { .fmt = output_table_find(format) };
	char *buf = NULL;

	if ((o.fp = open_memstream(&buf, len)) == NULL)
		abort();
	if (output_statements(&o, sum) != 0)
		abort();
	output_release(&o);
	fclose(o.fp);
	return buf;
}

struct csv_check {
	size_t field, rows, header_fields;
	const struct sample *s;
	bool bad;
};

/*
 * Whether a CSV field is want, byte for byte, after the single quote put
 * before a cell a spreadsheet would run as a formula.
 */
static bool
same_cell(const char *data, size_t len, const char *want)
{
	if (want[0] != '\0' && strchr("=+-@\t\r", want[0]) != NULL) {
		if (len == 0 || data[0] != '\'')
			return false;
		data++;
		len--;
	}
	return len == strlen(want) && memcmp(data, want, len) == 0;
}

/* Where a column of sample_columns[] is: the CSV header's order. */
static size_t
column_of(const char *name)
{
	for (size_t j = 0; j < SAMPLE_COLUMNS; j++)
		if (strcmp(sample_columns[j].name, name) == 0)
			return j;
	abort();
}

static void
on_field(void *data, size_t len, void *ctx)
{
	struct csv_check *c = ctx;

	/* The event name must come back byte for byte. */
	if (c->rows > 0 && c->field == column_of("event_name")) {
		size_t row = c->rows - 1;
		const char *want = row < c->s->n_events ?
		    c->s->events[row].name : "";
		if (!same_cell(data, len, want))
			c->bad = true;
	}
	/* The statement's text: likewise, in every row. */
	if (c->rows > 0 && c->field == column_of("statement") &&
	    !same_cell(data, len, c->s->statement.text))
		c->bad = true;
	c->field++;
}

static void
on_row(int term, void *ctx)
{
	struct csv_check *c = ctx;

	(void)term;
	if (c->rows == 0)
		c->header_fields = c->field;
	else if (c->field != c->header_fields)
		c->bad = true;
	c->rows++;
	c->field = 0;
}

static void
check_csv(const char *buf, size_t len, const struct sample *s)
{
	struct csv_check c = { .s = s };
	struct csv_parser p;

	if (csv_init(&p, CSV_STRICT | CSV_STRICT_FINI) != 0)
		abort();
	if (csv_parse(&p, buf, len, on_field, on_row, &c) != len ||
	    csv_fini(&p, on_field, on_row, &c) != 0)
		abort();
	csv_free(&p);
	if (c.bad || c.rows != 1 + (s->n_events > 0 ? s->n_events : 1))
		abort();
}

static void
check_json(const char *buf, size_t len, const struct sample *s)
{
	const char *nl = memchr(buf, '\n', len);
	struct json j;

	if (nl == NULL || (size_t)(nl - buf) + 1 != len)
		abort(); /* one sample, one line */
	if (!json_check_object(&j, buf, (size_t)(nl - buf)))
		abort();
	if (j.n_names != s->n_events)
		abort();
	for (size_t i = 0; i < s->n_events; i++)
		if (valid_utf8(s->events[i].name) &&
		    strcmp(j.names[i], s->events[i].name) != 0)
			abort();
}

/* A line per event; as many frames as the name has parts; a count last. */
static void
check_folded(const char *buf, size_t len, const struct sample *s)
{
	const char *p = buf, *end = buf + len;

	for (size_t i = 0; i < s->n_events; i++) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		const char *sp, *q;
		size_t semis = 0, slashes = 0;

		if (nl == NULL)
			abort();
		for (q = p; q < nl; q++)
			semis += *q == ';';
		for (q = s->events[i].name; *q != '\0'; q++)
			slashes += *q == '/';
		for (sp = nl; sp > p && sp[-1] != ' '; sp--)
			if (sp[-1] < '0' || sp[-1] > '9')
				abort();
		if (semis != slashes || sp == p || sp == nl)
			abort();
		p = nl + 1;
	}
	if (p != end)
		abort();
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct input in = { data, size };
	struct ring *r = ring_create(1, MAX_EVENTS);
	struct summary sum;
	struct runstats *run;
	struct sample *s;
	size_t len;
	char *buf;

	s = ring_slot(r);
	s->seq = take_u64(&in);
	s->elapsed_us = take_u64(&in);
	s->wall_ms = (int64_t)take_u64(&in);
	s->late_us = take_u64(&in);
	s->query_us = take_u64(&in);
	s->gap_ms = take_u64(&in);
	s->thread_id = take_u64(&in);
	s->total_bytes = (int64_t)take_u64(&in);
	s->has_deltas = in.left > 0 && (*in.p & 1);
	s->statement.has_id = s->seq & 1;
	s->statement.id = s->thread_id;
	take_name(&in, s->statement.digest);
	take_name(&in, s->statement.text);
	s->n_events = in.left > 0 ? *in.p % (MAX_EVENTS + 1) : 0;
	for (size_t i = 0; i < s->n_events; i++) {
		struct event_stat *e = &s->events[i];

		take_name(&in, e->name);
		e->current_bytes = (int64_t)take_u64(&in);
		e->current_count = (int64_t)take_u64(&in);
		e->high_bytes = (int64_t)take_u64(&in);
		e->alloc_bytes = take_u64(&in);
		e->free_bytes = take_u64(&in);
		e->alloc_count = take_u64(&in);
		e->free_count = take_u64(&in);
		e->delta.alloc_bytes = take_u64(&in);
		e->delta.free_count = take_u64(&in);
		e->delta.unseen_peak = e->alloc_count & 1;
		e->delta.spike_bytes = (int64_t)(e->free_count >> 1);
	}
	s->alloc_delta_bytes = take_u64(&in);
	s->between_peak_total = (int64_t)take_u64(&in);
	ring_commit(r);
	/* The whole run: this sample, twice, as two statements or one. */
	if ((run = runstats_create()) == NULL)
		abort();
	runstats_add(run, s);
	s->seq++;
	s->statement.id ^= s->seq & 2;
	runstats_add(run, s);
	if (summary_build(r, take_u64(&in), &sum) != 0 ||
	    summary_add_run(&sum, run) != 0)
		abort();
	runstats_free(run);

	buf = render("csv", r, &sum, &len);
	check_csv(buf, len, s);
	free(buf);
	buf = render("json", r, &sum, &len);
	check_json(buf, len, s);
	free(buf);
	free(render("text", r, &sum, &len));
	buf = render("folded", r, &sum, &len);
	check_folded(buf, len, s);
	free(buf);
	free(render("pprof", r, &sum, &len));
	free(render_statements("text", &sum, &len));
	free(render_statements("csv", &sum, &len));
	free(render_statements("json", &sum, &len));

	summary_free(&sum);
	ring_free(r);
	return 0;
}
