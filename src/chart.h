/*
 * The picture of a whole run, kept in bounded memory: every sample is fed
 * in, and at most CHART_MAX_COLUMNS columns are kept. When they are all
 * used, pairs of neighbours are merged, each keeping the larger value of
 * every band, so that no peak disappears; each column then covers twice as
 * many samples. The HTML and SVG formats draw it at the end of the run.
 */
#ifndef MYSQLMEMPROF_CHART_H
#define MYSQLMEMPROF_CHART_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "sample.h"
#include "statement.h"

#define CHART_MAX_COLUMNS 2000
/* Events with a band of their own; the ones seen later go to "other". */
#define CHART_MAX_EVENTS 64
/* Statement runs kept with their text; later ones are only counted. */
#define CHART_MAX_STATEMENTS 512

struct chart_column {
	uint64_t first_us, last_us; /* elapsed_us of its first and last sample */
	int64_t first_wall_ms;      /* wall clock of its first sample */
	uint64_t samples;
	int64_t total;              /* the largest thread total */
	/*
	 * Some sample of it read its events; without, they are all an
	 * earlier reading's (events_kept), drawn as such.
	 */
	bool rows_read;
	/* The server's process (--global on its machine): its largest Rss. */
	bool has_resident;
	int64_t resident;
	/* Its memory cgroup's limit, the lowest in the column; none: false. */
	bool has_limit;
	int64_t limit;
	/*
	 * The widest stretch without samples just before the column's first
	 * sample (then gap_to_us is first_us) or, once merged, between two of
	 * its samples; gap_to_us is 0 when there was none.
	 */
	uint64_t gap_from_us, gap_to_us;
	/* An event peaked between two of its samples, unseen by both. */
	bool unseen_peak;
	int64_t unseen_peak_bytes;  /* the largest such high-water mark */
	const char *unseen_peak_event; /* its name, in the chart's names */
};

/* A run of samples of one statement. */
struct chart_statement {
	uint64_t first_seq, last_seq;
	uint64_t first_us, last_us;
	int64_t first_total, peak_total;
	struct statement statement;
};

/* What the chart knows of one event over the whole run. */
struct chart_event {
	char name[EVENT_NAME_MAX + 1];
	int64_t max_bytes; /* its largest current bytes */
};

struct chart {
	struct chart_column columns[CHART_MAX_COLUMNS];
	size_t n_columns;
	uint64_t per_column;      /* samples a full column holds: 1, 2, 4... */
	/* values[c * CHART_MAX_EVENTS + e]: event e's largest bytes in column c */
	int64_t values[CHART_MAX_COLUMNS * CHART_MAX_EVENTS];
	struct chart_event events[CHART_MAX_EVENTS];
	size_t n_events;
	uint64_t untracked;       /* event names seen when the table was full */
	struct chart_statement statements[CHART_MAX_STATEMENTS];
	size_t n_statements;
	uint64_t dropped_statements; /* runs after the table was full */
	uint64_t samples;
	uint64_t kept;            /* of them, with an earlier reading's events */
	uint64_t gaps;            /* gaps seen: reconnects, skipped ticks */
	int64_t max_total;
	bool has_resident;        /* some sample had the server's process */
	int64_t max_resident;
	bool has_limit;           /* some sample had a cgroup with a limit */
	int64_t min_limit, max_limit;
	/* The interval, as the smallest step between due times seen so far. */
	uint64_t interval_us;
	uint64_t last_due_us;
	bool has_last_statement;
	struct statement last_statement;
	bool in_kept_run;         /* the last statement's run is in statements[] */
};

/* A new, empty chart; NULL when out of memory. Free it with chart_free(). */
struct chart *chart_create(void);
void chart_free(struct chart *c);
/* Forgets every sample: the next one starts a new run. */
void chart_reset(struct chart *c);

/* Adds one sample; the chart copies what it keeps. */
void chart_add(struct chart *c, const struct sample *s);

/* Event e's bytes in column i. */
int64_t chart_value(const struct chart *c, size_t i, size_t e);

/*
 * The indexes of the k events with the largest bytes over the run, largest
 * first, in out (room for k); returns how many there are.
 */
size_t chart_top(const struct chart *c, size_t *out, size_t k);


#endif
