/*
 * The statements a followed thread finished, against a fake server: the
 * history is read only when the sampled statement changed or ended, from
 * the id after the last read, its rows handed on with the reading; a gap
 * the history lost is counted (the capture says it at its end); a server
 * without statements' peaks, or with the consumer off, is said once.
 */
#include "fake_server.h"
#include "finished.h"

static struct fake_server srv;
static struct session sess;
static char told[8][700];
static size_t n_told;
static struct finished fin;
static struct source src;
static struct pfs_reader *reader;

static void
notify(void *ctx, const char *msg)
{
	(void)ctx;
	if (n_told < 8)
		snprintf(told[n_told], sizeof(told[0]), "%s", msg);
	n_told++;
}

/* A statement of the history: id to end, with a peak. */
static struct finished_statement
row(uint64_t id, uint64_t end, int64_t peak)
{
	return (struct finished_statement){
		.statement = { .has_id = true, .id = id, .ended = true },
		.end_id = end, .duration_us = 1000 * id, .has_peak = true,
		.peak_bytes = peak,
	};
}

static int
setup(void **state)
{
	(void)state;
	srv = (struct fake_server){ .boot_s = 1700000000, .next_own = 7,
	    .target = 42, .history_peaks = 1 };
	fake_session(&srv, &sess);
	n_told = 0;
	reader = sess.ops->reader_create(&sess, &(struct read_target){
	    .thread_id = 42 });
	fin = (struct finished){
		.inner = sess.ops->reader_source(reader), .session = &sess,
		.thread_id = 42, .notify = notify,
	};
	src = finished_source(&fin);
	return 0;
}

static int
teardown(void **state)
{
	(void)state;
	sess.ops->reader_free(reader);
	return 0;
}

static struct reading
read_one(void)
{
	struct reading rd;
	char err[256];

	assert_int_equal(src.read(src.ctx, 0, &rd, err, sizeof(err)),
	    SOURCE_OK);
	return rd;
}

/*
 * Statement 10 runs at the first reading, still at the second; 10 ended
 * and 13 (which ran between them) ended by the third, where 16 runs;
 * then 16 is idle: ended, the same id.
 */
static void
test_reads_only_when_the_statement_changes_or_ends(void **state)
{
	struct reading rd;

	(void)state;
	srv.reader_stmt[0] = srv.reader_stmt[1] = 10;
	srv.reader_stmt[2] = 16;
	srv.reader_stmt[3] = srv.reader_stmt[4] = srv.reader_stmt[5] = 16;
	srv.reader_ended[4] = srv.reader_ended[5] = true;

	rd = read_one();
	/* 10 runs, nothing ended: only whether peaks are kept, no query. */
	assert_int_equal(srv.history_reads, 0);
	assert_int_equal(srv.history_probes, 1);
	assert_int_equal(rd.n_finished, 0);
	srv.history[0] = row(10, 12, 5000);
	srv.history[1] = row(13, 15, 9000);
	srv.n_history = 2;
	rd = read_one();
	assert_int_equal(srv.history_reads, 0); /* 10 runs on */
	rd = read_one();
	assert_int_equal(srv.history_reads, 1);
	assert_int_equal(srv.history_probes, 1);
	assert_int_equal(srv.history_from, 10);
	assert_int_equal(rd.n_finished, 2);
	assert_int_equal(rd.finished[0].statement.id, 10);
	assert_int_equal(rd.finished[1].statement.id, 13);
	assert_int_equal(rd.finished[1].peak_bytes, 9000);
	assert_int_equal(rd.finished[0].lost_before, 0);
	assert_int_equal(rd.finished[1].statement.thread_id, 42);
	rd = read_one();
	assert_int_equal(srv.history_reads, 1); /* 16 still runs */
	/* 16 ended: read from past 13's last event. */
	srv.history[2] = row(16, 20, 7000);
	srv.n_history = 3;
	rd = read_one();
	assert_int_equal(srv.history_reads, 2);
	assert_int_equal(srv.history_from, 16);
	assert_int_equal(rd.n_finished, 1);
	assert_int_equal(rd.finished[0].statement.id, 16);
	rd = read_one();
	assert_int_equal(srv.history_reads, 2); /* idle: nothing new */
	assert_int_equal(rd.n_finished, 0);
	assert_int_equal(fin.lost, 0);
	assert_int_equal(n_told, 0);
}

/* An ended statement at the first reading is read at once. */
static void
test_ended_at_the_first_reading(void **state)
{
	struct reading rd;

	(void)state;
	srv.reader_stmt[0] = 5;
	srv.reader_ended[0] = true;
	srv.history[0] = row(5, 6, 100);
	srv.n_history = 1;
	rd = read_one();
	assert_int_equal(srv.history_reads, 1);
	assert_int_equal(srv.history_from, 5);
	assert_int_equal(rd.n_finished, 1);
}

