/*
 * The live view's screens, drawn into a grid. From the top:
 *
 *   title bar        server, target
 *   statement        running for N s / ended N s ago; a grain's: with
 *                    --global on the server's machine, the process's
 *                    resident memory and how much of it is not counted,
 *                    its memory cgroup's usage and limit
 *   counts           interval, samples, skipped, our cost, total
 *   stackplot        y labels on the left, newest sample on the right; the
 *                    resident memory a line above the bands, in the scale;
 *                    the cgroup's limit a double line, when it is near
 *                    enough to be in the scale (LIVE_LIMIT_SCALE)
 *   marks            ^ an event peaked between samples, ! a statement too
 *                    short to be sampled ran before it, * a new statement,
 *                    . its events an earlier reading's (dimmed above it)
 *   time axis        seconds since the capture began
 *   table            the events of the bands, then "other"
 *   status line      the keys, or why the capture ended
 *
 * The bands of the chart are the rows of the table, in the same colours,
 * so the table is the legend.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <wchar.h>

#include "live_draw.h"
#include "scrub.h"
#include "units.h"

#define HEADER_ROWS 3
/*
 * The cgroup's limit is put in the chart's scale when it is at most this
 * many times what the chart shows: a limit far above leaves the bands
 * their height, and the header says how far.
 */
#define LIVE_LIMIT_SCALE 4
#define LABEL_W 10            /* y labels, then the axis line */
#define MIN_CHART_ROWS 4
/* Below the chart: marks, time axis, table heading, "other", status. */
#define FIXED_ROWS (HEADER_ROWS + 5)

static const uint32_t full_block = 0x2588;
/* Without colours, each band has a glyph of its own. */
static const char mono_glyphs[LIVE_BANDS] = { '#', '@', '%', '*', '+', '=',
    '~', ':' };

size_t
live_max_rows(int h)
{
	int n = h - FIXED_ROWS - MIN_CHART_ROWS;

	return n > 0 ? (size_t)n : 1;
}

int64_t
live_scale_top(int64_t max)
{
	int64_t p = 1024;

	for (;;) {
		if (p >= max)
			return p;
		/* 3 * 2^(k-1) lies between 2^k and 2^(k+1). */
		if (p + p / 2 >= max)
			return p + p / 2;
		if (p > INT64_MAX / 2)
			return INT64_MAX;
		p *= 2;
	}
}

void
live_scale_label(int64_t v, char *buf, size_t len)
{
	static const char *const unit[] = { "B", "KiB", "MiB", "GiB", "TiB" };
	uint64_t mag = v < 0 ? -(uint64_t)v : (uint64_t)v;
	unsigned u = 0;
	uint64_t tenths;

	while (u < 4 && mag >= (uint64_t)1024 << (10 * u))
		u++;
	/* Tenths of the unit, rounded: the scale's values are round anyway. */
	tenths = u == 0 ? mag * 10 :
	    (mag * 10 + ((uint64_t)1 << (10 * u - 1))) >> (10 * u);
	if (tenths % 10 == 0)
		snprintf(buf, len, "%s%" PRIu64 " %s", v < 0 ? "-" : "",
		    tenths / 10, unit[u]);
	else
		snprintf(buf, len, "%s%" PRIu64 ".%" PRIu64 " %s",
		    v < 0 ? "-" : "", tenths / 10, tenths % 10, unit[u]);
}

void
live_bytes_cell(const struct live_view *v, int64_t b, char *buf, size_t len)
{
	if (v->exact)
		snprintf(buf, len, "%" PRId64, b);
	else
		units_bytes(b, buf, len);
}

/* The bytes of event id in column c, or 0 when it was not kept there. */
static const struct live_event *
find_event(const struct live_column *c, uint32_t id)
{
	for (size_t i = 0; i < c->n; i++)
		if (c->ev[i].id == id)
			return &c->ev[i];
	return NULL;
}

/* A table row: an event of the newest sample with what it is sorted by. */
struct row {
	const struct live_event *e;
	bool has_change;
	double change;    /* bytes per second since the previous sample */
	bool peaked;      /* peaked between samples anywhere in the window */
	int64_t key;
};

