/*
 * The output formats against golden files, and the properties a golden file
 * cannot show by itself: CSV that parses back to the same bytes, JSON that
 * a strict parser accepts, text whose columns line up on a terminal, and
 * write errors that are reported at once.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <setjmp.h>
#include <cmocka.h>
#include <csv.h>

#include "fixtures.h"
#include "names.h"
#include "json_check.h"
#include "output.h"
#include "output_format.h"
#include "output_table.h"
#include "ring.h"
#include "runstats.h"
#include "summary.h"
#include "threads.h"
#include "units.h"
#include "utc.h"

#define WALL 1795304996123LL /* 2026-11-21T23:49:56.123Z */
#define SKIPPED 2

/* Names a JSON reader must get back with U+FFFD for each bad byte. */
#define FFFD "\xef\xbf\xbd"
static const struct {
	const char *name, *json;
} bad_names[] = {
	{ "memory/test/bad\xff\xc0\xaf" "end",
	  "memory/test/bad" FFFD FFFD FFFD "end" },
	{ "memory/test/cut\xe2\x82", "memory/test/cut" FFFD FFFD },
	/* A UTF-8 encoded surrogate, then an overlong '/'. */
	{ "memory/test/sur\xed\xa0\x80\xe0\x80\xaf",
	  "memory/test/sur" FFFD FFFD FFFD FFFD FFFD FFFD },
};

static struct event_stat
ev_all(const char *name, int64_t cur, int64_t count, int64_t high,
    uint64_t alloc, uint64_t freed, uint64_t nalloc, uint64_t nfree)
{
	struct event_stat e = ev(name, 0);

	e.current_bytes = cur;
	e.current_count = count;
	e.high_bytes = high;
	e.alloc_bytes = alloc;
	e.free_bytes = freed;
	e.alloc_count = nalloc;
	e.free_count = nfree;
	return e;
}

/* e with what it did since the previous sample. */
static struct event_stat
with_delta(struct event_stat e, uint64_t alloc, uint64_t freed,
    uint64_t nalloc, uint64_t nfree, bool unseen_peak)
{
	e.delta = (struct event_delta){ alloc, freed, nalloc, nfree,
	    unseen_peak, 0 };
	return e;
}

/* e with a peak between samples that only the deltas prove. */
static struct event_stat
with_spike(struct event_stat e, int64_t lower_bound)
{
	e.delta = (struct event_delta){ .alloc_bytes = (uint64_t)lower_bound,
	    .free_bytes = (uint64_t)lower_bound, .alloc_count = 1,
	    .free_count = 1, .spike_bytes = lower_bound };
	return e;
}

/*
 * A statement with a comma, quotes, a newline and a tab, non-ASCII,
 * terminal escapes, bad UTF-8 and more than 100 characters.
 */
#define HOSTILE_STATEMENT "SELECT 'a,\"b\"',\n\t" \
	"'caf\xc3\xa9 \xd0\xbc\xd0\xb8\xd1\x80' /* \x1b]0;pwned\x07 \xe2\x80\xae */ " \
	"-- \xff\xfe end of a statement longer than the 100 characters a " \
	"line of text shows"

static void
set_statement(struct sample *s, uint64_t id, const char *digest,
    const char *text)
{
	s->statement.has_id = true;
	s->statement.id = id;
	snprintf(s->statement.digest, sizeof(s->statement.digest), "%s",
	    digest);
	snprintf(s->statement.text, sizeof(s->statement.text), "%s", text);
}

/*
 * Four samples: plain names with one longer than the name column; names
 * with a comma, quotes, a newline and bad UTF-8 and a negative count, and
 * a 15 MB user variable set and freed between samples; no event at all,
 * after a gap; and the extremes of every counter with control characters,
 * with two more unseen peaks.
 */
static struct ring *
fixture_ring(void)
{
	struct ring *r = ring_create(8, 8);
	const struct event_stat s1[] = {
		/* The first sample has no deltas: this one must not show. */
		with_delta(ev_all("memory/innodb/row0sel", 25826, 3, 25826,
		    51652, 25826, 6, 3), 999, 999, 9, 9, true),
		ev("memory/sql/Prepared_statement::main_mem_root", 16384),
		ev("memory/sql/THD::main_mem_root", 10180),
		ev("memory/sql/caf\xc3\xa9", 1536),
	};
	const struct event_stat s2[] = {
		with_delta(ev_all("memory/innodb/row0sel", 30720, 4, 30720,
		    56546, 25826, 7, 3), 4894, 0, 1, 0, false),
		ev("memory/test/a,b", 4096),
		ev("memory/test/say \"hi\"", 2048),
		ev("memory/test/line\nbreak", 1024),
		ev(bad_names[0].name, 512),
		ev(bad_names[1].name, 100),
		with_delta(ev_all("memory/sql/user_var_entry::value", 0, 0,
		    15000008, 15000008, 15000008, 1, 1), 15000008, 15000008, 1,
		    1, true),
		ev_all("memory/sql/neg", -1536, -3, 0, 0, 1536, 0, 3),
	};
	const struct event_stat s4[] = {
		with_delta(ev_all("memory/test/max", INT64_MAX, INT64_MAX,
		    INT64_MAX, UINT64_MAX, UINT64_MAX, UINT64_MAX, UINT64_MAX),
		    UINT64_MAX, UINT64_MAX, UINT64_MAX, UINT64_MAX, false),
		with_delta(ev_all("memory/innodb/row0sel", 20000, 3, 30720,
		    56546, 36546, 7, 4), 0, 10720, 0, 1, false),
		with_delta(ev("memory/test/esc\x1b[2J\xc2\x9b" "1A", 2048),
		    4096, 2048, 2, 1, true),
		ev(bad_names[2].name, 1000),
		with_spike(ev("memory/test/emoji\xf0\x9f\x98\x80\ttab", 900),
		    3000000),
		with_delta(ev_all("memory/sql/user_var_entry::value", 0, 0,
		    30000016, 45000024, 45000024, 3, 3), 30000016, 30000016, 2,
		    2, true),
		ev_all("memory/test/min", INT64_MIN, INT64_MIN, INT64_MIN, 0,
		    0, 0, 0),
	};
	struct sample p1 = { .seq = 1, .elapsed_us = 0, .wall_ms = WALL,
	    .late_us = 61, .query_us = 412, .thread_id = 42,
	    .total_bytes = 1258291 };
	struct sample p2 = { .seq = 2, .elapsed_us = 250000,
	    .wall_ms = WALL + 250, .late_us = 15, .query_us = 380,
	    .has_deltas = true, .thread_id = 42, .total_bytes = 1300000,
	    .alloc_delta_bytes = 15004902, .between_peak_total = 16300000 };
	struct sample p3 = { .seq = 3, .elapsed_us = 3000999,
	    .wall_ms = WALL + 3000, .late_us = 0, .query_us = 350,
	    .gap_ms = 2500, .has_deltas = true, .thread_id = 42,
	    .total_bytes = 0 };
	struct sample p4 = { .seq = 4, .elapsed_us = 3250000,
	    .wall_ms = WALL + 3250, .late_us = 1234, .query_us = UINT64_MAX,
	    .gap_ms = UINT64_MAX, .has_deltas = true, .thread_id = 42,
	    .total_bytes = INT64_MAX };

	/*
	 * Samples 1 and 2 run one statement, whose digest is known once it
	 * ended; sample 3 runs none; sample 4 a hostile one, too long for
	 * a line of text.
	 */
	set_statement(&p1, 101, "", "SELECT a, COUNT(*) FROM t GROUP BY a");
	set_statement(&p2, 101, "3f1c8e0e8b2f2a4c9a0d1e6b7c5d4e3f",
	    "SELECT a, COUNT(*) FROM t GROUP BY a");
	set_statement(&p4, 18446744073709551615u, "", HOSTILE_STATEMENT);
	assert_non_null(r);
	push(r, &p1, s1, sizeof(s1) / sizeof(s1[0]));
	push(r, &p2, s2, sizeof(s2) / sizeof(s2[0]));
	push(r, &p3, NULL, 0);
	push(r, &p4, s4, sizeof(s4) / sizeof(s4[0]));
	return r;
}

static char *
dup(const char *s)
{
	char *d;

	if (s == NULL)
		return NULL;
	assert_non_null(d = strdup(s));
	return d;
}

static void
add_thread(struct thread_list *l, uint64_t id, const uint64_t *conn,
    const char *type, const char *name, const char *user, const char *host,
    const char *command, const int64_t *time, const char *state,
    int64_t bytes, const char *statement)
{
	struct thread_info *t;

	assert_non_null(l->v = realloc(l->v, (l->n + 1) * sizeof(*l->v)));
	t = &l->v[l->n++];
	*t = (struct thread_info){
		.thread_id = id,
		.has_connection = conn != NULL,
		.connection_id = conn ? *conn : 0,
		.type = dup(type),
		.name = dup(name),
		.user = dup(user),
		.host = dup(host),
		.command = dup(command),
		.has_time = time != NULL,
		.time_s = time ? *time : 0,
		.state = dup(state),
		.current_bytes = bytes,
		.statement = dup(statement),
	};
}

#define LONG_STATEMENT "SELECT\n\tname,\n\tcount(*)\nFROM t1 JOIN t2 USING " \
	"(id) WHERE note = 'a, \"quoted\" value' GROUP BY name ORDER BY 2 DESC"

/* A busy client, an idle one, a background thread and a hostile client. */
static void
fixture_threads(struct thread_list *l)
{
	const uint64_t c17 = 17, c30 = 30, c31 = 31;
	const int64_t t3 = 3, t120 = 120, t0 = 0;

	*l = (struct thread_list){ 0 };
	add_thread(l, 48, &c17, "FOREGROUND", "thread/sql/one_connection",
	    "app", "localhost", "Query", &t3, "executing", 1289748,
	    LONG_STATEMENT);
	add_thread(l, 77, &c30, "FOREGROUND", "thread/sql/one_connection",
	    "ren\xc3\xa9", "10.0.0.7:51234", "Sleep", &t120, "", 81920, NULL);
	add_thread(l, 1, NULL, "BACKGROUND", "thread/sql/main", NULL, NULL,
	    NULL, NULL, NULL, 5120, NULL);
	add_thread(l, 99, &c31, "FOREGROUND", "thread/sql/one_connection",
	    "evil\x1b[2J", "h\xff", "Query", &t0, "Sending data", -4096,
	    "SELECT 'caf\xc3\xa9' /* \x1b]0;pwned\x07 */");
}

