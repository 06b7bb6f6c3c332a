/*
 * The table of previous counters: deltas against the same event's previous
 * reading wherever it sits, counters that go backwards, unseen peaks, and
 * memory that follows the size of a reading, not the length of the run.
 */
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#include "delta.h"
#include "names.h"

static struct event_stat
ev(const char *name, int64_t cur, int64_t high, uint64_t alloc,
    uint64_t freed, uint64_t nalloc, uint64_t nfree)
{
	struct event_stat e;

	memset(&e, 0, sizeof(e));
	snprintf(e.name, sizeof(e.name), "%s", name);
	e.current_bytes = cur;
	e.current_count = (int64_t)(nalloc - nfree);
	e.high_bytes = high;
	e.alloc_bytes = alloc;
	e.free_bytes = freed;
	e.alloc_count = nalloc;
	e.free_count = nfree;
	/* What a stale delta would look like: the table must overwrite it. */
	e.delta = (struct event_delta){ 7, 7, 7, 7, true, 7 };
	return e;
}

static void
delta_is(const struct event_stat *e, uint64_t alloc, uint64_t freed,
    uint64_t nalloc, uint64_t nfree, bool unseen)
{
	if (e->delta.alloc_bytes != alloc || e->delta.free_bytes != freed ||
	    e->delta.alloc_count != nalloc || e->delta.free_count != nfree ||
	    e->delta.unseen_peak != unseen)
		fail_msg("%s: delta %ju %ju %ju %ju %d, want %ju %ju %ju %ju %d",
		    e->name, (uintmax_t)e->delta.alloc_bytes,
		    (uintmax_t)e->delta.free_bytes,
		    (uintmax_t)e->delta.alloc_count,
		    (uintmax_t)e->delta.free_count, e->delta.unseen_peak,
		    (uintmax_t)alloc, (uintmax_t)freed, (uintmax_t)nalloc,
		    (uintmax_t)nfree, unseen);
}

static void
test_first_reading_has_no_deltas(void **state)
{
	struct delta_table *t = delta_table_create();
	struct event_stat r[] = {
		ev("memory/a", 100, 500, 900, 800, 9, 8),
	};

	(void)state;
	assert_non_null(t);
	assert_int_equal(delta_table_update(t, r, 1), 0);
	delta_is(&r[0], 0, 0, 0, 0, false);
	delta_table_free(t);
	delta_table_free(NULL);
}

/*
 * Still: the same events in the same places, none moved; not after the
 * first reading, nor when one moved or stands elsewhere.
 */
static void
test_still_when_nothing_moved(void **state)
{
	struct delta_table *t = delta_table_create();
	struct event_stat r1[] = {
		ev("memory/a", 100, 500, 900, 800, 9, 8),
		ev("memory/b", 50, 60, 500, 450, 5, 4),
	};
	struct event_stat moved = ev("memory/b", 50, 60, 600, 550, 6, 5);

	(void)state;
	assert_non_null(t);
	assert_int_equal(delta_table_update(t, r1, 2), 0);
	assert_false(delta_table_still(t));
	assert_int_equal(delta_table_update(t, r1, 2), 1);
	assert_true(delta_table_still(t));
	delta_is(&r1[1], 0, 0, 0, 0, false);
	r1[1] = moved;
	assert_int_equal(delta_table_update(t, r1, 2), 1);
	assert_false(delta_table_still(t));
	assert_int_equal(delta_table_update(t, r1, 1), 1);
	assert_false(delta_table_still(t));
	delta_table_free(t);
}

/* e's counters moved by sign: 100 bytes and one block each way. */
static void
moves(struct event_stat *e, int sign)
{
	e->alloc_bytes += (uint64_t)(sign * 100);
	e->free_bytes += (uint64_t)(sign * 100);
	e->alloc_count += (uint64_t)sign;
	e->free_count += (uint64_t)sign;
}

/*
 * A reading marked unmoved from the one the table last took, in the same
 * memory, after a still update, is not compared: a lie about it shows.
 * Any other (a reading between them missed, a moved one before, other
 * memory) is.
 */
