/*
 * Waiting against the fake server and the fake clock: a look every
 * --poll until a statement matches, its capture until it ends, --repeat
 * going round again until --wait-timeout, and a connection lost while
 * waiting, taken up again by the one reconnect policy.
 */
#include "fake_capture.h"

#include "reconnect.h"
#include "hunt.h"

static struct stmt_match a = { .thread_id = 42, .connection_id = 9,
    .time_s = 5, .start_s = 1699999990, .digest = "da", .user = "app",
    .text = "SELECT SLEEP(10)" };
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
	srv = (struct fake_server){ .boot_s = 1700000000, .next_own = 7,
	    .running = 1, .global_bytes = 1 << 30,
	    .setup = { .memory_enabled = 100, .statements = true,
	    .instrumented = 1 },
	    .reader_bytes = { 1000 }, .n_reader_bytes = 1 };
	fake_session(&srv, &sess);
	sess.instruments = 100;
	sig = (struct signal_flags){ 0 };
	dg = (struct diag){ 0 };
	opts = (struct options){ 0 };
	env = (struct capture_env){ .opts = &opts, .session = &sess,
	    .out = &out, .diag = &dg, .sig = &sig, .clk = &fake_clock };
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
#undef T
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
