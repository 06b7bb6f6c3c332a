/*
 * Reconnecting against a fake server and a fake clock: the backoff and its
 * bounds, giving up after --reconnect-timeout, another server, a stop,
 * the target gone after a restart, and the session refreshed in place.
 */
#include <inttypes.h>
#include <stdlib.h>

#include "fake_server.h"
#include "reconnect.h"

static struct fake_server srv;
static struct session sess;

static int
setup(void **state)
{
	(void)state;
	srv = (struct fake_server){ .boot_s = 1700000000, .pid = 4242,
	    .target = 42, .target_connection = 1042, .next_own = 7 };
	fake_session(&srv, &sess);
	return 0;
}

static struct reconnect
recon(uint64_t thread_id, uint64_t timeout_s)
{
	return (struct reconnect){
		.session = &sess, .thread_id = thread_id,
		.connection_id = thread_id != 0 ? 1042 : 0,
		.timeout_ns = timeout_s * SEC, .clk = &fake_clock,
		.stop = &srv.stop,
	};
}

/* Waits 100 ms, then twice as long each time, never more than 5 s. */
static void
test_backoff_doubles_up_to_five_seconds(void **state)
{
	struct reconnect rc = recon(42, 60);
	char err[1024] = "lost";
	/* Tries after the first connect at 0 s: the waits add up. */
	static const uint64_t waits_ms[] = { 100, 200, 400, 800, 1600, 3200,
	    5000, 5000, 5000 };
	uint64_t at = 0;

	(void)state;
	srv.down_until = 21 * SEC;
	assert_int_equal(reconnect_now(&rc, err, sizeof(err)), SOURCE_OK);
	for (size_t i = 0; i < sizeof(waits_ms) / sizeof(waits_ms[0]); i++) {
		at += waits_ms[i] * MS;
		assert_true(i + 1 < srv.opens);
		assert_int_equal(srv.opens_at[i + 1], at);
	}
	/* The try at 21.3 s, the first after the server came back, was the last. */
	assert_int_equal(srv.opens, 1 + 9);
	assert_true(srv.opens_at[srv.opens - 2] < srv.down_until);
}

/* Gives up once --reconnect-timeout has passed, saying so and why. */
static void
test_gives_up_after_the_timeout(void **state)
{
	struct reconnect rc = recon(42, 10);
	char err[1024] = "lost";

	(void)state;
	srv.down_until = UINT64_MAX;
	assert_int_equal(reconnect_now(&rc, err, sizeof(err)), SOURCE_ERROR);
	assert_non_null(strstr(err, "could not reconnect within "
	    "--reconnect-timeout 10 s"));
	assert_non_null(strstr(err, "the server is down"));
	/* The last try is at the deadline, not past it. */
	assert_int_equal(srv.opens_at[srv.opens - 1], 10 * SEC);
	assert_int_equal(srv.now, 10 * SEC);
	/* Every failed try closed nothing: nothing was opened. */
	assert_ptr_equal(sess.conn, &srv.conns[0]);
}

/*
 * A server that is not the first connection's (another certificate) ends
 * it at the first try: trying again would not change the server.
 */
static void
test_another_server_ends_it(void **state)
{
	struct reconnect rc = recon(42, 60);
	char err[1024] = "lost";

	(void)state;
	srv.untrusted = 1;
	assert_int_equal(reconnect_now(&rc, err, sizeof(err)), SOURCE_ERROR);
	assert_string_equal(err, "another certificate");
	assert_int_equal(srv.opens, 1 + 1);
	assert_ptr_equal(sess.conn, &srv.conns[0]);
	assert_int_equal(sess.opened, CONN_UNTRUSTED); /* for the mode */
	/*
	 * The session tells how the last try ended, not the worst one: once
	 * the first server answers again, no stale CONN_UNTRUSTED is left
	 * for a mode to end on with EXIT_CERT_CHANGED (app.c).
	 */
	srv.untrusted = 0;
	snprintf(err, sizeof(err), "lost");
	assert_int_equal(reconnect_now(&rc, err, sizeof(err)), SOURCE_OK);
	assert_int_equal(sess.opened, CONN_OK);
}