static void
test_marked_unmoved(void **state)
{
	struct delta_table *t = delta_table_create();
	struct event_stat r1[] = {
		ev("memory/a", 100, 500, 900, 800, 9, 8),
		ev("memory/b", 50, 60, 500, 450, 5, 4),
	};
	struct event_stat r2[2];

	(void)state;
	assert_non_null(t);
	assert_int_equal(delta_table_update_marked(t, r1, 2, 1, 0, false), 0);
	assert_int_equal(delta_table_update_marked(t, r1, 2, 2, 1, true), 1);
	assert_true(delta_table_still(t));
	/* Its counters moved, as the reader writes them: the delta stays. */
	moves(&r1[1], 1);
	assert_int_equal(delta_table_update_marked(t, r1, 2, 3, 2, true), 1);
	delta_is(&r1[1], 0, 0, 0, 0, false);
	/* Reading 4 missed: 5 is compared with 3, whose counters were 2's. */
	assert_int_equal(delta_table_update_marked(t, r1, 2, 5, 4, true), 1);
	delta_is(&r1[1], 100, 100, 1, 1, false);
	assert_false(delta_table_still(t));
	moves(&r1[1], -1);
	/* After a moved reading: compared, backwards is none. */
	assert_int_equal(delta_table_update_marked(t, r1, 2, 6, 5, true), 1);
	delta_is(&r1[1], 0, 0, 0, 0, false);
	assert_false(delta_table_still(t));
	assert_int_equal(delta_table_update_marked(t, r1, 2, 7, 6, false), 1);
	assert_true(delta_table_still(t));
	memcpy(r2, r1, sizeof(r2));
	r2[1].alloc_bytes += 100;
	assert_int_equal(delta_table_update_marked(t, r2, 2, 8, 7, true), 1);
	delta_is(&r2[1], 100, 0, 0, 0, false);
	delta_table_free(t);
}

/* The name's entry, as the reader sets it. */
static struct event_stat
interned(struct event_stat e)
{
	e.interned = names_intern(e.name, strlen(e.name));
	assert_non_null(e.interned);
	return e;
}

/*
 * Events with entries (names.h) are matched by them: two entries are two
 * names even where they stand in the same place; beside an event without
 * one, the names are compared.
 */
static void
test_deltas_by_entry(void **state)
{
	struct delta_table *t = delta_table_create();
	struct event_stat r1[] = {
		interned(ev("memory/a", 100, 100, 1000, 900, 10, 9)),
		interned(ev("memory/b", 50, 60, 500, 450, 5, 4)),
	};
	struct event_stat r2[] = {
		interned(ev("memory/b", 70, 70, 600, 530, 7, 5)),
		interned(ev("memory/a", 100, 100, 1100, 1000, 11, 10)),
	};
	struct event_stat r3[] = {
		ev("memory/b", 70, 70, 650, 580, 8, 6),
		ev("memory/a", 100, 100, 1200, 1100, 12, 11),
	};

	(void)state;
	assert_non_null(t);
	assert_int_equal(delta_table_update(t, r1, 2), 0);
	assert_int_equal(delta_table_update(t, r2, 2), 1);
	delta_is(&r2[0], 100, 80, 2, 1, false);
	delta_is(&r2[1], 100, 100, 1, 1, false);
	assert_int_equal(delta_table_update(t, r3, 2), 1);
	delta_is(&r3[0], 50, 50, 1, 1, false);
	delta_is(&r3[1], 100, 100, 1, 1, false);
	delta_table_free(t);
}

