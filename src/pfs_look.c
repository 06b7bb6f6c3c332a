/*
 * What --wait-for and --longer-than ask the server: the running
 * statements that match a filter, and what one thread runs now.
 */
#include <inttypes.h>
#include <stddef.h>
#include <stdlib.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "pfs_rows.h"
#include "pfs_sql.h"

/*
 * The digest, user, db and text of a statement, four columns in a row from
 * v: the text is for notes and headings, so a NUL there is shown, not an end.
 */
static void
copy_texts(struct stmt_match *m, char **v, const unsigned long *len)
{
	pfs_copy_column(m->digest, sizeof(m->digest), v[0], len[0]);
	pfs_copy_column(m->user, sizeof(m->user), v[1], len[1]);
	pfs_copy_column(m->db, sizeof(m->db), v[2], len[2]);
	pfs_copy_column(m->text, sizeof(m->text), v[3], len[3]);
	for (size_t i = 0; v[3] != NULL && i < len[3] && i + 1 < sizeof(m->text);
	    i++)
		if (m->text[i] == '\0')
			m->text[i] = '?';
}

/*
 * The columns of a statement's row, as pfs_sql.c asks for them (its
 * STMT_COLUMNS), and after them one more: the memory, or whether it runs.
 */
#define STMT_NCOLS 9
/* Fills m from the STMT_COLUMNS of a row; -1 on a value that is not one. */
static int
stmt_row(struct stmt_match *m, char **v, const unsigned long *len)
{
	memset(m, 0, sizeof(*m));
	if (pfs_column_u64(v[0], &m->thread_id) != 0 ||
	    pfs_column_u64(v[1], &m->connection_id) != 0 ||
	    pfs_column_i64(v[2], &m->time_s) != 0 ||
	    pfs_column_i64(v[3], &m->start_s) != 0 ||
	    pfs_column_u64(v[8], &m->completed) != 0)
		return -1;
	copy_texts(m, v + 4, len + 4);
	return 0;
}

struct find_ctx {
	struct match_list *l;
	bool idle;  /* the rows end with the candidate and idle flags */
	int failed; /* out of memory */
};

static bool
flag_set(const char *v)
{
	return v != NULL && strcmp(v, "1") == 0;
}

static int
find_row(void *ctx, unsigned ncols, char **v, const unsigned long *len)
{
	struct find_ctx *fc = ctx;
	unsigned cand = STMT_NCOLS + (fc->l->peaks ? 2 : 1);
	struct stmt_match m;

	if (ncols < cand + (fc->l->peaks || fc->idle ? 1 : 0) +
	    (fc->idle ? 1 : 0) || stmt_row(&m, v, len) != 0 ||
	    pfs_column_i64(v[STMT_NCOLS], &m.current_bytes) != 0)
		return -1;
	/* A peak the account may not see (MariaDB without PROCESS) is NULL: 0. */
	if (fc->l->peaks && pfs_column_i64(v[STMT_NCOLS + 1], &m.peak_bytes) !=
	    0)
		return -1;
	/* A row is a running candidate, an idle one, or there for its peak. */
	if (fc->idle)
		m.idle = !flag_set(v[cand]) && flag_set(v[cand + 1]);
	if (fc->l->peaks)
		m.peak_only = !flag_set(v[cand]) && !m.idle;
	if (match_list_add(fc->l, &m) != 0)
		return fc->failed = 1, -1;
	return 0;
}

/*
 * The value of each placeholder of a look's text, in the text's order
 * (pfs_sql.h: enum sql_arg): the one binding of both looks' parameters.
 */
static void
bind_args(const struct sql_args *a, const struct match_filter *f,
    uint64_t own_thread, struct conn_param *p)
{
	const struct conn_param by_kind[SQL_ARG_KINDS] = {
		[SQL_OWN_THREAD] = { .i = (int64_t)own_thread },
		[SQL_SECONDS] = { .i = f->min_time_s },
		[SQL_PATTERN] = { .s = f->pattern },
		[SQL_USER] = { .s = f->user },
		[SQL_DB] = { .s = f->db },
		[SQL_BYTES] = { .i = f->min_bytes },
		[SQL_PEAK] = { .i = f->peak_bytes },
		[SQL_IDLE_BYTES] = { .i = f->idle_bytes },
	};

	for (unsigned i = 0; i < a->n; i++)
		p[i] = by_kind[a->v[i]];
}

