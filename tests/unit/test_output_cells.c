/*
 * What reaches a person or a spreadsheet, in every format: names chosen by
 * anyone (an account's, in the summary's heading) scrubbed for a
 * terminal, statement text kept whole past a NUL byte, and CSV text cells
 * that a spreadsheet would run as a formula.
 */
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
#include "ring.h"
#include "statement.h"
#include "summary.h"

/* A NUL in a comment, and the statement runs on after it. */
#define NUL_TEXT "SELECT /* harmless \0 */ SLEEP(3) AS really_runs_this"

/*
 * One sample of one event in format, with its statement, then the
 * summary, for the grain named grain (NULL: a thread).
 */
static char *
render(const char *format, const char *grain, const struct statement *st,
    size_t *len)
{
	struct output o = { .fmt = output_table_find(format), .grain = grain };
	struct ring *r = ring_create(2, 1);
	struct sample p = { .seq = 1, .thread_id = 42, .total_bytes = 1024 };
	struct event_stat e = ev("memory/test/x", 1024);
	struct summary sum;
	char *buf = NULL;

	assert_non_null(o.fmt);
	assert_non_null(r);
	if (st != NULL)
		p.statement = *st;
	push(r, &p, &e, 1);
	assert_non_null(o.fp = open_memstream(&buf, len));
	assert_int_equal(output_begin(&o), 0);
	assert_int_equal(output_sample(&o, ring_get(r, 0)), 0);
	assert_int_equal(summary_build(r, 0, &sum), 0);
	assert_int_equal(output_end(&o, &sum), 0);
	summary_free(&sum);
	ring_free(r);
	output_release(&o);
	assert_int_equal(fclose(o.fp), 0);
	return buf;
}

/*
 * Switched off while sampling: named in CSV and JSON, and in text where it
 * changes, both ways.
 */
static void
test_setup_off_marked(void **state)
{
	struct output o = { .fmt = output_table_find("text") };
	struct ring *r = ring_create(3, 1);
	struct sample p = { .seq = 1, .thread_id = 42, .total_bytes = 1024 };
	struct event_stat e = ev("memory/test/x", 1024);
	char *buf = NULL;
	size_t len;

	(void)state;
	push(r, &p, &e, 1);
	p.seq = 2;
	p.setup_off = SETUP_OFF_MEMORY | SETUP_OFF_THREAD;
	push(r, &p, &e, 1);
	p.seq = 3;
	p.setup_off = 0;
	push(r, &p, &e, 1);
	assert_non_null(o.fp = open_memstream(&buf, &len));
	for (size_t i = 0; i < 3; i++)
		assert_int_equal(output_sample(&o, ring_get(r, i)), 0);
	output_release(&o);
	assert_int_equal(fclose(o.fp), 0);
	assert_non_null(strstr(buf, "## switched off, not counted from here: "
	    "memory instruments, the thread's INSTRUMENTED ##\n"));
	assert_non_null(strstr(buf, "## instrumentation as at the start again "
	    "##\n"));
	/* Once each, only where it changes: after sample 1, after sample 2. */
	assert_int_equal(count_in(buf, "## switched off"), 1);
	assert_int_equal(count_in(buf, "## instrumentation as"), 1);
	assert_true(strstr(buf, "## switched off") > strstr(buf, "at time 0"));
	free(buf);

	const char *formats[] = { "csv", "json" };
	const char *want[] = {
	    ",\"memory_instruments,thread_instrumented\",0,0,,,,,,,,,,,,\r\n",
	    ",\"setup_off\":\"memory_instruments,thread_instrumented\","
	    "\"waiting\":0,\"events_kept\":0,\"connection_bytes\":null,"
	    "\"process_resident_bytes\":null," };
	for (size_t k = 0; k < 2; k++) {
		o = (struct output){ .fmt = output_table_find(formats[k]) };
		buf = NULL;
		assert_non_null(o.fp = open_memstream(&buf, &len));
		assert_int_equal(output_sample(&o, ring_get(r, 1)), 0);
		output_release(&o);
		assert_int_equal(fclose(o.fp), 0);
		assert_non_null(strstr(buf, want[k]));
		free(buf);
	}
	ring_free(r);
}