/* SIGTERM while waiting between tries ends it at once. */
static void
test_stop_ends_it(void **state)
{
	struct reconnect rc = recon(42, 60);
	char err[1024] = "lost";

	(void)state;
	srv.down_until = UINT64_MAX;
	srv.stop_on_sleep = 3;
	assert_int_equal(reconnect_now(&rc, err, sizeof(err)),
	    SOURCE_STOPPED);
	assert_int_equal(srv.opens, 1 + 2);
}

/* A thread id means nothing on a restarted server. */
static void
test_restart_means_the_thread_is_gone(void **state)
{
	struct reconnect rc = recon(42, 60);
	char err[1024] = "lost";

	(void)state;
	srv.boot_s += 30;
	assert_int_equal(reconnect_now(&rc, err, sizeof(err)), SOURCE_ERROR);
	assert_string_equal(err, "the server restarted, so thread 42 is gone; "
	    "start a new capture (see --list)");
	/* The new connection was closed; the session keeps the old one. */
	assert_int_equal(srv.closed, 1);
	assert_ptr_equal(sess.conn, &srv.conns[0]);
}

/* Boot times read from UPTIME wobble: 2 s either way is the same server. */
static void
test_boot_within_the_slack_is_the_same_server(void **state)
{
	struct reconnect rc = recon(42, 60);
	char err[1024] = "lost";

	(void)state;
	srv.boot_s += 2;
	assert_int_equal(reconnect_now(&rc, err, sizeof(err)), SOURCE_OK);
	srv.boot_s -= 4;
	assert_int_equal(reconnect_now(&rc, err, sizeof(err)), SOURCE_OK);
	srv.boot_s -= 1;
	assert_int_equal(reconnect_now(&rc, err, sizeof(err)), SOURCE_ERROR);
}

static void
test_thread_gone_after_reconnecting(void **state)
{
	struct reconnect rc = recon(42, 60);
	char err[1024] = "lost";

	(void)state;
	srv.target = 0;
	assert_int_equal(reconnect_now(&rc, err, sizeof(err)), SOURCE_ERROR);
	assert_string_equal(err, "thread 42 no longer exists after "
	    "reconnecting; start a new capture (see --list)");
}

/* A grain, or waiting, has no thread to lose: a restart is fine. */
static void
test_no_target_survives_a_restart(void **state)
{
	struct reconnect rc = recon(0, 60);
	char err[1024] = "lost";

	(void)state;
	srv.boot_s += 3600;
	srv.target = 0;
	assert_int_equal(reconnect_now(&rc, err, sizeof(err)), SOURCE_OK);
	assert_int_equal(sess.server.boot_s, srv.boot_s);
}

/* With a thread, the first boot time stays the reference. */
static void
test_thread_keeps_the_first_boot_time(void **state)
{
	struct reconnect rc = recon(42, 60);
	int64_t first = sess.server.boot_s;
	char err[1024] = "lost";

	(void)state;
	srv.boot_s += 2;
	assert_int_equal(reconnect_now(&rc, err, sizeof(err)), SOURCE_OK);
	assert_int_equal(sess.server.boot_s, first);
}

/* The session holds the new connection, our new thread and boot time. */
static void
test_session_refreshed_in_place(void **state)
{
	struct reconnect rc = recon(42, 60);
	struct conn *old = sess.conn;
	char err[1024] = "lost";

	(void)state;
	assert_int_equal(sess.own_thread, 7);
	assert_int_equal(reconnect_now(&rc, err, sizeof(err)), SOURCE_OK);
	assert_false(old->open);
	assert_true(sess.conn->open);
	assert_ptr_not_equal(sess.conn, old);
	assert_int_equal(sess.own_thread, 8);
}

/* A source that loses the connection on its first `losses` reads. */
static size_t inner_reads, losses = 1;
static struct conn *inner_conns[8];

static enum source_status
inner_read(void *ctx, uint64_t deadline_ns, struct reading *out, char *err,
    size_t errlen)
{
	struct session *s = ctx;

	(void)deadline_ns;
	if (inner_reads < 8)
		inner_conns[inner_reads] = s->conn;
	if (inner_reads++ < losses) {
		fake->now += 50 * MS;
		snprintf(err, errlen, "lost the connection while reading");
		return SOURCE_LOST;
	}
	*out = (struct reading){ 0 };
	return SOURCE_OK;
}

