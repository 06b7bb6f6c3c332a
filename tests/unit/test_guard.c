/*
 * Watching the setup while sampling, against a fake server and a fake
 * clock: the first look is the reference, each thing switched off is said
 * once, the statements consumer switched off switches the reader over,
 * and the look is made at most once a second.
 */
#include "fake_server.h"
#include "guard.h"

static struct fake_server srv;
static struct session sess;
static char told[8][700];
static size_t n_told, offs, inner_reads;

static void
notify(void *ctx, const char *msg)
{
	(void)ctx;
	if (n_told < 8)
		snprintf(told[n_told], sizeof(told[0]), "%s", msg);
	n_told++;
}

static void
statements_off(void *ctx)
{
	(void)ctx;
	offs++;
}

static enum source_status
inner_read(void *ctx, uint64_t deadline_ns, struct reading *out, char *err,
    size_t errlen)
{
	(void)ctx, (void)deadline_ns, (void)err, (void)errlen;
	inner_reads++;
	*out = (struct reading){ 0 };
	return SOURCE_OK;
}

static struct guard g;
static struct source src;

static int
setup(void **state)
{
	(void)state;
	srv = (struct fake_server){ .boot_s = 1700000000, .next_own = 7,
	    .setup = { .memory_enabled = 300, .statements = true,
	    .instrumented = 1 } };
	fake_session(&srv, &sess);
	n_told = offs = inner_reads = 0;
	g = (struct guard){
		.inner = { .read = inner_read }, .session = &sess,
		.thread_id = 42, .clk = &fake_clock, .notify = notify,
		.statements_off = statements_off,
	};
	src = guard_source(&g);
	return 0;
}

/* Reads for `ms` milliseconds, one every 100 ms. */
static void
read_for(unsigned ms)
{
	struct reading r;
	char err[256];

	for (unsigned t = 0; t < ms; t += 100) {
		assert_int_equal(src.read(src.ctx, 0, &r, err, sizeof(err)),
		    SOURCE_OK);
		srv.now += 100 * MS;
	}
}

static void
test_looks_once_a_second_and_says_nothing_when_unchanged(void **state)
{
	(void)state;
	read_for(3000);
	assert_int_equal(inner_reads, 30);
	assert_int_equal(srv.setup_looks, 3);
	assert_int_equal(srv.setup_thread, 42);
	assert_int_equal(n_told, 0);
}

static void
test_memory_instruments_switched_off_said_once(void **state)
{
	(void)state;
	read_for(1000);
	srv.setup.memory_enabled = 120;
	read_for(3000);
	assert_int_equal(n_told, 1);
	assert_non_null(strstr(told[0], "memory instruments were switched off "
	    "while sampling (120 of 300 enabled now)"));
}

static void
test_statements_off_switches_the_reader(void **state)
{
	(void)state;
	read_for(1000);
	srv.setup.statements = false;
	read_for(3000);
	assert_int_equal(offs, 1);
	assert_int_equal(n_told, 1);
	assert_non_null(strstr(told[0], "statements consumer"));
}

static void
test_thread_instrumentation_off(void **state)
{
	(void)state;
	read_for(1000);
	srv.setup.instrumented = 0;
	read_for(2000);
	assert_int_equal(n_told, 1);
	assert_non_null(strstr(told[0], "thread 42 was switched to "
	    "INSTRUMENTED = 'NO'"));
}

/* Off from the start is the reference, not a change: said at start if at all. */
static void
test_off_from_the_start_is_no_change(void **state)
{
	(void)state;
	srv.setup = (struct pfs_setup){ .memory_enabled = 10,
	    .statements = false, .instrumented = 0 };
	read_for(3000);
	assert_int_equal(n_told, 0);
	assert_int_equal(offs, 0);
}

/* A look that fails takes nothing from the reading. */
static void
test_failed_look_still_reads(void **state)
{
	(void)state;
	srv.setup_status = PFS_LOST;
	read_for(2000);
	assert_int_equal(inner_reads, 20);
	srv.setup_status = PFS_OK;
	srv.setup.memory_enabled = 1;
	read_for(2000);
	/* The first look that worked is the reference. */
	assert_int_equal(n_told, 0);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup(
		    test_looks_once_a_second_and_says_nothing_when_unchanged,
		    setup),
		cmocka_unit_test_setup(
		    test_memory_instruments_switched_off_said_once, setup),
		cmocka_unit_test_setup(test_statements_off_switches_the_reader,
		    setup),
		cmocka_unit_test_setup(test_thread_instrumentation_off, setup),
		cmocka_unit_test_setup(test_off_from_the_start_is_no_change,
		    setup),
		cmocka_unit_test_setup(test_failed_look_still_reads, setup),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
