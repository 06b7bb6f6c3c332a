/* --list: every thread of the server, largest memory first. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pfs_rows.h"
#include "pfs_sql.h"

struct list_ctx {
	struct thread_list *l;
	size_t cap;
	int failed; /* out of memory */
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
	if (pfs_column_u64(v[0], &t->thread_id) != 0)
		return -1;
	t->has_connection = v[1] != NULL;
	if (pfs_column_u64(v[1], &t->connection_id) != 0)
		return -1;
	t->type = dup_column(v[2], &lc->failed);
	t->name = dup_column(v[3], &lc->failed);
	t->user = dup_column(v[4], &lc->failed);
	t->host = dup_column(v[5], &lc->failed);
	t->command = dup_column(v[6], &lc->failed);
	t->has_time = v[7] != NULL;
	if (pfs_column_i64(v[7], &x) != 0)
		return -1;
	t->time_s = x;
	t->state = dup_column(v[8], &lc->failed);
	if (pfs_column_i64(v[9], &t->current_bytes) != 0)
		return -1;
	/* The bytes as they are: a statement may hold a NUL, shown escaped. */
	if (v[10] != NULL) {
		if ((t->statement = malloc(len[10] + 1)) == NULL)
			return lc->failed = 1, -1;
		memcpy(t->statement, v[10], len[10]);
		t->statement[len[10]] = '\0';
		t->statement_len = len[10];
	}
	return lc->failed ? -1 : 0;
}

enum pfs_status
pfs_list_threads(struct conn *c, const struct server_kind *k,
    struct thread_list *out, char *err, size_t errlen)
{
	struct list_ctx lc = { .l = out };
	enum conn_status st;

	memset(out, 0, sizeof(*out));
	st = conn_query(c, pfs_sql_list_threads(k), list_row, &lc, NULL, err,
	    errlen);
	if (st != CONN_OK) {
		thread_list_free(out);
		if (lc.failed) {
			snprintf(err, errlen, "out of memory listing threads");
			return PFS_ERROR;
		}
		return pfs_query_failed(st, "listing threads", err, err,
		    errlen);
	}
	return PFS_OK;
}

struct top_ctx {
	struct thread_total *v;
	size_t max, n;
};

static int
top_row(void *ctx, unsigned ncols, char **v, const unsigned long *len)
{
	struct top_ctx *tc = ctx;
	struct thread_total *t;

	if (ncols < 6)
		return -1;
	if (tc->n == tc->max)
		return 0; /* LIMIT said so already; a join could add a row */
	t = &tc->v[tc->n];
	memset(t, 0, sizeof(*t));
	if (pfs_column_u64(v[0], &t->thread_id) != 0 ||
	    pfs_column_i64(v[5], &t->current_bytes) != 0)
		return -1;
	pfs_copy_column(t->name, sizeof(t->name), v[1], len[1]);
	pfs_copy_column(t->user, sizeof(t->user), v[2], len[2]);
	pfs_copy_column(t->host, sizeof(t->host), v[3], len[3]);
	pfs_copy_column(t->digest, sizeof(t->digest), v[4], len[4]);
	tc->n++;
	return 0;
}

enum pfs_status
pfs_top_threads(struct conn *c, size_t max, struct thread_total *out,
    size_t *n, char *err, size_t errlen)
{
	struct top_ctx tc = { .v = out, .max = max };
	enum conn_status st;
	char sql[1024];

	*n = 0;
	if (pfs_sql_top_threads(sql, sizeof(sql), max) != 0) {
		snprintf(err, errlen, "internal error: the top threads query "
		    "does not fit");
		return PFS_ERROR;
	}
	st = conn_query(c, sql, top_row, &tc, NULL, err, errlen);
	if (st != CONN_OK)
		return pfs_query_failed(st, "reading the top threads", err, err,
		    errlen);
	*n = tc.n;
	return PFS_OK;
}

struct conns_ctx {
	struct conn_list *l;
	int64_t now_ms;
	int failed; /* out of memory */
};

/* Copies a column cut to fit, a NUL inside shown as '?' as a look does. */
static void
copy_text(char *dst, size_t size, const char *v, unsigned long len)
{
	pfs_copy_column(dst, size, v, len);
	for (size_t i = 0; v != NULL && i < len && i + 1 < size; i++)
		if (dst[i] == '\0')
			dst[i] = '?';
}

