/*
 * The table of event names: one entry a name, its hash and length, and
 * which names every format may write as they are.
 */
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#include "names.h"
#include "strhash.h"

static void
test_one_entry_a_name(void **state)
{
	char copy[] = "memory/sql/THD::main_mem_root";
	const struct event_name *a, *b, *c;

	(void)state;
	a = names_intern("memory/sql/THD::main_mem_root", 29);
	assert_non_null(a);
	b = names_intern(copy, strlen(copy));
	assert_ptr_equal(a, b);
	c = names_intern("memory/sql/THD::main_mem_roo", 28);
	assert_non_null(c);
	assert_ptr_not_equal(a, c);
	assert_int_equal(a->len, 29);
	assert_string_equal(a->name, copy);
	assert_int_equal(a->hash, strhash(copy, strlen(copy)));
	assert_int_equal(c->len, 28);
}

/* Enough names to grow the table more than once: each found again. */
static void
test_many_names(void **state)
{
	static const struct event_name *seen[5000];
	char name[64];

	(void)state;
	for (int i = 0; i < 5000; i++) {
		snprintf(name, sizeof(name), "memory/test/n%d", i);
		assert_non_null(seen[i] = names_intern(name, strlen(name)));
	}
	for (int i = 0; i < 5000; i++) {
		snprintf(name, sizeof(name), "memory/test/n%d", i);
		assert_ptr_equal(names_intern(name, strlen(name)), seen[i]);
		assert_string_equal(seen[i]->name, name);
	}
}

static void
test_plain(void **state)
{
	static const char *const plain[] = {
		"memory/sql/THD::main_mem_root", "memory/innodb/ha_innodb",
		"a-b", "a=b", "x y", "~", "",
	};
	static const char *const not_plain[] = {
		"say \"hi\"", "back\\slash", "line\nbreak", "tab\there",
		"del\x7f", "caf\xc3\xa9", "=1+1", "+1", "-1", "@SUM(A1)",
	};

	(void)state;
	for (size_t i = 0; i < sizeof(plain) / sizeof(plain[0]); i++) {
		assert_true(names_plain(plain[i], strlen(plain[i])));
		assert_true(names_intern(plain[i], strlen(plain[i]))->plain);
	}
	for (size_t i = 0; i < sizeof(not_plain) / sizeof(not_plain[0]);
	    i++) {
		assert_false(names_plain(not_plain[i], strlen(not_plain[i])));
		assert_false(names_intern(not_plain[i],
		    strlen(not_plain[i]))->plain);
	}
	assert_false(names_plain("a\0b", 3));
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_one_entry_a_name),
		cmocka_unit_test(test_many_names),
		cmocka_unit_test(test_plain),
	};
	return cmocka_run_group_tests_name("names", tests, NULL, NULL);
}