/* Readings in another order each time: deltas follow the name. */
static void
test_deltas_follow_the_name(void **state)
{
	struct delta_table *t = delta_table_create();
	struct event_stat r1[] = {
		ev("memory/a", 100, 100, 1000, 900, 10, 9),
		ev("memory/b", 50, 60, 500, 450, 5, 4),
	};
	struct event_stat r2[] = {
		ev("memory/b", 70, 70, 600, 530, 7, 5),
		ev("memory/a", 100, 100, 1100, 1000, 11, 10),
	};
	struct event_stat r3[] = {
		ev("memory/a", 100, 100, 1100, 1000, 11, 10),
	};
	struct event_stat r4[] = {
		ev("memory/b", 70, 70, 650, 580, 8, 6),
		ev("memory/a", 100, 100, 1130, 1030, 12, 11),
	};

	(void)state;
	assert_int_equal(delta_table_update(t, r1, 2), 0);
	assert_int_equal(delta_table_update(t, r2, 2), 1);
	delta_is(&r2[0], 100, 80, 2, 1, false);
	delta_is(&r2[1], 100, 100, 1, 1, false);
	assert_int_equal(delta_table_update(t, r3, 1), 1);
	delta_is(&r3[0], 0, 0, 0, 0, false);
	/*
	 * b was not in the previous reading: the source leaves out events
	 * never used, so it counts from zero.
	 */
	assert_int_equal(delta_table_update(t, r4, 2), 1);
	delta_is(&r4[0], 650, 580, 8, 6, false);
	delta_is(&r4[1], 30, 30, 1, 1, false);

	/* The same names in the same places: the fast path. */
	struct event_stat r5[] = {
		ev("memory/b", 70, 70, 700, 600, 9, 7),
		ev("memory/a", 100, 100, 1200, 1100, 13, 12),
	};
	/* As many events, but a new name in the second place. */
	struct event_stat r6[] = {
		ev("memory/b", 70, 70, 710, 610, 10, 8),
		ev("memory/c", 10, 10, 40, 30, 4, 3),
	};
	/* Then swapped: found by name again, through a rebuilt index. */
	struct event_stat r7[] = {
		ev("memory/c", 10, 10, 45, 35, 5, 4),
		ev("memory/b", 70, 70, 710, 610, 10, 8),
	};
	assert_int_equal(delta_table_update(t, r5, 2), 1);
	delta_is(&r5[0], 50, 20, 1, 1, false);
	delta_is(&r5[1], 70, 70, 1, 1, false);
	assert_int_equal(delta_table_update(t, r6, 2), 1);
	delta_is(&r6[0], 10, 10, 1, 1, false);
	delta_is(&r6[1], 40, 30, 4, 3, false);
	assert_int_equal(delta_table_update(t, r7, 2), 1);
	delta_is(&r7[0], 5, 5, 1, 1, false);
	delta_is(&r7[1], 0, 0, 0, 0, false);
	delta_table_free(t);
}

/* A counter that goes backwards (a TRUNCATE, say) gives 0, not 2^64 - n. */
static void
test_backwards_gives_zero(void **state)
{
	struct delta_table *t = delta_table_create();
	struct event_stat r1[] = {
		ev("memory/a", 100, 100, 1000, 900, 10, 9),
	};
	struct event_stat r2[] = {
		ev("memory/a", 100, 100, 999, 950, 9, 10),
	};

	(void)state;
	delta_table_update(t, r1, 1);
	delta_table_update(t, r2, 1);
	delta_is(&r2[0], 0, 50, 0, 1, false);
	delta_table_free(t);
}

static void
test_unseen_peaks(void **state)
{
	struct delta_table *t = delta_table_create();
	struct event_stat r1[] = {
		ev("memory/rise", 100, 1000, 5000, 4900, 5, 4),
		ev("memory/seen", 100, 1000, 5000, 4900, 5, 4),
		ev("memory/flat", 100, 1000, 5000, 4900, 5, 4),
		ev("memory/fell", 900, 1000, 5000, 4100, 5, 4),
	};
	struct event_stat r2[] = {
		/* High rose past both currents: a peak neither saw. */
		ev("memory/rise", 120, 3000, 7000, 6880, 6, 5),
		/* High rose, but to what this reading sees. */
		ev("memory/seen", 3000, 3000, 7900, 4900, 6, 4),
		/* No new high: allocations below the old peak. */
		ev("memory/flat", 100, 1000, 5900, 5800, 6, 5),
		/* No new high either, though current fell. */
		ev("memory/fell", 10, 1000, 5000, 4990, 5, 5),
		/* New to this reading, already freed: the user variable. */
		ev("memory/sql/user_var_entry::value", 0, 15000008, 15000008,
		    15000008, 1, 1),
	};

	(void)state;
	delta_table_update(t, r1, 4);
	delta_table_update(t, r2, 5);
	delta_is(&r2[0], 2000, 1980, 1, 1, true);
	delta_is(&r2[1], 2900, 0, 1, 0, false);
	delta_is(&r2[2], 900, 900, 1, 1, false);
	delta_is(&r2[3], 0, 890, 0, 1, false);
	delta_is(&r2[4], 15000008, 15000008, 1, 1, true);
	delta_table_free(t);
}

