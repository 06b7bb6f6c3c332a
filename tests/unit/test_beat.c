/*
 * The events at a slower beat (beat.h): the inner source is read at the
 * first sample and then once each period; the samples between get the
 * last events again, flagged kept; a failed read is passed on and read
 * again next time.
 */
#include "beat.h"
#include "fake_server.h"

static struct fake_server srv;
static size_t inner_reads;
static enum source_status inner_status;
static struct event_stat inner_ev[2];

static enum source_status
inner_read(void *ctx, uint64_t deadline_ns, struct reading *out, char *err,
    size_t errlen)
{
	(void)ctx, (void)deadline_ns, (void)err, (void)errlen;
	inner_reads++;
	inner_ev[0].current_bytes = (int64_t)inner_reads * 100;
	*out = (struct reading){ .events = inner_ev, .n = 2 };
	return inner_status;
}

static void
test_reads_once_a_period(void **state)
{
	struct beat b;
	struct source src;
	struct reading rd;
	char err[64];

	(void)state;
	srv = (struct fake_server){ .now = 1000 };
	fake = &srv;
	inner_reads = 0;
	inner_status = SOURCE_OK;
	strcpy(inner_ev[0].name, "memory/a");
	strcpy(inner_ev[1].name, "memory/b");
	b = (struct beat){ .inner = { .read = inner_read }, .clk = &fake_clock,
	    .every_ns = 10 * 1000000000ull };
	src = beat_source(&b);
	/* The first sample reads. */
	assert_int_equal(src.read(src.ctx, 0, &rd, err, sizeof(err)),
	    SOURCE_OK);
	assert_int_equal(inner_reads, 1);
	assert_false(rd.events_kept);
	/* Each second until the period is up: kept, the same events. */
	for (int i = 1; i < 10; i++) {
		srv.now += 1000000000ull;
		assert_int_equal(src.read(src.ctx, 0, &rd, err, sizeof(err)),
		    SOURCE_OK);
		assert_int_equal(inner_reads, 1);
		assert_true(rd.events_kept);
		assert_int_equal(rd.n, 2);
		assert_int_equal(rd.events[0].current_bytes, 100);
		assert_string_equal(rd.events[1].name, "memory/b");
	}
	/* The period is up: read again. */
	srv.now += 1000000000ull;
	assert_int_equal(src.read(src.ctx, 0, &rd, err, sizeof(err)),
	    SOURCE_OK);
	assert_int_equal(inner_reads, 2);
	assert_false(rd.events_kept);
	assert_int_equal(rd.events[0].current_bytes, 200);
	/* A lost read is passed on, and the next sample reads again. */
	inner_status = SOURCE_LOST;
	srv.now += 10 * 1000000000ull;
	assert_int_equal(src.read(src.ctx, 0, &rd, err, sizeof(err)),
	    SOURCE_LOST);
	inner_status = SOURCE_OK;
	srv.now += 1000000000ull;
	assert_int_equal(src.read(src.ctx, 0, &rd, err, sizeof(err)),
	    SOURCE_OK);
	assert_int_equal(inner_reads, 4);
	assert_false(rd.events_kept);
	beat_free(&b);
}

/* Between reads the server is asked whether it is there: lost is said. */
static void
test_asks_between_reads(void **state)
{
	struct session sess;
	struct beat b;
	struct source src;
	struct reading rd;
	char err[64];

	(void)state;
	srv = (struct fake_server){ .now = 1000, .boot_s = 1700000000 };
	fake_session(&srv, &sess);
	inner_reads = 0;
	inner_status = SOURCE_OK;
	b = (struct beat){ .inner = { .read = inner_read }, .session = &sess,
	    .clk = &fake_clock, .every_ns = 10 * 1000000000ull };
	src = beat_source(&b);
	assert_int_equal(src.read(src.ctx, 0, &rd, err, sizeof(err)),
	    SOURCE_OK);
	assert_int_equal(srv.pings, 0);
	srv.now += 1000000000ull;
	assert_int_equal(src.read(src.ctx, 0, &rd, err, sizeof(err)),
	    SOURCE_OK);
	assert_int_equal(srv.pings, 1);
	srv.ping_status = PFS_LOST;
	srv.now += 1000000000ull;
	assert_int_equal(src.read(src.ctx, 0, &rd, err, sizeof(err)),
	    SOURCE_LOST);
	assert_int_equal(inner_reads, 1);
	beat_free(&b);
	sess.ops->close(sess.conn);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_reads_once_a_period),
		cmocka_unit_test(test_asks_between_reads),
	};

	return cmocka_run_group_tests_name("beat", tests, NULL, NULL);
}
