/*
 * Reading back what --format json wrote (jsonl.h): a sample written and
 * read back is written again byte for byte; what is not a capture line is
 * refused with words that say so.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <setjmp.h>
#include <cmocka.h>

#include "delta.h"
#include "fixtures.h"
#include "jsonl.h"
#include "output.h"
#include "output_table.h"

/* The JSON line of s, as --format json writes it. */
static char *
json_of(const struct sample *s, const char *grain, bool filtered)
{
	char *buf = NULL;
	size_t len = 0;
	struct output o = {
		.fmt = output_table_find("json"), .grain = grain, .filtered = filtered,
	};

	o.fp = open_memstream(&buf, &len);
	assert_int_equal(output_sample(&o, s), 0);
	output_release(&o);
	fclose(o.fp);
	return buf;
}

static struct sample
sample_of(struct event_stat *e, size_t n, uint64_t seq)
{
	struct sample s = {
		.seq = seq, .elapsed_us = 1500000, .wall_ms = 1763855396123,
		.late_us = 12, .query_us = 345, .gap_ms = 0,
		.has_deltas = seq > 1, .thread_id = 42, .total_bytes = 123456,
		.filtered_total_bytes = 100000, .n_events = n, .events = e,
		.setup_off = SETUP_OFF_STATEMENTS | SETUP_OFF_THREAD,
	};

	/* As the sampler leaves it, over every event (--top 0). */
	delta_sums(&s, e, n);
	return s;
}

static void
round_trip(const struct sample *s, const char *grain, bool filtered)
{
	char *line = json_of(s, grain, filtered), *again;
	struct event_stat back_ev[8];
	struct sample back = { .events = back_ev };
	struct jsonl_meta meta = { 0 };
	char err[512];

	assert_int_equal(jsonl_sample(line, strlen(line) - 1, &back, 8, &meta,
	    err, sizeof(err)), 0);
	assert_int_equal(meta.has_grain, grain != NULL);
	assert_int_equal(meta.filtered, filtered);
	assert_int_equal(back.has_deltas, s->has_deltas);
	/* What the whole run's statistics use comes back too. */
	assert_int_equal(back.alloc_delta_bytes, s->alloc_delta_bytes);
	assert_int_equal(back.between_peak_total, s->between_peak_total);
	assert_int_equal(back.negative_events, s->negative_events);
	assert_int_equal(back.negative_bytes, s->negative_bytes);
	/* The server's own count of the thread, and whose the events are. */
	assert_int_equal(back.has_connection_bytes, s->has_connection_bytes);
	assert_int_equal(back.connection_bytes, s->connection_bytes);
	assert_int_equal(back.events_kept, s->events_kept);
	/* The server's process, file pages as resident less anonymous. */
	assert_memory_equal(&back.process, &s->process, sizeof(s->process));
	again = json_of(&back, meta.has_grain ? meta.grain : NULL,
	    meta.filtered);
	assert_string_equal(again, line);
	assert_int_equal(back.n_finished, s->n_finished);
	free(again);
	free(line);
	jsonl_meta_free(&meta);
}