static int
conn_row(void *ctx, unsigned ncols, char **v, const unsigned long *len)
{
	struct conns_ctx *cc = ctx;
	struct conn_row *r;
	int64_t ms, running;

	if (ncols < 12)
		return -1;
	if (conn_list_reserve(cc->l, cc->l->n + 1) != 0)
		return cc->failed = 1, -1;
	r = &cc->l->v[cc->l->n];
	memset(r, 0, sizeof(*r));
	if (pfs_column_u64(v[0], &r->connection_id) != 0 ||
	    pfs_column_u64(v[1], &r->thread_id) != 0 ||
	    pfs_column_i64(v[6], &ms) != 0 ||
	    pfs_column_i64(v[7], &r->bytes) != 0 ||
	    pfs_column_i64(v[8], &r->peak_bytes) != 0 ||
	    pfs_column_i64(v[9], &running) != 0)
		return -1;
	if (v[8] == NULL)
		r->peak_bytes = -1;
	r->since_ms = cc->now_ms - ms;
	r->running = running != 0;
	pfs_copy_column(r->user, sizeof(r->user), v[2], len[2]);
	pfs_copy_column(r->host, sizeof(r->host), v[3], len[3]);
	pfs_copy_column(r->db, sizeof(r->db), v[4], len[4]);
	pfs_copy_column(r->command, sizeof(r->command), v[5], len[5]);
	pfs_copy_column(r->digest, sizeof(r->digest), v[10], len[10]);
	copy_text(r->text, sizeof(r->text), v[11], len[11]);
	cc->l->n++;
	return 0;
}

/* MariaDB: whether our account sees every connection's row. */
static enum pfs_status
process_privilege(struct conn *c, bool *has, char *err, size_t errlen)
{
	struct pfs_ints r = { 0 };
	enum conn_status st;

	st = conn_query(c, pfs_sql_process_privilege, pfs_ints_row, &r, NULL,
	    err, errlen);
	if (st != CONN_OK)
		return pfs_query_failed(st, "checking the PROCESS privilege",
		    err, err, errlen);
	*has = r.rows > 0 && r.v[0] > 0;
	return PFS_OK;
}

/*
 * The way every connection is read on this connection, once: the kind's,
 * and on MariaDB whether our account holds PROCESS. *way stays unknown
 * when the question fails.
 */
static enum pfs_status
learn_way(struct conn *c, const struct server_kind *k, enum conns_way *way,
    char *err, size_t errlen)
{
	enum pfs_status ps;
	bool has = false;

	if (*way != CONNS_UNKNOWN)
		return PFS_OK;
	*way = pfs_sql_conns_way(k);
	if (*way != CONNS_PROCESSLIST)
		return PFS_OK;
	if ((ps = process_privilege(c, &has, err, errlen)) != PFS_OK) {
		*way = CONNS_UNKNOWN;
		return ps;
	}
	if (!has)
		*way = CONNS_NO_PROCESS;
	return PFS_OK;
}

enum pfs_status
pfs_connections(struct conn *c, const struct server_kind *k, int64_t now_ms,
    enum conns_way *way, struct conn_list *out, char *err, size_t errlen)
{
	struct conns_ctx cc = { .l = out, .now_ms = now_ms };
	enum conn_status st;
	enum pfs_status ps;

	out->n = 0;
	if ((ps = learn_way(c, k, way, err, errlen)) != PFS_OK)
		return ps;
	st = conn_query(c, pfs_sql_connections(*way), conn_row, &cc, NULL, err,
	    errlen);
	if (st != CONN_OK) {
		out->n = 0;
		if (cc.failed) {
			snprintf(err, errlen, "out of memory reading the "
			    "connections");
			return PFS_ERROR;
		}
		return pfs_query_failed(st, "reading the connections", err, err,
		    errlen);
	}
	return PFS_OK;
}

/* The one row of pfs_sql_measured_connections(). */
static int
measured_row(void *ctx, unsigned ncols, char **v, const unsigned long *len)
{
	struct measured_connections *m = ctx;

	if (ncols < 7)
		return -1;
	if (pfs_column_u64(v[0], &m->connections) != 0 ||
	    pfs_column_i64(v[1], &m->sum_bytes) != 0 ||
	    pfs_column_i64(v[2], &m->largest_bytes) != 0 ||
	    pfs_column_i64(v[3], &m->sum_peaks) != 0 ||
	    pfs_column_i64(v[4], &m->largest_peak) != 0 ||
	    pfs_column_i64(v[5], &m->largest_statement_peak) != 0)
		return -1;
	if (v[3] == NULL)
		m->sum_peaks = m->largest_peak = -1;
	if (v[5] == NULL)
		m->largest_statement_peak = -1;
	copy_text(m->largest_statement, sizeof(m->largest_statement), v[6],
	    len[6]);
	return 0;
}

enum pfs_status
pfs_measured_connections(struct conn *c, const struct server_kind *k,
    enum conns_way *way, struct measured_connections *out, char *err,
    size_t errlen)
{
	enum conn_status st;
	enum pfs_status ps;

	*out = (struct measured_connections){ .sum_peaks = -1,
	    .largest_peak = -1, .largest_statement_peak = -1 };
	if ((ps = learn_way(c, k, way, err, errlen)) != PFS_OK)
		return ps;
	out->no_process = *way == CONNS_NO_PROCESS;
	st = conn_query(c, pfs_sql_measured_connections(*way), measured_row,
	    out, NULL, err, errlen);
	if (st != CONN_OK) {
		*out = (struct measured_connections){ .sum_peaks = -1,
		    .largest_peak = -1, .largest_statement_peak = -1 };
		return pfs_query_failed(st, "summing the connections' memory",
		    err, err, errlen);
	}
	return PFS_OK;
}