static int
row_cmp(const void *a, const void *b)
{
	const struct row *x = a, *y = b;

	if (x->key != y->key)
		return x->key < y->key ? 1 : -1;
	return x->e->id < y->e->id ? -1 : x->e->id > y->e->id;
}

/* "  cgroup 210 MiB of 4.00 GiB (5%)" after the resident's words. */
static void
put_cgroup(const struct live_view *v, const struct live_column *c,
    char *line, size_t len)
{
	char usage[32], limit[32];
	size_t at = strlen(line);

	if (!c->has_cgroup || at >= len)
		return;
	live_bytes_cell(v, c->cgroup_usage, usage, sizeof(usage));
	if (c->cgroup_limit < 0) {
		snprintf(line + at, len - at, "  cgroup %s, no limit", usage);
		return;
	}
	live_bytes_cell(v, c->cgroup_limit, limit, sizeof(limit));
	snprintf(line + at, len - at, "  cgroup %s of %s (%.0f%%)", usage,
	    limit, c->cgroup_limit > 0 ? (double)c->cgroup_usage * 100 /
	    (double)c->cgroup_limit : 100.0);
}

/*
 * The rows of the table, sorted as v asks, at most v->rows of them in
 * out (room for the newest column's events). Returns how many.
 */
static size_t
pick_rows(const struct live_model *m, const struct live_view *v,
    struct row *out)
{
	const struct live_column *c, *prev = NULL;
	size_t n;

	if (m->len == 0)
		return 0;
	c = live_model_column(m, m->len - 1);
	if (m->len > 1)
		prev = live_model_column(m, m->len - 2);
	for (n = 0; n < c->n; n++) {
		const struct live_event *e = &c->ev[n], *p;
		struct row *r = &out[n];

		*r = (struct row){ .e = e };
		/* Between the readings of the two: none when one is kept. */
		if (prev != NULL && c->rows_us > prev->rows_us) {
			p = find_event(prev, e->id);
			r->has_change = true;
			r->change = (double)(e->bytes - (p ? p->bytes : 0)) *
			    1e6 / (double)(c->rows_us - prev->rows_us);
		}
		for (size_t i = 0; i < m->len && !r->peaked; i++) {
			const struct live_event *q = find_event(
			    live_model_column(m, i), e->id);
			r->peaked = q != NULL && q->peak;
		}
		switch (v->sort) {
		case LIVE_SORT_CHANGE: r->key = (int64_t)r->change; break;
		case LIVE_SORT_HIGH: r->key = e->high; break;
		case LIVE_SORT_ALLOC: r->key = (int64_t)e->alloc; break;
		default: r->key = e->bytes; break;
		}
	}
	qsort(out, n, sizeof(*out), row_cmp);
	return n < v->rows ? n : v->rows;
}

static const char *
short_name(const char *name)
{
	return strncmp(name, "memory/", 7) == 0 ? name + 7 : name;
}

const char *
live_thread_name(const char *name)
{
	return strncmp(name, "thread/", 7) == 0 ? name + 7 : name;
}

static uint32_t
band_glyph(const struct live_view *v, size_t band)
{
	if (v->mono || v->ascii)
		return (uint32_t)(band < LIVE_BANDS ? mono_glyphs[band] : '.');
	return full_block;
}

static uint32_t
other_glyph(const struct live_view *v)
{
	return v->mono || v->ascii ? '.' : full_block;
}

static int
band_color(size_t band)
{
	return band == SIZE_MAX ? LIVE_C_OTHER :
	    LIVE_C_BAND + (int)(band % LIVE_BANDS);
}

static void
draw_header(const struct live_model *m, const struct live_view *v,
    struct live_grid *g, const struct live_column *newest)
{
	char line[1024], every[40], tot[64], rss[32], gap[32], when[64] = "";
	int64_t total = newest != NULL ? newest->total : 0;
	const char *text = m->statement[0] != '\0' ? m->statement : "-";
	int64_t diff;
	double secs;

