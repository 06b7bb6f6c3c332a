/*
 * What the format files share, and only they, the table and their tests:
 * each format's row (its struct format, listed in output_table.c), the
 * column lists (output_columns.c), the helpers more than one format needs
 * (output_format.c), and the state the profile formats and the picture
 * formats share.
 */
#ifndef MYSQLMEMPROF_OUTPUT_FORMAT_H
#define MYSQLMEMPROF_OUTPUT_FORMAT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "output.h"
#include "sample.h"

struct chart;

extern const struct format format_text;
extern const struct format format_csv;
extern const struct format format_json;
extern const struct format format_folded;
extern const struct format format_pprof;
extern const struct format format_html;
extern const struct format format_svg;

/* What a column holds; each format writes each kind in its own way. */
enum column_kind {
	COLUMN_INT,	/* int64_t, in v.i */
	COLUMN_UINT,	/* uint64_t, in v.u */
	COLUMN_TEXT,	/* v.len bytes at v.s, never NULL */
	COLUMN_NAME,	/* an event's name, the timestamp: as COLUMN_TEXT, and v.plain */
};

union column_value {
	int64_t i;
	uint64_t u;
	struct {
		const char *s;
		size_t len; /* the bytes of s: a statement may hold NULs */
		/*
		 * COLUMN_NAME only: the name's entry says it needs no escape
		 * (names.h, plain), so a writer copies it between quotes.
		 */
		bool plain;
	};
};

/*
 * The columns of a sample, in CSV order. CSV writes one row per event, each
 * with every column. JSON writes one object per sample: the sample-level
 * columns in this order, with an "events" array standing where the last
 * event-level column stands; each element of it holds the event-level
 * columns in this order.
 */
enum column_level {
	COLUMN_SAMPLE,	/* the same in every row of a sample */
	COLUMN_EVENT,	/* one event's */
};

/* What the getter of a sample column reads. */
struct sample_row {
	const struct output *o;
	const struct sample *s;
	const struct event_stat *e; /* NULL for a sample that kept no event */
	const char *timestamp;      /* s->wall_ms, formatted once per sample */
};

/*
 * One column, described once: its name (the CSV header and the JSON key),
 * and a getter that puts its value in *v and returns true, or returns
 * false when the value is null: empty in CSV, null in JSON.
 */
struct sample_column {
	const char *name;
	enum column_level level;
	enum column_kind kind;
	bool (*get)(const struct sample_row *r, union column_value *v);
	/*
	 * An event column whose value is a field of struct event_stat, as
	 * its kind says (int64_t or uint64_t): the field's offset + 1, so
	 * that JSON and CSV load it, where the getter call cost more than
	 * the load over a sample's 60 event fields; 0 for one the getter
	 * computes. With deltas set, it is null in a sample without them.
	 * test_output_columns.c checks that the load and the getter agree.
	 */
	unsigned short at;
	bool deltas;
};

/* The field of e that column c names (c->at set), as its kind says. */
static inline uint64_t
sample_column_load(const struct sample_column *c, const struct event_stat *e)
{
	uint64_t v;

	memcpy(&v, (const char *)e + c->at - 1, sizeof(v));
	return v;
}

/*
 * What every event column's value comes from: the name's entry, the
 * counters, the deltas, and whether the sample has deltas. A writer that
 * keeps the bytes it wrote of an event writes them again while
 * output_event_same() says nothing of that changed, as with most of an
 * idle thread's top events. An event without an entry (names.h) is never
 * the same: its name would have to be compared.
 */
struct output_event_key {
	const struct event_name *name;
	int64_t current_bytes, current_count, high_bytes;
	uint64_t alloc_bytes, free_bytes, alloc_count, free_count;
	struct event_delta delta;
	bool deltas;
};

static inline bool
output_event_same(const struct output_event_key *k,
    const struct event_stat *e, bool deltas)
{
	return k->name == e->interned && k->name != NULL &&
	    k->deltas == deltas &&
	    k->current_bytes == e->current_bytes &&
	    k->current_count == e->current_count &&
	    k->high_bytes == e->high_bytes &&
	    k->alloc_bytes == e->alloc_bytes &&
	    k->free_bytes == e->free_bytes &&
	    k->alloc_count == e->alloc_count &&
	    k->free_count == e->free_count &&
	    k->delta.alloc_bytes == e->delta.alloc_bytes &&
	    k->delta.free_bytes == e->delta.free_bytes &&
	    k->delta.alloc_count == e->delta.alloc_count &&
	    k->delta.free_count == e->delta.free_count &&
	    k->delta.unseen_peak == e->delta.unseen_peak &&
	    k->delta.spike_bytes == e->delta.spike_bytes;
}

static inline void
output_event_keep(struct output_event_key *k, const struct event_stat *e,
    bool deltas)
{
	*k = (struct output_event_key){
		.name = e->interned,
		.current_bytes = e->current_bytes,
		.current_count = e->current_count,
		.high_bytes = e->high_bytes,
		.alloc_bytes = e->alloc_bytes,
		.free_bytes = e->free_bytes,
		.alloc_count = e->alloc_count,
		.free_count = e->free_count,
		.delta = e->delta,
		.deltas = deltas,
	};
}

/*
 * A text column's value and the bytes a format wrote of it, kept from one
 * sample to the next: a statement stays the same for many samples, and
 * escaping it again cost more than the rest of the sample's fields. All
 * zero is nothing kept; output_text_kept_free() frees what it holds.
 */
