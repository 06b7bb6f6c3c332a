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
#include "names.h"
#include "ring.h"
#include "summary.h"

/*
 * qsort need not be stable, but glibc's is (a merge sort), so a comparison
 * that leaves a tie to the order of its input would pass every test here
 * and fail elsewhere. This binary's qsort, which summary.c links against,
 * is a correct sort that puts equal elements in the reverse of their
 * order: a missing tie-break shows. It sorts indices, with the position
 * as the last key, so the result does not depend on the library's sort.
 */
static int (*user_cmp)(const void *, const void *);
static const char *user_base;
static size_t user_size;

static int
by_user_cmp_then_later_first(const void *a, const void *b, void *unused)
{
	size_t i = *(const size_t *)a, j = *(const size_t *)b;
	int c = user_cmp(user_base + i * user_size, user_base + j * user_size);

	(void)unused;
	if (c != 0)
		return c;
	return (i < j) - (i > j);
}

void
qsort(void *base, size_t n, size_t size,
    int (*cmp)(const void *, const void *))
{
	size_t *idx;
	char *copy;

	if (n < 2)
		return;
	idx = malloc(n * sizeof(*idx));
	copy = malloc(n * size);
	if (idx == NULL || copy == NULL)
		abort();
	for (size_t i = 0; i < n; i++)
		idx[i] = i;
	user_cmp = cmp;
	user_base = base;
	user_size = size;
	qsort_r(idx, n, sizeof(*idx), by_user_cmp_then_later_first, NULL);
	memcpy(copy, base, n * size);
	for (size_t i = 0; i < n; i++)
		memcpy((char *)base + i * size, copy + idx[i] * size, size);
	free(copy);
	free(idx);
}

static struct event_stat
evh(const char *name, int64_t current, int64_t high)
{
	struct event_stat e = ev(name, current);

	e.high_bytes = high;
	return e;
}

/* Set: push_seq() gives each event its name's entry, as the reader does. */
static bool intern_names;

static void
push_seq(struct ring *r, uint64_t seq, int64_t total,
    const struct event_stat *e, size_t n)
{
	static struct event_stat named[500];
	struct sample proto = {
		.seq = seq,
		.elapsed_us = (seq - 1) * 250000 + 17,
		.wall_ms = 1795304996123LL + (int64_t)(seq - 1) * 250,
		.thread_id = 42,
		.total_bytes = total,
	};

	if (intern_names) {
		assert_true(n <= 500);
		for (size_t i = 0; i < n; i++) {
			named[i] = e[i];
			named[i].interned = names_intern(e[i].name,
			    strlen(e[i].name));
			assert_non_null(named[i].interned);
		}
		e = named;
	}
	push(r, &proto, e, n);
}

static const struct summary_event *
find(const struct summary *s, const char *name)
{
	for (size_t i = 0; i < s->n_events; i++)
		if (strcmp(s->events[i].name, name) == 0)
			return &s->events[i];
	return NULL;
}

static void
check_event(const struct summary *s, size_t i, const char *name,
    uint64_t samples, int64_t min, int64_t max, double mean, int64_t last,
    int64_t high)
{
	const struct summary_event *e;

	assert_true(i < s->n_events);
	e = &s->events[i];
	assert_string_equal(e->name, name);
	assert_int_equal(e->samples, samples);
	assert_int_equal(e->min_bytes, min);
	assert_int_equal(e->max_bytes, max);
	/* The means here are exact in binary. */
	if (e->mean_bytes != mean)
		fail_msg("%s: mean %f, want %f", name, e->mean_bytes, mean);
	assert_int_equal(e->last_bytes, last);
	assert_int_equal(e->high_bytes, high);
}

/*
 * Window 3, five samples: only samples 3 to 5 count. Events enter and leave
 * the top-N; "memory/gone" was the largest but left with sample 2.
 */
