/*
 * Reading performance_schema's rows without a server: decimal columns
 * with their bounds, NULL as 0 and no trailing junk; copies cut to fit;
 * one row of integers; the status and message of a failed query; and a
 * thread's statement from its columns.
 */
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "pfs_rows.h"

static void
u64_ok(const char *v, uint64_t want)
{
	uint64_t x = 12345;

	assert_int_equal(pfs_column_u64(v, &x), 0);
	assert_true(x == want);
}

/* A refused value leaves the output as it was. */
static void
u64_bad(const char *v)
{
	uint64_t x = 12345;

	assert_int_equal(pfs_column_u64(v, &x), -1);
	assert_true(x == 12345);
}

static void
i64_ok(const char *v, int64_t want)
{
	int64_t x = 12345;

	assert_int_equal(pfs_column_i64(v, &x), 0);
	assert_true(x == want);
}

static void
i64_bad(const char *v)
{
	int64_t x = 12345;

	assert_int_equal(pfs_column_i64(v, &x), -1);
	assert_true(x == 12345);
}

static void
test_u64(void **state)
{
	(void)state;
	u64_ok(NULL, 0);
	u64_ok("0", 0);
	u64_ok("7", 7);
	u64_ok("000042", 42);
	u64_ok("18446744073709551615", UINT64_MAX);
	u64_bad("");
	u64_bad("18446744073709551616");
	u64_bad("99999999999999999999");
	u64_bad("-1");
	u64_bad("+1");
	u64_bad(" 1");
	u64_bad("1 ");
	u64_bad("12a");
	u64_bad("1.5");
}

static void
test_i64(void **state)
{
	(void)state;
	i64_ok(NULL, 0);
	i64_ok("0", 0);
	i64_ok("-0", 0);
	i64_ok("-5", -5);
	i64_ok("9223372036854775807", INT64_MAX);
	i64_ok("-9223372036854775808", INT64_MIN);
	i64_bad("9223372036854775808");
	i64_bad("-9223372036854775809");
	i64_bad("18446744073709551615");
	i64_bad("");
	i64_bad("-");
	i64_bad("--1");
	i64_bad("- 1");
	i64_bad("+1");
	i64_bad("1-");
}

static void
test_copy_column(void **state)
{
	char buf[8]; /* 5 bytes given, the rest must stay untouched */

	(void)state;
	memset(buf, 'x', sizeof(buf));
	pfs_copy_column(buf, 5, "abcdefgh", 8);
	assert_memory_equal(buf, "abcd\0xxx", 8);
	pfs_copy_column(buf, 5, "abcde", 5);
	assert_memory_equal(buf, "abcd\0xxx", 8);
	pfs_copy_column(buf, 5, "abcd", 4);
	assert_string_equal(buf, "abcd");
	/* The length counts, not the NUL: a column may hold one. */
	pfs_copy_column(buf, 5, "ab\0cd", 5);
	assert_memory_equal(buf, "ab\0c", 5);
	pfs_copy_column(buf, 5, "abc", 2);
	assert_string_equal(buf, "ab");
	pfs_copy_column(buf, 5, NULL, 3);
	assert_string_equal(buf, "");
	pfs_copy_column(buf, 1, "abc", 3);
	assert_string_equal(buf, "");
	assert_memory_equal(buf + 5, "xxx", 3);
}

