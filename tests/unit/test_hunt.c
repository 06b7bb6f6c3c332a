/*
 * Waiting against the fake server and the fake clock: a look every
 * --poll until a statement matches, its capture until it ends, --repeat
 * going round again until --wait-timeout, and a connection lost while
 * waiting, taken up again by the one reconnect policy.
 */
#include <stdlib.h>
#include <unistd.h>

#include "fake_capture.h"

#include "reconnect.h"
#include "hunt.h"

static struct stmt_match a = { .thread_id = 42, .connection_id = 9,
    .time_s = 5, .start_s = 1699999990, .digest = "da", .user = "app",
    .text = "SELECT SLEEP(10)" };
/* A connection idle for 12 s, holding 30 MiB. */
static struct stmt_match idle = { .thread_id = 44, .connection_id = 11,
    .time_s = 12, .start_s = 1699999988, .digest = "", .user = "loader",
    .current_bytes = 30 << 20, .idle = true };
static struct stmt_match b = { .thread_id = 43, .connection_id = 10,
    .time_s = 6, .start_s = 1699999995, .digest = "db", .user = "app",
    .text = "SELECT SLEEP(20)" };

/* The lists of the looks, in turn: NULL is a look that finds nothing. */
static void
looks(size_t n, ...)
{
	va_list ap;

	va_start(ap, n);
	for (size_t i = 0; i < n; i++) {
		const struct stmt_match *m = va_arg(ap, const struct stmt_match *);

		srv.looks[i] = m;
		srv.look_n[i] = m != NULL;
	}
	va_end(ap);
	srv.n_looks = n;
}

static int
run(void)
{
	int rc;

	notes_start();
	rc = hunt_run(&env);
	notes_read();
	return rc;
}

