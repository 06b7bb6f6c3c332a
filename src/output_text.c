/*
 * Text for people, in the shape of the Python scripts this program
 * replaces: each sample as a table, what changed since the last one
 * (its statement, the instruments switched off) said above it. The
 * summary and --list are in files of their own (output_text.h).
 */
#include <inttypes.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "names.h"
#include "output.h"
#include "clean.h"
#include "output_format.h"
#include "output_text.h"
#include "units.h"

#define CAPTURE_LINE    63  /* the statement in a capture's heading */
#define FILTERED_LABEL  "(filtered total)"
/* The server's own count of the thread (total.h), beside the rows' sum. */
#define COUNT_LABEL     "(server's count)"
/* --global on the server's machine: its process, beside what is counted. */
#define RESIDENT_LABEL  "(process resident)"
#define UNTRACKED_LABEL "(not counted)"
/* Its memory cgroup: the usage, and the limit the OOM killer acts on. */
#define CGROUP_LABEL    "(cgroup usage)"
#define LIMIT_LABEL     "(cgroup limit)"
#define NO_LIMIT        "no limit"

/*
 * What was said in this file of the last sample written, so that only
 * what changes is said again: its statement (none after a trigger's
 * dump or in a new file) and what was switched off; and when the last
 * sample written read its events, which a sample that keeps them says.
 */
/*
 * The rows of the last sample written, kept with what they were written
 * from when that is only its events (by their names' entries) and its
 * total: an idle thread's stay the same sample after sample, and
 * formatting them again cost some 2,700 instructions a sample, a quarter
 * of the program's own work (bench/overhead.py, MMP_BENCH_ONLY=instr).
 */
#define KEPT_ROWS 16
struct text_rows {
	size_t n;            /* events; SIZE_MAX: nothing kept */
	const struct event_name *name[KEPT_ROWS];
	int64_t bytes[KEPT_ROWS];
	int64_t total;
	struct obuf written;
};

struct text_state {
	bool has_statement;
	struct statement statement;
	unsigned setup_off;
	bool has_rows;
	uint64_t rows_us;
	struct text_rows rows;
};

static void *
text_init(const struct output_settings *set)
{
	struct text_state *t = calloc(1, sizeof(struct text_state));

	(void)set;
	if (t != NULL)
		t->rows.n = SIZE_MAX;
	return t;
}

static void
text_free(void *state)
{
	struct text_state *t = state;

	if (t != NULL)
		obuf_free(&t->rows.written);
	free(state);
}

/* A new file stands alone: it names the statement again. */
static void
text_new_file(void *state)
{
	struct text_state *t = state;

	t->has_statement = false;
}

/* "## switched off: the memory instruments ##", where it changes. */
static void
put_setup_off(struct obuf *b, unsigned off)
{
	const char *sep = "";

	if (off == 0) {
		obuf_puts(b, "## instrumentation as at the start again ##\n");
		return;
	}
	obuf_puts(b, "## switched off, not counted from here: ");
	if (off & SETUP_OFF_MEMORY)
		obuf_puts(b, "memory instruments"), sep = ", ";
	if (off & SETUP_OFF_STATEMENTS)
		obuf_printf(b, "%sa statements consumer", sep), sep = ", ";
	if (off & SETUP_OFF_THREAD)
		obuf_printf(b, "%sthe thread's INSTRUMENTED", sep);
	obuf_puts(b, " ##\n");
}

/*
 * One value of a sample's rows, into o->scratch, its length (under CELL)
 * in the byte before it; w: the widest so far.
 */
static void
add_value(struct output *o, int64_t bytes, size_t *w)
{
	char v[CELL + 1];
	size_t n = fmt_bytes(o, bytes, v + 1);

	v[0] = (char)n;
	obuf_write(&o->scratch, v, n + 1);
	*w = max_size(*w, n);
}

/* A value that is words ("no limit"), as add_value() puts a number. */
static void
add_words(struct output *o, const char *words, size_t *w)
{
	size_t n = strlen(words);

	obuf_putc(&o->scratch, (char)n);
	obuf_write(&o->scratch, words, n);
	*w = max_size(*w, n);
}

