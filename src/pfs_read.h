/*
 * Reading memory as a sample source: one reader reads the memory rows of a
 * thread, or of a grain's summary table, once per sample, through the
 * connection of the moment (*conn: the session's, which a reconnect
 * replaces), so that a reconnect needs no word to the reader. The session
 * makes readers (session_ops.reader_create); nothing else does.
 */
#ifndef MYSQLMEMPROF_PFS_READ_H
#define MYSQLMEMPROF_PFS_READ_H

#include <stdint.h>

#include "pfs.h"
#include "source.h"

struct pfs_reader;

/* A reader of thread_id's memory; conn is borrowed. NULL when out of memory. */
struct pfs_reader *pfs_reader_create(struct conn *const *conn,
    uint64_t thread_id);

/*
 * A reader of a grain's summary table; conn, user and host are borrowed,
 * and user and host go to the server as parameters. NULL when out of
 * memory.
 */
struct pfs_reader *pfs_reader_create_grain(struct conn *const *conn,
    enum pfs_grain grain, const char *user, const char *host);
/* PFS_NOT_FOUND, saying where to look, when the grain has no row at all. */
enum pfs_status pfs_check_grain(struct conn *c, enum pfs_grain grain,
    const char *user, const char *host, char *err, size_t errlen);
/*
 * Reads no statement id nor digest, only threads.PROCESSLIST_INFO: for when
 * pfs_check_statements() found events_statements_current off.
 */
void pfs_reader_without_statements(struct pfs_reader *r);
void pfs_reader_free(struct pfs_reader *r);
struct source pfs_reader_source(struct pfs_reader *r);

#endif
