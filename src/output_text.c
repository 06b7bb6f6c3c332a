/*
 * Text for people, in the shape of the Python scripts this program
 * replaces. Names come from the server and statements from any client, so
 * everything is written through output_clean.h: a hostile name can neither
 * move the cursor nor break the alignment. Every callback writes into
 * o->buf (output_buf.h), which output.c sends on in one write.
 */
#include <inttypes.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "output.h"
#include "output_clean.h"
#include "output_format.h"
#include "units.h"

#define NAME_WIDTH      27 /* the least name column, as users know it */
#define STATEMENT_WIDTH 60 /* the last column of --list: a row on one line */
#define STATEMENT_LINE  100 /* the statement above a sample */
#define CAPTURE_LINE    63  /* the statement in a capture's heading */
#define TOTAL_LABEL     "(thread total)"
#define FILTERED_LABEL  "(filtered total)"
#define CELL            32 /* room for any number this file formats */

static size_t
max_size(size_t a, size_t b)
{
	return a > b ? a : b;
}

/* Every instrument the program sees is a memory/ one: the prefix is noise. */
static const char *
short_name(const char *name)
{
	return strncmp(name, "memory/", 7) == 0 ? name + 7 : name;
}

static void
fmt_bytes(const struct output *o, int64_t v, char *buf)
{
	if (o->exact_bytes)
		snprintf(buf, CELL, "%" PRId64, v);
	else
		units_bytes(v, buf, CELL);
}

/* The mean, rounded to whole bytes; out-of-range doubles are clamped. */
static int64_t
round_mean(double m)
{
	if (m >= 9223372036854775807.0)
		return INT64_MAX;
	if (m <= -9223372036854775808.0)
		return INT64_MIN;
	return (int64_t)(m < 0 ? m - 0.5 : m + 0.5);
}

static void
put_statement_text(struct output_buf *b, const struct statement *st)
{
	if (statement_text_len(st) > 0)
		clean_cut_len(b, st->text, statement_text_len(st),
		    STATEMENT_LINE);
	else if (st->has_id)
		ob_printf(b, "(statement %" PRIu64 ", no text)", st->id);
	else
		ob_puts(b, "(none)");
}

/* "(thread total)", or for another grain "(global total)", "(user:app total)". */
static const char *
total_label(const struct output *o, char *buf, size_t len)
{
	if (o->grain == NULL)
		return TOTAL_LABEL;
	snprintf(buf, len, "(%s total)", o->grain);
	return buf;
}

/* "## switched off: the memory instruments ##", where it changes. */
static void
put_setup_off(struct output_buf *b, unsigned off)
{
	const char *sep = "";

	if (off == 0) {
		ob_puts(b, "## instrumentation as at the start again ##\n");
		return;
	}
	ob_puts(b, "## switched off, not counted from here: ");
	if (off & SETUP_OFF_MEMORY)
		ob_puts(b, "memory instruments"), sep = ", ";
	if (off & SETUP_OFF_STATEMENTS)
		ob_printf(b, "%sa statements consumer", sep), sep = ", ";
	if (off & SETUP_OFF_THREAD)
		ob_printf(b, "%sthe thread's INSTRUMENTED", sep);
	ob_puts(b, " ##\n");
}

/* One value of a sample's rows, into o->scratch; w: the widest so far. */
static void
add_value(struct output *o, int64_t bytes, size_t *w)
{
	char v[CELL];
	size_t n;

	fmt_bytes(o, bytes, v);
	n = strlen(v);
	ob_write(&o->scratch, v, n + 1);
	*w = max_size(*w, n);
}

/*
 * The values of a sample's rows, each formatted once into o->scratch, one
 * after the other with their NULs, in the order the rows are written: the
 * events, the total, and the filtered total under --events. Returns the
 * width of the widest, so that values line up.
 */
static size_t
format_values(struct output *o, const struct sample *s)
{
	size_t w = 0;

	ob_clear(&o->scratch);
	for (size_t i = 0; i < s->n_events; i++)
		add_value(o, s->events[i].current_bytes, &w);
	add_value(o, s->total_bytes, &w);
	if (o->filtered)
		add_value(o, s->filtered_total_bytes, &w);
	return w;
}

