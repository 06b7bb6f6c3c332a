#include <errno.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "conns_lines.h"
#include "incident_line.h"
#include "incident_plot.h"
#include "jsonl.h"
#include "picture.h"
#include "units.h"
#include "utc.h"

/* The drawing's frame, in SVG units. */
#define W 900
#define H 300
#define LEFT 70
#define RIGHT 20
#define TOP 20
#define BOTTOM 40
#define LEGEND 18
/* Room for a sample's events: more than the record keeps. */
#define PLOT_EVENTS 2048

/* The resident memory and the limit as the chart draws them (picture.c). */
#define RESIDENT_COLOUR "#7b3294"
#define LIMIT_COLOUR "#d62728"
static const char *const colours[PLOT_CONNECTIONS] = {
	"#4e79a7", "#f28e2b", "#59a14f", "#e15759", "#76b7b2",
};

/* The resident memory, the limit, then one a connection. */
#define RESIDENT 0
#define LIMIT 1
#define FIRST_CONN 2

/* The lines' dashes: the resident's, the limit's, a connection's. */
static const char *const dashes[] = {
	[RESIDENT] = " stroke-dasharray=\"6 3\"",
	[LIMIT] = " stroke-dasharray=\"8 3 2 3\"",
	[FIRST_CONN] = "",
};

struct point {
	int64_t ms, bytes;
};

struct series {
	struct point *v;
	size_t n, cap;
	char label[400];
};

static int
add(struct series *s, int64_t ms, int64_t bytes)
{
	if (s->n == s->cap) {
		size_t cap = s->cap ? s->cap * 2 : 64;
		struct point *v = realloc(s->v, cap * sizeof(*v));

		if (v == NULL)
			return -1;
		s->v = v;
		s->cap = cap;
	}
	s->v[s->n++] = (struct point){ ms, bytes };
	return 0;
}

/* The window's points of each series. */
static int
gather(struct series *sv, const char *lines, size_t len, const uint64_t *ids,
    size_t n)
{
	struct conns_book book = { 0 };
	struct jsonl_meta meta = { 0 };
	struct sample s = { 0 };
	size_t at = 0;
	char err[128];
	int rc = 0;

	if ((s.events = calloc(PLOT_EVENTS, sizeof(*s.events))) == NULL)
		return -1;
	while (at < len && rc == 0) {
		const char *line = lines + at, *nl = memchr(line, '\n', len - at);
		size_t ll = nl != NULL ? (size_t)(nl - line) : len - at;

		at += ll + 1;
		if (conns_line_apply(&book, line, ll) == 0) {
			int64_t ms = incident_line_ms(line, ll);

			for (size_t i = 0; i < n && rc == 0; i++) {
				const struct conn_row *r = conns_book_find(&book,
				    ids[i]);

				if (r != NULL)
					rc = add(&sv[FIRST_CONN + i], ms,
					    r->bytes);
			}
			continue;
		}
		if (jsonl_sample(line, ll, &s, PLOT_EVENTS, &meta, err,
		    sizeof(err)) != 0)
			continue;
		if (s.process.known)
			rc = add(&sv[RESIDENT], s.wall_ms,
			    s.process.resident_bytes);
		if (rc == 0 && s.process.has_cgroup &&
		    s.process.cgroup_limit_bytes > 0)
			rc = add(&sv[LIMIT], s.wall_ms,
			    s.process.cgroup_limit_bytes);
	}
	free(s.events);
	jsonl_meta_free(&meta);
	conns_book_free(&book);
	return rc;
}

struct frame {
	int64_t t0, t1, top;
};

static double
x_of(const struct frame *f, int64_t ms)
{
	return LEFT + (double)(ms - f->t0) * (W - LEFT - RIGHT) /
	    (double)(f->t1 > f->t0 ? f->t1 - f->t0 : 1);
}

static double
y_of(const struct frame *f, int64_t bytes)
{
	return TOP + (H - TOP - BOTTOM) * (1.0 - (double)bytes /
	    (double)(f->top > 0 ? f->top : 1));
}

/*
 * The axis's top: four steps of 1, 2 or 5 times a power of ten MiB (or
 * KiB, for a small server), above the highest line.
 */
static int64_t
round_top(int64_t top)
{
	static const int64_t steps[] = { 1, 2, 5 };
	int64_t unit = top >= (4 << 20) ? 1 << 20 : 1 << 10;

	for (int64_t dec = 1; dec < INT64_MAX / 100 / unit; dec *= 10)
		for (size_t i = 0; i < 3; i++)
			if (4 * steps[i] * dec * unit >= top)
				return 4 * steps[i] * dec * unit;
	return top;
}