/*
 * GRAIN: the samples as if of --for-user app with --events given;
 * STATEMENTS: what --statements writes of the samples.
 */
enum what { SAMPLES, LIST, GRAIN, STATEMENTS };

/*
 * Set: render() gives each event its name's entry (names.h), as the reader
 * does, so the writers take their way for names known plain.
 */
static bool intern_names;

/* The whole output of a run in that format, as one string. */
static char *
render(const char *format, bool exact, enum what what, size_t *len)
{
	struct output o = { .settings.exact_bytes = exact };
	char *buf = NULL;

	assert_non_null(o.fmt = output_table_find(format));
	assert_non_null(o.fp = open_memstream(&buf, len));
	if (what == GRAIN) {
		o.grain = "user:app";
		o.filtered = true;
	}
	if (what != LIST) {
		struct ring *r = fixture_ring();
		struct runstats *run = runstats_create();
		struct summary sum;
		FILE *samples_fp = o.fp;

		/* --statements writes only the statements. */
		if (what == STATEMENTS)
			assert_non_null(o.fp = fopen("/dev/null", "w"));
		assert_non_null(run);
		assert_int_equal(output_begin(&o), 0);
		for (size_t i = 0; i < ring_len(r); i++) {
			struct sample copy = *ring_get(r, i);

			copy.filtered_total_bytes = copy.total_bytes / 2;
			/*
			 * The grain's samples after the first have the server's
			 * process beside them, as --global's would.
			 */
			if (what == GRAIN && i > 0 &&
			    copy.total_bytes < ((int64_t)1 << 40))
				copy.process = (struct process_memory){
					.known = true,
					.resident_bytes = copy.total_bytes +
					    ((int64_t)i << 20),
					.anon_bytes = copy.total_bytes +
					    ((int64_t)i << 19),
					.file_bytes = (int64_t)i << 19,
					.has_status = i > 1,
					.status_bytes = copy.total_bytes / 2,
					/*
					 * In a memory cgroup: of 4 MiB, then
					 * of no limit after a kill.
					 */
					.has_cgroup = true,
					.cgroup_version = 1,
					.cgroup_usage_bytes = copy.total_bytes +
					    ((int64_t)i << 21),
					.cgroup_limit_bytes = i == 1 ?
					    (int64_t)4 << 20 : -1,
					.cgroup_high_bytes = -1,
					.cgroup_high_events = -1,
					.cgroup_pressure_some = -1,
					.cgroup_pressure_full = -1,
					.cgroup_oom_kills = (int64_t)i - 1,
				};
			for (size_t k = 0; intern_names && k < copy.n_events;
			    k++) {
				struct event_stat *e = &copy.events[k];

				e->interned = names_intern(e->name,
				    strlen(e->name));
				assert_non_null(e->interned);
			}
			runstats_add(run, &copy);
			assert_int_equal(output_sample(&o, &copy), 0);
		}
		assert_int_equal(summary_build(r, SKIPPED, &sum), 0);
		assert_int_equal(summary_add_run(&sum, run), 0);
		sum.thread_id = 42;
		if (what == STATEMENTS) {
			output_release(&o);
			assert_int_equal(fclose(o.fp), 0);
			o.fp = samples_fp;
			assert_int_equal(output_statements(&o, &sum), 0);
		} else
			assert_int_equal(output_end(&o, &sum), 0);
		summary_free(&sum);
		runstats_free(run);
		ring_free(r);
	} else {
		struct thread_list l;

		fixture_threads(&l);
		assert_int_equal(output_threads(&o, &l), 0);
		thread_list_free(&l);
	}
	output_release(&o);
	assert_int_equal(fclose(o.fp), 0);
	return buf;
}

static void
golden(const char *file, const char *format, bool exact, enum what what)
{
	size_t len;
	char *buf = render(format, exact, what, &len);

	golden_check(file, buf, len);
	free(buf);
}

static void
test_golden_text(void **state)
{
	(void)state;
	golden("text.txt", "text", false, SAMPLES);
	golden("text_bytes.txt", "text", true, SAMPLES);
	golden("list_text.txt", "text", false, LIST);
	golden("grain_text.txt", "text", false, GRAIN);
	golden("statements_text.txt", "text", false, STATEMENTS);
}

static void
test_golden_csv(void **state)
{
	(void)state;
	golden("csv.csv", "csv", false, SAMPLES);
	golden("list_csv.csv", "csv", false, LIST);
	golden("grain_csv.csv", "csv", false, GRAIN);
	golden("statements_csv.csv", "csv", false, STATEMENTS);
}

/* --repeat adds the statements of each capture: one CSV header in all. */
static void
test_statements_csv_header_once(void **state)
{
	struct output o = { .fmt = output_table_find("csv") };
	struct ring *r = fixture_ring();
	struct runstats *run = runstats_create();
	struct summary sum;
	char line[4096];
	size_t headers = 0, rows = 0;

	(void)state;
	for (size_t i = 0; i < ring_len(r); i++)
		runstats_add(run, ring_get(r, i));
	assert_int_equal(summary_build(r, 0, &sum), 0);
	assert_int_equal(summary_add_run(&sum, run), 0);
	assert_non_null(o.fp = tmpfile());
	assert_int_equal(output_statements(&o, &sum), 0);
	assert_int_equal(output_statements(&o, &sum), 0);
	rewind(o.fp);
	while (fgets(line, sizeof(line), o.fp) != NULL) {
		if (strncmp(line, "rank,", 5) == 0)
			headers++;
		else if (line[0] >= '1' && line[0] <= '9')
			rows++;
	}
	assert_int_equal(headers, 1);
	assert_int_equal(rows, 2 * sum.n_run_statements);
	output_release(&o);
	fclose(o.fp);
	summary_free(&sum);
	runstats_free(run);
	ring_free(r);
}

static void
test_golden_json(void **state)
{
	(void)state;
	golden("json.jsonl", "json", false, SAMPLES);
	golden("list_json.jsonl", "json", false, LIST);
	golden("grain_json.jsonl", "json", false, GRAIN);
	golden("statements_json.jsonl", "json", false, STATEMENTS);
}

/*
 * A name its entry calls plain is copied as it is, the others escaped:
 * every format writes the same bytes either way, names with quotes,
 * commas, newlines and bad UTF-8 among them.
 */
static void
test_interned_names_write_the_same(void **state)
{
	static const char *const formats[] = { "text", "csv", "json" };

	(void)state;
	for (size_t f = 0; f < 3; f++)
		for (int what = SAMPLES; what <= GRAIN; what++) {
			size_t len, ilen;
			char *plain, *interned;

			if (what == LIST)
				continue;
			plain = render(formats[f], false, what, &len);
			intern_names = true;
			interned = render(formats[f], false, what, &ilen);
			intern_names = false;
			assert_int_equal(ilen, len);
			assert_memory_equal(interned, plain, len);
			free(plain);
			free(interned);
		}
}

/* The bytes output_sample() writes of s through o, whose state stays. */
static char *
sample_bytes(struct output *o, const struct sample *s, size_t *len)
{
	char *buf = NULL;

	assert_non_null(o->fp = open_memstream(&buf, len));
	assert_int_equal(output_sample(o, s), 0);
	assert_int_equal(fclose(o->fp), 0);
	o->fp = NULL;
	return buf;
}

/*
 * Sample b as an output of format writes it after a, and as one that
 * wrote fresh_first (NULL: nothing) before it: the same bytes, or the
 * test fails.
 */
static void
second_same(const char *format, const struct sample *a,
    const struct sample *fresh_first, const struct sample *b)
{
	struct output kept = { .fmt = output_table_find(format) };
	struct output fresh = kept;
	char *got, *want;
	size_t glen, wlen;

	free(sample_bytes(&kept, a, &glen));
	if (fresh_first != NULL)
		free(sample_bytes(&fresh, fresh_first, &wlen));
	got = sample_bytes(&kept, b, &glen);
	want = sample_bytes(&fresh, b, &wlen);
	assert_int_equal(glen, wlen);
	assert_memory_equal(got, want, wlen);
	free(got);
	free(want);
	output_release(&kept);
	output_release(&fresh);
}

/*
 * CSV and JSON write an event again from the bytes they kept of it while
 * nothing it is written from changed (output_format.h): after a first
 * sample, a second one, the same or with one thing of its first event
 * changed, is written as an output that kept nothing writes it. Fails
 * when the key leaves out anything a column of the event reads.
 */
static void
test_unchanged_events_write_the_same(void **state)
{
	static const char *const formats[] = { "csv", "json" };
	enum { CHANGES = 17 };

	(void)state;
	for (size_t f = 0; f < 2; f++)
		for (int change = 0; change < CHANGES; change++) {
			struct event_stat a[3] = {
				with_delta(ev_all("memory/test/a", 5000, 9, 7000,
				    90000, 85000, 30, 21), 100, 50, 2, 1, false),
				with_spike(ev("memory/test/b", 4000), 3000),
				ev("memory/test/c", 3000),
			};
			struct event_stat b[3];
			struct sample sa = { .seq = 1, .wall_ms = WALL,
			    .has_deltas = true, .thread_id = 42,
			    .total_bytes = 12000, .n_events = 3, .events = a };
			struct sample sb = sa;
			struct event_stat *e = &b[0];

			for (size_t i = 0; i < 3; i++) {
				a[i].interned = names_intern(a[i].name,
				    strlen(a[i].name));
				assert_non_null(a[i].interned);
			}
			memcpy(b, a, sizeof(b));
			sb.seq = 2;
			sb.events = b;
			switch (change) {
			case 1: e->current_bytes++; break;
			case 2: e->current_count++; break;
			case 3: e->high_bytes++; break;
			case 4: e->alloc_bytes++; break;
			case 5: e->free_bytes++; break;
			case 6: e->alloc_count++; break;
			case 7: e->free_count++; break;
			case 8: e->delta.alloc_bytes++; break;
			case 9: e->delta.free_bytes++; break;
			case 10: e->delta.alloc_count++; break;
			case 11: e->delta.free_count++; break;
			case 12: e->delta.unseen_peak = true; break;
			case 13: e->delta.spike_bytes = 6000; break;
			case 14: sb.has_deltas = false; break;
			case 15:
				*e = b[2];
				b[2] = a[0];
				break;
			case 16: {
				static const char other[] = "memory/test/d";

				memcpy(e->name, other, sizeof(other));
				e->interned = names_intern(other,
				    strlen(other));
				break;
			}
			}
			second_same(formats[f], &sa, NULL, &sb);
		}
}

