/*
 * The layers of --explain (layers.h): MySQLTuner's estimate summed from
 * the variables as each server gives them, and the session's three ops as
 * the fake server answers them, as pfs.h documents the real one does.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <setjmp.h>
#include <cmocka.h>

#include "fake_server.h"
#include "layers.h"


/* MariaDB 10.11.19's sandbox, as information_schema.GLOBAL_VARIABLES gives them. */
static const char *const mariadb_vars[] = {
	"MAX_HEAP_TABLE_SIZE", "16777216", "MAX_CONNECTIONS", "100",
	"KEY_BUFFER_SIZE", "134217728", "JOIN_BUFFER_SIZE", "262144",
	"SORT_BUFFER_SIZE", "2097152", "QUERY_CACHE_SIZE", "1048576",
	"READ_BUFFER_SIZE", "131072", "TMP_TABLE_SIZE", "16777216",
	"INNODB_LOG_BUFFER_SIZE", "16777216", "BINLOG_CACHE_SIZE", "32768",
	"ARIA_PAGECACHE_BUFFER_SIZE", "134217728", "THREAD_STACK", "299008",
	"INNODB_BUFFER_POOL_SIZE", "67108864", "READ_RND_BUFFER_SIZE", "262144",
	NULL,
};

/* MySQL 9.7.4's, from performance_schema.global_variables. */
static const char *const mysql_vars[] = {
	"binlog_cache_size", "32768", "innodb_buffer_pool_size", "67108864",
	"innodb_log_buffer_size", "67108864", "join_buffer_size", "262144",
	"key_buffer_size", "8388608", "max_connections", "100",
	"max_heap_table_size", "16777216", "read_buffer_size", "131072",
	"read_rnd_buffer_size", "262144", "sort_buffer_size", "262144",
	"thread_stack", "1048576", "tmp_table_size", "33554432",
	NULL,
};

static void
set_all(struct estimate *e, const char *const *vars)
{
	estimate_clear(e);
	for (size_t i = 0; vars[i] != NULL; i += 2)
		assert_int_equal(estimate_set(e, vars[i], vars[i + 1]), 0);
	estimate_sum(e);
}

static void
test_estimate_mariadb(void **state)
{
	struct estimate e;

	(void)state;
	set_all(&e, mariadb_vars);
	/* key + min(tmp, heap) + pool + log + query cache + Aria. */
	assert_int_equal(e.global_buffers, 134217728 + 16777216 + 67108864 +
	    16777216 + 1048576 + 134217728);
	/* read + read_rnd + sort + stack + join + binlog cache. */
	assert_int_equal(e.per_connection, 131072 + 262144 + 2097152 + 299008 +
	    262144 + 32768);
	assert_int_equal(e.max_connections, 100);
	assert_int_equal(e.total, e.global_buffers + 100 * e.per_connection);
	assert_string_equal(e.lacks, "innodb_additional_mem_pool_size");
	assert_non_null(strstr(e.vars, "query_cache_size"));
	assert_non_null(strstr(e.vars, "aria_pagecache_buffer_size"));
}

static void
test_estimate_mysql(void **state)
{
	struct estimate e;

	(void)state;
	set_all(&e, mysql_vars);
	/* tmp_table_size 32 MiB over max_heap_table_size 16: the lesser. */
	assert_int_equal(e.global_buffers, 8388608 + 16777216 + 67108864 +
	    67108864);
	assert_int_equal(e.per_connection, 131072 + 262144 + 262144 + 1048576 +
	    262144 + 32768);
	assert_int_equal(e.total, e.global_buffers + 100 * e.per_connection);
	assert_string_equal(e.lacks, "innodb_additional_mem_pool_size, "
	    "query_cache_size, aria_pagecache_buffer_size");
}