	live_grid_fill_row(g, 0, LIVE_C_TITLE, LIVE_A_REVERSE);
	snprintf(line, sizeof(line), " mysqlmemprof  %s  %s", m->server,
	    m->target);
	live_grid_text(g, 0, 0, g->w, line, LIVE_C_TITLE, LIVE_A_REVERSE);
	/* In the title bar, where it is seen first. */
	if (v->paused)
		live_grid_text_right(g, 0, g->w - 1, " [PAUSED]", LIVE_C_TITLE,
		    LIVE_A_REVERSE | LIVE_A_BOLD);
	if (m->state == LIVE_WAITING) {
		live_grid_text(g, 1, 0, g->w, "waiting for a statement to "
		    "capture...", 0, 0);
		return;
	}
	if (m->len > 0) {
		const struct live_column *c = live_model_column(m, m->len - 1);

		/* Whole seconds gone, as PROCESSLIST_TIME counts them. */
		secs = (double)((c->elapsed_us - m->statement_since_us) /
		    1000000u) + (double)m->statement_base_s;
		if (m->statement[0] == '\0')
			snprintf(when, sizeof(when), "no statement seen");
		else if (m->running)
			snprintf(when, sizeof(when), "running for %.0f s", secs);
		else
			snprintf(when, sizeof(when), "idle since %.0f s", secs);
		/* Only when the server said so: most captures have none. */
		if (m->unseen > 0)
			snprintf(when + strlen(when), sizeof(when) -
			    strlen(when), "  !%" PRIu64 " unsampled", m->unseen);
	}
	live_grid_text_right(g, 1, g->w, when, 0, LIVE_A_BOLD);
	/*
	 * The process's pages (--global on the server's machine), where a
	 * grain, which runs no statement, leaves the statement's line empty.
	 */
	if (m->statement[0] == '\0' && newest != NULL &&
	    newest->has_resident &&
	    !__builtin_sub_overflow(newest->resident, total, &diff)) {
		live_bytes_cell(v, newest->resident, rss, sizeof(rss));
		live_bytes_cell(v, diff, gap, sizeof(gap));
		snprintf(line, sizeof(line), "resident %s (the line), not "
		    "counted %s", rss, gap);
		put_cgroup(v, newest, line, sizeof(line));
		text = line;
	}
	live_grid_text(g, 1, 0, g->w - (int)strlen(when) - 1, text, 0, 0);
	live_bytes_cell(v, total, tot, sizeof(tot));
	/* The total only: its events, in the table, are of a reading before. */
	if (newest != NULL && newest->kept) {
		uint64_t ago = (newest->elapsed_us - newest->rows_us + 50000) /
		    100000;

		snprintf(tot + strlen(tot), sizeof(tot) - strlen(tot), " (rows "
		    "%" PRIu64 ".%" PRIu64 " s ago)", ago / 10, ago % 10);
	}
	/* A replay (--read) has no interval of its own: 0. */
	if (m->interval_ms > 0)
		snprintf(every, sizeof(every), "every %" PRIu64 " ms",
		    m->interval_ms);
	else
		snprintf(every, sizeof(every), "replayed");
	/*
	 * How close it came to MySQL's connection_memory_limit, or how old
	 * the rows are, before our cost, which a narrow terminal may cut.
	 */
	if (m->limit_bytes > 0) {
		char limit[32];

		live_bytes_cell(v, m->limit_bytes, limit, sizeof(limit));
		snprintf(line, sizeof(line), "%s  samples %"
		    PRIu64 "  skipped %" PRIu64 "  total %s  limit %s (most "
		    "%.0f%%)  our cost %.2f ms/sample", every, m->taken,
		    m->skipped, tot, limit, (double)m->most_total * 100 /
		    (double)m->limit_bytes, (double)m->query_us / 1000.0);
	} else if (newest != NULL && newest->kept)
		snprintf(line, sizeof(line), "%s  samples %" PRIu64 "  skipped %"
		    PRIu64 "  total %s  our cost %.2f ms/sample", every,
		    m->taken, m->skipped, tot, (double)m->query_us / 1000.0);
	else
		snprintf(line, sizeof(line), "%s  samples %"
		    PRIu64 "  skipped %" PRIu64 "  our cost %.2f ms/sample  "
		    "total %s", every, m->taken, m->skipped,
		    (double)m->query_us / 1000.0, tot);
	live_grid_text(g, 2, 0, g->w, line, 0, 0);
}