static void
test_round_trip(void **state)
{
	struct event_stat e[3] = { ev("memory/sql/a", 5000),
	    ev("memory/innodb/b", 300), ev("memory/x", -64) };
	struct sample s = sample_of(e, 3, 2);

	(void)state;
	e[1].delta = (struct event_delta){ 10, 20, 1, 2, true, 0 };
	e[0].delta = (struct event_delta){ 100, 0, 3, 0, false, 97 };
	delta_sums(&s, e, 3);
	assert_true(s.between_peak_total > 0 && s.negative_events == 1);
	s.waiting = true;
	s.statement.has_id = true;
	s.statement.id = 99;
	s.statement.thread_id = 42;
	strcpy(s.statement.digest, "abcdef0123");
	statement_set_text(&s.statement, "SELECT \"q\" '<script>'\n\0x", 25);
	round_trip(&s, NULL, true);
	/* Statements it finished: one with the server's peak, one without. */
	struct finished_statement f[2] = {
		{ .statement = { .has_id = true, .id = 97, .thread_id = 42,
		  .digest = "0123abcd", .text = "SELECT 1" }, .end_id = 98,
		  .duration_us = 150000, .rows_sent = 1, .rows_examined = 50000,
		  .has_peak = true, .peak_bytes = 31457280, .lost_before = 1 },
		{ .statement = { .has_id = true, .id = 99, .thread_id = 42 },
		  .end_id = 101 },
	};
	s.finished = f;
	s.n_finished = 2;
	round_trip(&s, NULL, true);
	s.finished = NULL;
	s.n_finished = 0;
	/* The first sample: no deltas, no statement, a grain. */
	s = sample_of(e, 3, 1);
	round_trip(&s, "user:app", false);
	/* --global's, with the server's process beside it, and without. */
	s.process = (struct process_memory){ .known = true,
	    .resident_bytes = 100000, .anon_bytes = 90000, .file_bytes = 10000,
	    .has_status = true, .status_bytes = 4096 };
	round_trip(&s, "global", false);
	s.process = (struct process_memory){ .has_status = true,
	    .status_bytes = 0 };
	round_trip(&s, "global", false);
	/*
	 * Its memory cgroup: a limit, and none (null); kills, and none
	 * counted (null); v2's memory.high, its events and pressure, and v1's
	 * none of them (null).
	 */
	s.process = (struct process_memory){ .known = true,
	    .resident_bytes = 100000, .anon_bytes = 90000, .file_bytes = 10000,
	    .has_cgroup = true, .cgroup_usage_bytes = 300000,
	    .cgroup_limit_bytes = (int64_t)4 << 30, .cgroup_high_bytes = 250000,
	    .cgroup_high_events = 17, .cgroup_oom_kills = 2,
	    .cgroup_pressure_some = 1234, .cgroup_pressure_full = 50 };
	round_trip(&s, "global", false);
	s.process.cgroup_limit_bytes = -1;
	s.process.cgroup_oom_kills = -1;
	s.process.cgroup_high_bytes = s.process.cgroup_high_events = -1;
	s.process.cgroup_pressure_some = s.process.cgroup_pressure_full = -1;
	round_trip(&s, "global", false);
	/* No event at all. */
	s = sample_of(e, 0, 3);
	round_trip(&s, NULL, false);
}

/*
 * --record writes a sample whose events are kept (beat.h) without them:
 * read back, it has the events of the sample before that had its own,
 * with no delta, since nothing was read; a kept line with none before
 * has none.
 */
static void
test_events_kept(void **state)
{
	struct event_stat e[2] = { ev("memory/sql/a", 5000),
	    ev("memory/innodb/b", 300) };
	struct sample full = sample_of(e, 2, 2), kept = sample_of(NULL, 0, 3);
	struct event_stat back_ev[4];
	struct sample back = { .events = back_ev };
	struct jsonl_meta meta = { 0 };
	char *a, *b, err[256];

	(void)state;
	e[0].delta = (struct event_delta){ 100, 0, 3, 0, false, 0 };
	delta_sums(&full, e, 2);
	kept.events_kept = true;
	a = json_of(&full, "global", false);
	b = json_of(&kept, "global", false);
	assert_non_null(strstr(b, "\"events\":[],"));
	assert_non_null(strstr(b, "\"events_kept\":1,"));
	/* Alone: nothing to take the events from. */
	assert_int_equal(jsonl_sample(b, strlen(b) - 1, &back, 4, &meta, err,
	    sizeof(err)), 0);
	assert_int_equal(back.n_events, 0);
	assert_true(back.events_kept);
	/* After a sample with events: those, their deltas none. */
	assert_int_equal(jsonl_sample(a, strlen(a) - 1, &back, 4, &meta, err,
	    sizeof(err)), 0);
	assert_false(back.events_kept);
	assert_int_equal(back.events[0].delta.alloc_bytes, 100);
	assert_int_equal(jsonl_sample(b, strlen(b) - 1, &back, 4, &meta, err,
	    sizeof(err)), 0);
	assert_int_equal(back.n_events, 2);
	assert_string_equal(back.events[0].name, "memory/sql/a");
	assert_int_equal(back.events[1].current_bytes, 300);
	assert_int_equal(back.events[0].delta.alloc_bytes, 0);
	assert_int_equal(back.seq, 3);
	free(a);
	free(b);
	jsonl_meta_free(&meta);
}

