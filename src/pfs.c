/*
 * The queries mysqlmemprof sends to performance_schema. Ids are formatted
 * from parsed integers; no user text is ever pasted into SQL.
 */
#include <errno.h>
#include <stdbool.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pfs.h"

static const char enable_instruments[] =
    "UPDATE performance_schema.setup_instruments SET ENABLED = 'YES' "
    "WHERE NAME LIKE 'memory/%'";

/* Turns a failed query into a status and a message; msg may be err itself. */
static enum pfs_status
query_failed(enum conn_status st, const char *what, const char *server_msg,
    char *err, size_t errlen)
{
	char msg[512];

	snprintf(msg, sizeof(msg), "%s", server_msg);
	if (st == CONN_LOST) {
		snprintf(err, errlen, "lost the connection while %s: %s; check "
		    "the server", what, msg);
		return PFS_LOST;
	}
	/*
	 * conn.c sorts a table the account may not read (server error 1142)
	 * into CONN_DENIED along with the other denials, so the status alone
	 * says when the grant is missing.
	 */
	if (st == CONN_DENIED) {
		snprintf(err, errlen, "%s: %s; the account needs GRANT SELECT "
		    "ON performance_schema.*", what, msg);
		return PFS_DENIED;
	}
	snprintf(err, errlen, "%s: %s", what, msg);
	return PFS_ERROR;
}

/*
 * Decimal columns, parsed by hand: they are most of what a sample reads,
 * and strtoll() with its locale and base handling costs several times more.
 * The digits must be all there is; NULL counts as 0, as performance_schema
 * means it.
 */
static int
digits_u64(const char *v, uint64_t *out)
{
	uint64_t x = 0;
	const char *p = v;

	for (; *p >= '0' && *p <= '9'; p++) {
		unsigned d = (unsigned)(*p - '0');

		if (x > (UINT64_MAX - d) / 10)
			return -1;
		x = x * 10 + d;
	}
	if (p == v || *p != '\0')
		return -1;
	*out = x;
	return 0;
}

static int
column_u64(const char *v, uint64_t *out)
{
	if (v == NULL) {
		*out = 0;
		return 0;
	}
	return digits_u64(v, out);
}

static int
column_i64(const char *v, int64_t *out)
{
	uint64_t x;
	int neg;

	if (v == NULL) {
		*out = 0;
		return 0;
	}
	neg = *v == '-';
	if (digits_u64(v + neg, &x) != 0 ||
	    x > (neg ? (uint64_t)INT64_MAX + 1 : (uint64_t)INT64_MAX))
		return -1;
	*out = neg ? (int64_t)(0 - x) : (int64_t)x;
	return 0;
}

/* One row of integers, for the small queries below. */
struct ints {
	int rows;
	int64_t v[4];
	int isnull[4];
};

static int
ints_row(void *ctx, unsigned ncols, char **values, const unsigned long *len)
{
	struct ints *r = ctx;

	(void)len;
	if (r->rows++ > 0)
		return 0; /* only the first row matters */
	for (unsigned i = 0; i < ncols && i < 4; i++) {
		r->isnull[i] = values[i] == NULL;
		if (column_i64(values[i], &r->v[i]) != 0)
			return -1;
	}
	return 0;
}

/* Runs a query of one row of integers into *r; what names it in errors. */
static enum pfs_status
query_ints(struct conn *c, const char *sql, const char *what, struct ints *r,
    char *err, size_t errlen)
{
	enum conn_status st;

	memset(r, 0, sizeof(*r));
	st = conn_query(c, sql, ints_row, r, NULL, err, errlen);
	if (st != CONN_OK)
		return query_failed(st, what, err, err, errlen);
	return PFS_OK;
}