/*
 * A row of a sample: its name, and the value at *v, which then moves on
 * to the next. Values are our own digits and units: no cleaning needed.
 */
static void
put_value_row(struct output *o, const char *name, size_t width,
    const char **v, size_t value_width)
{
	size_t n = strlen(*v);

	ob_putc(&o->buf, ' ');
	clean_left(&o->buf, name, width, false);
	ob_write(&o->buf, " -> ", 4);
	ob_fill(&o->buf, ' ', value_width > n ? value_width - n : 0);
	ob_write(&o->buf, *v, n);
	ob_putc(&o->buf, '\n');
	*v += n + 1;
}

/*
 * After the total, so the table above stays one aligned block: the events
 * that peaked between samples, by their high-water mark or, when only the
 * deltas prove it, at least at the delta's lower bound.
 */
static void
put_sample_peaks(struct output *o, const struct sample *s)
{
	char v[CELL];

	for (size_t i = 0; s->has_deltas && i < s->n_events; i++) {
		const struct event_stat *e = &s->events[i];

		if (!e->delta.unseen_peak && e->delta.spike_bytes == 0)
			continue;
		ob_puts(&o->buf, " ! ");
		clean_put(&o->buf, short_name(e->name), SIZE_MAX, false);
		if (e->delta.unseen_peak) {
			fmt_bytes(o, e->high_bytes, v);
			ob_puts(&o->buf, " peaked at ");
			ob_puts(&o->buf, v);
			ob_puts(&o->buf, " between samples\n");
		} else {
			fmt_bytes(o, e->delta.spike_bytes, v);
			ob_puts(&o->buf, " peaked at ");
			ob_puts(&o->buf, v);
			ob_puts(&o->buf, " or more between samples "
			    "(allocated and freed between them)\n");
		}
	}
}

static int
text_sample(struct output *o, const struct sample *s)
{
	char label_buf[EVENT_NAME_MAX + 16];
	const char *label = total_label(o, label_buf, sizeof(label_buf));
	size_t width = max_size(NAME_WIDTH, clean_width(label, false));
	size_t vw = format_values(o, s);
	const char *v = o->scratch.p;

	if (ob_status(&o->scratch) != 0)
		return -1;
	for (size_t i = 0; i < s->n_events; i++)
		width = max_size(width,
		    clean_width(short_name(s->events[i].name), false));
	if (s->gap_ms > 0) {
		ob_puts(&o->buf, "## gap of ");
		ob_uint(&o->buf, s->gap_ms);
		ob_puts(&o->buf, " ms: the connection was lost and "
		    "re-established ##\n");
	}
	if (s->setup_off != o->setup_off)
		put_setup_off(&o->buf, s->setup_off);
	/* Only a thread runs statements. */
	if (o->grain == NULL && (!o->has_statement ||
	    !statement_same(&o->statement, &s->statement))) {
		ob_puts(&o->buf, "## statement: ");
		put_statement_text(&o->buf, &s->statement);
		ob_puts(&o->buf, " ##\n");
	}
	/* A reading from before the capture began: taken every --poll. */
	ob_puts(&o->buf, "## Memory usage at time ");
	ob_uint(&o->buf, s->elapsed_us / 1000);
	ob_puts(&o->buf, s->waiting ? " (taken while waiting) ##\n" : " ##\n");
	for (size_t i = 0; i < s->n_events; i++)
		put_value_row(o, short_name(s->events[i].name), width, &v,
		    vw);
	put_value_row(o, label, width, &v, vw);
	if (o->filtered)
		put_value_row(o, FILTERED_LABEL, width, &v, vw);
	put_sample_peaks(o, s);
	ob_putc(&o->buf, '\n');
	return ob_status(&o->buf);
}

/* The numeric columns of the summary, as the header names them. */
#define SUM_COLS 6
static const char *const sum_heads[SUM_COLS] = {
	"samples", "min", "max", "mean", "last", "high"
};

