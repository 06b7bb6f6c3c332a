/* The ring keeps the newest `window` samples and never allocates again. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "ring.h"

static void
push(struct ring *r, uint64_t seq)
{
	struct sample *s = ring_slot(r);

	s->seq = seq;
	s->n_events = 1;
	s->events[0].current_bytes = (int64_t)seq * 10;
	ring_commit(r);
}

static void
test_fills_then_wraps(void **state)
{
	struct ring *r = ring_create(3, 2);

	(void)state;
	assert_non_null(r);
	assert_int_equal(ring_len(r), 0);
	assert_null(ring_get(r, 0));
	push(r, 1);
	push(r, 2);
	assert_int_equal(ring_len(r), 2);
	assert_int_equal(ring_get(r, 0)->seq, 1);
	assert_int_equal(ring_get(r, 1)->seq, 2);
	for (uint64_t i = 3; i <= 7; i++)
		push(r, i);
	assert_int_equal(ring_len(r), 3);
	assert_int_equal(ring_window(r), 3);
	for (size_t i = 0; i < 3; i++) {
		assert_int_equal(ring_get(r, i)->seq, 5 + i);
		assert_int_equal(ring_get(r, i)->events[0].current_bytes,
		    (5 + (int64_t)i) * 10);
	}
	assert_null(ring_get(r, 3));
	ring_free(r);
}

static void
test_slots_keep_their_storage(void **state)
{
	struct ring *r = ring_create(2, 4);
	struct event_stat *first, *again;

	(void)state;
	first = ring_slot(r)->events;
	ring_commit(r);
	ring_slot(r);
	ring_commit(r);
	/* The third push reuses the first slot and its event array. */
	again = ring_slot(r)->events;
	assert_ptr_equal(first, again);
	assert_int_equal(ring_max_events(r), 4);
	ring_free(r);
}

static void
test_slot_is_cleared(void **state)
{
	struct ring *r = ring_create(1, 1);
	struct sample *s;

	(void)state;
	s = ring_slot(r);
	s->seq = 9;
	s->n_events = 1;
	ring_commit(r);
	s = ring_slot(r);
	assert_int_equal(s->seq, 0);
	assert_int_equal(s->n_events, 0);
	assert_non_null(s->events);
	ring_free(r);
}

static void
test_rejects_impossible_sizes(void **state)
{
	(void)state;
	assert_null(ring_create(0, 10));
	assert_null(ring_create(10, 0));
	assert_null(ring_create(2, SIZE_MAX / 2));
	ring_free(NULL);
}

/*
 * A slot used before comes back zeroed, its events' storage kept, and an
 * empty statement (ring.c leaves the statement's unused bytes as they
 * were); fails when a field around the statement is left unzeroed.
 */
static void
test_slot_zeroed(void **state)
{
	struct ring *r = ring_create(1, 2);
	struct sample *s, want;
	struct event_stat *events;
	size_t at = offsetof(struct sample, statement);
	size_t after = at + sizeof(s->statement);

	(void)state;
	assert_non_null(r);
	s = ring_slot(r);
	events = s->events;
	memset(s, 0xa5, sizeof(*s));
	s->events = events;
	s->statement.text_len = 3;
	ring_commit(r);
	s = ring_slot(r);
	memset(&want, 0, sizeof(want));
	want.events = events;
	assert_memory_equal(s, &want, at);
	assert_memory_equal((char *)s + after, (char *)&want + after,
	    sizeof(*s) - after);
	assert_false(statement_known(&s->statement));
	assert_int_equal(statement_text_len(&s->statement), 0);
	assert_int_equal(s->statement.thread_id, 0);
	ring_free(r);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_slot_zeroed),
		cmocka_unit_test(test_fills_then_wraps),
		cmocka_unit_test(test_slots_keep_their_storage),
		cmocka_unit_test(test_slot_is_cleared),
		cmocka_unit_test(test_rejects_impossible_sizes),
	};
	return cmocka_run_group_tests_name("ring", tests, NULL, NULL);
}