/*
 * The sample drawn in chart column j of w, of n held: one each while they
 * fit, the newest on the right; when more are held than there are
 * columns, the one with the largest total of each column's share, so that
 * no peak disappears. *first is the first of the share, for the marks.
 */
static size_t
column_sample(const struct live_model *m, int j, int w, size_t *first,
    size_t *last)
{
	size_t n = m->len, best;

	if (n <= (size_t)w) {
		size_t pad = (size_t)w - n;

		if ((size_t)j < pad)
			return SIZE_MAX;
		*first = *last = (size_t)j - pad;
		return *first;
	}
	*first = (size_t)j * n / (size_t)w;
	*last = ((size_t)j + 1) * n / (size_t)w - 1;
	best = *first;
	for (size_t i = *first + 1; i <= *last; i++)
		if (live_model_column(m, i)->total >
		    live_model_column(m, best)->total)
			best = i;
	return best;
}

/*
 * The process's resident memory, a mark at its height in column x: over
 * the bands when it is below the total counted (pages not yet touched).
 */
static void
draw_resident(const struct live_view *v, struct live_grid *g,
    const struct live_column *c, int64_t top, int top_y, int h, int x)
{
	int at;

	if (!c->has_resident || c->resident <= 0 || top <= 0)
		return;
	at = (int)((double)c->resident * h / (double)top + 0.5);
	if (at < 1)
		at = 1;
	if (at > h)
		at = h;
	live_grid_put(g, top_y + h - at, x, v->ascii ? '-' : 0x2500, LIVE_C_AXIS,
	    LIVE_A_BOLD);
}

/* The cgroup's limit, a double line at its height in column x. */
static void
draw_limit(const struct live_view *v, struct live_grid *g,
    const struct live_column *c, int64_t top, int top_y, int h, int x)
{
	int at;

	if (!c->has_cgroup || c->cgroup_limit <= 0 || c->cgroup_limit > top)
		return;
	at = (int)((double)c->cgroup_limit * h / (double)top + 0.5);
	if (at < 1)
		at = 1;
	live_grid_put(g, top_y + h - at, x, v->ascii ? '=' : 0x2550,
	    LIVE_C_PEAK, LIVE_A_BOLD);
}

