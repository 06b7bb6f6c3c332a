/*
 * The sampling loop: reads the source on absolute monotonic deadlines,
 * keeps the top events of each reading in the ring and hands each sample to
 * a sink as soon as it is taken.
 */
#ifndef MYSQLMEMPROF_SAMPLER_H
#define MYSQLMEMPROF_SAMPLER_H

#include <signal.h>
#include <stddef.h>
#include <stdint.h>

#include "clock.h"
#include "filter.h"
#include "ring.h"
#include "source.h"

/*
 * A reading taken before the run, while waiting for the target (wait.c
 * gives them from history.h): the sampler hands these to the sink first,
 * as samples marked waiting, at the times they were taken.
 */
struct sampler_before {
	struct reading rd;   /* its events may be reordered */
	uint64_t mono_ns;    /* when it was taken, on the same clock */
	int64_t wall_ms;
};

struct sampler_config {
	uint64_t interval_ns;
	uint64_t count;       /* stop after this many samples; 0: no limit */
	uint64_t duration_ns; /* stop before a tick due this late; 0: no limit */
	size_t top;           /* events kept per sample; 0: all */
	uint64_t thread_id;   /* written into each sample */
	/*
	 * --max-load: the share of one core, in percent, that the queries may
	 * take (0: no bound). Each ns of the run earns max_load_pct / 100 ns of
	 * query time, a second's earnings at most are saved, and each query
	 * spends what it took; a query that leaves q ns owed is followed by no
	 * other sooner than q * 100 / max_load_pct later, at the first tick
	 * due then. What is saved may reach the dearest earlier query's cost,
	 * up to ten seconds' earnings.
	 */
	unsigned max_load_pct;
	/*
	 * Where the sampler writes, before each read, the query time the tick
	 * may take with no tick skipped to pay it back (INT64_MAX without a
	 * bound), for a source that can choose to read its dear part later
	 * (total.h); NULL: nowhere.
	 */
	int64_t *afford_ns;
	/* --events, --exclude: applied before the top N; NULL: keep all. */
	const struct event_filter *filter;
	/*
	 * Called with the sink's context when a signal ended the wait for a
	 * tick early (NULL: nothing), so that SIGUSR1 is answered at once; a
	 * non-zero return ends the run as a sink error does.
	 */
	int (*wake)(void *sink_ctx);
	/*
	 * Readings from before the run, oldest first (NULL: none); elapsed
	 * time then counts from the first of them, and --count counts only
	 * the samples of the run.
	 */
	const struct sampler_before *before;
	size_t n_before;
};

enum sampler_end {
	SAMPLER_END_COUNT,    /* --count reached */
	SAMPLER_END_DURATION, /* --duration reached */
	SAMPLER_END_STOPPED,  /* *stop was set (SIGINT, SIGTERM) */
	SAMPLER_END_GONE,     /* the target ended */
	SAMPLER_END_SOURCE_ERROR,
	SAMPLER_END_SINK_ERROR,
};

struct sampler_stats {
	uint64_t taken;   /* samples taken and handed to the sink */
	uint64_t before;  /* of which readings from before the run */
	uint64_t skipped; /* ticks whose due time passed before they could start */
	uint64_t lost;    /* of which the source gave no reading (SOURCE_SKIPPED) */
	uint64_t load_skipped; /* of which skipped to stay under max_load_pct */
	/*
	 * Of the samples taken, those whose events are an earlier reading's
	 * (events_kept): with the connection's own count, the total only.
	 */
	uint64_t kept;
	uint64_t query_ns;     /* the time every query took, summed */
	uint64_t slowest_query_ns;
	char lost_why[256]; /* the source's word on the last of them */
	enum sampler_end end;
};

/* Called with each sample as soon as it is in the ring; returns 0 or -1. */
typedef int (*sampler_sink)(void *ctx, const struct sample *s);

/*
 * How many events a sample can keep with that --top (0: all of the `all`
 * instruments): the top N and the spikes. The ring must have that room.
 */
size_t sampler_max_events(size_t top, size_t all);

/*
 * Runs until a stop condition; fills *stats. On SAMPLER_END_SOURCE_ERROR,
 * err holds the source's message. Returns stats->end.
 */
enum sampler_end sampler_run(const struct sampler_config *cfg,
    const struct source *src, const struct clock *clk, struct ring *ring,
    sampler_sink sink, void *sink_ctx, volatile sig_atomic_t *stop,
    struct sampler_stats *stats, char *err, size_t errlen);

#endif
