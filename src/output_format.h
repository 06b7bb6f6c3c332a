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
	COLUMN_NAME,	/* an event's name: as COLUMN_TEXT, and v.plain */
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
#define SAMPLE_COLUMNS 29
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