static void
test_wrapped_window(void **state)
{
	struct ring *r = ring_create(3, 4);
	struct summary s;
	const struct event_stat s1[] = {
		evh("memory/gone", 100000, 100000), evh("memory/A", 10, 20),
		evh("memory/B", 5, 5),
	};
	const struct event_stat s2[] = {
		evh("memory/gone", 90000, 100000), evh("memory/A", 30, 50000),
		evh("memory/C", 7, 7),
	};
	const struct event_stat s3[] = {
		evh("memory/B", 9, 12), evh("memory/C", 1, 8),
	};
	const struct event_stat s4[] = {
		evh("memory/A", 40, 9999), evh("memory/C", 3, 8),
		evh("memory/D", -2, 0),
	};
	const struct event_stat s5[] = {
		evh("memory/C", 11, 11), evh("memory/A", 20, 5000),
	};

	(void)state;
	assert_non_null(r);
	push_seq(r, 1, 100, s1, 3);
	push_seq(r, 2, 900, s2, 3);
	push_seq(r, 3, 50, s3, 2);
	push_seq(r, 4, 300, s4, 3);
	push_seq(r, 5, 250, s5, 2);
	assert_int_equal(ring_len(r), 3);

	assert_int_equal(summary_build(r, 7, &s), 0);
	assert_int_equal(s.n_samples, 3);
	assert_int_equal(s.first_seq, 3);
	assert_int_equal(s.last_seq, 5);
	assert_int_equal(s.first_elapsed_us, 500017);
	assert_int_equal(s.last_elapsed_us, 1000017);
	assert_int_equal(s.thread_id, 42);
	assert_int_equal(s.min_total, 50);
	assert_int_equal(s.max_total, 300);
	assert_int_equal(s.last_total, 250);
	assert_int_equal(s.skipped, 7);

	assert_int_equal(s.n_events, 4);
	assert_null(find(&s, "memory/gone"));
	/* The high-water mark of 50000 was in sample 2, out of the window. */
	check_event(&s, 0, "memory/A", 2, 20, 40, 30.0, 20, 9999);
	check_event(&s, 1, "memory/C", 3, 1, 11, 5.0, 11, 11);
	check_event(&s, 2, "memory/B", 1, 9, 9, 9.0, 9, 12);
	check_event(&s, 3, "memory/D", 1, -2, -2, -2.0, -2, 0);
	summary_free(&s);
	assert_null(s.events);
	assert_int_equal(s.n_events, 0);
	ring_free(r);
}

/*
 * Events with their names' entries are grouped by them (summary.c): the
 * same summary as by their names.
 */
static void
test_wrapped_window_by_entries(void **state)
{
	intern_names = true;
	test_wrapped_window(state);
}

/* Also when the test failed: the next ones go by names again. */
static int
stop_interning(void **state)
{
	(void)state;
	intern_names = false;
	return 0;
}

static void
test_ties_by_name(void **state)
{
	struct ring *r = ring_create(2, 4);
	struct summary s;
	const struct event_stat e[] = {
		ev("memory/b", 100), ev("memory/c", 100), ev("memory/a", 100),
		ev("memory/z", 101),
	};

	(void)state;
	push_seq(r, 1, 0, e, 4);
	assert_int_equal(summary_build(r, 0, &s), 0);
	assert_int_equal(s.n_events, 4);
	assert_string_equal(s.events[0].name, "memory/z");
	assert_string_equal(s.events[1].name, "memory/a");
	assert_string_equal(s.events[2].name, "memory/b");
	assert_string_equal(s.events[3].name, "memory/c");
	summary_free(&s);
	ring_free(r);
}

static void
test_empty_ring(void **state)
{
	struct ring *r = ring_create(4, 4);
	struct summary s;

	(void)state;
	memset(&s, 0xa5, sizeof(s));
	assert_int_equal(summary_build(r, 3, &s), 0);
	assert_int_equal(s.n_samples, 0);
	assert_int_equal(s.n_events, 0);
	assert_null(s.events);
	assert_int_equal(s.skipped, 3);
	summary_free(&s);
	ring_free(r);
}

/* Samples that kept no event still count, for the totals. */
static void
test_no_events(void **state)
{
	struct ring *r = ring_create(4, 4);
	struct summary s;

	(void)state;
	push_seq(r, 1, -5, NULL, 0);
	push_seq(r, 2, 8, NULL, 0);
	assert_int_equal(summary_build(r, 0, &s), 0);
	assert_int_equal(s.n_samples, 2);
	assert_int_equal(s.n_events, 0);
	assert_int_equal(s.min_total, -5);
	assert_int_equal(s.max_total, 8);
	assert_int_equal(s.last_total, 8);
	summary_free(&s);
	ring_free(r);
}

