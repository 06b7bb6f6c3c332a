/*
 * What the live view draws: a copy of the samples of the window (the
 * bytes of each event, the total, the marks), the target and the run's
 * counts. The sampling thread adds to it, the drawing reads it; the caller
 * keeps the two apart (live.c holds a mutex). It needs no server and no
 * terminal, so the unit tests drive it with made-up samples.
 */
#ifndef MYSQLMEMPROF_LIVE_MODEL_H
#define MYSQLMEMPROF_LIVE_MODEL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "explain_model.h"
#include "sample.h"
#include "statement.h"
#include "threads.h"

/* One event in one column: the fields the table shows. */
struct live_event {
	uint32_t id;          /* index into live_model.names */
	int64_t bytes;        /* current bytes */
	int64_t high;         /* high-water mark */
	uint64_t alloc;       /* allocated since the previous sample */
	bool peak;            /* peaked between the samples, unseen */
};

/* One sample as the view keeps it. */
struct live_column {
	uint64_t seq;
	uint64_t elapsed_us;
	int64_t total;
	/* The server's process beside it (--global on its machine). */
	bool has_resident;
	int64_t resident;
	/* Its memory cgroup: usage, and the limit (-1: none). */
	bool has_cgroup;
	int64_t cgroup_usage;
	int64_t cgroup_limit;
	bool has_deltas;
	/*
	 * Its events are an earlier reading's (events_kept: a thread's total
	 * only, or --record's beat), read at rows_us; else rows_us is its own
	 * elapsed_us.
	 */
	bool kept;
	uint64_t rows_us;
	bool peak;            /* an event peaked between samples */
	bool new_statement;   /* the statement differs from the previous sample's */
	/*
	 * Statements that began and ended between the previous sample and
	 * this one, too short for a sample to see (finished.h), and the
	 * largest exact peak among them (0: none known).
	 */
	uint32_t unseen;
	int64_t unseen_peak;
	size_t n;
	struct live_event *ev; /* largest current bytes first; owned by the model */
};

enum live_state {
	LIVE_WAITING, /* no capture yet (--wait-for) */
	LIVE_RUNNING,
	LIVE_ENDED,   /* the capture ended; why is in end_note */
};

struct live_model {
	enum live_state state;
	char server[128];     /* version */
	char target[512];     /* "thread 42 (connection 7) user app@localhost" */
	uint64_t interval_ms;
	uint64_t taken, skipped;
	uint64_t query_us;    /* our cost, the newest sample's query */
	/* The statement of the newest sample, scrubbed; "" when none is known. */
	char statement[STATEMENT_TEXT_MAX + 1];
	bool running;         /* it runs (no digest yet) rather than ended */
	uint64_t statement_since_us; /* elapsed_us when it began, or ended */
	int64_t statement_base_s;   /* how long it ran before we first saw it */
	struct statement last;      /* to tell changes */
	uint64_t unseen;            /* statements too short to be sampled, in the capture */
	char end_note[256];   /* why the capture ended, for the screen */
	/* MySQL's connection_memory_limit (0: none), and the most total seen. */
	int64_t limit_bytes, most_total;

	/* The newest cap samples, a ring of columns. */
	struct live_column *col;
	size_t cap, len, head; /* head: where the next one goes */
	size_t max_events;

	/* Event names seen, interned: an id is an index here. Owned. */
	char **names;
	size_t n_names, cap_names;

	/* --live --list: the threads of the last look. Owned. */
	struct thread_list threads;

	/* --global: the gap in layers, the latest reading (gap.h); key e. */
	struct explain layers;
	bool has_layers;
	unsigned layers_every_s; /* --layers-every: their beat; 0: not read */
};

/*
 * Room for `window` samples of up to max_events events each (0: as many as
 * a sample brings, grown as needed). Returns 0, or -1 when out of memory.
 */
int live_model_init(struct live_model *m, size_t window, size_t max_events);
void live_model_free(struct live_model *m);

/* A new capture begins: the columns and counts are cleared. */
void live_model_begin(struct live_model *m, const char *server,
    const char *target, uint64_t interval_ms, int64_t running_s);

/* Adds a sample; returns 0, or -1 when out of memory. */
int live_model_add(struct live_model *m, const struct sample *s,
    uint64_t taken, uint64_t skipped);

/* The i-th column held, 0 the oldest; i < m->len. */
const struct live_column *live_model_column(const struct live_model *m,
    size_t i);

/* Replaces the thread list with l, taking its storage; l is left empty. */
void live_model_set_threads(struct live_model *m, struct thread_list *l);

#endif