enum pfs_status
pfs_find_statements(struct conn *c, const struct server_kind *k,
    const struct match_filter *f, uint64_t own_thread,
    struct match_list *out, char *err, size_t errlen)
{
	struct conn_param p[SQL_ARGS_MAX];
	struct sql_args args;
	struct find_sql q = {
		.pattern = f->pattern != NULL, .user = f->user != NULL,
		.db = f->db != NULL, .bytes = f->min_bytes > 0,
		.memory = pfs_sql_find_memory(k),
		.completed = !f->no_completed,
		.peaks = f->peak_bytes > 0 && pfs_sql_keeps_peaks(k),
		.idle = f->idle_bytes > 0 && f->pattern == NULL &&
		    f->min_bytes == 0,
	};
	struct find_ctx fc = { .l = out, .idle = q.idle };
	char sql[2048];
	enum conn_status st;

	memset(out, 0, sizeof(*out));
	out->peaks = q.peaks;
	if (q.peaks)
		q.bytes = false; /* the caller compares: see match_filter */
	if (pfs_sql_find_statements(sql, sizeof(sql), &q, &args) != 0) {
		snprintf(err, errlen, "looking for statements: the query does "
		    "not fit");
		return PFS_ERROR;
	}
	bind_args(&args, f, own_thread, p);
	st = conn_query_params(c, sql, p, args.n, find_row, &fc, NULL, err,
	    errlen);
	if (st != CONN_OK) {
		match_list_free(out);
		if (fc.failed) {
			snprintf(err, errlen, "out of memory looking for "
			    "statements");
			return PFS_ERROR;
		}
		return pfs_query_failed(st, "looking for statements", err, err,
		    errlen);
	}
	return PFS_OK;
}

/* The columns of pfs_sql_finished_over(). */
enum {
	FO_THREAD, FO_CONNECTION, FO_EVENT_ID, FO_TIMER_WAIT, FO_PEAK,
	FO_BYTES, FO_DIGEST, FO_USER, FO_DB, FO_TEXT, FO_NCOLS
};

struct over_ctx {
	struct match_list *l;
	int failed; /* 1: a bad value, 2: out of memory */
};

static int
over_row(void *ctx, unsigned ncols, char **v, const unsigned long *len)
{
	struct over_ctx *oc = ctx;
	struct stmt_match m = { .ended = true };
	uint64_t wait_ps = 0;

	if (ncols < FO_NCOLS || pfs_column_u64(v[FO_THREAD], &m.thread_id) != 0 ||
	    pfs_column_u64(v[FO_CONNECTION], &m.connection_id) != 0 ||
	    pfs_column_u64(v[FO_EVENT_ID], &m.event_id) != 0 ||
	    (v[FO_TIMER_WAIT] != NULL &&
	    pfs_column_u64(v[FO_TIMER_WAIT], &wait_ps) != 0) ||
	    pfs_column_i64(v[FO_PEAK], &m.peak_bytes) != 0 ||
	    pfs_column_i64(v[FO_BYTES], &m.current_bytes) != 0)
		return oc->failed = 1, -1;
	/* TIMER_WAIT is in picoseconds; NULL when the statement was not timed. */
	m.duration_ms = (int64_t)(wait_ps / 1000000000u);
	m.time_s = m.duration_ms / 1000;
	copy_texts(&m, v + FO_DIGEST, len + FO_DIGEST);
	if (match_list_add(oc->l, &m) != 0)
		return oc->failed = 2, -1;
	return 0;
}

enum pfs_status
pfs_finished_over(struct conn *c, const struct server_kind *k,
    const struct match_filter *f, uint64_t own_thread,
    struct match_list *out, char *err, size_t errlen)
{
	struct conn_param p[SQL_ARGS_MAX];
	struct sql_args args;
	struct over_ctx oc = { .l = out };
	char sql[1536];
	enum conn_status st;