/*
 * The values of a sample's rows, each formatted once into o->scratch, one
 * after the other, each after its length, in the order the rows are
 * written: the events, the total, the filtered total under --events, the
 * server's own count of the thread (when s->has_connection_bytes), and
 * the process's resident memory and what of it is not counted (*process:
 * whether those two are there), its memory cgroup's usage and limit (when
 * s->process.has_cgroup).
 * Returns the width of the widest, so that values line up.
 */
static size_t
format_values(struct output *o, const struct sample *s, bool *process)
{
	int64_t untracked;
	size_t w = 0;

	obuf_clear(&o->scratch);
	for (size_t i = 0; i < s->n_events; i++)
		add_value(o, s->events[i].current_bytes, &w);
	add_value(o, s->total_bytes, &w);
	if (o->filtered)
		add_value(o, s->filtered_total_bytes, &w);
	if (s->has_connection_bytes)
		add_value(o, s->connection_bytes, &w);
	if ((*process = sample_untracked(s, &untracked))) {
		add_value(o, s->process.resident_bytes, &w);
		add_value(o, untracked, &w);
	}
	if (s->process.has_cgroup) {
		add_value(o, s->process.cgroup_usage_bytes, &w);
		if (s->process.cgroup_limit_bytes < 0)
			add_words(o, NO_LIMIT, &w);
		else
			add_value(o, s->process.cgroup_limit_bytes, &w);
	}
	return w;
}

/*
 * The cells of an event's short name as text shows it: a name its entry
 * calls plain (names.h) is one cell a byte, as it is, so neither its
 * width nor its writing looks at its bytes; SIZE_MAX for any other,
 * which is cleaned.
 */
static size_t
plain_cells(const struct event_stat *e, const char *shown)
{
	if (e->interned == NULL || !e->interned->plain)
		return SIZE_MAX;
	return e->interned->len - (size_t)(shown - e->name);
}

/*
 * A row of a sample: its name (of plain cells, or SIZE_MAX: cleaned), and
 * the value at *v (after its length: add_value()), which then moves on to
 * the next. Values are our own digits and units: no cleaning needed.
 */
static void
put_value_row(struct output *o, const char *name, size_t plain,
    size_t width, const char **v, size_t value_width)
{
	size_t n = (unsigned char)*(*v)++;

	obuf_putc(&o->buf, ' ');
	if (plain != SIZE_MAX) {
		obuf_write(&o->buf, name, plain);
		obuf_fill(&o->buf, ' ', width > plain ? width - plain : 0);
	} else
		clean_left(&o->buf, name, width, false);
	obuf_write(&o->buf, " -> ", 4);
	obuf_fill(&o->buf, ' ', value_width > n ? value_width - n : 0);
	obuf_write(&o->buf, *v, n);
	obuf_putc(&o->buf, '\n');
	*v += n;
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
		obuf_puts(&o->buf, " ! ");
		clean_put(&o->buf, short_name(e->name), SIZE_MAX, false);
		if (e->delta.unseen_peak) {
			fmt_bytes(o, e->high_bytes, v);
			obuf_puts(&o->buf, " peaked at ");
			obuf_puts(&o->buf, v);
			obuf_puts(&o->buf, " between samples\n");
		} else {
			fmt_bytes(o, e->delta.spike_bytes, v);
			obuf_puts(&o->buf, " peaked at ");
			obuf_puts(&o->buf, v);
			obuf_puts(&o->buf, " or more between samples "
			    "(allocated and freed between them)\n");
		}
	}
}

/* A share of hundredths of a percent, "12.34%", whatever the locale. */
static void
put_percent(struct obuf *b, int64_t hundredths)
{
	obuf_int(b, hundredths / 100);
	obuf_putc(b, '.');
	obuf_putc(b, (char)('0' + hundredths % 100 / 10));
	obuf_putc(b, (char)('0' + hundredths % 10));
	obuf_putc(b, '%');
}