/*
 * CSV and JSON write the columns of a sample that stayed the same from
 * the bytes they kept of them (output_run_same()): after a first sample,
 * a second with one of them changed is written as an output that kept
 * nothing writes it. Fails when a column is left out of the comparison.
 */
static void
test_unchanged_sample_columns_write_the_same(void **state)
{
	static const char *const formats[] = { "csv", "json" };
	enum { CHANGES = 14 };

	(void)state;
	for (size_t f = 0; f < 2; f++)
		for (int change = 0; change < CHANGES; change++) {
			struct event_stat a[1] = { ev("memory/test/a", 5000) };
			struct sample sa = { .seq = 1, .wall_ms = WALL,
			    .has_deltas = true, .thread_id = 42,
			    .total_bytes = 5000, .n_events = 1, .events = a };
			struct sample sb;

			sa.statement.has_id = true;
			sa.statement.id = 7;
			snprintf(sa.statement.digest,
			    sizeof(sa.statement.digest), "abc");
			statement_set_text(&sa.statement, "SELECT 1", 8);
			sb = sa;
			sb.seq = 2;
			switch (change) {
			case 1: sb.statement.id++; break;
			case 2: sb.statement.has_id = false; break;
			case 3: sb.statement.digest[0] = 'x'; break;
			case 4: statement_set_text(&sb.statement, "SELECT 2",
			    8); break;
			case 5: statement_set_text(&sb.statement, "", 0); break;
			case 6: sb.setup_off = SETUP_OFF_MEMORY; break;
			case 7: sb.waiting = true; break;
			case 8: sb.events_kept = true; break;
			case 9:
				sb.has_connection_bytes = true;
				sb.connection_bytes = 99;
				break;
			case 10:
				sb.process.known = true;
				sb.process.resident_bytes = 1 << 20;
				break;
			case 11:
				sb.process.has_status = true;
				sb.process.status_bytes = 77;
				break;
			case 12:
				sb.process.has_cgroup = true;
				sb.process.cgroup_limit_bytes = -1;
				sb.process.cgroup_oom_kills = 3;
				break;
			case 13: sb.total_bytes++; break;
			}
			second_same(formats[f], &sa, NULL, &sb);
		}
}

/*
 * Text writes a sample's rows again from the bytes it kept of the last
 * sample's while its events (by entry), their bytes and its total are
 * the same (text_rows): after a first sample, a second with one of those
 * or what else makes rows changed is written as an output that wrote
 * other rows before writes it. Fails when the key leaves one out.
 */
static void
test_unchanged_text_rows_write_the_same(void **state)
{
	enum { CHANGES = 9 };

	(void)state;
	for (int change = 0; change < CHANGES; change++) {
		struct event_stat a[2] = { ev("memory/test/a", 5000),
		    ev("memory/test/b", 3000) };
		struct event_stat b[2];
		struct sample sa = { .seq = 1, .wall_ms = WALL,
		    .has_deltas = true, .thread_id = 42, .total_bytes = 9000,
		    .n_events = 2, .events = a };
		struct sample sb, other;

		for (size_t i = 0; i < 2; i++)
			a[i].interned = names_intern(a[i].name,
			    strlen(a[i].name));
		memcpy(b, a, sizeof(b));
		sb = sa;
		sb.seq = 2;
		sb.events = b;
		switch (change) {
		case 1: b[0].current_bytes += 10000; break;
		case 2: sb.total_bytes += 10000; break;
		case 3: sb.n_events = 1; break;
		case 4: b[1] = ev("memory/test/c", 3000);
			b[1].interned = names_intern(b[1].name,
			    strlen(b[1].name));
			break;
		case 5: b[1].interned = NULL; break;
		case 6:
			sb.has_connection_bytes = true;
			sb.connection_bytes = 8000;
			break;
		case 7:
			sb.process.known = true;
			sb.process.resident_bytes = 1 << 20;
			break;
		case 8:
			sb.process.has_cgroup = true;
			sb.process.cgroup_limit_bytes = -1;
			break;
		}
		other = sa;
		other.total_bytes = 1;
		second_same("text", &sa, &other, &sb);
	}
}

static int text_writes;

/* A writer that says how often it was called. */
static void
counted_writer(struct obuf *b, const char *s, size_t n, bool plain)
{
	text_writes++;
	obuf_putc(b, plain ? '<' : '[');
	obuf_write(b, s, n);
	obuf_putc(b, plain ? '>' : ']');
}

/*
 * A text column kept (output_text_put()) is written again as it was only
 * when its bytes and plain flag are the same: a longer, shorter or other
 * value, or the other flag, goes to the writer.
 */
static void
test_text_kept(void **state)
{
	static const struct {
		const char *s;
		size_t n;
		bool plain;
		int writes;
	} steps[] = {
		{ "SELECT 1", 8, false, 1 },
		{ "SELECT 1", 8, false, 1 },
		{ "SELECT 2", 8, false, 2 },
		{ "SELECT 2;", 9, false, 3 },
		{ "SELECT 2", 8, false, 4 },
		{ "SELECT 2", 8, true, 5 },
		{ "SELECT 2", 8, true, 5 },
		{ "", 0, true, 6 },
		{ "", 0, true, 6 },
		{ "a\0b", 3, true, 7 },
		{ "a\0c", 3, true, 8 },
	};
	struct output_text_kept k = { 0 };
	struct obuf b = { 0 };

	(void)state;
	text_writes = 0;
	for (size_t i = 0; i < sizeof(steps) / sizeof(steps[0]); i++) {
		obuf_clear(&b);
		output_text_put(&b, &k, steps[i].s, steps[i].n, steps[i].plain,
		    counted_writer);
		assert_int_equal(text_writes, steps[i].writes);
		assert_int_equal(b.len, steps[i].n + 2);
		assert_int_equal(b.p[0], steps[i].plain ? '<' : '[');
		assert_memory_equal(b.p + 1, steps[i].s, steps[i].n);
	}
	output_text_kept_free(&k);
	obuf_free(&b);
}

static void
test_format_table(void **state)
{
	(void)state;
	assert_string_equal(output_table_names(", "),
	    "text, csv, json, folded, pprof, html, svg");
	assert_string_equal(output_table_names(" or "),
	    "text, csv, json, folded, pprof, html or svg");
	/* Each joining keeps its own buffer: the first is not overwritten. */
	const char *a = output_table_names(", ");
	output_table_names(" or ");
	assert_string_equal(a, "text, csv, json, folded, pprof, html, svg");
	assert_string_equal(output_table_find("text")->name, "text");
	assert_string_equal(output_table_find("csv")->name, "csv");
	assert_string_equal(output_table_find("json")->name, "json");
	assert_string_equal(output_table_find("folded")->name, "folded");
	assert_string_equal(output_table_find("pprof")->name, "pprof");
	assert_string_equal(output_table_find("html")->name, "html");
	assert_string_equal(output_table_find("svg")->name, "svg");
	assert_null(output_table_find("xml"));
	assert_null(output_table_find("JSON"));
	assert_null(output_table_find(""));
}

/* Formats with nothing to say at the start or the end write nothing. */
static void
test_nothing_written(void **state)
{
	static const char *const formats[] = { "csv", "json" };
	struct summary sum = { 0 };

	(void)state;
	for (size_t i = 0; i < 2; i++) {
		struct output o = { .fmt = output_table_find(formats[i]) };
		char *buf = NULL;
		size_t len;

		assert_non_null(o.fp = open_memstream(&buf, &len));
		if (strcmp(formats[i], "json") == 0)
			assert_int_equal(output_begin(&o), 0);
		assert_int_equal(output_end(&o, &sum), 0);
		output_release(&o);
		assert_int_equal(fclose(o.fp), 0);
		assert_int_equal(len, 0);
		free(buf);
	}
}

/* A full disk shows at the first sample, with the reason in errno. */
static void
test_write_error(void **state)
{
	static const char *const formats[] = { "text", "csv", "json" };
	struct ring *r = fixture_ring();
	struct thread_list l;

	(void)state;
	fixture_threads(&l);
	for (size_t i = 0; i < 3; i++) {
		struct output o = { .fmt = output_table_find(formats[i]) };

		/* The first call that writes anything fails, and says why. */
		assert_non_null(o.fp = fopen("/dev/full", "w"));
		errno = 0;
		if (output_begin(&o) == 0) {
			assert_int_equal(output_sample(&o, ring_get(r, 0)),
			    -1);
			assert_int_equal(errno, ENOSPC);
		} else {
			assert_int_equal(errno, ENOSPC);
			/* And the stream stays failed. */
			assert_int_equal(output_sample(&o, ring_get(r, 0)),
			    -1);
		}
		output_release(&o);
		fclose(o.fp);

		assert_non_null(o.fp = fopen("/dev/full", "w"));
		errno = 0;
		assert_int_equal(output_threads(&o, &l), -1);
		assert_int_equal(errno, ENOSPC);
		output_release(&o);
		fclose(o.fp);
	}
	/* Text and JSON write no header: the sample is the first to fail. */
	{
		struct output o = { .fmt = output_table_find("json") };

		assert_non_null(o.fp = fopen("/dev/full", "w"));
		assert_int_equal(output_begin(&o), 0);
		assert_int_equal(output_sample(&o, ring_get(r, 0)), -1);
		output_release(&o);
		fclose(o.fp);
	}
	thread_list_free(&l);
	ring_free(r);
}

