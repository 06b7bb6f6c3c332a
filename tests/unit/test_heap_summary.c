/*
 * A heap profile summed for --explain (heap_summary.c), on a dump built
 * by hand: a stack through my_malloc is instrumented, one through
 * libstdc++'s operator new is not and shows the server's frames from its
 * first; the parts add up to the total; the largest stacks are kept in
 * order, their names without parameters.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <setjmp.h>
#include <cmocka.h>

#include "fake_symbols.h"
#include "heap_profile.h"
#include "heap_summary.h"

#define JE "/usr/lib/x86_64-linux-gnu/libjemalloc.so.2"
#define CXX "/usr/lib/x86_64-linux-gnu/libstdc++.so.6.0.30"
#define SRV "/usr/sbin/mariadbd"
#define MIB (INT64_C(1) << 20)

static const struct fake_sym fake_syms[] = {
	{ 0x1000, 0x1200, "je_malloc_default", JE },
	{ 0x2000, 0x2200, "operator new(unsigned long)", CXX },
	{ 0x400000, 0x400180, "my_malloc", SRV },
	{ 0x400180, 0x400280, "update_hash(user_var_entry*, bool)", SRV },
	{ 0x400280, 0x400380, "dispatch_command", SRV },
	{ 0x400380, 0x400480, "std::vector<int, std::allocator<int> >::"
	    "_M_realloc_insert<int const&>(int const&)", SRV },
	{ 0x400480, 0x400580, "(anonymous namespace)::grow(int)", SRV },
	{ 0x400580, 0x400680, "ut_allocator<unsigned char, true>::"
	    "allocate(unsigned long)", SRV },
};
static struct fake_syms syms = FAKE_SYMS(fake_syms);


/* The user variables through my_malloc; a vector through new; InnoDB's. */
static uint64_t pcs1[] = { 0x1010, 0x400010, 0x400190, 0x400290 };
static uint64_t pcs2[] = { 0x1010, 0x2010, 0x400390, 0x400490, 0x400290 };
static uint64_t pcs3[] = { 0x1010, 0x400590, 0x400290 };
/* A static function allocating: it has no name, so it may be my_malloc's. */
static uint64_t pcs4[] = { 0x1010, 0x400790, 0x400290 };

static struct heap_stack stacks[] = {
	{ pcs2, 5, 3, 20 * MIB },
	{ pcs1, 4, 9, 144 * MIB },
	{ pcs3, 3, 1, 2 * MIB },
	{ pcs4, 3, 1, 1 * MIB },
};

static struct heap_mapping maps[] = {
	{ 0x1000, 0x2000, 0, JE, 1 },
	{ 0x2000, 0x3000, 0, CXX, 1 },
	{ 0x400000, 0x500000, 0x1000, SRV, 1 },
};

static void
test_summary(void **state)
{
	struct heap_dump d = {
		.rate = 524288, .stacks = stacks, .nstacks = 4, .maps = maps,
		.nmaps = 3,
	};
	struct heap_profile p;
	struct heap_summary s;

	(void)state;
	assert_int_equal(heap_profile_build(&d, fake_name, &syms, &p), 0);
	heap_summary_make(&p, &s);
	heap_profile_free(&p);
	assert_int_equal(s.state, HEAP_READ);
	assert_int_equal(s.total_bytes, 167 * MIB);
	assert_int_equal(s.instrumented_bytes, 146 * MIB);
	assert_int_equal(s.other_bytes, 20 * MIB);
	assert_int_equal(s.unnamed_bytes, 1 * MIB);
	assert_int_equal(s.nstacks, 4);
	assert_int_equal(s.ntop, 4);
	assert_int_equal(s.top[0].bytes, 144 * MIB);
	assert_int_equal(s.top[0].mark, HEAP_MARK_INSTRUMENTED);
	assert_int_equal(s.top[0].nframes, 3);
	assert_string_equal(s.top[0].frames[0], "my_malloc");
	assert_string_equal(s.top[0].frames[1], "update_hash");
	/* operator new is libstdc++'s: the server's frames come first. */
	assert_int_equal(s.top[1].mark, HEAP_MARK_NOT);
	assert_string_equal(s.top[1].frames[0], "std::vector<int, "
	    "std::allocator<int> >::_M_realloc_insert<int const&>");
	assert_string_equal(s.top[1].frames[1], "(anonymous namespace)::grow");
	assert_int_equal(s.top[2].mark, HEAP_MARK_INSTRUMENTED);
	assert_int_equal(s.top[3].mark, HEAP_MARK_UNNAMED);
	assert_string_equal(s.top[3].frames[0], "0xdead");
}

static void
test_names(void **state)
{
	char s[HEAP_SUMMARY_NAME];

	(void)state;
	heap_summary_short("Foo::operator()(int) const", s, sizeof(s));
	assert_string_equal(s, "Foo::operator()");
	heap_summary_short("mariadbd+0xee984f", s, sizeof(s));
	assert_string_equal(s, "mariadbd+0xee984f");
	assert_true(heap_summary_instrumented("my_malloc(unsigned int, "
	    "unsigned long, int)"));
	assert_true(heap_summary_instrumented("ut::malloc_withkey(ut::"
	    "PSI_memory_key_t, unsigned long)"));
	assert_true(heap_summary_instrumented("my_strdup"));
	assert_false(heap_summary_instrumented("my_malloc_size_cb_func"));
	assert_false(heap_summary_instrumented("operator new(unsigned long)"));
	assert_false(heap_summary_instrumented("malloc"));
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_summary),
		cmocka_unit_test(test_names),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