/*
 * v2's throttling: the cgroup at (or within a twentieth of) memory.high,
 * where the kernel makes the server reclaim before it allocates, or over
 * it some times so far; and how long its tasks waited for memory.
 */
static void
put_throttling(struct output *o, const struct process_memory *p)
{
	char v[CELL + 1];

	if (p->cgroup_high_bytes >= 0 && (p->cgroup_high_events > 0 ||
	    p->cgroup_usage_bytes >= p->cgroup_high_bytes -
	    p->cgroup_high_bytes / 20)) {
		v[fmt_bytes(o, p->cgroup_high_bytes, v)] = '\0';
		obuf_puts(&o->buf, p->cgroup_usage_bytes >=
		    p->cgroup_high_bytes - p->cgroup_high_bytes / 20 ?
		    " ~ throttled: at memory.high, " : " ~ memory.high ");
		obuf_puts(&o->buf, v);
		obuf_puts(&o->buf, "; over it so far: ");
		obuf_int(&o->buf, p->cgroup_high_events > 0 ?
		    p->cgroup_high_events : 0);
		obuf_putc(&o->buf, '\n');
	}
	if (p->cgroup_pressure_some > 0) {
		obuf_puts(&o->buf, " ~ waited for memory, last 10 s: some ");
		put_percent(&o->buf, p->cgroup_pressure_some);
		obuf_puts(&o->buf, ", full ");
		put_percent(&o->buf, p->cgroup_pressure_full > 0 ?
		    p->cgroup_pressure_full : 0);
		obuf_putc(&o->buf, '\n');
	}
}

/*
 * The heading's mark of a sample whose events are an earlier reading's
 * (events_kept): with the server's own count, its total is that count's
 * (the total only); without, the total is the earlier one too (beat.h).
 * How long ago they were read, when this file showed that reading.
 */
static void
put_kept_mark(struct obuf *b, const struct text_state *t,
    const struct sample *s)
{
	uint64_t tenths;

	obuf_puts(b, s->has_connection_bytes ? " (total only; rows of " :
	    " (rows and total of ");
	if (!t->has_rows || t->rows_us > s->elapsed_us) {
		obuf_puts(b, "an earlier sample)");
		return;
	}
	/* Tenths of a second, rounded, whatever the locale. */
	tenths = (s->elapsed_us - t->rows_us + 50000) / 100000;
	obuf_uint(b, tenths / 10);
	obuf_putc(b, '.');
	obuf_putc(b, (char)('0' + tenths % 10));
	obuf_puts(b, " s ago)");
}

/*
 * Whether s's rows are only its events and its total, each event with
 * its name's entry, as text_rows keeps them.
 */
static bool
rows_keepable(const struct output *o, const struct sample *s)
{
	if (o->filtered || s->has_connection_bytes || s->process.known ||
	    s->process.has_cgroup || s->n_events > KEPT_ROWS)
		return false;
	for (size_t i = 0; i < s->n_events; i++)
		if (s->events[i].interned == NULL)
			return false;
	return true;
}

/* Whether k kept the rows of s: the same events, bytes and total. */
static bool
rows_same(const struct text_rows *k, const struct sample *s)
{
	if (k->n != s->n_events || k->total != s->total_bytes)
		return false;
	for (size_t i = 0; i < k->n; i++)
		if (k->name[i] != s->events[i].interned ||
		    k->bytes[i] != s->events[i].current_bytes)
			return false;
	return true;
}

/* Keeps the rows of s, written at from..o->buf's end. */
static void
rows_keep(struct text_rows *k, const struct output *o,
    const struct sample *s, size_t from)
{
	k->n = s->n_events;
	k->total = s->total_bytes;
	for (size_t i = 0; i < k->n; i++) {
		k->name[i] = s->events[i].interned;
		k->bytes[i] = s->events[i].current_bytes;
	}
	obuf_clear(&k->written);
	obuf_write(&k->written, o->buf.p + from, o->buf.len - from);
	if (k->written.failed)
		k->n = SIZE_MAX;
}

