/*
 * The sample source: one reader reads the memory rows of a thread, or of
 * a grain's summary table (the whole server, a user, a host, an account),
 * once per sample, through a statement prepared once on the connection
 * (prepared again after a reconnect, on the new one). The thread id, user
 * and host go to the server as parameters.
 */
#include <inttypes.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "names.h"
#include "pfs_read.h"
#include "pfs_rows.h"
#include "pfs_sql.h"

struct pfs_reader {
	struct conn *const *conn;  /* read through *conn, the connection of the moment */
	uint64_t thread_id;
	bool is_grain;             /* a summary table, not one thread */
	struct conn_param params[2];
	unsigned n_params;
	uint64_t kept_id;          /* sql's kept statement (conn_query_shared()) */
	struct event_stat *events; /* grows to the number of events seen */
	size_t n, cap;
	/*
	 * events[0..named) hold a name and its entry from an earlier reading:
	 * the server gives a thread's rows in the same order each time, so a
	 * row's name is compared with the one that stood there, in place of
	 * the copy, and keeps its entry without a lookup.
	 */
	size_t named;
	bool typed;                /* this reading's counters: counters_typed() */
	int bad_row;
	bool out_of_memory;
	size_t rows;               /* rows read; a thread's: 0 when it is gone */
	bool consumer;             /* statement from events_statements_current */
	/*
	 * The last reading handed out (0: none, or a failed one since, which
	 * left events half written) and its number of events; whether a row
	 * of this one moved from it (source.h's unmoved).
	 */
	uint64_t last_seq;
	size_t last_n;
	bool moved;
	/*
	 * Behind the fields each reading sets, which fit in three cache
	 * lines together, where these two split them over five.
	 */
	struct statement statement;
	char sql[2048];
};

/* Readings are numbered across readers, so none is taken for another's. */
static _Atomic uint64_t reading_seq;

/*
 * The columns of a row: an event's memory, then, in a thread's rows only,
 * the thread's top-level statement (the same in each row).
 */
enum {
	COL_NAME, COL_CURRENT_BYTES, COL_CURRENT_COUNT, COL_HIGH_BYTES,
	COL_ALLOC_BYTES, COL_FREE_BYTES, COL_ALLOC_COUNT, COL_FREE_COUNT,
	N_MEMORY_COLS,
	COL_STATEMENT = N_MEMORY_COLS,  /* pfs_statement_row()'s columns */
	N_THREAD_COLS = COL_STATEMENT + PFS_STMT_COLS
};

/*
 * Whether a row's counters are bound as integers, the current ones signed
 * and the sums unsigned, as both servers type them; the same for each row
 * of a reading.
 */
static bool
counters_typed(const struct conn_value *v)
{
	return pfs_value_typed(&v[COL_CURRENT_BYTES], false) &&
	    pfs_value_typed(&v[COL_CURRENT_COUNT], false) &&
	    pfs_value_typed(&v[COL_HIGH_BYTES], false) &&
	    pfs_value_typed(&v[COL_ALLOC_BYTES], true) &&
	    pfs_value_typed(&v[COL_FREE_BYTES], true) &&
	    pfs_value_typed(&v[COL_ALLOC_COUNT], true) &&
	    pfs_value_typed(&v[COL_FREE_COUNT], true);
}

/*
 * Row n's name, where another stood or none yet: copied, and its entry
 * looked up.
 */
static void
new_name(struct pfs_reader *r, struct event_stat *e, const char *s,
    size_t len)
{
	memcpy(e->name, s, len);
	e->name[len] = '\0';
	/* A NUL inside is cut there, as every reader of name does. */
	e->interned = names_intern(e->name, strlen(e->name));
	if (r->n >= r->named)
		r->named = r->n + 1;
}

/*
 * Whether the n bytes at s are name, n a word or more (every name of
 * memory/ is): a word at a time, the last word overlapping the one
 * before, where memcmp()'s call cost some 25 instructions a row. (16
 * bytes at a time with SSE2 cost as much for names of some 30 bytes.)
 */
static inline bool
name_is_long(const char *name, const char *s, size_t n)
{
	uint64_t a, b;

	for (size_t i = 0; i + sizeof(a) < n; i += sizeof(a)) {
		memcpy(&a, name + i, sizeof(a));
		memcpy(&b, s + i, sizeof(b));
		if (a != b)
			return false;
	}
	memcpy(&a, name + n - sizeof(a), sizeof(a));
	memcpy(&b, s + n - sizeof(b), sizeof(b));
	return a == b;
}

/* Whether the n bytes at s are name, whatever n. */
static bool
name_is(const char *name, const char *s, size_t n)
{
	return n < sizeof(uint64_t) ? memcmp(name, s, n) == 0 :
	    name_is_long(name, s, n);
}

