/*
 * The connection to the server: the only module that includes <mysql.h>.
 * It hides which client library the build uses (MariaDB Connector/C or
 * Oracle's libmysqlclient) and sorts its errors into classes.
 */
#ifndef MYSQLMEMPROF_CONN_H
#define MYSQLMEMPROF_CONN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "conn_types.h"

struct conn;

/*
 * Connects; on failure *out is NULL and err holds one line naming where it
 * tried to connect and the server's message. The caller owns *out.
 * A stop gives CONN_STOPPED; any other failure CONN_DENIED or CONN_FAILED.
 */
enum conn_status conn_open(struct conn **out, const struct conn_params *p,
    char *err, size_t errlen);
void conn_close(struct conn *c);

/*
 * Called for each row of a result. values[i] is NULL for SQL NULL and
 * otherwise NUL-terminated, with lengths[i] bytes. Return 0 to go on.
 */
typedef int (*conn_row_fn)(void *ctx, unsigned ncols, char **values,
    const unsigned long *lengths);

/*
 * Runs one statement and hands each row to fn (NULL: rows ignored). On
 * failure err holds the server's message and *server_errno (if not NULL)
 * its error number. A non-zero return of fn stops and gives CONN_FAILED.
 * After CONN_STOPPED every later query gives CONN_STOPPED at once.
 */
enum conn_status conn_query(struct conn *c, const char *sql, conn_row_fn fn,
    void *ctx, unsigned *server_errno, char *err, size_t errlen);

/* A parameter of conn_query_params(): a string or an integer. */
struct conn_param {
	const char *s; /* NULL: the integer i */
	int64_t i;
};

/*
 * As conn_query(), but sql holds a `?` for each of the n params, which are
 * sent apart from the text (a prepared statement): no quote, backslash or
 * sql_mode can make a parameter part of the SQL.
 */
enum conn_status conn_query_params(struct conn *c, const char *sql,
    const struct conn_param *params, unsigned n, conn_row_fn fn, void *ctx,
    unsigned *server_errno, char *err, size_t errlen);

/*
 * A column of a row of conn_query_kept(). An integer column comes as an
 * integer, not as text to be parsed again: a sample has some 150 of them.
 */
struct conn_value {
	bool null;        /* then nothing else but is_int means anything */
	bool is_int;      /* i or u holds it; s is NULL */
	bool is_unsigned; /* u, not i */
	union {
		int64_t i;
		uint64_t u;
	};
	const char *s;    /* any other column: len bytes, no NUL after them */
	unsigned long len;
};
typedef int (*conn_value_fn)(void *ctx, unsigned ncols,
    const struct conn_value *values);
/*
 * As conn_query_params(), but the statement stays prepared on the
 * connection (a few are kept, the oldest closed first) and the next call
 * with the same sql only executes it: for the query of every sample. A
 * failed call closes it, so the next one prepares it again. Rows come
 * as typed values.
 */
enum conn_status conn_query_kept(struct conn *c, const char *sql,
    const struct conn_param *params, unsigned n, conn_value_fn fn, void *ctx,
    unsigned *server_errno, char *err, size_t errlen);
/*
 * As conn_query_kept(), for a result whose columns from shared on hold the
 * same value in every row (a row joined to each): fn reads them in the
 * first row only, and in the others they hold nothing to be read. The
 * library then converts them once a result where it can, not once a row.
 * *kept_id is the caller's number for sql's kept statement, which finds
 * it without comparing the text: 0 at first, and set to 0 again whenever
 * the text at sql changes; the call sets it.
 */
enum conn_status conn_query_shared(struct conn *c, const char *sql,
    uint64_t *kept_id, const struct conn_param *params, unsigned n,
    unsigned shared, conn_value_fn fn, void *ctx, unsigned *server_errno,
    char *err, size_t errlen);
/* The TLS cipher of the session, or NULL when it is not encrypted. */
const char *conn_cipher(struct conn *c);
/* The server's version string, e.g. "10.11.6-MariaDB-0+deb12u1". */
const char *conn_server_version(struct conn *c);

#endif