enum pfs_status
pfs_preflight(struct conn *c, size_t *enabled, size_t *total, char *err,
    size_t errlen)
{
	struct ints r = { 0 };
	enum conn_status st;

	*enabled = *total = 0;
	st = conn_query(c, "SELECT @@performance_schema", ints_row, &r, NULL,
	    err, errlen);
	if (st != CONN_OK)
		return query_failed(st, "checking performance_schema", err,
		    err, errlen);
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
	memset(&r, 0, sizeof(r));
	st = conn_query(c, "SELECT COUNT(*), COALESCE(SUM(ENABLED = 'YES' AND "
	    "NAME NOT LIKE 'memory/performance\\_schema/%'), 0) "
	    "FROM performance_schema.setup_instruments "
	    "WHERE NAME LIKE 'memory/%'", ints_row, &r, NULL, err, errlen);
	if (st != CONN_OK)
		return query_failed(st, "reading "
		    "performance_schema.setup_instruments", err, err, errlen);
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
		return query_failed(st, "reading "
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
	struct ints r = { 0 };
	enum pfs_status ps;

	if ((ps = query_ints(c, "SELECT THREAD_ID FROM performance_schema.threads "
	    "WHERE PROCESSLIST_ID = CONNECTION_ID()", "finding our own thread",
	    &r, err, errlen)) != PFS_OK)
		return ps;
	*thread_id = r.rows > 0 ? (uint64_t)r.v[0] : 0;
	return PFS_OK;
}

static enum pfs_status
not_instrumented(uint64_t thread_id, char *err, size_t errlen)
{
	snprintf(err, errlen, "thread %" PRIu64 " is not instrumented; enable "
	    "it with UPDATE performance_schema.threads SET INSTRUMENTED = "
	    "'YES' WHERE THREAD_ID = %" PRIu64 " or check "
	    "performance_schema.setup_actors", thread_id, thread_id);
	return PFS_NOT_ALLOWED;
}

enum pfs_status
pfs_thread_of_connection(struct conn *c, uint64_t connection_id,
    uint64_t *thread_id, char *err, size_t errlen)
{
	struct ints r = { 0 };
	char sql[200];
	enum pfs_status ps;

	snprintf(sql, sizeof(sql), "SELECT THREAD_ID, INSTRUMENTED = 'YES' "
	    "FROM performance_schema.threads WHERE PROCESSLIST_ID = %" PRIu64,
	    connection_id);
	if ((ps = query_ints(c, sql, "looking up the connection", &r, err,
	    errlen)) != PFS_OK)
		return ps;
	if (r.rows == 0) {
		snprintf(err, errlen, "no connection %" PRIu64 " on the server; "
		    "see mysqlmemprof --list for the connections", connection_id);
		return PFS_NOT_FOUND;
	}
	*thread_id = (uint64_t)r.v[0];
	if (r.v[1] == 0)
		return not_instrumented(*thread_id, err, errlen);
	return PFS_OK;
}

enum pfs_status
pfs_check_thread(struct conn *c, uint64_t thread_id, uint64_t *connection_id,
    char *err, size_t errlen)
{
	struct ints r = { 0 };
	char sql[200];
	enum pfs_status ps;

	snprintf(sql, sizeof(sql), "SELECT PROCESSLIST_ID, INSTRUMENTED = 'YES' "
	    "FROM performance_schema.threads WHERE THREAD_ID = %" PRIu64,
	    thread_id);
	if ((ps = query_ints(c, sql, "looking up the thread", &r, err,
	    errlen)) != PFS_OK)
		return ps;
	if (r.rows == 0) {
		snprintf(err, errlen, "no thread %" PRIu64 " in "
		    "performance_schema.threads; see mysqlmemprof --list for "
		    "the threads", thread_id);
		return PFS_NOT_FOUND;
	}
	*connection_id = r.isnull[0] ? 0 : (uint64_t)r.v[0];
	if (r.v[1] == 0)
		return not_instrumented(thread_id, err, errlen);
	return PFS_OK;
}

enum pfs_status
pfs_server_boot(struct conn *c, int64_t *boot_s, char *err, size_t errlen)
{
	struct ints r = { 0 };
	enum pfs_status ps;

	if ((ps = query_ints(c, "SELECT UNIX_TIMESTAMP() - VARIABLE_VALUE "
	    "FROM performance_schema.global_status "
	    "WHERE VARIABLE_NAME = 'UPTIME'", "reading the server's uptime", &r,
	    err, errlen)) != PFS_OK)
		return ps;
	*boot_s = r.v[0];
	return PFS_OK;
}

/* --wait-for and --longer-than */

/*
 * What a statement looks like in performance_schema.threads: the columns
 * of stmt_row(), in order. The digest tells two texts apart without
 * sending them whole; the start is the server's clock less the time run;
 * the statements the thread ended so far, other than those inside stored
 * programs, tell apart two runs of one text. A format for snprintf().
 */
#define STMT_COLUMNS \
	"t.THREAD_ID, t.PROCESSLIST_ID, t.PROCESSLIST_TIME, " \
	"UNIX_TIMESTAMP() - t.PROCESSLIST_TIME, " \
	"CONCAT(LENGTH(t.PROCESSLIST_INFO), ':', CRC32(t.PROCESSLIST_INFO)), " \
	"t.PROCESSLIST_USER, t.PROCESSLIST_DB, LEFT(t.PROCESSLIST_INFO, 100), " \
	"(SELECT COALESCE(SUM(s.COUNT_STAR), 0) FROM " \
	"performance_schema.events_statements_summary_by_thread_by_event_name s " \
	"WHERE s.THREAD_ID = t.THREAD_ID AND " \
	"s.EVENT_NAME NOT LIKE 'statement/sp/%%')"
#define STMT_NCOLS 9
/* A statement runs: as the server's own sessions show it. */
#define STMT_RUNNING \
	"t.PROCESSLIST_COMMAND IN ('Query', 'Execute') AND " \
	"t.PROCESSLIST_INFO IS NOT NULL"

static void
copy_column(char *dst, size_t size, const char *v, unsigned long len)
{
	size_t n = v == NULL ? 0 : len < size - 1 ? len : size - 1;

	if (n > 0)
		memcpy(dst, v, n);
	dst[n] = '\0';
}

/* Fills m from the STMT_COLUMNS of a row; -1 on a value that is not one. */
static int
stmt_row(struct stmt_match *m, char **v, const unsigned long *len)
{
	memset(m, 0, sizeof(*m));
	if (column_u64(v[0], &m->thread_id) != 0 ||
	    column_u64(v[1], &m->connection_id) != 0 ||
	    column_i64(v[2], &m->time_s) != 0 ||
	    column_i64(v[3], &m->start_s) != 0 ||
	    column_u64(v[8], &m->completed) != 0)
		return -1;
	copy_column(m->digest, sizeof(m->digest), v[4], len[4]);
	copy_column(m->user, sizeof(m->user), v[5], len[5]);
	copy_column(m->db, sizeof(m->db), v[6], len[6]);
	copy_column(m->text, sizeof(m->text), v[7], len[7]);
	return 0;
}

struct find_ctx {
	struct match_list *l;
	int failed; /* out of memory */
};

static int
find_row(void *ctx, unsigned ncols, char **v, const unsigned long *len)
{
	struct find_ctx *fc = ctx;
	struct stmt_match m;

	if (ncols < STMT_NCOLS + 1 || stmt_row(&m, v, len) != 0 ||
	    column_i64(v[STMT_NCOLS], &m.current_bytes) != 0)
		return -1;
	if (match_list_add(fc->l, &m) != 0)
		return fc->failed = 1, -1;
	return 0;
}

enum pfs_status
pfs_find_statements(struct conn *c, const struct match_filter *f,
    uint64_t own_thread, struct match_list *out, char *err, size_t errlen)
{
	struct conn_param p[5];
	struct find_ctx fc = { .l = out };
	char sql[2048];
	unsigned n = 0;
	enum conn_status st;

	memset(out, 0, sizeof(*out));
	/*
	 * Only constant text goes into the SQL; the user's pattern and names
	 * are parameters. The memory is summed only for the rows that match.
	 * Other mysqlmemprof sessions are left out: their own queries could
	 * match the pattern.
	 */
	snprintf(sql, sizeof(sql), "SELECT " STMT_COLUMNS ", "
	    "(SELECT COALESCE(SUM(m.CURRENT_NUMBER_OF_BYTES_USED), 0) "
	    "FROM performance_schema.memory_summary_by_thread_by_event_name m "
	    "WHERE m.THREAD_ID = t.THREAD_ID) "
	    "FROM performance_schema.threads t "
	    "WHERE t.TYPE = 'FOREGROUND' AND t.INSTRUMENTED = 'YES' AND "
	    STMT_RUNNING " AND t.THREAD_ID <> ? AND t.PROCESSLIST_TIME >= ?"
	    "%s%s%s AND NOT EXISTS (SELECT 1 FROM "
	    "performance_schema.session_connect_attrs a "
	    "WHERE a.PROCESSLIST_ID = t.PROCESSLIST_ID AND "
	    "a.ATTR_NAME = 'program_name' AND a.ATTR_VALUE = 'mysqlmemprof')",
	    f->pattern != NULL ? " AND t.PROCESSLIST_INFO LIKE ?" : "",
	    f->user != NULL ? " AND t.PROCESSLIST_USER = ?" : "",
	    f->db != NULL ? " AND t.PROCESSLIST_DB = ?" : "");
	p[n++] = (struct conn_param){ .i = (int64_t)own_thread };
	p[n++] = (struct conn_param){ .i = f->min_time_s };
	if (f->pattern != NULL)
		p[n++] = (struct conn_param){ .s = f->pattern };
	if (f->user != NULL)
		p[n++] = (struct conn_param){ .s = f->user };
	if (f->db != NULL)
		p[n++] = (struct conn_param){ .s = f->db };
	st = conn_query_params(c, sql, p, n, find_row, &fc, NULL, err, errlen);
	if (st != CONN_OK) {
		match_list_free(out);
		if (fc.failed) {
			snprintf(err, errlen, "out of memory looking for "
			    "statements");
			return PFS_ERROR;
		}
		return query_failed(st, "looking for statements", err, err,
		    errlen);
	}
	return PFS_OK;
}

struct state_ctx {
	int rows;
	bool running;
	struct stmt_match *m;
};

static int
state_row(void *ctx, unsigned ncols, char **v, const unsigned long *len)
{
	struct state_ctx *sc = ctx;

	if (ncols < STMT_NCOLS + 1 || sc->rows++ > 0)
		return -1;
	sc->running = v[STMT_NCOLS] != NULL && strcmp(v[STMT_NCOLS], "1") == 0;
	return stmt_row(sc->m, v, len);
}

enum pfs_status
pfs_thread_statement(struct conn *c, uint64_t thread_id, bool *running,
    struct stmt_match *now, char *err, size_t errlen)
{
	struct state_ctx sc = { .m = now };
	char sql[1024];
	enum conn_status st;

	snprintf(sql, sizeof(sql), "SELECT " STMT_COLUMNS ", " STMT_RUNNING
	    " FROM performance_schema.threads t WHERE t.THREAD_ID = %" PRIu64,
	    thread_id);
	st = conn_query(c, sql, state_row, &sc, NULL, err, errlen);
	if (st != CONN_OK)
		return query_failed(st, "looking at the statement", err,
		    err, errlen);
	if (sc.rows == 0) {
		snprintf(err, errlen, "thread %" PRIu64 " ended", thread_id);
		return PFS_NOT_FOUND;
	}
	*running = sc.running;
	return PFS_OK;
}

/* --list */

struct list_ctx {
	struct thread_list *l;
	size_t cap;
	int failed;
};

static char *
dup_column(const char *v, int *failed)
{
	char *s;

	if (v == NULL)
		return NULL;
	if ((s = strdup(v)) == NULL)
		*failed = 1;
	return s;
}

static int
list_row(void *ctx, unsigned ncols, char **v, const unsigned long *len)
{
	struct list_ctx *lc = ctx;
	struct thread_info *t;
	int64_t x;

	(void)len;
	if (ncols < 11)
		return -1;
	if (lc->l->n == lc->cap) {
		size_t cap = lc->cap ? lc->cap * 2 : 64;
		struct thread_info *p = realloc(lc->l->v, cap * sizeof(*p));
		if (p == NULL)
			return lc->failed = 1, -1;
		lc->l->v = p;
		lc->cap = cap;
	}
	t = &lc->l->v[lc->l->n++];
	memset(t, 0, sizeof(*t));
	if (column_u64(v[0], &t->thread_id) != 0)
		return -1;
	t->has_connection = v[1] != NULL;
	if (column_u64(v[1], &t->connection_id) != 0)
		return -1;
	t->type = dup_column(v[2], &lc->failed);
	t->name = dup_column(v[3], &lc->failed);
	t->user = dup_column(v[4], &lc->failed);
	t->host = dup_column(v[5], &lc->failed);
	t->command = dup_column(v[6], &lc->failed);
	t->has_time = v[7] != NULL;
	if (column_i64(v[7], &x) != 0)
		return -1;
	t->time_s = x;
	t->state = dup_column(v[8], &lc->failed);
	if (column_i64(v[9], &t->current_bytes) != 0)
		return -1;
	t->statement = dup_column(v[10], &lc->failed);
	return lc->failed ? -1 : 0;
}

enum pfs_status
pfs_list_threads(struct conn *c, struct thread_list *out, char *err,
    size_t errlen)
{
	struct list_ctx lc = { .l = out };
	enum conn_status st;

	memset(out, 0, sizeof(*out));
	st = conn_query(c,
	    "SELECT t.THREAD_ID, t.PROCESSLIST_ID, t.TYPE, t.NAME, "
	    "t.PROCESSLIST_USER, t.PROCESSLIST_HOST, t.PROCESSLIST_COMMAND, "
	    "t.PROCESSLIST_TIME, t.PROCESSLIST_STATE, COALESCE(m.bytes, 0), "
	    "LEFT(t.PROCESSLIST_INFO, 200) "
	    "FROM performance_schema.threads t LEFT JOIN "
	    "(SELECT THREAD_ID, SUM(CURRENT_NUMBER_OF_BYTES_USED) AS bytes "
	    "FROM performance_schema.memory_summary_by_thread_by_event_name "
	    "GROUP BY THREAD_ID) m ON m.THREAD_ID = t.THREAD_ID "
	    "ORDER BY COALESCE(m.bytes, 0) DESC, t.THREAD_ID",
	    list_row, &lc, NULL, err, errlen);
	if (st != CONN_OK) {
		thread_list_free(out);
		if (lc.failed) {
			snprintf(err, errlen, "out of memory listing threads");
			return PFS_ERROR;
		}
		return query_failed(st, "listing threads", err, err, errlen);
	}
	return PFS_OK;
}

/* The sample source. */

struct pfs_reader {
	struct conn *conn;
	uint64_t thread_id;
	bool is_grain;             /* a summary table, not one thread */
	struct conn_param params[2];
	unsigned n_params;
	char sql[2048];
	struct event_stat *events; /* grows to the number of events seen */
	size_t n, cap;
	int bad_row;
	bool out_of_memory;
	int thread_rows;           /* of the thread itself: 0 when it is gone */
	struct statement statement;
};

/* The columns of a memory row; a thread row reuses some of them. */
enum {
	COL_KIND, COL_NAME, COL_CURRENT_BYTES, COL_CURRENT_COUNT,
	COL_HIGH_BYTES, COL_ALLOC_BYTES, COL_FREE_BYTES, COL_ALLOC_COUNT,
	COL_FREE_COUNT, COL_TEXT, N_COLS
};
#define COL_DIGEST COL_NAME
#define COL_EVENT_ID COL_ALLOC_COUNT

static int
thread_row(struct pfs_reader *r, char **v, const unsigned long *len)
{
	struct statement *st = &r->statement;

	if (r->thread_rows++ > 0)
		return 0; /* one top-level statement per thread; be safe */
	st->thread_id = r->thread_id;
	st->has_id = v[COL_EVENT_ID] != NULL;
	if (column_u64(v[COL_EVENT_ID], &st->id) != 0)
		return r->bad_row = 1, -1;
	statement_copy(st->digest, STATEMENT_DIGEST_MAX, v[COL_DIGEST],
	    len[COL_DIGEST]);
	statement_copy(st->text, STATEMENT_TEXT_MAX, v[COL_TEXT],
	    len[COL_TEXT]);
	return 0;
}

static int
event_row(void *ctx, unsigned ncols, char **v, const unsigned long *len)
{
	struct pfs_reader *r = ctx;
	struct event_stat *e;
	size_t namelen;

	if (ncols < N_COLS || v[COL_KIND] == NULL)
		return r->bad_row = 1, -1;
	if (v[COL_KIND][0] == 't')
		return thread_row(r, v, len);
	if (v[COL_NAME] == NULL)
		return r->bad_row = 1, -1;
	if (r->n == r->cap) {
		size_t cap = r->cap ? r->cap * 2 : 128;
		struct event_stat *p = realloc(r->events, cap * sizeof(*p));
		if (p == NULL)
			return r->out_of_memory = true, -1;
		r->events = p;
		r->cap = cap;
	}
	e = &r->events[r->n];
	namelen = len[COL_NAME] < EVENT_NAME_MAX ? len[COL_NAME] :
	    EVENT_NAME_MAX;
	memcpy(e->name, v[COL_NAME], namelen);
	e->name[namelen] = '\0';
	if (column_i64(v[COL_CURRENT_BYTES], &e->current_bytes) != 0 ||
	    column_i64(v[COL_CURRENT_COUNT], &e->current_count) != 0 ||
	    column_i64(v[COL_HIGH_BYTES], &e->high_bytes) != 0 ||
	    column_u64(v[COL_ALLOC_BYTES], &e->alloc_bytes) != 0 ||
	    column_u64(v[COL_FREE_BYTES], &e->free_bytes) != 0 ||
	    column_u64(v[COL_ALLOC_COUNT], &e->alloc_count) != 0 ||
	    column_u64(v[COL_FREE_COUNT], &e->free_count) != 0)
		return r->bad_row = 1, -1;
	r->n++;
	return 0;
}

static enum source_status
reader_read(void *ctx, struct reading *out, char *err, size_t errlen)
{
	struct pfs_reader *r = ctx;
	enum conn_status st;

	r->n = 0;
	r->bad_row = 0;
	r->out_of_memory = false;
	r->thread_rows = 0;
	memset(&r->statement, 0, sizeof(r->statement));
	if (r->n_params > 0)
		st = conn_query_params(r->conn, r->sql, r->params, r->n_params,
		    event_row, r, NULL, err, errlen);
	else
		st = conn_query(r->conn, r->sql, event_row, r, NULL, err, errlen);
	if (st != CONN_OK) {
		if (r->out_of_memory)
			snprintf(err, errlen, "out of memory reading %s",
			    r->is_grain ? "the summary" : "the thread's memory");
		else if (r->bad_row)
			snprintf(err, errlen, "unexpected value in %s; the "
			    "server gave a counter that is not an integer, which "
			    "is worth a bug report with its version",
			    r->is_grain ? "a memory summary table" :
			    "memory_summary_by_thread_by_event_name or "
			    "events_statements_current");
		else
			query_failed(st, r->is_grain ? "reading the summary" :
			    "reading the thread's memory", err, err, errlen);
		return st == CONN_LOST ? SOURCE_LOST : SOURCE_ERROR;
	}
	/* The threads table has no row for a thread that ended. */
	if (!r->is_grain && r->thread_rows == 0)
		return SOURCE_GONE;
	out->events = r->events;
	out->n = r->n;
	out->gap_us = 0;
	out->statement = r->is_grain ? NULL : &r->statement;
	return SOURCE_OK;
}

/*
 * One round trip per sample: the memory rows, then one row of the thread
 * with its top-level statement, running or, between statements, the last
 * one (events_statements_current keeps it, and fills its DIGEST in when it
 * ends). Without that consumer the table keeps stale rows, so only
 * threads.PROCESSLIST_INFO, the running statement's text, is read.
 * Never-used events are left out: they are most rows, all zero.
 */
static void
build_sql(struct pfs_reader *r, int statements)
{
	char thread_row_sql[768];
	uint64_t id = r->thread_id;

	if (statements)
		snprintf(thread_row_sql, sizeof(thread_row_sql),
		    "SELECT 't', s.DIGEST, NULL, NULL, NULL, NULL, NULL, "
		    "s.EVENT_ID, NULL, "
		    "LEFT(COALESCE(s.SQL_TEXT, t.PROCESSLIST_INFO), %d) "
		    "FROM performance_schema.threads t "
		    "LEFT JOIN performance_schema.events_statements_current s "
		    "ON s.THREAD_ID = t.THREAD_ID "
		    "AND s.NESTING_EVENT_LEVEL = 0 "
		    "WHERE t.THREAD_ID = %" PRIu64, STATEMENT_TEXT_CHARS, id);
	else
		snprintf(thread_row_sql, sizeof(thread_row_sql),
		    "SELECT 't', NULL, NULL, NULL, NULL, NULL, NULL, NULL, "
		    "NULL, LEFT(PROCESSLIST_INFO, %d) "
		    "FROM performance_schema.threads "
		    "WHERE THREAD_ID = %" PRIu64,
		    STATEMENT_TEXT_CHARS, id);
	snprintf(r->sql, sizeof(r->sql),
	    "SELECT 'm', EVENT_NAME, CURRENT_NUMBER_OF_BYTES_USED, "
	    "CURRENT_COUNT_USED, HIGH_NUMBER_OF_BYTES_USED, "
	    "SUM_NUMBER_OF_BYTES_ALLOC, SUM_NUMBER_OF_BYTES_FREE, "
	    "COUNT_ALLOC, COUNT_FREE, NULL "
	    "FROM performance_schema.memory_summary_by_thread_by_event_name "
	    "WHERE THREAD_ID = %" PRIu64 " AND (COUNT_ALLOC > 0 OR "
	    "COUNT_FREE > 0) UNION ALL %s", id, thread_row_sql);
}

struct pfs_reader *
pfs_reader_create(struct conn *c, uint64_t thread_id)
{
	struct pfs_reader *r = calloc(1, sizeof(*r));

	if (r == NULL)
		return NULL;
	r->conn = c;
	r->thread_id = thread_id;
	build_sql(r, 1);
	return r;
}

static const char *const grain_tables[] = {
	[GRAIN_GLOBAL] = "memory_summary_global_by_event_name",
	[GRAIN_USER] = "memory_summary_by_user_by_event_name",
	[GRAIN_HOST] = "memory_summary_by_host_by_event_name",
	[GRAIN_ACCOUNT] = "memory_summary_by_account_by_event_name",
};

/* The WHERE conditions and parameters of a grain; returns how many. */
static unsigned
grain_params(enum pfs_grain grain, const char *user, const char *host,
    struct conn_param *params, const char **cond)
{
	unsigned n = 0;

	*cond = "";
	if (grain == GRAIN_USER || grain == GRAIN_ACCOUNT)
		params[n++] = (struct conn_param){ .s = user };
	if (grain == GRAIN_HOST || grain == GRAIN_ACCOUNT)
		params[n++] = (struct conn_param){ .s = host };
	if (grain == GRAIN_USER)
		*cond = " AND USER = ?";
	else if (grain == GRAIN_HOST)
		*cond = " AND HOST = ?";
	else if (grain == GRAIN_ACCOUNT)
		*cond = " AND USER = ? AND HOST = ?";
	return n;
}

/*
 * The same columns as a thread's memory rows, from a summary table. The
 * user and host go as parameters of a prepared statement: three round
 * trips a sample instead of one, for never pasting them into SQL.
 */
struct pfs_reader *
pfs_reader_create_grain(struct conn *c, enum pfs_grain grain,
    const char *user, const char *host)
{
	struct pfs_reader *r = calloc(1, sizeof(*r));
	const char *cond;

	if (r == NULL)
		return NULL;
	r->conn = c;
	r->is_grain = true;
	r->n_params = grain_params(grain, user, host, r->params, &cond);
	snprintf(r->sql, sizeof(r->sql),
	    "SELECT 'm', EVENT_NAME, CURRENT_NUMBER_OF_BYTES_USED, "
	    "CURRENT_COUNT_USED, HIGH_NUMBER_OF_BYTES_USED, "
	    "SUM_NUMBER_OF_BYTES_ALLOC, SUM_NUMBER_OF_BYTES_FREE, "
	    "COUNT_ALLOC, COUNT_FREE, NULL FROM performance_schema.%s "
	    "WHERE (COUNT_ALLOC > 0 OR COUNT_FREE > 0)%s",
	    grain_tables[grain], cond);
	return r;
}

enum pfs_status
pfs_check_grain(struct conn *c, enum pfs_grain grain, const char *user,
    const char *host, char *err, size_t errlen)
{
	struct conn_param params[2];
	struct ints r = { 0 };
	const char *cond;
	char sql[300];
	enum conn_status st;
	unsigned n;

	if (grain == GRAIN_GLOBAL)
		return PFS_OK;
	n = grain_params(grain, user, host, params, &cond);
	/* "1 = 1" so that cond, which starts with AND, follows. */
	snprintf(sql, sizeof(sql), "SELECT COUNT(*) FROM performance_schema.%s "
	    "WHERE 1 = 1%s", grain_tables[grain], cond);
	st = conn_query_params(c, sql, params, n, ints_row, &r, NULL, err,
	    errlen);
	if (st != CONN_OK)
		return query_failed(st, "looking up the grain", err, err,
		    errlen);
	if (r.v[0] > 0)
		return PFS_OK;
	char who[600];
	if (grain == GRAIN_USER)
		snprintf(who, sizeof(who), "user '%s'", user);
	else if (grain == GRAIN_HOST)
		snprintf(who, sizeof(who), "host '%s'", host);
	else
		snprintf(who, sizeof(who), "account '%s'@'%s'", user, host);
	snprintf(err, errlen, "no rows for %s in performance_schema.%s; an "
	    "account or host appears there once it has connected (see --list "
	    "for who is connected)", who, grain_tables[grain]);
	return PFS_NOT_FOUND;
}

void
pfs_reader_without_statements(struct pfs_reader *r)
{
	build_sql(r, 0);
}

void
pfs_reader_use(struct pfs_reader *r, struct conn *c)
{
	r->conn = c;
}

void
pfs_reader_free(struct pfs_reader *r)
{
	if (r == NULL)
		return;
	free(r->events);
	free(r);
}

struct source
pfs_reader_source(struct pfs_reader *r)
{
	return (struct source){ .ctx = r, .read = reader_read };
}
