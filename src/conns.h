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
 * without PROCESS, each thread's memory rows are summed, which on MariaDB
 * walks every thread's rows (some 77 ms at 1,000 connections): read at
 * most every CONNS_SLOW_NS then, with one note saying how to grant it.
 */
#ifndef MYSQLMEMPROF_CONNS_H
#define MYSQLMEMPROF_CONNS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "clock.h"
#include "source.h"

struct session;

/* One connection, as the server shows it; longer text is cut. */
struct conn_row {
	uint64_t connection_id;  /* the key */
	uint64_t thread_id;      /* 0 where the path gives none */
	char user[129], host[256], db[193], command[17];
	int64_t since_ms;        /* UTC ms when its command began (now - time) */
	int64_t bytes;           /* its memory now */
	int64_t peak_bytes;      /* its peak; -1 where the server keeps none */
	bool running;            /* a statement runs */
	char digest[65];         /* "" where not read */
	char text[1025];         /* the statement's start; "" none */
};

/* How the connections are read: the server's kind, and its privileges. */
enum conns_way {
	CONNS_UNKNOWN = 0, /* not read yet on this connection: the read decides */
	CONNS_THREADS,     /* threads.TOTAL_MEMORY, MAX_TOTAL_MEMORY: MySQL 8.0.31+ */
	CONNS_PROCESSLIST, /* information_schema.PROCESSLIST: MariaDB with PROCESS */
	CONNS_SUMMED,      /* each thread's memory rows summed: older MySQL, ... */
	CONNS_NO_PROCESS,  /* ... and MariaDB without PROCESS, at CONNS_SLOW_NS */
};

/* A reading of every connection; v grows as needed, its owner frees it. */
struct conn_list {
	struct conn_row *v;
	size_t n, cap;
};

/* Room for n rows in l; -1 when out of memory (l is left as it was). */
int conn_list_reserve(struct conn_list *l, size_t n);

/* The dear way is read at most this often. */
#define CONNS_SLOW_NS 10000000000ull

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
	uint64_t next_ns;         /* 0: read with the next sample */
	bool noted;               /* the note on PROCESS is said: once a run */
};

/* Reads inner, then every connection when due and inner read. */
struct source conns_source(struct conns *c);

/* Frees what c holds; c may be read again from scratch. */
void conns_free(struct conns *c);

#endif