static void
test_ints_row(void **state)
{
	struct pfs_ints r;
	char *first[] = { "3", NULL, "-2", "9", "4", "5", "6", "7",
	    "not a number" };
	char *second[] = { "8", "8", "8", "8" };
	char *bad[] = { "1", "x" };
	unsigned long len[9] = { 0 };

	(void)state;
	memset(&r, 0, sizeof(r));
	/* Columns past the eighth are not read. */
	assert_int_equal(pfs_ints_row(&r, 9, first, len), 0);
	assert_int_equal(r.rows, 1);
	assert_true(r.v[0] == 3 && r.v[1] == 0 && r.v[2] == -2 && r.v[3] == 9);
	assert_true(r.v[4] == 4 && r.v[7] == 7);
	assert_true(!r.isnull[0] && r.isnull[1] && !r.isnull[2]);
	/* Only the first row is kept; later ones are counted. */
	assert_int_equal(pfs_ints_row(&r, 4, second, len), 0);
	assert_int_equal(r.rows, 2);
	assert_true(r.v[0] == 3 && r.v[1] == 0 && r.isnull[1]);

	memset(&r, 0, sizeof(r));
	assert_int_equal(pfs_ints_row(&r, 2, bad, len), -1);
}

static void
test_query_failed(void **state)
{
	char err[200];
	char small[12];

	(void)state;
	assert_int_equal(pfs_query_failed(CONN_LOST, "listing threads",
	    "gone away", err, sizeof(err)), PFS_LOST);
	assert_string_equal(err, "lost the connection while listing threads: "
	    "gone away; check the server");
	assert_int_equal(pfs_query_failed(CONN_DENIED, "listing threads",
	    "SELECT command denied", err, sizeof(err)), PFS_DENIED);
	assert_string_equal(err, "listing threads: SELECT command denied; the "
	    "account needs GRANT SELECT ON performance_schema.*");
	assert_int_equal(pfs_query_failed(CONN_FAILED, "listing threads",
	    "syntax", err, sizeof(err)), PFS_ERROR);
	assert_string_equal(err, "listing threads: syntax");
	/* A stop dropped the connection: lost, so what reconnects looks at
	 * the stop flag first and ends quietly. */
	assert_int_equal(pfs_query_failed(CONN_STOPPED, "listing threads",
	    "stopped by a signal", err, sizeof(err)), PFS_LOST);

	/* The server's message may be in err already, as conn_query() left it. */
	strcpy(err, "Unknown table");
	assert_int_equal(pfs_query_failed(CONN_FAILED, "reading x", err, err,
	    sizeof(err)), PFS_ERROR);
	assert_string_equal(err, "reading x: Unknown table");

	/* A message longer than the room is cut, still NUL-terminated. */
	pfs_query_failed(CONN_FAILED, "reading x", "long message", small,
	    sizeof(small));
	assert_string_equal(small, "reading x: ");
}

/*
 * Typed values (conn_query_kept()): integers as they are, when they fit
 * the signedness asked for; NULL as 0; text by its length, as
 * pfs_column_*() reads a C string.
 */
static void
test_typed_values(void **state)
{
	struct conn_value null = { .null = true };
	struct conn_value neg = { .is_int = true, .i = -5 };
	struct conn_value big = { .is_int = true, .is_unsigned = true,
	    .u = UINT64_MAX };
	struct conn_value max = { .is_int = true, .is_unsigned = true,
	    .u = (uint64_t)INT64_MAX };
	struct conn_value text = { .s = "42", .len = 2 };
	struct conn_value junk = { .s = "4x", .len = 2 };
	/* A typed row's string has no NUL after it: its length ends it. */
	struct conn_value cut = { .s = "-4217", .len = 3 };
	struct conn_value empty = { .s = "", .len = 0 };
	uint64_t u = 7;
	int64_t i = 7;

	(void)state;
	assert_int_equal(pfs_value_u64(&null, &u), 0);
	assert_true(u == 0);
	assert_int_equal(pfs_value_i64(&null, &i), 0);
	assert_true(i == 0);
	assert_int_equal(pfs_value_i64(&neg, &i), 0);
	assert_true(i == -5);
	u = 7;
	assert_int_equal(pfs_value_u64(&neg, &u), -1);
	assert_true(u == 7);
	assert_int_equal(pfs_value_u64(&big, &u), 0);
	assert_true(u == UINT64_MAX);
	i = 7;
	assert_int_equal(pfs_value_i64(&big, &i), -1);
	assert_true(i == 7);
	assert_int_equal(pfs_value_i64(&max, &i), 0);
	assert_true(i == INT64_MAX);
	assert_int_equal(pfs_value_u64(&text, &u), 0);
	assert_true(u == 42);
	assert_int_equal(pfs_value_i64(&text, &i), 0);
	assert_true(i == 42);
	assert_int_equal(pfs_value_u64(&junk, &u), -1);
	assert_int_equal(pfs_value_i64(&junk, &i), -1);
	assert_int_equal(pfs_value_i64(&cut, &i), 0);
	assert_true(i == -42);
	assert_int_equal(pfs_value_u64(&cut, &u), -1);
	cut.s = "4217";
	cut.len = 2;
	assert_int_equal(pfs_value_u64(&cut, &u), 0);
	assert_true(u == 42);
	assert_int_equal(pfs_value_u64(&empty, &u), -1);
	assert_int_equal(pfs_value_i64(&empty, &i), -1);
	empty.s = "-";
	empty.len = 1;
	assert_int_equal(pfs_value_i64(&empty, &i), -1);
}

