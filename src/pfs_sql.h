/*
 * The text of every statement mysqlmemprof sends, and which servers it is
 * meant for. The pfs_*.c files send it; tests/unit/test_sql_columns.c
 * checks it against each server's table definitions without a server, so
 * the SQL lives here, apart from the code that needs <mysql.h>.
 * doc/queries.md lists the queries and the sources they were checked on.
 */
#ifndef MYSQLMEMPROF_PFS_SQL_H
#define MYSQLMEMPROF_PFS_SQL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "pfs.h"

/*
 * Reads what made the server from its version string, such as
 * "10.11.6-MariaDB-0+deb12u1", "5.5.5-10.4.32-MariaDB" (what MariaDB
 * before 11.0 gives Oracle's libmysqlclient) or "8.0.36-0ubuntu0.22.04.1".
 */
struct server_kind pfs_server_kind_parse(const char *version);

/*
 * 0 when the server has the tables the SQL below reads; -1 with a
 * sentence in err when it is too old to: MariaDB before 10.5 and MySQL
 * before 5.7 have no memory_summary_* tables. An unknown kind passes.
 */
int pfs_server_kind_check(const struct server_kind *k, char *err, size_t errlen);

/* The statements sent as they are. */
extern const char pfs_sql_preflight[];
extern const char pfs_sql_memory_disabled[];
extern const char pfs_sql_ping[];
extern const char pfs_sql_global_total[];
extern const char pfs_sql_enable_instruments[]; /* shown, never sent */
extern const char pfs_sql_consumers_off[];
/*
 * performance_schema's memory by family (layers.h): buffer pool, the rest
 * of InnoDB, its own, temporary tables, the rest, the total; and its
 * memory instruments: how many, how many off, the families of those off.
 */
extern const char pfs_sql_counted_layers[];
extern const char pfs_sql_memory_instruments[];
/* The limits of connections' memory: only where pfs_sql_has_memory_limits(). */
extern const char pfs_sql_memory_limits[];
/* --list: the way for a server of kind k (see enum find_memory). */
extern const char pfs_sql_list_threads_summed[];
extern const char pfs_sql_list_threads_kept[];
const char *pfs_sql_list_threads(const struct server_kind *k);

/*
 * The statements made from parts: each writes one into buf and returns 0,
 * or -1 when it does not fit. Ids are integers; text a user gave goes as
 * the parameters (`?`) named in the comment.
 */
int pfs_sql_find_thread(char *buf, size_t size, bool by_connection,
    uint64_t id);
/* How a look reads a thread's memory: each server its own way. */
enum find_memory {
	FIND_SUMMED,  /* one GROUP BY of every thread's memory rows (MariaDB) */
	FIND_INDEXED, /* a sum per thread, by its key (MySQL before 8.0.31) */
	FIND_THREADS, /* threads.TOTAL_MEMORY, kept by the server (MySQL 8.0.31+) */
};
/* The way for a server of kind k, and whether it keeps sessions' peaks. */
enum find_memory pfs_sql_find_memory(const struct server_kind *k);
bool pfs_sql_keeps_peaks(const struct server_kind *k);
/* The server's own count of its sessions' memory; NULL where it keeps none. */
const char *pfs_sql_server_memory(const struct server_kind *k);
/*
 * Whether a sample's read scans every thread's rows, so that its cost
 * grows with the threads connected: MariaDB's; MySQL reads them by key.
 */
bool pfs_sql_sample_scans_threads(const struct server_kind *k);
/*
 * The query of the server's own count of a thread's memory and a key of
 * its statement (NULL where none), into buf, and the id its one parameter
 * takes into *param: 0, or -1 where the server keeps no count (MySQL
 * before 8.0.31; MariaDB without a connection id).
 */
int pfs_sql_own_count(char *buf, size_t size, const struct server_kind *k,
    uint64_t thread_id, uint64_t connection_id, uint64_t *param);
/* Whether it has connection_memory_limit and its kin: MySQL 8.0.28+. */
bool pfs_sql_has_memory_limits(const struct server_kind *k);
/*
 * Whether it keeps each statement's peak (events_statements_history's
 * MAX_TOTAL_MEMORY): MySQL 8.0.31 and later; pfs_sql_thread_history().
 */
bool pfs_sql_keeps_statement_peaks(const struct server_kind *k);
/*
 * What a look's placeholder stands for. The text names each (?seconds)
 * where it is written, and its builder hands back their order with the
 * plain text, so the parameters are bound in the order of the text
 * whatever parts it was made of.
 */
enum sql_arg {
	SQL_OWN_THREAD, /* our own thread, never a candidate */
	SQL_SECONDS,    /* the least seconds a statement has run */
	SQL_PATTERN,    /* LIKE's pattern of its text */
	SQL_USER, SQL_DB,
	SQL_BYTES,      /* the size a session must hold */
	SQL_PEAK,       /* the size its peak must reach */
	SQL_IDLE_BYTES, /* the size an idle session must hold */
	SQL_ARG_KINDS
};
#define SQL_ARGS_MAX 12
struct sql_args {
	enum sql_arg v[SQL_ARGS_MAX]; /* the text's placeholders in order */
	unsigned n;
};