/*
 * A thread's sample with the server's own count of it (total.h): one that
 * read its rows, and one that carries the total only, its events the
 * last reading's (--format json writes them); both read back as they
 * were, and a line from before the key reads as no count.
 */
static void
test_connection_bytes(void **state)
{
	struct event_stat e[2] = { ev("memory/sql/a", 5000),
	    ev("memory/innodb/b", 300) };
	struct sample s = sample_of(e, 2, 2);
	struct event_stat back_ev[4];
	struct sample back = { .events = back_ev };
	struct jsonl_meta meta = { 0 };
	char *line, *at, err[256];
	static const char key[] = "\"connection_bytes\":null,";

	(void)state;
	s.has_connection_bytes = true;
	s.connection_bytes = 131072;
	round_trip(&s, NULL, false);
	s.events_kept = true;
	s.connection_bytes = 135168;
	s.total_bytes += 4096;
	round_trip(&s, NULL, false);
	line = json_of(&s, NULL, false);
	assert_non_null(strstr(line, "\"events_kept\":1,"
	    "\"connection_bytes\":135168,"));
	free(line);
	s = sample_of(e, 2, 2);
	line = json_of(&s, NULL, false);
	assert_non_null(at = strstr(line, key));
	memmove(at, at + sizeof(key) - 1, strlen(at + sizeof(key) - 1) + 1);
	back.has_connection_bytes = true;
	back.connection_bytes = 1;
	assert_int_equal(jsonl_sample(line, strlen(line) - 1, &back, 4, &meta,
	    err, sizeof(err)), 0);
	assert_false(back.has_connection_bytes);
	assert_int_equal(back.connection_bytes, 0);
	free(line);
	jsonl_meta_free(&meta);
}

static void
refused(const char *line, const char *words)
{
	struct event_stat e[2];
	struct sample s = { .events = e };
	struct jsonl_meta meta = { 0 };
	char err[512];

	assert_int_equal(jsonl_sample(line, strlen(line), &s, 2, &meta, err,
	    sizeof(err)), -1);
	if (strstr(err, words) == NULL)
		fail_msg("\"%s\": \"%s\" does not say \"%s\"", line, err, words);
	jsonl_meta_free(&meta);
}