static void
axes(FILE *fp, const struct frame *f)
{
	char a[64];

	for (int i = 0; i <= 4; i++) {
		int64_t b = f->top / 4 * i;

		units_bytes(b, a, sizeof(a));
		fprintf(fp, "<line x1=\"%d\" x2=\"%d\" y1=\"%.1f\" y2=\"%.1f\" "
		    "stroke=\"#e4e4e4\"/><text x=\"%d\" y=\"%.1f\" "
		    "text-anchor=\"end\" font-size=\"11\">%s</text>\n", LEFT,
		    W - RIGHT, y_of(f, b), y_of(f, b), LEFT - 6,
		    y_of(f, b) + 4, a);
	}
	for (int i = 0; i <= 4; i++) {
		int64_t t = f->t0 + (f->t1 - f->t0) / 4 * i;

		utc_format(a, sizeof(a), t, UTC_STAMP);
		/* The time of day: 2026-11-27T03:12:05.123Z -> 03:12:05 */
		fprintf(fp, "<text x=\"%.1f\" y=\"%d\" text-anchor=\"%s\" "
		    "font-size=\"11\">%.8s</text>\n", x_of(f, t), H - BOTTOM + 16,
		    i == 4 ? "end" : i == 0 ? "start" : "middle",
		    strlen(a) > 11 ? a + 11 : a);
	}
	fprintf(fp, "<text x=\"%d\" y=\"%d\" text-anchor=\"middle\" "
	    "font-size=\"11\">wall-clock time (UTC)</text>\n", (W + LEFT) / 2,
	    H - 6);
}

static void
line(FILE *fp, const struct frame *f, const struct series *s,
    const char *colour, const char *dash)
{
	if (s->n == 0)
		return;
	fprintf(fp, "<polyline fill=\"none\" stroke=\"%s\" stroke-width=\"2\"%s "
	    "points=\"", colour, dash);
	for (size_t i = 0; i < s->n; i++)
		fprintf(fp, "%s%.1f,%.1f", i > 0 ? " " : "",
		    x_of(f, s->v[i].ms), y_of(f, s->v[i].bytes));
	fputs("\"><title>", fp);
	picture_text(fp, s->label, strlen(s->label), 0);
	fputs("</title></polyline>\n", fp);
}

int
incident_plot(FILE *fp, const char *lines, size_t len, const uint64_t *ids,
    size_t n)
{
	struct series sv[FIRST_CONN + PLOT_CONNECTIONS] = { 0 };
	struct frame f = { .t0 = INT64_MAX, .t1 = INT64_MIN };
	size_t k = FIRST_CONN + (n < PLOT_CONNECTIONS ? n : PLOT_CONNECTIONS);
	int rc = -1;

	if (gather(sv, lines, len, ids, k - FIRST_CONN) != 0) {
		errno = ENOMEM;
		goto out;
	}
	snprintf(sv[RESIDENT].label, sizeof(sv[0].label), "resident (process)");
	snprintf(sv[LIMIT].label, sizeof(sv[0].label), "cgroup limit");
	for (size_t i = FIRST_CONN; i < k; i++)
		snprintf(sv[i].label, sizeof(sv[0].label), "connection %" PRIu64,
		    ids[i - FIRST_CONN]);
	for (size_t i = 0; i < k; i++)
		for (size_t j = 0; j < sv[i].n; j++) {
			const struct point *p = &sv[i].v[j];

			f.t0 = p->ms < f.t0 ? p->ms : f.t0;
			f.t1 = p->ms > f.t1 ? p->ms : f.t1;
			f.top = p->bytes > f.top ? p->bytes : f.top;
		}
	rc = 0;
	if (f.t0 > f.t1)
		goto out; /* nothing to draw */
	f.top = round_top(f.top);
	fprintf(fp, "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" "
	    "height=\"%zu\" font-family=\"DejaVu Sans, sans-serif\">\n", W,
	    (size_t)H + LEGEND * k + 10);
	axes(fp, &f);
	line(fp, &f, &sv[LIMIT], LIMIT_COLOUR, dashes[LIMIT]);
	line(fp, &f, &sv[RESIDENT], RESIDENT_COLOUR, dashes[RESIDENT]);
	for (size_t i = FIRST_CONN; i < k; i++)
		line(fp, &f, &sv[i], colours[i - FIRST_CONN], dashes[FIRST_CONN]);
	/* The legend, one row a line, below. */
	for (size_t i = 0; i < k; i++) {
		const char *c = i == RESIDENT ? RESIDENT_COLOUR : i == LIMIT ?
		    LIMIT_COLOUR : colours[i - FIRST_CONN];
		double y = H + LEGEND * (double)i + 10;

		fprintf(fp, "<line x1=\"%d\" x2=\"%d\" y1=\"%.1f\" y2=\"%.1f\" "
		    "stroke=\"%s\" stroke-width=\"2\"%s/><text x=\"%d\" "
		    "y=\"%.1f\" font-size=\"12\">", LEFT, LEFT + 24, y - 4, y - 4,
		    c, dashes[i < FIRST_CONN ? i : FIRST_CONN], LEFT + 30, y);
		picture_text(fp, sv[i].label, strlen(sv[i].label), 0);
		fputs(sv[i].n == 0 ? " (not recorded)</text>\n" : "</text>\n",
		    fp);
	}
	fputs("</svg>\n", fp);
out:
	for (size_t i = 0; i < FIRST_CONN + PLOT_CONNECTIONS; i++)
		free(sv[i].v);
	return rc;
}
