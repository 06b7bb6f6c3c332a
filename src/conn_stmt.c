/*
 * Prepared statements: conn_query_params() sends its parameters apart from
 * the SQL and fetches each column as a string, however long.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "conn_impl.h"

/* The most parameters and result columns conn_query_params() takes. */
#define MAX_PARAMS 16
#define MAX_COLUMNS 32

/* MYSQL_BIND's flags: my_bool in Connector/C and MySQL 5.7, bool in 8.0. */
#if defined(MARIADB_PACKAGE_VERSION) || MYSQL_VERSION_ID < 80000
typedef my_bool bind_flag;
#else
typedef bool bind_flag;
#endif

/* The columns of a prepared statement's result, fetched as strings. */
struct columns {
	unsigned n;
	MYSQL_BIND bind[MAX_COLUMNS];
	char *buf[MAX_COLUMNS];
	size_t cap[MAX_COLUMNS]; /* bytes of buf, one kept for the NUL */
	unsigned long len[MAX_COLUMNS];
	bind_flag null[MAX_COLUMNS];
	bind_flag error[MAX_COLUMNS];
};

static void
columns_free(struct columns *cols)
{
	for (unsigned i = 0; i < cols->n; i++)
		free(cols->buf[i]);
}

static int
columns_bind(MYSQL_STMT *st, struct columns *cols)
{
	for (unsigned i = 0; i < cols->n; i++) {
		MYSQL_BIND *b = &cols->bind[i];

		if (cols->buf[i] == NULL) {
			cols->cap[i] = 256;
			if ((cols->buf[i] = malloc(cols->cap[i])) == NULL)
				return -1;
		}
		memset(b, 0, sizeof(*b));
		b->buffer_type = MYSQL_TYPE_STRING;
		b->buffer = cols->buf[i];
		b->buffer_length = cols->cap[i] - 1;
		b->length = &cols->len[i];
		b->is_null = &cols->null[i];
		b->error = &cols->error[i];
	}
	return mysql_stmt_bind_result(st, cols->bind) != 0 ? -1 : 0;
}

/* Fetches in full the columns a row did not fit, growing their buffers. */
static int
columns_refetch(MYSQL_STMT *st, struct columns *cols)
{
	int grown = 0;

	for (unsigned i = 0; i < cols->n; i++) {
		MYSQL_BIND b;
		char *p;

		if (cols->null[i] || cols->len[i] < cols->cap[i])
			continue;
		if ((p = realloc(cols->buf[i], cols->len[i] + 1)) == NULL)
			return -1;
		cols->buf[i] = p;
		cols->cap[i] = cols->len[i] + 1;
		b = cols->bind[i];
		b.buffer = p;
		b.buffer_length = cols->len[i];
		if (mysql_stmt_fetch_column(st, &b, i, 0) != 0)
			return -1;
		grown = 1;
	}
	/* The next rows go into the grown buffers. */
	return grown ? columns_bind(st, cols) : 0;
}

static enum conn_status
stmt_failed(struct conn *c, MYSQL_STMT *st, unsigned *server_errno,
    char *err, size_t errlen)
{
	/* Closed after the connection, so that it sends nothing. */
	if (c->abandoned) {
		enum conn_status cs = conn_drop(c, err, errlen);

		if (st != NULL)
			mysql_stmt_close(st);
		return cs;
	}
	unsigned e = st != NULL ? mysql_stmt_errno(st) : mysql_errno(c->mysql);

	if (server_errno != NULL)
		*server_errno = e;
	snprintf(err, errlen, "%s", st != NULL ? mysql_stmt_error(st) :
	    mysql_error(c->mysql));
	if (st != NULL)
		mysql_stmt_close(st);
	return e == 0 ? CONN_FAILED : conn_classify(e);
}

enum conn_status
conn_query_params(struct conn *c, const char *sql,
    const struct conn_param *params, unsigned n, conn_row_fn fn, void *ctx,
    unsigned *server_errno, char *err, size_t errlen)
{
	MYSQL_BIND pb[MAX_PARAMS];
	unsigned long plen[MAX_PARAMS];
	long long pint[MAX_PARAMS];
	struct columns cols = { 0 };
	char *values[MAX_COLUMNS];
	MYSQL_STMT *st;
	int rc;

	if (server_errno != NULL)
		*server_errno = 0;
	if (errlen > 0)
		err[0] = '\0';
	if (n > MAX_PARAMS) {
		snprintf(err, errlen, "too many parameters");
		return CONN_FAILED;
	}
	if (c->mysql == NULL)
		return conn_drop(c, err, errlen);
	if ((st = mysql_stmt_init(c->mysql)) == NULL)
		return stmt_failed(c, NULL, server_errno, err, errlen);
	if (conn_io_prepare(c, st, sql) != 0)
		return stmt_failed(c, st, server_errno, err, errlen);
	if (mysql_stmt_param_count(st) != n) {
		snprintf(err, errlen, "the statement takes %lu parameters, not "
		    "%u", (unsigned long)mysql_stmt_param_count(st), n);
		mysql_stmt_close(st);
		return CONN_FAILED;
	}
	memset(pb, 0, sizeof(pb));
	for (unsigned i = 0; i < n; i++) {
		if (params[i].s != NULL) {
			plen[i] = strlen(params[i].s);
			pb[i].buffer_type = MYSQL_TYPE_STRING;
			pb[i].buffer = (void *)params[i].s;
			pb[i].buffer_length = plen[i];
			pb[i].length = &plen[i];
		} else {
			pint[i] = params[i].i;
			pb[i].buffer_type = MYSQL_TYPE_LONGLONG;
			pb[i].buffer = &pint[i];
		}
	}
	if ((n > 0 && mysql_stmt_bind_param(st, pb) != 0) ||
	    conn_io_execute(c, st) != 0)
		return stmt_failed(c, st, server_errno, err, errlen);
	if ((cols.n = mysql_stmt_field_count(st)) == 0) {
		mysql_stmt_close(st);
		return CONN_OK;
	}
	if (cols.n > MAX_COLUMNS) {
		mysql_stmt_close(st);
		snprintf(err, errlen, "too many columns");
		return CONN_FAILED;
	}
	/* Stored, so that a long column can be fetched again in full. */
	if (columns_bind(st, &cols) != 0 || conn_io_stmt_store(c, st) != 0)
		goto fail;
	while ((rc = mysql_stmt_fetch(st)) != MYSQL_NO_DATA) {
		if (rc == 1 || (rc == MYSQL_DATA_TRUNCATED &&
		    columns_refetch(st, &cols) != 0))
			goto fail;
		for (unsigned i = 0; i < cols.n; i++) {
			values[i] = cols.null[i] ? NULL : cols.buf[i];
			if (!cols.null[i])
				cols.buf[i][cols.len[i]] = '\0';
		}
		if (fn != NULL && fn(ctx, cols.n, values, cols.len) != 0) {
			columns_free(&cols);
			mysql_stmt_close(st);
			if (err[0] == '\0')
				snprintf(err, errlen, "unexpected result");
			return CONN_FAILED;
		}
	}
	columns_free(&cols);
	mysql_stmt_close(st);
	return CONN_OK;
fail:
	columns_free(&cols);
	if (!c->abandoned && mysql_stmt_errno(st) == 0) {
		mysql_stmt_close(st);
		snprintf(err, errlen, "out of memory");
		return CONN_FAILED;
	}
	return stmt_failed(c, st, server_errno, err, errlen);
}
