/*
 * The exporter's page: every family in both formats, label values escaped
 * (quote, backslash, line feed, bytes not UTF-8), --max-series cutting
 * events first and threads after, and the format an Accept header asks for.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <setjmp.h>
#include <cmocka.h>

#include "fixtures.h"
#include "metrics.h"

static struct event_stat events[3];
static struct sample sample;
static struct thread_total threads[2];

static struct metrics_view
view(void)
{
	memset(events, 0, sizeof(events));
	snprintf(events[0].name, sizeof(events[0].name),
	    "memory/sql/THD::main_mem_root");
	events[0].current_bytes = 25830;
	events[0].current_count = 3;
	events[0].high_bytes = 40000;
	events[0].alloc_bytes = 90000;
	events[0].free_bytes = 64170;
	events[0].alloc_count = 12;
	events[0].free_count = 9;
	/* A name no server gives, with all that must be escaped. */
	snprintf(events[1].name, sizeof(events[1].name),
	    "memory/x/a\"b\\c\nd\xff" "e");
	events[1].current_bytes = -8;
	snprintf(events[2].name, sizeof(events[2].name), "memory/innodb/row0sel");
	events[2].current_bytes = 7;
	sample = (struct sample){ .seq = 4, .total_bytes = 123456,
	    .query_us = 1500, .n_events = 3, .events = events };
	memset(threads, 0, sizeof(threads));
	threads[0] = (struct thread_total){ .thread_id = 42,
	    .current_bytes = 5000 };
	snprintf(threads[0].name, sizeof(threads[0].name),
	    "thread/sql/one_connection");
	snprintf(threads[0].user, sizeof(threads[0].user), "app");
	snprintf(threads[0].host, sizeof(threads[0].host), "localhost");
	snprintf(threads[0].digest, sizeof(threads[0].digest), "abc123");
	threads[1] = (struct thread_total){ .thread_id = 1,
	    .current_bytes = 100 };
	return (struct metrics_view){ .up = true, .sample = &sample,
	    .sample_age_ms = 1250, .target = "global",
	    .server_version = "10.11.6-MariaDB", .samples = 4, .skipped = 1,
	    .lost = 0, .threads = threads, .n_threads = 2,
	    .max_series = 1000 };
}

/* The page of v as a string, freed by the caller. */
static char *
render(const struct metrics_view *v, enum metrics_format f)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *fp = open_memstream(&buf, &len);

	assert_non_null(fp);
	assert_int_equal(metrics_render(fp, v, f), 0);
	fclose(fp);
	return buf;
}

static void
has(const char *page, const char *line)
{
	if (strstr(page, line) == NULL)
		fail_msg("no \"%s\" in:\n%s", line, page);
}

static void
has_not(const char *page, const char *text)
{
	if (strstr(page, text) != NULL)
		fail_msg("\"%s\" should not be in:\n%s", text, page);
}

static void
test_prometheus_page(void **state)
{
	struct metrics_view v = view();
	char *p = render(&v, METRICS_PROMETHEUS);

	(void)state;
	has(p, "# TYPE mysqlmemprof_up gauge\nmysqlmemprof_up 1\n");
	has(p, "mysqlmemprof_target_info{target=\"global\","
	    "server_version=\"10.11.6-MariaDB\"} 1\n");
	has(p, "# TYPE mysqlmemprof_samples_total counter\n"
	    "mysqlmemprof_samples_total 4\n");
	has(p, "mysqlmemprof_samples_skipped_total 1\n");
	has(p, "mysqlmemprof_sample_age_seconds 1.250\n");
	has(p, "mysqlmemprof_sample_query_seconds 0.002\n");
	has(p, "mysqlmemprof_memory_total_bytes 123456\n");
	has(p, "mysqlmemprof_memory_used_bytes{event=\"memory/sql/"
	    "THD::main_mem_root\"} 25830\n");
	has(p, "mysqlmemprof_memory_high_bytes{event=\"memory/sql/"
	    "THD::main_mem_root\"} 40000\n");
	has(p, "mysqlmemprof_memory_used_allocations{event=\"memory/sql/"
	    "THD::main_mem_root\"} 3\n");
	has(p, "# TYPE mysqlmemprof_memory_allocated_bytes_total counter\n");
	has(p, "mysqlmemprof_memory_allocated_bytes_total{event=\"memory/sql/"
	    "THD::main_mem_root\"} 90000\n");
	has(p, "mysqlmemprof_memory_freed_bytes_total{event=\"memory/sql/"
	    "THD::main_mem_root\"} 64170\n");
	has(p, "mysqlmemprof_memory_allocations_total{event=\"memory/sql/"
	    "THD::main_mem_root\"} 12\n");
	has(p, "mysqlmemprof_memory_frees_total{event=\"memory/sql/"
	    "THD::main_mem_root\"} 9\n");
	has(p, "mysqlmemprof_memory_used_bytes{event=\"memory/innodb/"
	    "row0sel\"} 7\n");
	has(p, "mysqlmemprof_thread_memory_bytes{thread_id=\"42\","
	    "name=\"thread/sql/one_connection\",user=\"app\","
	    "host=\"localhost\",digest=\"abc123\"} 5000\n");
	has(p, "mysqlmemprof_thread_memory_bytes{thread_id=\"1\",name=\"\","
	    "user=\"\",host=\"\",digest=\"\"} 100\n");
	has(p, "mysqlmemprof_series_dropped 0\n");
	has_not(p, "# EOF");
	/* No connection_memory_limit: neither of its families has a value. */
	has_not(p, "\nmysqlmemprof_connection_memory_limit");
	free(p);
}

