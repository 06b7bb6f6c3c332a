/*
 * MySQLTuner's estimate of a server's largest memory, from its global
 * variables: the formula as one table, summed. The queries that read the
 * variables and the other layers are pfs_layers.c's.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "layers.h"

/*
 * mysqltuner.pl 2.8.36, calculations(): per_thread_buffers, server_buffers
 * and max_peak_memory, each variable counted only where the server has it.
 * innodb_additional_mem_pool_size went with MySQL 5.7 and MariaDB 10.2;
 * query_cache_size with MySQL 8.0, and aria_pagecache_buffer_size is
 * MariaDB's: each kept, so that a server that has one counts it.
 */
const struct estimate_var estimate_vars[] = {
	{ "key_buffer_size", EST_GLOBAL },
	{ "tmp_table_size", EST_TMP_TABLE },
	{ "max_heap_table_size", EST_TMP_TABLE },
	{ "innodb_buffer_pool_size", EST_GLOBAL },
	{ "innodb_additional_mem_pool_size", EST_GLOBAL },
	{ "innodb_log_buffer_size", EST_GLOBAL },
	{ "query_cache_size", EST_GLOBAL },
	{ "aria_pagecache_buffer_size", EST_GLOBAL },
	{ "read_buffer_size", EST_PER_CONNECTION },
	{ "read_rnd_buffer_size", EST_PER_CONNECTION },
	{ "sort_buffer_size", EST_PER_CONNECTION },
	{ "thread_stack", EST_PER_CONNECTION },
	{ "join_buffer_size", EST_PER_CONNECTION },
	{ "binlog_cache_size", EST_PER_CONNECTION },
	{ "max_connections", EST_MAX_CONNECTIONS },
	{ NULL, EST_GLOBAL },
};

_Static_assert(sizeof(estimate_vars) / sizeof(estimate_vars[0]) <=
    ESTIMATE_VARS + 1, "struct estimate holds every variable's value");

void
estimate_clear(struct estimate *e)
{
	memset(e, 0, sizeof(*e));
	for (size_t i = 0; i < ESTIMATE_VARS; i++)
		e->value[i] = -1;
}

int
estimate_set(struct estimate *e, const char *name, const char *value)
{
	unsigned long long v;
	char *end;

	for (size_t i = 0; estimate_vars[i].name != NULL; i++) {
		if (strcasecmp(estimate_vars[i].name, name) != 0)
			continue;
		if (value == NULL || *value < '0' || *value > '9')
			return -1;
		/* A size at its largest (18446744073709551615) is held at INT64_MAX. */
		errno = 0;
		v = strtoull(value, &end, 10);
		if (*end != '\0')
			return -1;
		e->value[i] = errno == ERANGE || v > INT64_MAX ? INT64_MAX :
		    (int64_t)v;
		return 0;
	}
	return -1;
}

/* Appends name to list, ", " after the first; cut to fit. */
static void
list_add(char *list, size_t size, const char *name)
{
	size_t len = strlen(list);

	if (len < size)
		snprintf(list + len, size - len, "%s%s", len > 0 ? ", " : "",
		    name);
}

/* a + b, held at INT64_MAX: variables set to their largest add up past it. */
static int64_t
add_capped(int64_t a, int64_t b)
{
	return a > INT64_MAX - b ? INT64_MAX : a + b;
}

void
estimate_sum(struct estimate *e)
{
	int64_t tmp = -1;

	e->global_buffers = e->per_connection = e->total = 0;
	e->max_connections = 0;
	e->vars[0] = e->lacks[0] = '\0';
	for (size_t i = 0; estimate_vars[i].name != NULL; i++) {
		int64_t v = e->value[i];

		if (v < 0) {
			list_add(e->lacks, sizeof(e->lacks), estimate_vars[i].name);
			continue;
		}
		list_add(e->vars, sizeof(e->vars), estimate_vars[i].name);
		switch (estimate_vars[i].role) {
		case EST_GLOBAL:
			e->global_buffers = add_capped(e->global_buffers, v);
			break;
		case EST_TMP_TABLE:
			tmp = tmp < 0 || v < tmp ? v : tmp;
			break;
		case EST_PER_CONNECTION:
			e->per_connection = add_capped(e->per_connection, v);
			break;
		case EST_MAX_CONNECTIONS:
			e->max_connections = (uint64_t)v;
			break;
		}
	}
	if (tmp > 0)
		e->global_buffers = add_capped(e->global_buffers, tmp);
	if (e->max_connections > 0 && e->per_connection >
	    INT64_MAX / (int64_t)e->max_connections)
		e->total = INT64_MAX;
	else
		e->total = add_capped(e->global_buffers,
		    (int64_t)e->max_connections * e->per_connection);
}
