#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "chart.h"
#include "conns_lines.h"
#include "incident_page.h"
#include "incident_plot.h"
#include "jsonl.h"
#include "picture.h"
#include "units.h"
#include "utc.h"

/* The connections each table shows. */
#define PAGE_ROWS 10
/* Events a sample of the window keeps: more than the record writes. */
#define PAGE_EVENTS 256

static const char style[] =
"body{font-family:'DejaVu Sans',Helvetica,Arial,sans-serif;margin:1.5em;"
"color:#222;max-width:1200px}\n"
"h1{font-size:1.4em;margin:0 0 .3em}h2{font-size:1.1em;margin:1.6em 0 .4em}\n"
"p.what{font-size:1.1em;margin:.2em 0 1em}\n"
"figure{margin:0;overflow-x:auto}\n"
"table{border-collapse:collapse;font-size:.9em}\n"
"th,td{border:1px solid #ddd;padding:.25em .6em;text-align:right;"
"vertical-align:top;white-space:nowrap}\n"
"th{background:#f3f3f3}th.text{text-align:left}td.text{text-align:left;"
"font-family:monospace;white-space:pre-wrap;word-break:break-all;"
"max-width:50em}\n"
"tr:nth-child(even) td{background:#fafafa}\n"
"p.note{color:#666;font-size:.85em}\n";

/* What the window says of one connection: where it began, where it ended. */
struct grower {
	struct conn_row last;
	int64_t first_bytes, first_ms, last_ms;
	int64_t most_bytes;     /* the most it held at a record */
};

struct page {
	struct conns_book book;   /* the connections as the lines say */
	struct conns_change change; /* what the last line changed of it */
	int64_t line_ms;          /* when the last connections line was */
	struct grower *g;
	size_t n, cap;
	struct chart *chart;
	struct sample s;
	struct jsonl_meta meta;
	int64_t first_ms, last_ms;
};

static int
by_grower_id(const void *a, const void *b)
{
	const struct grower *x = a, *y = b;

	return x->last.connection_id < y->last.connection_id ? -1 :
	    x->last.connection_id > y->last.connection_id;
}

/*
 * The grower of a connection, made when new: kept in order of id, so that
 * a line of a thousand connections is a thousand binary searches.
 */
static struct grower *
grower_of(struct page *p, uint64_t id)
{
	size_t lo = 0, hi = p->n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (p->g[mid].last.connection_id < id)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo < p->n && p->g[lo].last.connection_id == id)
		return &p->g[lo];
	if (p->n == p->cap) {
		size_t cap = p->cap ? p->cap * 2 : 64;
		struct grower *g = realloc(p->g, cap * sizeof(*g));

		if (g == NULL)
			return NULL;
		p->g = g;
		p->cap = cap;
	}
	memmove(&p->g[lo + 1], &p->g[lo], (p->n - lo) * sizeof(*p->g));
	p->n++;
	memset(&p->g[lo], 0, sizeof(p->g[0]));
	p->g[lo].last.connection_id = id;
	p->g[lo].first_ms = -1;
	return &p->g[lo];
}

/* The grower of a connection, NULL when none was made. */
static struct grower *
grower_at(struct page *p, uint64_t id)
{
	struct grower key = { .last.connection_id = id };

	return p->n == 0 ? NULL : bsearch(&key, p->g, p->n, sizeof(key),
	    by_grower_id);
}

/*
 * After a connections line: the first and latest figures of each
 * connection it gave; one it took away was last seen at the line
 * before. Only what the line changed, not the whole book a line.
 */
static void
follow(struct page *p, int64_t ms)
{
	for (size_t i = 0; i < p->change.n_gone; i++) {
		struct grower *g = grower_at(p, p->change.gone[i]);

		if (g != NULL)
			g->last_ms = p->line_ms;
	}
	for (size_t i = 0; i < p->change.n_set; i++) {
		const struct conn_row *r = conns_book_find(&p->book,
		    p->change.set[i]);
		struct grower *g = grower_of(p, p->change.set[i]);

		if (g == NULL || r == NULL)
			return;
		if (g->first_ms < 0) {
			g->first_ms = ms;
			g->first_bytes = r->bytes;
		}
		g->last = *r;
		g->last_ms = ms;
		if (g->last.bytes > g->most_bytes)
			g->most_bytes = g->last.bytes;
	}
	p->line_ms = ms;
}

/* Those still there at the end were seen at the last line. */
static void
follow_end(struct page *p)
{
	for (size_t i = 0; i < p->book.n; i++) {
		struct grower *g = grower_at(p, p->book.v[i].connection_id);

		if (g != NULL)
			g->last_ms = p->line_ms;
	}
}

