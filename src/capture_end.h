/*
 * The end of one capture (capture_end.c), and the state of the capture it
 * reads, which capture.c sets up and hands the sampler's callbacks.
 */
#ifndef MYSQLMEMPROF_CAPTURE_END_H
#define MYSQLMEMPROF_CAPTURE_END_H

#include <stdbool.h>
#include <stdint.h>

#include "capture_env.h"
#include "filter.h"
#include "follow.h"
#include "recorder.h"
#include "ring.h"
#include "sampler.h"

struct capture_state {
	const struct capture_env *env;
	struct pfs_reader *reader;
	struct total *total;            /* a thread's own count; NULL: none */
	uint64_t count_query_us, counts; /* the ticks of the count alone */
	const struct options *opts;
	const struct stmt_match *found; /* --wait-for's statement, or NULL */
	uint64_t number;                /* its capture number */
	struct follow follow;           /* following found */
	struct recorder rec;            /* --trigger-bytes; every sample goes through it */
	struct event_filter filter;     /* --events, --exclude */
	char grain[600];                /* "user:app" and such, for --global and --for-* */
	const struct sampler_stats *stats; /* the run's counts so far */
	bool duty_noted;                /* the note on the queries' cost is said */
	struct runstats *run;           /* the whole run, every sample folded in */
	int64_t limit_bytes;            /* connection_memory_limit; 0: none */
	/* The observer ended the capture, having said why: no word more. */
	bool observer_failed;
};

/*
 * The share of one core the queries take at the asked --frequency, in
 * percent: their mean time over the interval.
 */
double capture_duty_pct(const struct sampler_stats *st, uint64_t frequency_ms);
/* connection_memory_limit, which applies to a thread, not a grain; 0: none. */
int64_t capture_limit_of(const struct capture_state *c);
/*
 * What the sampler's end means for the exit status, said on stderr; the
 * summary built from the ring and written (capture_end.c).
 */
int capture_finish(struct capture_state *c, struct ring *ring,
    const struct sampler_stats *stats, uint64_t thread_id, const char *err);

#endif
