/*
 * What mysqlmemprof asks performance_schema: the checks before sampling
 * (pfs_check.c), listing threads (pfs_list.c), finding statements for
 * --wait-for (pfs_look.c); reading memory as a sample source is in
 * pfs_read.h. All SQL of the program lives in pfs_*.c.
 */
#ifndef MYSQLMEMPROF_PFS_H
#define MYSQLMEMPROF_PFS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "conn.h"
#include "layers.h"
#include "match.h"
#include "sample.h"
#include "statement.h"
#include "threads.h"

enum pfs_status {
	PFS_OK = 0,
	PFS_DISABLED,       /* performance_schema is off */
	PFS_NO_INSTRUMENTS, /* no memory instrument is enabled */
	PFS_NOT_FOUND,      /* no such thread or connection */
	PFS_NOT_ALLOWED,    /* e.g. the target is our own thread */
	PFS_DENIED,         /* the account lacks SELECT on performance_schema */
	PFS_LOST,           /* the connection went away */
	PFS_ERROR,
};

/*
 * Which run of the server this is: a thread id means the same thread only
 * while both stay the same.
 */
struct pfs_server_id {
	int64_t boot_s; /* when it started, seconds since the epoch (+-1 s) */
	uint64_t pid;   /* its process id (thread/sql/main); 0: not known */
};

/* Who made the server, as its version string says. */
enum server_flavour {
	SERVER_UNKNOWN, /* no version number at the start */
	SERVER_MARIADB, /* "MariaDB" in the string */
	SERVER_MYSQL,   /* anything else with a version: Oracle's, Percona's */
};

struct server_kind {
	enum server_flavour flavour;
	unsigned major, minor, patch;
};

/* What a new connection learns of the server, in one statement. */
struct pfs_preflight {
	/* Memory instruments: the most rows a thread can have. */
	size_t total;
	/* Those enabled, not counting performance_schema's own (always on). */
	size_t enabled;
	uint64_t own_thread; /* the thread id of our own session */
	struct pfs_server_id server;
	/* Which server and version, from the handshake: the SQL follows it. */
	struct server_kind kind;
	bool sample_scans_threads; /* pfs_sql_sample_scans_threads() of kind */
};

/*
 * Learns all of struct pfs_preflight, and checks that performance_schema
 * is on and memory instruments are enabled. Errors say how to fix it;
 * PFS_NO_INSTRUMENTS comes with every field learnt.
 */
enum pfs_status pfs_preflight(struct conn *c, struct pfs_preflight *out,
    char *err, size_t errlen);

/* Whether the server still answers: the cheapest round trip (DO 0). */
enum pfs_status pfs_ping(struct conn *c, char *err, size_t errlen);

/*
 * MySQL 8.0.28+'s limits on the memory of connections, as its global
 * variables say them; a limit left at its default (the largest unsigned
 * integer) is none, 0.
 */
struct pfs_memory_limits {
	bool known;         /* the server has them and they were read */
	int64_t connection; /* connection_memory_limit; 0: none */
	int64_t global;     /* global_connection_memory_limit; 0: none */
	bool tracking;      /* global_connection_memory_tracking is ON */
};

/*
 * Reads them where the server of kind k has them (pfs_sql_has_memory_
 * limits()); elsewhere *out is left unknown without a query. One query.
 */
enum pfs_status pfs_memory_limits(struct conn *c, const struct server_kind *k,
    struct pfs_memory_limits *out, char *err, size_t errlen);

/*
 * Checks that events_statements_current records statements. When it does
 * not, returns PFS_DISABLED with a note saying how to enable it; sampling
 * goes on without statement ids.
 */
enum pfs_status pfs_check_statements(struct conn *c, char *note,
    size_t notelen);

/*
 * Whether every memory instrument is on. When only some are, returns
 * PFS_DISABLED with a note naming how many and how to enable the rest
 * (their memory is counted nowhere). One query.
 */
enum pfs_status pfs_check_memory_instruments(struct conn *c, char *note,
    size_t notelen);

/*
 * The instrumented memory of the whole server now, summed over
 * memory_summary_global_by_event_name. One query.
 */
enum pfs_status pfs_global_total(struct conn *c, int64_t *bytes, char *err,
    size_t errlen);

/* A thread by both its keys; connection_id 0: none (a background thread). */
struct pfs_thread_ids {
	uint64_t thread_id;
	uint64_t connection_id;
};

/* The server's own count of one thread's memory, and its statement's key. */
struct pfs_own_count {
	bool known;     /* a row: the thread is there and shown to us */
	int64_t bytes;
	bool has_key;   /* a key of its statement: it changes with each one */
	int64_t key;
};