static void
event_cells(const struct output *o, const struct summary_event *e,
    char c[SUM_COLS][CELL])
{
	snprintf(c[0], CELL, "%" PRIu64, e->samples);
	fmt_bytes(o, e->min_bytes, c[1]);
	fmt_bytes(o, e->max_bytes, c[2]);
	fmt_bytes(o, round_mean(e->mean_bytes), c[3]);
	fmt_bytes(o, e->last_bytes, c[4]);
	fmt_bytes(o, e->high_bytes, c[5]);
}

/* The summary keeps no mean nor high-water mark of the total. */
static void
total_cells(const struct output *o, const struct summary *s,
    char c[SUM_COLS][CELL])
{
	snprintf(c[0], CELL, "%zu", s->n_samples);
	fmt_bytes(o, s->min_total, c[1]);
	fmt_bytes(o, s->max_total, c[2]);
	snprintf(c[3], CELL, "-");
	fmt_bytes(o, s->last_total, c[4]);
	snprintf(c[5], CELL, "-");
}

static void
put_sum_row(struct output_buf *b, const char *name, size_t name_width,
    char c[SUM_COLS][CELL], const size_t w[SUM_COLS])
{
	ob_putc(b, ' ');
	clean_left(b, name, name_width, false);
	for (size_t j = 0; j < SUM_COLS; j++) {
		ob_puts(b, "  ");
		clean_right(b, c[j], w[j]);
	}
	ob_putc(b, '\n');
}

/* Column widths wide enough for the header, every event and the total. */
static size_t
sum_widths(const struct output *o, const struct summary *s, size_t w[SUM_COLS])
{
	char label_buf[EVENT_NAME_MAX + 16];
	size_t name_width = max_size(NAME_WIDTH,
	    clean_width(total_label(o, label_buf, sizeof(label_buf)), false));
	char c[SUM_COLS][CELL];

	for (size_t j = 0; j < SUM_COLS; j++)
		w[j] = strlen(sum_heads[j]);
	total_cells(o, s, c);
	for (size_t j = 0; j < SUM_COLS; j++)
		w[j] = max_size(w[j], strlen(c[j]));
	for (size_t i = 0; i < s->n_events; i++) {
		name_width = max_size(name_width,
		    clean_width(short_name(s->events[i].name), false));
		event_cells(o, &s->events[i], c);
		for (size_t j = 0; j < SUM_COLS; j++)
			w[j] = max_size(w[j], strlen(c[j]));
	}
	return name_width;
}

#define PEAKS_LABEL "peaked between samples"

/*
 * The events that peaked where no sample saw them, in columns under the
 * summary's: the name, then how many samples found a peak under "samples",
 * then the largest peak under "min".
 */
static void
put_peaks(struct output *o, const struct summary *s, size_t name_width,
    const size_t w[SUM_COLS])
{
	size_t largest_width = max_size(w[1], strlen("largest"));
	char n[CELL], v[CELL];

	if (s->n_peaks == 0) {
		ob_puts(&o->buf, " peaks between samples: none seen\n");
		return;
	}
	for (size_t i = 0; i < s->n_peaks; i++) {
		fmt_bytes(o, s->peaks[i]->largest_unseen_peak, v);
		largest_width = max_size(largest_width, strlen(v));
	}
	name_width = max_size(name_width, strlen(PEAKS_LABEL));
	ob_putc(&o->buf, ' ');
	clean_left(&o->buf, PEAKS_LABEL, name_width, false);
	ob_puts(&o->buf, "  ");
	clean_right(&o->buf, "samples", w[0]);
	ob_puts(&o->buf, "  ");
	clean_right(&o->buf, "largest", largest_width);
	ob_putc(&o->buf, '\n');
	for (size_t i = 0; i < s->n_peaks; i++) {
		const struct summary_event *e = s->peaks[i];

		ob_putc(&o->buf, ' ');
		clean_left(&o->buf, short_name(e->name), name_width, false);
		snprintf(n, CELL, "%" PRIu64, e->unseen_peaks);
		fmt_bytes(o, e->largest_unseen_peak, v);
		ob_puts(&o->buf, "  ");
		clean_right(&o->buf, n, w[0]);
		ob_puts(&o->buf, "  ");
		clean_right(&o->buf, v, largest_width);
		ob_putc(&o->buf, '\n');
	}
}

