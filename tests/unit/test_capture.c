/*
 * One capture against the fake server and the fake clock: the target
 * found, the notes said before and after, how it ends (a count, the
 * thread's end, the followed statement's end, a stop), the statement
 * boundaries its summary keeps, a reconnect in the middle, and the top
 * threads read beside the samples.
 */
#include "fake_capture.h"

/* What the observer saw. */
static size_t samples_seen, stop_after;
static struct capture_target target_seen;
static char grain_seen[64]; /* t->grain lives only as long as the capture */
static size_t n_statements;
static uint64_t statement_ids[8];
static size_t statement_samples[8];
static char end_why[512];         /* what the observer heard at the end */

static void
seen_begin(void *ctx, const struct capture_target *t)
{
	(void)ctx;
	target_seen = *t;
	snprintf(grain_seen, sizeof(grain_seen), "%s", t->grain ? t->grain : "");
	target_seen.grain = grain_seen;
}

static int
seen_sample(void *ctx, const struct sample *s, const struct sampler_stats *st)
{
	(void)ctx, (void)s, (void)st;
	if (++samples_seen == stop_after)
		sig.stop = 1;
	return 0;
}

static void
seen_end(void *ctx, const struct summary *sum, const struct sampler_stats *st,
    const char *why)
{
	(void)ctx, (void)st;
	snprintf(end_why, sizeof(end_why), "%s", why != NULL ? why : "(none)");
	n_statements = sum->n_statements;
	for (size_t i = 0; i < sum->n_statements && i < 8; i++) {
		statement_ids[i] = sum->statements[i].statement->id;
		statement_samples[i] = sum->statements[i].samples;
	}
}

static const struct capture_observer observer = {
	.begin = seen_begin, .sample = seen_sample, .end = seen_end,
};

/* Runs one capture, found or not, catching what it says. */
static int
run(const struct stmt_match *found, enum follow_end *end)
{
	int rc;

	notes_start();
	rc = capture_run(&env, found, 1, end);
	notes_read();
	return rc;
}

static int
setup(void **state)
{
	(void)state;
	fake_capture_setup();
	samples_seen = stop_after = n_statements = 0;
	end_why[0] = '\0';
	target_seen = (struct capture_target){ 0 };
	env.observer = &observer;
	return 0;
}

static int
teardown(void **state)
{
	(void)state;
	parse_free();
	return 0;
}

static void
test_thread_sampled_until_the_count(void **state)
{
	(void)state;
	parse("--thread", "42", "--count", "3", "--frequency", "100", NULL);
	assert_int_equal(run(NULL, NULL), EXIT_DONE);
	assert_said("sampling thread 42 (connection 9) every 100 ms on "
	    "10.11.6-MariaDB-fake; our own thread is 7");
	assert_int_equal(samples_seen, 3);
	assert_int_equal(srv.reads, 3);
	assert_int_equal(srv.now, 200 * MS);
	assert_false(srv.read_target.is_grain);
	assert_int_equal(srv.read_target.thread_id, 42);
	assert_int_equal(target_seen.thread_id, 42);
	assert_int_equal(target_seen.connection_id, 9);
	assert_string_equal(target_seen.server_version,
	    "10.11.6-MariaDB-fake");
	assert_int_equal(srv.readers, 1);
	assert_int_equal(srv.readers_freed, 1);
	/* The whole server's total: once, at the end, not per sample. */
	assert_int_equal(srv.global_reads, 1);
	assert_null(strstr(notes, "exceeds"));
	assert_int_equal(sess.statements, STATEMENTS_ON);
}

static void
test_connection_names_its_thread(void **state)
{
	(void)state;
	parse("--connection", "9", "--count", "1", NULL);
	assert_int_equal(run(NULL, NULL), EXIT_DONE);
	assert_int_equal(srv.read_target.thread_id, 42);
	assert_said("sampling thread 42 (connection 9)");
}

static void
test_own_thread_is_refused(void **state)
{
	(void)state;
	srv.target = 7;
	parse("--thread", "7", "--count", "1", NULL);
	assert_int_equal(run(NULL, NULL), EXIT_USAGE);
	assert_said("thread 7 is mysqlmemprof's own connection");
	assert_int_equal(srv.readers, 0);
}

static void
test_unknown_thread_fails_before_sampling(void **state)
{
	(void)state;
	parse("--thread", "43", "--count", "1", NULL);
	assert_int_equal(run(NULL, NULL), EXIT_RUNTIME);
	assert_said("no thread 43");
	assert_int_equal(srv.readers, 0);
	assert_int_equal(samples_seen, 0);
}