/* The read after a reconnect goes through the new connection and says the gap. */
static void
test_source_reads_again_through_the_new_connection(void **state)
{
	struct reconnect rc = recon(42, 60);
	struct source src;
	struct reading r;
	char err[1024];

	(void)state;
	inner_reads = 0;
	losses = 1;
	rc.inner = (struct source){ .ctx = &sess, .read = inner_read };
	srv.down_until = 1 * SEC;
	src = reconnect_source(&rc);
	assert_int_equal(src.read(src.ctx, 0, &r, err, sizeof(err)), SOURCE_OK);
	assert_int_equal(inner_reads, 2);
	assert_ptr_equal(inner_conns[0], &srv.conns[0]);
	assert_ptr_equal(inner_conns[1], sess.conn);
	assert_ptr_not_equal(inner_conns[1], &srv.conns[0]);
	/* Lost at 50 ms, back at the try of 1.55 s. */
	assert_int_equal(r.gap_us, 1500 * 1000);
	assert_int_equal(r.started_ns, srv.now);
}

/* --reconnect-timeout 0: a lost connection is the end. */
static void
test_timeout_zero_does_not_reconnect(void **state)
{
	struct reconnect rc = recon(42, 0);
	struct source src;
	struct reading r;
	char err[1024];

	(void)state;
	inner_reads = 0;
	losses = 1;
	rc.inner = (struct source){ .ctx = &sess, .read = inner_read };
	src = reconnect_source(&rc);
	assert_int_equal(src.read(src.ctx, 0, &r, err, sizeof(err)), SOURCE_LOST);
	assert_int_equal(srv.opens, 1);
}

/*
 * Lost again right after reconnecting: the same outage. It reconnects
 * again, and --reconnect-timeout counts from the first loss.
 */
static void
test_second_loss_reconnects_again(void **state)
{
	struct reconnect rc = recon(42, 60);
	struct source src;
	struct reading r;
	char err[1024];

	(void)state;
	inner_reads = 0;
	losses = 3;
	rc.inner = (struct source){ .ctx = &sess, .read = inner_read };
	src = reconnect_source(&rc);
	assert_int_equal(src.read(src.ctx, 0, &r, err, sizeof(err)), SOURCE_OK);
	assert_int_equal(inner_reads, 4);
	/* Three reconnects, each a new connection. */
	assert_int_equal(srv.opens, 1 + 3);
	assert_ptr_equal(inner_conns[3], sess.conn);
	/* The gap runs from the first loss (50 ms) to the last reconnect. */
	assert_int_equal(r.gap_us, (srv.now - 50 * MS) / 1000);
}

/* Lost again and again: it gives up when the time since the first loss is out. */
static void
test_losses_give_up_from_the_first(void **state)
{
	struct reconnect rc = recon(42, 3);
	struct source src;
	struct reading r;
	char err[1024];

	(void)state;
	inner_reads = 0;
	losses = 1000;
	rc.inner = (struct source){ .ctx = &sess, .read = inner_read };
	src = reconnect_source(&rc);
	/* Each reconnect works, and each read loses the connection again. */
	assert_int_equal(src.read(src.ctx, 0, &r, err, sizeof(err)),
	    SOURCE_ERROR);
	assert_non_null(strstr(err, "could not reconnect within "
	    "--reconnect-timeout 3 s"));
	/* Lost first at 50 ms: it ends 3 s after that, give or take a read. */
	assert_true(srv.now >= 3 * SEC + 50 * MS);
	assert_true(srv.now <= 3 * SEC + 150 * MS);
	assert_true(srv.opens > 10);
}

/* The run's time is up while reconnecting: that reading is lost, no more. */
static void
test_run_deadline_ends_the_reconnect(void **state)
{
	struct reconnect rc = recon(42, 60);
	struct source src;
	struct reading r;
	char err[1024];

	(void)state;
	inner_reads = 0;
	losses = 1;
	rc.inner = (struct source){ .ctx = &sess, .read = inner_read };
	srv.down_until = UINT64_MAX;
	src = reconnect_source(&rc);
	assert_int_equal(src.read(src.ctx, 4 * SEC, &r, err, sizeof(err)),
	    SOURCE_SKIPPED);
	assert_int_equal(srv.now, 4 * SEC);
	assert_non_null(strstr(err, "the run's time was up while "
	    "reconnecting"));
}

/*
 * Killed and restarted within the boot time's slack, a server is still
 * another run: its process id says so, and the thread is another's.
 */
