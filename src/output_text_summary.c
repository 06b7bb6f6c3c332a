/*
 * The text format's summary of a capture: the whole run when runstats
 * kept it (each event's min, max, mean and peaks, the peaks between
 * samples, the statements ranked by growth, what the samples cost the
 * server), else the window the ring holds; and --statements in text.
 */
#include <inttypes.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "output.h"
#include "clean.h"
#include "output_text.h"
#include "units.h"
#include "utc.h"

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

/* One row of a table: the name, then each cell right-aligned. */
static void
put_cells(struct obuf *b, const char *name, size_t name_width, size_t n,
    char c[][CELL], const size_t *w)
{
	obuf_putc(b, ' ');
	clean_left(b, name, name_width, false);
	for (size_t j = 0; j < n; j++) {
		obuf_puts(b, "  ");
		clean_right(b, c[j], w[j]);
	}
	obuf_putc(b, '\n');
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
		obuf_puts(&o->buf, " peaks between samples: none seen\n");
		return;
	}
	for (size_t i = 0; i < s->n_peaks; i++) {
		fmt_bytes(o, s->peaks[i]->largest_unseen_peak, v);
		largest_width = max_size(largest_width, strlen(v));
	}
	name_width = max_size(name_width, strlen(PEAKS_LABEL));
	obuf_putc(&o->buf, ' ');
	clean_left(&o->buf, PEAKS_LABEL, name_width, false);
	obuf_puts(&o->buf, "  ");
	clean_right(&o->buf, "samples", w[0]);
	obuf_puts(&o->buf, "  ");
	clean_right(&o->buf, "largest", largest_width);
	obuf_putc(&o->buf, '\n');
	for (size_t i = 0; i < s->n_peaks; i++) {
		const struct summary_event *e = s->peaks[i];

		obuf_putc(&o->buf, ' ');
		clean_left(&o->buf, short_name(e->name), name_width, false);
		snprintf(n, CELL, "%" PRIu64, e->unseen_peaks);
		fmt_bytes(o, e->largest_unseen_peak, v);
		obuf_puts(&o->buf, "  ");
		clean_right(&o->buf, n, w[0]);
		obuf_puts(&o->buf, "  ");
		clean_right(&o->buf, v, largest_width);
		obuf_putc(&o->buf, '\n');
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
	obuf_printf(&o->buf, "## By statement: %zu in the window ##\n",
	    s->n_statements);
	for (size_t i = 0; i < s->n_statements; i++) {
		const struct summary_statement *st = &s->statements[i];

		if (st->samples == 1)
			obuf_printf(&o->buf, " #%" PRIu64 ": ", st->first_seq);
		else
			obuf_printf(&o->buf, " #%" PRIu64 " to #%" PRIu64 ": ",
			    st->first_seq, st->last_seq);
		put_statement_text(&o->buf, st->statement);
		fmt_bytes(o, st->peak_total, v);
		fmt_bytes(o, st->final_total, w);
		obuf_printf(&o->buf, "\n   peak %s, final %s\n", v, w);
		for (size_t j = 0; j < st->n_top; j++) {
			obuf_puts(&o->buf, "   ");
			clean_left(&o->buf, short_name(st->top[j].name), width,
			    false);
			fmt_bytes(o, st->top[j].max_bytes, v);
			obuf_printf(&o->buf, " -> %s\n", v);
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

	obuf_printf(&o->buf, "## Summary of %" PRIu64 " sample%s (#%" PRIu64
	    " to #%" PRIu64 ", %" PRIu64 " ms to %" PRIu64 " ms), ", t->samples,
	    t->samples == 1 ? "" : "s", t->first_seq, t->last_seq,
	    t->first_elapsed_us / 1000, t->last_elapsed_us / 1000);
	if (o->grain == NULL)
		obuf_printf(&o->buf, "thread %" PRIu64 " ##\n", s->thread_id);
	else {
		/* An account's name is anyone's to choose. */
		clean_put(&o->buf, o->grain, SIZE_MAX, true);
		obuf_puts(&o->buf, " ##\n");
	}
	obuf_printf(&o->buf, " over the whole run; the window holds the last %zu "
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
		obuf_puts(&o->buf, " peaks between samples: none seen\n");
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

#define STMT_COLS 8
/* "of" and "missed" only when some peak is the server's. */
#define STMT_COL_OF 3
#define STMT_COL_MISSED 4
static const char *const stmt_heads[STMT_COLS] = {
	"growth", "start", "peak", "of", "missed", "allocated", "samples", "ran"
};

/*
 * The cells of a statement, or the heads when st is NULL; with exact
 * false, without "of" and "missed". Returns how many.
 */
static size_t
stmt_cells(const struct output *o, const struct run_statement *st,
    bool exact, char c[STMT_COLS][CELL])
{
	char all[STMT_COLS][CELL];
	size_t n = 0;
	int64_t missed;

	if (st == NULL) {
		for (size_t j = 0; j < STMT_COLS; j++)
			snprintf(all[j], CELL, "%s", stmt_heads[j]);
	} else {
		fmt_bytes(o, st->growth_bytes, all[0]);
		fmt_bytes(o, st->start_bytes, all[1]);
		fmt_bytes(o, run_statement_peak(st), all[2]);
		snprintf(all[3], CELL, "%s", st->exact ? "server" : "samples");
		if ((missed = run_statement_missed(st)) >= 0)
			fmt_bytes(o, missed, all[4]);
		else
			snprintf(all[4], CELL, "-");
		fmt_bytes(o, st->alloc_bytes > INT64_MAX ? INT64_MAX :
		    (int64_t)st->alloc_bytes, all[5]);
		/* Finished between two samples: the sample that brought it. */
		if (st->samples == 0)
			snprintf(all[6], CELL, "none (#%" PRIu64 ")",
			    st->first_seq);
		else if (st->first_seq == st->last_seq)
			snprintf(all[6], CELL, "#%" PRIu64, st->first_seq);
		else
			snprintf(all[6], CELL, "#%" PRIu64 "-#%" PRIu64,
			    st->first_seq, st->last_seq);
		/* The server's clock when it says; else the samples' span. */
		snprintf(all[7], CELL, "%" PRIu64 " ms", st->finished ?
		    st->server_us / 1000 :
		    (st->last_elapsed_us - st->first_elapsed_us) / 1000);
	}
	for (size_t j = 0; j < STMT_COLS; j++)
		if (exact || (j != STMT_COL_OF && j != STMT_COL_MISSED))
			memcpy(c[n++], all[j], CELL);
	return n;
}

/* What the heading says of the peaks: whose they are. */
static void
put_peaks_heading(struct output *o, const struct run_totals *t)
{
	if (t->statements_exact == 0) {
		obuf_puts(&o->buf, ", peaks sampled");
		return;
	}
	obuf_printf(&o->buf, "; peaks: %" PRIu64 " the server's (exact)",
	    t->statements_exact);
	if (t->statements_exact < t->statements_finished ||
	    t->statements_finished == 0)
		obuf_puts(&o->buf, ", the others sampled");
	if (t->statements_unsampled > 0)
		obuf_printf(&o->buf, "; %" PRIu64 " ran between samples",
		    t->statements_unsampled);
	if (t->statements_lost > 0)
		obuf_printf(&o->buf, "; at least %" PRIu64 " lost from the "
		    "server's history", t->statements_lost);
}

/*
 * The statements of the run, the most growth first: the memory each took,
 * rather than the memory the thread held when it began. A peak is the
 * server's own record of the statement where it keeps one (MySQL 8.0.31+),
 * beside what the samples saw of it; else the samples'.
 */
static void
put_run_statements(struct output *o, const struct summary *s)
{
	bool exact = s->run.statements_exact > 0;
	char c[STMT_COLS][CELL];
	size_t w[STMT_COLS] = { 0 }, n;

	if (s->n_run_statements == 0)
		return;
	obuf_printf(&o->buf, "## Statements by growth: %zu in the run%s",
	    s->n_run_statements, s->run.statements_dropped > 0 ?
	    ", the least grown left out" : "");
	put_peaks_heading(o, &s->run);
	obuf_puts(&o->buf, " ##\n");
	n = stmt_cells(o, NULL, exact, c);
	for (size_t j = 0; j < n; j++)
		w[j] = strlen(c[j]);
	for (size_t i = 0; i < s->n_run_statements; i++) {
		stmt_cells(o, &s->run_statements[i], exact, c);
		widen(n, c, w);
	}
	stmt_cells(o, NULL, exact, c);
	put_cells(&o->buf, "rank", 4, n, c, w);
	/* Under its numbers, a statement of any length stays readable. */
	for (size_t i = 0; i < s->n_run_statements; i++) {
		char rank[CELL];

		snprintf(rank, CELL, "%zu", i + 1);
		stmt_cells(o, &s->run_statements[i], exact, c);
		put_cells(&o->buf, rank, 4, n, c, w);
		obuf_puts(&o->buf, "      statement: ");
		put_statement_text(&o->buf, &s->run_statements[i].statement);
		obuf_putc(&o->buf, '\n');
	}
}

/* --statements in text: the ranking the summary shows. */
int
output_text_statements(struct output *o, const struct summary *s)
{
	put_run_statements(o, s);
	return obuf_status(&o->buf);
}

/*
 * What the samples' queries cost the server: the mean and the slowest,
 * and the share of a core they took over the run (the sampler's duty
 * cycle), which grows with the threads connected (see --max-load).
 */
static void
put_server_time(struct output *o, const struct run_totals *t)
{
	double duty = runstats_duty_pct(t);

	if (t->queried == 0)
		return;
	obuf_printf(&o->buf, " server time per sample: mean %.2f ms, slowest "
	    "%.2f ms", (double)t->query_us_sum / (double)t->queried / 1000,
	    (double)t->query_us_max / 1000);
	if (duty >= 0)
		obuf_printf(&o->buf, "; %.1f%% of a core over the run", duty);
	obuf_puts(&o->buf, "\n");
}

/*
 * With --global on the server's machine: where the process's resident
 * memory was furthest above what performance_schema counts, and when.
 */
static void
put_untracked(struct output *o, const struct run_totals *t)
{
	char gap[CELL], rss[CELL], counted[CELL], when[40];

	if (t->process_samples == 0)
		return;
	fmt_bytes(o, t->max_untracked, gap);
	fmt_bytes(o, t->max_untracked_resident, rss);
	fmt_bytes(o, t->max_untracked_resident - t->max_untracked, counted);
	utc_format(when, sizeof(when), t->max_untracked_wall_ms, UTC_STAMP);
	obuf_printf(&o->buf, " not counted by performance_schema: at most %s, "
	    "sample #%" PRIu64 " at %s (resident %s, counted %s)\n", gap,
	    t->max_untracked_seq, when, rss, counted);
}

/*
 * With --global on the server's machine: how close the memory cgroup's
 * usage came to the limit the OOM killer acts on, and when; the kills
 * counted in the run.
 */
static void
put_cgroup(struct output *o, const struct run_totals *t)
{
	char usage[CELL], limit[CELL], when[40];

	if (t->cgroup_samples == 0)
		return;
	fmt_bytes(o, t->cgroup_usage, usage);
	utc_format(when, sizeof(when), t->cgroup_wall_ms, UTC_STAMP);
	if (t->cgroup_limit < 0)
		obuf_printf(&o->buf, " memory cgroup: no limit; usage at most %s, "
		    "sample #%" PRIu64 " at %s", usage, t->cgroup_seq, when);
	else {
		fmt_bytes(o, t->cgroup_limit, limit);
		obuf_printf(&o->buf, " memory cgroup: closest to its limit %s "
		    "at %.0f%% (usage %s), sample #%" PRIu64 " at %s", limit,
		    t->cgroup_limit > 0 ? (double)t->cgroup_usage * 100 /
		    (double)t->cgroup_limit : 100.0, usage, t->cgroup_seq, when);
	}
	if (t->cgroup_kills_last > t->cgroup_kills_first &&
	    t->cgroup_kills_first >= 0)
		obuf_printf(&o->buf, "; OOM kills %" PRId64 " -> %" PRId64,
		    t->cgroup_kills_first, t->cgroup_kills_last);
	else if (t->cgroup_kills_last >= 0)
		obuf_printf(&o->buf, "; OOM kills %" PRId64,
		    t->cgroup_kills_last);
	obuf_puts(&o->buf, "\n");
}

/*
 * Where some samples kept the rows of an earlier reading: how many read
 * them, how many carried the total only (the server's own count of the
 * thread, total.h), and how many kept the total too (beat.h).
 */
static void
put_kept(struct output *o, const struct run_totals *t)
{
	uint64_t read = t->samples - t->kept, both = t->kept - t->total_only;

	if (t->kept == 0)
		return;
	obuf_printf(&o->buf, " rows read: %" PRIu64 " sample%s", read,
	    read == 1 ? "" : "s");
	if (t->total_only > 0)
		obuf_printf(&o->buf, "; the total only (the server's own count): "
		    "%" PRIu64, t->total_only);
	if (both > 0)
		obuf_printf(&o->buf, "; an earlier reading's rows and total: %"
		    PRIu64, both);
	obuf_putc(&o->buf, '\n');
}

/* " connection_memory_limit 64.0 MiB: the most held, 45.2 MiB, is 70% of it". */
static void
put_limit(struct output *o, const struct summary *s)
{
	char limit[CELL], most[CELL];
	int64_t held = summary_most_held(s);

	if (s->limit_bytes <= 0)
		return;
	fmt_bytes(o, s->limit_bytes, limit);
	fmt_bytes(o, held, most);
	obuf_printf(&o->buf, " connection_memory_limit %s: the most held, %s, "
	    "is %.0f%% of it\n", limit, most, (double)held * 100 /
	    (double)s->limit_bytes);
}

static int
output_text_end_run(struct output *o, const struct summary *s)
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
	obuf_printf(&o->buf, " skipped ticks: %" PRIu64 "\n", s->skipped);
	put_kept(o, &s->run);
	put_limit(o, s);
	put_server_time(o, &s->run);
	put_untracked(o, &s->run);
	put_cgroup(o, &s->run);
	put_run_statements(o, s);
	return obuf_status(&o->buf);
}

int
output_text_end(struct output *o, const struct summary *s)
{
	char label_buf[EVENT_NAME_MAX + 16];
	size_t w[SUM_COLS], name_width;
	char c[SUM_COLS][CELL];

	if (s != NULL && s->has_run && s->run.samples > 0)
		return output_text_end_run(o, s);
	if (s == NULL)
		return 0;
	if (s->n_samples == 0) {
		obuf_printf(&o->buf, "## Summary: no samples were taken ##\n"
		    " skipped ticks: %" PRIu64 "\n", s->skipped);
		return obuf_status(&o->buf);
	}
	name_width = sum_widths(o, s, w);
	obuf_printf(&o->buf, "## Summary of %zu sample%s (#%" PRIu64 " to #%"
	    PRIu64 ", %" PRIu64 " ms to %" PRIu64 " ms), ", s->n_samples,
	    s->n_samples == 1 ? "" : "s", s->first_seq, s->last_seq,
	    s->first_elapsed_us / 1000, s->last_elapsed_us / 1000);
	if (o->grain == NULL)
		obuf_printf(&o->buf, "thread %" PRIu64 " ##\n", s->thread_id);
	else {
		/* An account's name is anyone's to choose. */
		clean_put(&o->buf, o->grain, SIZE_MAX, true);
		obuf_puts(&o->buf, " ##\n");
	}
	for (size_t j = 0; j < SUM_COLS; j++)
		snprintf(c[j], CELL, "%s", sum_heads[j]);
	put_cells(&o->buf, "event", name_width, SUM_COLS, c, w);
	for (size_t i = 0; i < s->n_events; i++) {
		event_cells(o, &s->events[i], c);
		put_cells(&o->buf, short_name(s->events[i].name), name_width,
		    SUM_COLS, c, w);
	}
	total_cells(o, s, c);
	put_cells(&o->buf, total_label(o, label_buf, sizeof(label_buf)),
	    name_width, SUM_COLS, c, w);
	put_peaks(o, s, name_width, w);
	obuf_printf(&o->buf, " skipped ticks: %" PRIu64 "\n", s->skipped);
	put_limit(o, s);
	put_statements(o, s);
	return obuf_status(&o->buf);
}
