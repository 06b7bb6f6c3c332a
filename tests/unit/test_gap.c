/*
 * The gap read beside --global's samples (gap.c), against the fake server
 * and the fake clock: the first reading after the first sample, then at
 * its beat; a failed reading keeps the answer before; a thread's capture
 * reads none. And --explain's own reading (explain_read()): a part the
 * server refuses is left out with a warning, a lost connection ends it.
 */
#include <unistd.h>

#include "fake_capture.h"
#include "explain.h"
#include "gap.h"

static struct gap g;

static int
setup(void **state)
{
	(void)state;
	fake_capture_setup();
	srv.layers = (struct counted_layers){ .buffer_pool = 128 << 20,
	    .total = 200 << 20, .instruments = 300, .instruments_off = 2 };
	snprintf(srv.layers.off_families, sizeof(srv.layers.off_families),
	    "sql");
	srv.vars[0] = "max_connections";
	srv.vars[1] = "100";
	srv.measured = (struct measured_connections){ .connections = 3,
	    .sum_bytes = 3 << 20, .largest_bytes = 2 << 20, .sum_peaks = -1,
	    .largest_peak = -1, .largest_statement_peak = -1 };
	g = (struct gap){ 0 };
	env.gap = &g;
	env.proc = "/nonexistent-proc";
	return 0;
}

static int
teardown(void **state)
{
	(void)state;
	parse_free();
	return 0;
}

/* Once after the first sample, then once a beat: 0, 200 and 400 ms. */
static void
test_read_at_its_beat(void **state)
{
	(void)state;
	g.every_ns = 150000000;
	parse("--global", "--count", "5", "--frequency", "100", NULL);
	assert_int_equal(capture_once(), EXIT_DONE);
	assert_int_equal(srv.layers_reads, 3);
	assert_int_equal(g.reads, 3);
	assert_true(g.r.has_counted && g.r.has_estimate && g.r.has_measured);
	assert_int_equal(explain_find(&g.e, "counted")->bytes, 200 << 20);
	assert_non_null(strstr(g.e.advice[0], "memory instruments are off "
	    "(2 of 300: sql)"));
	/* The process of a fake server is not here: said in the answer. */
	assert_false(g.r.has_process);
	assert_non_null(strstr(g.e.notes[0], "the process's figures are "
	    "missing"));
}

/* The default beat, a minute: one reading in a short run. */
static void
test_once_a_minute(void **state)
{
	(void)state;
	parse("--global", "--count", "5", "--frequency", "100", NULL);
	assert_int_equal(capture_once(), EXIT_DONE);
	assert_int_equal(srv.layers_reads, 1);
	assert_int_equal(g.reads, 1);
}

/* --layers-every: 0 reads none; SECONDS sets the beat. */
static void
test_layers_every(void **state)
{
	(void)state;
	parse("--global", "--count", "5", "--frequency", "100",
	    "--layers-every", "0", NULL);
	assert_int_equal(capture_once(), EXIT_DONE);
	assert_int_equal(srv.layers_reads, 0);
	assert_int_equal(g.reads, 0);
	parse_free();
	parse("--global", "--count", "25", "--frequency", "100",
	    "--layers-every", "1", NULL);
	assert_int_equal(capture_once(), EXIT_DONE);
	assert_int_equal(srv.layers_reads, 3);
	assert_int_equal(g.every_ns, 1000000000);
}

/*
 * A reading that takes long (a large process's smaps) is followed by none
 * for GAP_SPACING times as long, whatever the beat.
 */
static void
test_long_reading_spaced(void **state)
{
	(void)state;
	g.every_ns = 150000000;
	srv.layers_ns = 1000000;
	parse("--global", "--count", "5", "--frequency", "100", NULL);
	assert_int_equal(capture_once(), EXIT_DONE);
	assert_int_equal(g.took_ns, 1000000);
	assert_int_equal(srv.layers_reads, 1);
}

/* A failed reading: no new answer, the one before whole; no sample lost. */
static void
test_failed_reading_keeps_the_answer(void **state)
{
	(void)state;
	g.every_ns = 150000000;
	parse("--global", "--count", "5", "--frequency", "100", NULL);
	srv.layers_status = PFS_OK;
	assert_int_equal(capture_once(), EXIT_DONE);
	assert_int_equal(g.reads, 3);
	srv.layers_status = PFS_LOST;
	srv.layers.total = 1;
	assert_int_equal(capture_once(), EXIT_DONE);
	assert_int_equal(g.reads, 3);
	assert_int_equal(explain_find(&g.e, "counted")->bytes, 200 << 20);
}