/* MySQL's connection_memory_limit: the limit, and the share of it in use. */
static void
test_connection_memory_limit(void **state)
{
	struct metrics_view v = view();
	char *p;

	(void)state;
	v.limit_bytes = 1 << 20;
	p = render(&v, METRICS_PROMETHEUS);
	has(p, "# TYPE mysqlmemprof_connection_memory_limit_bytes gauge\n");
	has(p, "mysqlmemprof_connection_memory_limit_bytes 1048576\n");
	/* 123456 of 1048576, four decimals, whatever the locale. */
	has(p, "mysqlmemprof_connection_memory_limit_ratio 0.1177\n");
	free(p);
	v.sample = NULL;
	p = render(&v, METRICS_PROMETHEUS);
	has(p, "mysqlmemprof_connection_memory_limit_bytes 1048576\n");
	has_not(p, "\nmysqlmemprof_connection_memory_limit_ratio ");
	free(p);
}

/*
 * A thread's sample that carries the total only: its total, the server's
 * own count, the events as last read (their values, not none) and how old
 * they are; none of the two families without.
 */
static void
test_total_only(void **state)
{
	struct metrics_view v = view();
	char *p;

	(void)state;
	p = render(&v, METRICS_PROMETHEUS);
	has(p, "# TYPE mysqlmemprof_connection_bytes gauge\n# HELP");
	has(p, "# TYPE mysqlmemprof_memory_events_age_seconds gauge\n# HELP");
	free(p);
	v.target = "thread:42";
	sample.events_kept = true;
	sample.has_connection_bytes = true;
	sample.connection_bytes = 131072;
	v.has_events_age = true;
	v.events_age_ms = 3750;
	p = render(&v, METRICS_PROMETHEUS);
	has(p, "mysqlmemprof_memory_total_bytes 123456\n");
	has(p, "mysqlmemprof_connection_bytes 131072\n");
	has(p, "mysqlmemprof_memory_events_age_seconds 3.750\n");
	has(p, "mysqlmemprof_memory_used_bytes{event=\"memory/sql/"
	    "THD::main_mem_root\"} 25830\n");
	free(p);
}

static void
test_label_escaping(void **state)
{
	struct metrics_view v = view();
	char *p = render(&v, METRICS_PROMETHEUS);

	(void)state;
	has(p, "mysqlmemprof_memory_used_bytes{event=\"memory/x/a\\\"b\\\\c"
	    "\\nd\xef\xbf\xbd" "e\"} -8\n");
	free(p);
}

static void
test_openmetrics_page(void **state)
{
	struct metrics_view v = view();
	char *p = render(&v, METRICS_OPENMETRICS);
	size_t n = strlen(p);

	(void)state;
	has(p, "# TYPE mysqlmemprof_samples counter\n"
	    "mysqlmemprof_samples_total 4\n");
	has(p, "# TYPE mysqlmemprof_memory_allocated_bytes counter\n");
	has(p, "# TYPE mysqlmemprof_target info\n"
	    "mysqlmemprof_target_info{target=\"global\"");
	has_not(p, "# TYPE mysqlmemprof_samples_total");
	assert_true(n > 6 && strcmp(p + n - 6, "# EOF\n") == 0);
	free(p);
}

/*
 * The server's process, when read beside the sample; its gauges absent
 * when not (a remote server), and the server's count apart from it.
 */
