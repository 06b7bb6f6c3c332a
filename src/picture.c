/*
 * The chart of a run drawn as SVG (see picture.h). Numbers are written
 * with integer arithmetic, so the document never depends on the locale,
 * and every text from the server goes through picture_text().
 */
#include <inttypes.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "picture.h"
#include "scrub.h"
#include "utc.h"

/* The drawing's geometry, in SVG user units (pixels at 100%). */
enum {
	WIDTH = 1160, HEIGHT = 470,
	PLOT_X0 = 80, PLOT_X1 = 800, PLOT_Y0 = 64, PLOT_Y1 = 404,
	LANE_Y0 = 34, LANE_Y1 = 56,  /* statement bands, above the plot */
	LEGEND_X = 820, LEGEND_Y = 64, LEGEND_ROW = 19,
	CHAR_PX = 6,                 /* the width of a character at 11px, about */
};

/* Tableau 10, distinct for most colour vision; "other" is grey. */
static const char *const colours[PICTURE_BANDS] = {
	"#4e79a7", "#f28e2b", "#59a14f", "#e15759",
	"#76b7b2", "#edc948", "#b07aa1", "#ff9da7",
};
#define OTHER_COLOUR "#bab0ac"
/* The highest top of the scale (4 EiB): its ticks' rounding fits int64_t. */
#define PICTURE_MAX_TOP ((int64_t)1 << 62)

static bool
is_space(uint32_t cp)
{
	return cp == ' ' || (cp >= '\t' && cp <= '\r');
}

size_t
picture_text(FILE *fp, const char *s, size_t n, size_t max)
{
	size_t chars = 0, k;
	bool space = false;
	uint32_t cp;

	for (size_t i = 0; i < n; i += k) {
		if ((k = scrub_utf8(s + i, n - i, &cp)) == 0) {
			k = 1;
			cp = '?';
		} else if (is_space(cp)) {
			space = chars > 0;
			continue;
		} else if (!scrub_shown(cp) || cp == 0)
			cp = '?';
		if (max > 0 && chars + space + 1 > max - 3 &&
		    i + k < n) {
			fputs("...", fp);
			return chars + 3;
		}
		if (space) {
			putc(' ', fp);
			chars++;
			space = false;
		}
		switch (cp) {
		case '&': fputs("&amp;", fp); break;
		case '<': fputs("&lt;", fp); break;
		case '>': fputs("&gt;", fp); break;
		case '"': fputs("&quot;", fp); break;
		case '\'': fputs("&#39;", fp); break;
		default:
			if (cp == '?' || k == 1)
				putc((int)cp, fp);
			else
				fwrite(s + i, 1, k, fp);
		}
		chars++;
	}
	return chars;
}

/* v to one decimal, without printf's %f (the locale may change the point). */
static void
num(FILE *fp, double v)
{
	long long t = (long long)(v * 10 + (v < 0 ? -0.5 : 0.5));

	if (t < 0) {
		putc('-', fp);
		t = -t;
	}
	fprintf(fp, "%lld", t / 10);
	if (t % 10 != 0)
		fprintf(fp, ".%lld", t % 10);
}

/* The scales of the drawing. */
struct scale {
	uint64_t t0, t1;     /* elapsed_us at the left and right ends */
	int64_t wall0;       /* wall clock at t0, ms */
	int64_t ymax;        /* bytes at the top of the plot */
	int64_t ystep;       /* bytes between two ticks */
	int64_t unit;        /* 1, KiB, MiB, ... of the tick labels */
	const char *unit_name;
};

static double
x_of(const struct scale *sc, uint64_t t)
{
	return PLOT_X0 + (double)(t - sc->t0) * (PLOT_X1 - PLOT_X0) /
	    (double)(sc->t1 - sc->t0);
}

/* Within the plot, whatever b: the scale is the largest figure's. */
static double
y_of(const struct scale *sc, int64_t b)
{
	if (b < 0)
		b = 0;
	if (b > sc->ymax)
		b = sc->ymax;
	return PLOT_Y1 - (double)b * (PLOT_Y1 - PLOT_Y0) / (double)sc->ymax;
}