static void
draw_chart(const struct live_model *m, const struct live_view *v,
    struct live_grid *g, const struct row *rows, size_t n_rows, int top_y,
    int h)
{
	int w = g->w - LABEL_W;
	int64_t max = 0, limit = 0, top;
	char label[32];
	size_t first, last, i;

	for (int j = 0; j < w; j++) {
		const struct live_column *c;

		if ((i = column_sample(m, j, w, &first, &last)) == SIZE_MAX)
			continue;
		c = live_model_column(m, i);
		if (c->total > max)
			max = c->total;
		/* The process's pages in the scale too: the gap is seen. */
		if (c->has_resident && c->resident > max)
			max = c->resident;
		if (c->has_cgroup && c->cgroup_limit > limit)
			limit = c->cgroup_limit;
	}
	/* The limit in the scale when near enough: how close it came is seen. */
	if (limit > max && max > 0 && limit / LIVE_LIMIT_SCALE <= max)
		max = limit;
	top = live_scale_top(max);
	for (int r = 0; r < h; r++)
		live_grid_put(g, top_y + r, LABEL_W - 1, v->ascii ? '|' : 0x2502,
		    LIVE_C_AXIS, 0);
	/* Labels at the top, the middle and the bottom of the scale. */
	live_scale_label(top, label, sizeof(label));
	live_grid_text_right(g, top_y, LABEL_W - 1, label, LIVE_C_AXIS, 0);
	live_scale_label(top / 2, label, sizeof(label));
	live_grid_text_right(g, top_y + h / 2, LABEL_W - 1, label, LIVE_C_AXIS, 0);
	live_grid_text_right(g, top_y + h - 1, LABEL_W - 1, "0 B", LIVE_C_AXIS, 0);

	for (int j = 0; j < w; j++) {
		const struct live_column *c;
		int64_t sum = 0;
		int below = 0;
		bool peak = false, stmt = false, unseen = false, kept = true;

		if ((i = column_sample(m, j, w, &first, &last)) == SIZE_MAX)
			continue;
		c = live_model_column(m, i);
		for (size_t k = first; k <= last; k++) {
			peak |= live_model_column(m, k)->peak;
			stmt |= live_model_column(m, k)->new_statement;
			unseen |= live_model_column(m, k)->unseen > 0;
			kept &= live_model_column(m, k)->kept;
		}
		/* Stacked from the bottom: the table's rows, then "other". */
		for (size_t b = 0; b <= n_rows; b++) {
			const struct live_event *e = b < n_rows ?
			    find_event(c, rows[b].e->id) : NULL;
			int64_t add = b < n_rows ? (e && e->bytes > 0 ?
			    e->bytes : 0) : c->total - sum;
			int upto;

			if (add < 0)
				add = 0;
			sum += add;
			upto = (int)((double)sum * h / (double)top + 0.5);
			if (upto > h)
				upto = h;
			for (; below < upto; below++)
				live_grid_put(g, top_y + h - 1 - below, LABEL_W + j,
				    b < n_rows ? band_glyph(v, b) : other_glyph(v),
				    band_color(b < n_rows ? b : SIZE_MAX),
				    kept ? LIVE_A_DIM : 0);
		}
		draw_limit(v, g, c, top, top_y, h, LABEL_W + j);
		draw_resident(v, g, c, top, top_y, h, LABEL_W + j);
		if (peak)
			live_grid_put(g, top_y + h, LABEL_W + j, '^', LIVE_C_PEAK,
			    LIVE_A_BOLD);
		else if (unseen)
			live_grid_put(g, top_y + h, LABEL_W + j, '!', LIVE_C_STATEMENT,
			    LIVE_A_BOLD);
		else if (stmt)
			live_grid_put(g, top_y + h, LABEL_W + j, '*', LIVE_C_STATEMENT,
			    LIVE_A_BOLD);
		else if (kept)
			live_grid_put(g, top_y + h, LABEL_W + j, '.', LIVE_C_AXIS, 0);
	}
	live_grid_text(g, top_y + h, 0, LABEL_W - 1, "^pk *stmt",
	    LIVE_C_AXIS, 0);
}

/* Seconds since the capture began under the first, middle and last column. */
static void
draw_time_axis(const struct live_model *m, const struct live_view *v,
    struct live_grid *g, int y)
{
	int w = g->w - LABEL_W;
	int at[3] = { 0, w / 2, w - 1 }, free_from = LABEL_W;
	size_t first, last, i;
	char label[32];

	live_grid_text(g, y, 0, LABEL_W, "  seconds", LIVE_C_AXIS, 0);
	for (int k = 0; k < 3; k++) {
		int j = at[k], x, len;

		while (j < w && column_sample(m, j, w, &first, &last) ==
		    SIZE_MAX)
			j++;
		if (j >= w)
			continue;
		i = column_sample(m, j, w, &first, &last);
		len = snprintf(label, sizeof(label), "%.1f",
		    (double)live_model_column(m, i)->elapsed_us / 1e6);
		x = LABEL_W + j - (k == 2 ? len - 1 : k == 1 ? len / 2 : 0);
		/* Labels that would touch the one before are left out. */
		if (x < free_from + (k > 0 ? 2 : 0))
			continue;
		live_grid_text(g, y, x, len, label, LIVE_C_AXIS, 0);
		/* A tick, unless a mark is there. */
		if (g->c[(y - 1) * g->w + LABEL_W + j].ch == ' ')
			live_grid_put(g, y - 1, LABEL_W + j, v->ascii ? '\'' : 0x2575,
			    LIVE_C_AXIS, 0);
		free_from = x + len;
	}
}

static const char *const sort_names[LIVE_N_SORTS] = {
	"current", "change/s", "high", "alloc",
};

/* Column positions of the table, from the right edge. */
#define COL_W 12
#define PCT_W 7

