/*
 * The chart of a run (chart.h): bounded however long the run, no peak lost
 * when columns merge, gaps, statement runs and the top events; and the
 * escaping of text into the picture (picture.h).
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <setjmp.h>
#include <cmocka.h>

#include "chart.h"
#include "fixtures.h"
#include "picture.h"

/* Sample seq, 100 ms apart from the first, with one or two events. */
static struct sample
at(uint64_t seq, int64_t a, int64_t b, struct event_stat *ev2)
{
	ev2[0] = ev("memory/a", a);
	ev2[1] = ev("memory/b", b);
	return (struct sample){
		.seq = seq, .elapsed_us = (seq - 1) * 100000,
		.wall_ms = 1700000000000 + (int64_t)(seq - 1) * 100,
		.has_deltas = seq > 1, .thread_id = 7,
		.total_bytes = a + b + 1000, .n_events = 2, .events = ev2,
	};
}

/* Both kinds of peak between samples mark the column, the larger wins. */
static void
test_both_kinds_of_peak(void **state)
{
	struct chart *c = chart_create();
	struct event_stat e[2];
	struct sample s;

	(void)state;
	assert_non_null(c);
	s = at(1, 1000, 500, e);
	chart_add(c, &s);
	/* Only the deltas prove this one: a lower bound of 64 KiB. */
	s = at(2, 1000, 500, e);
	e[1].delta.spike_bytes = 65536;
	chart_add(c, &s);
	assert_true(c->columns[1].unseen_peak);
	assert_int_equal(c->columns[1].unseen_peak_bytes, 65536);
	assert_string_equal(c->columns[1].unseen_peak_event, "memory/b");
	/* The high-water mark proves a larger one in the next. */
	s = at(3, 1000, 500, e);
	e[0].high_bytes = 90000;
	e[0].delta.unseen_peak = true;
	e[1].delta.spike_bytes = 100;
	chart_add(c, &s);
	assert_int_equal(c->columns[2].unseen_peak_bytes, 90000);
	assert_string_equal(c->columns[2].unseen_peak_event, "memory/a");
	s = at(4, 1000, 500, e);
	chart_add(c, &s);
	assert_false(c->columns[3].unseen_peak);
	chart_free(c);
}

static void
test_bounded_and_peak_kept(void **state)
{
	struct chart *c = chart_create();
	struct event_stat e[2];
	uint64_t n = 100000, spike = 77777;

	(void)state;
	assert_non_null(c);
	for (uint64_t i = 1; i <= n; i++) {
		struct sample s = at(i, i == spike ? 9000000 : i == 1 ?
		    8000000 : 1000, 500, e);

		chart_add(c, &s);
		assert_true(c->n_columns <= CHART_MAX_COLUMNS);
	}
	assert_int_equal(c->samples, n);
	assert_true(c->n_columns > CHART_MAX_COLUMNS / 2);
	assert_true(c->per_column >= n / CHART_MAX_COLUMNS);
	/* The spike of one sample is still the maximum of its column. */
	{
		int64_t best = 0;
		uint64_t covered = 0;

		for (size_t i = 0; i < c->n_columns; i++) {
			covered += c->columns[i].samples;
			if (chart_value(c, i, 0) > best)
				best = chart_value(c, i, 0);
			if (c->columns[i].first_us <= (spike - 1) * 100000 &&
			    (spike - 1) * 100000 <= c->columns[i].last_us) {
				assert_int_equal(chart_value(c, i, 0), 9000000);
				assert_int_equal(c->columns[i].total, 9001500);
			}
		}
		assert_int_equal(best, 9000000);
		/* The first sample is always the left one of a merged pair. */
		assert_int_equal(chart_value(c, 0, 0), 8000000);
		assert_int_equal(covered, n);
	}
	assert_int_equal(c->max_total, 9001500);
	assert_int_equal(c->gaps, 0);
	chart_free(c);
}

static void
test_gaps(void **state)
{
	struct chart *c = chart_create();
	struct event_stat e[2];

	(void)state;
	for (uint64_t i = 1; i <= 10; i++) {
		struct sample s = at(i, 100, 100, e);

		/* Ticks 6 and 7 skipped: sample 6 is due at tick 8. */
		if (i >= 6)
			s.elapsed_us += 200000;
		if (i == 9)
			s.gap_ms = 5000, s.elapsed_us += 5000000;
		if (i == 10)
			s.elapsed_us += 5000000;
		chart_add(c, &s);
	}
	assert_int_equal(c->gaps, 2);
	assert_int_equal(c->n_columns, 10);
	assert_int_equal(c->columns[5].gap_from_us, 400000);
	assert_int_equal(c->columns[5].gap_to_us, 700000);
	assert_int_equal(c->columns[8].gap_to_us, c->columns[8].first_us);
	assert_int_equal(c->columns[6].gap_to_us, 0);
	chart_free(c);
}