/*
 * When a reading's current bytes stand above its own high-water mark, a
 * later high up to those current bytes is memory that reading saw: no
 * unseen peak. One byte more is, when the new reading is below it too.
 */
static void
test_peak_the_previous_reading_saw(void **state)
{
	struct delta_table *t = delta_table_create();
	struct event_stat r1[] = {
		ev("memory/below", 3000, 1000, 9000, 6000, 9, 6),
		ev("memory/equal", 3000, 1000, 9000, 6000, 9, 6),
		ev("memory/above", 3000, 1000, 9000, 6000, 9, 6),
	};
	struct event_stat r2[] = {
		ev("memory/below", 100, 2999, 9000, 8900, 9, 8),
		ev("memory/equal", 100, 3000, 9000, 8900, 9, 8),
		ev("memory/above", 100, 3001, 9001, 8901, 10, 9),
	};

	(void)state;
	assert_non_null(t);
	assert_int_equal(delta_table_update(t, r1, 3), 0);
	assert_int_equal(delta_table_update(t, r2, 3), 1);
	delta_is(&r2[0], 0, 2900, 0, 2, false);
	delta_is(&r2[1], 0, 2900, 0, 2, false);
	delta_is(&r2[2], 1, 2901, 1, 3, true);
	delta_table_free(t);
}

static void
name_of(char *buf, size_t len, size_t i)
{
	snprintf(buf, len, "memory/sql/event_%zu", i);
}

/*
 * Ten thousand readings over a hundred names, each reading a different
 * part of them: the table keeps the room it took at the first.
 */
static void
test_memory_does_not_grow(void **state)
{
	enum { NAMES = 100, READINGS = 10000 };
	struct delta_table *t = delta_table_create();
	static struct event_stat r[NAMES];
	size_t cap;

	(void)state;
	for (size_t k = 0; k < READINGS; k++) {
		size_t n = 1 + k % NAMES;

		for (size_t i = 0; i < n; i++) {
			char name[64];

			name_of(name, sizeof(name), (i + k) % NAMES);
			r[i] = ev(name, 10, 10, k * 10 + i, k * 10, k, k);
		}
		assert_int_equal(delta_table_update(t, r, n), k > 0);
		if (k == 0)
			cap = delta_table_capacity(t);
		assert_int_equal(delta_table_capacity(t), cap);
	}
	assert_true(cap >= NAMES);
	delta_table_free(t);
}

/* A reading larger than any before grows the table, which keeps working. */
static void
test_grows_with_the_reading(void **state)
{
	enum { SMALL = 3, LARGE = 700 };
	struct delta_table *t = delta_table_create();
	static struct event_stat r[LARGE];
	char name[64];

	(void)state;
	for (size_t i = 0; i < SMALL; i++) {
		name_of(name, sizeof(name), i);
		r[i] = ev(name, 0, 0, 100 + i, 0, 1, 0);
	}
	delta_table_update(t, r, SMALL);
	assert_true(delta_table_capacity(t) < LARGE);
	for (size_t i = 0; i < LARGE; i++) {
		name_of(name, sizeof(name), LARGE - 1 - i);
		r[i] = ev(name, 0, 0, 1000 + i, 0, 2, 0);
	}
	assert_int_equal(delta_table_update(t, r, LARGE), 1);
	assert_true(delta_table_capacity(t) >= LARGE);
	for (size_t i = 0; i < LARGE; i++) {
		size_t id = LARGE - 1 - i;

		/* The three old names count from their reading, the rest from 0. */
		delta_is(&r[i], id < SMALL ? 1000 + i - (100 + id) : 1000 + i,
		    0, id < SMALL ? 1 : 2, 0, false);
	}
	delta_table_free(t);
}

/*
 * A pooled connection spikes again and again to the same size: the
 * high-water mark, a lifetime mark, rose once, but the deltas prove each
 * later spike, at a lower bound of the largest allocation.
 */