/*
 * When the window saw more than one statement: each one's samples, its peak
 * and final totals and the events that held the most during it.
 */
static void
put_statements(struct output *o, const struct summary *s)
{
	size_t width = NAME_WIDTH;
	char v[CELL], w[CELL];

	if (s->n_statements < 2)
		return;
	for (size_t i = 0; i < s->n_statements; i++)
		for (size_t j = 0; j < s->statements[i].n_top; j++)
			width = max_size(width, clean_width(
			    short_name(s->statements[i].top[j].name), false));
	ob_printf(&o->buf, "## By statement: %zu in the window ##\n",
	    s->n_statements);
	for (size_t i = 0; i < s->n_statements; i++) {
		const struct summary_statement *st = &s->statements[i];

		if (st->samples == 1)
			ob_printf(&o->buf, " #%" PRIu64 ": ", st->first_seq);
		else
			ob_printf(&o->buf, " #%" PRIu64 " to #%" PRIu64 ": ",
			    st->first_seq, st->last_seq);
		put_statement_text(&o->buf, st->statement);
		fmt_bytes(o, st->peak_total, v);
		fmt_bytes(o, st->final_total, w);
		ob_printf(&o->buf, "\n   peak %s, final %s\n", v, w);
		for (size_t j = 0; j < st->n_top; j++) {
			ob_puts(&o->buf, "   ");
			clean_left(&o->buf, short_name(st->top[j].name), width,
			    false);
			fmt_bytes(o, st->top[j].max_bytes, v);
			ob_printf(&o->buf, " -> %s\n", v);
		}
	}
}

/*
 * The whole run (summary.h, has_run): each event over every sample that
 * kept it, with the peak that includes peaks between samples; the peaks
 * between samples of both kinds; the statements ranked by growth.
 */
#define RUN_COLS 7
static const char *const run_heads[RUN_COLS] = {
	"samples", "min", "max", "mean", "last", "high", "peak"
};

static void
run_event_cells(const struct output *o, const struct run_event *e,
    char c[RUN_COLS][CELL])
{
	snprintf(c[0], CELL, "%" PRIu64, e->samples);
	fmt_bytes(o, e->min_bytes, c[1]);
	fmt_bytes(o, e->max_bytes, c[2]);
	fmt_bytes(o, round_mean(e->mean_bytes), c[3]);
	fmt_bytes(o, e->last_bytes, c[4]);
	fmt_bytes(o, e->high_bytes, c[5]);
	fmt_bytes(o, e->peak_bytes, c[6]);
}

/* The total has no high-water mark of its own. */
static void
run_total_cells(const struct output *o, const struct run_totals *t,
    char c[RUN_COLS][CELL])
{
	snprintf(c[0], CELL, "%" PRIu64, t->samples);
	fmt_bytes(o, t->min_total, c[1]);
	fmt_bytes(o, t->max_total, c[2]);
	fmt_bytes(o, round_mean(t->mean_total), c[3]);
	fmt_bytes(o, t->last_total, c[4]);
	snprintf(c[5], CELL, "-");
	fmt_bytes(o, t->between_peak_total, c[6]);
}

static void
put_cells(struct output_buf *b, const char *name, size_t name_width, size_t n,
    char c[][CELL], const size_t *w)
{
	ob_putc(b, ' ');
	clean_left(b, name, name_width, false);
	for (size_t j = 0; j < n; j++) {
		ob_puts(b, "  ");
		clean_right(b, c[j], w[j]);
	}
	ob_putc(b, '\n');
}

static void
widen(size_t n, char c[][CELL], size_t *w)
{
	for (size_t j = 0; j < n; j++)
		w[j] = max_size(w[j], strlen(c[j]));
}

