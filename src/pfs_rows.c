/*
 * Reading performance_schema's rows: the parts that need no server, kept
 * apart so that unit tests can reach them.
 */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "pfs_rows.h"

enum pfs_status
pfs_query_failed(enum conn_status st, const char *what,
    const char *server_msg, char *err, size_t errlen)
{
	char msg[512];

	snprintf(msg, sizeof(msg), "%s", server_msg);
	/*
	 * A stop drops the connection: as lost, so that what reconnects
	 * looks at the stop flag first and ends quietly.
	 */
	if (st == CONN_LOST || st == CONN_STOPPED) {
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
 */
int
pfs_bytes_u64(const char *v, size_t n, uint64_t *out)
{
	uint64_t x = 0;

	if (n == 0)
		return -1;
	for (size_t i = 0; i < n; i++) {
		unsigned d = (unsigned)(v[i] - '0');

		if (d > 9 || x > (UINT64_MAX - d) / 10)
			return -1;
		x = x * 10 + d;
	}
	*out = x;
	return 0;
}

int
pfs_bytes_i64(const char *v, size_t n, int64_t *out)
{
	uint64_t x;
	size_t neg = n > 0 && *v == '-';

	if (pfs_bytes_u64(v + neg, n - neg, &x) != 0 ||
	    x > (neg ? (uint64_t)INT64_MAX + 1 : (uint64_t)INT64_MAX))
		return -1;
	*out = neg ? (int64_t)(0 - x) : (int64_t)x;
	return 0;
}

int
pfs_column_u64(const char *v, uint64_t *out)
{
	if (v == NULL) {
		*out = 0;
		return 0;
	}
	return pfs_bytes_u64(v, strlen(v), out);
}

int
pfs_column_i64(const char *v, int64_t *out)
{
	if (v == NULL) {
		*out = 0;
		return 0;
	}
	return pfs_bytes_i64(v, strlen(v), out);
}

int
pfs_statement_row(struct statement *st, uint64_t thread_id, bool consumer,
    const struct conn_value *v)
{
	const struct conn_value *digest = &v[PFS_STMT_DIGEST];
	const struct conn_value *text = &v[PFS_STMT_TEXT];

	st->thread_id = thread_id;
	st->has_id = !v[PFS_STMT_EVENT_ID].null;
	if (pfs_value_u64(&v[PFS_STMT_EVENT_ID], &st->id) != 0)
		return -1;
	statement_copy(st->digest, STATEMENT_DIGEST_MAX,
	    digest->null ? NULL : digest->s, digest->len);
	/*
	 * Read right after threads (pfs_sql_thread_memory()'s order), the
	 * statement's row can be missed while the next statement takes its
	 * place, when PROCESSLIST_INFO already holds the next text (seen in
	 * CI on MariaDB 11.8 and MySQL 9.7): named so, a sample would show
	 * that statement without its id, and the next ones with it, as two
	 * statements.
	 */
	if ((consumer && !st->has_id) || text->null)
		statement_set_text(st, NULL, 0);
	else
		statement_set_text(st, text->s, text->len);
	st->ended = !v[PFS_STMT_END_ID].null;
	return 0;
}

void
pfs_copy_column(char *dst, size_t size, const char *v, unsigned long len)
{
	size_t n = v == NULL ? 0 : len < size - 1 ? len : size - 1;

	if (n > 0)
		memcpy(dst, v, n);
	dst[n] = '\0';
}

int
pfs_ints_row(void *ctx, unsigned ncols, char **values,
    const unsigned long *len)
{
	struct pfs_ints *r = ctx;

	(void)len;
	if (r->rows++ > 0)
		return 0; /* only the first row matters */
	for (unsigned i = 0; i < ncols && i < 8; i++) {
		r->isnull[i] = values[i] == NULL;
		if (pfs_column_i64(values[i], &r->v[i]) != 0)
			return -1;
	}
	return 0;
}

int
pfs_ints_values(void *ctx, unsigned ncols, const struct conn_value *v)
{
	struct pfs_ints *r = ctx;

	if (r->rows++ > 0)
		return 0; /* only the first row matters */
	for (unsigned i = 0; i < ncols && i < 8; i++) {
		r->isnull[i] = v[i].null;
		if (pfs_value_i64(&v[i], &r->v[i]) != 0)
			return -1;
	}
	return 0;
}