/* An account's name in the text summary's heading goes through the rule. */
static void
test_text_heading_scrubbed(void **state)
{
	size_t len;
	char *buf;

	(void)state;
	buf = render("text", "user:\x1b[2J\xe2\x80\xae" "evil", NULL, &len);
	assert_null(memchr(buf, '\x1b', len));
	assert_null(strstr(buf, "\xe2\x80\xae"));
	if (strstr(buf, "), user:?[2J?evil ##\n") == NULL)
		fail_msg("heading not scrubbed: %s", buf);
	free(buf);
}

/*
 * Statement text is kept whole past a NUL byte, and each format shows the
 * NUL: text as '?' like other controls, JSON as \u0000, CSV as \0.
 */
static void
test_nul_in_statement(void **state)
{
	static const struct {
		const char *format, *want;
	} cases[] = {
		{ "text", "## statement: SELECT /* harmless ? */ SLEEP(3) AS "
		    "really_runs_this ##\n" },
		{ "json", "\"statement\":\"SELECT /* harmless \\u0000 */ "
		    "SLEEP(3) AS really_runs_this\"" },
		{ "csv", ",\"SELECT /* harmless \\0 */ SLEEP(3) AS "
		    "really_runs_this\"," },
	};
	struct statement st = { .thread_id = 42, .has_id = true, .id = 7 };

	(void)state;
	statement_set_text(&st, NUL_TEXT, sizeof(NUL_TEXT) - 1);
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		size_t len;
		char *buf = render(cases[i].format, NULL, &st, &len);

		if (strstr(buf, cases[i].want) == NULL)
			fail_msg("%s: no %s in %s", cases[i].format,
			    cases[i].want, buf);
		assert_null(memchr(buf, '\0', len));
		free(buf);
	}
}

/*
 * A CSV text cell that begins with =, +, -, @, tab or CR gets a single
 * quote before it, as OWASP recommends, so a spreadsheet shows it instead
 * of running it; other cells, and the other formats, are as they were.
 */
static void
test_csv_formula_neutralised(void **state)
{
	static const struct {
		const char *text, *csv;
	} cases[] = {
		{ "=HYPERLINK(\"http://x/\",\"y\")",
		    ",\"'=HYPERLINK(\"\"http://x/\"\",\"\"y\"\")\"," },
		{ "+1+cmd|' /C calc'!A0", ",\"'+1+cmd|' /C calc'!A0\"," },
		{ "-2+3", ",\"'-2+3\"," },
		{ "@SUM(1)", ",\"'@SUM(1)\"," },
		{ "\t=1", ",\"'\t=1\"," },
		{ "\r=1", ",\"'\r=1\"," },
		{ "SELECT '=1'", ",\"SELECT '=1'\"," },
		{ " =1", ",\" =1\"," },
	};

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct statement st = { .thread_id = 42 };
		size_t len;
		char *buf;

		statement_set_text(&st, cases[i].text, strlen(cases[i].text));
		buf = render("csv", NULL, &st, &len);
		if (strstr(buf, cases[i].csv) == NULL)
			fail_msg("no %s in %s", cases[i].csv, buf);
		free(buf);
	}
	/* JSON is for programs: the text as it is. */
	{
		struct statement st = { .thread_id = 42 };
		size_t len;
		char *buf;

		statement_set_text(&st, "=1+1", 4);
		buf = render("json", NULL, &st, &len);
		assert_non_null(strstr(buf, "\"statement\":\"=1+1\""));
		free(buf);
	}
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_setup_off_marked),
		cmocka_unit_test(test_text_heading_scrubbed),
		cmocka_unit_test(test_nul_in_statement),
		cmocka_unit_test(test_csv_formula_neutralised),
	};

	return cmocka_run_group_tests_name("output_cells", tests, NULL, NULL);
}
