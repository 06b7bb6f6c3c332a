/*
 * The thread reader's rows (pfs_read.c's event_row()): the common row,
 * the event that stood in its place the reading before, takes a short
 * way, and every other row the long one. Both must give the same events
 * and say the same of whether the reading moved. The rows come from a
 * conn_query_shared() of this file in place of the connection's, as
 * conn.h says the real one gives them: typed values, the statement's
 * columns read in the first row only.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <setjmp.h>
#include <string.h>
#include <cmocka.h>

#include "conn.h"
#include "names.h"
#include "pfs_read.h"

#define NCOLS 12 /* the memory columns, then the statement's four */
#define MAX_ROWS 300 /* past the reader's first array of 128 */

/* The rows the next reading gives, as the library would bind them. */
static struct conn_value rows[MAX_ROWS][NCOLS];
static size_t n_rows;
static unsigned shared_seen;
/* The kept statement's number a reading came with; the one it leaves. */
static uint64_t kept_id_seen;
#define KEPT_ID 77

static void
set_row(size_t i, const char *name, int64_t cur, uint64_t alloc)
{
	struct conn_value *v = rows[i];

	memset(v, 0, sizeof(rows[i]));
	v[0].s = name;
	v[0].len = name != NULL ? strlen(name) : 0;
	v[0].null = name == NULL;
	for (unsigned c = 1; c < 8; c++) {
		v[c].is_int = true;
		v[c].is_unsigned = c >= 4; /* the SUM_ and COUNT_ columns */
	}
	v[1].i = cur;
	v[2].i = 1;
	v[3].i = cur;
	v[4].u = alloc;
	v[5].u = alloc - (uint64_t)cur;
	v[6].u = 2;
	v[7].u = 1;
	/* No statement: EVENT_ID and the rest NULL. */
	for (unsigned c = 8; c < NCOLS; c++) {
		v[c].null = true;
		v[c].is_int = c == 9 || c == 11;
		v[c].is_unsigned = v[c].is_int;
	}
}

enum conn_status
conn_query_shared(struct conn *c, const char *sql, uint64_t *kept_id,
    const struct conn_param *params, unsigned n, unsigned shared,
    conn_value_fn fn, void *ctx, unsigned *server_errno, char *err,
    size_t errlen)
{
	(void)c, (void)sql, (void)params, (void)n, (void)server_errno;
	(void)err, (void)errlen;
	shared_seen = shared;
	kept_id_seen = *kept_id;
	*kept_id = KEPT_ID;
	for (size_t i = 0; i < n_rows; i++) {
		struct conn_value v[NCOLS];

		memcpy(v, rows[i], sizeof(v));
		/* After the first row, the shared columns hold nothing. */
		if (i > 0)
			for (unsigned k = shared; k < NCOLS; k++)
				v[k] = (struct conn_value){ .null = i % 2 == 0,
				    .i = -7, .len = 9999 };
		if (fn(ctx, NCOLS, v) != 0)
			return CONN_FAILED;
	}
	return CONN_OK;
}

/* Neither is called by the thread reader's reading. */
enum conn_status
conn_query_kept(struct conn *c, const char *sql,
    const struct conn_param *params, unsigned n, conn_value_fn fn, void *ctx,
    unsigned *server_errno, char *err, size_t errlen)
{
	(void)c, (void)sql, (void)params, (void)n, (void)fn, (void)ctx;
	(void)server_errno, (void)err, (void)errlen;
	return CONN_FAILED;
}

enum conn_status
conn_query_params(struct conn *c, const char *sql,
    const struct conn_param *params, unsigned n, conn_row_fn fn, void *ctx,
    unsigned *server_errno, char *err, size_t errlen)
{
	(void)c, (void)sql, (void)params, (void)n, (void)fn, (void)ctx;
	(void)server_errno, (void)err, (void)errlen;
	return CONN_FAILED;
}

static struct conn *no_conn;
static struct pfs_reader *reader;
static struct source src;

/* Each test reads through a reader of its own, of thread 42. */
static int
setup(void **state)
{
	(void)state;
	reader = pfs_reader_create(&no_conn, 42);
	src = pfs_reader_source(reader);
	return reader == NULL;
}

static int
teardown(void **state)
{
	(void)state;
	pfs_reader_free(reader);
	return 0;
}