/* The middle of column i, where its values are drawn. */
static double
x_col(const struct chart *c, const struct scale *sc, size_t i)
{
	const struct chart_column *col = &c->columns[i];

	return x_of(sc, col->first_us + (col->last_us - col->first_us) / 2);
}

/* A tick step of 1, 2 or 5 times a power of ten, giving at most 6 ticks. */
static void
y_scale(struct scale *sc, int64_t top)
{
	static const char *const names[] = { "B", "KiB", "MiB", "GiB", "TiB" };
	int64_t unit = 1, step = 1;
	size_t u = 0;

	if (top < 1)
		top = 1;
	/* A top near INT64_MAX (no server's) would overflow its rounding. */
	if (top > PICTURE_MAX_TOP)
		top = PICTURE_MAX_TOP;
	while (u + 1 < sizeof(names) / sizeof(names[0]) && top / unit >= 1024) {
		unit *= 1024;
		u++;
	}
	for (int64_t p = 1;; p *= 10) {
		static const int m[] = { 1, 2, 5 };
		bool found = false;

		for (size_t j = 0; j < 3 && !found; j++) {
			step = m[j] * p;
			found = (top + step * unit - 1) / (step * unit) <= 6;
		}
		if (found)
			break;
	}
	sc->unit = unit;
	sc->unit_name = names[u];
	sc->ystep = step * unit;
	sc->ymax = (top + sc->ystep - 1) / sc->ystep * sc->ystep;
}

static void
put_hms(FILE *fp, int64_t wall_ms, bool ms)
{
	char t[UTC_MAX];

	utc_format(t, sizeof(t), wall_ms, ms ? UTC_CLOCK_MS : UTC_CLOCK);
	fputs(t, fp);
}

static void
axes(FILE *fp, const struct scale *sc)
{
	static const int64_t steps[] = {
		100, 200, 500, 1000, 2000, 5000, 10000, 15000, 30000, 60000,
		120000, 300000, 600000, 900000, 1800000, 3600000, 7200000,
		10800000, 21600000, 43200000, 86400000,
	};
	int64_t span = (int64_t)(sc->t1 - sc->t0) / 1000, step = steps[0];

	fputs("<g class=\"axes\" font-size=\"11\" fill=\"#333\">\n", fp);
	for (int64_t b = 0; b <= sc->ymax; b += sc->ystep) {
		double y = y_of(sc, b);

		fputs("<line x1=\"", fp); num(fp, PLOT_X0);
		fputs("\" x2=\"", fp); num(fp, PLOT_X1);
		fputs("\" y1=\"", fp); num(fp, y);
		fputs("\" y2=\"", fp); num(fp, y);
		fputs("\" stroke=\"#e4e4e4\"/>\n<text text-anchor=\"end\" x=\"", fp);
		num(fp, PLOT_X0 - 6);
		fputs("\" y=\"", fp); num(fp, y + 4);
		fprintf(fp, "\">%" PRId64 " %s</text>\n", b / sc->unit,
		    sc->unit_name);
	}
	for (size_t i = 0; i < sizeof(steps) / sizeof(steps[0]); i++) {
		step = steps[i];
		if (span / step <= 7)
			break;
	}
	for (int64_t w = (sc->wall0 + step - 1) / step * step;
	    w <= sc->wall0 + span; w += step) {
		double x = x_of(sc, sc->t0 + (uint64_t)(w - sc->wall0) * 1000);

		fputs("<line y1=\"", fp); num(fp, PLOT_Y1);
		fputs("\" y2=\"", fp); num(fp, PLOT_Y1 + 5);
		fputs("\" x1=\"", fp); num(fp, x);
		fputs("\" x2=\"", fp); num(fp, x);
		fputs("\" stroke=\"#333\"/>\n<text text-anchor=\"middle\" x=\"", fp);
		num(fp, x);
		fputs("\" y=\"", fp); num(fp, PLOT_Y1 + 18);
		fputs("\">", fp);
		put_hms(fp, w, step < 1000 || w % 1000 != 0);
		fputs("</text>\n", fp);
	}
	fprintf(fp, "<line x1=\"%d\" x2=\"%d\" y1=\"%d\" y2=\"%d\" "
	    "stroke=\"#333\"/>\n", PLOT_X0, PLOT_X1, PLOT_Y1, PLOT_Y1);
	fprintf(fp, "<line x1=\"%d\" x2=\"%d\" y1=\"%d\" y2=\"%d\" "
	    "stroke=\"#333\"/>\n", PLOT_X0, PLOT_X0, PLOT_Y0, PLOT_Y1);
	fprintf(fp, "<text x=\"%d\" y=\"%d\" text-anchor=\"middle\">wall-clock "
	    "time (UTC)</text>\n", (PLOT_X0 + PLOT_X1) / 2, PLOT_Y1 + 36);
	fprintf(fp, "<text transform=\"translate(16 %d) rotate(-90)\" "
	    "text-anchor=\"middle\">memory (%s)</text>\n",
	    (PLOT_Y0 + PLOT_Y1) / 2, sc->unit_name);
	fputs("</g>\n", fp);
}

