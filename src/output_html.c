/*
 * HTML: one self-contained report of the whole run, written at the end: the
 * picture (picture.h) inline as SVG, then the statements ranked by how much
 * memory they took on and the events with their minimum, maximum, mean and
 * peaks. Nothing is fetched: no script, no font, no style sheet from
 * elsewhere; hover details are SVG <title>s. Samples only feed the chart.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "output.h"
#include "output_format.h"
#include "picture.h"
#include "units.h"
#include "utc.h"

static const char style[] =
"body{font-family:'DejaVu Sans',Helvetica,Arial,sans-serif;margin:1.5em;"
"color:#222;max-width:1200px}\n"
"h1{font-size:1.4em;margin:0 0 .3em}h2{font-size:1.1em;margin:1.6em 0 .4em}\n"
"p.facts{margin:.2em 0 1em;color:#444}\n"
"figure{margin:0;overflow-x:auto}\n"
"table{border-collapse:collapse;font-size:.9em}\n"
"th,td{border:1px solid #ddd;padding:.25em .6em;text-align:right;"
"vertical-align:top;white-space:nowrap}\n"
"th.text{text-align:left}\n"
"th{background:#f3f3f3}td.text{text-align:left;font-family:monospace;"
"white-space:pre-wrap;word-break:break-all;max-width:60em}\n"
"tr:nth-child(even) td{background:#fafafa}\n"
"p.note{color:#666;font-size:.85em}\n";

static void
cell_bytes(FILE *fp, int64_t b)
{
	char buf[64];

	units_bytes(b, buf, sizeof(buf));
	fprintf(fp, "<td title=\"%" PRId64 " bytes\">%s</td>", b, buf);
}

static void
cell_text(FILE *fp, const char *s, size_t n)
{
	fputs("<td class=\"text\">", fp);
	picture_text(fp, s, n, 0);
	fputs("</td>", fp);
}

/*
 * The run's statements, ranked by how much memory each took on (runstats.h:
 * its peak, peaks between samples included, less the thread's total when
 * it began), as the text summary ranks them. Where the server recorded a
 * statement's own peak (MySQL 8.0.31+), that exact peak ranks it, and
 * what the samples saw of it stands beside it.
 */
static void
statements_table(FILE *fp, const struct summary *sum)
{
	const struct run_totals *t = &sum->run;
	bool exact = t->statements_exact > 0;

	fputs("<h2>Statements ranked by memory growth</h2>\n", fp);
	if (sum->n_run_statements == 0) {
		fputs("<p class=\"note\">No statement was seen.</p>\n", fp);
		return;
	}
	if (!exact)
		fputs("<p class=\"note\">Peaks sampled: the server recorded "
		    "no statement's own peak (MySQL 8.0.31 and later do).</p>\n",
		    fp);
	else
		fprintf(fp, "<p class=\"note\">%" PRIu64 " peaks the server's "
		    "own (exact); %" PRIu64 " statements ran between two samples"
		    "%s.</p>\n", t->statements_exact, t->statements_unsampled,
		    t->statements_lost > 0 ? "; some were lost from the "
		    "server's history" : "");
	fprintf(fp, "<table class=\"statements\"><thead><tr><th>#</th><th>"
	    "growth</th><th>peak total</th>%s<th>total at start</th><th>"
	    "allocated</th><th>samples</th><th>ran</th><th class=\"text\">"
	    "statement</th></tr></thead><tbody>\n", exact ? "<th>peak of</th>"
	    "<th title=\"the exact peak over the sampled one\">missed by "
	    "sampling</th>" : "");
	for (size_t i = 0; i < sum->n_run_statements; i++) {
		const struct run_statement *r = &sum->run_statements[i];
		const struct statement *s = &r->statement;
		size_t len = statement_text_len(s);

		fprintf(fp, "<tr><td>%zu</td>", i + 1);
		cell_bytes(fp, r->growth_bytes);
		cell_bytes(fp, run_statement_peak(r));
		if (exact) {
			fputs(r->exact ? "<td>server</td>" : "<td>samples</td>",
			    fp);
			if (run_statement_missed(r) >= 0)
				cell_bytes(fp, run_statement_missed(r));
			else
				fputs("<td>-</td>", fp);
		}
		cell_bytes(fp, r->start_bytes);
		cell_bytes(fp, (int64_t)r->alloc_bytes);
		fprintf(fp, "<td>%" PRIu64 "</td><td>%" PRIu64 " ms</td>",
		    r->samples, r->finished ? r->server_us / 1000 :
		    (r->last_elapsed_us - r->first_elapsed_us) / 1000);
		if (len > 0)
			cell_text(fp, s->text, len);
		else
			cell_text(fp, s->digest, strlen(s->digest));
		fputs("</tr>\n", fp);
	}
	fputs("</tbody></table>\n", fp);
}