static void
draw_table(const struct live_model *m, const struct live_view *v,
    struct live_grid *g, const struct row *rows, size_t n_rows, int y)
{
	/* The value columns, right-aligned, and the sort each one is. */
	static const int sorts[5] = { LIVE_SORT_CURRENT, LIVE_SORT_CHANGE, -1,
	    LIVE_SORT_HIGH, LIVE_SORT_ALLOC };
	static const char *const heads[5] = { "current", "change/s", "%",
	    "high", "alloc" };
	int ends[5], name_w;
	const struct live_column *c = m->len ? live_model_column(m,
	    m->len - 1) : NULL;
	int64_t kept = 0;
	char cell[64];

	ends[4] = g->w;
	ends[3] = ends[4] - COL_W;
	ends[2] = ends[3] - COL_W;
	ends[1] = ends[2] - PCT_W;
	ends[0] = ends[1] - COL_W - 2; /* "/s" */
	name_w = ends[0] - COL_W - 4;
	live_grid_text(g, y, 4, name_w, "event", LIVE_C_AXIS, LIVE_A_BOLD);
	for (int k = 0; k < 5; k++) {
		bool sorted = sorts[k] == (int)v->sort;

		live_grid_text_right(g, y, ends[k], heads[k], LIVE_C_AXIS,
		    LIVE_A_BOLD | (sorted ? LIVE_A_REVERSE : 0));
	}
	for (size_t r = 0; r <= n_rows && c != NULL; r++) {
		int ry = y + 1 + (int)r;
		const char *name;
		int64_t b;

		if (r < n_rows) {
			const struct live_event *e = rows[r].e;
			const char *full = m->names[e->id];

			name = short_name(full);
			b = e->bytes;
			kept += b;
			if (rows[r].peaked)
				live_grid_put(g, ry, 0, '^', LIVE_C_PEAK, LIVE_A_BOLD);
			live_grid_put(g, ry, 1, band_glyph(v, r), band_color(r), 0);
			live_grid_put(g, ry, 2, band_glyph(v, r), band_color(r), 0);
			/* Long names keep their end, which tells them apart. */
			if ((int)strlen(name) > name_w && name_w > 1) {
				name += strlen(name) - (size_t)(name_w - 1);
				live_grid_put(g, ry, 4, v->ascii ? '~' : 0x2026, 0, 0);
				live_grid_text(g, ry, 5, name_w - 1, name, 0, 0);
			} else
				live_grid_text(g, ry, 4, name_w, name, 0, 0);
			if (rows[r].has_change) {
				live_bytes_cell(v, (int64_t)rows[r].change, cell,
				    sizeof(cell));
				strcat(cell, "/s");
				live_grid_text_right(g, ry, ends[1], cell, 0, 0);
			}
			live_bytes_cell(v, e->high, cell, sizeof(cell));
			live_grid_text_right(g, ry, ends[3], cell, 0, 0);
			/* Kept: nothing was read, not nothing allocated. */
			if (c->has_deltas && !c->kept) {
				live_bytes_cell(v, (int64_t)e->alloc, cell,
				    sizeof(cell));
				live_grid_text_right(g, ry, ends[4], cell, 0, 0);
			}
		} else {
			b = c->total - kept;
			live_grid_put(g, ry, 1, other_glyph(v), LIVE_C_OTHER, 0);
			live_grid_put(g, ry, 2, other_glyph(v), LIVE_C_OTHER, 0);
			live_grid_text(g, ry, 4, name_w, "other", 0, 0);
		}
		live_bytes_cell(v, b, cell, sizeof(cell));
		live_grid_text_right(g, ry, ends[0] - 2, cell, 0, 0);
		if (c->total > 0) {
			snprintf(cell, sizeof(cell), "%.1f%%",
			    (double)b * 100.0 / (double)c->total);
			live_grid_text_right(g, ry, ends[2], cell, 0, 0);
		}
	}
}

