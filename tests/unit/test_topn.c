/*
 * Top-N keeps the largest current bytes, in order, with stable ties, and
 * the events that spiked since the previous sample on top of them.
 */
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#include "topn.h"

static struct event_stat
ev(const char *name, int64_t cur, int64_t high)
{
	struct event_stat e;

	memset(&e, 0, sizeof(e));
	strcpy(e.name, name);
	e.current_bytes = cur;
	e.high_bytes = high;
	return e;
}

static void
test_keeps_largest_first(void **state)
{
	struct event_stat src[] = {
		ev("memory/a", 10, 10), ev("memory/b", 500, 500),
		ev("memory/c", -7, 3), ev("memory/d", 40, 90),
		ev("memory/e", 0, 1000),
	};
	const struct event_stat *order[5];
	size_t n;

	(void)state;
	n = topn_select(src, 5, 3, order);
	assert_int_equal(n, 3);
	assert_string_equal(order[0]->name, "memory/b");
	assert_string_equal(order[1]->name, "memory/d");
	assert_string_equal(order[2]->name, "memory/a");
	/* The source array itself is left alone. */
	assert_string_equal(src[0].name, "memory/a");
}

static void
test_zero_means_all_and_negative_last(void **state)
{
	struct event_stat src[] = {
		ev("memory/neg", -100, 0), ev("memory/zero", 0, 0),
		ev("memory/pos", 1, 1),
	};
	const struct event_stat *order[3];

	(void)state;
	assert_int_equal(topn_select(src, 3, 0, order), 3);
	assert_string_equal(order[0]->name, "memory/pos");
	assert_string_equal(order[1]->name, "memory/zero");
	assert_string_equal(order[2]->name, "memory/neg");
	assert_int_equal(topn_select(src, 3, 10, order), 3);
	assert_int_equal(topn_select(src, 0, 10, order), 0);
}

static void
test_ties_by_high_then_name(void **state)
{
	struct event_stat src[] = {
		ev("memory/z", 8, 8), ev("memory/y", 8, 9), ev("memory/x", 8, 8),
	};
	const struct event_stat *order[3];

	(void)state;
	topn_select(src, 3, 0, order);
	assert_string_equal(order[0]->name, "memory/y");
	assert_string_equal(order[1]->name, "memory/x");
	assert_string_equal(order[2]->name, "memory/z");
}

#define MiB (1024 * 1024)

static struct event_stat
spiked(const char *name, int64_t cur, int64_t high, uint64_t alloc,
    bool unseen)
{
	struct event_stat e = ev(name, cur, high);

	e.delta.alloc_bytes = alloc;
	e.delta.unseen_peak = unseen;
	return e;
}

static void
names_are(const struct event_stat **order, size_t n, const char *const *want)
{
	for (size_t i = 0; i < n; i++)
		if (strcmp(order[i]->name, want[i]) != 0)
			fail_msg("order[%zu] is %s, want %s", i,
			    order[i]->name, want[i]);
}

/* The top 2 hold 3 MiB at least: smaller allocations are no spike. */
static void
test_spike_rule(void **state)
{
	struct event_stat src[] = {
		ev("memory/big", 8 * MiB, 8 * MiB),
		ev("memory/third", 3 * MiB - 1, 3 * MiB),
		ev("memory/second", 3 * MiB, 3 * MiB),
		spiked("memory/peak", 10, 9 * MiB, 0, true),
		spiked("memory/alloc_equal", 20, 20, 3 * MiB, false),
		spiked("memory/alloc_below", 30, 30, 3 * MiB - 1, false),
		ev("memory/quiet", 40, 40),
	};
	static const char *const want[] = {
		"memory/big", "memory/second", "memory/alloc_equal",
		"memory/peak",
	};
	const struct event_stat *order[7];
	size_t k;

	(void)state;
	k = topn_select(src, 7, 2, order);
	assert_int_equal(topn_add_spikes(order, 7, k, TOPN_MAX_SPIKES), 4);
	names_are(order, 4, want);
	/* No room, or nothing outside the top: nothing more. */
	k = topn_select(src, 7, 2, order);
	assert_int_equal(topn_add_spikes(order, 7, k, 0), 2);
	k = topn_select(src, 7, 0, order);
	assert_int_equal(topn_add_spikes(order, 7, k, TOPN_MAX_SPIKES), 7);
}