/* The run's events, largest first, with both kinds of peak between samples. */
static void
events_table(FILE *fp, const struct summary *sum)
{
	fputs("<h2>Events</h2>\n<table class=\"events\"><thead><tr><th class=\"text\">event"
	    "</th><th>samples</th><th>min</th><th>max</th><th>mean</th>"
	    "<th>peak</th><th title=\"the server's high-water mark, since the "
	    "thread began\">high</th>"
	    "<th>peaks between samples</th></tr></thead><tbody>\n", fp);
	for (size_t i = 0; i < sum->n_run_events; i++) {
		const struct run_event *e = &sum->run_events[i];

		fputs("<tr>", fp);
		cell_text(fp, e->name, strlen(e->name));
		fprintf(fp, "<td>%" PRIu64 "</td>", e->samples);
		cell_bytes(fp, e->min_bytes);
		cell_bytes(fp, e->max_bytes);
		cell_bytes(fp, (int64_t)(e->mean_bytes + 0.5));
		cell_bytes(fp, e->peak_bytes);
		cell_bytes(fp, e->high_bytes);
		fprintf(fp, "<td>%" PRIu64 "</td>", e->unseen_peaks +
		    e->delta_spikes);
		fputs("</tr>\n", fp);
	}
	fputs("</tbody></table>\n", fp);
}

static void
facts(FILE *fp, const struct summary *sum, const struct chart *c,
    const char *total)
{
	char a[64], b[64];

	fprintf(fp, "<p class=\"facts\">%" PRIu64 " sample%s", c->samples,
	    c->samples == 1 ? "" : "s");
	if (c->n_columns > 0) {
		const struct chart_column *z = &c->columns[c->n_columns - 1];

		utc_format(a, sizeof(a), c->columns[0].first_wall_ms,
		    UTC_STAMP);
		utc_format(b, sizeof(b), z->first_wall_ms +
		    (int64_t)(z->last_us - z->first_us) / 1000, UTC_STAMP);
		fprintf(fp, " from %s to %s", a, b);
		units_bytes(c->max_total, a, sizeof(a));
		fputs("; peak ", fp);
		picture_text(fp, total, strlen(total), 0);
		fprintf(fp, " %s", a);
	}
	fprintf(fp, "; %" PRIu64 " gap%s without samples; %" PRIu64
	    " tick%s skipped", c->gaps, c->gaps == 1 ? "" : "s", sum->skipped,
	    sum->skipped == 1 ? "" : "s");
	if (c->kept > 0)
		fprintf(fp, "; %" PRIu64 " kept the events of an earlier reading "
		    "(pale in the picture)", c->kept);
	if (c->per_column > 1)
		fprintf(fp, "; each column of the picture is the largest of %"
		    PRIu64 " samples", c->per_column);
	fputs(".</p>\n", fp);
}

static int
html_sample(struct output *o, const struct sample *s)
{
	return output_chart_sample(o, s);
}

static int
html_end(struct output *o, const struct summary *sum)
{
	struct chart *c = output_chart_take(o);
	FILE *fp = o->fp;
	char what[700], total[720];

	if (c == NULL)
		return -1;
	output_chart_what(o, sum->thread_id, what, sizeof(what));
	fputs("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\""
	    "utf-8\">\n<meta http-equiv=\"Content-Security-Policy\" content=\""
	    "default-src 'none'; style-src 'unsafe-inline'\">\n<title>"
	    "mysqlmemprof: ", fp);
	picture_text(fp, what, strlen(what), 0);
	fprintf(fp, "</title>\n<style>\n%s</style>\n</head>\n<body>\n<h1>"
	    "Memory of ", style);
	picture_text(fp, what, strlen(what), 0);
	fputs("</h1>\n", fp);
	facts(fp, sum, c, output_chart_total(o, total, sizeof(total)));
	fputs("<figure>\n", fp);
	picture_svg(fp, c, what, output_chart_total(o, total, sizeof(total)));
	fputs("</figure>\n", fp);
	statements_table(fp, sum);
	events_table(fp, sum);
	fputs("<p class=\"note\">The picture and the tables cover the whole "
	    "run. Made by mysqlmemprof.</p>\n</body>\n</html>\n", fp);
	chart_free(c);
	return output_status(fp);
}

const struct format format_html = {
	.name = "html",
	.init = output_chart_init,
	.free = output_chart_free,
	.sample = html_sample,
	.end = html_end,
	.one_run = true,
};