/* What pfs_sql_find_statements() asks for. */
struct find_sql {
	bool pattern, user, db, bytes; /* the filters given: one parameter each */
	enum find_memory memory;
	bool completed; /* count the thread's ended statements; else 0 */
	/*
	 * Each session's peak too, and a candidate flag: the rows are the
	 * candidates and every other session whose peak reaches a size. Not
	 * with bytes; only where pfs_sql_keeps_peaks().
	 */
	bool peaks;
	/*
	 * A flag too for the sessions that run no statement, and those of
	 * them that hold a size listed: not with bytes nor a pattern.
	 */
	bool idle;
};
/*
 * The columns: STMT_COLUMNS, the bytes; with peaks, the peak and whether
 * the row is a candidate; with idle, whether the row is a candidate (if
 * not said already) and whether it is idle. The parameters: *args.
 */
int pfs_sql_find_statements(char *buf, size_t size, const struct find_sql *q,
    struct sql_args *args);
int pfs_sql_thread_statement(char *buf, size_t size, uint64_t thread_id);
/*
 * The top-level statements in events_statements_history that passed a
 * size, of the sessions whose peak (threads.MAX_TOTAL_MEMORY) passed it:
 * only where pfs_sql_keeps_statement_peaks(). The columns: thread,
 * connection, EVENT_ID, TIMER_WAIT, the statement's peak, the session's
 * TOTAL_MEMORY, the digest of stmt_row(), user, schema, the text; in no
 * order. The parameters: *args (the size twice; seconds, pattern, user,
 * db each when asked).
 */
int pfs_sql_finished_over(char *buf, size_t size, bool seconds,
    bool pattern, bool user, bool db, struct sql_args *args);
/*
 * Parameter: the thread id. statements: join events_statements_current
 * for the id and digest.
 */
int pfs_sql_thread_memory(char *buf, size_t size, bool statements,
    int text_chars);
/*
 * The top-level statements a thread finished, from an EVENT_ID on, at
 * most limit, with each one's peak: only where
 * pfs_sql_keeps_statement_peaks(). Parameters: the thread, the thread,
 * the first EVENT_ID.
 */
int pfs_sql_thread_history(char *buf, size_t size, int text_chars,
    int limit);
/* Parameters: user, host, as the grain has them. */
int pfs_sql_grain_memory(char *buf, size_t size, enum pfs_grain grain);
int pfs_sql_grain_rows(char *buf, size_t size, enum pfs_grain grain);
/* The setup of performance_schema now, and thread_id's INSTRUMENTED. */
int pfs_sql_setup(char *buf, size_t size, uint64_t thread_id);
/* The limit threads with the most memory, with user, host and digest. */
int pfs_sql_top_threads(char *buf, size_t size, size_t limit);
/* The most threads pfs_sql_threads_memory() takes: HISTORY_THREADS. */
#define HISTORY_SQL_IDS 8
/* The memory rows and statements of the n threads of ids (1 to HISTORY_SQL_IDS). */
int pfs_sql_threads_memory(char *buf, size_t size, const uint64_t *ids,
    size_t n, bool statements, int text_chars);
/*
 * Every client connection but ours (conns.h): the way for a server of
 * kind k (MariaDB's needs PROCESS: CONNS_PROCESSLIST until asked), and
 * the text of a way. Columns: connection, thread (0: none), user, host,
 * db, command, the ms its command has run, bytes, peak (NULL: none),
 * whether a statement runs, digest (NULL: none), the text's start.
 */
extern const char pfs_sql_connections_threads[];
extern const char pfs_sql_connections_summed[];
extern const char pfs_sql_connections_processlist[];
extern const char pfs_sql_connections_no_process[];
enum conns_way pfs_sql_conns_way(const struct server_kind *k);
const char *pfs_sql_connections(enum conns_way way);
/* MariaDB: 1 when our account holds PROCESS, else 0. */
extern const char pfs_sql_process_privilege[];
/*
 * The layers of --explain (layers.h). MySQLTuner's variables, by name and
 * value, from the table of the server of kind k: 0, or -1 when it does
 * not fit.
 */
int pfs_sql_estimate(char *buf, size_t size, const struct server_kind *k);
/*
 * The connections' memory summed, the way of enum conns_way (as
 * pfs_sql_connections()): count, sum and largest now, sum and largest
 * peak, the largest statement's peak and its digest's text (NULL: none).
 */
const char *pfs_sql_measured_connections(enum conns_way way);
/* The summary table of a grain, for messages. */
const char *pfs_sql_grain_table(enum pfs_grain grain);

#endif