static void
test_thread_end_is_said(void **state)
{
	(void)state;
	srv.gone_after = 2;
	parse("--thread", "42", "--count", "10", NULL);
	assert_int_equal(run(NULL, NULL), EXIT_DONE);
	assert_int_equal(samples_seen, 2);
	assert_said("thread 42 ended after 2 samples");
	/* Gone: the whole server's total would say nothing of it. */
	assert_int_equal(srv.global_reads, 0);
}

static void
test_checks_said_before_sampling(void **state)
{
	(void)state;
	srv.statements_off = 1;
	srv.partial_instruments = 1;
	parse("--thread", "42", "--count", "2", NULL);
	assert_int_equal(run(NULL, NULL), EXIT_DONE);
	assert_said("events_statements_current is off");
	assert_said("only 90 of 100 memory instruments are on");
	assert_int_equal(sess.statements, STATEMENTS_OFF);
	assert_int_equal(srv.readers_without, 1);
	assert_true(strstr(notes, "events_statements_current") <
	    strstr(notes, "sampling thread 42"));
}

static void
test_grain_read_from_its_table(void **state)
{
	(void)state;
	parse("--global", "--count", "2", NULL);
	assert_int_equal(run(NULL, NULL), EXIT_DONE);
	assert_true(srv.read_target.is_grain);
	assert_int_equal(srv.read_target.grain, GRAIN_GLOBAL);
	assert_said("sampling global every");
	assert_string_equal(target_seen.grain, "global");
	/* The global total is what --global samples: not asked again. */
	assert_int_equal(srv.global_reads, 0);
}

static void
test_grain_without_rows_fails(void **state)
{
	(void)state;
	srv.grain_status = PFS_NOT_FOUND;
	parse("--for-user", "nobody", "--count", "2", NULL);
	assert_int_equal(run(NULL, NULL), EXIT_RUNTIME);
	assert_said("no rows for that grain");
	assert_int_equal(srv.readers, 0);
}

static void
test_total_above_the_servers_is_noted(void **state)
{
	(void)state;
	srv.global_bytes = 500;
	parse("--thread", "42", "--count", "2", NULL);
	assert_int_equal(run(NULL, NULL), EXIT_DONE);
	assert_said("the total of the thread, 1000 bytes, exceeds the whole "
	    "server's, 500 bytes");
}

/* Each run of a statement is one entry of the summary, oldest first. */
static void
test_statement_boundaries(void **state)
{
	(void)state;
	memcpy(srv.reader_stmt, (uint64_t[]){ 11, 11, 12, 12, 12, 13 },
	    6 * sizeof(uint64_t));
	parse("--thread", "42", "--count", "6", NULL);
	assert_int_equal(run(NULL, NULL), EXIT_DONE);
	assert_int_equal(n_statements, 3);
	assert_int_equal(statement_ids[0], 11);
	assert_int_equal(statement_samples[0], 2);
	assert_int_equal(statement_ids[1], 12);
	assert_int_equal(statement_samples[1], 3);
	assert_int_equal(statement_ids[2], 13);
	assert_int_equal(statement_samples[2], 1);
}

static void
test_lost_reading_reconnects(void **state)
{
	(void)state;
	srv.lose_at_read = 2;
	parse("--thread", "42", "--count", "3", "--frequency", "100", NULL);
	assert_int_equal(run(NULL, NULL), EXIT_DONE);
	assert_int_equal(samples_seen, 3);
	assert_said("lost the connection while reading; reconnecting");
	assert_said("reconnected; sampling goes on");
	/* The first connect, then one more; the old one closed. */
	assert_int_equal(srv.opens, 2);
	assert_int_equal(srv.closed, 1);
	assert_int_equal(sess.conn->id, 2);
}

/*
 * Lost with no reconnecting: the observer hears the error that ended the
 * capture (the live view shows it, whatever notes come after).
 */
static void
test_lost_without_reconnect_tells_the_observer(void **state)
{
	(void)state;
	srv.lose_at_read = 2;
	parse("--thread", "42", "--count", "3", "--frequency", "100",
	    "--reconnect-timeout", "0", NULL);
	assert_int_equal(run(NULL, NULL), EXIT_RUNTIME);
	assert_int_equal(samples_seen, 1);
	assert_non_null(strstr(end_why, "lost the connection while reading"));
	assert_said("lost the connection while reading");
}

