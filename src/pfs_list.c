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