static void
cell_bytes(FILE *fp, int64_t b)
{
	char buf[64];

	if (b < 0) {
		fputs("<td>-</td>", fp);
		return;
	}
	units_bytes(b, buf, sizeof(buf));
	fprintf(fp, "<td title=\"%" PRId64 " bytes\">%s</td>", b, buf);
}

static void
cell_text(FILE *fp, const char *s)
{
	fputs("<td class=\"text\">", fp);
	picture_text(fp, s, strlen(s), 0);
	fputs("</td>", fp);
}

static void
row(FILE *fp, const struct conn_row *r, int64_t growth, int64_t at_ms)
{
	char who[400];

	fprintf(fp, "<tr><td>%" PRIu64 "</td>", r->connection_id);
	snprintf(who, sizeof(who), "%s@%s", r->user, r->host);
	cell_text(fp, who);
	cell_bytes(fp, r->bytes);
	cell_bytes(fp, r->peak_bytes);
	if (growth != INT64_MIN)
		cell_bytes(fp, growth);
	/* The command comes from a file a person may have edited: escaped. */
	fputs("<td>", fp);
	picture_text(fp, r->command, strlen(r->command), 0);
	fprintf(fp, " %" PRId64 " s</td>", (at_ms - r->since_ms) / 1000);
	cell_text(fp, r->text[0] != '\0' ? r->text : r->digest);
	fputs("</tr>\n", fp);
}

static int
by_bytes(const void *a, const void *b)
{
	const struct conn_row *x = a, *y = b;

	return x->bytes < y->bytes ? 1 : x->bytes > y->bytes ? -1 : 0;
}

static int
by_growth(const void *a, const void *b)
{
	const struct grower *x = a, *y = b;
	int64_t gx = x->last.bytes - x->first_bytes;
	int64_t gy = y->last.bytes - y->first_bytes;

	return gx < gy ? 1 : gx > gy ? -1 : 0;
}

static void
holders(FILE *fp, struct page *p)
{
	size_t n = p->book.n < PAGE_ROWS ? p->book.n : PAGE_ROWS;

	fputs("<h2>The connections that held the most</h2>\n", fp);
	if (p->book.n == 0) {
		fputs("<p class=\"note\">No connection was recorded in the "
		    "window.</p>\n", fp);
		return;
	}
	qsort(p->book.v, p->book.n, sizeof(*p->book.v), by_bytes);
	fputs("<p class=\"note\">At the last record before the incident.</p>\n"
	    "<table class=\"holders\"><thead><tr><th>connection</th><th "
	    "class=\"text\">account</th><th>memory</th><th>its peak</th>"
	    "<th>doing, for</th><th class=\"text\">statement</th></tr>"
	    "</thead><tbody>\n", fp);
	for (size_t i = 0; i < n; i++)
		row(fp, &p->book.v[i], INT64_MIN, p->last_ms);
	fputs("</tbody></table>\n", fp);
}

static void
growers(FILE *fp, struct page *p)
{
	size_t n = p->n < PAGE_ROWS ? p->n : PAGE_ROWS;
	const struct grower *top;

	fputs("<h2>The connections that grew fastest</h2>\n", fp);
	if (p->n == 0)
		return;
	qsort(p->g, p->n, sizeof(*p->g), by_growth);
	top = &p->g[0];
	if (top->last.bytes > top->first_bytes && top->last_ms > top->first_ms)
		fprintf(fp, "<p class=\"what\">Connection %" PRIu64 " grew "
		    "fastest: %" PRId64 " MiB in %" PRId64 " s.</p>\n",
		    top->last.connection_id,
		    (top->last.bytes - top->first_bytes) >> 20,
		    (top->last_ms - top->first_ms + 999) / 1000);
	fputs("<table class=\"growers\"><thead><tr><th>connection</th><th "
	    "class=\"text\">account</th><th>memory</th><th>its peak</th>"
	    "<th>grew in the window</th><th>doing, for</th><th class=\"text\">"
	    "statement</th></tr></thead><tbody>\n", fp);
	for (size_t i = 0; i < n; i++)
		row(fp, &p->g[i].last, p->g[i].last.bytes - p->g[i].first_bytes,
		    p->last_ms);
	fputs("</tbody></table>\n", fp);
}

static int
by_most(const void *a, const void *b)
{
	const struct grower *x = a, *y = b;

	return x->most_bytes < y->most_bytes ? 1 :
	    x->most_bytes > y->most_bytes ? -1 : 0;
}

/* The connections that held the most at any record, over the window. */
static int
over_time(FILE *fp, struct page *p, const char *lines, size_t len)
{
	uint64_t ids[PLOT_CONNECTIONS];
	size_t n = p->n < PLOT_CONNECTIONS ? p->n : PLOT_CONNECTIONS;

	if (p->n == 0)
		return 0;
	qsort(p->g, p->n, sizeof(*p->g), by_most);
	for (size_t i = 0; i < n; i++)
		ids[i] = p->g[i].last.connection_id;
	fputs("<h2>The connections over the window</h2>\n<p class=\"note\">"
	    "Each second: the connections that held the most, the server's "
	    "resident memory and its cgroup's limit.</p>\n<figure>\n", fp);
	if (incident_plot(fp, lines, len, ids, n) != 0)
		return -1;
	fputs("</figure>\n", fp);
	return 0;
}