/* The rows of a thread that idles: three events. */
static void
three_rows(void)
{
	n_rows = 3;
	set_row(0, "memory/sql/THD::main_mem_root", 1000, 5000);
	set_row(1, "memory/innodb/mem0mem", 20252, 13524251);
	set_row(2, "memory/sql/String::value", 16408, 66376);
}

static struct reading
read_once(void)
{
	struct reading rd = { 0 };
	char err[256];

	assert_int_equal(src.read(src.ctx, 0, &rd, err, sizeof(err)),
	    SOURCE_OK);
	return rd;
}

static void
check_event(const struct reading *rd, size_t i, const char *name,
    int64_t cur, uint64_t alloc)
{
	const struct event_stat *e = &rd->events[i];

	assert_string_equal(e->name, name);
	assert_non_null(e->interned);
	assert_ptr_equal(e->interned, names_intern(name, strlen(name)));
	assert_int_equal(e->current_bytes, cur);
	assert_int_equal(e->current_count, 1);
	assert_int_equal(e->high_bytes, cur);
	assert_int_equal(e->alloc_bytes, alloc);
	assert_int_equal(e->free_bytes, alloc - (uint64_t)cur);
	assert_int_equal(e->alloc_count, 2);
	assert_int_equal(e->free_count, 1);
}

/* The same rows again: unmoved, each event as read. */
static void
test_same_rows_unmoved(void **state)
{
	struct reading rd;

	(void)state;
	three_rows();
	rd = read_once();
	assert_int_equal(shared_seen, 8);
	assert_int_equal(rd.n, 3);
	assert_false(rd.unmoved);
	assert_false(rd.statement->has_id);
	assert_string_equal(rd.statement->text, "");
	check_event(&rd, 1, "memory/innodb/mem0mem", 20252, 13524251);
	for (int k = 0; k < 3; k++) {
		rd = read_once();
		assert_int_equal(rd.n, 3);
		assert_true(rd.unmoved);
		assert_int_equal(rd.after, rd.seq - 1);
		check_event(&rd, 0, "memory/sql/THD::main_mem_root", 1000, 5000);
		check_event(&rd, 2, "memory/sql/String::value", 16408, 66376);
	}
}

/*
 * The kept statement's number goes with the text it was kept for: once
 * the reader's SQL changes (no statements consumer), the next reading
 * asks for the new text's statement by its text, not by the old number,
 * which would run the old SQL.
 */
static void
test_kept_id_follows_sql(void **state)
{
	(void)state;
	three_rows();
	read_once();
	assert_int_equal(kept_id_seen, 0);
	read_once();
	assert_int_equal(kept_id_seen, KEPT_ID);
	pfs_reader_without_statements(reader);
	read_once();
	assert_int_equal(kept_id_seen, 0);
	read_once();
	assert_int_equal(kept_id_seen, KEPT_ID);
}

/*
 * The statement is read from the first row: the shared columns of the
 * others hold nothing (conn_query_shared() above fills them with junk).
 */
static void
test_statement_from_first_row(void **state)
{
	struct reading rd;

	(void)state;
	three_rows();
	rows[0][8] = (struct conn_value){ .s = "d1g3st", .len = 6 };
	rows[0][9] = (struct conn_value){ .is_int = true, .is_unsigned = true,
	    .u = 77 };
	rows[0][10] = (struct conn_value){ .s = "SELECT 1", .len = 8 };
	rd = read_once();
	assert_true(rd.statement->has_id);
	assert_int_equal(rd.statement->id, 77);
	assert_int_equal(rd.statement->thread_id, 42);
	assert_string_equal(rd.statement->digest, "d1g3st");
	assert_string_equal(rd.statement->text, "SELECT 1");
	assert_false(rd.statement->ended);
	check_event(&rd, 2, "memory/sql/String::value", 16408, 66376);
}

/* Each counter that moves, in a row of the short way, moves the reading. */
static void
test_each_counter_moves(void **state)
{
	struct reading rd;

	(void)state;
	three_rows();
	read_once();
	/* current_count is not among them: delta.c's unchanged() asks not. */
	for (unsigned c = 1; c < 8; c++) {
		if (c == 2)
			continue;
		rows[1][c].i += 1;
		rd = read_once();
		assert_false(rd.unmoved);
		rd = read_once();
		assert_true(rd.unmoved);
	}
	assert_int_equal(rd.events[1].current_bytes, 20253);
	assert_int_equal(rd.events[1].free_count, 2);
}