static void
test_refused(void **state)
{
	struct event_stat e[3] = { ev("a", 1), ev("b", 2), ev("c", 3) };
	struct sample s = sample_of(e, 3, 2);
	char *line = json_of(&s, NULL, false);

	(void)state;
	refused("", "not JSON");
	refused("hello", "not JSON");
	refused("{\"sample\": 1,", "not JSON");
	refused("[1, 2]", "an array");
	refused("{\"name\": \"x\", \"value\": 3}", "no key \"sample\"");
	/* A --list line is JSON from mysqlmemprof, but not a sample. */
	refused("{\"thread_id\":1,\"connection_id\":2,\"type\":\"F\"}",
	    "no key \"sample\"");
	/* The record's lines beside its samples are passed over. */
	{
		static const char *const kept[] = {
			"{\"type\":\"capture\",\"number\":1}",
			"{\"type\":\"record\",\"version\":1}",
			"{\"type\":\"connections\",\"rows\":[],\"gone\":[]}",
			"{\"type\":\"incident\",\"kind\":\"oom-kill\"}",
		};
		struct event_stat ev[2];
		struct sample t = { .events = ev };
		struct jsonl_meta m = { 0 };
		char why[256];

		for (size_t i = 0; i < 4; i++)
			assert_int_equal(jsonl_sample(kept[i], strlen(kept[i]),
			    &t, 2, &m, why, sizeof(why)), 1);
	}
	/* Three events, room for two. */
	line[strlen(line) - 1] = '\0';
	refused(line, "3 events");
	free(line);
	refused("{\"sample\":1,\"elapsed_ms\":0,\"timestamp\":\"yesterday\"}",
	    "timestamp");
	/* The process's figures must agree with each other and the total. */
	s = sample_of(e, 2, 2);
	s.process = (struct process_memory){ .known = true,
	    .resident_bytes = 200000, .anon_bytes = 150000,
	    .file_bytes = 50000 };
	line = json_of(&s, "global", false);
	line[strlen(line) - 1] = '\0';
	round_trip(&s, "global", false);
	{
		char *at = strstr(line, "\"untracked_bytes\":76544");

		assert_non_null(at);
		at[strlen("\"untracked_bytes\":7")] = '9';
		refused(line, "process figures that disagree");
		at[strlen("\"untracked_bytes\":7")] = '6';
		at = strstr(line, "\"process_anon_bytes\":150000");
		assert_non_null(at);
		memcpy(at, "\"process_anon_bytes\":950000",
		    strlen("\"process_anon_bytes\":950000"));
		refused(line, "process figures that disagree");
	}
	free(line);
	/* A cgroup's limit or kills without its usage. */
	s.process = (struct process_memory){ .has_cgroup = true,
	    .cgroup_usage_bytes = 1000, .cgroup_limit_bytes = 2,
	    .cgroup_oom_kills = 3 };
	line = json_of(&s, "global", false);
	line[strlen(line) - 1] = '\0';
	{
		char *at = strstr(line, "\"cgroup_usage_bytes\":1000,");

		assert_non_null(at);
		memcpy(at, "\"cgroup_usage_bytes\":null,", 26);
		refused(line, "cgroup figures that disagree");
	}
	free(line);
	refused("{\"sample\":1,\"elapsed_ms\":0,\"timestamp\":"
	    "\"2026-02-31T00:00:00.000Z\"}", "timestamp");
}

/* line with its text from changed to to is refused, saying words. */
static void
refused_as(const char *line, const char *from, const char *to,
    const char *words)
{
	const char *at = strstr(line, from);
	char *changed;

	assert_non_null(at);
	assert_true(asprintf(&changed, "%.*s%s%s", (int)(at - line), line, to,
	    at + strlen(from)) > 0);
	refused(changed, words);
	free(changed);
}

/*
 * A figure of what is held beyond JSONL_MAX_HELD, either sign, is refused
 * naming its key; one at the bound is read, and so is a counter of what
 * was ever done as large as JSON's integers. A time too far for pprof's
 * nanoseconds is refused.
 */
static void
test_figures_no_server_reports(void **state)
{
	struct event_stat e[1] = { 0 };
	struct sample s;
	char *line;

	(void)state;
	snprintf(e[0].name, sizeof(e[0].name), "memory/sql/THD");
	e[0].current_bytes = e[0].high_bytes = JSONL_MAX_HELD;
	e[0].alloc_bytes = INT64_MAX;
	s = sample_of(e, 1, 1);
	s.total_bytes = s.filtered_total_bytes = -JSONL_MAX_HELD;
	round_trip(&s, NULL, false);
	line = json_of(&s, NULL, false);
	line[strlen(line) - 1] = '\0';
	refused_as(line, "\"total_bytes\":-1125899906842624,",
	    "\"total_bytes\":-1125899906842625,", "a figure beyond 1 PiB, "
	    "which no server reports, at \"total_bytes\"");
	refused_as(line, "\"high_bytes\":1125899906842624,",
	    "\"high_bytes\":1125899906842625,", "beyond 1 PiB, which no "
	    "server reports, at \"high_bytes\"");
	/* A time whose nanoseconds (pprof's) would not fit in int64_t. */
	refused_as(line, "\"elapsed_ms\":1500,",
	    "\"elapsed_ms\":9223372036855,", "a time no capture ran, at "
	    "\"elapsed_ms\"");
	free(line);
	refused("{\"sample\":1,\"elapsed_ms\":0,\"timestamp\":"
	    "\"2262-01-01T00:00:00.000Z\"}", "timestamp");
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_round_trip),
		cmocka_unit_test(test_events_kept),
		cmocka_unit_test(test_connection_bytes),
		cmocka_unit_test(test_refused),
		cmocka_unit_test(test_figures_no_server_reports),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