/*
 * The counters as bound (counters_typed()), into e; whether they moved
 * from the reading before's, as delta.c's unchanged() asks, noted on the
 * way, which cost less than the delta's pass over every event.
 */
static inline void
typed_counters(struct pfs_reader *r, struct event_stat *e,
    const struct conn_value *v)
{
	uint64_t moved;
	int64_t i;
	uint64_t u;

	/*
	 * Each loaded, compared and stored in turn, which needs two
	 * registers where loading all first needed four saved; the bits
	 * that moved are tested once, not compared and or-ed each.
	 */
	i = pfs_value_int(&v[COL_CURRENT_BYTES]);
	moved = (uint64_t)(i ^ e->current_bytes);
	e->current_bytes = i;
	e->current_count = pfs_value_int(&v[COL_CURRENT_COUNT]);
	i = pfs_value_int(&v[COL_HIGH_BYTES]);
	moved |= (uint64_t)(i ^ e->high_bytes);
	e->high_bytes = i;
	u = (uint64_t)pfs_value_int(&v[COL_ALLOC_BYTES]);
	moved |= u ^ e->alloc_bytes;
	e->alloc_bytes = u;
	u = (uint64_t)pfs_value_int(&v[COL_FREE_BYTES]);
	moved |= u ^ e->free_bytes;
	e->free_bytes = u;
	u = (uint64_t)pfs_value_int(&v[COL_ALLOC_COUNT]);
	moved |= u ^ e->alloc_count;
	e->alloc_count = u;
	u = (uint64_t)pfs_value_int(&v[COL_FREE_COUNT]);
	moved |= u ^ e->free_count;
	e->free_count = u;
	r->moved |= moved != 0;
}

/*
 * Whether any counter of the row is NULL. Tested once, up front, it lets
 * the short way load the seven without pfs_value_int()'s test of each,
 * which cost 21 instructions a row; a row with one goes the long way,
 * which reads it as 0.
 */
static inline bool
counters_null(const struct conn_value *v)
{
	return (v[COL_CURRENT_BYTES].null | v[COL_CURRENT_COUNT].null |
	    v[COL_HIGH_BYTES].null | v[COL_ALLOC_BYTES].null |
	    v[COL_FREE_BYTES].null | v[COL_ALLOC_COUNT].null |
	    v[COL_FREE_COUNT].null) != 0;
}

/*
 * Any row: the name where another stood or none yet, and the counters
 * whatever their binding. Apart from event_row(), whose common row then
 * needs no register saved.
 */
static __attribute__((noinline)) int
any_row(struct pfs_reader *r, const struct conn_value *v)
{
	struct event_stat *e;
	size_t namelen;

	/* A thread with no memory in use: its one row has none. */
	if (v[COL_NAME].null)
		return r->is_grain ? (r->bad_row = 1, -1) : 0;
	if (r->n == r->cap) {
		size_t cap = r->cap ? r->cap * 2 : 128;
		struct event_stat *p = realloc(r->events, cap * sizeof(*p));
		if (p == NULL)
			return r->out_of_memory = true, -1;
		r->events = p;
		r->cap = cap;
	}
	e = &r->events[r->n];
	namelen = v[COL_NAME].len < EVENT_NAME_MAX ? v[COL_NAME].len :
	    EVENT_NAME_MAX;
	if (r->n >= r->named || e->interned == NULL ||
	    e->interned->len != namelen ||
	    !name_is(e->name, v[COL_NAME].s, namelen)) {
		new_name(r, e, v[COL_NAME].s, namelen);
		r->moved = true;
	}
	/*
	 * The counters as bound, signed and unsigned as the server types
	 * them: loaded as they are, where checking each value of each row
	 * cost a third of reading it. Otherwise (a server that types them
	 * otherwise) each is checked, and the reading is taken as moved.
	 */
	if (r->typed)
		typed_counters(r, e, v);
	else if (r->moved = true,
	    pfs_value_i64(&v[COL_CURRENT_BYTES], &e->current_bytes) != 0 ||
	    pfs_value_i64(&v[COL_CURRENT_COUNT], &e->current_count) != 0 ||
	    pfs_value_i64(&v[COL_HIGH_BYTES], &e->high_bytes) != 0 ||
	    pfs_value_u64(&v[COL_ALLOC_BYTES], &e->alloc_bytes) != 0 ||
	    pfs_value_u64(&v[COL_FREE_BYTES], &e->free_bytes) != 0 ||
	    pfs_value_u64(&v[COL_ALLOC_COUNT], &e->alloc_count) != 0 ||
	    pfs_value_u64(&v[COL_FREE_COUNT], &e->free_count) != 0)
		return r->bad_row = 1, -1;
	r->n++;
	return 0;
}

/*
 * What the first row of a reading says for all of them: the columns and
 * their types are the statement's, the same in each row, so they are
 * checked once; in a thread's rows, the statement is read from it. Then
 * the row as any other.
 */