static void
test_capture_heading(void **state)
{
	struct output_capture c = {
		.number = 2, .started_s = 0, .connection_id = 17,
		.thread_id = 48, .running_s = 31,
		.text = "SELECT a,\n\tb FROM t /* \x1b[2J */ WHERE x = 'a long "
		    "enough tail to be cut somewhere'",
	};
	const char *formats[] = { "text", "csv", "json" };

	(void)state;
	for (size_t i = 0; i < 3; i++) {
		struct output o = { .fmt = output_table_find(formats[i]) };
		char *buf = NULL;
		size_t len;

		assert_non_null(o.fp = open_memstream(&buf, &len));
		assert_int_equal(output_capture(&o, &c), 0);
		output_release(&o);
		fclose(o.fp);
		if (i == 1) {
			/* CSV rows stand alone: no heading. */
			assert_int_equal(len, 0);
		} else if (i == 2) {
			/* One line --read passes over, the text escaped. */
			assert_non_null(strstr(buf, "{\"type\":\"capture\","
			    "\"capture\":2,"));
			assert_non_null(strstr(buf, "\"connection_id\":17,"
			    "\"thread_id\":48,\"state\":\"running\","
			    "\"seconds\":31,\"duration_ms\":null,"
			    "\"statement\":\"SELECT a,\\n\\tb "
			    "FROM t /* \\u001b[2J */"));
			assert_non_null(strstr(buf, "\"bigger_than_bytes\":null,"
			    "\"between_looks\":false,\"peak_bytes\":null}\n"));
			assert_int_equal(strchr(buf, '\n') - buf + 1, (long)len);
		} else {
			assert_non_null(strstr(buf, "## Capture 2 at "));
			assert_non_null(strstr(buf, ": connection 17, thread 48, "
			    "running 31 s: SELECT a, b FROM t /* ?[2J */ WHERE x "));
			assert_non_null(strstr(buf, "... ##\n"));
			assert_null(strchr(buf, '\x1b'));
			assert_int_equal(strchr(buf, '\n') - buf + 1, (long)len);
		}
		free(buf);
	}
}

/*
 * A statement that had ended when a look found it (MySQL 8.0.31+, by its
 * own peak): the heading says it ended and how long it ran, to the
 * millisecond, in text and JSON, and that it crossed between looks.
 */
static void
test_capture_heading_ended(void **state)
{
	struct output_capture c = {
		.number = 2, .connection_id = 28, .thread_id = 67,
		.running_s = 3, .text = "SELECT spike", .bytes = 2 << 20,
		.size_bytes = 8 << 20, .between_looks = true,
		.peak_bytes = 28 << 20, .ended = true, .duration_ms = 3014,
	};
	const char *formats[] = { "text", "json" };

	(void)state;
	for (size_t i = 0; i < 2; i++) {
		struct output o = { .fmt = output_table_find(formats[i]) };
		char *buf = NULL;
		size_t len;

		assert_non_null(o.fp = open_memstream(&buf, &len));
		assert_int_equal(output_capture(&o, &c), 0);
		output_release(&o);
		fclose(o.fp);
		if (i == 0) {
			assert_non_null(strstr(buf, ": connection 28, thread 67, "
			    "ended after 3.014 s: SELECT spike ##\n## crossed "
			    "8.00 MiB between looks, peak 28.00 MiB ##\n"));
			assert_null(strstr(buf, "running"));
		} else {
			assert_non_null(strstr(buf, "\"connection_id\":28,"
			    "\"thread_id\":67,\"state\":\"ended\","
			    "\"seconds\":3,\"duration_ms\":3014,"
			    "\"statement\":\"SELECT spike\",\"bytes\":2097152,"
			    "\"bigger_than_bytes\":8388608,\"between_looks\":true,"
			    "\"peak_bytes\":29360128}\n"));
		}
		free(buf);
	}
}

/*
 * A connection found holding memory idle, past --bigger-than only between
 * two looks: the heading says so in text and JSON.
 */
static void
test_capture_heading_idle_and_between(void **state)
{
	struct output_capture c = {
		.number = 1, .connection_id = 12, .thread_id = 53,
		.running_s = 4, .text = "", .idle = true,
		.bytes = 30 << 20, .size_bytes = 20 << 20,
	};
	struct output_capture b = {
		.number = 3, .connection_id = 13, .thread_id = 54,
		.running_s = 2, .text = "SELECT spike", .bytes = 1 << 20,
		.size_bytes = 20 << 20, .between_looks = true,
		.peak_bytes = 31 << 20,
	};
	const char *formats[] = { "text", "json" };

	(void)state;
	for (size_t i = 0; i < 2; i++) {
		struct output o = { .fmt = output_table_find(formats[i]) };
		char *buf = NULL;
		size_t len;

		assert_non_null(o.fp = open_memstream(&buf, &len));
		assert_int_equal(output_capture(&o, &c), 0);
		assert_int_equal(output_capture(&o, &b), 0);
		output_release(&o);
		fclose(o.fp);
		if (i == 0) {
			assert_non_null(strstr(buf, ": connection 12, thread 53, "
			    "idle 4 s, holding 30.00 MiB (--bigger-than 20.00 MiB) "
			    "##\n"));
			assert_non_null(strstr(buf, ": connection 13, thread 54, "
			    "running 2 s: SELECT spike ##\n## crossed 20.00 MiB "
			    "between looks, peak 31.00 MiB ##\n"));
			/* An idle one crossed nothing: one such line. */
			assert_null(strstr(strstr(buf, "## crossed") + 1,
			    "## crossed"));
		} else {
			assert_non_null(strstr(buf, "\"connection_id\":12,"
			    "\"thread_id\":53,\"state\":\"idle\","
			    "\"seconds\":4,\"duration_ms\":null,\"statement\":null,"
			    "\"bytes\":31457280,"
			    "\"bigger_than_bytes\":20971520,\"between_looks\":false"));
			assert_non_null(strstr(buf, "\"state\":\"running\","
			    "\"seconds\":2,\"duration_ms\":null,"
			    "\"statement\":\"SELECT spike\","
			    "\"bytes\":1048576,\"bigger_than_bytes\":20971520,"
			    "\"between_looks\":true,\"peak_bytes\":32505856}\n"));
		}
		free(buf);
	}
}

static void
test_thread_list_free(void **state)
{
	struct thread_list l = { 0 };

	(void)state;
	thread_list_free(&l);
	thread_list_free(NULL);
	fixture_threads(&l);
	thread_list_free(&l);
	assert_null(l.v);
	assert_int_equal(l.n, 0);
	thread_list_free(&l);
}

/* CSV parsed back with libcsv. */

#define MAX_ROWS 32
#define MAX_FIELDS 48

struct field {
	char *s; /* NULL for an unquoted empty field */
	size_t len;
};

struct table {
	struct field f[MAX_ROWS][MAX_FIELDS];
	size_t n_fields[MAX_ROWS];
	size_t n_rows;
};

static void
on_field(void *s, size_t len, void *data)
{
	struct table *t = data;
	struct field *f;

	assert_true(t->n_rows < MAX_ROWS);
	assert_true(t->n_fields[t->n_rows] < MAX_FIELDS);
	f = &t->f[t->n_rows][t->n_fields[t->n_rows]++];
	f->len = len;
	f->s = NULL;
	if (s != NULL) {
		assert_non_null(f->s = malloc(len + 1));
		memcpy(f->s, s, len);
		f->s[len] = '\0';
	}
}

static void
on_row(int c, void *data)
{
	struct table *t = data;

	(void)c;
	t->n_rows++;
}

static struct table *
parse_csv(const char *buf, size_t len)
{
	struct table *t = calloc(1, sizeof(*t));
	struct csv_parser p;

	assert_non_null(t);
	assert_int_equal(csv_init(&p, CSV_STRICT | CSV_STRICT_FINI |
	    CSV_EMPTY_IS_NULL), 0);
	assert_int_equal(csv_parse(&p, buf, len, on_field, on_row, t), len);
	assert_int_equal(csv_fini(&p, on_field, on_row, t), 0);
	csv_free(&p);
	return t;
}

static void
free_table(struct table *t)
{
	for (size_t i = 0; i < MAX_ROWS; i++)
		for (size_t j = 0; j < MAX_FIELDS; j++)
			free(t->f[i][j].s);
	free(t);
}

static void
field_is(const struct field *f, const char *want)
{
	if (want == NULL) {
		if (f->s != NULL)
			fail_msg("field \"%s\", want an empty unquoted one",
			    f->s);
		return;
	}
	assert_non_null(f->s);
	assert_int_equal(f->len, strlen(want));
	assert_memory_equal(f->s, want, f->len);
}

static void
field_i64(const struct field *f, int64_t v)
{
	char want[32];

	snprintf(want, sizeof(want), "%" PRId64, v);
	field_is(f, want);
}

static void
field_u64(const struct field *f, uint64_t v)
{
	char want[32];

	snprintf(want, sizeof(want), "%" PRIu64, v);
	field_is(f, want);
}

static void
header_is(const struct field *row, size_t n, const char *want)
{
	char *copy = strdup(want), *save = NULL;
	size_t i = 0;

	for (char *w = strtok_r(copy, ",", &save); w != NULL;
	    w = strtok_r(NULL, ",", &save))
		field_is(&row[i++], w);
	assert_int_equal(i, n);
	free(copy);
}

/* Every line end outside quotes is CRLF, and there is no bare CR or LF. */
static void
check_crlf(const char *buf, size_t len)
{
	bool quoted = false;

	assert_true(len >= 2);
	assert_memory_equal(buf + len - 2, "\r\n", 2);
	for (size_t i = 0; i < len; i++) {
		if (buf[i] == '"')
			quoted = !quoted;
		if (quoted)
			continue;
		if (buf[i] == '\r')
			assert_true(i + 1 < len && buf[i + 1] == '\n');
		if (buf[i] == '\n')
			assert_true(i > 0 && buf[i - 1] == '\r');
	}
	assert_false(quoted);
}