static void
test_process(void **state)
{
	struct metrics_view v = view();
	char *p = render(&v, METRICS_PROMETHEUS);

	(void)state;
	has(p, "# TYPE mysqlmemprof_process_resident_bytes gauge\n# HELP");
	has_not(p, "\nmysqlmemprof_process_resident_bytes ");
	has_not(p, "\nmysqlmemprof_untracked_bytes ");
	has_not(p, "\nmysqlmemprof_status_memory_bytes ");
	free(p);
	sample.process = (struct process_memory){ .known = true,
	    .resident_bytes = 200000, .anon_bytes = 150000,
	    .file_bytes = 50000, .has_status = true, .status_bytes = 777 };
	p = render(&v, METRICS_PROMETHEUS);
	has(p, "\nmysqlmemprof_process_resident_bytes 200000\n");
	has(p, "\nmysqlmemprof_process_anon_bytes 150000\n");
	/* 200000 - memory_total_bytes 123456. */
	has(p, "\nmysqlmemprof_untracked_bytes 76544\n");
	has(p, "\nmysqlmemprof_status_memory_bytes 777\n");
	free(p);
	/* Fewer pages than counted: below 0, as it is. */
	sample.process.resident_bytes = 100000;
	sample.process.known = true;
	p = render(&v, METRICS_PROMETHEUS);
	has(p, "\nmysqlmemprof_untracked_bytes -23456\n");
	free(p);
	sample.process.known = false;
	p = render(&v, METRICS_PROMETHEUS);
	has_not(p, "\nmysqlmemprof_untracked_bytes ");
	has(p, "\nmysqlmemprof_status_memory_bytes 777\n");
	free(p);
}

/*
 * The gap in layers (--explain's, read every --layers-every): absent until
 * read, then a series a layer whose size is known, the arenas of glibc
 * alone. Its help says how often, not a fixed minute.
 */
static void
test_layers(void **state)
{
	struct metrics_view v = view();
	struct explain e = { .layers = 3, .arenas = 17, .advices = 2 };
	char *p = render(&v, METRICS_PROMETHEUS);

	(void)state;
	has(p, "# TYPE mysqlmemprof_layer_bytes gauge\n# HELP");
	has(p, "read every --layers-every seconds, 60 by default, none with 0 ");
	has_not(p, "\nmysqlmemprof_layer_bytes{");
	has_not(p, "\nmysqlmemprof_allocator_arenas ");
	has_not(p, "\nmysqlmemprof_advice_lines ");
	free(p);
	e.layer[0] = (struct explain_layer){ .key = "resident", .bytes = 400 };
	e.layer[1] = (struct explain_layer){ .key = "not_counted",
	    .bytes = 150 };
	e.layer[2] = (struct explain_layer){ .key = "swap", .bytes = -1 };
	v.layers = &e;
	p = render(&v, METRICS_PROMETHEUS);
	has(p, "\nmysqlmemprof_layer_bytes{layer=\"resident\"} 400\n"
	    "mysqlmemprof_layer_bytes{layer=\"not_counted\"} 150\n#");
	has(p, "\nmysqlmemprof_allocator_arenas 17\n");
	has(p, "\nmysqlmemprof_advice_lines 2\n");
	free(p);
	e.arenas = -1;
	p = render(&v, METRICS_PROMETHEUS);
	has_not(p, "\nmysqlmemprof_allocator_arenas ");
	free(p);
}

/*
 * The server's memory cgroup: absent without one (a remote server), its
 * limit +Inf when none is set, the kills a counter.
 */
static void
test_cgroup(void **state)
{
	struct metrics_view v = view();
	char *p = render(&v, METRICS_PROMETHEUS);

	(void)state;
	has(p, "# TYPE mysqlmemprof_cgroup_usage_bytes gauge\n# HELP");
	has(p, "# TYPE mysqlmemprof_cgroup_oom_kills_total counter\n# HELP");
	has_not(p, "\nmysqlmemprof_cgroup_usage_bytes ");
	has_not(p, "\nmysqlmemprof_cgroup_limit_bytes ");
	has_not(p, "\nmysqlmemprof_cgroup_oom_kills_total ");
	free(p);
	sample.process = (struct process_memory){ .known = true,
	    .resident_bytes = 200000, .anon_bytes = 150000,
	    .has_cgroup = true, .cgroup_version = 2,
	    .cgroup_usage_bytes = 250000, .cgroup_limit_bytes = 4096000,
	    .cgroup_oom_kills = 1, .cgroup_high_bytes = 240000,
	    .cgroup_high_events = 31, .cgroup_pressure_some = 1234,
	    .cgroup_pressure_full = 5 };
	p = render(&v, METRICS_PROMETHEUS);
	has(p, "\nmysqlmemprof_cgroup_usage_bytes 250000\n");
	has(p, "\nmysqlmemprof_cgroup_limit_bytes 4096000\n");
	has(p, "\nmysqlmemprof_cgroup_oom_kills_total 1\n");
	/* v2's throttling: memory.high, the times over it, the pressure. */
	has(p, "\nmysqlmemprof_cgroup_high_bytes 240000\n");
	has(p, "\nmysqlmemprof_cgroup_high_events_total 31\n");
	has(p, "\nmysqlmemprof_cgroup_pressure_some_ratio 0.1234\n");
	has(p, "\nmysqlmemprof_cgroup_pressure_full_ratio 0.0005\n");
	free(p);
	sample.process.cgroup_limit_bytes = -1;
	sample.process.cgroup_oom_kills = -1;
	sample.process.cgroup_high_bytes = sample.process.cgroup_high_events =
	    -1;
	sample.process.cgroup_pressure_some = -1;
	sample.process.cgroup_pressure_full = -1;
	p = render(&v, METRICS_OPENMETRICS);
	has(p, "\nmysqlmemprof_cgroup_limit_bytes +Inf\n");
	has(p, "# TYPE mysqlmemprof_cgroup_oom_kills counter\n");
	has_not(p, "\nmysqlmemprof_cgroup_oom_kills_total ");
	/* v1, or no PSI: absent, not 0. */
	has_not(p, "\nmysqlmemprof_cgroup_high_bytes ");
	has_not(p, "\nmysqlmemprof_cgroup_high_events_total ");
	has_not(p, "\nmysqlmemprof_cgroup_pressure_some_ratio ");
	free(p);
	sample.process = (struct process_memory){ 0 };
}