static int
setup(void **state)
{
	(void)state;
	fake_capture_setup();
	/* No thread to capture until a look finds one: a statement runs. */
	srv.target = 0;
	srv.target_connection = 0;
	srv.running = 1;
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
test_waits_then_captures_until_the_statement_ends(void **state)
{
	(void)state;
	looks(3, NULL, &a, NULL);
	srv.ends_at[1] = 1500 * MS;
	parse("--wait-for", "SELECT%", "--poll", "500", "--frequency", "100",
	    NULL);
	assert_int_equal(run(), EXIT_DONE);
	assert_said("waiting for a statement like 'SELECT%', looking every "
	    "500 ms; our own thread is 7");
	assert_said("found connection 9 (thread 42, user app) running for 5 s: "
	    "SELECT SLEEP(10)");
	/* The history's reading of the look that found it comes first. */
	assert_said("the capture begins with 1 reading taken while waiting");
	assert_said("capture 1 ended (the statement finished): connection 9, "
	    "11 samples");
	assert_int_equal(srv.reads, 10);
	/* Found at the second look; no --repeat: no third. */
	assert_int_equal(srv.looks_done, 2);
	assert_int_equal(srv.looks_at[1], 500 * MS);
	assert_int_equal(srv.read_target.thread_id, 42);
	/* The capture's end: the first look at or after 1.5 s. */
	assert_int_equal(srv.now, 1500 * MS);
}

static void
test_repeat_waits_again_until_the_timeout(void **state)
{
	(void)state;
	looks(3, &a, &b, NULL);
	srv.ends_at[0] = 250 * MS;
	srv.ends_at[1] = 650 * MS;
	parse("--wait-for", "SELECT%", "--poll", "100", "--frequency", "100",
	    "--repeat", "--wait-timeout", "1", NULL);
	assert_int_equal(run(), EXIT_DONE);
	assert_said("capture 1 ended (the statement finished): connection 9");
	assert_said("1 capture so far");
	assert_said("capture 2 ended (the statement finished): connection 10");
	assert_said("2 captures so far");
	assert_said("no other statement like 'SELECT%' within --wait-timeout "
	    "1 s; 2 captures");
	assert_int_equal(srv.readers, 2);
	assert_int_equal(srv.readers_freed, 2);
	assert_int_equal(srv.read_target.thread_id, 43);
}

static void
test_nothing_within_the_timeout(void **state)
{
	(void)state;
	looks(1, NULL);
	parse("--wait-for", "SELECT%", "--poll", "100", "--wait-timeout", "1",
	    NULL);
	assert_int_equal(run(), EXIT_NO_MATCH);
	assert_said("no statement like 'SELECT%' within --wait-timeout 1 s");
	assert_int_equal(srv.readers, 0);
}

static void
test_lost_while_waiting_reconnects(void **state)
{
	(void)state;
	looks(4, NULL, NULL, &a, NULL);
	srv.lose_at_look = 2;
	srv.ends_at[2] = 2 * SEC;
	parse("--wait-for", "SELECT%", "--poll", "500", NULL);
	assert_int_equal(run(), EXIT_DONE);
	assert_said("lost the connection while looking; reconnecting");
	assert_said("reconnected; waiting goes on");
	assert_said("found connection 9");
	/* The first connect, then one more after the first backoff. */
	assert_int_equal(srv.opens, 2);
	assert_int_equal(srv.opens_at[1], 500 * MS + RECONNECT_FIRST_NS);
	assert_int_equal(srv.own_seen, 8);
}

static void
test_lost_without_reconnecting_ends_it(void **state)
{
	(void)state;
	looks(1, NULL);
	srv.lose_at_look = 1;
	parse("--wait-for", "SELECT%", "--reconnect-timeout", "0", NULL);
	assert_int_equal(run(), EXIT_RUNTIME);
	assert_said("lost the connection while looking");
	assert_int_equal(srv.opens, 1);
}

/* The whole text of the output file the test asked for. */
static char out_text[65536];

static void
read_out(const char *path)
{
	FILE *fp = fopen(path, "r");
	size_t n;

	assert_non_null(fp);
	n = fread(out_text, 1, sizeof(out_text) - 1, fp);
	out_text[n] = '\0';
	fclose(fp);
}

/*
 * --bigger-than finds a connection holding the size idle, says so in a
 * note and in the capture's heading, and captures it, whatever it runs,
 * until it has held less for --trigger-hold.
 */
static void
test_idle_holder_captured_until_released(void **state)
{
	char path[] = "/tmp/test_hunt_XXXXXX";
	int fd = mkstemp(path);

	(void)state;
	assert_true(fd >= 0);
	close(fd);
	out_path = path;
	looks(1, &idle);
	srv.running = 0;
	srv.now_running = idle;
	/* 30 MiB for five readings, then 1 MiB. */
	for (size_t i = 0; i < 5; i++)
		srv.reader_bytes[i] = 30 << 20;
	srv.reader_bytes[5] = 1 << 20;
	srv.n_reader_bytes = 6;
	srv.limits = (struct pfs_memory_limits){ .known = true,
	    .connection = 64 << 20 };
	parse("--bigger-than", "20M", "--poll", "500", "--frequency", "100",
	    "--trigger-hold", "1", NULL);
	assert_int_equal(run(), EXIT_DONE);
	parse_free();
	out_path = NULL;
	assert_int_equal(srv.idle_asked, 20 << 20);
	/* The limit: read once for the hunt and its capture, and said. */
	assert_int_equal(srv.limit_reads, 1);
	assert_said("holding 30.00 MiB, 47% of connection_memory_limit "
	    "64.00 MiB: it runs no statement");
	assert_said("the most the thread held, 30.00 MiB, is 47% of "
	    "connection_memory_limit 64.00 MiB");
	assert_said("waiting for a statement of a connection holding at least "
	    "20.00 MiB, or a connection holding it idle, looking every");
	assert_said("found connection 11 (thread 44, user loader) idle for "
	    "12 s, holding 30.00 MiB, 47% of connection_memory_limit");
	assert_said("capture 1 ended (it held less than 20.00 MiB for "
	    "--trigger-hold 1 s): connection 11");
	/* Below from the sixth reading, at 0.5 s: a second more, 11 more. */
	assert_int_equal(srv.reads, 16);
	read_out(path);
	unlink(path);
	assert_non_null(strstr(out_text, ": connection 11, thread 44, idle "
	    "12 s, holding 30.00 MiB (--bigger-than 20.00 MiB) ##"));
	assert_non_null(strstr(out_text, "\n connection_memory_limit 64.00 "
	    "MiB: the most held, 30.00 MiB, is 47% of it\n"));
}

/* --running-only asks for no idle holder, nor does --wait-for. */
static void
test_running_only(void **state)
{
	(void)state;
	looks(1, NULL);
	parse("--bigger-than", "20M", "--running-only", "--wait-timeout", "1",
	    NULL);
	assert_int_equal(run(), EXIT_NO_MATCH);
	assert_int_equal(srv.idle_asked, 0);
	assert_said("no statement of a connection holding at least 20.00 MiB "
	    "within");
	parse_free();
	parse("--bigger-than", "20M", "--wait-for", "SELECT%",
	    "--wait-timeout", "1", NULL);
	assert_int_equal(run(), EXIT_NO_MATCH);
	assert_int_equal(srv.idle_asked, 0);
	parse_free();
	parse("--bigger-than", "20M", "--wait-timeout", "1", NULL);
	assert_int_equal(run(), EXIT_NO_MATCH);
	assert_int_equal(srv.idle_asked, 20 << 20);
}

/*
 * --bigger-than N%: of the connection_memory_limit the session read; none
 * set, or none at all (MariaDB, MySQL before 8.0.28), is a usage error.
 */
static void
test_bigger_than_a_share_of_the_limit(void **state)
{
	(void)state;
	looks(1, NULL);
	parse("--bigger-than", "80%", "--wait-timeout", "1", NULL);
	assert_int_equal(run(), EXIT_USAGE);
	assert_said("--bigger-than 80%: 10.11.6-MariaDB-fake has no "
	    "connection_memory_limit (MySQL 8.0.28 and later have it)");
	assert_int_equal(srv.looks_done, 0);
	/* Asked once a connection: a reconnect asks again. */
	srv.limits = (struct pfs_memory_limits){ .known = true };
	assert_int_equal(run(), EXIT_USAGE);
	assert_int_equal(srv.limit_reads, 1);
	sess.limits_read = false;
	assert_int_equal(run(), EXIT_USAGE);
	assert_said("--bigger-than 80%: connection_memory_limit is not set");
	srv.limits.connection = 64 << 20;
	sess.limits_read = false;
	assert_int_equal(run(), EXIT_NO_MATCH);
	assert_int_equal(srv.limit_reads, 3);
	assert_said("--bigger-than 80%: 51.20 MiB, of connection_memory_limit "
	    "64.00 MiB");
	assert_int_equal(srv.idle_asked, (int64_t)(64 << 20) * 80 / 100);
	assert_said("no statement of a connection holding at least 51.20 MiB");
}

/*
 * Past --bigger-than only between two looks: the capture says so, in
 * the note and in its heading, and begins with the history's readings.
 */
static void
test_crossed_between_looks_said(void **state)
{
	char path[] = "/tmp/test_hunt_XXXXXX";
	int fd = mkstemp(path);
	struct stmt_match look1[1], look2[1];

	(void)state;
	assert_true(fd >= 0);
	close(fd);
	out_path = path;
	srv.peaks = 1;
	look1[0] = a;
	look1[0].current_bytes = 1 << 20;
	look1[0].peak_bytes = 2 << 20;
	look2[0] = look1[0];
	look2[0].peak_bytes = 40 << 20;
	srv.n_looks = 2;
	srv.looks[0] = look1;
	srv.looks[1] = look2;
	srv.look_n[0] = srv.look_n[1] = 1;
	srv.ends_at[1] = 1 * SEC;
	parse("--bigger-than", "30M", "--poll", "500", "--frequency", "100",
	    "--count", "20", NULL);
	assert_int_equal(run(), EXIT_DONE);
	parse_free();
	out_path = NULL;
	assert_said("crossed 30.00 MiB between looks, peak 40.00 MiB");
	assert_said("the capture begins with 2 readings taken while waiting");
	read_out(path);
	unlink(path);
	assert_non_null(strstr(out_text, "running 5 s: SELECT SLEEP(10) ##\n"
	    "## crossed 30.00 MiB between looks, peak 40.00 MiB ##\n"));
	assert_non_null(strstr(out_text, "(taken while waiting)"));
}

/*
 * A statement that had ended past --bigger-than by its own peak (MySQL
 * 8.0.31+), its session's peak past the size already: the capture's
 * heading says it ended and how long it ran, not that it runs.
 */
static void
test_ended_statement_heading(void **state)
{
	char path[] = "/tmp/test_hunt_XXXXXX";
	int fd = mkstemp(path);
	struct stmt_match pool[1], e1[1], e2[2];

	(void)state;
	assert_true(fd >= 0);
	close(fd);
	out_path = path;
	srv.peaks = 1;
	pool[0] = (struct stmt_match){ .thread_id = 61, .connection_id = 20,
	    .user = "app", .current_bytes = 1 << 20, .peak_bytes = 50 << 20,
	    .peak_only = true };
	e1[0] = (struct stmt_match){ .thread_id = 61, .connection_id = 20,
	    .user = "app", .text = "SELECT first", .current_bytes = 1 << 20,
	    .peak_bytes = 50 << 20, .ended = true, .event_id = 10,
	    .duration_ms = 1500, .time_s = 1 };
	e2[0] = e1[0];
	e2[1] = e1[0];
	snprintf(e2[1].text, sizeof(e2[1].text), "SELECT again");
	e2[1].event_id = 20;
	e2[1].peak_bytes = 40 << 20;
	e2[1].duration_ms = 3020;
	e2[1].time_s = 3;
	srv.n_looks = 2;
	srv.looks[0] = srv.looks[1] = pool;
	srv.look_n[0] = srv.look_n[1] = 1;
	srv.ended[0] = e1;
	srv.ended_n[0] = 1;
	srv.ended[1] = e2;
	srv.ended_n[1] = 2;
	parse("--bigger-than", "30M", "--poll", "500", "--frequency", "100",
	    "--count", "20", NULL);
	assert_int_equal(run(), EXIT_DONE);
	parse_free();
	out_path = NULL;
	assert_said("a statement that ended before this look, after 3.020 s, "
	    "peak 40.00 MiB: SELECT again");
	/* Written, never sampled: nothing says it is being sampled. */
	assert_null(strstr(notes, "sampling thread"));
	read_out(path);
	unlink(path);
	assert_non_null(strstr(out_text, ": connection 20, thread 61, ended "
	    "after 3.020 s: SELECT again ##\n## crossed 30.00 MiB between "
	    "looks, peak 40.00 MiB ##\n"));
	assert_null(strstr(out_text, "running"));
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
#define T(name) cmocka_unit_test_setup_teardown(name, setup, teardown)
		T(test_waits_then_captures_until_the_statement_ends),
		T(test_repeat_waits_again_until_the_timeout),
		T(test_nothing_within_the_timeout),
		T(test_lost_while_waiting_reconnects),
		T(test_lost_without_reconnecting_ends_it),
		T(test_idle_holder_captured_until_released),
		T(test_running_only),
		T(test_bigger_than_a_share_of_the_limit),
		T(test_crossed_between_looks_said),
		T(test_ended_statement_heading),
#undef T
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