/* Whether column i starts after a stretch without samples. */
static bool
starts_after_gap(const struct chart *c, size_t i)
{
	const struct chart_column *col = &c->columns[i];

	return i > 0 && col->gap_to_us > col->gap_from_us &&
	    col->gap_to_us == col->first_us;
}

/* The stacked value of band b in column i: its own and the bands below. */
static int64_t
stacked(const struct chart *c, const size_t *top, size_t n_top, size_t i,
    size_t b)
{
	int64_t sum = 0;

	/* Saturated: figures no server reports must not overflow. */
	for (size_t j = 0; j <= b && j < n_top; j++)
		if (__builtin_add_overflow(sum, chart_value(c, i, top[j]), &sum))
			sum = chart_value(c, i, top[j]) < 0 ? INT64_MIN :
			    INT64_MAX;
	if (b == n_top) {
		/* "other": up to the thread total, never below the bands. */
		if (c->columns[i].total > sum)
			sum = c->columns[i].total;
	}
	return sum;
}

static void
point(FILE *fp, double x, double y)
{
	num(fp, x);
	putc(',', fp);
	num(fp, y);
	putc(' ', fp);
}

/*
 * Band b (n_top: "other") over columns [from, to): its upper edge left to
 * right, then the one below it right to left. One column alone is drawn
 * two pixels wide.
 */
static void
band_polygon(FILE *fp, const struct chart *c, const struct scale *sc,
    const size_t *top, size_t n_top, size_t b, size_t from, size_t to)
{
	double w = to - from == 1 ? 1 : 0;

	for (size_t i = from; i < to; i++) {
		double y = y_of(sc, stacked(c, top, n_top, i, b));

		if (w > 0)
			point(fp, x_col(c, sc, i) - w, y);
		point(fp, x_col(c, sc, i) + w, y);
	}
	for (size_t i = to; i-- > from;) {
		double y = b == 0 ? PLOT_Y1 :
		    y_of(sc, stacked(c, top, n_top, i, b - 1));

		point(fp, x_col(c, sc, i) + w, y);
		if (w > 0)
			point(fp, x_col(c, sc, i) - w, y);
	}
}

/* Whether some column has only an earlier reading's events. */
static bool
any_stale(const struct chart *c)
{
	for (size_t i = 0; c->kept > 0 && i < c->n_columns; i++)
		if (!c->columns[i].rows_read)
			return true;
	return false;
}

/*
 * Over the bands of the columns whose events are all an earlier reading's
 * (events_kept: between two readings of a thread's rows, or --record's
 * beat), a pale veil, so that they read as the events last read, not as
 * fresh ones; the total is drawn over it.
 */
