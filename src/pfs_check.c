/*
 * The checks before sampling: that performance_schema and its memory
 * instruments are on, whether statements are recorded, which thread is
 * our own, when the server started, and that a target thread exists.
 * Ids are formatted from parsed integers; no user text is pasted into SQL.
 */
#include <inttypes.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "pfs_rows.h"
#include "pfs_sql.h"

/* Runs a query of one row of integers into *r; what names it in errors. */
static enum pfs_status
query_ints(struct conn *c, const char *sql, const char *what,
    struct pfs_ints *r, char *err, size_t errlen)
{
	enum conn_status st;

	memset(r, 0, sizeof(*r));
	st = conn_query(c, sql, pfs_ints_row, r, NULL, err, errlen);
	if (st != CONN_OK)
		return pfs_query_failed(st, what, err, err, errlen);
	return PFS_OK;
}

enum pfs_status
pfs_ping(struct conn *c, char *err, size_t errlen)
{
	enum conn_status st = conn_query(c, pfs_sql_ping, NULL, NULL, NULL,
	    err, errlen);

	return st == CONN_OK ? PFS_OK : pfs_query_failed(st,
	    "asking whether the server is there", err, err, errlen);
}

enum pfs_status
pfs_preflight(struct conn *c, struct pfs_preflight *out, char *err,
    size_t errlen)
{
	struct pfs_ints r;
	enum pfs_status ps;

	memset(out, 0, sizeof(*out));
	out->kind = pfs_server_kind_parse(conn_server_version(c));
	if (pfs_server_kind_check(&out->kind, err, errlen) != 0)
		return PFS_ERROR;
	out->sample_scans_threads = pfs_sql_sample_scans_threads(&out->kind);
	if ((ps = query_ints(c, pfs_sql_preflight,
	    "reading performance_schema", &r, err, errlen)) != PFS_OK)
		return ps;
	if (r.rows == 0 || r.v[0] == 0) {
		snprintf(err, errlen, "performance_schema is disabled on the "
		    "server; add performance_schema=ON and "
		    "performance-schema-instrument='memory/%%=ON' under "
		    "[mysqld] and restart it");
		return PFS_DISABLED;
	}
	out->total = (size_t)r.v[1];
	out->enabled = (size_t)r.v[2];
	out->own_thread = r.isnull[3] ? 0 : (uint64_t)r.v[3];
	out->server.boot_s = r.v[4];
	out->server.pid = r.isnull[5] || r.v[5] < 0 ? 0 : (uint64_t)r.v[5];
	if (out->enabled == 0) {
		snprintf(err, errlen, "the memory instruments are disabled; "
		    "enable them with %s (as an account with UPDATE on "
		    "performance_schema) or start the server with "
		    "performance-schema-instrument='memory/%%=ON'",
		    pfs_sql_enable_instruments);
		return PFS_NO_INSTRUMENTS;
	}
	return PFS_OK;
}

enum pfs_status
pfs_check_memory_instruments(struct conn *c, char *note, size_t notelen)
{
	struct pfs_ints r;
	enum pfs_status ps;
	int64_t total, off;

	if ((ps = query_ints(c, pfs_sql_memory_disabled,
	    "reading performance_schema.setup_instruments", &r, note,
	    notelen)) != PFS_OK)
		return ps;
	total = r.v[0];
	off = r.v[1];
	if (off <= 0)
		return PFS_OK;
	snprintf(note, notelen, "only %" PRId64 " of the %" PRId64 " memory "
	    "instruments are enabled: the memory of the other %" PRId64 " is "
	    "counted nowhere, so every total undercounts; enable them with %s",
	    total - off, total, off, pfs_sql_enable_instruments);
	return PFS_DISABLED;
}

enum pfs_status
pfs_global_total(struct conn *c, int64_t *bytes, char *err, size_t errlen)
{
	struct pfs_ints r;
	enum pfs_status ps;

	*bytes = 0;
	if ((ps = query_ints(c, pfs_sql_global_total,
	    "reading performance_schema.memory_summary_global_by_event_name",
	    &r, err, errlen)) != PFS_OK)
		return ps;
	*bytes = r.v[0];
	return PFS_OK;
}

/* One row of pfs_sql_memory_limits: a name and its value. */
static int
limit_row(void *ctx, unsigned ncols, char **v, const unsigned long *len)
{
	struct pfs_memory_limits *l = ctx;
	uint64_t u;

	(void)len;
	if (ncols < 2 || v[0] == NULL || v[1] == NULL)
		return -1;
	if (strcmp(v[0], "global_connection_memory_tracking") == 0) {
		l->tracking = strcmp(v[1], "ON") == 0 || strcmp(v[1], "1") == 0;
		return 0;
	}
	if (pfs_column_u64(v[1], &u) != 0)
		return -1;
	/* The default, the largest unsigned integer, is no limit. */
	if (strcmp(v[0], "connection_memory_limit") == 0)
		l->connection = u >= INT64_MAX ? 0 : (int64_t)u;
	else if (strcmp(v[0], "global_connection_memory_limit") == 0)
		l->global = u >= INT64_MAX ? 0 : (int64_t)u;
	return 0;
}

