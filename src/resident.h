/*
 * A sample source that reads, beside each sample of --global, what the
 * server's process holds as the kernel counts it (procfs.h: status, a few
 * counters, not smaps_rollup's walk of the page tables), and the
 * server's own count from its status, at most once a second, on the
 * sampling chain's connection. The sample carries both (struct
 * process_memory), so formats and observers see only sample fields.
 *
 * The process is the one whose id the server gives (THREAD_OS_ID of its
 * main thread, learnt at each connect), trusted only when that process
 * here is a mysqld or mariadbd that started no later than the server says
 * it did (a slow start begins long before):
 * a server on another machine gives an id that means nothing here. When
 * it cannot be trusted, the figures are absent and one note says why.
 *
 * Beside it, the memory cgroup the trusted process is in (cgroup.h): its
 * folder and limits found for each trusted pid and again once a minute
 * (a process moved, a limit changed), its counters read with each sample.
 */
#ifndef MYSQLMEMPROF_RESIDENT_H
#define MYSQLMEMPROF_RESIDENT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "cgroup.h"
#include "clock.h"
#include "gate.h"
#include "session.h"
#include "source.h"

#define RESIDENT_STATUS_EVERY_NS 1000000000ull
/* The cgroup's folder and its limits (a walk up its tree) this often. */
#define RESIDENT_CGROUP_EVERY_NS 60000000000ull

struct resident {
	/* Set by the capture that runs the chain: */
	struct source inner;
	struct session *session;
	const struct clock *clk;
	const char *proc;          /* PROCFS_ROOT, or a test's tree */
	/* The server's own count at most this often; 0: RESIDENT_STATUS_EVERY_NS. */
	uint64_t status_every_ns;
	const char *sys;           /* CGROUP_SYS_ROOT, or a test's tree */
	void (*notify)(void *ctx, const char *msg); /* the note; may be NULL */
	void *notify_ctx;

	/* Its own, zero at first: */
	struct pfs_server_id checked; /* the run of the server checked */
	bool has_checked;
	uint64_t pid;              /* trusted; 0: none */
	bool noted;                /* the note on an absent figure is said */
	struct cgroup_limits cgroup; /* the pid's memory cgroup; dir "": none */
	uint64_t next_cgroup_ns;   /* 0: find it with the next sample */
	bool cgroup_noted;         /* the note on an absent cgroup is said */
	struct gate status;        /* reset: ask with the next sample */
	bool has_status;
	int64_t status_bytes;
};

/* Reads inner, then the process and (when due) the status when inner read. */
struct source resident_source(struct resident *r);

#endif