static void
test_statements_and_top(void **state)
{
	struct chart *c = chart_create();
	struct event_stat e[2];

	(void)state;
	for (uint64_t i = 1; i <= 9; i++) {
		struct sample s = at(i, (int64_t)i * 10, 5000, e);

		if (i >= 3 && i <= 5) {
			s.statement.has_id = true;
			s.statement.id = 1;
			statement_set_text(&s.statement, "SELECT 1", 8);
		} else if (i >= 7) {
			s.statement.has_id = true;
			s.statement.id = 2;
			statement_set_text(&s.statement, "SELECT 2", 8);
		}
		s.statement.thread_id = 7;
		if (i == 8)
			s.events[0].delta.unseen_peak = true;
		chart_add(c, &s);
	}
	assert_int_equal(c->n_statements, 2);
	assert_int_equal(c->statements[0].first_seq, 3);
	assert_int_equal(c->statements[0].last_seq, 5);
	assert_int_equal(c->statements[0].first_total, 30 + 5000 + 1000);
	assert_int_equal(c->statements[0].peak_total, 50 + 5000 + 1000);
	assert_int_equal(c->statements[1].first_seq, 7);
	assert_true(c->columns[7].unseen_peak);
	assert_string_equal(c->columns[7].unseen_peak_event, "memory/a");
	{
		size_t top[2];

		assert_int_equal(chart_top(c, top, 2), 2);
		assert_string_equal(c->events[top[0]].name, "memory/b");
		assert_int_equal(chart_top(c, top, 1), 1);
		assert_string_equal(c->events[top[0]].name, "memory/b");
	}
	chart_free(c);
}

static char *
text_of(const char *s, size_t n, size_t max)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *fp = open_memstream(&buf, &len);

	picture_text(fp, s, n, max);
	fclose(fp);
	return buf;
}

static void
test_text_escaped(void **state)
{
	static const char hostile[] = "a\"b'<script>x</script>&\n\tc\xff"
	    "\xe2\x80\xae" "d\0e";
	char *t = text_of(hostile, sizeof(hostile) - 1, 0);

	(void)state;
	assert_string_equal(t, "a&quot;b&#39;&lt;script&gt;x&lt;/script&gt;"
	    "&amp; c??d?e");
	free(t);
	t = text_of("SELECT something long", 21, 10);
	assert_string_equal(t, "SELECT...");
	free(t);
	t = text_of("\xc3\xa9t\xc3\xa9", 5, 0);
	assert_string_equal(t, "\xc3\xa9t\xc3\xa9");
	free(t);
}

/* The SVG of a chart holds one band group per top event and "other". */
static void
test_svg_bands(void **state)
{
	struct chart *c = chart_create();
	struct event_stat e[2];
	char *buf = NULL;
	size_t len = 0, groups = 0;
	FILE *fp;

	(void)state;
	for (uint64_t i = 1; i <= 5; i++) {
		struct sample s = at(i, 100, 200, e);

		chart_add(c, &s);
	}
	fp = open_memstream(&buf, &len);
	picture_svg(fp, c, "thread <7>", "thread total");
	fclose(fp);
	for (const char *p = buf; (p = strstr(p, "class=\"band\"")); p++)
		groups++;
	assert_int_equal(groups, 3);
	assert_non_null(strstr(buf, "thread &lt;7&gt;"));
	assert_null(strstr(buf, "thread <7>"));
	/* No process beside the samples: no line of it, nor its legend. */
	assert_null(strstr(buf, "class=\"resident\""));
	assert_null(strstr(buf, "resident (process)"));
	free(buf);
	chart_free(c);
}

/* The SVG of c into *buf (the caller's to free), *len its length. */
static void
svg_of(const struct chart *c, char **buf, size_t *len)
{
	FILE *fp = open_memstream(buf, len);

	assert_non_null(fp);
	picture_svg(fp, c, "global", "global total");
	assert_int_equal(fclose(fp), 0);
}

/*
 * A sample that carries the total only (events_kept, with the server's
 * own count) keeps its total, not a drop to zero; a column whose samples
 * all kept an earlier reading's events is drawn under a veil, one polygon
 * for each run of them, and the legend says so; a column that read its
 * rows in any of its samples, once merged, is not.
 */
