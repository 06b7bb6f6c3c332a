/*
 * Every connection read beside the samples of --global (conns.c), against
 * the fake server and the fake clock: the rows after each sample, their
 * start put against the wall clock, the way asked once a connection, the
 * one note and the slower beat without PROCESS, a failed read, and the
 * storage grown and freed.
 */
#include "fake_capture.h"

/* How many times s was said. */
static size_t
said_times(const char *s)
{
	size_t n = 0;

	for (const char *p = notes; (p = strstr(p, s)) != NULL; p += strlen(s))
		n++;
	return n;
}

static struct conns cs;

static int
setup(void **state)
{
	(void)state;
	fake_capture_setup();
	srv.conn_rows[0] = (struct conn_row){ .connection_id = 9,
	    .thread_id = 42, .user = "app", .host = "localhost",
	    .command = "Query", .bytes = 64 << 20, .peak_bytes = 80 << 20,
	    .running = true, .text = "SELECT 1" };
	srv.elapsed_ms[0] = 1500;
	srv.conn_rows[1] = (struct conn_row){ .connection_id = 11,
	    .user = "batch", .command = "Sleep", .bytes = 4096,
	    .peak_bytes = 8192 };
	srv.n_conn_rows = 2;
	cs = (struct conns){ 0 };
	env.conns = &cs;
	return 0;
}

static int
teardown(void **state)
{
	(void)state;
	conns_free(&cs);
	parse_free();
	return 0;
}

/* After each sample: every row, its start against the wall clock. */
static void
test_rows_read_after_each_sample(void **state)
{
	(void)state;
	parse("--global", "--count", "3", "--frequency", "100", NULL);
	assert_int_equal(capture_once(), EXIT_DONE);
	assert_int_equal(srv.conn_reads, 3);
	assert_int_equal(cs.reads, 3);
	assert_int_equal(cs.n, 2);
	assert_int_equal(cs.v[0].connection_id, 9);
	assert_int_equal(cs.v[0].bytes, 64 << 20);
	assert_int_equal(cs.v[0].peak_bytes, 80 << 20);
	assert_true(cs.v[0].running);
	assert_string_equal(cs.v[0].text, "SELECT 1");
	assert_string_equal(cs.v[1].user, "batch");
	/* The last read at 200 ms of the fake clock: its wall time less 1.5 s. */
	assert_int_equal(srv.conns_now_ms, 1700000000000 + 200);
	assert_int_equal(cs.read_ms, 1700000000000 + 200);
	assert_int_equal(cs.v[0].since_ms, 1700000000000 + 200 - 1500);
	/* The way is asked once a connection, and it has PROCESS: no note. */
	assert_int_equal(srv.process_checks, 1);
	assert_int_equal(sess.conns_way, CONNS_PROCESSLIST);
	assert_null(strstr(notes, "PROCESS"));
}

/* Only the whole server's captures read them. */
static void
test_not_beside_a_thread(void **state)
{
	(void)state;
	parse("--thread", "42", "--count", "3", "--frequency", "100", NULL);
	assert_int_equal(capture_once(), EXIT_DONE);
	assert_int_equal(srv.conn_reads, 0);
	assert_int_equal(cs.reads, 0);
	srv.conn_reads = 0;
	parse_free();
	parse("--for-user", "app", "--count", "2", "--frequency", "100", NULL);
	assert_int_equal(capture_once(), EXIT_DONE);
	assert_int_equal(srv.conn_reads, 0);
}

/*
 * Without PROCESS (MariaDB): one note naming the grant, and the dear way
 * read at most every 30 s, while the samples keep their beat.
 */
static void
test_without_process_one_note_and_a_slower_beat(void **state)
{
	(void)state;
	srv.no_process = 1;
	parse("--global", "--count", "65", "--frequency", "1000", NULL);
	assert_int_equal(capture_once(), EXIT_DONE);
	/* Samples at 0 to 64 s: the connections at 0, 30 and 60 s. */
	assert_int_equal(srv.reads, 65);
	assert_int_equal(srv.conn_reads, 3);
	assert_int_equal(srv.conn_reads_at[1], 30 * SEC);
	assert_int_equal(srv.conn_reads_at[2], 60 * SEC);
	assert_int_equal(cs.reads, 3);
	assert_int_equal(cs.v[0].peak_bytes, -1);
	assert_int_equal(said_times("GRANT PROCESS ON *.* TO"), 1);
	assert_said("only every 30 s");
	/* A second capture of the run says nothing more. */
	srv.conn_reads = 0;
	parse_free();
	parse("--global", "--count", "2", "--frequency", "1000", NULL);
	assert_int_equal(capture_once(), EXIT_DONE);
	assert_int_equal(srv.conn_reads, 1);
	assert_int_equal(said_times("GRANT PROCESS"), 0);
}

/* A reconnect is a new connection: its first read asks again. */
static void
test_reconnect_asks_again(void **state)
{
	(void)state;
	srv.lose_at_read = 2;
	parse("--global", "--count", "3", "--frequency", "100", NULL);
	assert_int_equal(capture_once(), EXIT_DONE);
	assert_said("reconnected; sampling goes on");
	assert_int_equal(srv.opens, 2);
	assert_int_equal(srv.process_checks, 2);
}

/* A failed read is no sample lost and no new reading: none shown. */
static void
test_failed_read_shows_none(void **state)
{
	(void)state;
	parse("--global", "--count", "1", "--frequency", "100", NULL);
	assert_int_equal(capture_once(), EXIT_DONE);
	assert_int_equal(cs.reads, 1);
	assert_int_equal(cs.n, 2);
	srv.conns_status = PFS_ERROR;
	parse_free();
	parse("--global", "--count", "3", "--frequency", "100", NULL);
	assert_int_equal(capture_once(), EXIT_DONE);
	assert_int_equal(srv.reads, 4);
	assert_int_equal(cs.reads, 1);
	assert_int_equal(cs.n, 0);
}

/* The storage grows to what is asked, and is freed to nothing. */
static void
test_storage_grows_and_frees(void **state)
{
	struct conn_list l = { 0 };

	(void)state;
	assert_int_equal(conn_list_reserve(&l, 0), 0);
	assert_int_equal(conn_list_reserve(&l, 1), 0);
	assert_true(l.cap >= 1);
	assert_int_equal(conn_list_reserve(&l, 1000), 0);
	assert_true(l.cap >= 1000);
	l.v[999].connection_id = 1; /* ASan sees a short one */
	cs.list = l;
	cs.v = l.v;
	cs.n = 1000;
	conns_free(&cs);
	assert_null(cs.v);
	assert_int_equal(cs.n, 0);
	assert_int_equal(cs.list.cap, 0);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
#define T(name) cmocka_unit_test_setup_teardown(name, setup, teardown)
		T(test_rows_read_after_each_sample),
		T(test_not_beside_a_thread),
		T(test_without_process_one_note_and_a_slower_beat),
		T(test_reconnect_asks_again),
		T(test_failed_read_shows_none),
		T(test_storage_grows_and_frees),
#undef T
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