/* A thread's capture reads no gap. */
static void
test_thread_reads_none(void **state)
{
	(void)state;
	parse("--thread", "42", "--count", "3", "--frequency", "100", NULL);
	assert_int_equal(capture_once(), EXIT_DONE);
	assert_int_equal(srv.layers_reads, 0);
	assert_int_equal(g.reads, 0);
}

/* --explain's reading: a part refused is a warning; lost, the end. */
static void
test_explain_read(void **state)
{
	struct explain_reading r;

	(void)state;
	parse("--explain", NULL);
	notes_start();
	assert_int_equal(explain_read(&env, &r), 0);
	notes_read();
	assert_true(r.has_counted);
	assert_int_equal(r.est.max_connections, 100);
	assert_int_equal(r.meas.connections, 3);
	/* One part refused: the others kept. */
	srv.estimate_status = PFS_DENIED;
	notes_start();
	assert_int_equal(explain_read(&env, &r), 0);
	notes_read();
	assert_true(r.has_counted && !r.has_estimate && r.has_measured);
	assert_non_null(strstr(notes, "warning: reading the variables: denied; "
	    "that part of the answer is left out"));
	srv.estimate_status = PFS_OK;
	srv.layers_status = PFS_DENIED;
	notes_start();
	assert_int_equal(explain_read(&env, &r), 0);
	notes_read();
	assert_false(r.has_counted || r.has_estimate || r.has_measured);
	assert_non_null(strstr(notes, "warning: lost; that part of the answer "
	    "is left out"));
	srv.layers_status = PFS_LOST;
	notes_start();
	assert_int_equal(explain_read(&env, &r), EXIT_RUNTIME);
	notes_read();
	assert_non_null(strstr(notes, "lost"));
}

/* The file at path, whole, into buf; its length. */
static size_t
slurp(const char *path, char *buf, size_t len)
{
	FILE *f = fopen(path, "r");
	size_t n = 0;

	if (f != NULL) {
		n = fread(buf, 1, len - 1, f);
		fclose(f);
	}
	buf[n] = '\0';
	return n;
}

/* --explain: its answer written; stopped during the reading, nothing. */
static void
test_explain_run_and_stop(void **state)
{
	char path[] = "/tmp/mmp-test-gap-XXXXXX", text[65536];
	int fd = mkstemp(path);

	(void)state;
	assert_true(fd >= 0);
	close(fd);
	out_path = path;
	parse("--explain", NULL);
	notes_start();
	assert_int_equal(explain_run(&env), EXIT_DONE);
	notes_read();
	assert_int_equal(outfile_close(&out), 0);
	slurp(path, text, sizeof(text));
	assert_non_null(strstr(text, "## The server's memory in layers: "));
	assert_non_null(strstr(text, "## Advice ##\n - memory instruments "
	    "are off (2 of 300: sql)"));
	parse_free();
	/* A stop during the reading: its query fails as lost. */
	assert_int_equal(truncate(path, 0), 0);
	parse("--explain", NULL);
	srv.layers_status = PFS_LOST;
	sig.stop = 1;
	notes_start();
	assert_int_equal(explain_run(&env), EXIT_DONE);
	notes_read();
	assert_int_equal(outfile_close(&out), 0);
	assert_int_equal(slurp(path, text, sizeof(text)), 0);
	parse_free();
	out_path = NULL;
	unlink(path);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_read_at_its_beat, setup,
		    teardown),
		cmocka_unit_test_setup_teardown(test_once_a_minute, setup,
		    teardown),
		cmocka_unit_test_setup_teardown(test_layers_every, setup,
		    teardown),
		cmocka_unit_test_setup_teardown(test_long_reading_spaced, setup,
		    teardown),
		cmocka_unit_test_setup_teardown(
		    test_failed_reading_keeps_the_answer, setup, teardown),
		cmocka_unit_test_setup_teardown(test_thread_reads_none, setup,
		    teardown),
		cmocka_unit_test_setup_teardown(test_explain_read, setup,
		    teardown),
		cmocka_unit_test_setup_teardown(test_explain_run_and_stop, setup,
		    NULL),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