static void
test_total_only(void **state)
{
	struct chart *c = chart_create();
	struct event_stat e[2];
	char *buf;
	size_t len;

	(void)state;
	assert_non_null(c);
	for (uint64_t i = 1; i <= 10; i++) {
		struct sample s = at(i, 100, 200, e);

		s.has_connection_bytes = true;
		s.connection_bytes = 2000 + (int64_t)i;
		s.events_kept = i != 1 && i != 6;
		s.total_bytes += (int64_t)i;
		chart_add(c, &s);
	}
	assert_int_equal(c->kept, 8);
	assert_true(c->columns[0].rows_read);
	assert_false(c->columns[1].rows_read);
	assert_true(c->columns[5].rows_read);
	assert_int_equal(c->columns[3].total, 1300 + 4);
	svg_of(c, &buf, &len);
	assert_int_equal(count_in(buf, "<g class=\"kept\""), 1);
	assert_int_equal(count_in(buf, "<polygon"), 3 + 2);
	assert_non_null(strstr(buf, "pale: events as last read"));
	/* The veil under the total's line. */
	assert_true(strstr(buf, "<g class=\"kept\"") <
	    strstr(buf, "<g class=\"total\""));
	free(buf);
	chart_reset(c);
	/*
	 * One reading in 8 samples, the last, 4 samples a column once merged:
	 * every other column, the second.
	 */
	for (uint64_t i = 1; i <= 4 * CHART_MAX_COLUMNS; i++) {
		struct sample s = at(i, 100, 200, e);

		s.events_kept = i % 8 != 0;
		chart_add(c, &s);
	}
	assert_int_equal(c->per_column, 4);
	for (size_t i = 0; i < c->n_columns; i++)
		assert_int_equal(c->columns[i].rows_read, i % 2 == 1);
	chart_reset(c);
	for (uint64_t i = 1; i <= 3; i++) {
		struct sample s = at(i, 100, 200, e);

		chart_add(c, &s);
	}
	svg_of(c, &buf, &len);
	assert_null(strstr(buf, "class=\"kept\""));
	assert_null(strstr(buf, "pale:"));
	free(buf);
	chart_free(c);
}

/*
 * --global on the server's machine: the process's resident memory is a
 * line of its own, broken where samples lack it, its largest kept when
 * columns merge, and in the scale.
 */
static void
test_resident(void **state)
{
	struct chart *c = chart_create();
	struct event_stat e[2];
	char *buf = NULL;
	size_t len = 0, lines = 0;
	FILE *fp;

	(void)state;
	assert_non_null(c);
	for (uint64_t i = 1; i <= 4 * CHART_MAX_COLUMNS; i++) {
		struct sample s = at(i, 100, 200, e);

		/* None in the first ten, then 5 MiB, 9 MiB at one sample. */
		if (i > 10)
			s.process = (struct process_memory){ .known = true,
			    .resident_bytes = i == 5000 ? 9 << 20 : 5 << 20 };
		chart_add(c, &s);
	}
	assert_true(c->has_resident);
	assert_int_equal(c->max_resident, 9 << 20);
	assert_int_equal(c->per_column, 4);
	/* The first column's four samples had none; the last's all had. */
	assert_false(c->columns[0].has_resident);
	assert_true(c->columns[c->n_columns - 1].has_resident);
	for (size_t i = 0; i < c->n_columns; i++)
		if (c->columns[i].first_us <= 4999 * 100000 &&
		    4999 * 100000 <= c->columns[i].last_us)
			assert_int_equal(c->columns[i].resident, 9 << 20);
	fp = open_memstream(&buf, &len);
	picture_svg(fp, c, "global", "global total");
	fclose(fp);
	for (const char *p = buf; (p = strstr(p, "<g class=\"resident\"")); p++)
		lines++;
	assert_int_equal(lines, 1);
	assert_non_null(strstr(buf, "resident (process) <tspan fill=\"#777\">"
	    "9.00 MiB"));
	/* The scale reaches the process's 9 MiB, not only the total's. */
	assert_non_null(strstr(buf, ">10 MiB<"));
	free(buf);
	chart_free(c);
}

/*
 * The server's memory cgroup's limit: a line at its height, the lowest
 * kept when columns merge, in the scale when near; far above, only the
 * legend gives it.
 */
