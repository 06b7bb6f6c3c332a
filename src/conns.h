/*
 * Every connection of the server beside the samples of --global: who it
 * is, what it holds now and at its peak, and the statement it runs. The
 * rows are the session's (op connections, pfs_connections() on a real
 * server); the source here reads them after each sample, on the sampling
 * chain's connection, into struct conns, for the record mode's observer
 * to read. No mode queries the server on its own.
 *
 * Which way the rows are read is the server's (enum conns_way): MySQL
 * 8.0.31+ keeps each thread's total and peak in performance_schema.threads;
 * MariaDB keeps them in information_schema.PROCESSLIST, whose other
 * accounts' rows need the PROCESS privilege; elsewhere, and on MariaDB
 * without PROCESS, each thread's memory rows are summed. On MariaDB
 * without PROCESS that walks every thread's rows (40 ms of the server's
 * CPU at 1,000 connections, bench/record_cost.py): that way alone is read
 * at most every CONNS_SLOW_NS, with one note saying how to grant it.
 */
#ifndef MYSQLMEMPROF_CONNS_H
#define MYSQLMEMPROF_CONNS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "clock.h"
#include "gate.h"
#include "source.h"
#include "threads.h"

struct session;

/* The dear way is read at most this often. */
#define CONNS_SLOW_NS 30000000000ull

struct conns {
	/*
	 * The latest reading, after each sample when due (v's first n, owned
	 * here; n is 0 after a failed read, which is no new reading):
	 */
	struct conn_row *v;
	size_t n;
	uint64_t reads;           /* readings so far: a new one changes it */
	int64_t read_ms;          /* when the latest was read, UTC ms */

	/* Set by the capture that runs the chain, for each capture: */
	struct source inner;
	struct session *session;
	const struct clock *clk;
	void (*notify)(void *ctx, const char *msg); /* the note; may be NULL */
	void *notify_ctx;

	/* Its own, zero at first: */
	struct conn_list list;    /* v is list.v */
	struct gate gate;         /* reset: read with the next sample */
	bool noted;               /* the note on PROCESS is said: once a run */
	bool failed_noted;        /* a failed read said: once a run */
};

/* Reads inner, then every connection when due and inner read. */
struct source conns_source(struct conns *c);

/* Frees what c holds; c may be read again from scratch. */
void conns_free(struct conns *c);

#endif
