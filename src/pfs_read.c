/*
 * The sample source: one reader reads the memory rows of a thread, or of
 * a grain's summary table (the whole server, a user, a host, an account),
 * once per sample. Ids are formatted from parsed integers; user and host
 * go to the server as parameters.
 */
#include <inttypes.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pfs_read.h"
#include "pfs_rows.h"

struct pfs_reader {
	struct session *session;   /* read through its connection of the moment */
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

/*
 * The memory rows of every reader, thread or grain, from the
 * memory_summary_* table whose name follows: the COL_ columns in order,
 * with no text. MEMORY_USED leaves out the never-used events: they are
 * most rows, all zero.
 */
#define MEMORY_ROWS \
	"SELECT 'm', EVENT_NAME, " PFS_BYTES_USED ", " \
	"CURRENT_COUNT_USED, HIGH_NUMBER_OF_BYTES_USED, " \
	"SUM_NUMBER_OF_BYTES_ALLOC, SUM_NUMBER_OF_BYTES_FREE, " \
	"COUNT_ALLOC, COUNT_FREE, NULL FROM "
#define MEMORY_USED "(COUNT_ALLOC > 0 OR COUNT_FREE > 0)"

static int
thread_row(struct pfs_reader *r, char **v, const unsigned long *len)
{
	struct statement *st = &r->statement;

	if (r->thread_rows++ > 0)
		return 0; /* one top-level statement per thread; be safe */
	st->thread_id = r->thread_id;
	st->has_id = v[COL_EVENT_ID] != NULL;
	if (pfs_column_u64(v[COL_EVENT_ID], &st->id) != 0)
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
	if (pfs_column_i64(v[COL_CURRENT_BYTES], &e->current_bytes) != 0 ||
	    pfs_column_i64(v[COL_CURRENT_COUNT], &e->current_count) != 0 ||
	    pfs_column_i64(v[COL_HIGH_BYTES], &e->high_bytes) != 0 ||
	    pfs_column_u64(v[COL_ALLOC_BYTES], &e->alloc_bytes) != 0 ||
	    pfs_column_u64(v[COL_FREE_BYTES], &e->free_bytes) != 0 ||
	    pfs_column_u64(v[COL_ALLOC_COUNT], &e->alloc_count) != 0 ||
	    pfs_column_u64(v[COL_FREE_COUNT], &e->free_count) != 0)
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
		st = conn_query_params(r->session->conn, r->sql, r->params,
		    r->n_params, event_row, r, NULL, err, errlen);
	else
		st = conn_query(r->session->conn, r->sql, event_row, r, NULL,
		    err, errlen);
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
			pfs_query_failed(st, r->is_grain ? "reading the summary" :
			    "reading the thread's memory", err, err, errlen);
		return st == CONN_LOST ? SOURCE_LOST : st == CONN_STOPPED ?
		    SOURCE_STOPPED : SOURCE_ERROR;
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
	snprintf(r->sql, sizeof(r->sql), MEMORY_ROWS PFS_THREAD_MEMORY
	    " WHERE THREAD_ID = %" PRIu64 " AND " MEMORY_USED " UNION ALL %s",
	    id, thread_row_sql);
}

struct pfs_reader *
pfs_reader_create(struct session *s, uint64_t thread_id)
{
	struct pfs_reader *r = calloc(1, sizeof(*r));

	if (r == NULL)
		return NULL;
	r->session = s;
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
pfs_reader_create_grain(struct session *s, enum pfs_grain grain,
    const char *user, const char *host)
{
	struct pfs_reader *r = calloc(1, sizeof(*r));
	const char *cond;

	if (r == NULL)
		return NULL;
	r->session = s;
	r->is_grain = true;
	r->n_params = grain_params(grain, user, host, r->params, &cond);
	snprintf(r->sql, sizeof(r->sql), MEMORY_ROWS "performance_schema.%s "
	    "WHERE " MEMORY_USED "%s", grain_tables[grain], cond);
	return r;
}

enum pfs_status
pfs_check_grain(struct conn *c, enum pfs_grain grain, const char *user,
    const char *host, char *err, size_t errlen)
{
	struct conn_param params[2];
	struct pfs_ints r = { 0 };
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
	st = conn_query_params(c, sql, params, n, pfs_ints_row, &r, NULL, err,
	    errlen);
	if (st != CONN_OK)
		return pfs_query_failed(st, "looking up the grain", err, err,
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