/* Not up, no sample yet: the page still says so, with no sample's series. */
static void
test_no_sample(void **state)
{
	struct metrics_view v = view();
	char *p;

	(void)state;
	v.up = false;
	v.sample = NULL;
	v.n_threads = 0;
	v.server_version = NULL;
	p = render(&v, METRICS_PROMETHEUS);
	has(p, "mysqlmemprof_up 0\n");
	has(p, "server_version=\"\"} 1\n");
	has_not(p, "\nmysqlmemprof_sample_age_seconds ");
	has_not(p, "\nmysqlmemprof_memory_total_bytes ");
	has_not(p, "{event=");
	free(p);
}

/* Events take their series first, largest first; threads the rest. */
static void
test_max_series(void **state)
{
	struct metrics_view v = view();
	char *p;

	(void)state;
	v.max_series = 2 * METRICS_SERIES_PER_EVENT + 1;
	p = render(&v, METRICS_PROMETHEUS);
	assert_int_equal(count_in(p, "{event="), 2 * METRICS_SERIES_PER_EVENT);
	has_not(p, "row0sel");
	assert_int_equal(count_in(p, "mysqlmemprof_thread_memory_bytes{"), 1);
	has(p, "thread_id=\"42\"");
	has(p, "mysqlmemprof_series_dropped 8\n");
	free(p);

	v.max_series = 3;
	p = render(&v, METRICS_PROMETHEUS);
	assert_int_equal(count_in(p, "{event="), 0);
	assert_int_equal(count_in(p, "mysqlmemprof_thread_memory_bytes{"), 2);
	has(p, "mysqlmemprof_series_dropped 21\n");
	free(p);
}

static void
test_format_for(void **state)
{
	(void)state;
	assert_int_equal(metrics_format_for(NULL), METRICS_PROMETHEUS);
	assert_int_equal(metrics_format_for("*/*"), METRICS_PROMETHEUS);
	assert_int_equal(metrics_format_for("text/plain;version=0.0.4"),
	    METRICS_PROMETHEUS);
	/* What Prometheus 2 sends. */
	assert_int_equal(metrics_format_for("application/openmetrics-text;"
	    "version=1.0.0,application/openmetrics-text;version=0.0.1;q=0.75,"
	    "text/plain;version=0.0.4;q=0.5,*/*;q=0.1"), METRICS_OPENMETRICS);
	assert_non_null(strstr(metrics_content_type(METRICS_OPENMETRICS),
	    "application/openmetrics-text; version=1.0.0"));
	assert_non_null(strstr(metrics_content_type(METRICS_PROMETHEUS),
	    "text/plain; version=0.0.4"));
}

/* A page that cannot be written says so. */
static void
test_write_error(void **state)
{
	struct metrics_view v = view();
	FILE *fp = fopen("/dev/full", "w");

	(void)state;
	assert_non_null(fp);
	assert_int_equal(metrics_render(fp, &v, METRICS_PROMETHEUS), -1);
	fclose(fp);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_prometheus_page),
		cmocka_unit_test(test_connection_memory_limit),
		cmocka_unit_test(test_total_only),
		cmocka_unit_test(test_label_escaping),
		cmocka_unit_test(test_openmetrics_page),
		cmocka_unit_test(test_process),
		cmocka_unit_test(test_cgroup),
		cmocka_unit_test(test_layers),
		cmocka_unit_test(test_no_sample),
		cmocka_unit_test(test_max_series),
		cmocka_unit_test(test_format_for),
		cmocka_unit_test(test_write_error),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