static void
test_csv_roundtrip(void **state)
{
	struct ring *r = fixture_ring();
	size_t len, row = 1, peaks = 0, spikes = 0, texts = 0;
	char *buf = render("csv", false, SAMPLES, &len);
	struct table *t;

	(void)state;
	check_crlf(buf, len);
	t = parse_csv(buf, len);
	assert_int_equal(t->n_fields[0], SAMPLE_COLUMNS);
	header_is(t->f[0], SAMPLE_COLUMNS, "sample,elapsed_ms,timestamp,thread_id,"
	    "event_name,current_bytes,current_count,high_bytes,alloc_bytes,"
	    "free_bytes,alloc_count,free_count,total_bytes,late_us,query_us,"
	    "gap_ms,alloc_delta_bytes,free_delta_bytes,alloc_delta_count,"
	    "free_delta_count,unseen_peak_bytes,spike_lower_bytes,"
	    "statement_id,digest,"
	    "statement,grain,filtered_total_bytes,setup_off,waiting,"
	    "events_kept,connection_bytes,process_resident_bytes,"
	    "process_anon_bytes,untracked_bytes,"
	    "status_memory_bytes,cgroup_usage_bytes,cgroup_limit_bytes,"
	    "cgroup_oom_kills,cgroup_high_bytes,cgroup_high_events,"
	    "cgroup_pressure_some_bp,cgroup_pressure_full_bp");
	for (size_t i = 0; i < ring_len(r); i++) {
		const struct sample *s = ring_get(r, i);
		char ts[64];

		utc_format(ts, sizeof(ts), s->wall_ms, UTC_STAMP);
		for (size_t j = 0; j == 0 || j < s->n_events; j++, row++) {
			const struct field *f = t->f[row];
			const struct event_stat *e =
			    s->n_events ? &s->events[j] : NULL;

			assert_true(row < t->n_rows);
			assert_int_equal(t->n_fields[row], SAMPLE_COLUMNS);
			field_u64(&f[0], s->seq);
			field_u64(&f[1], s->elapsed_us / 1000);
			field_is(&f[2], ts);
			field_u64(&f[3], s->thread_id);
			if (e != NULL) {
				field_is(&f[4], e->name);
				field_i64(&f[5], e->current_bytes);
				field_i64(&f[6], e->current_count);
				field_i64(&f[7], e->high_bytes);
				field_u64(&f[8], e->alloc_bytes);
				field_u64(&f[9], e->free_bytes);
				field_u64(&f[10], e->alloc_count);
				field_u64(&f[11], e->free_count);
			} else
				for (size_t k = 4; k < 12; k++)
					field_is(&f[k], NULL);
			field_i64(&f[12], s->total_bytes);
			field_u64(&f[13], s->late_us);
			field_u64(&f[14], s->query_us);
			field_u64(&f[15], s->gap_ms);
			if (e != NULL && s->has_deltas) {
				field_u64(&f[16], e->delta.alloc_bytes);
				field_u64(&f[17], e->delta.free_bytes);
				field_u64(&f[18], e->delta.alloc_count);
				field_u64(&f[19], e->delta.free_count);
			} else
				for (size_t k = 16; k < 20; k++)
					field_is(&f[k], NULL);
			if (e != NULL && s->has_deltas &&
			    e->delta.unseen_peak)
				field_i64(&f[20], e->high_bytes);
			else
				field_is(&f[20], NULL);
			peaks += f[20].s != NULL;
			if (e != NULL && s->has_deltas &&
			    e->delta.spike_bytes > 0)
				field_i64(&f[21], e->delta.spike_bytes);
			else
				field_is(&f[21], NULL);
			spikes += f[21].s != NULL;
			/* The statement, byte for byte; empty when unknown. */
			if (s->statement.has_id)
				field_u64(&f[22], s->statement.id);
			else
				field_is(&f[22], NULL);
			field_is(&f[23], s->statement.digest[0] != '\0' ?
			    s->statement.digest : NULL);
			field_is(&f[24], s->statement.text[0] != '\0' ?
			    s->statement.text : NULL);
			texts += f[24].s != NULL &&
			    strcmp(f[24].s, HOSTILE_STATEMENT) == 0;
			/* A thread, without --events: both empty. */
			field_is(&f[25], NULL);
			field_is(&f[26], NULL);
			/* Its events read with it. */
			field_u64(&f[29], 0);
			/*
			 * No own count of the thread read, and not
			 * --global: no process beside it.
			 */
			for (size_t k = 30; k < SAMPLE_COLUMNS; k++)
				field_is(&f[k], NULL);
		}
	}
	assert_int_equal(t->n_rows, row);
	/* The fixture's first sample carries a delta that must not show. */
	assert_int_equal(peaks, 3);
	assert_int_equal(spikes, 1);
	/* The 7 rows of sample 4 give the hostile statement back whole. */
	assert_int_equal(texts, 7);
	free_table(t);
	free(buf);
	ring_free(r);
}

static void
test_csv_list_roundtrip(void **state)
{
	struct thread_list l;
	size_t len;
	char *buf = render("csv", false, LIST, &len);
	struct table *t;

	(void)state;
	check_crlf(buf, len);
	t = parse_csv(buf, len);
	fixture_threads(&l);
	assert_int_equal(t->n_rows, l.n + 1);
	header_is(t->f[0], t->n_fields[0], "thread_id,connection_id,type,name,"
	    "user,host,command,time,state,current_bytes,statement");
	for (size_t i = 0; i < l.n; i++) {
		const struct thread_info *th = &l.v[i];
		const struct field *f = t->f[i + 1];

		assert_int_equal(t->n_fields[i + 1], 11);
		field_u64(&f[0], th->thread_id);
		if (th->has_connection)
			field_u64(&f[1], th->connection_id);
		else
			field_is(&f[1], NULL);
		field_is(&f[2], th->type);
		field_is(&f[3], th->name);
		field_is(&f[4], th->user);
		field_is(&f[5], th->host);
		field_is(&f[6], th->command);
		if (th->has_time)
			field_i64(&f[7], th->time_s);
		else
			field_is(&f[7], NULL);
		field_is(&f[8], th->state);
		field_i64(&f[9], th->current_bytes);
		field_is(&f[10], th->statement);
	}
	thread_list_free(&l);
	free_table(t);
	free(buf);
}

/* Parses one line as a JSON object and nothing else. */
static void
json_line(struct json *j, const char *line, size_t len)
{
	if (!json_check_object(j, line, len))
		fail_msg("not a JSON object at byte %td: %.*s",
		    (const char *)j->p - line, (int)len, line);
}

static void
test_json_parser_rejects(void **state)
{
	static const char *const bad[] = {
		"{\"a\":1,}", "{\"a\":01}", "{\"a\":\"\x01\"}",
		"{\"a\":'x'}", "{\"a\":\"\xff\"}", "{\"a\":\"\xc0\xaf\"}",
		"{\"a\":\"\xed\xa0\x80\"}", "{\"a\":\"\\ud800\"}",
		"{\"a\":\"\\x41\"}", "{\"a\":1} x", "{\"a\":[1,2}",
		"{\"a\":-}", "{\"a\":1.}", "{\"a\":\"\xe2\x82\"}",
	};
	static const char *const good[] = {
		"{}", "{\"a\":[]}", "{\"a\":\"\\u00e9\\ud83d\\ude00\"}",
		"{\"a\":-0.5e+3,\"b\":null,\"c\":[true,false]}",
		"{\"a\":\"caf\xc3\xa9 \xf0\x9f\x98\x80\"}",
	};
	struct json j;

	(void)state;
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		memset(&j, 0, sizeof(j));
		j.p = (const unsigned char *)bad[i];
		j.end = j.p + strlen(bad[i]);
		if (j_value(&j, 0) && j.p == j.end)
			fail_msg("accepted %s", bad[i]);
	}
	for (size_t i = 0; i < sizeof(good) / sizeof(good[0]); i++)
		json_line(&j, good[i], strlen(good[i]));
}

static const char *
json_name(const char *name)
{
	for (size_t i = 0; i < sizeof(bad_names) / sizeof(bad_names[0]); i++)
		if (strcmp(name, bad_names[i].name) == 0)
			return bad_names[i].json;
	return name;
}

/* The keys the spikes added, in their places, null where nothing is known. */
static void
json_deltas(const char *buf)
{
	const char *second = strchr(buf, '\n') + 1;

	/* The first sample: every event has its deltas, all null. */
	assert_non_null(strstr(buf, "\"late_us\":61,\"query_us\":412,"
	    "\"gap_ms\":0,\"events\":["));
	assert_non_null(strstr(buf, "\"free_count\":3,"
	    "\"alloc_delta_bytes\":null,\"free_delta_bytes\":null,"
	    "\"alloc_delta_count\":null,\"free_delta_count\":null,"
	    "\"unseen_peak_bytes\":null,\"spike_lower_bytes\":null}"));
	assert_true(strstr(buf, "\"alloc_delta_bytes\":null") < second);
	assert_int_equal(count_in(buf, "\"alloc_delta_bytes\":null"), 4);
	/* The user variable set and freed between samples 1 and 2. */
	assert_non_null(strstr(buf, "\"event_name\":"
	    "\"memory/sql/user_var_entry::value\",\"current_bytes\":0,"
	    "\"current_count\":0,\"high_bytes\":15000008,"
	    "\"alloc_bytes\":15000008,\"free_bytes\":15000008,"
	    "\"alloc_count\":1,\"free_count\":1,"
	    "\"alloc_delta_bytes\":15000008,\"free_delta_bytes\":15000008,"
	    "\"alloc_delta_count\":1,\"free_delta_count\":1,"
	    "\"unseen_peak_bytes\":15000008,\"spike_lower_bytes\":null}"));
	assert_non_null(strstr(buf, "\"gap_ms\":2500,\"events\":[],"
	    "\"statement_id\":null,\"digest\":null,\"statement\":null,"
	    "\"grain\":null,\"filtered_total_bytes\":null,"
	    "\"setup_off\":null,\"waiting\":0,\"events_kept\":0,"
	    "\"connection_bytes\":null,\"process_resident_bytes\":null,\"process_anon_bytes\":null,"
	    "\"untracked_bytes\":null,\"status_memory_bytes\":null,\"cgroup_usage_bytes\":null,"
	    "\"cgroup_limit_bytes\":null,\"cgroup_oom_kills\":null,"
	    "\"cgroup_high_bytes\":null,\"cgroup_high_events\":null,"
	    "\"cgroup_pressure_some_bp\":null,"
	    "\"cgroup_pressure_full_bp\":null,"
	    "\"finished\":[]}\n"));
	assert_non_null(strstr(buf, "\"query_us\":18446744073709551615,"
	    "\"gap_ms\":18446744073709551615,"));
	assert_non_null(strstr(buf, "\"alloc_delta_bytes\":"
	    "18446744073709551615,\"free_delta_bytes\":18446744073709551615,"
	    "\"alloc_delta_count\":18446744073709551615,"
	    "\"free_delta_count\":18446744073709551615,"
	    "\"unseen_peak_bytes\":null,\"spike_lower_bytes\":null}"));
	assert_int_equal(count_in(buf, "\"unseen_peak_bytes\":null"),
	    4 + 8 + 7 - 3);
	assert_int_equal(count_in(buf, "\"unseen_peak_bytes\":"), 4 + 8 + 7);
}