	memset(out, 0, sizeof(*out));
	if (!pfs_sql_keeps_statement_peaks(k) || f->min_bytes <= 0)
		return PFS_OK;
	out->peaks = true;
	if (pfs_sql_finished_over(sql, sizeof(sql), f->min_time_s > 0,
	    f->pattern != NULL, f->user != NULL, f->db != NULL, &args) != 0) {
		snprintf(err, errlen, "looking for ended statements: the query "
		    "does not fit");
		return PFS_ERROR;
	}
	bind_args(&args, f, own_thread, p);
	st = conn_query_params(c, sql, p, args.n, over_row, &oc, NULL, err,
	    errlen);
	if (st != CONN_OK) {
		match_list_free(out);
		if (oc.failed == 2)
			snprintf(err, errlen, "out of memory looking for ended "
			    "statements");
		else if (oc.failed == 1)
			snprintf(err, errlen, "unexpected value in "
			    "events_statements_history; worth a bug report "
			    "with the server's version");
		return oc.failed ? PFS_ERROR : pfs_query_failed(st,
		    "looking for ended statements", err, err, errlen);
	}
	out->peaks = true;
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

	pfs_sql_thread_statement(sql, sizeof(sql), thread_id);
	st = conn_query(c, sql, state_row, &sc, NULL, err, errlen);
	if (st != CONN_OK)
		return pfs_query_failed(st, "looking at the statement", err,
		    err, errlen);
	if (sc.rows == 0) {
		snprintf(err, errlen, "thread %" PRIu64 " ended", thread_id);
		return PFS_NOT_FOUND;
	}
	*running = sc.running;
	return PFS_OK;
}

/* The columns of pfs_sql_threads_memory(): a memory row's, a thread row's. */
enum {
	TM_KIND, TM_THREAD, TM_NAME, TM_CURRENT_BYTES, TM_CURRENT_COUNT,
	TM_HIGH_BYTES, TM_ALLOC_BYTES, TM_FREE_BYTES, TM_ALLOC_COUNT,
	TM_FREE_COUNT, TM_TEXT, TM_NCOLS
};
#define TM_DIGEST TM_NAME
#define TM_EVENT_ID TM_ALLOC_COUNT

struct tm_ctx {
	const uint64_t *ids;
	size_t n_ids;
	struct statement st[HISTORY_SQL_IDS];
	bool has_row[HISTORY_SQL_IDS]; /* the thread still exists */
	struct event_stat *ev;         /* every memory row, in order */
	uint64_t *ev_thread;           /* whose each one is */
	size_t n, cap;
	int failed;                    /* 1: a bad value, 2: out of memory */
};

static ptrdiff_t
tm_index(const struct tm_ctx *t, uint64_t id)
{
	for (size_t i = 0; i < t->n_ids; i++)
		if (t->ids[i] == id)
			return (ptrdiff_t)i;
	return -1;
}