static void
draw_help(const struct live_view *v, struct live_grid *g)
{
	static const char *const lines[] = {
		"Keys",
		"",
		"q      quit: the summary follows",
		"p      pause or resume drawing",
		"       (sampling goes on)",
		"+ -    more or fewer events",
		"s      sort by the next column",
		"b      exact bytes or KiB/MiB",
		"e      the memory in layers (--global)",
		"Esc    back to the list (--list)",
		"?      this help; any key closes it",
		"",
		"^ an event peaked between samples",
		"! statements too short to be sampled",
		"  ran before it (the server's record)",
		"* the statement changed",
		". its events as last read: the",
		"  total only (dimmed)",
	};
	int n = (int)(sizeof(lines) / sizeof(lines[0]));
	int w = 42, y0 = (g->h - n - 2) / 2, x0 = (g->w - w) / 2;

	(void)v;
	for (int y = 0; y < n + 2; y++)
		for (int x = 0; x < w; x++)
			live_grid_put(g, y0 + y, x0 + x, ' ', LIVE_C_TITLE,
			    LIVE_A_REVERSE);
	for (int i = 0; i < n; i++)
		live_grid_text(g, y0 + 1 + i, x0 + 2, w - 4, lines[i],
		    LIVE_C_TITLE, LIVE_A_REVERSE);
}

bool
live_draw_too_small(struct live_grid *g)
{
	char line[96];

	if (g->w >= LIVE_MIN_W && g->h >= LIVE_MIN_H)
		return false;
	snprintf(line, sizeof(line), "terminal %dx%d: the live view needs "
	    "%dx%d; enlarge it, or press q", g->w, g->h, LIVE_MIN_W,
	    LIVE_MIN_H);
	live_grid_text(g, 0, 0, g->w, line, 0, 0);
	return true;
}

static void
draw_status(const struct live_model *m, const struct live_view *v,
    struct live_grid *g)
{
	char line[512];
	int y = g->h - 1;

	if (m->state == LIVE_ENDED && m->end_note[0] != '\0') {
		int keys;

		live_grid_fill_row(g, y, LIVE_C_PEAK, LIVE_A_REVERSE);
		/* The keys always show; a long note is cut before them. */
		keys = snprintf(line, sizeof(line), "  press q to quit%s ",
		    v->from_list ? ", Esc for the list" : "");
		live_grid_text_right(g, y, g->w, line, LIVE_C_PEAK, LIVE_A_REVERSE);
		snprintf(line, sizeof(line), " %s", m->end_note);
		live_grid_text(g, y, 0, g->w - keys, line, LIVE_C_PEAK,
		    LIVE_A_REVERSE);
		return;
	}
	snprintf(line, sizeof(line), " q quit  p %s  +/- events  s sort: %s  "
	    "b %s  e layers  %s? help", v->paused ? "resume" : "pause",
	    sort_names[v->sort], v->exact ? "KiB/MiB" : "bytes",
	    v->from_list ? "Esc list  " : "");
	live_grid_text(g, y, 0, g->w, line, LIVE_C_AXIS, 0);
}

void
live_draw(const struct live_model *m, const struct live_view *v,
    struct live_grid *g)
{
	struct row stack_rows[64], *rows = stack_rows;
	const struct live_column *c = NULL;
	size_t n_rows = 0, want = v->rows;
	struct live_view vv = *v;
	int chart_h;

	live_grid_clear(g);
	if (live_draw_too_small(g))
		return;
	if (want > live_max_rows(g->h))
		want = live_max_rows(g->h);
	vv.rows = want;
	if (m->len > 0) {
		c = live_model_column(m, m->len - 1);
		if (c->n > sizeof(stack_rows) / sizeof(stack_rows[0]) &&
		    (rows = malloc(c->n * sizeof(*rows))) == NULL)
			rows = stack_rows, c = NULL;
	}
	if (c != NULL)
		n_rows = pick_rows(m, &vv, rows);
	draw_header(m, &vv, g, c);
	chart_h = g->h - FIXED_ROWS - (int)want;
	draw_chart(m, &vv, g, rows, n_rows, HEADER_ROWS, chart_h);
	draw_time_axis(m, &vv, g, HEADER_ROWS + chart_h + 1);
	draw_table(m, &vv, g, rows, n_rows, HEADER_ROWS + chart_h + 2);
	draw_status(m, &vv, g);
	if (v->help)
		draw_help(v, g);
	if (rows != stack_rows)
		free(rows);
}
