/*
 * A capture's chain of sources (ARCHITECTURE.md, under capture): over the
 * reader's rows, a thread's own count (total), reconnect, --record's beat,
 * the process, a thread's finished statements, the whole server's sources
 * a mode hands (conns, gap, top_threads), the guard, and a hunt's follow,
 * outermost last. capture.c builds it once a capture and runs the sampler
 * over it; what the chain needs for its life is in struct capture_chain.
 */
#ifndef MYSQLMEMPROF_CAPTURE_CHAIN_H
#define MYSQLMEMPROF_CAPTURE_CHAIN_H

#include "beat.h"
#include "capture_end.h"
#include "finished.h"
#include "guard.h"
#include "reconnect.h"
#include "resident.h"
#include "sampler.h"
#include "total.h"

struct capture_chain {
	struct reconnect recon;
	struct beat bt;
	struct total tot;
	struct resident res;
	struct finished fin;
	struct guard guard;
};

/*
 * The chain over rows for capture c, into ch (zeroed by the caller, freed
 * with total_free() and beat_free() once the run ends); grain NULL for a
 * thread. Sets c->total where a thread's own count is read.
 */
struct source capture_chain_build(struct capture_state *c,
    struct capture_chain *ch, struct source rows,
    const struct sampler_config *cfg, const struct clock *clk,
    const enum pfs_grain *grain, uint64_t connection_id);

#endif