/*
 * cgroup v2's rows: memory.high, over which the kernel throttles the
 * server, the times it did, and how long its tasks waited for memory.
 */
static void
throttling(FILE *fp, const struct process_memory *m)
{
	char a[64];

	if (m->cgroup_high_bytes >= 0) {
		units_bytes(m->cgroup_high_bytes, a, sizeof(a));
		fprintf(fp, "<tr><th class=\"text\">memory.high</th><td>%s"
		    "</td></tr>", a);
	}
	if (m->cgroup_high_events >= 0)
		fprintf(fp, "<tr><th class=\"text\">throttled over it</th>"
		    "<td>%" PRId64 " times</td></tr>", m->cgroup_high_events);
	if (m->cgroup_pressure_some >= 0 && m->cgroup_pressure_full >= 0)
		fprintf(fp, "<tr><th class=\"text\">waited for memory, last "
		    "10 s</th><td>some %" PRId64 ".%02" PRId64 "%%, all %"
		    PRId64 ".%02" PRId64 "%%</td></tr>",
		    m->cgroup_pressure_some / 100, m->cgroup_pressure_some % 100,
		    m->cgroup_pressure_full / 100, m->cgroup_pressure_full % 100);
}

static void
evidence(FILE *fp, const struct incident *in)
{
	const struct process_memory *m = &in->process;
	char a[64], b[64];

	fputs("<h2>The limit that kills</h2>\n", fp);
	if (!m->has_cgroup) {
		fputs("<p class=\"note\">No memory cgroup of the server was "
		    "read: it runs elsewhere, or its cgroup has no memory "
		    "controller.</p>\n", fp);
	} else {
		units_bytes(m->cgroup_usage_bytes, a, sizeof(a));
		if (m->cgroup_limit_bytes >= 0)
			units_bytes(m->cgroup_limit_bytes, b, sizeof(b));
		else
			snprintf(b, sizeof(b), "no limit");
		fputs("<table><tbody><tr><th class=\"text\">cgroup</th>", fp);
		cell_text(fp, in->cgroup_dir);
		fprintf(fp, "</tr><tr><th class=\"text\">usage now</th><td>%s</td>"
		    "</tr><tr><th class=\"text\">limit</th><td>%s</td></tr>"
		    "<tr><th class=\"text\">OOM kills</th><td>", a, b);
		/* Below 0: the cgroup does not count them (v1 before 4.13). */
		if (m->cgroup_oom_kills >= 0)
			fprintf(fp, "%" PRId64, m->cgroup_oom_kills);
		else
			fputs("not counted", fp);
		fputs("</td></tr>", fp);
		throttling(fp, m);
		fputs("</tbody></table>\n", fp);
	}
	if (in->kmsg[0] != '\0') {
		fputs("<p>The kernel said: <code>", fp);
		picture_text(fp, in->kmsg, strlen(in->kmsg), 0);
		fputs("</code></p>\n", fp);
	}
}

/* Feeds the window's lines: samples to the chart, connections to the book. */
static int
read_lines(struct page *p, const char *lines, size_t len)
{
	size_t at = 0;
	char err[256];

	while (at < len) {
		const char *line = lines + at, *nl = memchr(line, '\n', len - at);
		size_t n = nl != NULL ? (size_t)(nl - line) : len - at;

		at += n + 1;
		/*
		 * At its own time: the window's first line, the connections
		 * at its start, comes before any sample.
		 */
		if (conns_line_follow(&p->book, line, n, &p->change) == 0) {
			follow(p, incident_line_ms(line, n));
			continue;
		}
		if (jsonl_sample(line, n, &p->s, PAGE_EVENTS, &p->meta, err,
		    sizeof(err)) != 0)
			continue;
		chart_add(p->chart, &p->s);
		if (p->first_ms == 0)
			p->first_ms = p->s.wall_ms;
		p->last_ms = p->s.wall_ms;
	}
	follow_end(p);
	return 0;
}

/* The last line of --explain's answer among the window's; NULL: none. */
static json_t *
last_layers(const char *lines, size_t len)
{
	static const char head[] = "{\"type\":\"explain\"";
	/* No lines is a NULL buffer, to which no offset may be added. */
	const char *at = lines, *found = NULL, *end = len > 0 ? lines + len :
	    lines;
	size_t found_len = 0;

	while (at < end) {
		const char *nl = memchr(at, '\n', (size_t)(end - at));
		size_t n = nl != NULL ? (size_t)(nl - at) : (size_t)(end - at);

		if (n > sizeof(head) && memcmp(at, head, sizeof(head) - 1) == 0) {
			found = at;
			found_len = n;
		}
		at += n + 1;
	}
	return found != NULL ? json_loadb(found, found_len, 0, NULL) : NULL;
}