/* "## Summary of ... ##" and the line that says what it covers. */
static void
put_run_heading(struct output *o, const struct summary *s)
{
	const struct run_totals *t = &s->run;

	ob_printf(&o->buf, "## Summary of %" PRIu64 " sample%s (#%" PRIu64
	    " to #%" PRIu64 ", %" PRIu64 " ms to %" PRIu64 " ms), ", t->samples,
	    t->samples == 1 ? "" : "s", t->first_seq, t->last_seq,
	    t->first_elapsed_us / 1000, t->last_elapsed_us / 1000);
	if (o->grain == NULL)
		ob_printf(&o->buf, "thread %" PRIu64 " ##\n", s->thread_id);
	else {
		/* An account's name is anyone's to choose. */
		clean_put(&o->buf, o->grain, SIZE_MAX, true);
		ob_puts(&o->buf, " ##\n");
	}
	ob_printf(&o->buf, " over the whole run; the window holds the last %zu "
	    "(#%" PRIu64 " to #%" PRIu64 ")\n high: the high-water mark since "
	    "%s; peak: the most held in the run, peaks between samples "
	    "included\n", s->n_samples, s->first_seq, s->last_seq,
	    o->grain == NULL ? "the thread started" : "the server started");
}

#define RUN_PEAKS_LABEL "peaked between samples"

/* The largest peak between samples first; then by name. */
static int
by_between_peak(const void *a, const void *b)
{
	const struct run_event *x = *(const struct run_event *const *)a;
	const struct run_event *y = *(const struct run_event *const *)b;

	if (x->largest_between_peak != y->largest_between_peak)
		return x->largest_between_peak < y->largest_between_peak ? 1 :
		    -1;
	return strcmp(x->name, y->name);
}

/*
 * The events that peaked between samples: how many samples proved it by
 * the high-water mark, how many by the deltas alone, and the largest.
 */
static void
put_run_peaks(struct output *o, const struct summary *s,
    size_t name_width)
{
	static const char *const heads[3] = { "high-water", "deltas",
	    "largest" };
	const struct run_event **peaked;
	size_t n = 0;
	char c[3][CELL];
	size_t w[3];

	if (s->run.unseen_peaks + s->run.delta_spikes == 0) {
		ob_puts(&o->buf, " peaks between samples: none seen\n");
		return;
	}
	/* Out of memory for a few pointers: in the order of the events. */
	peaked = malloc(s->n_run_events * sizeof(*peaked));
	for (size_t i = 0; peaked != NULL && i < s->n_run_events; i++)
		if (s->run_events[i].unseen_peaks +
		    s->run_events[i].delta_spikes > 0)
			peaked[n++] = &s->run_events[i];
	if (peaked != NULL)
		qsort(peaked, n, sizeof(*peaked), by_between_peak);
	name_width = max_size(name_width, strlen(RUN_PEAKS_LABEL));
	for (size_t j = 0; j < 3; j++)
		w[j] = strlen(heads[j]);
	for (size_t i = 0; i < s->n_run_events; i++) {
		fmt_bytes(o, s->run_events[i].largest_between_peak, c[2]);
		w[2] = max_size(w[2], strlen(c[2]));
	}
	for (size_t j = 0; j < 3; j++)
		snprintf(c[j], CELL, "%s", heads[j]);
	put_cells(&o->buf, RUN_PEAKS_LABEL, name_width, 3, c, w);
	for (size_t i = 0; i < (peaked != NULL ? n : s->n_run_events); i++) {
		const struct run_event *e = peaked != NULL ? peaked[i] :
		    &s->run_events[i];

		if (e->unseen_peaks + e->delta_spikes == 0)
			continue;
		snprintf(c[0], CELL, "%" PRIu64, e->unseen_peaks);
		snprintf(c[1], CELL, "%" PRIu64, e->delta_spikes);
		fmt_bytes(o, e->largest_between_peak, c[2]);
		put_cells(&o->buf, short_name(e->name), name_width, 3, c, w);
	}
	free(peaked);
}

#define STMT_COLS 6
static const char *const stmt_heads[STMT_COLS] = {
	"growth", "start", "peak", "allocated", "samples", "ran"
};