static void
test_json_valid(void **state)
{
	struct ring *r = fixture_ring();
	size_t len, i = 0;
	char *buf = render("json", false, SAMPLES, &len);
	const char *line = buf, *nl;
	struct json j;

	(void)state;
	for (; (nl = memchr(line, '\n', len - (size_t)(line - buf))) != NULL;
	    line = nl + 1, i++) {
		const struct sample *s = ring_get(r, i);

		assert_non_null(s);
		json_line(&j, line, (size_t)(nl - line));
		assert_int_equal(j.n_names, s->n_events);
		for (size_t k = 0; k < s->n_events; k++)
			assert_string_equal(j.names[k],
			    json_name(s->events[k].name));
	}
	assert_int_equal(i, ring_len(r));
	assert_ptr_equal(line, buf + len);
	/* The escapes themselves, as the golden file shows them. */
	assert_non_null(strstr(buf,
	    "\"memory/test/bad\\ufffd\\ufffd\\ufffdend\""));
	assert_non_null(strstr(buf, "\"memory/test/cut\\ufffd\\ufffd\""));
	assert_non_null(strstr(buf, "\"memory/test/line\\nbreak\""));
	assert_non_null(strstr(buf, "\"memory/test/esc\\u001b[2J\\u009b1A\""));
	assert_non_null(strstr(buf, "\"memory/test/say \\\"hi\\\"\""));
	assert_non_null(strstr(buf, "\"current_bytes\":-9223372036854775808"));
	assert_non_null(strstr(buf, "\"alloc_bytes\":18446744073709551615"));
	json_deltas(buf);
	/* The statement keys, then the grain's; null where nothing is known. */
	assert_non_null(strstr(buf, "\"unseen_peak_bytes\":null,"
	    "\"spike_lower_bytes\":null}],\"statement_id\":101,\"digest\":null,"
	    "\"statement\":\"SELECT a, COUNT(*) FROM t GROUP BY a\","
	    "\"grain\":null,\"filtered_total_bytes\":null,"
	    "\"setup_off\":null,\"waiting\":0,\"events_kept\":0,"
	    "\"connection_bytes\":null,\"process_resident_bytes\":null,\"process_anon_bytes\":null,"
	    "\"untracked_bytes\":null,\"status_memory_bytes\":null,\"cgroup_usage_bytes\":null,"
	    "\"cgroup_limit_bytes\":null,\"cgroup_oom_kills\":null,"
	    "\"cgroup_high_bytes\":null,\"cgroup_high_events\":null,"
	    "\"cgroup_pressure_some_bp\":null,"
	    "\"cgroup_pressure_full_bp\":null,"
	    "\"finished\":[]}\n"));
	assert_non_null(strstr(buf, "],\"statement_id\":101,"
	    "\"digest\":\"3f1c8e0e8b2f2a4c9a0d1e6b7c5d4e3f\","));
	assert_non_null(strstr(buf, "],\"statement_id\":18446744073709551615,"
	    "\"digest\":null,\"statement\":\"SELECT 'a,\\\"b\\\"',\\n\\t"
	    "'caf\xc3\xa9 \xd0\xbc\xd0\xb8\xd1\x80' /* \\u001b]0;pwned\\u0007 "
	    "\\u202e */ -- \\ufffd\\ufffd end of a statement longer "));
	free(buf);
	ring_free(r);
}

static void
test_json_list_valid(void **state)
{
	size_t len, n = 0;
	char *buf = render("json", false, LIST, &len);
	const char *line = buf, *nl;
	struct json j;

	(void)state;
	for (; (nl = memchr(line, '\n', len - (size_t)(line - buf))) != NULL;
	    line = nl + 1, n++)
		json_line(&j, line, (size_t)(nl - line));
	assert_int_equal(n, 4);
	assert_ptr_equal(line, buf + len);
	assert_non_null(strstr(buf, "{\"thread_id\":1,\"connection_id\":null,"
	    "\"type\":\"BACKGROUND\",\"name\":\"thread/sql/main\","
	    "\"user\":null,\"host\":null,\"command\":null,\"time\":null,"
	    "\"state\":null,"
	    "\"current_bytes\":5120,\"statement\":null}\n"));
	assert_non_null(strstr(buf, "\"host\":\"h\\ufffd\""));
	free(buf);
}

/*
 * The characters that need no escape in JSON but that a terminal acts on
 * (C1 controls, line separators, bidi overrides and isolates), each with
 * how JSON and text write it; their neighbours are written as they are,
 * so the ranges are pinned at both ends.
 */
static const struct {
	const char *utf8, *json, *text;
} terminal_chars[] = {
	{ "\xc2\x9f", "\\u009f", "?" },                     /* U+009F, C1 */
	{ "\xc2\xa0", "\xc2\xa0", "\xc2\xa0" },             /* U+00A0 */
	{ "\xe2\x80\xa7", "\xe2\x80\xa7", "\xe2\x80\xa7" }, /* U+2027 */
	{ "\xe2\x80\xa8", "\\u2028", "?" },                 /* LINE SEP. */
	{ "\xe2\x80\xa9", "\\u2029", "?" },                 /* PARA. SEP. */
	{ "\xe2\x80\xae", "\\u202e", "?" },                 /* RLO */
	{ "\xe2\x80\xaf", "\xe2\x80\xaf", "\xe2\x80\xaf" }, /* U+202F */
	{ "\xe2\x81\xa5", "\xe2\x81\xa5", "\xe2\x81\xa5" }, /* U+2065 */
	{ "\xe2\x81\xa6", "\\u2066", "?" },                 /* LRI */
	{ "\xe2\x81\xa7", "\\u2067", "?" },                 /* RLI */
	{ "\xe2\x81\xa8", "\\u2068", "?" },                 /* FSI */
	{ "\xe2\x81\xa9", "\\u2069", "?" },                 /* PDI */
	{ "\xe2\x81\xaa", "\xe2\x81\xaa", "\xe2\x81\xaa" }, /* U+206A */
};

/*
 * The samples of a ring in that format, then its summary: one event named
 * name in each, and the statements given, one per sample.
 */
static char *
render_samples(const char *format, const char *name,
    const char *const *texts, size_t n, size_t *len)
{
	struct output o = { .fmt = output_table_find(format) };
	struct ring *r = ring_create(4, 1);
	struct summary sum;
	char *buf = NULL;

	assert_non_null(o.fmt);
	assert_non_null(r);
	assert_true(n <= 4);
	for (size_t i = 0; i < n; i++) {
		struct sample p = { .seq = i + 1, .wall_ms = WALL,
		    .elapsed_us = i * 250000, .thread_id = 42,
		    .total_bytes = 1024, .has_deltas = i > 0 };
		struct event_stat e = ev(name, 1024);

		set_statement(&p, 101 + i, "", texts[i]);
		push(r, &p, &e, 1);
	}
	assert_non_null(o.fp = open_memstream(&buf, len));
	assert_int_equal(output_begin(&o), 0);
	for (size_t i = 0; i < ring_len(r); i++)
		assert_int_equal(output_sample(&o, ring_get(r, i)), 0);
	assert_int_equal(summary_build(r, 0, &sum), 0);
	assert_int_equal(output_end(&o, &sum), 0);
	summary_free(&sum);
	ring_free(r);
	output_release(&o);
	assert_int_equal(fclose(o.fp), 0);
	return buf;
}

static void
test_json_escapes_terminal_controls(void **state)
{
	(void)state;
	for (size_t i = 0; i < sizeof(terminal_chars) /
	    sizeof(terminal_chars[0]); i++) {
		char name[64], text[64], want[128];
		const char *texts[] = { text };
		size_t len;
		char *buf;
		struct json j;

		snprintf(name, sizeof(name), "memory/test/a%sb",
		    terminal_chars[i].utf8);
		snprintf(text, sizeof(text), "SELECT '%s'",
		    terminal_chars[i].utf8);
		buf = render_samples("json", name, texts, 1, &len);
		/* One valid line, whose name reads back as it was. */
		assert_non_null(memchr(buf, '\n', len));
		assert_ptr_equal(memchr(buf, '\n', len), buf + len - 1);
		json_line(&j, buf, len - 1);
		assert_int_equal(j.n_names, 1);
		assert_string_equal(j.names[0], name);
		snprintf(want, sizeof(want), "\"event_name\":"
		    "\"memory/test/a%sb\"", terminal_chars[i].json);
		if (strstr(buf, want) == NULL)
			fail_msg("no %s in %s", want, buf);
		snprintf(want, sizeof(want), "\"statement\":\"SELECT '%s'\"",
		    terminal_chars[i].json);
		if (strstr(buf, want) == NULL)
			fail_msg("no %s in %s", want, buf);
		if (terminal_chars[i].json[0] == '\\' &&
		    strstr(buf, terminal_chars[i].utf8) != NULL)
			fail_msg("%s written unescaped: %s",
			    terminal_chars[i].json, buf);
		free(buf);
	}
}

/* Text: what a terminal shows. */

/* Columns a line takes on a terminal: one per code point. */
static size_t
cols(const char *s, size_t n)
{
	size_t c = 0;

	for (size_t i = 0; i < n; i++)
		if (((unsigned char)s[i] & 0xc0) != 0x80)
			c++;
	return c;
}

/*
 * No byte a terminal would act on: no control character but the newline,
 * no C1 control in UTF-8, and nothing that is not UTF-8.
 */
static void
check_terminal_safe(const char *buf, size_t len)
{
	struct json j;

	for (size_t i = 0; i < len; i++) {
		unsigned char c = (unsigned char)buf[i];

		if ((c < 0x20 && c != '\n') || c == 0x7f)
			fail_msg("control byte 0x%02x at %zu", c, i);
		if (c == 0xc2 && i + 1 < len &&
		    (unsigned char)buf[i + 1] < 0xa0)
			fail_msg("C1 control at %zu", i);
	}
	/* The JSON parser's UTF-8 check, on the text as one string. */
	j.p = (const unsigned char *)buf;
	j.end = j.p + len;
	while (j.p < j.end) {
		uint32_t cp;

		if (*j.p == '\n') {
			j.p++;
			continue;
		}
		if (!j_raw_char(&j, &cp))
			fail_msg("not UTF-8 at byte %td",
			    (const char *)j.p - buf);
	}
}