static void
test_deltas_prove_repeated_spikes(void **state)
{
	struct delta_table *t = delta_table_create();
	/* An earlier spike of 15 MB already set the high-water mark. */
	struct event_stat r1[] = {
		ev("memory/v", 1000, 15001000, 15001000, 15000000, 2, 1),
		ev("memory/big", 20000000, 20000000, 20000000, 0, 1, 0),
	};
	/*
	 * One more 15 MB in one allocation, freed: proven, less the 1000
	 * bytes held at both readings, which the frees may have taken.
	 */
	struct event_stat r2[] = {
		ev("memory/v", 1000, 15001000, 30001000, 30000000, 3, 2),
		/* 1 MB came and went, below the 20 MB held: nothing proven. */
		ev("memory/big", 20000000, 20000000, 21000000, 1000000, 2, 1),
	};
	/* 15 MB in 3 allocations: one was at least a third, rounded up. */
	struct event_stat r3[] = {
		ev("memory/v", 1000, 15001000, 45001000, 45000000, 6, 5),
		ev("memory/big", 20000000, 20000000, 21000000, 1000000, 2, 1),
	};
	/* Growth only, nothing freed: no spike, whatever was allocated. */
	struct event_stat r4[] = {
		ev("memory/v", 9000000, 15001000, 53999000, 45000000, 7, 5),
		ev("memory/big", 20000000, 20000000, 21000000, 1000000, 2, 1),
	};

	(void)state;
	assert_int_equal(delta_table_update(t, r1, 2), 0);
	assert_int_equal(r1[0].delta.spike_bytes, 0);
	assert_int_equal(delta_table_update(t, r2, 2), 1);
	delta_is(&r2[0], 15000000, 15000000, 1, 1, false);
	assert_int_equal(r2[0].delta.spike_bytes, 14999000);
	assert_int_equal(event_between_peak(&r2[0]), 14999000);
	assert_int_equal(r2[1].delta.spike_bytes, 0);
	assert_int_equal(delta_table_update(t, r3, 2), 1);
	assert_int_equal(r3[0].delta.spike_bytes, 4999667);
	assert_int_equal(r3[1].delta.spike_bytes, 0);
	assert_int_equal(delta_table_update(t, r4, 2), 1);
	assert_int_equal(r4[0].delta.spike_bytes, 0);
	assert_int_equal(event_between_peak(&r4[0]), 0);
	delta_table_free(t);
}

/*
 * Allocations and frees that need not have overlapped: a bound no higher
 * than what a reading shows proves nothing. Frees beyond the allocations
 * (another thread's memory) prove no more than the allocations allow.
 */
static void
test_deltas_prove_only_what_they_must(void **state)
{
	struct delta_table *t = delta_table_create();
	struct event_stat r1[] = {
		ev("memory/grow", 1000, 1000, 1000, 0, 1, 0),
		ev("memory/other", 0, 0, 0, 0, 0, 0),
	};
	/* 999,000 came and went in 10 allocations: 99,900 < 9 MB held now. */
	struct event_stat r2[] = {
		ev("memory/grow", 9000000, 9000000, 10000000, 1000000, 11, 10),
		/* 4 MB allocated, 10 MB freed: at most 4 MB came and went. */
		ev("memory/other", 0, 4000000, 4000000, 10000000, 1, 3),
	};

	(void)state;
	assert_int_equal(delta_table_update(t, r1, 2), 0);
	assert_int_equal(delta_table_update(t, r2, 2), 1);
	assert_int_equal(r2[0].delta.spike_bytes, 0);
	assert_int_equal(r2[1].delta.spike_bytes, 4000000);
	delta_table_free(t);
}

/* A risen high-water mark is the peak; the delta's bound only adds to it. */
static void
test_between_peak_prefers_the_high_water_mark(void **state)
{
	struct delta_table *t = delta_table_create();
	struct event_stat r1[] = { ev("memory/v", 0, 0, 0, 0, 0, 0) };
	struct event_stat r2[] = {
		ev("memory/v", 0, 8000000, 8000000, 8000000, 4, 4),
	};

	(void)state;
	assert_int_equal(delta_table_update(t, r1, 1), 0);
	assert_int_equal(delta_table_update(t, r2, 1), 1);
	assert_true(r2[0].delta.unseen_peak);
	assert_int_equal(r2[0].delta.spike_bytes, 2000000);
	assert_int_equal(event_between_peak(&r2[0]), 8000000);
	delta_table_free(t);
}

