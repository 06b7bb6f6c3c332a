/*
 * libFuzzer harness for the capture reader (jsonl.h) and the picture drawn
 * from what it reads: any bytes as a line must be refused with a message
 * or give a sample; a sample read back is written by --format json and
 * read again to the same line, and the HTML and SVG of it must not crash.
 * The same bytes as a record's connections line (conns_lines.h): read
 * into a book, the book written as a line is read back to as many rows.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "conns_lines.h"
#include "jsonl.h"
#include "output.h"
#include "output_table.h"
#include "summary.h"

#define MAX_EVENTS 16

static char *
write_as(const char *format, const struct sample *s, const char *grain,
    bool filtered, bool end)
{
	char *buf = NULL;
	size_t len = 0;
	struct output o = {
		.fmt = output_table_find(format), .grain = grain, .filtered = filtered,
	};
	struct summary sum = { .thread_id = s->thread_id };

	o.fp = open_memstream(&buf, &len);
	if (output_sample(&o, s) != 0 || (end && output_end(&o, &sum) != 0))
		abort();
	output_release(&o);
	fclose(o.fp);
	return buf;
}

/* The bytes as a connections line of --record. */
static void
connections(const uint8_t *data, size_t size)
{
	struct conns_book book = { 0 }, empty = { 0 }, back = { 0 };
	struct obuf b = { 0 };

	if (conns_line_apply(&book, (const char *)data, size) == 0) {
		if (conns_line_put(&b, &empty, book.v, book.n, true, 0) != 1 ||
		    conns_line_apply(&back, b.p, b.len - 1) != 0 ||
		    back.n != book.n)
			abort(); /* what we wrote, we must read */
	}
	obuf_free(&b);
	conns_book_free(&book);
	conns_book_free(&empty);
	conns_book_free(&back);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct event_stat ev[MAX_EVENTS], ev2[MAX_EVENTS];
	struct sample s = { .events = ev }, again = { .events = ev2 };
	struct jsonl_meta meta = { 0 }, meta2 = { 0 };
	char err[512], *line, *line2;

	int rc;

	connections(data, size);
	err[0] = '\0';
	rc = jsonl_sample((const char *)data, size, &s, MAX_EVENTS, &meta, err,
	    sizeof(err));
	if (rc == 1)
		return 0; /* not a sample: passed over */
	if (rc != 0) {
		if (err[0] == '\0')
			abort(); /* refused without a word */
		jsonl_meta_free(&meta);
		return 0;
	}
	line = write_as("json", &s, meta.has_grain ? meta.grain : NULL,
	    meta.filtered, false);
	if (jsonl_sample(line, strlen(line) - 1, &again, MAX_EVENTS, &meta2,
	    err, sizeof(err)) != 0)
		abort(); /* what we wrote, we must read */
	line2 = write_as("json", &again, meta2.has_grain ? meta2.grain : NULL,
	    meta2.filtered, false);
	if (strcmp(line, line2) != 0)
		abort();
	free(line);
	free(line2);
	free(write_as("svg", &s, NULL, false, true));
	free(write_as("html", &s, NULL, false, true));
	jsonl_meta_free(&meta);
	jsonl_meta_free(&meta2);
	return 0;
}