/*
 * A column bound as the integer asked for is read without checks: NULL
 * as 0, a signed one as it is, an unsigned one whole; a text column or
 * one of the other signedness is not accepted, and goes to the checks.
 */
static void
test_trusted_values(void **state)
{
	struct conn_value null = { .null = true, .is_int = true, .i = 9 };
	struct conn_value neg = { .is_int = true, .i = -5 };
	struct conn_value big = { .is_int = true, .is_unsigned = true,
	    .u = UINT64_MAX };
	struct conn_value text = { .s = "42", .len = 2 };

	(void)state;
	assert_true(pfs_value_typed(&neg, false));
	assert_false(pfs_value_typed(&neg, true));
	assert_true(pfs_value_typed(&big, true));
	assert_false(pfs_value_typed(&big, false));
	assert_false(pfs_value_typed(&text, false));
	assert_false(pfs_value_typed(&text, true));
	/* Null's value is whatever the last row left in it. */
	assert_true(pfs_value_int(&null) == 0);
	assert_true(pfs_value_int(&neg) == -5);
	assert_true((uint64_t)pfs_value_int(&big) == UINT64_MAX);
}

/* The same of a prepared query's typed values: NULL as 0, text by length. */
static void
test_ints_values(void **state)
{
	struct pfs_ints r;
	struct conn_value first[] = {
		{ .is_int = true, .i = 5000 },
		{ .null = true, .is_int = true, .i = 9 },
		{ .is_int = true, .is_unsigned = true, .u = 77 },
		{ .s = "-12x", .len = 3 },
	};
	struct conn_value bad[] = {
		{ .is_int = true, .i = 1 },
		{ .is_int = true, .is_unsigned = true, .u = UINT64_MAX },
	};

	(void)state;
	memset(&r, 0, sizeof(r));
	assert_int_equal(pfs_ints_values(&r, 4, first), 0);
	assert_int_equal(r.rows, 1);
	assert_true(r.v[0] == 5000 && r.v[1] == 0 && r.v[2] == 77 &&
	    r.v[3] == -12);
	assert_true(!r.isnull[0] && r.isnull[1] && !r.isnull[2]);
	/* Only the first row is kept. */
	assert_int_equal(pfs_ints_values(&r, 2, bad), 0);
	assert_int_equal(r.rows, 2);
	assert_true(r.v[1] == 0 && r.isnull[1]);

	memset(&r, 0, sizeof(r));
	assert_int_equal(pfs_ints_values(&r, 2, bad), -1);
}