static void
veil(FILE *fp, const struct chart *c, const struct scale *sc,
    const size_t *top, size_t n_top)
{
	if (!any_stale(c))
		return;
	fputs("<g class=\"kept\" fill=\"#fff\" fill-opacity=\"0.6\"><title>"
	    "the events as last read, not read with these samples</title>\n",
	    fp);
	for (size_t from = 0, to; from < c->n_columns; from = to) {
		double w;

		to = from + 1;
		if (c->columns[from].rows_read)
			continue;
		while (to < c->n_columns && !c->columns[to].rows_read &&
		    !starts_after_gap(c, to))
			to++;
		w = to - from == 1 ? 1 : 0;
		fputs("<polygon points=\"", fp);
		for (size_t i = from; i < to; i++) {
			double y = y_of(sc, stacked(c, top, n_top, i, n_top));

			if (w > 0)
				point(fp, x_col(c, sc, i) - w, y);
			point(fp, x_col(c, sc, i) + w, y);
		}
		point(fp, x_col(c, sc, to - 1) + w, PLOT_Y1);
		point(fp, x_col(c, sc, from) - w, PLOT_Y1);
		fputs("\"/>\n", fp);
	}
	fputs("</g>\n", fp);
}

static void
bands(FILE *fp, const struct chart *c, const struct scale *sc,
    const size_t *top, size_t n_top, const char *total)
{
	for (size_t b = 0; b <= n_top; b++) {
		const char *name = b < n_top ? c->events[top[b]].name : "other";

		fprintf(fp, "<g class=\"band\" fill=\"%s\"><title>",
		    b < n_top ? colours[b] : OTHER_COLOUR);
		picture_text(fp, name, strlen(name), 0);
		fputs("</title>\n", fp);
		for (size_t from = 0, to; from < c->n_columns; from = to) {
			for (to = from + 1; to < c->n_columns &&
			    !starts_after_gap(c, to); to++)
				;
			fputs("<polygon points=\"", fp);
			band_polygon(fp, c, sc, top, n_top, b, from, to);
			fputs("\"/>\n", fp);
		}
		fputs("</g>\n", fp);
	}
	veil(fp, c, sc, top, n_top);
	fputs("<g class=\"total\" fill=\"none\" stroke=\"#111\" "
	    "stroke-width=\"1.5\"><title>", fp);
	picture_text(fp, total, strlen(total), 0);
	fputs("</title>\n", fp);
	for (size_t from = 0, to; from < c->n_columns; from = to) {
		for (to = from + 1; to < c->n_columns && !starts_after_gap(c, to);
		    to++)
			;
		fputs("<polyline points=\"", fp);
		for (size_t i = from; i < to; i++) {
			if (to - from == 1)
				point(fp, x_col(c, sc, i) - 1,
				    y_of(sc, c->columns[i].total));
			point(fp, x_col(c, sc, i) + (to - from == 1),
			    y_of(sc, c->columns[i].total));
		}
		fputs("\"/>\n", fp);
	}
	fputs("</g>\n", fp);
}

/*
 * A cgroup's limit is drawn when it is at most this many times the
 * chart's highest value: one far above would flatten the chart, and the
 * legend gives it then.
 */
#define LIMIT_SCALE 4

/*
 * The limit of the server's memory cgroup, where one is set: a red line
 * across each column, in steps where it changed, none above the scale.
 */
static void
limit(FILE *fp, const struct chart *c, const struct scale *sc)
{
	if (!c->has_limit || c->max_limit > sc->ymax)
		return;
	fputs("<g class=\"limit\" fill=\"none\" stroke=\"#d62728\" "
	    "stroke-width=\"1.5\" stroke-dasharray=\"8,2,2,2\"><title>the "
	    "limit of the server's memory cgroup</title>\n", fp);
	for (size_t i = 0; i < c->n_columns; i++) {
		const struct chart_column *col = &c->columns[i];

		if (!col->has_limit)
			continue;
		fputs("<line x1=\"", fp);
		num(fp, x_col(c, sc, i) - 1);
		fputs("\" x2=\"", fp);
		num(fp, x_col(c, sc, i) + 1);
		fputs("\" y1=\"", fp);
		num(fp, y_of(sc, col->limit));
		fputs("\" y2=\"", fp);
		num(fp, y_of(sc, col->limit));
		fputs("\"/>\n", fp);
	}
	fputs("</g>\n", fp);
}