/*
 * The history pushed out what came after 10: the first row is past the
 * id asked from, and so is the oldest row kept.
 */
static void
test_gap_counted(void **state)
{
	struct reading rd;

	(void)state;
	srv.reader_stmt[0] = 10;
	for (size_t i = 1; i < 16; i++)
		srv.reader_stmt[i] = 10 + 20 * i;
	read_one();
	srv.history[0] = row(30, 31, 1); /* 10 lost */
	srv.n_history = 1;
	rd = read_one();
	assert_int_equal(rd.n_finished, 1);
	assert_int_equal(rd.finished[0].lost_before, 1);
	assert_int_equal(fin.lost, 1);
	assert_int_equal(n_told, 0);
	/* Again: counted. */
	srv.history[1] = row(60, 61, 1); /* 32..59 lost */
	srv.n_history = 2;
	srv.history_oldest = 60;
	rd = read_one();
	assert_int_equal(rd.n_finished, 1);
	assert_int_equal(rd.finished[0].lost_before, 1);
	assert_int_equal(fin.lost, 2);
	assert_int_equal(n_told, 0);
}

/* Ids the thread used for other events are no gap: the history holds them. */
static void
test_no_gap_while_the_history_holds_it(void **state)
{
	struct reading rd;

	(void)state;
	srv.reader_stmt[0] = 10;
	srv.reader_stmt[1] = 40;
	read_one();
	srv.history[0] = row(30, 31, 1);
	srv.n_history = 1;
	srv.history_oldest = 9;
	rd = read_one();
	assert_int_equal(rd.n_finished, 1);
	assert_int_equal(rd.finished[0].lost_before, 0);
	assert_int_equal(fin.lost, 0);
}

/* MariaDB, MySQL before 8.0.31: said once, never asked again. */
static void
test_server_without_peaks(void **state)
{
	(void)state;
	srv.history_peaks = 0;
	for (size_t i = 0; i < 16; i++)
		srv.reader_stmt[i] = 10 + i;
	for (int i = 0; i < 5; i++)
		assert_int_equal(read_one().n_finished, 0);
	/* Known at the first reading, without a query; never asked again. */
	assert_int_equal(srv.history_probes, 1);
	assert_int_equal(srv.history_reads, 0);
	assert_true(fin.off);
	assert_int_equal(n_told, 1);
	assert_non_null(strstr(told[0], "peaks of statements are sampled"));
	assert_non_null(strstr(told[0], "8.0.31"));
	/* The next capture of the run says it no more. */
	fin = (struct finished){
		.inner = sess.ops->reader_source(reader), .session = &sess,
		.thread_id = 42, .notify = notify,
	};
	read_one();
	assert_true(fin.off);
	assert_int_equal(n_told, 1);
}

/* The consumer off: how to switch it on, said once; read again later. */
static void
test_consumer_off(void **state)
{
	(void)state;
	srv.history_off = 1;
	for (size_t i = 0; i < 16; i++)
		srv.reader_stmt[i] = 10 + i;
	for (int i = 0; i < 4; i++)
		assert_int_equal(read_one().n_finished, 0);
	assert_int_equal(srv.history_reads, 3);
	assert_int_equal(n_told, 1);
	assert_non_null(strstr(told[0], "UPDATE performance_schema."
	    "setup_consumers SET ENABLED = 'YES' WHERE NAME = "
	    "'events_statements_history'"));
}

/* A failed read is tried again at the next reading, from the same id. */
static void
test_failed_read_tried_again(void **state)
{
	struct reading rd;

	(void)state;
	srv.reader_stmt[0] = 10;
	srv.reader_stmt[1] = srv.reader_stmt[2] = 20;
	read_one();
	srv.history[0] = row(10, 19, 1);
	srv.n_history = 1;
	srv.history_lose = 1;
	rd = read_one();
	assert_int_equal(srv.history_reads, 1);
	assert_int_equal(rd.n_finished, 0);
	rd = read_one(); /* the same statement, but a read is owed */
	assert_int_equal(srv.history_reads, 2);
	assert_int_equal(srv.history_from, 10);
	assert_int_equal(rd.n_finished, 1);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(
		    test_reads_only_when_the_statement_changes_or_ends, setup,
		    teardown),
		cmocka_unit_test_setup_teardown(test_ended_at_the_first_reading,
		    setup, teardown),
		cmocka_unit_test_setup_teardown(test_gap_counted,
		    setup, teardown),
		cmocka_unit_test_setup_teardown(
		    test_no_gap_while_the_history_holds_it, setup, teardown),
		cmocka_unit_test_setup_teardown(test_server_without_peaks, setup,
		    teardown),
		cmocka_unit_test_setup_teardown(test_consumer_off, setup,
		    teardown),
		cmocka_unit_test_setup_teardown(test_failed_read_tried_again,
		    setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
