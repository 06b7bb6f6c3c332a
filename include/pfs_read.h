/*
 * Reading memory as a sample source: one reader reads the memory rows of a
 * thread, or of a grain's summary table, once per sample, through the
 * session's connection of the moment, so that a reconnect needs no word
 * to the reader.
 */
#ifndef MYSQLMEMPROF_PFS_READ_H
#define MYSQLMEMPROF_PFS_READ_H

#include <stdint.h>

#include "pfs.h"
#include "session.h"
#include "source.h"

struct pfs_reader;

/* A reader of thread_id's memory; s is borrowed. NULL when out of memory. */
struct pfs_reader *pfs_reader_create(struct session *s, uint64_t thread_id);

/*
 * A reader of a grain's summary table; s, user and host are borrowed, and
 * user and host go to the server as parameters. NULL when out of memory.
 */
struct pfs_reader *pfs_reader_create_grain(struct session *s,
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
