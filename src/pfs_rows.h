/*
 * What the pfs_*.c files share: the columns of a row read as numbers, one
 * row of integers, the status of a failed query, and the names of the
 * memory columns they all sum. None of it talks to the server, so it is
 * unit-tested on its own (tests/unit/test_pfs_rows.c).
 */
#ifndef MYSQLMEMPROF_PFS_ROWS_H
#define MYSQLMEMPROF_PFS_ROWS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "conn.h"
#include "pfs.h"

/*
 * The bytes an event, a thread or a summary holds now, and the table of
 * each thread's memory by event: --list and --wait-for sum the one over
 * the other, and the thread reader reads both, so they agree on what a
 * thread's memory is.
 */
#define PFS_BYTES_USED "CURRENT_NUMBER_OF_BYTES_USED"
#define PFS_THREAD_MEMORY \
	"performance_schema.memory_summary_by_thread_by_event_name"

/*
 * A decimal column: NULL counts as 0, as performance_schema means it; the
 * digits (after one '-' for the signed one) must be all there is and fit.
 * Returns 0, or -1 with *out untouched.
 */
int pfs_column_u64(const char *v, uint64_t *out);
int pfs_column_i64(const char *v, int64_t *out);
/* The same of the n bytes at v, which need no NUL after them. */
int pfs_bytes_u64(const char *v, size_t n, uint64_t *out);
int pfs_bytes_i64(const char *v, size_t n, int64_t *out);

/*
 * The same of a typed value (conn_query_kept()): an integer as it is, if
 * it fits, and any other column as pfs_bytes_*() read its len bytes. Inline:
 * a sample reads seven of them a row, and the call was most of their cost.
 */
static inline int
pfs_value_u64(const struct conn_value *v, uint64_t *out)
{
	if (v->null) {
		*out = 0;
		return 0;
	}
	if (!v->is_int)
		return pfs_bytes_u64(v->s, v->len, out);
	if (!v->is_unsigned && v->i < 0)
		return -1;
	*out = v->is_unsigned ? v->u : (uint64_t)v->i;
	return 0;
}

static inline int
pfs_value_i64(const struct conn_value *v, int64_t *out)
{
	if (v->null) {
		*out = 0;
		return 0;
	}
	if (!v->is_int)
		return pfs_bytes_i64(v->s, v->len, out);
	if (v->is_unsigned && v->u > (uint64_t)INT64_MAX)
		return -1;
	*out = v->is_unsigned ? (int64_t)v->u : v->i;
	return 0;
}

/*
 * Whether v is bound as an integer of the signedness asked: a prepared
 * statement's columns keep their binding for every row of a reading, so
 * a reader that checks its row once reads the rest with
 * pfs_value_int(), which needs neither the type nor a range check.
 */
static inline bool
pfs_value_typed(const struct conn_value *v, bool is_unsigned)
{
	return v->is_int && v->is_unsigned == is_unsigned;
}

/* A value pfs_value_typed() accepted, NULL as 0; u too, as two's complement. */
static inline int64_t
pfs_value_int(const struct conn_value *v)
{
	return v->null ? 0 : v->i;
}

/*
 * The columns of a thread's top-level statement, in this order, as the
 * thread reader's query gives them after the memory columns.
 */
enum {
	PFS_STMT_DIGEST, PFS_STMT_EVENT_ID, PFS_STMT_TEXT, PFS_STMT_END_ID,
	PFS_STMT_COLS
};

/*
 * Reads the statement columns at v into st, of thread thread_id. With
 * consumer, they come from events_statements_current joined to the
 * thread: a row there without an id is no statement (the thread ran none,
 * or is between two, its row caught mid-update), and its text, which
 * only threads.PROCESSLIST_INFO could have given, is not taken: st is
 * nothing known. Without it, the text is all there is. Returns -1 on an
 * id that is not a number.
 */
int pfs_statement_row(struct statement *st, uint64_t thread_id,
    bool consumer, const struct conn_value *v);

/* Copies a column of len bytes (NULL: none) into dst, cut to fit, NUL-ended. */
void pfs_copy_column(char *dst, size_t size, const char *v, unsigned long len);

/* One row of up to four integers, for the small queries. */
struct pfs_ints {
	int rows;      /* rows the server gave; only the first is kept */
	int64_t v[8];
	int isnull[8];
};

/* A conn_row_fn filling a struct pfs_ints; -1 on a column not an integer. */
int pfs_ints_row(void *ctx, unsigned ncols, char **values,
    const unsigned long *len);
/* The same, a conn_value_fn for a query kept prepared (conn_query_kept()). */
int pfs_ints_values(void *ctx, unsigned ncols, const struct conn_value *v);

/*
 * Turns the conn_status of a failed query into a pfs_status and a message
 * naming what was being done; server_msg may be err itself.
 */
enum pfs_status pfs_query_failed(enum conn_status st, const char *what,
    const char *server_msg, char *err, size_t errlen);

#endif