/*
 * The server's own count of a thread (pfs_sql_own_count()): PFS_NOT_FOUND
 * where the server keeps none; out->known false when no row came (the
 * thread gone, or another account's without PROCESS). One query.
 */
enum pfs_status pfs_own_count(struct conn *c, const struct server_kind *k,
    const struct pfs_thread_ids *t, struct pfs_own_count *out, char *err,
    size_t errlen);

/*
 * What the server counts of its sessions' memory, from its status:
 * MariaDB's Memory_used, or MySQL 8.0.28+'s Global_connection_memory
 * while global_connection_memory_tracking is on. *known is false when the
 * server counts neither (older MySQL, tracking off). One query at most.
 */
enum pfs_status pfs_server_memory(struct conn *c, const struct server_kind *k,
    int64_t *bytes, bool *known, char *err, size_t errlen);

/*
 * performance_schema's memory now by family, and its memory instruments
 * (how many, how many off, the families of those off). Two queries: the
 * second's temporary table would count in the first.
 */
enum pfs_status pfs_counted_layers(struct conn *c, struct counted_layers *out,
    char *err, size_t errlen);

/*
 * MySQLTuner's estimate (layers.h) from the global variables, read from
 * the table the server of kind k keeps them in. One query.
 */
enum pfs_status pfs_estimate(struct conn *c, const struct server_kind *k,
    struct estimate *out, char *err, size_t errlen);

/* Which column of performance_schema.threads pfs_find_thread() matches. */
enum pfs_thread_key {
	PFS_BY_THREAD,     /* THREAD_ID */
	PFS_BY_CONNECTION, /* PROCESSLIST_ID, the id SHOW PROCESSLIST gives */
};

/*
 * Finds the thread whose key column is id and checks it is instrumented;
 * sets *thread_id and *connection_id (0 for a background thread) when
 * found. Either pointer may be NULL.
 */
enum pfs_status pfs_find_thread(struct conn *c, enum pfs_thread_key key,
    uint64_t id, uint64_t *thread_id, uint64_t *connection_id, char *err,
    size_t errlen);


/* What a reader sums over when it is not one thread. */
enum pfs_grain {
	GRAIN_GLOBAL,  /* memory_summary_global_by_event_name */
	GRAIN_USER,    /* memory_summary_by_user_by_event_name, USER = user */
	GRAIN_HOST,    /* memory_summary_by_host_by_event_name, HOST = host */
	GRAIN_ACCOUNT, /* memory_summary_by_account_by_event_name, both */
};

/* What the setup of performance_schema is now, for noticing changes. */
struct pfs_setup {
	size_t memory_enabled; /* memory instruments enabled, as pfs_preflight() counts */
	bool statements;       /* events_statements_current records, with those above it */
	int instrumented;      /* the thread's INSTRUMENTED: 1, 0; -1: no thread asked or found */
};
/* One query; thread_id 0 asks for no thread. */
enum pfs_status pfs_setup(struct conn *c, uint64_t thread_id,
    struct pfs_setup *out, char *err, size_t errlen);

/*
 * The up to max threads with the most memory, largest first, into out
 * (room for max), their number in *n. One query.
 */
enum pfs_status pfs_top_threads(struct conn *c, size_t max,
    struct thread_total *out, size_t *n, char *err, size_t errlen);

/* All the server's threads, largest memory first; the caller owns *out. */
enum pfs_status pfs_list_threads(struct conn *c, const struct server_kind *k,
    struct thread_list *out, char *err, size_t errlen);

/*
 * Every client connection but ours into out (its n rows from 0, grown as
 * needed; the caller owns out->v), its command's start put against
 * now_ms (UTC ms). *way: how the last read of this connection read them;
 * CONNS_UNKNOWN asks the server's kind, and on MariaDB whether our account
 * holds PROCESS (one query more): without it, CONNS_NO_PROCESS, the dear
 * way, which the caller reads less often and says once how to grant.
 */
enum pfs_status pfs_connections(struct conn *c, const struct server_kind *k,
    int64_t now_ms, enum conns_way *way, struct conn_list *out, char *err,
    size_t errlen);

/*
 * The memory of every client connection but ours, summed, and the largest
 * statement's peak where the server keeps it, read as pfs_connections()
 * reads them (*way the same: on MariaDB, without PROCESS, summed from
 * performance_schema with no peaks, out->no_process). One query, and the
 * PROCESS question at the first read of a connection.
 */
enum pfs_status pfs_measured_connections(struct conn *c,
    const struct server_kind *k, enum conns_way *way,
    struct measured_connections *out, char *err, size_t errlen);