enum pfs_status
pfs_memory_limits(struct conn *c, const struct server_kind *k,
    struct pfs_memory_limits *out, char *err, size_t errlen)
{
	enum conn_status st;

	memset(out, 0, sizeof(*out));
	if (!pfs_sql_has_memory_limits(k))
		return PFS_OK;
	st = conn_query(c, pfs_sql_memory_limits, limit_row, out, NULL, err,
	    errlen);
	if (st != CONN_OK) {
		memset(out, 0, sizeof(*out));
		return pfs_query_failed(st, "reading connection_memory_limit "
		    "from performance_schema.global_variables", err, err,
		    errlen);
	}
	out->known = true;
	return PFS_OK;
}

enum pfs_status
pfs_server_memory(struct conn *c, const struct server_kind *k,
    int64_t *bytes, bool *known, char *err, size_t errlen)
{
	const char *sql = pfs_sql_server_memory(k);
	struct pfs_ints r;
	enum pfs_status ps;

	*bytes = 0;
	*known = false;
	if (sql == NULL)
		return PFS_OK;
	if ((ps = query_ints(c, sql, "reading performance_schema.global_status",
	    &r, err, errlen)) != PFS_OK)
		return ps;
	/* A stale value while MySQL does not count: unknown, not that. */
	if (r.rows > 0 && !r.isnull[0] && r.v[0] >= 0 && !r.isnull[1] &&
	    r.v[1] == 1) {
		*bytes = r.v[0];
		*known = true;
	}
	return PFS_OK;
}

enum pfs_status
pfs_own_count(struct conn *c, const struct server_kind *k,
    const struct pfs_thread_ids *t, struct pfs_own_count *out, char *err,
    size_t errlen)
{
	struct pfs_ints r = { 0 };
	struct conn_param param;
	enum conn_status st;
	uint64_t id;
	char sql[200];

	memset(out, 0, sizeof(*out));
	if (pfs_sql_own_count(sql, sizeof(sql), k, t->thread_id,
	    t->connection_id, &id) != 0)
		return PFS_NOT_FOUND;
	/* Each tick's: prepared once, then only executed. */
	param = (struct conn_param){ .i = (int64_t)id };
	st = conn_query_kept(c, sql, &param, 1, pfs_ints_values, &r, NULL, err,
	    errlen);
	if (st != CONN_OK)
		return pfs_query_failed(st, "reading the thread's own memory "
		    "count", err, err, errlen);
	out->known = r.rows > 0 && !r.isnull[0];
	out->bytes = out->known ? r.v[0] : 0;
	out->has_key = r.rows > 0 && !r.isnull[1];
	out->key = out->has_key ? r.v[1] : 0;
	return PFS_OK;
}

enum pfs_status
pfs_setup(struct conn *c, uint64_t thread_id, struct pfs_setup *out,
    char *err, size_t errlen)
{
	struct pfs_ints r;
	enum pfs_status ps;
	char sql[800];

	if (pfs_sql_setup(sql, sizeof(sql), thread_id) != 0) {
		snprintf(err, errlen, "internal error: the setup query does not "
		    "fit");
		return PFS_ERROR;
	}
	if ((ps = query_ints(c, sql, "reading the setup of performance_schema",
	    &r, err, errlen)) != PFS_OK)
		return ps;
	out->memory_enabled = r.v[0] < 0 ? 0 : (size_t)r.v[0];
	out->statements = r.v[1] == 3;
	out->instrumented = thread_id == 0 || r.isnull[2] ? -1 : r.v[2] != 0;
	return PFS_OK;
}

/* The names of the consumers given back, comma-separated, in a buffer. */
struct names {
	char buf[256];
	size_t len;
};

static int
names_row(void *ctx, unsigned ncols, char **v, const unsigned long *len)
{
	struct names *n = ctx;

	(void)len;
	if (ncols < 1 || v[0] == NULL)
		return 0;
	n->len += (size_t)snprintf(n->buf + n->len, sizeof(n->buf) - n->len,
	    "%s%s", n->len > 0 ? ", " : "", v[0]);
	if (n->len >= sizeof(n->buf))
		n->len = sizeof(n->buf) - 1;
	return 0;
}

enum pfs_status
pfs_check_statements(struct conn *c, char *note, size_t notelen)
{
	struct names off = { .len = 0 };
	enum conn_status st;

	note[0] = '\0';
	st = conn_query(c, pfs_sql_consumers_off, names_row, &off, NULL, note,
	    notelen);
	if (st != CONN_OK)
		return pfs_query_failed(st, "reading "
		    "performance_schema.setup_consumers", note, note, notelen);
	if (off.len == 0)
		return PFS_OK;
	snprintf(note, notelen, "the performance_schema consumers %s are "
	    "disabled, so samples carry no statement id or digest, only the "
	    "text of a running statement; enable them with UPDATE "
	    "performance_schema.setup_consumers SET ENABLED = 'YES' WHERE NAME "
	    "IN ('global_instrumentation', 'thread_instrumentation', "
	    "'events_statements_current') or start the server with "
	    "performance-schema-consumer-events-statements-current=ON",
	    off.buf);
	return PFS_DISABLED;
}