/*
 * The server's process's resident memory (--global on its machine), a
 * dashed line over the bands, broken where a column has none or a gap.
 */
static void
resident(FILE *fp, const struct chart *c, const struct scale *sc)
{
	bool open = false;

	if (!c->has_resident)
		return;
	fputs("<g class=\"resident\" fill=\"none\" stroke=\"#7b3294\" "
	    "stroke-width=\"1.5\" stroke-dasharray=\"5,3\"><title>resident "
	    "memory of the server's process</title>\n", fp);
	for (size_t i = 0; i < c->n_columns; i++) {
		const struct chart_column *col = &c->columns[i];

		if (open && (!col->has_resident || starts_after_gap(c, i))) {
			fputs("\"/>\n", fp);
			open = false;
		}
		if (!col->has_resident)
			continue;
		if (!open) {
			fputs("<polyline points=\"", fp);
			point(fp, x_col(c, sc, i) - 1, y_of(sc, col->resident));
			open = true;
		}
		point(fp, x_col(c, sc, i) + 1, y_of(sc, col->resident));
	}
	if (open)
		fputs("\"/>\n", fp);
	fputs("</g>\n", fp);
}

static void
put_bytes(FILE *fp, int64_t b)
{
	static const char *const names[] = { "B", "KiB", "MiB", "GiB", "TiB" };
	uint64_t mag = b < 0 ? -(uint64_t)b : (uint64_t)b;
	size_t u = 0;

	while (u + 1 < 5 && mag >> (10 * (u + 1)) != 0)
		u++;
	if (b < 0)
		putc('-', fp);
	if (u == 0)
		fprintf(fp, "%" PRIu64 " B", mag);
	else {
		uint64_t hund = (mag * 100 + ((uint64_t)1 << (10 * u)) / 2) >>
		    (10 * u);

		fprintf(fp, "%" PRIu64 ".%02" PRIu64 " %s", hund / 100,
		    hund % 100, names[u]);
	}
}

/* Stretches without samples, hatched over the whole height. */
static void
gaps(FILE *fp, const struct chart *c, const struct scale *sc)
{
	fputs("<g class=\"gaps\">\n", fp);
	for (size_t i = 0; i < c->n_columns; i++) {
		const struct chart_column *col = &c->columns[i];
		double x0, x1;

		if (col->gap_to_us <= col->gap_from_us)
			continue;
		x0 = x_of(sc, col->gap_from_us);
		x1 = x_of(sc, col->gap_to_us);
		fputs("<rect class=\"gap\" fill=\"url(#hatch)\" x=\"", fp);
		num(fp, x0);
		fputs("\" width=\"", fp);
		num(fp, x1 - x0 < 2 ? 2 : x1 - x0);
		fprintf(fp, "\" y=\"%d\" height=\"%d\"><title>no samples for ",
		    PLOT_Y0, PLOT_Y1 - PLOT_Y0);
		num(fp, (double)(col->gap_to_us - col->gap_from_us) / 1e6);
		fputs(" s (a reconnect or skipped ticks)</title></rect>\n", fp);
	}
	fputs("</g>\n", fp);
}