/* The rows of a sample: its events, its totals, lined up. */
static int
put_rows(struct output *o, const struct sample *s)
{
	char label_buf[EVENT_NAME_MAX + 16];
	const char *label = total_label(o, label_buf, sizeof(label_buf));
	size_t width = max_size(NAME_WIDTH, clean_width(label, false));
	bool process;
	size_t vw = format_values(o, s, &process);
	const char *v = o->scratch.p;

	if (obuf_status(&o->scratch) != 0)
		return -1;
	for (size_t i = 0; i < s->n_events; i++) {
		const struct event_stat *e = &s->events[i];
		const char *shown = short_name(e->name);
		size_t plain = plain_cells(e, shown);

		width = max_size(width, plain != SIZE_MAX ? plain :
		    clean_width(shown, false));
	}
	for (size_t i = 0; i < s->n_events; i++) {
		const struct event_stat *e = &s->events[i];
		const char *shown = short_name(e->name);

		put_value_row(o, shown, plain_cells(e, shown), width, &v, vw);
	}
	put_value_row(o, label, SIZE_MAX, width, &v, vw);
	if (o->filtered)
		put_value_row(o, FILTERED_LABEL, SIZE_MAX, width, &v, vw);
	if (s->has_connection_bytes)
		put_value_row(o, COUNT_LABEL, SIZE_MAX, width, &v, vw);
	if (process) {
		put_value_row(o, RESIDENT_LABEL, SIZE_MAX, width, &v, vw);
		put_value_row(o, UNTRACKED_LABEL, SIZE_MAX, width, &v, vw);
	}
	if (s->process.has_cgroup) {
		put_value_row(o, CGROUP_LABEL, SIZE_MAX, width, &v, vw);
		put_value_row(o, LIMIT_LABEL, SIZE_MAX, width, &v, vw);
		if (s->process.cgroup_oom_kills > 0) {
			obuf_puts(&o->buf, " ! OOM kills in the cgroup so far: ");
			obuf_uint(&o->buf, (uint64_t)s->process.cgroup_oom_kills);
			obuf_putc(&o->buf, '\n');
		}
		put_throttling(o, &s->process);
	}
	return 0;
}

/*
 * The rows of a sample, from those kept of the last one when it has the
 * same (text_rows).
 */
static int
put_rows_kept(struct output *o, struct text_rows *k, const struct sample *s)
{
	size_t from = o->buf.len;
	bool keepable = rows_keepable(o, s);

	if (keepable && rows_same(k, s)) {
		obuf_write(&o->buf, k->written.p, k->written.len);
		return 0;
	}
	k->n = SIZE_MAX;
	if (put_rows(o, s) != 0)
		return -1;
	if (keepable && !o->buf.failed)
		rows_keep(k, o, s, from);
	return 0;
}

/* The sample's rows, after what changed since the last sample written. */
static int
put_sample(struct output *o, struct text_state *t, const struct sample *s,
    bool same_statement)
{
	if (s->gap_ms > 0) {
		obuf_puts(&o->buf, "## gap of ");
		obuf_uint(&o->buf, s->gap_ms);
		obuf_puts(&o->buf, " ms: the connection was lost and "
		    "re-established ##\n");
	}
	if (s->setup_off != t->setup_off)
		put_setup_off(&o->buf, s->setup_off);
	/* Only a thread runs statements. */
	if (o->grain == NULL && !same_statement) {
		obuf_puts(&o->buf, "## statement: ");
		put_statement_text(&o->buf, &s->statement);
		obuf_puts(&o->buf, " ##\n");
	}
	/* A reading from before the capture began: taken every --poll. */
	obuf_puts(&o->buf, "## Memory usage at time ");
	obuf_uint(&o->buf, s->elapsed_us / 1000);
	if (s->waiting)
		obuf_puts(&o->buf, " (taken while waiting)");
	if (s->events_kept)
		put_kept_mark(&o->buf, t, s);
	obuf_puts(&o->buf, " ##\n");
	if (put_rows_kept(o, &t->rows, s) != 0)
		return -1;
	put_sample_peaks(o, s);
	obuf_putc(&o->buf, '\n');
	return obuf_status(&o->buf);
}

