/*
 * One capture: the target resolved, the ring made, the sampler run over a
 * source that reconnects (and, for a statement found by waiting, ends with
 * the statement), every sample handed through the flight recorder to the
 * output, and the summary written.
 */
#ifndef MYSQLMEMPROF_CAPTURE_H
#define MYSQLMEMPROF_CAPTURE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "cli.h"
#include "clock.h"
#include "diag.h"
#include "match.h"
#include "outfile.h"
#include "sampler.h"
#include "session.h"
#include "signals.h"
#include "summary.h"
#include "top_threads.h"
#include "follow.h"

/* What a capture samples, for an observer. */
struct capture_target {
	uint64_t thread_id;     /* 0 for a grain */
	uint64_t connection_id; /* 0 for a background thread or a grain */
	const char *grain;      /* "global", "user:NAME", ...; NULL for a thread */
	const struct stmt_match *found; /* the statement --wait-for found, or NULL */
	const char *server_version;
	uint64_t interval_ms;
	/* MySQL's connection_memory_limit, for a thread; 0: none set or known. */
	int64_t limit_bytes;
};

/*
 * Sees a capture as it runs, beside the output: a live view, an exporter.
 * Each callback runs on the sampling thread and may be NULL. sample() sees
 * every sample as soon as it is taken, before --trigger-bytes can hold it
 * back, with the run's counts so far; a non-zero return ends the capture as
 * a failed write does. end() sees the summary before it is written.
 */
struct capture_observer {
	void *ctx;
	void (*begin)(void *ctx, const struct capture_target *t);
	int (*sample)(void *ctx, const struct sample *s,
	    const struct sampler_stats *so_far);
	/* why: the error that ended the capture, as said on stderr; NULL. */
	void (*end)(void *ctx, const struct summary *sum,
	    const struct sampler_stats *stats, const char *why);
};

/* What a capture works with; all of it borrowed from the caller. */
struct capture_env {
	const struct options *opts;
	struct session *session;
	struct outfile *out;
	const struct diag *diag;
	struct signal_flags *sig;
	const struct capture_observer *observer; /* NULL: none */
	const struct clock *clk;   /* NULL: the system's; a test's fake clock */
	/*
	 * The whole server's top threads, read on the sampling chain beside
	 * the samples for the observer to copy (top_threads.h); NULL: none.
	 */
	struct top_threads *top_threads;
	/* Where /proc is (procfs.h): NULL for PROCFS_ROOT; a test's tree. */
	const char *proc;
};

/*
 * Whether the ring that --window and --top ask for stays within the limit
 * (1 GiB); says so when not. instruments: the memory instruments of the
 * server, 0 while not known.
 */
bool capture_ring_fits(const struct options *o, size_t instruments);

/*
 * MySQL's connection_memory_limit and its kin: read through s's operations
 * the first time a connection is asked, then kept in s->limits. NULL when
 * the read failed, with err saying why (err may be NULL); asked again then.
 */
const struct pfs_memory_limits *capture_memory_limits(struct session *s,
    char *err, size_t errlen);

/*
 * Captures the thread, connection or grain of the options; or, when found
 * is not NULL, the statement --wait-for found (number: 1, 2, ...) until it
 * ends, *end saying how. Returns the exit status.
 */
int capture_run(const struct capture_env *env, const struct stmt_match *found,
    uint64_t number, enum follow_end *end);

/*
 * capture_run() of a statement found by waiting, whose first samples are
 * the n readings of before, taken while waiting (oldest first; borrowed).
 */
int capture_run_from(const struct capture_env *env,
    const struct stmt_match *found, const struct sampler_before *before,
    size_t n, uint64_t number, enum follow_end *end);

#endif