static void
test_limit(void **state)
{
	struct chart *c = chart_create();
	struct event_stat e[2];
	char *buf = NULL;
	size_t len = 0;
	FILE *fp;

	(void)state;
	assert_non_null(c);
	for (uint64_t i = 1; i <= 4 * CHART_MAX_COLUMNS; i++) {
		struct sample s = at(i, 100, 200, e);

		/* 5 MiB resident; a limit of 12 MiB, 11 MiB at one sample. */
		s.process = (struct process_memory){ .known = true,
		    .resident_bytes = 5 << 20, .has_cgroup = true,
		    .cgroup_usage_bytes = 6 << 20,
		    .cgroup_limit_bytes = i == 5000 ? 11 << 20 : 12 << 20 };
		chart_add(c, &s);
	}
	assert_true(c->has_limit);
	assert_int_equal(c->min_limit, 11 << 20);
	assert_int_equal(c->max_limit, 12 << 20);
	for (size_t i = 0; i < c->n_columns; i++)
		if (c->columns[i].first_us <= 4999 * 100000 &&
		    4999 * 100000 <= c->columns[i].last_us)
			assert_int_equal(c->columns[i].limit, 11 << 20);
	fp = open_memstream(&buf, &len);
	picture_svg(fp, c, "global", "global total");
	fclose(fp);
	assert_non_null(strstr(buf, "<g class=\"limit\""));
	assert_non_null(strstr(buf, "cgroup limit <tspan fill=\"#777\">"
	    "11.00 MiB"));
	/* The scale reaches the limit, not only the resident 5 MiB. */
	assert_non_null(strstr(buf, ">12 MiB<"));
	free(buf);
	/* A limit of 1 GiB: far above, no line, the legend says so. */
	chart_reset(c);
	for (uint64_t i = 1; i <= 10; i++) {
		struct sample s = at(i, 100, 200, e);

		s.process = (struct process_memory){ .known = true,
		    .resident_bytes = 5 << 20, .has_cgroup = true,
		    .cgroup_usage_bytes = 6 << 20, .cgroup_limit_bytes = 1 << 30 };
		chart_add(c, &s);
	}
	buf = NULL;
	fp = open_memstream(&buf, &len);
	picture_svg(fp, c, "global", "global total");
	fclose(fp);
	assert_null(strstr(buf, "<g class=\"limit\""));
	assert_non_null(strstr(buf, "cgroup limit, above: <tspan "
	    "fill=\"#777\">1.00 GiB"));
	free(buf);
	chart_free(c);
}

/* Whether every point and coordinate of the SVG is within its box. */
static void
assert_inside(const char *svg)
{
	double w, h, x, y;
	const char *p;
	int n;

	p = strstr(svg, "viewBox=\"0 0 ");
	assert_non_null(p);
	assert_int_equal(sscanf(p, "viewBox=\"0 0 %lf %lf", &w, &h), 2);
	for (p = svg; (p = strstr(p, "points=\"")) != NULL; ) {
		for (p += 8; sscanf(p, "%lf,%lf %n", &x, &y, &n) == 2; p += n)
			if (x < 0 || x > w || y < 0 || y > h)
				fail_msg("point %g,%g outside %gx%g", x, y, w, h);
	}
	for (p = svg; (p = strstr(p, " y")) != NULL; p++)
		if ((p[2] == '=' || (p[3] == '=' && (p[2] == '1' ||
		    p[2] == '2'))) && sscanf(strchr(p, '"') + 1, "%lf", &y) == 1 &&
		    (y < 0 || y > h))
			fail_msg("y %g outside 0..%g: %.60s", y, h, p);
}

/*
 * Figures near INT64_MAX, of either sign (no server's, but a line of a
 * record or a file given to --read may say so): no overflow (make
 * SANITIZE=1 traps one), and the picture stays inside its box.
 */
static void
test_figures_no_server_reports(void **state)
{
	static const int64_t big[] = { INT64_MAX - 1000, INT64_MIN + 1000,
	    INT64_MAX / 3, (int64_t)1 << 50 };
	struct chart *c = chart_create();
	struct event_stat e[2];
	char *svg = NULL;
	size_t len = 0;

	(void)state;
	assert_non_null(c);
	for (uint64_t i = 1; i <= 8; i++) {
		int64_t v = big[i % 4], w = big[(i + 1) % 4];
		struct sample s = at(i, 0, 0, e);

		e[0].current_bytes = v;
		e[1].current_bytes = w;
		s.total_bytes = w;
		e[0].high_bytes = INT64_MAX;
		e[0].delta.unseen_peak = true;
		e[1].delta.spike_bytes = v;
		s.process = (struct process_memory){ .known = true,
		    .resident_bytes = v, .has_cgroup = true,
		    .cgroup_usage_bytes = w, .cgroup_limit_bytes = INT64_MAX };
		chart_add(c, &s);
	}
	svg_of(c, &svg, &len);
	assert_non_null(strstr(svg, "</svg>"));
	assert_inside(svg);
	free(svg);
	chart_free(c);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_bounded_and_peak_kept),
		cmocka_unit_test(test_total_only),
		cmocka_unit_test(test_figures_no_server_reports),
		cmocka_unit_test(test_both_kinds_of_peak),
		cmocka_unit_test(test_gaps),
		cmocka_unit_test(test_statements_and_top),
		cmocka_unit_test(test_text_escaped),
		cmocka_unit_test(test_svg_bands),
		cmocka_unit_test(test_resident),
		cmocka_unit_test(test_limit),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