static void
put_json_text(FILE *fp, json_t *s)
{
	if (json_is_string(s))
		picture_text(fp, json_string_value(s), json_string_length(s), 0);
}

/*
 * The server's memory in layers, as --record's last reading of the gap
 * (gap.h, every --layers-every) gave them before the incident.
 */
static void
layers(FILE *fp, const char *lines, size_t len)
{
	json_t *j = last_layers(lines, len), *l, *a;
	size_t i;

	if (j == NULL)
		return;
	fputs("<h2>The memory in layers, at ", fp);
	put_json_text(fp, json_object_get(j, "timestamp"));
	fputs("</h2>\n<table>\n<tr><th>bytes</th><th class=\"text\">layer"
	    "</th><th class=\"text\">from</th></tr>\n", fp);
	json_array_foreach(json_object_get(j, "layers"), i, l) {
		json_t *b = json_object_get(l, "bytes");

		fputs("<tr>", fp);
		if (json_is_integer(b))
			cell_bytes(fp, json_integer_value(b));
		else
			fputs("<td>-</td>", fp);
		fprintf(fp, "<td class=\"text\" style=\"padding-left:%dem\">",
		    1 + 2 * (int)json_integer_value(json_object_get(l,
		    "depth")));
		put_json_text(fp, json_object_get(l, "name"));
		fputs("</td><td class=\"text\">", fp);
		put_json_text(fp, json_object_get(l, "from"));
		fputs("</td></tr>\n", fp);
	}
	fputs("</table>\n", fp);
	if ((a = json_object_get(json_object_get(j, "allocator"), "says")) !=
	    NULL) {
		fputs("<p>Allocator: ", fp);
		put_json_text(fp, a);
		fputs(".</p>\n", fp);
	}
	l = json_object_get(j, "advice");
	if (json_array_size(l) > 0) {
		fputs("<ul>\n", fp);
		json_array_foreach(l, i, a) {
			fputs("<li>", fp);
			put_json_text(fp, a);
			fputs("</li>\n", fp);
		}
		fputs("</ul>\n", fp);
	}
	json_decref(j);
}

int
incident_page(FILE *fp, const struct incident *in, const char *lines,
    size_t len, const struct incident_heap *heap)
{
	struct page p = { 0 };
	char t[64];
	int rc = -1;

	p.chart = chart_create();
	p.s.events = calloc(PAGE_EVENTS, sizeof(*p.s.events));
	if (p.chart == NULL || p.s.events == NULL) {
		errno = ENOMEM;
		goto out;
	}
	read_lines(&p, lines, len);
	utc_format(t, sizeof(t), in->at_ms, UTC_STAMP);
	fprintf(fp, "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta "
	    "charset=\"utf-8\">\n<meta http-equiv=\"Content-Security-Policy\" "
	    "content=\"default-src 'none'; style-src 'unsafe-inline'\">\n"
	    "<title>mysqlmemprof: %s at %s</title>\n<style>\n%s</style>\n"
	    "</head>\n<body>\n<h1>Incident: %s at %s</h1>\n<p class=\"what\">",
	    incident_kind_name(in->kind), t, style,
	    incident_kind_name(in->kind), t);
	picture_text(fp, in->what, strlen(in->what), 0);
	fputs(".</p>\n", fp);
	evidence(fp, in);
	fputs("<h2>The minutes before</h2>\n", fp);
	if (p.chart->samples > 0) {
		fputs("<figure>\n", fp);
		picture_svg(fp, p.chart, "global", "global total");
		fputs("</figure>\n", fp);
	} else {
		fputs("<p class=\"note\">No sample was recorded in the "
		    "window.</p>\n", fp);
	}
	holders(fp, &p);
	if (over_time(fp, &p, lines, len) != 0)
		goto out;
	growers(fp, &p);
	layers(fp, lines, len);
	if (heap != NULL)
		incident_heap_section(fp, heap);
	fputs("<p class=\"note\">Written by mysqlmemprof --record; the "
	    "records of the window are in the .jsonl file beside this page "
	    "(mysqlmemprof --read FILE replays them).</p>\n</body>\n</html>\n",
	    fp);
	rc = ferror(fp) ? -1 : 0;
out:
	chart_free(p.chart);
	free(p.s.events);
	jsonl_meta_free(&p.meta);
	free(p.g);
	conns_book_free(&p.book);
	conns_change_free(&p.change);
	return rc;
}