/* A thread with no memory in use: readings of no event, then one. */
static void
test_readings_of_no_event(void **state)
{
	struct delta_table *t = delta_table_create();
	struct event_stat none, e = ev("memory/x", 100, 100, 100, 0, 1, 0);

	(void)state;
	assert_non_null(t);
	assert_int_equal(delta_table_update(t, &none, 0), 0);
	assert_int_equal(delta_table_update(t, &none, 0), 1);
	/* An event that appears is new: all it holds was allocated since. */
	assert_int_equal(delta_table_update(t, &e, 1), 1);
	assert_int_equal(e.delta.alloc_bytes, 100);
	delta_table_free(t);
}

/*
 * An event whose counters did not move has no delta, and one of whose
 * counters alone moved is compared as any other and kept: the table
 * passes over the unchanged ones (the counters as the server might give
 * them after another thread freed some of the event's memory).
 */
static void
test_unchanged_events(void **state)
{
	struct delta_table *t = delta_table_create();
	struct event_stat r[] = {
		ev("memory/a", 100, 100, 900, 800, 9, 8),
		ev("memory/b", 100, 100, 900, 800, 9, 8),
	};

	(void)state;
	assert_int_equal(delta_table_update(t, r, 2), 0);
	/* The same counters: no delta, however stale the one before. */
	assert_int_equal(delta_table_update(t, r, 2), 1);
	delta_is(&r[0], 0, 0, 0, 0, false);
	assert_int_equal(r[0].delta.spike_bytes, 0);
	/* Only a's high-water mark rose: a peak neither reading saw. */
	r[0].high_bytes = 300;
	/* Only b's current bytes fell, and are kept for the next reading. */
	r[1].current_bytes = 50;
	assert_int_equal(delta_table_update(t, r, 2), 1);
	delta_is(&r[0], 0, 0, 0, 0, true);
	delta_is(&r[1], 0, 0, 0, 0, false);
	/*
	 * Then 200 bytes come and go in one allocation: against the 50
	 * kept, at least 150 of them were held at once, above both readings.
	 */
	r[1].alloc_bytes += 200;
	r[1].free_bytes += 200;
	r[1].alloc_count++;
	r[1].free_count++;
	assert_int_equal(delta_table_update(t, r, 2), 1);
	delta_is(&r[1], 200, 200, 1, 1, false);
	assert_int_equal(r[1].delta.spike_bytes, 150);
	delta_table_free(t);
}

/*
 * Figures near INT64_MIN and INT64_MAX (no server's, but --read may be
 * given them): the sums saturate rather than overflow (make SANITIZE=1
 * traps an overflow).
 */
static void
test_sums_saturate(void **state)
{
	struct event_stat e[3];
	struct sample s = { .has_deltas = true, .total_bytes = INT64_MAX,
	    .events = e, .n_events = 3 };

	(void)state;
	e[0] = ev("memory/a", INT64_MIN + 10, 0, 0, 0, 0, 0);
	e[1] = ev("memory/b", INT64_MIN + 10, 0, 0, 0, 0, 0);
	e[2] = ev("memory/c", INT64_MIN / 2, INT64_MAX, 0, 0, 0, 0);
	delta_sums(&s, e, 3);
	assert_int_equal(s.negative_events, 3);
	assert_true(s.negative_bytes == INT64_MIN);
	assert_true(s.between_peak_total == INT64_MAX);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_first_reading_has_no_deltas),
		cmocka_unit_test(test_still_when_nothing_moved),
		cmocka_unit_test(test_marked_unmoved),
		cmocka_unit_test(test_sums_saturate),
		cmocka_unit_test(test_readings_of_no_event),
		cmocka_unit_test(test_deltas_follow_the_name),
		cmocka_unit_test(test_deltas_by_entry),
		cmocka_unit_test(test_backwards_gives_zero),
		cmocka_unit_test(test_unchanged_events),
		cmocka_unit_test(test_unseen_peaks),
		cmocka_unit_test(test_peak_the_previous_reading_saw),
		cmocka_unit_test(test_memory_does_not_grow),
		cmocka_unit_test(test_grows_with_the_reading),
		cmocka_unit_test(test_deltas_prove_repeated_spikes),
		cmocka_unit_test(test_deltas_prove_only_what_they_must),
		cmocka_unit_test(test_between_peak_prefers_the_high_water_mark),
	};
	return cmocka_run_group_tests_name("delta", tests, NULL, NULL);
}