struct output_text_kept {
	struct obuf value;   /* the bytes the getter gave */
	struct obuf written; /* what the format wrote of them */
	bool plain;          /* the value's plain flag (COLUMN_NAME) */
	bool kept;
};
typedef void output_text_writer(struct obuf *b, const char *s, size_t n,
    bool plain);

/*
 * Writes the n bytes at s to b as put() writes them, or, when they and
 * plain are what k kept, the bytes put() wrote of them then.
 */
void output_text_put(struct obuf *b, struct output_text_kept *k,
    const char *s, size_t n, bool plain, output_text_writer *put);
void output_text_kept_free(struct output_text_kept *k);

/* The columns of --list, in order; text shows them under heads of its own. */
struct thread_column {
	const char *name;
	enum column_kind kind;
	bool (*get)(const struct thread_info *t, union column_value *v);
	const char *head;   /* text's heading; NULL: text leaves it out */
	const char *prefix; /* text does not show it, as "thread/" */
	bool bytes;         /* text writes it in KiB/MiB unless --bytes */
};

/*
 * What the getter of a column of --statements reads: one statement of the
 * run, its rank by growth (1 first) and its thread.
 */
struct statement_row {
	const struct run_statement *st;
	size_t rank;
	uint64_t thread_id;
	const char *first_timestamp, *last_timestamp; /* formatted once a row */
};

/* The columns of --statements: CSV's header, JSON's keys. */
struct statement_column {
	const char *name;
	enum column_kind kind;
	bool (*get)(const struct statement_row *r, union column_value *v);
};

/* The rows of each list; output_columns.c checks them at compile time. */
#define SAMPLE_COLUMNS 42
#define THREAD_COLUMNS 11
#define STATEMENT_COLUMNS 22

extern const struct sample_column sample_columns[];
extern const struct thread_column thread_columns[];
extern const struct statement_column statement_columns[];

/*
 * Column c of row r, as its getter says; a sample that kept no event still
 * has a CSV row, in which the event columns are null.
 */
static inline bool
sample_column_get(const struct sample_column *c, const struct sample_row *r,
    union column_value *v)
{
	if (c->level == COLUMN_EVENT && r->e == NULL)
		return false;
	return c->get(r, v);
}

/*
 * The values of a run of sample-level columns and the bytes a format
 * wrote of them, kept from one sample to the next: past its counters, a
 * sample's columns (the statement, the grain, the process and cgroup
 * figures, most of them null) stay the same for many samples, and writing
 * them each time cost some 1,000 instructions a sample of JSON. All zero
 * is nothing kept; output_run_kept_free() frees what it holds.
 */
struct output_run_value {
	bool known;
	union column_value v; /* a text's bytes: in the run's text, at off */
	size_t off;
};
struct output_run_kept {
	struct output_run_value kept[SAMPLE_COLUMNS];
	struct obuf text;    /* the kept text values, one after another */
	struct obuf written; /* what the format wrote of the run */
	bool kept_any;
};

/*
 * Whether the sample-level columns cols[0..n) of r are those k kept,
 * whose bytes the format wrote are then k->written.
 */
bool output_run_same(struct output_run_kept *k, const struct sample_row *r,
    const size_t *cols, size_t n);
/* Keeps those columns of r, and the len bytes at p the format wrote of them. */
void output_run_keep(struct output_run_kept *k, const struct sample_row *r,
    const size_t *cols, size_t n, const char *p, size_t len);
void output_run_kept_free(struct output_run_kept *k);

/*
 * The text field writers of CSV and JSON, whose unit tests compare them
 * with the plain rule byte by byte. output_csv_put_text(): the n bytes at s as
 * a quoted field, quotes doubled, a NUL as \0, and a ' before a leading
 * formula character. output_json_put_string(): as a quoted JSON string, escaped
 * where JSON needs it, where scrub.h keeps a code point from terminals,
 * and U+FFFD for each byte that starts no UTF-8 sequence.
 */
void output_csv_put_text(struct obuf *b, const char *s, size_t n);
void output_json_put_string(struct obuf *b, const char *s, size_t n);

/*
 * The profile formats (folded, pprof) share their state and callbacks:
 * the sample --profile-at asks for is kept, and written when the capture
 * ends, or each one at once with --profile-at each. Each format's init
 * hands output_profile_init() its writer, which writes s as one profile
 * to o->fp: root is the frame --profile-root asks for, or NULL.
 */
typedef int output_profile_write(struct output *o, const struct sample *s,
    const char *root);
void *output_profile_init(const struct output_settings *set,
    output_profile_write *write);
void output_profile_free(void *state);
int output_profile_sample(struct output *o, const struct sample *s);
int output_profile_end(struct output *o, const struct summary *sum);

/*
 * The picture formats (html, svg) share their state: the chart of the run
 * so far (chart.h). Their init and free.
 */
void *output_chart_init(const struct output_settings *set);
void output_chart_free(void *state);
/*
 * Adds s to the picture of the run, made at the first sample. Returns 0,
 * or -1 with errno set when out of memory.
 */
int output_chart_sample(struct output *o, const struct sample *s);
/*
 * At the end: the chart of the run, now the caller's to free (an empty
 * one when no sample came; NULL when out of memory). The next capture of
 * --repeat starts a picture of its own.
 */
struct chart *output_chart_take(struct output *o);
/* What the picture is of: "thread 42", "global"...; in buf. */
const char *output_chart_what(const struct output *o, uint64_t thread_id,
    char *buf, size_t len);
/* Its total, as text names it: "thread total", "global total"...; in buf. */
const char *output_chart_total(const struct output *o, char *buf,
    size_t len);


#endif
