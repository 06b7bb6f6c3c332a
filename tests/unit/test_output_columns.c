/*
 * The column table: a column that names a field of struct event_stat
 * (its at, which JSON and CSV load in place of calling its getter) must
 * say what its getter says, value and null alike, with and without
 * deltas; and every field the getters of the others read stays theirs.
 */
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#include "output.h"
#include "output_format.h"
#include "sample.h"

/* An event whose every counter differs from the others, and from 0. */
static struct event_stat
distinct_event(void)
{
	struct event_stat e = { .name = "memory/sql/x" };

	e.current_bytes = -11;
	e.current_count = 12;
	e.high_bytes = 13;
	e.alloc_bytes = 14;
	e.free_bytes = 15;
	e.alloc_count = 16;
	e.free_count = 17;
	e.delta.alloc_bytes = 18;
	e.delta.free_bytes = 19;
	e.delta.alloc_count = 20;
	e.delta.free_count = 21;
	e.delta.unseen_peak = true;
	e.delta.spike_bytes = 22;
	return e;
}

static void
test_loads_agree_with_getters(void **state)
{
	struct event_stat e = distinct_event();
	struct sample s = { .seq = 1, .events = &e, .n_events = 1 };
	struct output o = { 0 };
	size_t bound = 0;

	(void)state;
	for (int deltas = 0; deltas < 2; deltas++) {
		struct sample_row r = { .o = &o, .s = &s, .e = &e };

		s.has_deltas = deltas;
		for (size_t j = 0; j < SAMPLE_COLUMNS; j++) {
			const struct sample_column *c = &sample_columns[j];
			union column_value v;
			bool known;

			if (c->at == 0)
				continue;
			bound++;
			assert_int_equal(c->level, COLUMN_EVENT);
			assert_true(c->kind == COLUMN_INT ||
			    c->kind == COLUMN_UINT);
			assert_true(c->at - 1 + sizeof(uint64_t) <=
			    sizeof(struct event_stat));
			known = c->get(&r, &v);
			assert_int_equal(known, deltas || !c->deltas);
			assert_int_equal(sample_column_load(c, &e), v.u);
		}
	}
	/* The eleven counters of an event: seven read, four deltas. */
	assert_int_equal(bound, 2 * 11);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_loads_agree_with_getters),
	};

	return cmocka_run_group_tests_name("output_columns", tests, NULL,
	    NULL);
}
