/*
 * The waits of the connection module (conn_io.c): the struct behind
 * struct conn, and the library's calls that wait on the server, run so
 * that they answer its stop flag. Only conn*.c include it, and <mysql.h>
 * with it.
 */
#ifndef MYSQLMEMPROF_CONN_IO_H
#define MYSQLMEMPROF_CONN_IO_H

#include <mysql.h>
#include <stdbool.h>
#include <stddef.h>

#include "conn_types.h"

/*
 * Which non-blocking API the waits go through: Connector/C's _start/_cont
 * pairs, or the _nonblocking calls of Oracle's library since 8.0.16,
 * which has none for prepared statements (conn_stmt.c). Either defines
 * NONBLOCKING. CONN_BLOCKING builds the blocking calls instead, to test
 * that path; an older Oracle library gets them too.
 */
#if !defined(CONN_BLOCKING) && defined(MARIADB_PACKAGE_VERSION)
#define NONBLOCKING 1
#define NONBLOCKING_CONNECTOR_C 1
#elif !defined(CONN_BLOCKING) && MYSQL_VERSION_ID >= 80016
#define NONBLOCKING 1
#define NONBLOCKING_ORACLE 1
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

/*
 * Drops a connection whose wait a stop or a timeout abandoned
 * (c->abandoned): CONN_STOPPED or CONN_LOST, with err saying which.
 */
enum conn_status conn_drop(struct conn *c, char *err, size_t errlen);

/*
 * The library's calls that wait on the server. They return what the
 * library's call returns; when a stop or a timeout ended the wait,
 * c->abandoned is set.
 */
MYSQL *conn_io_connect(struct conn *c, const struct conn_params *p);
int conn_io_query(struct conn *c, const char *sql);
MYSQL_RES *conn_io_store(struct conn *c);
/*
 * Prepared statements. Oracle's library can only wait on them blocked,
 * so with it conn_stmt.c takes the text protocol and these are unused.
 */
int conn_io_prepare(struct conn *c, MYSQL_STMT *st, const char *sql);
int conn_io_execute(struct conn *c, MYSQL_STMT *st);
int conn_io_stmt_store(struct conn *c, MYSQL_STMT *st);

#endif