/* A red mark above each column where an event peaked unseen. */
static void
peaks(FILE *fp, const struct chart *c, const struct scale *sc,
    const size_t *top, size_t n_top)
{
	fputs("<g class=\"peaks\" fill=\"#d62728\">\n", fp);
	for (size_t i = 0; i < c->n_columns; i++) {
		const struct chart_column *col = &c->columns[i];
		const char *ev = col->unseen_peak_event;
		double x = x_col(c, sc, i), y;

		if (!col->unseen_peak)
			continue;
		y = y_of(sc, stacked(c, top, n_top, i, n_top)) - 3;
		if (y < PLOT_Y0 + 8)
			y = PLOT_Y0 + 8;
		fputs("<path class=\"peak\" d=\"M", fp);
		point(fp, x - 5, y - 8);
		fputs("L", fp);
		point(fp, x + 5, y - 8);
		fputs("L", fp);
		point(fp, x, y);
		fputs("Z\"><title>", fp);
		picture_text(fp, ev, strlen(ev), 0);
		fputs(" peaked at ", fp);
		put_bytes(fp, col->unseen_peak_bytes);
		fputs(" between samples, unseen by both</title></path>\n", fp);
	}
	fputs("</g>\n", fp);
}

/* The statements, one band each above the plot, labelled with their text. */
static void
statements(FILE *fp, const struct chart *c, const struct scale *sc)
{
	fputs("<g class=\"statements\" font-size=\"11\">\n", fp);
	for (size_t i = 0; i < c->n_statements; i++) {
		const struct chart_statement *st = &c->statements[i];
		const struct statement *s = &st->statement;
		size_t len = statement_text_len(s);
		const char *text = len > 0 ? s->text : s->digest;
		double x0 = x_of(sc, st->first_us), x1 = x_of(sc, st->last_us);
		double w = x1 - x0 < 3 ? 3 : x1 - x0;
		size_t fit = (size_t)((w - 6) / CHAR_PX);

		if (len == 0)
			len = strlen(text);
		fprintf(fp, "<g class=\"stmt\" data-first-sample=\"%" PRIu64
		    "\"><title>", st->first_seq);
		picture_text(fp, text, len, 0);
		fputs("</title>\n<rect x=\"", fp);
		num(fp, x0);
		fputs("\" width=\"", fp);
		num(fp, w);
		fprintf(fp, "\" y=\"%d\" height=\"%d\" fill=\"%s\" "
		    "stroke=\"#8c8c8c\" stroke-width=\"0.5\"/>\n", LANE_Y0,
		    LANE_Y1 - LANE_Y0, i % 2 == 0 ? "#dce8f5" : "#f7e4cf");
		fputs("<line stroke=\"#8c8c8c\" stroke-dasharray=\"3 3\" x1=\"", fp);
		num(fp, x0);
		fputs("\" x2=\"", fp);
		num(fp, x0);
		fprintf(fp, "\" y1=\"%d\" y2=\"%d\"/>\n", LANE_Y1, PLOT_Y1);
		if (fit >= 4) {
			fputs("<text class=\"stmt-label\" x=\"", fp);
			num(fp, x0 + 3);
			fprintf(fp, "\" y=\"%d\">", LANE_Y1 - 7);
			picture_text(fp, text, len, fit);
			fputs("</text>\n", fp);
		}
		fputs("</g>\n", fp);
	}
	fputs("</g>\n", fp);
}

static void put_bytes(FILE *fp, int64_t b);

/* A row of the legend; max >= 0 adds the band's largest bytes, in grey. */
static void
legend_row(FILE *fp, size_t row, const char *swatch, const char *name,
    size_t len, int64_t max)
{
	int y = LEGEND_Y + (int)row * LEGEND_ROW;

	fprintf(fp, "<g class=\"legend-row\">%s", swatch);
	fprintf(fp, "<text x=\"%d\" y=\"%d\">", LEGEND_X + 18, y + 10);
	picture_text(fp, name, len, max >= 0 ? 36 : 46);
	if (max >= 0) {
		fputs(" <tspan fill=\"#777\">", fp);
		put_bytes(fp, max);
		fputs("</tspan>", fp);
	}
	fprintf(fp, "</text><title>");
	picture_text(fp, name, len, 0);
	fputs("</title></g>\n", fp);
}