enum pfs_status
pfs_find_thread(struct conn *c, enum pfs_thread_key key, uint64_t id,
    uint64_t *thread_id, uint64_t *connection_id, char *err, size_t errlen)
{
	bool by_connection = key == PFS_BY_CONNECTION;
	struct pfs_ints r;
	char sql[200];
	enum pfs_status ps;
	uint64_t tid;

	pfs_sql_find_thread(sql, sizeof(sql), by_connection, id);
	if ((ps = query_ints(c, sql, by_connection ? "looking up the "
	    "connection" : "looking up the thread", &r, err, errlen)) != PFS_OK)
		return ps;
	if (r.rows == 0 && by_connection) {
		snprintf(err, errlen, "no connection %" PRIu64 " on the server; "
		    "see mysqlmemprof --list for the connections", id);
		return PFS_NOT_FOUND;
	}
	if (r.rows == 0) {
		snprintf(err, errlen, "no thread %" PRIu64 " in "
		    "performance_schema.threads; see mysqlmemprof --list for "
		    "the threads", id);
		return PFS_NOT_FOUND;
	}
	tid = (uint64_t)r.v[0];
	if (thread_id != NULL)
		*thread_id = tid;
	/* A background thread has no connection: its PROCESSLIST_ID is NULL. */
	if (connection_id != NULL)
		*connection_id = r.isnull[1] ? 0 : (uint64_t)r.v[1];
	if (r.v[2] == 0) {
		snprintf(err, errlen, "thread %" PRIu64 " is not instrumented; "
		    "enable it with UPDATE performance_schema.threads SET "
		    "INSTRUMENTED = 'YES' WHERE THREAD_ID = %" PRIu64 " or check "
		    "performance_schema.setup_actors", tid, tid);
		return PFS_NOT_ALLOWED;
	}
	return PFS_OK;
}

/* The one row of pfs_sql_memory_instruments. */
static int
instruments_row(void *ctx, unsigned ncols, char **v, const unsigned long *len)
{
	struct counted_layers *l = ctx;
	uint64_t n, off;

	if (ncols < 3 || pfs_column_u64(v[0], &n) != 0 ||
	    pfs_column_u64(v[1], &off) != 0)
		return -1;
	l->instruments = (size_t)n;
	l->instruments_off = (size_t)off;
	pfs_copy_column(l->off_families, sizeof(l->off_families), v[2], len[2]);
	return 0;
}

enum pfs_status
pfs_counted_layers(struct conn *c, struct counted_layers *out, char *err,
    size_t errlen)
{
	struct pfs_ints r;
	enum conn_status st;
	enum pfs_status ps;

	memset(out, 0, sizeof(*out));
	if ((ps = query_ints(c, pfs_sql_counted_layers,
	    "summing performance_schema's memory by family", &r, err,
	    errlen)) != PFS_OK)
		return ps;
	out->buffer_pool = r.v[0];
	out->innodb_rest = r.v[1];
	out->pfs_own = r.v[2];
	out->temp_tables = r.v[3];
	out->rest = r.v[4];
	out->total = r.v[5];
	/* Apart, after: its GROUP_CONCAT(DISTINCT) makes a temporary table. */
	st = conn_query(c, pfs_sql_memory_instruments, instruments_row, out,
	    NULL, err, errlen);
	if (st != CONN_OK)
		return pfs_query_failed(st, "reading the memory instruments",
		    err, err, errlen);
	return PFS_OK;
}

/* Each row of pfs_sql_estimate(): a variable's name and value. */
static int
estimate_row(void *ctx, unsigned ncols, char **v, const unsigned long *len)
{
	(void)len;
	/* A value not a number (none is, on 10.11 or 9.7) counts as lacking. */
	if (ncols >= 2 && v[0] != NULL)
		(void)estimate_set(ctx, v[0], v[1]);
	return 0;
}

enum pfs_status
pfs_estimate(struct conn *c, const struct server_kind *k,
    struct estimate *out, char *err, size_t errlen)
{
	enum conn_status st;
	char sql[1024];

	estimate_clear(out);
	if (pfs_sql_estimate(sql, sizeof(sql), k) != 0) {
		snprintf(err, errlen, "internal error: the variables' query "
		    "does not fit");
		return PFS_ERROR;
	}
	st = conn_query(c, sql, estimate_row, out, NULL, err, errlen);
	if (st != CONN_OK) {
		estimate_clear(out);
		return pfs_query_failed(st, "reading the global variables", err,
		    err, errlen);
	}
	estimate_sum(out);
	return PFS_OK;
}