static int
tm_row(void *ctx, unsigned ncols, char **v, const unsigned long *len)
{
	struct tm_ctx *t = ctx;
	struct event_stat *e;
	uint64_t id;
	ptrdiff_t i;

	if (ncols < TM_NCOLS || v[TM_KIND] == NULL ||
	    pfs_column_u64(v[TM_THREAD], &id) != 0 ||
	    (i = tm_index(t, id)) < 0)
		return t->failed = 1, -1;
	if (v[TM_KIND][0] == 't') {
		struct statement *st = &t->st[i];

		t->has_row[i] = true;
		st->thread_id = id;
		st->has_id = v[TM_EVENT_ID] != NULL;
		if (pfs_column_u64(v[TM_EVENT_ID], &st->id) != 0)
			return t->failed = 1, -1;
		statement_copy(st->digest, STATEMENT_DIGEST_MAX, v[TM_DIGEST],
		    len[TM_DIGEST]);
		statement_set_text(st, v[TM_TEXT], len[TM_TEXT]);
		return 0;
	}
	if (v[TM_NAME] == NULL)
		return t->failed = 1, -1;
	if (t->n == t->cap) {
		size_t cap = t->cap ? t->cap * 2 : 128;
		struct event_stat *p = realloc(t->ev, cap * sizeof(*p));
		uint64_t *q;

		if (p == NULL)
			return t->failed = 2, -1;
		t->ev = p;
		if ((q = realloc(t->ev_thread, cap * sizeof(*q))) == NULL)
			return t->failed = 2, -1;
		t->ev_thread = q;
		t->cap = cap;
	}
	e = &t->ev[t->n];
	memset(e, 0, sizeof(*e));
	pfs_copy_column(e->name, sizeof(e->name), v[TM_NAME], len[TM_NAME]);
	if (pfs_column_i64(v[TM_CURRENT_BYTES], &e->current_bytes) != 0 ||
	    pfs_column_i64(v[TM_CURRENT_COUNT], &e->current_count) != 0 ||
	    pfs_column_i64(v[TM_HIGH_BYTES], &e->high_bytes) != 0 ||
	    pfs_column_u64(v[TM_ALLOC_BYTES], &e->alloc_bytes) != 0 ||
	    pfs_column_u64(v[TM_FREE_BYTES], &e->free_bytes) != 0 ||
	    pfs_column_u64(v[TM_ALLOC_COUNT], &e->alloc_count) != 0 ||
	    pfs_column_u64(v[TM_FREE_COUNT], &e->free_count) != 0)
		return t->failed = 1, -1;
	t->ev_thread[t->n++] = id;
	return 0;
}

/* Gathers each thread's rows in front of the array and hands them to fn. */
static int
tm_deliver(struct tm_ctx *t, pfs_thread_memory_fn fn, void *ctx)
{
	size_t done = 0;

	for (size_t i = 0; i < t->n_ids; i++) {
		size_t k = done;

		for (size_t j = done; j < t->n; j++) {
			if (t->ev_thread[j] != t->ids[i])
				continue;
			struct event_stat e = t->ev[j];
			uint64_t id = t->ev_thread[j];

			t->ev[j] = t->ev[k];
			t->ev_thread[j] = t->ev_thread[k];
			t->ev[k] = e;
			t->ev_thread[k++] = id;
		}
		if (t->has_row[i] && fn(ctx, t->ids[i], &t->st[i],
		    t->ev + done, k - done) != 0)
			return -1;
		done = k;
	}
	return 0;
}

enum pfs_status
pfs_threads_memory(struct conn *c, const uint64_t *ids, size_t n,
    bool statements, pfs_thread_memory_fn fn, void *ctx, char *err,
    size_t errlen)
{
	struct tm_ctx *t;
	char sql[4096];
	enum conn_status st;
	enum pfs_status ps = PFS_OK;

	if (n == 0)
		return PFS_OK;
	if (pfs_sql_threads_memory(sql, sizeof(sql), ids, n, statements,
	    STATEMENT_TEXT_CHARS) != 0) {
		snprintf(err, errlen, "too many threads to keep a history of");
		return PFS_ERROR;
	}
	/* Two statements of up to 800 bytes each thread: not for the stack. */
	if ((t = calloc(1, sizeof(*t))) == NULL) {
		snprintf(err, errlen, "out of memory keeping a history");
		return PFS_ERROR;
	}
	t->ids = ids;
	t->n_ids = n;
	st = conn_query(c, sql, tm_row, t, NULL, err, errlen);
	if (st != CONN_OK) {
		if (t->failed == 2)
			snprintf(err, errlen, "out of memory keeping a history");
		else if (t->failed == 1)
			snprintf(err, errlen, "unexpected value in "
			    "memory_summary_by_thread_by_event_name while "
			    "keeping a history");
		ps = t->failed ? PFS_ERROR : pfs_query_failed(st,
		    "keeping a history", err, err, errlen);
	} else if (tm_deliver(t, fn, ctx) != 0) {
		snprintf(err, errlen, "out of memory keeping a history");
		ps = PFS_ERROR;
	}
	free(t->ev);
	free(t->ev_thread);
	free(t);
	return ps;
}