static void
stmt_cells(const struct output *o, const struct run_statement *st,
    char c[STMT_COLS][CELL])
{
	fmt_bytes(o, st->growth_bytes, c[0]);
	fmt_bytes(o, st->start_bytes, c[1]);
	fmt_bytes(o, st->between_peak_bytes, c[2]);
	fmt_bytes(o, st->alloc_bytes > INT64_MAX ? INT64_MAX :
	    (int64_t)st->alloc_bytes, c[3]);
	if (st->first_seq == st->last_seq)
		snprintf(c[4], CELL, "#%" PRIu64, st->first_seq);
	else
		snprintf(c[4], CELL, "#%" PRIu64 "-#%" PRIu64, st->first_seq,
		    st->last_seq);
	snprintf(c[5], CELL, "%" PRIu64 " ms",
	    (st->last_elapsed_us - st->first_elapsed_us) / 1000);
}

/*
 * The statements of the run, the most growth first: the memory each took,
 * rather than the memory the thread held when it began.
 */
static void
put_run_statements(struct output *o, const struct summary *s)
{
	char c[STMT_COLS][CELL];
	size_t w[STMT_COLS];

	if (s->n_run_statements == 0)
		return;
	ob_printf(&o->buf, "## Statements by growth: %zu in the run%s ##\n",
	    s->n_run_statements, s->run.statements_dropped > 0 ?
	    ", the least grown left out" : "");
	for (size_t j = 0; j < STMT_COLS; j++)
		w[j] = strlen(stmt_heads[j]);
	for (size_t i = 0; i < s->n_run_statements; i++) {
		stmt_cells(o, &s->run_statements[i], c);
		widen(STMT_COLS, c, w);
	}
	for (size_t j = 0; j < STMT_COLS; j++)
		snprintf(c[j], CELL, "%s", stmt_heads[j]);
	put_cells(&o->buf, "rank", 4, STMT_COLS, c, w);
	/* Under its numbers, a statement of any length stays readable. */
	for (size_t i = 0; i < s->n_run_statements; i++) {
		char rank[CELL];

		snprintf(rank, CELL, "%zu", i + 1);
		stmt_cells(o, &s->run_statements[i], c);
		put_cells(&o->buf, rank, 4, STMT_COLS, c, w);
		ob_puts(&o->buf, "      statement: ");
		put_statement_text(&o->buf, &s->run_statements[i].statement);
		ob_putc(&o->buf, '\n');
	}
}

/* --statements in text: the ranking the summary shows. */
static int
text_statements(struct output *o, const struct summary *s)
{
	put_run_statements(o, s);
	return ob_status(&o->buf);
}

/*
 * What the samples' queries cost the server: the mean and the slowest,
 * and the share of a core they took over the run (the sampler's duty
 * cycle), which grows with the threads connected (see --max-load).
 */
static void
put_server_time(struct output *o, const struct run_totals *t)
{
	double duty = run_totals_duty_pct(t);

	if (t->queried == 0)
		return;
	ob_printf(&o->buf, " server time per sample: mean %.2f ms, slowest "
	    "%.2f ms", (double)t->query_us_sum / (double)t->queried / 1000,
	    (double)t->query_us_max / 1000);
	if (duty >= 0)
		ob_printf(&o->buf, "; %.1f%% of a core over the run", duty);
	ob_puts(&o->buf, "\n");
}

static int
text_end_run(struct output *o, const struct summary *s)
{
	char label_buf[EVENT_NAME_MAX + 16];
	const char *label = total_label(o, label_buf, sizeof(label_buf));
	size_t name_width = max_size(NAME_WIDTH, clean_width(label, false));
	char c[RUN_COLS][CELL];
	size_t w[RUN_COLS];

	for (size_t j = 0; j < RUN_COLS; j++)
		w[j] = strlen(run_heads[j]);
	run_total_cells(o, &s->run, c);
	widen(RUN_COLS, c, w);
	for (size_t i = 0; i < s->n_run_events; i++) {
		name_width = max_size(name_width,
		    clean_width(short_name(s->run_events[i].name), false));
		run_event_cells(o, &s->run_events[i], c);
		widen(RUN_COLS, c, w);
	}
	put_run_heading(o, s);
	for (size_t j = 0; j < RUN_COLS; j++)
		snprintf(c[j], CELL, "%s", run_heads[j]);
	put_cells(&o->buf, "event", name_width, RUN_COLS, c, w);
	for (size_t i = 0; i < s->n_run_events; i++) {
		run_event_cells(o, &s->run_events[i], c);
		put_cells(&o->buf, short_name(s->run_events[i].name), name_width,
		    RUN_COLS, c, w);
	}
	run_total_cells(o, &s->run, c);
	put_cells(&o->buf, label, name_width, RUN_COLS, c, w);
	put_run_peaks(o, s, name_width);
	ob_printf(&o->buf, " skipped ticks: %" PRIu64 "\n", s->skipped);
	put_server_time(o, &s->run);
	put_run_statements(o, s);
	return ob_status(&o->buf);
}