static __attribute__((noinline)) int
first_row(struct pfs_reader *r, unsigned ncols, const struct conn_value *v)
{
	if (ncols < (r->is_grain ? N_MEMORY_COLS : N_THREAD_COLS) ||
	    v[COL_NAME].is_int)
		return r->bad_row = 1, -1;
	r->typed = counters_typed(v);
	if (!r->is_grain && pfs_statement_row(&r->statement, r->thread_id,
	    r->consumer, &v[COL_STATEMENT]) != 0)
		return r->bad_row = 1, -1;
	return any_row(r, v);
}

/*
 * A row of the reading: most are the event that stood there the reading
 * before, typed as the first row, with no counter NULL, and take the
 * short way; any other goes to any_row().
 */
static int
event_row(void *ctx, unsigned ncols, const struct conn_value *v)
{
	struct pfs_reader *r = ctx;
	struct event_stat *e;
	size_t len;

	if (r->rows++ == 0)
		return first_row(r, ncols, v);
	/* named <= cap: the event is in the array. */
	if (!r->typed || r->n >= r->named || v[COL_NAME].null ||
	    counters_null(v))
		return any_row(r, v);
	e = &r->events[r->n];
	len = v[COL_NAME].len;
	if (e->interned == NULL || e->interned->len != len ||
	    len < sizeof(uint64_t) || !name_is_long(e->name, v[COL_NAME].s, len))
		return any_row(r, v);
	typed_counters(r, e, v);
	r->n++;
	return 0;
}

static enum source_status
reader_read(void *ctx, uint64_t deadline_ns, struct reading *out, char *err,
    size_t errlen)
{
	struct pfs_reader *r = ctx;
	enum conn_status st;

	(void)deadline_ns; /* a query is bounded by --read-timeout */
	r->n = 0;
	r->bad_row = 0;
	r->out_of_memory = false;
	/* The first row sets all of the statement (pfs_statement_row()). */
	r->rows = 0;
	r->moved = false;
	/* The statement's columns are the same in each row: read in the first. */
	st = conn_query_shared(*r->conn, r->sql, &r->kept_id, r->params,
	    r->n_params, COL_STATEMENT, event_row, r, NULL, err, errlen);
	if (st != CONN_OK) {
		r->last_seq = 0;
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
		/* Our query was stopped, the connection is fine: one reading lost. */
		if (st == CONN_INTERRUPTED)
			return SOURCE_SKIPPED;
		return st == CONN_LOST ? SOURCE_LOST : st == CONN_STOPPED ?
		    SOURCE_STOPPED : SOURCE_ERROR;
	}
	/* The threads table has no row for a thread that ended. */
	if (!r->is_grain && r->rows == 0)
		return r->last_seq = 0, SOURCE_GONE;
	out->seq = atomic_fetch_add(&reading_seq, 1) + 1;
	out->after = r->last_seq;
	out->unmoved = !r->moved && r->n == r->last_n;
	r->last_seq = out->seq;
	r->last_n = r->n;
	out->events = r->events;
	out->n = r->n;
	out->gap_us = 0;
	out->statement = r->is_grain ? NULL : &r->statement;
	return SOURCE_OK;
}

/* The memory rows and the thread's row; pfs_sql.c says what they are. */
static void
build_sql(struct pfs_reader *r, int statements)
{
	r->consumer = statements != 0;
	r->kept_id = 0;
	pfs_sql_thread_memory(r->sql, sizeof(r->sql), statements,
	    STATEMENT_TEXT_CHARS);
}

struct pfs_reader *
pfs_reader_create(struct conn *const *conn, uint64_t thread_id)
{
	struct pfs_reader *r = calloc(1, sizeof(*r));

	if (r == NULL)
		return NULL;
	r->conn = conn;
	r->thread_id = thread_id;
	r->params[0] = (struct conn_param){ .i = (int64_t)thread_id };
	r->n_params = 1;
	build_sql(r, 1);
	return r;
}

/* The parameters of a grain's SQL, in its order; returns how many. */
static unsigned
grain_params(enum pfs_grain grain, const char *user, const char *host,
    struct conn_param *params)
{
	unsigned n = 0;

	if (grain == GRAIN_USER || grain == GRAIN_ACCOUNT)
		params[n++] = (struct conn_param){ .s = user };
	if (grain == GRAIN_HOST || grain == GRAIN_ACCOUNT)
		params[n++] = (struct conn_param){ .s = host };
	return n;
}

/*
 * The same columns as a thread's memory rows, from a summary table. The
 * user and host go as parameters of a prepared statement, never pasted
 * into SQL.
 */