static void
test_estimate_bad(void **state)
{
	struct estimate e;

	(void)state;
	estimate_clear(&e);
	assert_int_equal(estimate_set(&e, "no_such_size", "1"), -1);
	assert_int_equal(estimate_set(&e, "sort_buffer_size", "1M"), -1);
	assert_int_equal(estimate_set(&e, "sort_buffer_size", "-1"), -1);
	assert_int_equal(estimate_set(&e, "sort_buffer_size", ""), -1);
	assert_int_equal(estimate_set(&e, "sort_buffer_size", NULL), -1);
	/* Nothing read: nothing summed, every variable lacking. */
	estimate_sum(&e);
	assert_int_equal(e.total, 0);
	assert_string_equal(e.vars, "");
	assert_non_null(strstr(e.lacks, "max_connections"));
	/* A size at its largest holds the sums at INT64_MAX, not past it. */
	assert_int_equal(estimate_set(&e, "key_buffer_size",
	    "18446744073709551615"), 0);
	assert_int_equal(estimate_set(&e, "innodb_buffer_pool_size",
	    "9223372036854775807"), 0);
	assert_int_equal(estimate_set(&e, "join_buffer_size",
	    "4611686018427387904"), 0);
	assert_int_equal(estimate_set(&e, "max_connections", "100000"), 0);
	estimate_sum(&e);
	assert_int_equal(e.global_buffers, INT64_MAX);
	assert_int_equal(e.total, INT64_MAX);
}

static int
setup(void **state)
{
	static struct fake_server srv;

	(void)state;
	memset(&srv, 0, sizeof(srv));
	srv.next_own = 7;
	fake = &srv;
	return 0;
}

/* The three ops through a session, as --explain will ask them. */
static void
test_ops(void **state)
{
	struct session s;
	struct counted_layers l;
	struct estimate e;
	struct measured_connections m;
	char err[256];

	(void)state;
	fake_session(fake, &s);
	fake->layers = (struct counted_layers){ .buffer_pool = 64, .rest = 1,
	    .total = 65, .instruments = 268, .instruments_off = 98,
	    .off_families = "csv, sql" };
	memcpy(fake->vars, mariadb_vars, sizeof(mariadb_vars));
	fake->measured = (struct measured_connections){ .connections = 2,
	    .sum_bytes = 70 << 20, .largest_bytes = 67 << 20,
	    .sum_peaks = 140 << 20, .largest_peak = 68 << 20,
	    .largest_statement_peak = -1 };

	assert_int_equal(s.ops->counted_layers(s.conn, &l, err, sizeof(err)),
	    PFS_OK);
	assert_string_equal(l.off_families, "csv, sql");
	assert_int_equal(l.instruments_off, 98);
	assert_int_equal(s.ops->estimate(s.conn, &s.kind, &e, err,
	    sizeof(err)), PFS_OK);
	assert_int_equal(e.total, 678576128);
	/* The first read learns the way, and the session keeps it. */
	assert_int_equal(s.ops->measured_connections(s.conn, &s.kind,
	    &s.conns_way, &m, err, sizeof(err)), PFS_OK);
	assert_int_equal(s.conns_way, CONNS_PROCESSLIST);
	assert_int_equal(m.largest_peak, 68 << 20);
	assert_false(m.no_process);
	assert_int_equal(s.ops->measured_connections(s.conn, &s.kind,
	    &s.conns_way, &m, err, sizeof(err)), PFS_OK);
	assert_int_equal(fake->process_checks, 1);
	s.ops->close(s.conn);
}

/* Without PROCESS: the figures now, no peaks, and the flag that says why. */
static void
test_no_process(void **state)
{
	struct session s;
	struct measured_connections m;
	char err[256];

	(void)state;
	fake_session(fake, &s);
	fake->no_process = 1;
	fake->measured = (struct measured_connections){ .connections = 2,
	    .sum_bytes = 70 << 20, .largest_bytes = 67 << 20,
	    .sum_peaks = 140 << 20, .largest_peak = 68 << 20,
	    .largest_statement_peak = -1 };
	assert_int_equal(s.ops->measured_connections(s.conn, &s.kind,
	    &s.conns_way, &m, err, sizeof(err)), PFS_OK);
	assert_int_equal(s.conns_way, CONNS_NO_PROCESS);
	assert_true(m.no_process);
	assert_int_equal(m.sum_bytes, 70 << 20);
	assert_int_equal(m.sum_peaks, -1);
	assert_int_equal(m.largest_peak, -1);
	/* A lost connection: the status, and nothing half read. */
	fake->layers_status = PFS_LOST;
	assert_int_equal(s.ops->measured_connections(s.conn, &s.kind,
	    &s.conns_way, &m, err, sizeof(err)), PFS_LOST);
	assert_int_equal(m.connections, 0);
	s.ops->close(s.conn);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_estimate_mariadb),
		cmocka_unit_test(test_estimate_mysql),
		cmocka_unit_test(test_estimate_bad),
		cmocka_unit_test_setup(test_ops, setup),
		cmocka_unit_test_setup(test_no_process, setup),
	};
	return cmocka_run_group_tests_name("layers", tests, NULL, NULL);
}
