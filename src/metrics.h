/*
 * The exporter's page: the latest sample of a target, rendered in the
 * Prometheus text format (0.0.4) or in OpenMetrics (1.0), with the label
 * values escaped. It renders what it is given and asks no one for more.
 */
#ifndef MYSQLMEMPROF_METRICS_H
#define MYSQLMEMPROF_METRICS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "explain_model.h"
#include "sample.h"
#include "threads.h"

enum metrics_format {
	METRICS_PROMETHEUS,  /* text/plain; version=0.0.4 */
	METRICS_OPENMETRICS, /* application/openmetrics-text; version=1.0.0 */
};

/*
 * Labelled series each kept event gives: bytes in use, high-water,
 * allocations in use, and four counters.
 */
#define METRICS_SERIES_PER_EVENT 7

/* What a scrape shows; all of it borrowed. */
struct metrics_view {
	bool up;                    /* samples arrive: see exporter.h */
	const struct sample *sample; /* the latest; NULL: none yet */
	uint64_t sample_age_ms;     /* how old it is */
	/*
	 * How old its events are: older than the sample when it kept an
	 * earlier reading's (events_kept: a thread's total only, total.h).
	 */
	bool has_events_age;
	uint64_t events_age_ms;
	const char *target;         /* "global", "user:app", "thread:42" */
	const char *server_version; /* NULL: not known yet */
	uint64_t samples, skipped, lost; /* since the exporter started */
	const struct thread_total *threads; /* the whole server's top threads */
	size_t n_threads;
	/* The gap in layers (--global on the server's machine); NULL: none. */
	const struct explain *layers;
	size_t max_series;          /* labelled series at most: events first */
	int64_t limit_bytes;        /* MySQL's connection_memory_limit; 0: none */
};

/* The format a scraper's Accept header asks for (NULL: none given). */
enum metrics_format metrics_format_for(const char *accept);
/* The Content-Type of a format. */
const char *metrics_content_type(enum metrics_format f);

/*
 * Writes the page of v to fp. Returns 0, or -1 when fp reports an error.
 * Numbers are written without the locale.
 */
int metrics_render(FILE *fp, const struct metrics_view *v,
    enum metrics_format f);

/*
 * Writes s as a label value between quotes: backslash, double quote and
 * line feed escaped, each byte that is not UTF-8 as U+FFFD.
 */
void metrics_label_value(FILE *fp, const char *s);

#endif