struct pfs_reader *
pfs_reader_create_grain(struct conn *const *conn, enum pfs_grain grain,
    const char *user, const char *host)
{
	struct pfs_reader *r = calloc(1, sizeof(*r));

	if (r == NULL)
		return NULL;
	r->conn = conn;
	r->is_grain = true;
	r->n_params = grain_params(grain, user, host, r->params);
	pfs_sql_grain_memory(r->sql, sizeof(r->sql), grain);
	return r;
}

enum pfs_status
pfs_check_grain(struct conn *c, enum pfs_grain grain, const char *user,
    const char *host, char *err, size_t errlen)
{
	struct conn_param params[2];
	struct pfs_ints r = { 0 };
	char sql[300];
	enum conn_status st;
	unsigned n;

	if (grain == GRAIN_GLOBAL)
		return PFS_OK;
	n = grain_params(grain, user, host, params);
	pfs_sql_grain_rows(sql, sizeof(sql), grain);
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
	    "for who is connected)", who, pfs_sql_grain_table(grain));
	return PFS_NOT_FOUND;
}

/* The columns of pfs_sql_thread_history(), in order. */
enum {
	H_EVENT_ID, H_END_ID, H_DIGEST, H_TEXT, H_WAIT, H_ROWS_SENT,
	H_ROWS_EXAMINED, H_PEAK, H_CONSUMER, H_OLDEST, N_HISTORY_COLS
};

struct history_read {
	struct pfs_history *out;
	uint64_t thread_id;
	bool bad_row;
};

static int
history_row(void *ctx, unsigned ncols, const struct conn_value *v)
{
	struct history_read *h = ctx;
	struct pfs_history *out = h->out;
	struct finished_statement *f;
	uint64_t consumer, wait_ps;
	int64_t peak;

	if (ncols < N_HISTORY_COLS ||
	    pfs_value_u64(&v[H_CONSUMER], &consumer) != 0 ||
	    pfs_value_u64(&v[H_OLDEST], &out->oldest) != 0)
		return h->bad_row = true, -1;
	out->consumer = consumer != 0;
	/* The consumer's row alone: no statement. */
	if (v[H_EVENT_ID].null || out->n == PFS_HISTORY_ROWS)
		return 0;
	f = &out->rows[out->n];
	memset(f, 0, sizeof(*f));
	if (pfs_value_u64(&v[H_EVENT_ID], &f->statement.id) != 0 ||
	    pfs_value_u64(&v[H_END_ID], &f->end_id) != 0 ||
	    pfs_value_u64(&v[H_WAIT], &wait_ps) != 0 ||
	    pfs_value_u64(&v[H_ROWS_SENT], &f->rows_sent) != 0 ||
	    pfs_value_u64(&v[H_ROWS_EXAMINED], &f->rows_examined) != 0 ||
	    pfs_value_i64(&v[H_PEAK], &peak) != 0)
		return h->bad_row = true, -1;
	f->statement.thread_id = h->thread_id;
	f->statement.has_id = true;
	f->statement.ended = true;
	statement_copy(f->statement.digest, STATEMENT_DIGEST_MAX,
	    v[H_DIGEST].s, v[H_DIGEST].len);
	statement_set_text(&f->statement, v[H_TEXT].s, v[H_TEXT].len);
	f->duration_us = wait_ps / 1000000;
	f->has_peak = !v[H_PEAK].null;
	f->peak_bytes = peak;
	out->n++;
	return 0;
}

enum pfs_status
pfs_thread_history(struct conn *c, const struct server_kind *k,
    uint64_t thread_id, uint64_t from_id, struct pfs_history *out,
    char *err, size_t errlen)
{
	char sql[1024];
	struct conn_param params[3] = {
		{ .i = (int64_t)thread_id }, { .i = (int64_t)thread_id },
		{ .i = from_id > INT64_MAX ? INT64_MAX : (int64_t)from_id },
	};
	struct history_read h = { .out = out, .thread_id = thread_id };
	enum conn_status st;

	out->peaks = pfs_sql_keeps_statement_peaks(k);
	out->consumer = false;
	out->oldest = 0;
	out->n = 0;
	if (!out->peaks || from_id == PFS_HISTORY_PROBE)
		return PFS_OK;
	/* The same text each time, so it stays prepared on the connection. */
	if (pfs_sql_thread_history(sql, sizeof(sql), STATEMENT_TEXT_CHARS,
	    PFS_HISTORY_ROWS) != 0) {
		snprintf(err, errlen, "the query of the history does not fit");
		return PFS_ERROR;
	}
	st = conn_query_kept(c, sql, params, 3, history_row, &h, NULL, err,
	    errlen);
	if (st != CONN_OK) {
		if (h.bad_row)
			snprintf(err, errlen, "unexpected value in "
			    "events_statements_history; worth a bug report "
			    "with the server's version");
		return pfs_query_failed(st, "reading the thread's finished "
		    "statements", err, err, errlen);
	}
	return PFS_OK;
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