/* Within each sample, the arrows are in one column of the terminal. */
static void
check_arrows(const char *buf, size_t len)
{
	const char *line = buf, *nl, *arrow;
	size_t col = 0, blocks = 0;

	for (; (nl = memchr(line, '\n', len - (size_t)(line - buf))) != NULL;
	    line = nl + 1) {
		if (strncmp(line, "## Memory usage", 15) == 0) {
			col = 0;
			blocks++;
			continue;
		}
		arrow = strstr(line, " -> ");
		if (arrow == NULL || arrow > nl) {
			col = 0;
			continue;
		}
		if (col == 0)
			col = cols(line, (size_t)(arrow - line));
		else if (cols(line, (size_t)(arrow - line)) != col)
			fail_msg("arrow out of column: %.*s",
			    (int)(nl - line), line);
	}
	assert_int_equal(blocks, 4);
}

/* Every line of the summary table takes the same width. */
static void
check_summary_table(const char *buf, size_t len)
{
	const char *line = strstr(buf, "\n event"), *nl;
	size_t width = 0, rows = 0;

	assert_non_null(line);
	for (line++; (nl = memchr(line, '\n', len - (size_t)(line - buf)));
	    line = nl + 1, rows++) {
		size_t w = cols(line, (size_t)(nl - line));

		if (strncmp(line, " peaked between samples ", 24) == 0)
			break;
		if (width == 0)
			width = w;
		else if (w != width)
			fail_msg("%zu columns, want %zu: %.*s", w, width,
			    (int)(nl - line), line);
	}
	/* The header, the 16 events seen in the window and the thread total. */
	assert_int_equal(rows, 18);
}

/*
 * Under the summary, the events that peaked between samples, largest
 * first, with how many samples proved it by the high-water mark and how
 * many by the deltas alone.
 */
static void
check_peaks_table(const char *buf, bool exact)
{
	const char *peaks;

	assert_non_null(peaks = strstr(buf, "\n peaked between samples "
	    "                high-water  deltas  "));
	assert_non_null(strstr(peaks, exact ?
	    "\n sql/user_var_entry::value                       2       0"
	    "  30000016\n"
	    " test/emoji\xf0\x9f\x98\x80?tab                                 0"
	    "       1   3000000\n"
	    " test/esc?[2J?1A                                 1       0"
	    "      6144\n"
	    " skipped ticks: 2\n" :
	    "\n sql/user_var_entry::value                       2       0"
	    "  28.61 MiB\n"
	    " test/emoji\xf0\x9f\x98\x80?tab                                 0"
	    "       1   2.86 MiB\n"
	    " test/esc?[2J?1A                                 1       0"
	    "   6.00 KiB\n"
	    " skipped ticks: 2\n"));
}

/*
 * A statement line before the first sample and wherever the statement
 * changes, on one line cut at 100 columns; then the share of each
 * statement under the summary.
 */
static void
check_statement_lines(const char *buf, size_t len)
{
	const char *summary = strstr(buf, "## Summary of ");
	const char *line, *nl;

	assert_non_null(summary);
	assert_int_equal(strncmp(buf, "## statement: SELECT a, COUNT(*) FROM t "
	    "GROUP BY a ##\n## Memory usage at time 0 ##\n", 80), 0);
	assert_int_equal(count_in(buf, "## statement: "), 3);
	assert_true(strstr(buf, "## statement: (none)") < summary);
	/* The hostile one: 100 columns then "...", on the line. */
	assert_non_null(line = strstr(buf, "## statement: SELECT 'a,\"b\"', "
	    "'caf\xc3\xa9 \xd0\xbc\xd0\xb8\xd1\x80' /* ?]0;pwned? ? */ "
	    "-- ?? "));
	line += strlen("## statement: ");
	nl = memchr(line, '\n', len - (size_t)(line - buf));
	assert_non_null(nl);
	assert_int_equal(cols(line, (size_t)(nl - line)), 100 + 3);
	assert_memory_equal(nl - 6, "... ##", 6);
	assert_true(line < summary);
	/* Under the summary, the most growth first; no text, no statement. */
	assert_non_null(line = strstr(summary, "\n## Statements by growth: 2 "
	    "in the run, peaks sampled ##\n rank "));
	assert_non_null(line = strstr(line, "\n 1 "));
	assert_non_null(line = strstr(line, "\n      statement: SELECT 'a,"));
	assert_non_null(line = strstr(line, "\n 2 "));
	assert_non_null(strstr(line, "\n      statement: SELECT a, COUNT(*) "
	    "FROM t GROUP BY a\n"));
}

#define PAD23 "                       "

static void
test_text_layout(void **state)
{
	bool exact[] = { false, true };

	(void)state;
	for (size_t i = 0; i < 2; i++) {
		size_t len;
		char *buf = render("text", exact[i], SAMPLES, &len);

		check_terminal_safe(buf, len);
		check_arrows(buf, len);
		check_summary_table(buf, len);
		check_peaks_table(buf, exact[i]);
		/* Padded to the longest name of the sample, 37 code points. */
		assert_non_null(strstr(buf, exact[i] ?
		    "\n innodb/row0sel" PAD23 " ->   25826\n" :
		    "\n innodb/row0sel" PAD23 " -> 25.22 KiB\n"));
		assert_non_null(strstr(buf, "\n sql/caf\xc3\xa9"
		    "                             " " -> "));
		assert_non_null(strstr(buf, " test/esc?[2J?1A "));
		assert_non_null(strstr(buf, " skipped ticks: 2\n"));
		/* Marked after the sample's total; the first has no deltas. */
		assert_non_null(strstr(buf, exact[i] ?
		    " -> 1300000\n ! sql/user_var_entry::value peaked at "
		    "15000008 between samples\n\n" :
		    " ->  1.24 MiB\n ! sql/user_var_entry::value peaked at "
		    "14.31 MiB between samples\n\n"));
		assert_int_equal(count_in(buf, " between samples\n"), 3);
		/* Proven by the deltas alone: at least its lower bound. */
		assert_int_equal(count_in(buf, " or more between samples "
		    "(allocated and freed between them)\n"), 1);
		/* Values right-aligned: 0 B ends where 30.00 KiB ends. */
		assert_non_null(strstr(buf, exact[i] ?
		    "\n sql/user_var_entry::value   ->       0\n" :
		    "\n sql/user_var_entry::value   ->       0 B\n"));
		assert_non_null(strstr(buf, "\n\n## gap of 2500 ms: the "
		    "connection was lost and re-established ##\n"
		    "## statement: (none) ##\n"
		    "## Memory usage at time 3000 ##\n"));
		check_statement_lines(buf, len);
		free(buf);
	}
}

static void
test_text_list_layout(void **state)
{
	size_t len;
	char *buf = render("text", false, LIST, &len);
	const char *line, *nl;

	(void)state;
	check_terminal_safe(buf, len);
	/* The cut statement: one line, its white space folded, "..." at 60. */
	assert_non_null(line = strstr(buf, "SELECT name, count(*) FROM t1"));
	nl = strchr(line, '\n');
	assert_int_equal(cols(line, (size_t)(nl - line)), 60);
	assert_memory_equal(nl - 3, "...", 3);
	assert_non_null(strstr(buf, "SELECT 'caf\xc3\xa9' /* ?]0;pwned? */\n"));
	free(buf);
}

static void
test_text_no_samples(void **state)
{
	struct output o = { .fmt = output_table_find("text") };
	struct summary sum = { .skipped = 5 };
	char *buf = NULL;
	size_t len;

	(void)state;
	assert_non_null(o.fp = open_memstream(&buf, &len));
	assert_int_equal(output_end(&o, &sum), 0);
	output_release(&o);
	assert_int_equal(fclose(o.fp), 0);
	assert_string_equal(buf, "## Summary: no samples were taken ##\n"
	    " skipped ticks: 5\n");
	free(buf);
}

/*
 * The summary says how many samples read their rows and how many carried
 * the total only, or kept an earlier reading's total too; nothing of it
 * when every sample read its rows.
 */
static void
test_text_summary_kept(void **state)
{
	struct output o = { .fmt = output_table_find("text") };
	struct summary sum = { .has_run = true, .run = { .samples = 80,
	    .kept = 70, .total_only = 68 } };
	char *buf = NULL;
	size_t len;

	(void)state;
	assert_non_null(o.fp = open_memstream(&buf, &len));
	assert_int_equal(output_end(&o, &sum), 0);
	sum.run.kept = sum.run.total_only = 0;
	assert_int_equal(output_end(&o, &sum), 0);
	output_release(&o);
	assert_int_equal(fclose(o.fp), 0);
	assert_non_null(strstr(buf, " skipped ticks: 0\n rows read: 10 "
	    "samples; the total only (the server's own count): 68; an earlier "
	    "reading's rows and total: 2\n"));
	assert_int_equal(count_in(buf, "rows read"), 1);
	free(buf);
}

/* How many times text names a statement in buf. */
static size_t
statements_named(const char *buf)
{
	size_t n = 0;

	for (const char *p = buf; (p = strstr(p, "## statement: ")) != NULL;
	    p++)
		n++;
	return n;
}

/*
 * Text names a sample's statement where it changes, and again where the
 * reader may not have seen it: after a trigger's line, in a new file
 * (SIGHUP); what it remembers is the format's own, from output to output.
 */
static void
test_text_names_statement_again(void **state)
{
	struct output o = { .fmt = output_table_find("text") };
	struct output_dump d = { .by_signal = true, .held = 1 };
	struct sample p = { .seq = 1, .wall_ms = WALL, .thread_id = 42,
	    .total_bytes = 1024 };
	struct output other = o;
	char *buf = NULL;
	size_t len;

	(void)state;
	set_statement(&p, 101, "", "SELECT 1");
	assert_non_null(o.fp = open_memstream(&buf, &len));
	assert_int_equal(output_sample(&o, &p), 0);
	assert_int_equal(output_sample(&o, &p), 0);
	assert_int_equal(fflush(o.fp), 0);
	assert_int_equal(statements_named(buf), 1);
	output_new_file(&o);
	assert_int_equal(output_sample(&o, &p), 0);
	assert_int_equal(fflush(o.fp), 0);
	assert_int_equal(statements_named(buf), 2);
	assert_int_equal(output_dump(&o, &d), 0);
	assert_int_equal(output_sample(&o, &p), 0);
	assert_int_equal(output_sample(&o, &p), 0);
	assert_int_equal(fflush(o.fp), 0);
	assert_int_equal(statements_named(buf), 3);
	/* Another output of the format has a state of its own. */
	other.fp = o.fp;
	assert_int_equal(output_sample(&other, &p), 0);
	assert_int_equal(fflush(o.fp), 0);
	assert_int_equal(statements_named(buf), 4);
	output_release(&other);
	output_release(&o);
	assert_null(o.state);
	assert_int_equal(fclose(o.fp), 0);
	free(buf);
}

