/*
 * The modes' table: which row the options choose (the first whose test
 * passes), and the formats a row writes. What the rows refuse is
 * cli_check.c's, tested through the command line in test_cli.c.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include "modes.h"
#include "output.h"

/* Each row is chosen by its options, and an earlier row wins. */
static void
test_mode_of(void **state)
{
	static const struct {
		struct options o;
		enum mode_id id;
	} cases[] = {
		{ { .target = TARGET_READ }, MODE_ID_READ },
		/* --read replays, whatever else: the others refuse it. */
		{ { .target = TARGET_READ, .listen_port = 9104 }, MODE_ID_READ },
		{ { .target = TARGET_GLOBAL, .listen_port = 9104 },
		    MODE_ID_LISTEN },
		{ { .target = TARGET_GLOBAL, .record_dir = "/d" },
		    MODE_ID_RECORD },
		{ { .target = TARGET_GLOBAL, .explain = true },
		    MODE_ID_EXPLAIN },
		{ { .target = TARGET_GLOBAL, .heap_file = "x.heap" },
		    MODE_ID_HEAP_FILE },
		{ { .target = TARGET_GLOBAL, .heap = true }, MODE_ID_HEAP },
		{ { .target = TARGET_LIST, .live = true }, MODE_ID_TOP },
		{ { .target = TARGET_LIST }, MODE_ID_LIST },
		{ { .target = TARGET_WAIT }, MODE_ID_HUNT },
		{ { .target = TARGET_WAIT, .live = true }, MODE_ID_HUNT },
		{ { .target = TARGET_THREAD }, MODE_ID_CAPTURE },
		{ { .target = TARGET_GLOBAL }, MODE_ID_CAPTURE },
	};

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		const struct mode *m = mode_of(&cases[i].o);

		if (m->id != cases[i].id)
			fail_msg("case %zu: %s, wanted %s", i, m->name,
			    modes[cases[i].id].name);
	}
	/* The rows are in the order of their ids, which app's runs use. */
	for (size_t i = 0; i < N_MODES; i++)
		assert_int_equal(modes[i].id, i);
}

/* A row without formats writes any; one with them, only those. */
static void
test_mode_writes(void **state)
{
	(void)state;
	assert_true(mode_writes(&modes[MODE_ID_CAPTURE], "svg"));
	assert_true(mode_writes(&modes[MODE_ID_EXPLAIN], "json"));
	assert_false(mode_writes(&modes[MODE_ID_EXPLAIN], "csv"));
	assert_false(mode_writes(&modes[MODE_ID_EXPLAIN], "jsonl"));
	assert_true(mode_writes(&modes[MODE_ID_HEAP], "pprof"));
	assert_false(mode_writes(&modes[MODE_ID_LIST], "folded"));
	/* Only a row whose name is an option says what it refuses. */
	for (size_t i = 0; i < N_MODES; i++)
		if (!modes[i].option)
			assert_true(modes[i].alone == NULL &&
			    modes[i].takes == 0 && modes[i].elsewhere == NULL &&
			    modes[i].no_server == NULL);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_mode_of),
		cmocka_unit_test(test_mode_writes),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