static void
test_extremes(void **state)
{
	struct ring *r = ring_create(4, 4);
	struct summary s;
	const struct event_stat a[] = {
		evh("memory/max", INT64_MAX, INT64_MAX),
		evh("memory/min", INT64_MIN, INT64_MIN),
	};

	(void)state;
	push_seq(r, 1, INT64_MAX, a, 2);
	push_seq(r, 2, INT64_MIN, a, 2);
	assert_int_equal(summary_build(r, 0, &s), 0);
	assert_int_equal(s.n_events, 2);
	assert_string_equal(s.events[0].name, "memory/max");
	assert_int_equal(s.events[0].max_bytes, INT64_MAX);
	assert_int_equal(s.events[0].samples, 2);
	assert_true(s.events[0].mean_bytes > 9.2e18);
	assert_int_equal(s.events[1].min_bytes, INT64_MIN);
	assert_true(s.events[1].mean_bytes < -9.2e18);
	assert_int_equal(s.min_total, INT64_MIN);
	assert_int_equal(s.max_total, INT64_MAX);
	summary_free(&s);
	ring_free(r);
}

/* The default window of 50 samples with 500 events each, after wrapping. */
static void
test_large_window(void **state)
{
	enum { WINDOW = 50, EVENTS = 500, PUSHED = 60 };
	struct ring *r = ring_create(WINDOW, EVENTS);
	static struct event_stat e[EVENTS];
	struct summary s;
	char name[32];

	(void)state;
	assert_non_null(r);
	for (uint64_t seq = 1; seq <= PUSHED; seq++) {
		/* Largest first, as topn_select() leaves them. */
		for (size_t i = 0; i < EVENTS; i++) {
			snprintf(name, sizeof(name), "memory/e%03zu",
			    EVENTS - 1 - i);
			e[i] = ev(name, (int64_t)(EVENTS - 1 - i) * 1000 +
			    (int64_t)seq);
		}
		push_seq(r, seq, 0, e, EVENTS);
	}
	assert_int_equal(summary_build(r, 0, &s), 0);
	assert_int_equal(s.n_events, EVENTS);
	for (size_t i = 0; i < EVENTS; i++) {
		int64_t base = (int64_t)(EVENTS - 1 - i) * 1000;

		snprintf(name, sizeof(name), "memory/e%03zu", EVENTS - 1 - i);
		check_event(&s, i, name, WINDOW, base + 11, base + 60,
		    (double)base + 35.5, base + 60, base + 60 + 4096);
	}
	summary_free(&s);
	ring_free(r);
}

/*
 * The same with the names' entries: more of them than summary.c groups in
 * its two passes, so they are sorted by entry.
 */
static void
test_large_window_by_entries(void **state)
{
	intern_names = true;
	test_large_window(state);
}

static struct event_stat
peak(const char *name, int64_t current, int64_t high, bool unseen)
{
	struct event_stat e = evh(name, current, high);

	e.delta.unseen_peak = unseen;
	return e;
}

/*
 * The peaks no sample saw, per event: in how many samples, and the
 * largest. A first sample has no deltas, so its flags do not count, and
 * the window drops the oldest sample's peak.
 */