/* What --wait-for and --longer-than look for; NULL means any. */
struct match_filter {
	const char *pattern; /* SQL LIKE pattern on PROCESSLIST_INFO */
	const char *user;    /* PROCESSLIST_USER */
	const char *db;      /* PROCESSLIST_DB */
	int64_t min_time_s;  /* running at least this long */
	int64_t min_bytes;   /* its thread holding at least this; 0: any */
	/*
	 * Ask each session's peak too, where the server keeps one, and list
	 * as well, peak_only, every other session whose peak is at least
	 * this, running or not; 0: no peaks. Not with min_bytes.
	 */
	int64_t peak_bytes;
	/*
	 * List as well, idle, every session that runs no statement and holds
	 * at least this (the user, database and time filters apply; with a
	 * pattern, none is); 0: none. Not with min_bytes.
	 */
	int64_t idle_bytes;
	/*
	 * Leave stmt_match.completed 0, the dearest part of the query: for
	 * a caller that asks pfs_thread_statement() of the few it takes.
	 */
	bool no_completed;
};

/*
 * The instrumented foreground threads running a statement that f matches,
 * leaving out own_thread and every session of mysqlmemprof. The filter
 * goes to the server as parameters, never as SQL. The caller owns *out.
 * The peaks come from MySQL 8.0.31+'s threads.MAX_TOTAL_MEMORY, or
 * MariaDB's information_schema.PROCESSLIST.MAX_MEMORY_USED, which shows
 * other accounts' sessions only with the PROCESS privilege.
 */
enum pfs_status pfs_find_statements(struct conn *c,
    const struct server_kind *k, const struct match_filter *f,
    uint64_t own_thread, struct match_list *out, char *err, size_t errlen);

/*
 * The top-level statements that ended past f->min_bytes, by their own
 * peak, on the sessions (not own_thread) whose peak passed it, matching
 * f's time, pattern, user and database: each ended, in no order, into *out (the caller's). Only where the server kind keeps
 * statements' peaks (MySQL 8.0.31+); elsewhere nothing is asked and
 * out->peaks is false.
 */
enum pfs_status pfs_finished_over(struct conn *c,
    const struct server_kind *k, const struct match_filter *f,
    uint64_t own_thread, struct match_list *out, char *err, size_t errlen);

/*
 * One thread's memory rows and top-level statement, as
 * pfs_threads_memory() read them; events is the caller's until it returns.
 * A non-zero return stops the calls.
 */
typedef int (*pfs_thread_memory_fn)(void *ctx, uint64_t thread_id,
    const struct statement *st, struct event_stat *events, size_t n);

/*
 * Reads the memory of the n threads of ids (at most 8) in one query, and
 * calls fn for each that still exists. statements: read the statement from
 * events_statements_current, else only the running text.
 */
enum pfs_status pfs_threads_memory(struct conn *c, const uint64_t *ids,
    size_t n, bool statements, pfs_thread_memory_fn fn, void *ctx,
    char *err, size_t errlen);

/* The most statements one read of a thread's history gives. */
#define PFS_HISTORY_ROWS 32

/* What pfs_thread_history() read. */
struct pfs_history {
	/*
	 * The server keeps each statement's peak (MySQL 8.0.31+); when not,
	 * nothing was asked and the rest is empty.
	 */
	bool peaks;
	bool consumer;   /* events_statements_history records */
	uint64_t oldest; /* the oldest EVENT_ID of the thread's history, any level; 0: none */
	size_t n;        /* rows, oldest first: PFS_HISTORY_ROWS means more may wait */
	struct finished_statement rows[PFS_HISTORY_ROWS];
};

/*
 * The top-level statements thread_id finished with an EVENT_ID of from_id
 * or more, from events_statements_history, with the server's peak of
 * each. One query, only where the server kind keeps those peaks; none
 * with from_id PFS_HISTORY_PROBE, which only fills out->peaks.
 */
#define PFS_HISTORY_PROBE UINT64_MAX
enum pfs_status pfs_thread_history(struct conn *c,
    const struct server_kind *k, uint64_t thread_id, uint64_t from_id,
    struct pfs_history *out, char *err, size_t errlen);

/*
 * What thread_id runs now, in *now (current_bytes not filled in):
 * PFS_NOT_FOUND when the thread is gone, *running false when it runs no
 * statement. One read of performance_schema.threads.
 */
enum pfs_status pfs_thread_statement(struct conn *c, uint64_t thread_id,
    bool *running, struct stmt_match *now, char *err, size_t errlen);

#endif
