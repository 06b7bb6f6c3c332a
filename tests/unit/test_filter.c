/* SQL LIKE matching and the --events/--exclude rule. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include "filter.h"

static void
test_like(void **state)
{
	static const struct {
		const char *pattern, *s;
		bool match;
	} cases[] = {
		{ "memory/sql/%", "memory/sql/THD::main_mem_root", true },
		{ "memory/sql/%", "memory/innodb/row0sel", false },
		{ "%", "", true },
		{ "", "", true },
		{ "", "x", false },
		{ "%row0%", "memory/innodb/row0sel", true },
		{ "%row0", "memory/innodb/row0sel", false },
		{ "memory/innodb/row0se_", "memory/innodb/row0sel", true },
		{ "memory/innodb/row0se_", "memory/innodb/row0se", false },
		{ "MEMORY/SQL/%", "memory/sql/x", true },
		{ "a\\%b", "a%b", true },
		{ "a\\%b", "axb", false },
		{ "a\\_b", "a_b", true },
		{ "a\\_b", "acb", false },
		{ "caf_", "caf\xc3\xa9", true },   /* '_' is one character */
		{ "caf__", "caf\xc3\xa9", false },
		{ "%a%b%c%", "xxaxxbxxcxx", true },
		{ "%a%b%c%", "xxaxxcxxbxx", false },
		{ "%%%%%%%%%%%%%%%%%%%%b", "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa", false },
		{ "a%", "a", true },
		{ "\\", "\\", true },
	};

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		if (filter_like(cases[i].pattern, cases[i].s) != cases[i].match)
			fail_msg("LIKE '%s' on '%s': want %d", cases[i].pattern,
			    cases[i].s, cases[i].match);
}

static void
test_filter(void **state)
{
	char *inc[] = { (char *)"memory/sql/%", (char *)"memory/innodb/%" };
	char *exc[] = { (char *)"%::main_mem_root" };
	struct event_filter none = { 0 };
	struct event_filter only_inc = { inc, 2, NULL, 0 };
	struct event_filter only_exc = { NULL, 0, exc, 1 };
	struct event_filter both = { inc, 2, exc, 1 };

	(void)state;
	assert_false(filter_active(&none));
	assert_false(filter_active(NULL));
	assert_true(filter_keeps(&none, "memory/anything"));
	assert_true(filter_active(&only_inc));
	assert_true(filter_keeps(&only_inc, "memory/innodb/row0sel"));
	assert_false(filter_keeps(&only_inc, "memory/mysys/IO_CACHE"));
	assert_true(filter_keeps(&only_exc, "memory/mysys/IO_CACHE"));
	assert_false(filter_keeps(&only_exc, "memory/sql/THD::main_mem_root"));
	assert_true(filter_keeps(&both, "memory/sql/String::value"));
	/* The short name, as text shows it, matches as well. */
	char *short_inc[] = { (char *)"innodb/%" };
	struct event_filter by_short = { short_inc, 1, NULL, 0 };
	assert_true(filter_keeps(&by_short, "memory/innodb/row0sel"));
	assert_false(filter_keeps(&by_short, "memory/sql/innodb/x"));
	assert_false(filter_keeps(&both, "memory/sql/THD::main_mem_root"));
	assert_false(filter_keeps(&both, "memory/mysys/IO_CACHE"));
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_like),
		cmocka_unit_test(test_filter),
	};
	return cmocka_run_group_tests_name("filter", tests, NULL, NULL);
}
