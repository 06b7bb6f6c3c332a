/*
 * What a mode is handed (struct capture_env) and what sees each sample of
 * its captures (struct capture_observer): the shared words of capture.c,
 * capture_end.c and the modes above them. No source goes with it.
 */
#ifndef MYSQLMEMPROF_CAPTURE_ENV_H
#define MYSQLMEMPROF_CAPTURE_ENV_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "options.h"
#include "clock.h"
#include "diag.h"
#include "match.h"
#include "outfile.h"
#include "sampler.h"
#include "session.h"
#include "signals.h"
#include "summary.h"
#include "top_threads.h"
#include "conns.h"
#include "gap.h"
#include "heapkeep.h"
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
 * a failed write does, the observer having said why (nothing more is said).
 * end() sees the summary before it is written.
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
	/*
	 * Every connection, read on the chain of a --global capture after
	 * each sample, for the observer to read (conns.h); NULL: none. The
	 * mode owns it and frees it with conns_free().
	 */
	struct conns *conns;
	/*
	 * The gap in layers (gap.h), read on the chain of a --global capture
	 * at its slow beat, for the observer to copy; NULL: none.
	 */
	struct gap *gap;
	/*
	 * The server's newest heap dumps kept (heapkeep.h), looked for on
	 * the chain of a --global capture at its slow beat; NULL: none.
	 */
	struct heap_keep *heap_keep;
	/* Where /proc is (procfs.h): NULL for PROCFS_ROOT; a test's tree. */
	const char *proc;
	/*
	 * Read the events (and the server's own count) at most this often,
	 * keeping them between (beat.h); 0: with every sample.
	 */
	uint64_t events_every_ns;
	/* Where the cgroups are (cgroup.h): NULL for CGROUP_SYS_ROOT; a test's. */
	const char *sys;
};

#endif