/*
 * Rows that take the long way: a name that changed place, a new one, a
 * name shorter than a word and one the same length as the one before, a
 * NULL counter (read as 0), and a row fewer.
 */
static void
test_other_rows(void **state)
{
	struct reading rd;

	(void)state;
	three_rows();
	set_row(2, "short", 7, 8);
	read_once();
	rd = read_once();
	assert_true(rd.unmoved);
	check_event(&rd, 2, "short", 7, 8);

	/* Swapped: the names' lengths differ from those that stood there. */
	set_row(0, "memory/innodb/mem0mem", 20252, 13524251);
	set_row(1, "memory/sql/THD::main_mem_root", 1000, 5000);
	rd = read_once();
	assert_false(rd.unmoved);
	check_event(&rd, 0, "memory/innodb/mem0mem", 20252, 13524251);
	check_event(&rd, 1, "memory/sql/THD::main_mem_root", 1000, 5000);
	rd = read_once();
	assert_true(rd.unmoved);

	/* The same length as the name before, one byte other: last, first, inside. */
	static const char *const other[] = {
		"memory/sql/THD::main_mem_rooT", "Memory/sql/THD::main_mem_rooT",
		"Memory/sql/THD::mainXmem_rooT",
	};
	for (size_t k = 0; k < sizeof(other) / sizeof(other[0]); k++) {
		set_row(1, other[k], 1000, 5000);
		rd = read_once();
		assert_false(rd.unmoved);
		check_event(&rd, 1, other[k], 1000, 5000);
		rd = read_once();
		assert_true(rd.unmoved);
	}

	/* A NULL counter is 0, and the row moved. */
	rows[1][1].null = true;
	rows[1][1].i = 12345;
	rd = read_once();
	assert_false(rd.unmoved);
	assert_int_equal(rd.events[1].current_bytes, 0);
	rd = read_once();
	assert_true(rd.unmoved);
	assert_int_equal(rd.events[1].current_bytes, 0);
	rows[1][1].null = false;

	/* A row fewer moves the reading, though no row moved. */
	n_rows = 2;
	rd = read_once();
	assert_int_equal(rd.n, 2);
	assert_false(rd.unmoved);
}

/* A thread with no memory in use: one row, its name NULL. */
static void
test_no_memory(void **state)
{
	struct reading rd;

	(void)state;
	n_rows = 1;
	set_row(0, NULL, 0, 0);
	rd = read_once();
	assert_int_equal(rd.n, 0);
}

/* More rows than the first array holds: it grows, the events kept. */
static void
test_many_rows(void **state)
{
	static char names[MAX_ROWS][40];
	struct reading rd;

	(void)state;
	n_rows = MAX_ROWS;
	for (size_t i = 0; i < MAX_ROWS; i++) {
		snprintf(names[i], sizeof(names[i]), "memory/test/event_%zu", i);
		set_row(i, names[i], (int64_t)i, 1000 + i);
	}
	rd = read_once();
	assert_int_equal(rd.n, MAX_ROWS);
	assert_false(rd.unmoved);
	rd = read_once();
	assert_true(rd.unmoved);
	for (size_t i = 0; i < MAX_ROWS; i += 37)
		check_event(&rd, i, names[i], (int64_t)i, 1000 + i);
	check_event(&rd, MAX_ROWS - 1, names[MAX_ROWS - 1], MAX_ROWS - 1,
	    1000 + MAX_ROWS - 1);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_same_rows_unmoved, setup, teardown),
		cmocka_unit_test_setup_teardown(test_kept_id_follows_sql, setup, teardown),
		cmocka_unit_test_setup_teardown(test_statement_from_first_row, setup, teardown),
		cmocka_unit_test_setup_teardown(test_each_counter_moves, setup, teardown),
		cmocka_unit_test_setup_teardown(test_other_rows, setup, teardown),
		cmocka_unit_test_setup_teardown(test_no_memory, setup, teardown),
		cmocka_unit_test_setup_teardown(test_many_rows, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