static int
text_sample(struct output *o, const struct sample *s)
{
	struct text_state *t = o->state;
	bool same = t->has_statement &&
	    statement_same(&t->statement, &s->statement);
	int rc = put_sample(o, t, s, same);

	/* The same, its copy answers statement_same() as a new one would. */
	if (!same)
		statement_set(&t->statement, &s->statement);
	t->has_statement = true;
	t->setup_off = s->setup_off;
	if (!s->events_kept) {
		t->has_rows = true;
		t->rows_us = s->elapsed_us;
	}
	return rc;
}

static int
text_dump(struct output *o, const struct output_dump *d)
{
	struct text_state *t = o->state;
	char total[CELL], threshold[CELL];

	/*
	 * The held samples stand apart: the first names its statement, and
	 * the reading of events before them may not be the last one.
	 */
	t->has_statement = false;
	t->has_rows = false;
	if (d->by_signal) {
		obuf_printf(&o->buf, "## trigger: SIGUSR1, writing the %zu "
		    "sample%s held ##\n", d->held, d->held == 1 ? "" : "s");
		return obuf_status(&o->buf);
	}
	fmt_bytes(o, d->total, total);
	fmt_bytes(o, d->threshold, threshold);
	obuf_printf(&o->buf, "## trigger: total %s >= %s, writing the %zu "
	    "sample%s before it ##\n", total, threshold, d->held,
	    d->held == 1 ? "" : "s");
	return obuf_status(&o->buf);
}

/*
 * "## Capture 2 at 2026-11-22 01:02:03: connection 17, thread 48, ... ##":
 * running N s, idle N s, or, for a statement that had ended when a look
 * found it, ended after N.NNN s.
 */
static int
text_capture(struct output *o, const struct output_capture *c)
{
	time_t t = (time_t)c->started_s;
	char when[32];
	struct tm tm;

	if (localtime_r(&t, &tm) == NULL ||
	    strftime(when, sizeof(when), "%Y-%m-%d %H:%M:%S", &tm) == 0)
		snprintf(when, sizeof(when), "?");
	obuf_printf(&o->buf, "## Capture %" PRIu64 " at %s: connection %" PRIu64
	    ", thread %" PRIu64 ", ", c->number, when, c->connection_id,
	    c->thread_id);
	if (c->idle) {
		char held[CELL], size[CELL];

		fmt_bytes(o, c->bytes, held);
		fmt_bytes(o, c->size_bytes, size);
		obuf_printf(&o->buf, "idle %" PRId64 " s, holding %s "
		    "(--bigger-than %s) ##\n", c->running_s, held, size);
	} else {
		if (c->ended)
			obuf_printf(&o->buf, "ended after %" PRId64 ".%03" PRId64
			    " s: ", c->duration_ms / 1000, c->duration_ms % 1000);
		else
			obuf_printf(&o->buf, "running %" PRId64 " s: ",
			    c->running_s);
		clean_cut(&o->buf, c->text, CAPTURE_LINE);
		obuf_puts(&o->buf, " ##\n");
	}
	if (c->between_looks) {
		char size[CELL], peak[CELL];

		fmt_bytes(o, c->size_bytes, size);
		fmt_bytes(o, c->peak_bytes, peak);
		obuf_printf(&o->buf, "## crossed %s between looks, peak %s ##\n",
		    size, peak);
	}
	return obuf_status(&o->buf);
}
const struct format format_text = {
	.name = "text",
	.init = text_init,
	.free = text_free,
	.new_file = text_new_file,
	.sample = text_sample,
	.end = output_text_end,
	.threads = output_text_threads,
	.dump = text_dump,
	.capture = text_capture,
	.statements = output_text_statements,
};