/* Text of one sample, owned by the caller. */
static char *
text_of(const struct sample *p)
{
	struct output o = { .fmt = output_table_find("text"),
	    .settings = { .exact_bytes = true } };
	char *buf = NULL;
	size_t len;

	assert_non_null(o.fp = open_memstream(&buf, &len));
	assert_int_equal(output_sample(&o, p), 0);
	output_release(&o);
	assert_int_equal(fclose(o.fp), 0);
	return buf;
}

/*
 * cgroup v2's throttling in text: at memory.high (within a twentieth), or
 * over it some times so far, and the pressure; none of it on v1.
 */
static void
test_text_throttled(void **state)
{
	struct sample p = { .seq = 1, .wall_ms = WALL, .total_bytes = 1024,
	    .process = { .has_cgroup = true, .cgroup_version = 2,
	    .cgroup_usage_bytes = 990, .cgroup_limit_bytes = -1,
	    .cgroup_high_bytes = 1000, .cgroup_high_events = 7,
	    .cgroup_oom_kills = 0, .cgroup_pressure_some = 1234,
	    .cgroup_pressure_full = 5 } };
	char *buf;

	(void)state;
	buf = text_of(&p);
	assert_non_null(strstr(buf, " ~ throttled: at memory.high, 1000; "
	    "over it so far: 7\n"));
	assert_non_null(strstr(buf, " ~ waited for memory, last 10 s: some "
	    "12.34%, full 0.05%\n"));
	free(buf);
	/* Below it, once over: said, not as throttled now. */
	p.process.cgroup_usage_bytes = 500;
	p.process.cgroup_pressure_some = 0;
	buf = text_of(&p);
	assert_non_null(strstr(buf, " ~ memory.high 1000; over it so far: "
	    "7\n"));
	assert_null(strstr(buf, "waited"));
	free(buf);
	/* v1: no memory.high, no PSI. */
	p.process.cgroup_high_bytes = p.process.cgroup_high_events = -1;
	p.process.cgroup_pressure_some = p.process.cgroup_pressure_full = -1;
	buf = text_of(&p);
	assert_null(strstr(buf, " ~ "));
	free(buf);
}

/*
 * A thread's samples with the server's own count in text: the count a row
 * under the total; a sample that carries the total only says so in its
 * heading, with how long ago its rows were read when this output wrote
 * that reading, and not after a trigger's line; one kept without the
 * count (--record's slower beat) says its total is the earlier one too.
 */
static void
test_text_total_only(void **state)
{
	struct output o = { .fmt = output_table_find("text"),
	    .settings = { .exact_bytes = true } };
	struct output_dump d = { .by_signal = true, .held = 1 };
	struct event_stat e[1] = { ev("memory/sql/a", 1000) };
	struct sample p = { .seq = 1, .wall_ms = WALL, .thread_id = 42,
	    .total_bytes = 1000, .n_events = 1, .events = e,
	    .has_connection_bytes = true, .connection_bytes = 1100 };
	char *buf = NULL;
	size_t len;

	(void)state;
	assert_non_null(o.fp = open_memstream(&buf, &len));
	p.elapsed_us = 1000000;
	assert_int_equal(output_sample(&o, &p), 0);
	p.seq = 2;
	p.elapsed_us = 3250000;
	p.events_kept = true;
	p.total_bytes = 1200;
	p.connection_bytes = 1300;
	assert_int_equal(output_sample(&o, &p), 0);
	assert_int_equal(output_dump(&o, &d), 0);
	assert_int_equal(output_sample(&o, &p), 0);
	p.has_connection_bytes = false;
	assert_int_equal(output_sample(&o, &p), 0);
	assert_int_equal(fflush(o.fp), 0);
	assert_non_null(strstr(buf, "## Memory usage at time 1000 ##\n"));
	assert_non_null(strstr(buf, " (server's count)            -> 1100\n"));
	assert_non_null(strstr(buf, "## Memory usage at time 3250 (total "
	    "only; rows of 2.3 s ago) ##\n sql/a"));
	assert_non_null(strstr(buf, " (server's count)            -> 1300\n"));
	assert_non_null(strstr(buf, "## Memory usage at time 3250 (total "
	    "only; rows of an earlier sample) ##\n"));
	assert_non_null(strstr(buf, "## Memory usage at time 3250 (rows and "
	    "total of an earlier sample) ##\n"));
	assert_int_equal(count_in(buf, "(server's count)"), 3);
	output_release(&o);
	assert_int_equal(fclose(o.fp), 0);
	free(buf);
}

/* In text, what a terminal acts on shows as '?', in names and statements. */
static void
test_text_terminal_controls(void **state)
{
	(void)state;
	for (size_t i = 0; i < sizeof(terminal_chars) /
	    sizeof(terminal_chars[0]); i++) {
		char name[64], text[64], want[128];
		const char *texts[] = { text };
		size_t len;
		char *buf;

		snprintf(name, sizeof(name), "memory/test/a%sb",
		    terminal_chars[i].utf8);
		snprintf(text, sizeof(text), "SELECT '%s'",
		    terminal_chars[i].utf8);
		buf = render_samples("text", name, texts, 1, &len);
		check_terminal_safe(buf, len);
		snprintf(want, sizeof(want), "\n test/a%sb ",
		    terminal_chars[i].text);
		if (strstr(buf, want) == NULL)
			fail_msg("no \"%s\" in %s", want, buf);
		snprintf(want, sizeof(want), "## statement: SELECT '%s' ##\n",
		    terminal_chars[i].text);
		if (strstr(buf, want) == NULL)
			fail_msg("no \"%s\" in %s", want, buf);
		if (terminal_chars[i].text[0] == '?' &&
		    strstr(buf, terminal_chars[i].utf8) != NULL)
			fail_msg("%s written as it is: %s", terminal_chars[i].json,
			    buf);
		free(buf);
	}
}

/*
 * A statement on one line of text: each run of white space (line ends,
 * tabs, spaces) is one space, and none leads or trails, wherever a
 * statement is shown: above a sample, under the summary, in --list and in
 * a capture's heading.
 */
static void
test_text_folds_white_space(void **state)
{
	static const char *const texts[] = {
		"\n\t  SELECT  a,\r\n\tb FROM t \n\t ",
		" \t\vSELECT 2\f",
	};
	struct output o = { .fmt = output_table_find("text") };
	struct output_capture c = { .number = 1, .connection_id = 17,
	    .thread_id = 48, .running_s = 3, .text = "\r\n  SELECT 3\t\n" };
	const uint64_t conn = 17;
	const int64_t secs = 3;
	struct thread_list l = { 0 };
	size_t len;
	char *buf;

	(void)state;
	buf = render_samples("text", "memory/test/x", texts, 2, &len);
	assert_non_null(strstr(buf, "## statement: SELECT a, b FROM t ##\n"
	    "## Memory usage at time 0 ##\n"));
	assert_non_null(strstr(buf, "## statement: SELECT 2 ##\n"
	    "## Memory usage at time 250 ##\n"));
	assert_non_null(strstr(buf, "\n #1: SELECT a, b FROM t\n   peak "));
	assert_non_null(strstr(buf, "\n #2: SELECT 2\n   peak "));
	free(buf);

	add_thread(&l, 48, &conn, "FOREGROUND", "thread/sql/one_connection",
	    "app", "localhost", "Query", &secs, "\t executing ", 4096,
	    "\n  SELECT 1 \n");
	assert_non_null(o.fp = open_memstream(&buf, &len));
	assert_int_equal(output_threads(&o, &l), 0);
	output_release(&o);
	assert_int_equal(fclose(o.fp), 0);
	assert_non_null(strstr(buf, "\n     48    17  sql/one_connection  app   "
	    "localhost  Query       3  executing  4.00 KiB  SELECT 1\n"));
	thread_list_free(&l);
	free(buf);

	assert_non_null(o.fp = open_memstream(&buf, &len));
	assert_int_equal(output_capture(&o, &c), 0);
	output_release(&o);
	assert_int_equal(fclose(o.fp), 0);
	assert_non_null(strstr(buf, ", running 3 s: SELECT 3 ##\n"));
	free(buf);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_format_table),
		cmocka_unit_test(test_golden_text),
		cmocka_unit_test(test_statements_csv_header_once),
		cmocka_unit_test(test_golden_csv),
		cmocka_unit_test(test_golden_json),
		cmocka_unit_test(test_interned_names_write_the_same),
		cmocka_unit_test(test_unchanged_events_write_the_same),
		cmocka_unit_test(test_unchanged_sample_columns_write_the_same),
		cmocka_unit_test(test_unchanged_text_rows_write_the_same),
		cmocka_unit_test(test_text_kept),
		cmocka_unit_test(test_nothing_written),
		cmocka_unit_test(test_write_error),
		cmocka_unit_test(test_capture_heading),
		cmocka_unit_test(test_capture_heading_idle_and_between),
		cmocka_unit_test(test_capture_heading_ended),
		cmocka_unit_test(test_thread_list_free),
		cmocka_unit_test(test_csv_roundtrip),
		cmocka_unit_test(test_csv_list_roundtrip),
		cmocka_unit_test(test_json_parser_rejects),
		cmocka_unit_test(test_json_valid),
		cmocka_unit_test(test_json_list_valid),
		cmocka_unit_test(test_json_escapes_terminal_controls),
		cmocka_unit_test(test_text_layout),
		cmocka_unit_test(test_text_list_layout),
		cmocka_unit_test(test_text_no_samples),
		cmocka_unit_test(test_text_names_statement_again),
		cmocka_unit_test(test_text_throttled),
		cmocka_unit_test(test_text_total_only),
		cmocka_unit_test(test_text_summary_kept),
		cmocka_unit_test(test_text_terminal_controls),
		cmocka_unit_test(test_text_folds_white_space),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