static void
legend(FILE *fp, const struct chart *c, const struct scale *sc,
    const size_t *top, size_t n_top, const char *total)
{
	char sw[300];
	size_t row = 0;
	int y;

	fputs("<g class=\"legend\" font-size=\"11\">\n", fp);
	/* Top to bottom as the bands stack: "other" first, on top. */
	for (size_t b = n_top + 1; b-- > 0; row++) {
		const char *name = b < n_top ? c->events[top[b]].name :
		    "other events";

		y = LEGEND_Y + (int)row * LEGEND_ROW;
		snprintf(sw, sizeof(sw), "<rect x=\"%d\" y=\"%d\" width=\"12\" "
		    "height=\"12\" fill=\"%s\"/>", LEGEND_X, y,
		    b < n_top ? colours[b] : OTHER_COLOUR);
		legend_row(fp, row, sw, name, strlen(name),
		    b < n_top ? c->events[top[b]].max_bytes : -1);
	}
	y = LEGEND_Y + (int)row * LEGEND_ROW;
	snprintf(sw, sizeof(sw), "<line x1=\"%d\" x2=\"%d\" y1=\"%d\" y2=\"%d\" "
	    "stroke=\"#111\" stroke-width=\"1.5\"/>", LEGEND_X, LEGEND_X + 12,
	    y + 6, y + 6);
	legend_row(fp, row++, sw, total, strlen(total), c->max_total);
	if (c->has_resident) {
		y = LEGEND_Y + (int)row * LEGEND_ROW;
		snprintf(sw, sizeof(sw), "<line x1=\"%d\" x2=\"%d\" y1=\"%d\" "
		    "y2=\"%d\" stroke=\"#7b3294\" stroke-width=\"1.5\" "
		    "stroke-dasharray=\"5,3\"/>", LEGEND_X, LEGEND_X + 12,
		    y + 6, y + 6);
		legend_row(fp, row++, sw, "resident (process)", 18,
		    c->max_resident);
	}
	if (c->has_limit) {
		y = LEGEND_Y + (int)row * LEGEND_ROW;
		snprintf(sw, sizeof(sw), "<line x1=\"%d\" x2=\"%d\" y1=\"%d\" "
		    "y2=\"%d\" stroke=\"#d62728\" stroke-width=\"1.5\" "
		    "stroke-dasharray=\"8,2,2,2\"/>", LEGEND_X, LEGEND_X + 12,
		    y + 6, y + 6);
		if (c->max_limit > sc->ymax)
			legend_row(fp, row++, sw, "cgroup limit, above:", 20,
			    c->min_limit);
		else
			legend_row(fp, row++, sw, "cgroup limit", 12,
			    c->min_limit);
	}
	y = LEGEND_Y + (int)row * LEGEND_ROW;
	snprintf(sw, sizeof(sw), "<path d=\"M%d,%dL%d,%dL%d,%dZ\" "
	    "fill=\"#d62728\"/>", LEGEND_X + 1, y + 1, LEGEND_X + 11, y + 1,
	    LEGEND_X + 6, y + 10);
	legend_row(fp, row++, sw, "peak between samples", 20, -1);
	if (any_stale(c)) {
		y = LEGEND_Y + (int)row * LEGEND_ROW;
		snprintf(sw, sizeof(sw), "<rect x=\"%d\" y=\"%d\" width=\"12\" "
		    "height=\"12\" fill=\"%s\" fill-opacity=\"0.4\"/>",
		    LEGEND_X, y, colours[0]);
		legend_row(fp, row++, sw, "pale: events as last read", 25, -1);
	}
	y = LEGEND_Y + (int)row * LEGEND_ROW;
	snprintf(sw, sizeof(sw), "<rect x=\"%d\" y=\"%d\" width=\"12\" "
	    "height=\"12\" fill=\"url(#hatch)\" stroke=\"#999\"/>", LEGEND_X, y);
	legend_row(fp, row++, sw, "no samples (gap)", 16, -1);
	y = LEGEND_Y + (int)row * LEGEND_ROW;
	snprintf(sw, sizeof(sw), "<rect x=\"%d\" y=\"%d\" width=\"12\" "
	    "height=\"12\" fill=\"#dce8f5\" stroke=\"#8c8c8c\"/>", LEGEND_X, y);
	legend_row(fp, row++, sw, "statement (band above)", 22, -1);
	fputs("</g>\n", fp);
}