static void
test_restart_within_the_slack_is_seen(void **state)
{
	struct reconnect rc = recon(42, 60);
	char err[1024] = "lost";

	(void)state;
	srv.boot_s += 1;
	srv.pid = 5151;
	assert_int_equal(reconnect_now(&rc, err, sizeof(err)), SOURCE_ERROR);
	assert_string_equal(err, "the server restarted, so thread 42 is gone; "
	    "start a new capture (see --list)");
	assert_ptr_equal(sess.conn, &srv.conns[0]);
}

/* The same thread id on the same server, held by another session. */
static void
test_thread_of_another_session(void **state)
{
	struct reconnect rc = recon(42, 60);
	char err[1024] = "lost";

	(void)state;
	srv.target_connection = 77;
	assert_int_equal(reconnect_now(&rc, err, sizeof(err)), SOURCE_ERROR);
	assert_string_equal(err, "thread 42 is another session after "
	    "reconnecting (connection 77, not 1042); start a new capture (see "
	    "--list)");
}

/* Back with performance_schema off: said, not sampled as zeros. */
static void
test_setup_checked_again(void **state)
{
	struct reconnect rc = recon(0, 60);
	char err[1024] = "lost";

	(void)state;
	srv.preflight = PFS_DISABLED;
	assert_int_equal(reconnect_now(&rc, err, sizeof(err)), SOURCE_ERROR);
	assert_string_equal(err, "performance_schema is off");
	assert_int_equal(srv.opens, 2);
	assert_ptr_equal(sess.conn, &srv.conns[0]);
}

/* Without a thread, a restarted server is fine, and its new run counts. */
static void
test_waiting_takes_the_new_run(void **state)
{
	struct reconnect rc = recon(0, 60);
	char err[1024] = "lost";

	(void)state;
	srv.pid = 6000;
	assert_int_equal(reconnect_now(&rc, err, sizeof(err)), SOURCE_OK);
	assert_int_equal(sess.server.pid, 6000);
}

/* The one backoff: 100 ms, doubling, held at 5 s, never past it. */
static void
test_backoff_doubles_to_its_bound(void **state)
{
	uint64_t w = 0, waits[8];

	(void)state;
	for (size_t i = 0; i < 8; i++)
		waits[i] = w = reconnect_backoff(w);
	assert_int_equal(waits[0], 100 * MS);
	assert_int_equal(waits[1], 200 * MS);
	assert_int_equal(waits[5], 3200 * MS);
	assert_int_equal(waits[6], 5 * SEC);
	assert_int_equal(waits[7], 5 * SEC);
	assert_int_equal(reconnect_backoff(4 * SEC), 5 * SEC);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup(test_backoff_doubles_up_to_five_seconds,
		    setup),
		cmocka_unit_test_setup(test_gives_up_after_the_timeout, setup),
		cmocka_unit_test_setup(test_another_server_ends_it, setup),
		cmocka_unit_test_setup(test_stop_ends_it, setup),
		cmocka_unit_test_setup(test_restart_means_the_thread_is_gone,
		    setup),
		cmocka_unit_test_setup(
		    test_boot_within_the_slack_is_the_same_server, setup),
		cmocka_unit_test_setup(test_thread_gone_after_reconnecting,
		    setup),
		cmocka_unit_test_setup(test_no_target_survives_a_restart, setup),
		cmocka_unit_test_setup(test_thread_keeps_the_first_boot_time,
		    setup),
		cmocka_unit_test_setup(test_session_refreshed_in_place, setup),
		cmocka_unit_test_setup(
		    test_source_reads_again_through_the_new_connection, setup),
		cmocka_unit_test_setup(test_timeout_zero_does_not_reconnect,
		    setup),
		cmocka_unit_test_setup(test_second_loss_reconnects_again, setup),
		cmocka_unit_test_setup(test_losses_give_up_from_the_first,
		    setup),
		cmocka_unit_test_setup(test_run_deadline_ends_the_reconnect,
		    setup),
		cmocka_unit_test_setup(test_restart_within_the_slack_is_seen,
		    setup),
		cmocka_unit_test_setup(test_thread_of_another_session, setup),
		cmocka_unit_test_setup(test_setup_checked_again, setup),
		cmocka_unit_test_setup(test_waiting_takes_the_new_run, setup),
		cmocka_unit_test(test_backoff_doubles_to_its_bound),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