static int
text_end(struct output *o, const struct summary *s)
{
	char label_buf[EVENT_NAME_MAX + 16];
	size_t w[SUM_COLS], name_width;
	char c[SUM_COLS][CELL];

	if (s != NULL && s->has_run && s->run.samples > 0)
		return text_end_run(o, s);
	if (s == NULL)
		return 0;
	if (s->n_samples == 0) {
		ob_printf(&o->buf, "## Summary: no samples were taken ##\n"
		    " skipped ticks: %" PRIu64 "\n", s->skipped);
		return ob_status(&o->buf);
	}
	name_width = sum_widths(o, s, w);
	ob_printf(&o->buf, "## Summary of %zu sample%s (#%" PRIu64 " to #%"
	    PRIu64 ", %" PRIu64 " ms to %" PRIu64 " ms), ", s->n_samples,
	    s->n_samples == 1 ? "" : "s", s->first_seq, s->last_seq,
	    s->first_elapsed_us / 1000, s->last_elapsed_us / 1000);
	if (o->grain == NULL)
		ob_printf(&o->buf, "thread %" PRIu64 " ##\n", s->thread_id);
	else {
		/* An account's name is anyone's to choose. */
		clean_put(&o->buf, o->grain, SIZE_MAX, true);
		ob_puts(&o->buf, " ##\n");
	}
	for (size_t j = 0; j < SUM_COLS; j++)
		snprintf(c[j], CELL, "%s", sum_heads[j]);
	put_sum_row(&o->buf, "event", name_width, c, w);
	for (size_t i = 0; i < s->n_events; i++) {
		event_cells(o, &s->events[i], c);
		put_sum_row(&o->buf, short_name(s->events[i].name), name_width,
		    c, w);
	}
	total_cells(o, s, c);
	put_sum_row(&o->buf, total_label(o, label_buf, sizeof(label_buf)),
	    name_width, c, w);
	put_peaks(o, s, name_width, w);
	ob_printf(&o->buf, " skipped ticks: %" PRIu64 "\n", s->skipped);
	put_statements(o, s);
	return ob_status(&o->buf);
}

static int
text_dump(struct output *o, const struct output_dump *d)
{
	char total[CELL], threshold[CELL];

	if (d->by_signal) {
		ob_printf(&o->buf, "## trigger: SIGUSR1, writing the %zu "
		    "sample%s held ##\n", d->held, d->held == 1 ? "" : "s");
		return ob_status(&o->buf);
	}
	fmt_bytes(o, d->total, total);
	fmt_bytes(o, d->threshold, threshold);
	ob_printf(&o->buf, "## trigger: total %s >= %s, writing the %zu "
	    "sample%s before it ##\n", total, threshold, d->held,
	    d->held == 1 ? "" : "s");
	return ob_status(&o->buf);
}

/*
 * --list as a table of thread_columns[] under their heads, leaving out a
 * column without one: numbers to the right, text to the left, and the last
 * column, the statement, cut and not padded.
 */
static size_t
list_last(void)
{
	size_t j = THREAD_COLUMNS - 1;

	while (thread_columns[j].head == NULL)
		j--;
	return j;
}

/*
 * The text of one cell: "-" for a null; numbers are formatted into buf.
 * *len is its bytes, which may hold a NUL.
 */
