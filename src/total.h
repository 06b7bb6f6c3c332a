/*
 * A sample source for one thread that reads, each tick, the server's own
 * count of the thread's memory (MySQL 8.0.31+'s threads.TOTAL_MEMORY,
 * MariaDB's PROCESSLIST.MEMORY_USED: session op own_count), and its
 * memory rows (the inner source, the reader) only when that count moved
 * by moved_bytes since they were read, its statement changed, or every_ns
 * passed; and only as often as max_load_pct leaves room for beside the
 * counts. On MariaDB a reading of the rows walks every thread's rows (no
 * index), so at a thousand connections it costs the server several times
 * the count: the count keeps every tick's total within --max-load.
 *
 * Between readings, a tick hands the last rows again (events_kept) with
 * the count (has_connection_bytes) and what it moved since (total_moved):
 * the sampler makes the total their sum and that. Where the server keeps
 * no count, or does not show it to this account (MariaDB without PROCESS,
 * another account's connection), every tick reads the rows, and a note
 * says once what PROCESS would change.
 *
 * It sits below reconnect: a connection lost in its query is SOURCE_LOST,
 * as the reader's would be, and it reads through the session's connection
 * of the moment.
 */
#ifndef MYSQLMEMPROF_TOTAL_H
#define MYSQLMEMPROF_TOTAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "clock.h"
#include "session.h"
#include "source.h"
#include "statement.h"

struct total {
	/* Set by the capture that runs the chain: */
	struct source inner;        /* the thread's rows */
	struct session *session;
	const struct clock *clk;
	struct pfs_thread_ids ids;
	uint64_t every_ns;          /* --rows-every: rows at least this often */
	int64_t moved_bytes;        /* --rows-moved */
	uint64_t interval_ns;       /* --frequency: a count's share of a tick */
	unsigned max_load_pct;      /* --max-load; 0: no bound */
	void (*notify)(void *ctx, const char *msg);
	void *notify_ctx;

	/* Its own, zero at first: */
	bool off;                   /* no count here: the rows each tick */
	bool have_rows;
	int64_t count_at_rows;      /* the count when the rows were read */
	bool has_key;
	int64_t key_at_rows;        /* the statement's key then */
	uint64_t rows_at_ns;        /* when they were read */
	uint64_t next_rows_ns;      /* no reading of rows before: the budget */
	uint64_t count_ns;          /* the last count's query time */
	struct event_stat *kept;    /* the last reading's rows */
	size_t n, cap;
	struct statement statement; /* and the statement read with them */
	bool has_statement;
};

struct source total_source(struct total *t);

/* The rows read at the next tick, whatever the count: what they say changed. */
void total_reread(struct total *t);

void total_free(struct total *t);

#endif
