/*
 * What --wait-for and --longer-than ask the server: the running
 * statements that match a filter, and what one thread runs now.
 */
#include <inttypes.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "pfs_rows.h"
#include "pfs_sql.h"

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
	pfs_copy_column(m->digest, sizeof(m->digest), v[4], len[4]);
	pfs_copy_column(m->user, sizeof(m->user), v[5], len[5]);
	pfs_copy_column(m->db, sizeof(m->db), v[6], len[6]);
	pfs_copy_column(m->text, sizeof(m->text), v[7], len[7]);
	/* The text is for notes and headings: a NUL there is shown, not an end. */
	for (size_t i = 0; v[7] != NULL && i < len[7] && i + 1 < sizeof(m->text);
	    i++)
		if (m->text[i] == '\0')
			m->text[i] = '?';
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
	    pfs_column_i64(v[STMT_NCOLS], &m.current_bytes) != 0)
		return -1;
	if (match_list_add(fc->l, &m) != 0)
		return fc->failed = 1, -1;
	return 0;
}

enum pfs_status
pfs_find_statements(struct conn *c, const struct match_filter *f,
    uint64_t own_thread, struct match_list *out, char *err, size_t errlen)
{
	struct conn_param p[6];
	struct find_ctx fc = { .l = out };
	struct server_kind k = server_kind_parse(conn_server_version(c));
	char sql[2048];
	unsigned n = 0;
	enum conn_status st;

	memset(out, 0, sizeof(*out));
	/* MySQL keys its memory tables by thread; MariaDB has no index. */
	pfs_sql_find_statements(sql, sizeof(sql), f->pattern != NULL,
	    f->user != NULL, f->db != NULL, f->min_bytes > 0,
	    k.flavour == SERVER_MYSQL);
	p[n++] = (struct conn_param){ .i = (int64_t)own_thread };
	p[n++] = (struct conn_param){ .i = f->min_time_s };
	if (f->pattern != NULL)
		p[n++] = (struct conn_param){ .s = f->pattern };
	if (f->user != NULL)
		p[n++] = (struct conn_param){ .s = f->user };
	if (f->db != NULL)
		p[n++] = (struct conn_param){ .s = f->db };
	if (f->min_bytes > 0)
		p[n++] = (struct conn_param){ .i = f->min_bytes };
	st = conn_query_params(c, sql, p, n, find_row, &fc, NULL, err, errlen);
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
