/*
 * The server's side of --explain's layers (issue 27): what performance_schema
 * counts, by family; MySQLTuner's estimate from the global variables; and
 * the connections' memory as the server measures it. The session's ops
 * counted_layers, estimate and measured_connections fill them (pfs.h);
 * this module only holds the structs and the estimate's formula, so that
 * the formula is one table, and needs nothing above it.
 */
#ifndef MYSQLMEMPROF_LAYERS_H
#define MYSQLMEMPROF_LAYERS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* performance_schema's memory now, by family, and its instruments. */
struct counted_layers {
	int64_t buffer_pool;  /* memory/innodb/buf_buf_pool */
	int64_t innodb_rest;  /* memory/innodb/% else */
	int64_t pfs_own;      /* memory/performance_schema/%: always counted */
	/*
	 * memory/temptable/% (MySQL's internal temporary tables) and
	 * memory/memory/% (the MEMORY engine, HEAP: MariaDB's internal
	 * temporary tables, and MEMORY tables on both).
	 */
	int64_t temp_tables;
	int64_t rest;         /* the rest */
	int64_t total;        /* the five above, summed by the server */
	size_t instruments;   /* memory/% in setup_instruments */
	size_t instruments_off; /* of those, ENABLED <> 'YES' */
	/*
	 * The families (memory/FAMILY/...) with an instrument off, in name
	 * order, ", " between them, e.g. "innodb, sql"; "" when none.
	 */
	char off_families[512];
};

/*
 * MySQLTuner's "maximum possible memory" (mysqltuner.pl 2.8's
 * calculations(): max_peak_memory less performance_schema's own memory,
 * which counted_layers.pfs_own measures): the global buffers, and the
 * per-thread buffers times max_connections, from the global variables.
 * A variable the server lacks counts 0, as MySQLTuner counts it.
 */
/* The most variables the formula reads (estimate_vars[]). */
#define ESTIMATE_VARS 16

struct estimate {
	/*
	 * key_buffer_size + min(tmp_table_size, max_heap_table_size) +
	 * innodb_buffer_pool_size + innodb_additional_mem_pool_size +
	 * innodb_log_buffer_size + query_cache_size +
	 * aria_pagecache_buffer_size
	 */
	int64_t global_buffers;
	/*
	 * read_buffer_size + read_rnd_buffer_size + sort_buffer_size +
	 * thread_stack + join_buffer_size + binlog_cache_size
	 */
	int64_t per_connection;
	uint64_t max_connections;
	int64_t total;        /* global_buffers + max_connections * per_connection */
	char vars[512];       /* the variables the server has, ", " between */
	char lacks[512];      /* those of the formula it lacks; "" when none */
	/* Each variable's value as read, -1: not read; in estimate_vars[] order. */
	int64_t value[ESTIMATE_VARS];
};

/* What a variable is to the formula. */
enum estimate_role {
	EST_GLOBAL,          /* one of the global buffers */
	EST_TMP_TABLE,       /* the lesser of the two counts as a global buffer */
	EST_PER_CONNECTION,  /* a buffer each connection may take */
	EST_MAX_CONNECTIONS,
};

struct estimate_var {
	const char *name;    /* as the server names it, in lower case */
	enum estimate_role role;
};

/* The formula: every variable it reads, with its role; NULL-named at the end. */
extern const struct estimate_var estimate_vars[];

/* Forgets every value: then estimate_set() each one read, then estimate_sum(). */
void estimate_clear(struct estimate *e);
/*
 * Takes the value of the variable named name (any case); returns -1 for a
 * name not in the formula, or a value not a whole number of bytes.
 */
int estimate_set(struct estimate *e, const char *name, const char *value);
/* Sums the formula over the values set, and fills vars and lacks. */
void estimate_sum(struct estimate *e);

/* The connections' memory as the server keeps it: all but ours. */
struct measured_connections {
	uint64_t connections;
	int64_t sum_bytes, largest_bytes; /* now */
	/*
	 * The sum and the largest of each connection's peak: MySQL 8.0.31+'s
	 * threads.MAX_TOTAL_MEMORY, MariaDB's PROCESSLIST.MAX_MEMORY_USED;
	 * -1 where the server keeps none (older MySQL) or we cannot read them
	 * (no_process).
	 */
	int64_t sum_peaks, largest_peak;
	/*
	 * MariaDB, an account without PROCESS: PROCESSLIST would show only its
	 * own sessions, so every connection's memory is summed from
	 * performance_schema instead, and no peak is had. GRANT PROCESS
	 * gives them.
	 */
	bool no_process;
	/*
	 * The largest peak of any statement the server ran since its start
	 * (or the summary's truncation), with its digest's text: MySQL
	 * 8.0.31+'s events_statements_summary_by_digest.MAX_TOTAL_MEMORY;
	 * -1 and "" elsewhere.
	 */
	int64_t largest_statement_peak;
	char largest_statement[256];
};

#endif