static const char *
list_cell(const struct output *o, const struct thread_column *c,
    const struct thread_info *t, char *buf, size_t *len)
{
	union column_value v;
	const char *s;

	*len = 0;
	if (!c->get(t, &v))
		return *len = 1, "-";
	switch (c->kind) {
	case COLUMN_INT:
		if (c->bytes)
			fmt_bytes(o, v.i, buf);
		else
			snprintf(buf, CELL, "%" PRId64, v.i);
		return *len = strlen(buf), buf;
	case COLUMN_UINT:
		snprintf(buf, CELL, "%" PRIu64, v.u);
		return *len = strlen(buf), buf;
	case COLUMN_TEXT:
	default:
		/* A prefix all values share is noise: "thread/x" shows as "x". */
		s = v.s;
		*len = v.len;
		if (c->prefix != NULL &&
		    strncmp(v.s, c->prefix, strlen(c->prefix)) == 0) {
			s += strlen(c->prefix);
			*len -= strlen(c->prefix);
		}
		return s;
	}
}

static void
put_list_row(struct output_buf *b, const char *const cell[THREAD_COLUMNS],
    const size_t len[THREAD_COLUMNS], const size_t w[THREAD_COLUMNS])
{
	size_t last = list_last();
	const char *sep = " ";

	for (size_t j = 0; j <= last; j++) {
		if (thread_columns[j].head == NULL)
			continue;
		ob_puts(b, sep);
		sep = "  ";
		if (j == last)
			clean_cut_len(b, cell[j], len[j], STATEMENT_WIDTH);
		else if (thread_columns[j].kind != COLUMN_TEXT)
			clean_right(b, cell[j], w[j]);
		else
			clean_left(b, cell[j], w[j], true);
	}
	ob_putc(b, '\n');
}

static int
text_threads(struct output *o, const struct thread_list *l)
{
	size_t w[THREAD_COLUMNS];
	const char *cell[THREAD_COLUMNS];
	size_t len[THREAD_COLUMNS];
	char buf[THREAD_COLUMNS][CELL];

	for (size_t j = 0; j < THREAD_COLUMNS; j++) {
		cell[j] = thread_columns[j].head;
		len[j] = w[j] = cell[j] != NULL ? strlen(cell[j]) : 0;
	}
	for (size_t i = 0; i < l->n; i++)
		for (size_t j = 0; j < THREAD_COLUMNS; j++) {
			size_t n;

			w[j] = max_size(w[j], clean_width(list_cell(o,
			    &thread_columns[j], &l->v[i], buf[j], &n), true));
		}
	put_list_row(&o->buf, cell, len, w);
	for (size_t i = 0; i < l->n; i++) {
		for (size_t j = 0; j < THREAD_COLUMNS; j++)
			cell[j] = list_cell(o, &thread_columns[j], &l->v[i],
			    buf[j], &len[j]);
		put_list_row(&o->buf, cell, len, w);
	}
	return ob_status(&o->buf);
}

/* "## Capture 2 at 2026-11-22 01:02:03: connection 17, thread 48, ... ##" */
static int
text_capture(struct output *o, const struct output_capture *c)
{
	time_t t = (time_t)c->started_s;
	char when[32];
	struct tm tm;

	if (localtime_r(&t, &tm) == NULL ||
	    strftime(when, sizeof(when), "%Y-%m-%d %H:%M:%S", &tm) == 0)
		snprintf(when, sizeof(when), "?");
	ob_printf(&o->buf, "## Capture %" PRIu64 " at %s: connection %" PRIu64
	    ", thread %" PRIu64 ", running %" PRId64 " s: ", c->number, when,
	    c->connection_id, c->thread_id, c->running_s);
	clean_cut(&o->buf, c->text, CAPTURE_LINE);
	ob_puts(&o->buf, " ##\n");
	return ob_status(&o->buf);
}

const struct format format_text = {
	.name = "text",
	.sample = text_sample,
	.end = text_end,
	.threads = text_threads,
	.dump = text_dump,
	.capture = text_capture,
	.statements = text_statements,
};