static void
test_unseen_peaks(void **state)
{
	struct ring *r = ring_create(3, 4);
	struct summary s;
	const struct event_stat s1[] = {
		peak("memory/X", 10, 99999, true),
	};
	const struct event_stat s2[] = {
		peak("memory/X", 10, 88888, true),
	};
	const struct event_stat s3[] = {
		peak("memory/X", 10, 500, true), peak("memory/Z", 7, 7, false),
	};
	const struct event_stat s4[] = {
		peak("memory/Y", 20, 1000, true), peak("memory/X", 10, 300, true),
	};
	const struct event_stat s5[] = {
		peak("memory/X", 400, 400, false),
	};
	struct sample proto = { .thread_id = 42 };

	(void)state;
	proto.seq = 1;
	push(r, &proto, s1, 1);
	proto.has_deltas = true;
	proto.seq = 2;
	push(r, &proto, s2, 1);
	/* Samples 1 and 2 leave the window: 88888 does not count. */
	proto.seq = 3;
	push(r, &proto, s3, 2);
	proto.seq = 4;
	push(r, &proto, s4, 2);
	proto.seq = 5;
	push(r, &proto, s5, 1);
	assert_int_equal(summary_build(r, 0, &s), 0);
	assert_int_equal(s.n_peaks, 2);
	assert_string_equal(s.peaks[0]->name, "memory/Y");
	assert_int_equal(s.peaks[0]->unseen_peaks, 1);
	assert_int_equal(s.peaks[0]->largest_unseen_peak, 1000);
	assert_string_equal(s.peaks[1]->name, "memory/X");
	assert_int_equal(s.peaks[1]->unseen_peaks, 2);
	assert_int_equal(s.peaks[1]->largest_unseen_peak, 500);
	assert_int_equal(find(&s, "memory/Z")->unseen_peaks, 0);
	summary_free(&s);
	assert_null(s.peaks);
	assert_int_equal(s.n_peaks, 0);

	/* Only a first sample: its flags are no peaks. */
	ring_free(r);
	r = ring_create(4, 4);
	proto.seq = 1;
	proto.has_deltas = false;
	push(r, &proto, s1, 1);
	assert_int_equal(summary_build(r, 0, &s), 0);
	assert_int_equal(s.n_peaks, 0);
	assert_null(s.peaks);
	assert_int_equal(s.events[0].unseen_peaks, 0);
	summary_free(&s);
	ring_free(r);
}

/*
 * The last bytes are the newest sample's, whatever the others held: the
 * samples of one event are folded oldest first.
 */
static void
test_last_is_the_newest(void **state)
{
	struct ring *r = ring_create(4, 2);
	struct summary s;
	const int64_t bytes[] = { 40, 10, 30, 20 };

	(void)state;
	for (size_t i = 0; i < 4; i++) {
		const struct event_stat e[] = {
			ev("memory/other", 1), ev("memory/x", bytes[i]),
		};

		push_seq(r, i + 1, bytes[i], e, 2);
	}
	assert_int_equal(summary_build(r, 0, &s), 0);
	check_event(&s, 0, "memory/x", 4, 10, 40, 25.0, 20, 40 + 4096);
	assert_int_equal(s.last_total, 20);
	summary_free(&s);
	ring_free(r);
}

/* Peaks of one size: the name decides, not the order of the events. */
static void
test_peak_ties_by_name(void **state)
{
	struct ring *r = ring_create(2, 2);
	struct summary s;
	const struct event_stat e1[] = {
		peak("memory/a", 900, 900, false), peak("memory/b", 100, 100, false),
	};
	const struct event_stat e2[] = {
		peak("memory/a", 900, 5000, true), peak("memory/b", 100, 5000, true),
	};
	struct sample proto = { .seq = 1, .thread_id = 42 };

	(void)state;
	push(r, &proto, e1, 2);
	proto.seq = 2;
	proto.has_deltas = true;
	push(r, &proto, e2, 2);
	assert_int_equal(summary_build(r, 0, &s), 0);
	assert_string_equal(s.events[0].name, "memory/a");
	assert_int_equal(s.n_peaks, 2);
	assert_string_equal(s.peaks[0]->name, "memory/a");
	assert_string_equal(s.peaks[1]->name, "memory/b");
	summary_free(&s);
	ring_free(r);
}

/* Pushes a sample of that statement (id 0: none) with its events. */
static void
push_stmt(struct ring *r, uint64_t seq, uint64_t id, int64_t total,
    const struct event_stat *e, size_t n)
{
	struct sample proto = { .seq = seq, .thread_id = 42,
	    .total_bytes = total,
	    .statement = { .thread_id = 42, .has_id = id != 0, .id = id } };

	if (id != 0)
		snprintf(proto.statement.text, sizeof(proto.statement.text),
		    "SELECT %ju", (uintmax_t)id);
	push(r, &proto, e, n);
}

static void
check_top(const struct summary_statement *st, size_t i, const char *name,
    int64_t bytes)
{
	assert_true(i < st->n_top);
	assert_string_equal(st->top[i].name, name);
	assert_int_equal(st->top[i].max_bytes, bytes);
}

