/*
 * What the whole run says, kept as each sample comes, whatever the length
 * of the run: the ring holds only the last --window samples, this holds
 * every sample folded in. Per event: min, max, mean, last current bytes,
 * the high-water mark and the peak including peaks between samples. Per
 * statement: when it ran, the thread's bytes when it started, its peak and
 * its growth (the memory it took, rather than the memory the thread
 * already held), and the bytes allocated while it ran.
 *
 * Memory is bounded: at most RUNSTATS_MAX_EVENTS events and
 * RUNSTATS_MAX_STATEMENTS statements are kept. An event beyond the cap is
 * left out of the per-event lines (the totals still count it); a statement
 * beyond the cap takes the place of the finished one with the least
 * growth, so the ranking by growth stays right at its top. Either is
 * counted, and the summary says so.
 */
#ifndef MYSQLMEMPROF_RUNSTATS_H
#define MYSQLMEMPROF_RUNSTATS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "sample.h"
#include "statement.h"

#define RUNSTATS_MAX_EVENTS 1024
#define RUNSTATS_MAX_STATEMENTS 1000

/* One event over the whole run, over the samples that kept it. */
struct run_event {
	char name[EVENT_NAME_MAX + 1];
	uint64_t samples;    /* samples that kept it */
	int64_t min_bytes;   /* current bytes: the least ... */
	int64_t max_bytes;   /* ... and the most a sample saw */
	double mean_bytes;   /* over the samples that kept it */
	int64_t last_bytes;  /* in the last sample that kept it */
	int64_t high_bytes;  /* the largest high-water mark: since the thread started */
	/* The most it is known to have held in the run, peaks between samples included. */
	int64_t peak_bytes;
	uint64_t unseen_peaks;  /* samples whose high-water mark proved a peak between samples */
	uint64_t delta_spikes;  /* samples where only the deltas proved one (a lower bound) */
	int64_t largest_between_peak; /* the largest peak between samples, of either kind */
};

/* One statement of the run; ids, digest and text as the samples had them. */
struct run_statement {
	struct statement statement;
	uint64_t samples;
	uint64_t first_seq, last_seq;
	uint64_t first_elapsed_us, last_elapsed_us;
	int64_t first_wall_ms, last_wall_ms;
	/*
	 * The thread's bytes when it started: the lower of the sample before
	 * its first and its first, since it began somewhere between them.
	 */
	int64_t start_bytes;
	int64_t peak_bytes;         /* the largest total a sample of it saw */
	int64_t between_peak_bytes; /* the peak, peaks between samples included */
	int64_t growth_bytes;       /* run_statement_peak() - start_bytes, at least 0 */
	uint64_t alloc_bytes;       /* allocated while it ran, over every event */
	/*
	 * What the server recorded once it finished (finished.h), when a
	 * sample brought it: with no sample of it running (samples 0) it
	 * ran between two samples, and the sample fields above are of the
	 * sample that brought it. exact: exact_peak_bytes is the server's
	 * own peak of it (MAX_TOTAL_MEMORY), not a sampled one.
	 */
	bool finished;
	bool exact;
	int64_t exact_peak_bytes;
	uint64_t server_us;         /* its duration, the server's clock */
	uint64_t rows_sent, rows_examined;
};

/* Its peak: the server's, exact, when known; else the sampled one. */
static inline int64_t
run_statement_peak(const struct run_statement *st)
{
	return st->exact ? st->exact_peak_bytes : st->between_peak_bytes;
}

/*
 * What sampling missed of its peak: the exact peak over the sampled one,
 * when both are known; -1 when not.
 */
static inline int64_t
run_statement_missed(const struct run_statement *st)
{
	if (!st->exact || st->samples == 0)
		return -1;
	return st->exact_peak_bytes > st->between_peak_bytes ?
	    st->exact_peak_bytes - st->between_peak_bytes : 0;
}

/* The run's totals, and what the caps left out. */
struct run_totals {
	uint64_t samples;
	/*
	 * Of them, those whose events were an earlier reading's (events_kept),
	 * and of those the ones with the server's own count of the thread:
	 * the total only (total.h); the rest read their rows.
	 */
	uint64_t kept, total_only;
	uint64_t first_seq, last_seq;
	uint64_t first_elapsed_us, last_elapsed_us;
	int64_t min_total, max_total, last_total;
	double mean_total;
	int64_t between_peak_total; /* the max, peaks between samples included */
	uint64_t unseen_peaks;  /* (event, sample) pairs of each kind */
	uint64_t delta_spikes;
	uint64_t events_left_out;     /* names beyond RUNSTATS_MAX_EVENTS */
	uint64_t statements_dropped;  /* statements pushed out by RUNSTATS_MAX_STATEMENTS */
	/*
	 * The statements the server recorded once finished (finished.h):
	 * how many, how many of them no sample saw running, how many with
	 * an exact peak, and how many ended unseen, pushed out of the
	 * thread's history before a read (at least).
	 */
	uint64_t statements_finished;
	uint64_t statements_unsampled;
	uint64_t statements_exact;
	uint64_t statements_lost;
	size_t negative_events;       /* kept events that were below 0 in some sample */
	/*
	 * Over every event read, kept or not: the most that were below 0 in
	 * one sample, and the lowest sum of their bytes.
	 */
	size_t most_negative_events;
	int64_t lowest_negative_bytes;
	/*
	 * What the samples' queries cost the server (query_us), over the
	 * samples taken while sampling (not those of the history, which a
	 * look took): their sum and the slowest, and the time from the first
	 * such sample to the last, over which all but the first ran.
	 */
	uint64_t queried;
	uint64_t query_us_sum, query_us_max, first_query_us;
	uint64_t queried_span_us;
	/*
	 * The server's process beside the samples (--global on its machine,
	 * struct process_memory): the samples that had it, and the one where
	 * its resident memory was furthest above the total counted.
	 */
	uint64_t process_samples;
	int64_t max_untracked;          /* resident less the total */
	int64_t max_untracked_resident; /* the resident bytes then */
	uint64_t max_untracked_seq;
	int64_t max_untracked_wall_ms;
	/*
	 * The server's memory cgroup beside the samples: the samples that
	 * had it, the one where its usage came closest to its limit (a
	 * sample with a limit before any without; among those without, the
	 * highest usage), and its OOM kills at the first and the last.
	 */
	uint64_t cgroup_samples;
	int64_t cgroup_usage;    /* at the closest */
	int64_t cgroup_limit;    /* then; -1: none */
	uint64_t cgroup_seq;
	int64_t cgroup_wall_ms;
	int64_t cgroup_kills_first; /* -1: not counted */
	int64_t cgroup_kills_last;
};

/*
 * The share of one core the samples' queries took over the run, in
 * percent; -1 when fewer than two samples say.
 */
double runstats_duty_pct(const struct run_totals *t);

struct runstats;

/* An empty record; NULL when out of memory. The caller owns it. */
struct runstats *runstats_create(void);
void runstats_free(struct runstats *r);

/* Folds one sample in; O(events of the sample). */
void runstats_add(struct runstats *r, const struct sample *s);

const struct run_totals *runstats_totals(const struct runstats *r);

/*
 * The events, largest max_bytes first, and the statements, largest growth
 * first, as arrays the caller frees; NULL with *n 0 when there are none.
 * Return 0, or -1 when out of memory.
 */
int runstats_events(const struct runstats *r, struct run_event **out,
    size_t *n);
int runstats_statements(const struct runstats *r, struct run_statement **out,
    size_t *n);

#endif