/* When the top N holds little, an allocation must reach 1 MiB to count. */
static void
test_spike_floor(void **state)
{
	struct event_stat src[] = {
		ev("memory/top", 4096, 4096),
		spiked("memory/mib", 0, 0, MiB, false),
		spiked("memory/under", 0, 0, MiB - 1, false),
		spiked("memory/neg", -4096, 0, MiB - 1, false),
	};
	const struct event_stat *order[4];
	size_t k;

	(void)state;
	k = topn_select(src, 4, 1, order);
	assert_int_equal(topn_add_spikes(order, 4, k, TOPN_MAX_SPIKES), 2);
	assert_string_equal(order[1]->name, "memory/mib");
	/* A top N at a negative total does not lower the floor. */
	src[0].current_bytes = -8192;
	k = topn_select(src, 4, 1, order);
	assert_string_equal(order[0]->name, "memory/mib");
	assert_int_equal(topn_add_spikes(order, 4, k, TOPN_MAX_SPIKES), 1);
}

/* Too many spikes: the largest are kept, in order of current bytes. */
static void
test_spike_limit(void **state)
{
	enum { N = 1 + TOPN_MAX_SPIKES + 4 };
	struct event_stat src[N];
	const struct event_stat *order[N];
	size_t k, kept;

	(void)state;
	src[0] = ev("memory/top", 1000, 1000);
	for (size_t i = 1; i < N; i++) {
		char name[32];

		snprintf(name, sizeof(name), "memory/s%02zu", i);
		/* Current bytes fall as the spikes, of either kind, grow. */
		if (i % 2 == 0)
			src[i] = spiked(name, (int64_t)(N - i), (int64_t)i *
			    MiB, 0, true);
		else
			src[i] = spiked(name, (int64_t)(N - i), 0,
			    (uint64_t)i * MiB, false);
	}
	k = topn_select(src, N, 1, order);
	kept = topn_add_spikes(order, N, k, TOPN_MAX_SPIKES);
	assert_int_equal(kept, 1 + TOPN_MAX_SPIKES);
	/* The 4 smallest spikes, s01 to s04, are left out. */
	for (size_t i = 1; i < kept; i++) {
		assert_true(order[i]->current_bytes <
		    order[i - 1]->current_bytes);
		assert_true(strcmp(order[i]->name, "memory/s04") > 0);
	}
}

/*
 * The partial selection of a top k agrees with the whole order, for every
 * k, over events with many ties; and every event is still in order[] once.
 */
static void
test_top_k_is_the_head_of_the_whole_order(void **state)
{
	enum { N = 40 };
	struct event_stat src[N];
	const struct event_stat *all[N], *order[N];
	unsigned seed = 7;

	(void)state;
	for (size_t round = 0; round < 50; round++) {
		for (size_t i = 0; i < N; i++) {
			char name[32];

			seed = seed * 1103515245 + 12345;
			snprintf(name, sizeof(name), "memory/e%02zu", i);
			/* Few values, so that ties go to high, then name. */
			src[i] = ev(name, (int64_t)(seed >> 16) % 7 - 2,
			    (int64_t)(seed >> 8) % 3);
		}
		assert_int_equal(topn_select(src, N, 0, all), N);
		for (size_t k = 1; k <= N; k++) {
			bool seen[N] = { false };

			assert_int_equal(topn_select(src, N, k, order), k);
			for (size_t i = 0; i < k; i++)
				assert_ptr_equal(order[i], all[i]);
			for (size_t i = 0; i < N; i++)
				seen[order[i] - src] = true;
			for (size_t i = 0; i < N; i++)
				assert_true(seen[i]);
		}
	}
}

/* No event at all: nothing to order, and no array for it. */
static void
test_no_events(void **state)
{
	(void)state;
	assert_int_equal(topn_select(NULL, 0, 4, NULL), 0);
	assert_int_equal(topn_select(NULL, 0, 0, NULL), 0);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_keeps_largest_first),
		cmocka_unit_test(test_top_k_is_the_head_of_the_whole_order),
		cmocka_unit_test(test_no_events),
		cmocka_unit_test(test_zero_means_all_and_negative_last),
		cmocka_unit_test(test_ties_by_high_then_name),
		cmocka_unit_test(test_spike_rule),
		cmocka_unit_test(test_spike_floor),
		cmocka_unit_test(test_spike_limit),
	};
	return cmocka_run_group_tests_name("topn", tests, NULL, NULL);
}