void
picture_svg(FILE *fp, const struct chart *c, const char *what,
    const char *total)
{
	size_t top[PICTURE_BANDS], n_top = chart_top(c, top, PICTURE_BANDS);
	struct scale sc = { 0 };
	int64_t high = c->max_total;

	/* The process's pages in the scale too: the gap is seen. */
	if (c->has_resident && c->max_resident > high)
		high = c->max_resident;

	for (size_t i = 0; i < c->n_columns; i++) {
		if (stacked(c, top, n_top, i, n_top) > high)
			high = stacked(c, top, n_top, i, n_top);
		if (c->columns[i].unseen_peak &&
		    c->columns[i].unseen_peak_bytes > high)
			high = c->columns[i].unseen_peak_bytes;
	}
	/* The cgroup's limit in the scale when near: how close it came. */
	if (c->has_limit && c->max_limit > high && high > 0 &&
	    c->max_limit / LIMIT_SCALE <= high)
		high = c->max_limit;
	y_scale(&sc, high);
	if (c->n_columns > 0) {
		sc.t0 = c->columns[0].first_us;
		sc.t1 = c->columns[c->n_columns - 1].last_us;
		sc.wall0 = c->columns[0].first_wall_ms;
	}
	if (sc.t1 <= sc.t0)
		sc.t1 = sc.t0 + 1000000;
	fprintf(fp, "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" "
	    "height=\"%d\" viewBox=\"0 0 %d %d\" font-family=\"DejaVu Sans, "
	    "Helvetica, Arial, sans-serif\" role=\"img\">\n", WIDTH, HEIGHT,
	    WIDTH, HEIGHT);
	fputs("<title>mysqlmemprof: memory of ", fp);
	picture_text(fp, what, strlen(what), 0);
	fputs("</title>\n<defs><pattern id=\"hatch\" width=\"6\" height=\"6\" "
	    "patternUnits=\"userSpaceOnUse\" patternTransform=\"rotate(45)\">"
	    "<rect width=\"6\" height=\"6\" fill=\"#f4f4f4\"/>"
	    "<line x1=\"0\" y1=\"0\" x2=\"0\" y2=\"6\" stroke=\"#aaa\" "
	    "stroke-width=\"2\"/></pattern></defs>\n", fp);
	fprintf(fp, "<rect width=\"%d\" height=\"%d\" fill=\"#fff\"/>\n", WIDTH,
	    HEIGHT);
	fprintf(fp, "<text x=\"%d\" y=\"20\" font-size=\"14\" "
	    "font-weight=\"bold\">Memory of ", PLOT_X0);
	picture_text(fp, what, strlen(what), 60);
	fprintf(fp, ", %" PRIu64 " sample%s", c->samples,
	    c->samples == 1 ? "" : "s");
	if (c->n_columns > 0) {
		fputs(", peak ", fp);
		put_bytes(fp, c->max_total);
	}
	fputs("</text>\n", fp);
	axes(fp, &sc);
	if (c->n_columns == 0)
		fprintf(fp, "<text x=\"%d\" y=\"%d\" text-anchor=\"middle\" "
		    "font-size=\"14\">no samples</text>\n",
		    (PLOT_X0 + PLOT_X1) / 2, (PLOT_Y0 + PLOT_Y1) / 2);
	else {
		bands(fp, c, &sc, top, n_top, total);
		resident(fp, c, &sc);
		limit(fp, c, &sc);
		gaps(fp, c, &sc);
		peaks(fp, c, &sc, top, n_top);
		statements(fp, c, &sc);
	}
	legend(fp, c, &sc, top, n_top, total);
	fputs("</svg>\n", fp);
}
