/*
 * What the files of the connection module share (conn.c, conn_stmt.c):
 * the module's own header, its waits and struct conn (conn_io.h), and the
 * sorting of errors. Only conn*.c include it, and <mysql.h> with it.
 */
#ifndef MYSQLMEMPROF_CONN_IMPL_H
#define MYSQLMEMPROF_CONN_IMPL_H

#include "conn.h"
#include "conn_io.h"

/* Sorts an error of the library or the server into a class. */
enum conn_status conn_classify(unsigned e);

#endif
