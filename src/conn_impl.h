/*
 * What the files of the connection module share (conn.c, conn_io.c,
 * conn_stmt.c): the struct behind struct conn, the sorting of errors, and
 * the calls that wait on the server. Only they include <mysql.h>.
 */
#ifndef MYSQLMEMPROF_CONN_IMPL_H
#define MYSQLMEMPROF_CONN_IMPL_H

#include <mysql.h>
#include <stdbool.h>

#include "conn.h"

/*
 * The non-blocking API is Connector/C's. CONN_BLOCKING builds the
 * blocking calls instead, as with Oracle's library, to test that path.
 */
#if defined(MARIADB_PACKAGE_VERSION) && !defined(CONN_BLOCKING)
#define NONBLOCKING 1
#endif

/* The most statements conn_query_kept() keeps prepared on a connection. */
#define CONN_KEPT 4

struct conn_kept;

struct conn {
	MYSQL *mysql;                 /* NULL once a stop dropped it */
	volatile sig_atomic_t *stop;  /* borrowed from conn_params */
	unsigned timeout_s;           /* the wait the library may not time */
	bool abandoned;               /* a stop or timeout ended a wait */
	bool timed_out;               /* and it was timeout_s */
	char where[300]; /* "via socket /x" or "on host:port", for messages */
	/*
	 * conn_query_kept()'s prepared statements, and the call that frees
	 * them, which conn_stmt.c sets when it keeps the first: conn_close()
	 * calls it after mysql_close(), when closing them only frees memory.
	 */
	struct conn_kept *kept[CONN_KEPT];
	unsigned kept_next; /* the slot a new one takes when all are used */
	void (*forget_kept)(struct conn *c);
};

/* Sorts an error of the library or the server into a class. */
enum conn_status conn_classify(unsigned e);

/*
 * Drops a connection whose wait a stop or a timeout abandoned
 * (c->abandoned): CONN_STOPPED or CONN_LOST, with err saying which.
 */
enum conn_status conn_drop(struct conn *c, char *err, size_t errlen);

/*
 * The library's calls that wait on the server, run so that they answer
 * c->stop (conn_io.c). They return what the library's call returns; when
 * a stop or a timeout ended the wait, c->abandoned is set.
 */
MYSQL *conn_io_connect(struct conn *c, const struct conn_params *p);
int conn_io_query(struct conn *c, const char *sql);
MYSQL_RES *conn_io_store(struct conn *c);
int conn_io_prepare(struct conn *c, MYSQL_STMT *st, const char *sql);
int conn_io_execute(struct conn *c, MYSQL_STMT *st);
int conn_io_stmt_store(struct conn *c, MYSQL_STMT *st);

#endif
