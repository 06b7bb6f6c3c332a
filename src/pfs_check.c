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

static const char enable_instruments[] =
    "UPDATE performance_schema.setup_instruments SET ENABLED = 'YES' "
    "WHERE NAME LIKE 'memory/%'";

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
pfs_preflight(struct conn *c, size_t *enabled, size_t *total, char *err,
    size_t errlen)
{
	struct pfs_ints r;
	enum pfs_status ps;

	*enabled = *total = 0;
	if ((ps = query_ints(c, "SELECT @@performance_schema",
	    "checking performance_schema", &r, err, errlen)) != PFS_OK)
		return ps;
	if (r.rows == 0 || r.v[0] == 0) {
		snprintf(err, errlen, "performance_schema is disabled on the "
		    "server; add performance_schema=ON and "
		    "performance-schema-instrument='memory/%%=ON' under "
		    "[mysqld] and restart it");
		return PFS_DISABLED;
	}
	/*
	 * MySQL always counts its own memory/performance_schema/ events, so
	 * they do not show that memory instrumentation is on.
	 */
	if ((ps = query_ints(c, "SELECT COUNT(*), COALESCE(SUM(ENABLED = 'YES' "
	    "AND NAME NOT LIKE 'memory/performance\\_schema/%'), 0) "
	    "FROM performance_schema.setup_instruments "
	    "WHERE NAME LIKE 'memory/%'",
	    "reading performance_schema.setup_instruments", &r, err,
	    errlen)) != PFS_OK)
		return ps;
	*total = (size_t)r.v[0];
	*enabled = (size_t)r.v[1];
	if (*enabled == 0) {
		snprintf(err, errlen, "the memory instruments are disabled; "
		    "enable them with %s (as an account with UPDATE on "
		    "performance_schema) or start the server with "
		    "performance-schema-instrument='memory/%%=ON'",
		    enable_instruments);
		return PFS_NO_INSTRUMENTS;
	}
	return PFS_OK;
}

enum pfs_status
pfs_setup(struct conn *c, uint64_t thread_id, struct pfs_setup *out,
    char *err, size_t errlen)
{
	struct pfs_ints r;
	enum pfs_status ps;
	char sql[800];

	/* The counts of pfs_preflight() and pfs_check_statements(), at once. */
	snprintf(sql, sizeof(sql), "SELECT "
	    "(SELECT COALESCE(SUM(ENABLED = 'YES' AND NAME NOT LIKE "
	    "'memory/performance\\_schema/%%'), 0) "
	    "FROM performance_schema.setup_instruments "
	    "WHERE NAME LIKE 'memory/%%'), "
	    "(SELECT COUNT(*) FROM performance_schema.setup_consumers "
	    "WHERE NAME IN ('global_instrumentation', 'thread_instrumentation', "
	    "'events_statements_current') AND ENABLED = 'YES'), "
	    "(SELECT INSTRUMENTED = 'YES' FROM performance_schema.threads "
	    "WHERE THREAD_ID = %" PRIu64 ")", thread_id);
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
	/* A consumer records only when those above it are enabled too. */
	st = conn_query(c, "SELECT NAME "
	    "FROM performance_schema.setup_consumers WHERE NAME IN "
	    "('global_instrumentation', 'thread_instrumentation', "
	    "'events_statements_current') AND ENABLED <> 'YES' ORDER BY NAME",
	    names_row, &off, NULL, note, notelen);
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
pfs_own_thread(struct conn *c, uint64_t *thread_id, char *err, size_t errlen)
{
	struct pfs_ints r;
	enum pfs_status ps;

	if ((ps = query_ints(c, "SELECT THREAD_ID FROM performance_schema.threads "
	    "WHERE PROCESSLIST_ID = CONNECTION_ID()", "finding our own thread",
	    &r, err, errlen)) != PFS_OK)
		return ps;
	*thread_id = r.rows > 0 ? (uint64_t)r.v[0] : 0;
	return PFS_OK;
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

	snprintf(sql, sizeof(sql), "SELECT THREAD_ID, PROCESSLIST_ID, "
	    "INSTRUMENTED = 'YES' FROM performance_schema.threads WHERE %s = %"
	    PRIu64, by_connection ? "PROCESSLIST_ID" : "THREAD_ID", id);
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

enum pfs_status
pfs_server_id(struct conn *c, struct pfs_server_id *id, char *err,
    size_t errlen)
{
	struct pfs_ints r;
	enum pfs_status ps;

	/*
	 * UPTIME counts whole seconds, so a server restarted within a second
	 * or two has nearly the same boot time; the process id of its main
	 * thread tells the two runs apart.
	 */
	if ((ps = query_ints(c, "SELECT UNIX_TIMESTAMP() - VARIABLE_VALUE, "
	    "(SELECT THREAD_OS_ID FROM performance_schema.threads "
	    "WHERE NAME = 'thread/sql/main') "
	    "FROM performance_schema.global_status "
	    "WHERE VARIABLE_NAME = 'UPTIME'", "reading the server's uptime", &r,
	    err, errlen)) != PFS_OK)
		return ps;
	id->boot_s = r.v[0];
	id->pid = r.isnull[1] || r.v[1] < 0 ? 0 : (uint64_t)r.v[1];
	return PFS_OK;
}