/* A count reached is no error: the observer hears none. */
static void
test_done_tells_the_observer_no_error(void **state)
{
	(void)state;
	parse("--thread", "42", "--count", "2", NULL);
	assert_int_equal(run(NULL, NULL), EXIT_DONE);
	assert_string_equal(end_why, "(none)");
}

/* A statement found by waiting: its capture ends when it does. */
static void
test_found_statement_ends_the_capture(void **state)
{
	struct stmt_match m = { .thread_id = 42, .connection_id = 9,
	    .time_s = 5, .start_s = 1699999990, .digest = "d1",
	    .text = "SELECT SLEEP(10)" };
	enum follow_end end;

	(void)state;
	srv.looks[0] = &m;
	srv.look_n[0] = 1;
	srv.n_looks = 1;
	srv.running = 1;
	srv.ends_at[0] = 350 * MS;
	parse("--wait-for", "SELECT%", "--poll", "100", "--frequency", "100",
	    NULL);
	assert_int_equal(run(&m, &end), EXIT_DONE);
	assert_int_equal(end, FOLLOW_FINISHED);
	/* Looked at 0, 100, 200 and 300 ms running; at 400 ms it was not. */
	assert_int_equal(samples_seen, 4);
	assert_said("capture 1 ended (the statement finished): connection 9, "
	    "4 samples");
	assert_ptr_equal(target_seen.found, &m);
}

/* A stop ends the run as a count would: the summary, no more queries. */
static void
test_stop_ends_it_as_a_count(void **state)
{
	(void)state;
	stop_after = 2;
	parse("--thread", "42", "--count", "10", NULL);
	assert_int_equal(run(NULL, NULL), EXIT_DONE);
	assert_int_equal(samples_seen, 2);
	assert_int_equal(srv.global_reads, 0);
	assert_int_equal(srv.readers_freed, 1);
}

/* The exporter's top threads: read beside the samples, once a second. */
static void
test_top_threads_read_beside_the_samples(void **state)
{
	struct thread_total v[4];
	struct top_threads top = { .max = 4, .v = v };

	(void)state;
	srv.tops[0] = (struct thread_total){ .thread_id = 3,
	    .name = "thread/sql/one_connection", .current_bytes = 9000 };
	srv.tops[1] = (struct thread_total){ .thread_id = 4,
	    .current_bytes = 8000 };
	srv.n_tops = 2;
	env.top_threads = &top;
	parse("--global", "--count", "25", "--frequency", "100", NULL);
	assert_int_equal(run(NULL, NULL), EXIT_DONE);
	/* Samples from 0 to 2.4 s: the threads at 0, 1 and 2 s. */
	assert_int_equal(srv.top_reads, 3);
	assert_int_equal(top.reads, 3);
	assert_int_equal(top.n, 2);
	assert_int_equal(v[0].thread_id, 3);
	assert_int_equal(v[1].current_bytes, 8000);
}

/* A failed look at them is no sample lost: it shows no threads. */
static void
test_top_threads_failed_show_none(void **state)
{
	struct thread_total v[4];
	struct top_threads top = { .max = 4, .v = v, .n = 3 };

	(void)state;
	srv.n_tops = 2;
	srv.top_status = PFS_ERROR;
	env.top_threads = &top;
	parse("--global", "--count", "3", "--frequency", "100", NULL);
	assert_int_equal(run(NULL, NULL), EXIT_DONE);
	assert_int_equal(samples_seen, 3);
	assert_int_equal(top.reads, 1);
	assert_int_equal(top.n, 0);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
#define T(name) cmocka_unit_test_setup_teardown(name, setup, teardown)
		T(test_thread_sampled_until_the_count),
		T(test_connection_names_its_thread),
		T(test_own_thread_is_refused),
		T(test_unknown_thread_fails_before_sampling),
		T(test_thread_end_is_said),
		T(test_checks_said_before_sampling),
		T(test_grain_read_from_its_table),
		T(test_grain_without_rows_fails),
		T(test_total_above_the_servers_is_noted),
		T(test_statement_boundaries),
		T(test_lost_reading_reconnects),
		T(test_lost_without_reconnect_tells_the_observer),
		T(test_done_tells_the_observer_no_error),
		T(test_found_statement_ends_the_capture),
		T(test_stop_ends_it_as_a_count),
		T(test_top_threads_read_beside_the_samples),
		T(test_top_threads_failed_show_none),
#undef T
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
