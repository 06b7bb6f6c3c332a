/*
 * The summary of a capture. The fields up to `statements` cover the ring
 * window only (the last --window samples); `run` and the arrays after it
 * cover the whole run (runstats.h), when has_run is set.
 *
 * What the ring window says per event: minimum, maximum, mean and last
 * current bytes, and the high-water mark, over the samples that kept it;
 * the peaks that fell between samples; and each statement's share.
 */
#ifndef MYSQLMEMPROF_SUMMARY_H
#define MYSQLMEMPROF_SUMMARY_H

#include <stddef.h>
#include <stdint.h>

#include "ring.h"
#include "runstats.h"
#include "sample.h"

struct summary_event {
	char name[EVENT_NAME_MAX + 1];
	uint64_t samples; /* how many samples of the window kept this event */
	int64_t min_bytes;
	int64_t max_bytes;
	double mean_bytes;
	int64_t last_bytes; /* in the newest sample that kept it */
	int64_t high_bytes; /* the largest high-water mark seen */
	uint64_t unseen_peaks; /* samples that found an unseen peak */
	int64_t largest_unseen_peak; /* the largest of them, when there were some */
};

/* The events of a statement with the most current bytes, at most. */
#define SUMMARY_STATEMENT_TOP 3

/*
 * A run of samples of one statement. The statement and the names point
 * into the ring: the summary must be freed before the ring changes.
 */
struct summary_statement {
	const struct statement *statement;
	size_t samples;
	uint64_t first_seq, last_seq;
	int64_t peak_total, final_total;
	size_t n_top;
	struct {
		const char *name;
		int64_t max_bytes; /* its largest current bytes in the run */
	} top[SUMMARY_STATEMENT_TOP]; /* largest first */
};

struct summary {
	size_t n_samples;          /* samples in the window */
	uint64_t first_seq, last_seq;
	uint64_t first_elapsed_us, last_elapsed_us;
	uint64_t thread_id;
	int64_t min_total, max_total, last_total;
	uint64_t skipped;          /* ticks skipped over the whole run */
	size_t n_events;
	struct summary_event *events; /* largest max_bytes first; owned by the summary */
	size_t n_peaks;
	/* The events with unseen peaks, largest first; the array is owned by the summary. */
	const struct summary_event **peaks;
	size_t n_statements;
	/* The runs of one statement, oldest first; owned by the summary. */
	struct summary_statement *statements;

	/* The whole run, when summary_add_run() was called. */
	bool has_run;
	struct run_totals run; /* totals, counts of peaks, what the caps left out */
	size_t n_run_events;
	/* Every event of the run, largest max_bytes first; owned by the summary. */
	struct run_event *run_events;
	size_t n_run_statements;
	/* The statements of the run, largest growth_bytes first; owned by the summary. */
	struct run_statement *run_statements;

	/* MySQL's connection_memory_limit of a thread's capture; 0: none. */
	int64_t limit_bytes;
};

/*
 * Builds the summary of the samples in the ring; returns 0, or -1 when out
 * of memory. It points into the ring (see struct summary_statement).
 */
int summary_build(const struct ring *r, uint64_t skipped, struct summary *out);
/* Adds the whole run's part; returns 0, or -1 when out of memory. */
int summary_add_run(struct summary *s, const struct runstats *r);
void summary_free(struct summary *s);
/*
 * The most the target held: over the run, peaks between samples included,
 * when it has one; else the window's largest total.
 */
int64_t summary_most_held(const struct summary *s);

#endif