/* The statement columns of one row, as the thread reader's query gives them. */
static void
statement_cols(struct conn_value *v, const char *digest, uint64_t id,
    const char *text, bool ended)
{
	memset(v, 0, PFS_STMT_COLS * sizeof(*v));
	v[PFS_STMT_DIGEST] = digest == NULL ? (struct conn_value){ .null = true,
	    .s = "stale", .len = 5 } :
	    (struct conn_value){ .s = digest, .len = strlen(digest) };
	v[PFS_STMT_EVENT_ID] = id == 0 ? (struct conn_value){ .null = true,
	    .is_int = true, .is_unsigned = true, .u = 99 } :
	    (struct conn_value){ .is_int = true, .is_unsigned = true, .u = id };
	v[PFS_STMT_TEXT] = text == NULL ? (struct conn_value){ .null = true,
	    .s = "stale", .len = 5 } :
	    (struct conn_value){ .s = text, .len = strlen(text) };
	v[PFS_STMT_END_ID] = ended ? (struct conn_value){ .is_int = true,
	    .is_unsigned = true, .u = 7 } : (struct conn_value){ .null = true };
}

/*
 * A thread's statement, from events_statements_current: id, digest, text
 * and end from its row. A row with no id (the statement's row missed
 * while the next one took its place, PROCESSLIST_INFO already the next
 * text) is no statement: the text is not shown as one without its id.
 * Without the consumer, PROCESSLIST_INFO's text is all there is.
 */
static void
test_statement_row(void **state)
{
	struct conn_value v[PFS_STMT_COLS];
	struct statement st;

	(void)state;
	memset(&st, 0xa5, sizeof(st));
	statement_cols(v, "d1", 41, "SELECT 'first'", true);
	assert_int_equal(pfs_statement_row(&st, 5, true, v), 0);
	assert_true(st.thread_id == 5 && st.has_id && st.id == 41 && st.ended);
	assert_string_equal(st.digest, "d1");
	assert_string_equal(st.text, "SELECT 'first'");

	/* Between statements, caught mid-update: nothing known. */
	statement_cols(v, NULL, 0, "SELECT 'second'", false);
	assert_int_equal(pfs_statement_row(&st, 5, true, v), 0);
	assert_false(st.has_id);
	assert_false(st.ended);
	assert_string_equal(st.digest, "");
	assert_int_equal(statement_text_len(&st), 0);
	assert_false(statement_known(&st));

	/* The next one's row, its text not set yet: PROCESSLIST_INFO's. */
	statement_cols(v, NULL, 42, "SELECT 'second'", false);
	assert_int_equal(pfs_statement_row(&st, 5, true, v), 0);
	assert_true(st.has_id && st.id == 42 && !st.ended);
	assert_string_equal(st.text, "SELECT 'second'");

	/* The consumer off: the text alone, no id. */
	statement_cols(v, NULL, 0, "SELECT SLEEP(2)", false);
	assert_int_equal(pfs_statement_row(&st, 5, false, v), 0);
	assert_false(st.has_id);
	assert_string_equal(st.text, "SELECT SLEEP(2)");
	assert_true(statement_known(&st));
	statement_cols(v, NULL, 0, NULL, false);
	assert_int_equal(pfs_statement_row(&st, 5, false, v), 0);
	assert_false(statement_known(&st));

	/* An id that is no number is a bad row. */
	statement_cols(v, "d1", 41, "x", false);
	v[PFS_STMT_EVENT_ID] = (struct conn_value){ .s = "4x", .len = 2 };
	assert_int_equal(pfs_statement_row(&st, 5, true, v), -1);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_u64),
		cmocka_unit_test(test_i64),
		cmocka_unit_test(test_typed_values),
		cmocka_unit_test(test_trusted_values),
		cmocka_unit_test(test_copy_column),
		cmocka_unit_test(test_ints_row),
		cmocka_unit_test(test_ints_values),
		cmocka_unit_test(test_query_failed),
		cmocka_unit_test(test_statement_row),
	};
	return cmocka_run_group_tests_name("pfs_rows", tests, NULL, NULL);
}
