/*
 * The recorder between the sampler and the output: every sample without a
 * trigger; with one, the held window behind a marker when the total
 * reaches the threshold, and on SIGUSR1.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <setjmp.h>
#include <cmocka.h>

#include "fixtures.h"
#include "output.h"
#include "output_table.h"
#include "recorder.h"
#include "ring.h"

#define GIB ((int64_t)1 << 30)

struct rec {
	struct ring *ring;
	struct output out;
	struct recorder rc;
	char *buf;
	size_t len;
	uint64_t seq;
};

static void
rec_init(struct rec *r, const char *format, size_t window, int64_t threshold)
{
	memset(r, 0, sizeof(*r));
	assert_non_null(r->ring = ring_create(window, 1));
	assert_non_null(r->out.fmt = output_table_find(format));
	assert_non_null(r->out.fp = open_memstream(&r->buf, &r->len));
	recorder_init(&r->rc, &r->out, r->ring, threshold, 2000000);
	assert_int_equal(output_begin(&r->out), 0);
}

/* A sample a second with that total, all of one statement. */
static int
rec_step(struct rec *r, int64_t total)
{
	struct sample proto = { .seq = ++r->seq, .thread_id = 42,
	    .elapsed_us = (r->seq - 1) * 1000000, .total_bytes = total,
	    .statement = { .has_id = true, .id = 9, .text = "SELECT 9" } };
	struct event_stat e = ev("memory/sql/x", total);

	return recorder_sample(&r->rc, push(r->ring, &proto, &e, 1));
}

static char *
rec_done(struct rec *r)
{
	output_release(&r->out);
	assert_int_equal(fclose(r->out.fp), 0);
	ring_free(r->ring);
	return r->buf;
}

/* Without --trigger-bytes every sample is written, and SIGUSR1 adds none. */
static void
test_no_trigger(void **state)
{
	struct rec r;
	size_t n = 99;
	char *buf;

	(void)state;
	rec_init(&r, "json", 2, 0);
	for (int i = 0; i < 3; i++)
		assert_int_equal(rec_step(&r, 10), 0);
	assert_int_equal(recorder_dump(&r.rc, &n), 0);
	assert_int_equal(n, 0);
	buf = rec_done(&r);
	assert_int_equal(strncmp(buf, "{\"sample\":1,", 12), 0);
	assert_non_null(strstr(buf, "\n{\"sample\":2,"));
	assert_non_null(strstr(buf, "\n{\"sample\":3,"));
	free(buf);
}

/*
 * Text: nothing until sample 5 reaches 1 GiB; then a marker, the statement
 * again, samples 3 and 4 from the window of 3, and 5; then a dump on
 * SIGUSR1 after writing stopped.
 */
static void
test_text_marker(void **state)
{
	struct rec r;
	size_t n;
	char *buf;

	(void)state;
	rec_init(&r, "text", 3, GIB);
	for (int i = 0; i < 4; i++)
		assert_int_equal(rec_step(&r, 1000), 0);
	assert_int_equal(ftell(r.out.fp), 0);
	assert_int_equal(rec_step(&r, GIB + GIB / 5), 0);
	assert_int_equal(rec_step(&r, 5), 0);  /* 6 at 5 s: below, written */
	assert_int_equal(rec_step(&r, 5), 0);  /* 7 at 6 s: 1 s */
	assert_int_equal(rec_step(&r, 5), 0);  /* 8 at 7 s: 2 s, held */
	assert_int_equal(rec_step(&r, 5), 0);  /* 9: held */
	assert_int_equal(recorder_dump(&r.rc, &n), 0);
	assert_int_equal(n, 2);
	assert_int_equal(recorder_dump(&r.rc, &n), 0);
	assert_int_equal(n, 0);
	buf = rec_done(&r);
	assert_string_equal(buf,
	    "## trigger: total 1.20 GiB >= 1.00 GiB, writing the 2 samples "
	    "before it ##\n"
	    "## statement: SELECT 9 ##\n"
	    "## Memory usage at time 2000 ##\n"
	    " sql/x                       -> 1000 B\n"
	    " (thread total)              -> 1000 B\n\n"
	    "## Memory usage at time 3000 ##\n"
	    " sql/x                       -> 1000 B\n"
	    " (thread total)              -> 1000 B\n\n"
	    "## Memory usage at time 4000 ##\n"
	    " sql/x                       -> 1.20 GiB\n"
	    " (thread total)              -> 1.20 GiB\n\n"
	    "## Memory usage at time 5000 ##\n"
	    " sql/x                       -> 5 B\n"
	    " (thread total)              -> 5 B\n\n"
	    "## Memory usage at time 6000 ##\n"
	    " sql/x                       -> 5 B\n"
	    " (thread total)              -> 5 B\n\n"
	    "## trigger: SIGUSR1, writing the 2 samples held ##\n"
	    "## statement: SELECT 9 ##\n"
	    "## Memory usage at time 7000 ##\n"
	    " sql/x                       -> 5 B\n"
	    " (thread total)              -> 5 B\n\n"
	    "## Memory usage at time 8000 ##\n"
	    " sql/x                       -> 5 B\n"
	    " (thread total)              -> 5 B\n\n");
	free(buf);
}

/* CSV: no marker, the sample numbers show the jump. */
static void
test_csv_numbers(void **state)
{
	struct rec r;
	char *buf, *line;
	uint64_t want[] = { 4, 5, 6, 7 }, got;
	size_t i = 0;

	(void)state;
	rec_init(&r, "csv", 2, 100);
	for (int k = 0; k < 4; k++)
		rec_step(&r, 1);
	rec_step(&r, 100);
	rec_step(&r, 100);
	rec_step(&r, 100);
	buf = rec_done(&r);
	line = strstr(buf, "\r\n");
	assert_non_null(line);
	for (line += 2; *line != '\0'; line = strstr(line, "\r\n") + 2) {
		assert_true(i < 4);
		assert_int_equal(sscanf(line, "%ju,", (uintmax_t *)&got), 1);
		assert_int_equal(got, want[i++]);
	}
	assert_int_equal(i, 4);
	assert_null(strstr(buf, "trigger"));
	free(buf);
}

/* A write that fails is reported at once, with errno. */
static void
test_write_error(void **state)
{
	struct rec r;
	size_t n;

	(void)state;
	memset(&r, 0, sizeof(r));
	assert_non_null(r.ring = ring_create(4, 1));
	assert_non_null(r.out.fmt = output_table_find("json"));
	assert_non_null(r.out.fp = fopen("/dev/full", "w"));
	recorder_init(&r.rc, &r.out, r.ring, 50, 0);
	assert_int_equal(rec_step(&r, 1), 0);
	errno = 0;
	assert_int_equal(recorder_dump(&r.rc, &n), -1);
	assert_int_equal(errno, ENOSPC);
	/* And the stream stays failed. */
	assert_int_equal(rec_step(&r, 50), -1);
	output_release(&r.out);
	fclose(r.out.fp);
	ring_free(r.ring);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_no_trigger),
		cmocka_unit_test(test_text_marker),
		cmocka_unit_test(test_csv_numbers),
		cmocka_unit_test(test_write_error),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