/*
 * Window 6 of 7 samples: statement 1 (its first sample out of the window),
 * none, statement 2, then statement 1 run again... as statement 3. Each
 * run: its samples, peak and final totals, and its 3 largest events by
 * their largest current bytes in the run.
 */
static void
test_statements(void **state)
{
	struct ring *r = ring_create(6, 4);
	struct summary s;
	const struct event_stat a[] = {
		ev("memory/a", 500), ev("memory/b", 400), ev("memory/c", 300),
		ev("memory/d", 200),
	};
	const struct event_stat b[] = {
		ev("memory/d", 900), ev("memory/a", 100),
	};
	const struct event_stat c[] = {
		ev("memory/x", 7), ev("memory/y", 7), ev("memory/w", 7),
		ev("memory/z", 8),
	};
	const struct statement *st1;

	(void)state;
	push_stmt(r, 1, 1, 99999, a, 4);  /* leaves the window */
	push_stmt(r, 2, 1, 1000, a, 4);
	push_stmt(r, 3, 1, 3000, b, 2);
	push_stmt(r, 4, 0, 10, NULL, 0);
	push_stmt(r, 5, 2, 50, c, 4);
	push_stmt(r, 6, 3, 70, b, 1);
	push_stmt(r, 7, 3, 60, a + 3, 1);
	assert_int_equal(summary_build(r, 0, &s), 0);
	assert_int_equal(s.n_statements, 4);

	st1 = s.statements[0].statement;
	assert_int_equal(st1->id, 1);
	assert_ptr_equal(st1, &ring_get(r, 0)->statement);
	assert_int_equal(s.statements[0].samples, 2);
	assert_int_equal(s.statements[0].first_seq, 2);
	assert_int_equal(s.statements[0].last_seq, 3);
	assert_int_equal(s.statements[0].peak_total, 3000);
	assert_int_equal(s.statements[0].final_total, 3000);
	assert_int_equal(s.statements[0].n_top, 3);
	check_top(&s.statements[0], 0, "memory/d", 900);
	check_top(&s.statements[0], 1, "memory/a", 500);
	check_top(&s.statements[0], 2, "memory/b", 400);

	assert_false(statement_known(s.statements[1].statement));
	assert_int_equal(s.statements[1].first_seq, 4);
	assert_int_equal(s.statements[1].last_seq, 4);
	assert_int_equal(s.statements[1].n_top, 0);
	assert_int_equal(s.statements[1].peak_total, 10);

	/* Ties: the name decides, so w, x then y; z has more. */
	assert_int_equal(s.statements[2].n_top, 3);
	check_top(&s.statements[2], 0, "memory/z", 8);
	check_top(&s.statements[2], 1, "memory/w", 7);
	check_top(&s.statements[2], 2, "memory/x", 7);

	assert_int_equal(s.statements[3].statement->id, 3);
	assert_int_equal(s.statements[3].samples, 2);
	assert_int_equal(s.statements[3].peak_total, 70);
	assert_int_equal(s.statements[3].final_total, 60);
	assert_int_equal(s.statements[3].n_top, 1);
	check_top(&s.statements[3], 0, "memory/d", 900);
	summary_free(&s);
	assert_null(s.statements);
	assert_int_equal(s.n_statements, 0);
	ring_free(r);

	/* One statement all along: one run. */
	r = ring_create(4, 4);
	push_stmt(r, 1, 5, 1, NULL, 0);
	push_stmt(r, 2, 5, 2, NULL, 0);
	assert_int_equal(summary_build(r, 0, &s), 0);
	assert_int_equal(s.n_statements, 1);
	assert_int_equal(s.statements[0].samples, 2);
	summary_free(&s);
	ring_free(r);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_wrapped_window),
		cmocka_unit_test_teardown(test_wrapped_window_by_entries,
		    stop_interning),
		cmocka_unit_test(test_ties_by_name),
		cmocka_unit_test(test_empty_ring),
		cmocka_unit_test(test_no_events),
		cmocka_unit_test(test_extremes),
		cmocka_unit_test(test_large_window),
		cmocka_unit_test_teardown(test_large_window_by_entries,
		    stop_interning),
		cmocka_unit_test(test_unseen_peaks),
		cmocka_unit_test(test_last_is_the_newest),
		cmocka_unit_test(test_peak_ties_by_name),
		cmocka_unit_test(test_statements),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
