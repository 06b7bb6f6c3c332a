/*
 * --explain's answer, worked out from one reading: the server's resident
 * memory split into layers, each with its size and where the figure comes
 * from, the allocator and the cgroup beside them, the connections'
 * estimated and measured figures, and a line of cause and what to try for
 * each layer that is large. Pure: the readings in (struct
 * explain_reading, which explain.c fills), the answer out; the formats
 * write it (explain_out.c).
 */
#ifndef MYSQLMEMPROF_EXPLAIN_MODEL_H
#define MYSQLMEMPROF_EXPLAIN_MODEL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "heap_summary.h"
#include "layers.h"
#include "procmaps.h"
#include "sample.h"

/* What one reading of the server and its process gave. */
struct explain_reading {
	char server_version[96];    /* a copy: a reading outlives its connection */
	int64_t wall_ms;            /* when, UTC */
	uint64_t pid;               /* the server's, as it says; 0: unknown */
	/* The process's layers (procfs_layers()); when not read, why. */
	bool has_process;
	struct process_layers proc;
	char process_why[512];
	/* Its memory cgroup (cgroup_read()): has_cgroup and cgroup_* only. */
	struct process_memory cg;
	char cgroup_dir[512];       /* "" when none was found */
	/* The server's side; a part the server did not give is left out. */
	bool has_counted, has_estimate, has_measured;
	struct counted_layers counted;
	struct estimate est;
	struct measured_connections meas;
	/* The server's jemalloc heap profile: --explain's alone looks. */
	struct heap_summary heap;
};

/* The most layers, advice lines and notes the answer holds. */
#define EXPLAIN_LAYERS 16
#define EXPLAIN_LINES 10
#define EXPLAIN_LINE 1024

struct explain_layer {
	const char *key;      /* its name in JSON; one a layer */
	int depth;            /* 0: the whole; 1, 2, 3: parts of the one above */
	char name[700];       /* in words: off_families may be long */
	int64_t bytes;        /* -1: not known */
	char from[200];       /* where the figure comes from */
};

struct explain {
	struct explain_layer layer[EXPLAIN_LAYERS];
	size_t layers;
	/* The allocator and the cgroup, a sentence each; "" when unknown. */
	char allocator[EXPLAIN_LINE];
	int arenas;                 /* glibc's; -1: another allocator, unknown */
	char cgroup[EXPLAIN_LINE];
	/*
	 * The bound the measured peaks give: the global buffers plus
	 * max_connections times the largest connection's peak; -1 without
	 * both. Beside the estimate, and a sentence on the two.
	 */
	int64_t measured_bound;
	char bounds[EXPLAIN_LINE];
	/* The heap profile's instrumented part against the counted; "": none. */
	char heap[EXPLAIN_LINE];
	char advice[EXPLAIN_LINES][EXPLAIN_LINE];
	size_t advices;
	char notes[EXPLAIN_LINES][EXPLAIN_LINE];
	size_t notes_n;
};

/* The thresholds past which a layer gets its line of advice. */
#define EXPLAIN_ARENAS 8                       /* glibc arenas */
#define EXPLAIN_ARENA_BYTES ((int64_t)64 << 20) /* their heaps' Rss */
#define EXPLAIN_PFS_SHARE 20                   /* % of resident */
#define EXPLAIN_PFS_BYTES ((int64_t)128 << 20)
#define EXPLAIN_THP_BYTES ((int64_t)64 << 20)
#define EXPLAIN_LIMIT_SHARE 80                 /* % of the cgroup's limit */
#define EXPLAIN_GAP_BYTES ((int64_t)256 << 20)  /* not counted, and a */
#define EXPLAIN_GAP_SHARE 25                   /* % of the anonymous */

void explain_work(const struct explain_reading *r, struct explain *out);

/* The layer named key, or NULL. */
const struct explain_layer *explain_find(const struct explain *e,
    const char *key);

#endif
