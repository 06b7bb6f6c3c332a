/*
 * --heap's profile and formats on a dump built by hand: jemalloc's frames
 * dropped, the functions' inclusive and own bytes (a recursive function
 * counted once a stack), the text's rows, the folded lines and their
 * escaping, and the pprof message read back with zlib and protobuf-c:
 * its mappings, functions, locations and values.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <setjmp.h>
#include <cmocka.h>

#include "heap_out.h"
#include "heap_pprof.h"
#include "fake_symbols.h"
#include "heap_profile.h"
#include "pprof_check.h"

#define JE "/usr/lib/x86_64-linux-gnu/libjemalloc.so.2"
#define SRV "/usr/sbin/mariadbd"
#define MIB (INT64_C(1) << 20)

/* The functions of the fake process: [start, end) named so, in file. */
static const struct fake_sym fake_syms[] = {
	{ 0x1000, 0x1200, "je_prof_backtrace", JE },
	{ 0x1200, 0x1400, "je_malloc_default", JE },
	{ 0x400000, 0x400180, "my_malloc", SRV },
	{ 0x400180, 0x400280, "update_hash(user_var_entry*, bool)", SRV },
	{ 0x400280, 0x400380, "dispatch_command", SRV },
	{ 0x400380, 0x400480, "odd;name\nwith 100%", SRV },
	{ 0x400480, 0x400580, "recurse", SRV },
};
static struct fake_syms syms = FAKE_SYMS(fake_syms);


static uint64_t pcs1[] = { 0x1010, 0x1210, 0x400010, 0x400190, 0x400290 };
static uint64_t pcs2[] = { 0x1010, 0x400020, 0x400390, 0x400290 };
static uint64_t pcs3[] = { 0x400490, 0x4004a0, 0x400490, 0x400290 };
static uint64_t pcs4[] = { 0x400010, 0x400290 };

static struct heap_stack stacks[] = {
	{ pcs2, 4, 1, 10 },
	{ pcs1, 5, 9, 144 * MIB },
	{ pcs3, 4, 2, 5 },
	{ pcs4, 2, 0, 0 },      /* holds nothing: left out */
};

static struct heap_mapping maps[] = {
	{ 0x1000, 0x2000, 0, JE, 1 },
	{ 0x400000, 0x500000, 0x1000, SRV, 1 },
	{ 0x7f0000, 0x7f1000, 0, NULL, 0 },
};

static void
build(struct heap_profile *p)
{
	struct heap_dump d = {
		.rate = 524288, .stacks = stacks, .nstacks = 4, .maps = maps,
		.nmaps = 3,
	};

	assert_int_equal(heap_profile_build(&d, fake_name, &syms, p), 0);
}

static const struct heap_function *
func(const struct heap_profile *p, const char *name)
{
	for (size_t i = 0; i < p->nfuncs; i++)
		if (strcmp(p->funcs[i].name, name) == 0)
			return &p->funcs[i];
	fail_msg("no function %s", name);
	return NULL;
}

static void
test_profile_sums(void **state)
{
	struct heap_profile p;

	(void)state;
	build(&p);
	assert_int_equal(p.nstacks, 3);
	assert_int_equal(p.total_bytes, 144 * MIB + 15);
	assert_int_equal(p.total_objects, 12);
	/* Largest first, the allocator's frames gone from its top. */
	assert_int_equal(p.stacks[0].bytes, 144 * MIB);
	assert_int_equal(p.stacks[0].depth, 3);
	assert_string_equal(p.funcs[p.locs[p.stacks[0].locs[0]].func].name,
	    "my_malloc");
	assert_int_equal(func(&p, "my_malloc")->own_bytes, 144 * MIB + 10);
	assert_int_equal(func(&p, "dispatch_command")->incl_bytes,
	    144 * MIB + 15);
	assert_int_equal(func(&p, "dispatch_command")->own_bytes, 0);
	/* Twice in its stack, counted once. */
	assert_int_equal(func(&p, "recurse")->incl_bytes, 5);
	assert_int_equal(func(&p, "recurse")->own_bytes, 5);
	/* Two addresses of my_malloc, one function. */
	assert_string_equal(p.funcs[0].name, "dispatch_command");
	for (size_t i = 0; i < p.nfuncs; i++)
		assert_null(strstr(p.funcs[i].name, "je_"));
	heap_profile_free(&p);
}

static char *
text_of(const struct heap_profile *p, size_t top, bool exact)
{
	struct obuf b = { 0 };
	const struct heap_meta m = { .pid = 4242, .dump = "/x/jeprof.4242.7.i7.heap",
	    .top = top, .exact = exact };

	heap_out_text(&b, p, &m);
	obuf_putc(&b, '\0');
	assert_int_equal(obuf_status(&b), 0);
	return b.p;
}

static void
test_text(void **state)
{
	struct heap_profile p;
	char *t, *first, *second;

	(void)state;
	build(&p);
	t = text_of(&p, 0, false);
	assert_non_null(strstr(t, "jemalloc heap profile of pid 4242: "
	    "/x/jeprof.4242.7.i7.heap\n"));
	assert_non_null(strstr(t, "live: 144.00 MiB in 12 objects, 3 stacks (a sample every "
	    "512.00 KiB allocated on average, scaled up as jeprof does)\n"));
	/* The largest stack, innermost first, its share of the total. */
	first = strstr(t, "#1    144.00 MiB  100.0%  9 objects\n"
	    "      my_malloc\n      update_hash(user_var_entry*, bool)\n"
	    "      dispatch_command\n");
	assert_non_null(first);
	second = strstr(t, "#2 ");
	assert_non_null(second);
	assert_true(second > first);
	assert_non_null(strstr(t, "  144.00 MiB  100.0%   144.00 MiB  100.0%"
	    "  my_malloc\n"));
	assert_non_null(strstr(t, "      odd;name with 100%\n"));
	free(t);
	/* --top 1 bounds both lists; --bytes writes exact bytes. */
	t = text_of(&p, 1, true);
	assert_null(strstr(t, "#2 "));
	assert_non_null(strstr(t, "The largest stacks, 1 of 3"));
	assert_non_null(strstr(t, "The largest functions, 1 of 5"));
	assert_non_null(strstr(t, "   150994959  100.0%            0    0.0%"
	    "  dispatch_command\n"));
	free(t);
	heap_profile_free(&p);
}

static void
test_folded(void **state)
{
	struct heap_profile p;
	struct obuf b = { 0 };

	(void)state;
	build(&p);
	heap_out_folded(&b, &p);
	obuf_putc(&b, '\0');
	assert_string_equal(b.p,
	    "dispatch_command;update_hash(user_var_entry*, bool);my_malloc "
	    "150994944\n"
	    "dispatch_command;odd%3Bname with 100%25;my_malloc 10\n"
	    "dispatch_command;recurse;recurse;recurse 5\n");
	obuf_free(&b);
	heap_profile_free(&p);
}

static const Perftools__Profiles__Location *
location_at(const Profile *q, uint64_t address)
{
	for (size_t i = 0; i < q->n_location; i++)
		if (q->location[i]->address == address)
			return q->location[i];
	fail_msg("no location at 0x%llx", (unsigned long long)address);
	return NULL;
}

static void
test_pprof(void **state)
{
	struct heap_profile p;
	unsigned char *buf;
	size_t len;
	Profile *q;
	char stack[512];

	(void)state;
	build(&p);
	assert_int_equal(heap_pprof_encode(&p, 1700000000000000000, &buf,
	    &len), 0);
	q = decode(buf, len);
	assert_int_equal(q->n_sample_type, 2);
	assert_string_equal(str(q, q->sample_type[0]->type), "inuse_objects");
	assert_string_equal(str(q, q->sample_type[1]->type), "inuse_space");
	assert_string_equal(str(q, q->sample_type[1]->unit), "bytes");
	assert_string_equal(str(q, q->default_sample_type), "inuse_space");
	assert_int_equal(q->period, 524288);
	assert_int_equal(q->time_nanos, 1700000000000000000);
	/* The mappings as the dump had them. */
	assert_int_equal(q->n_mapping, 3);
	assert_int_equal(q->mapping[1]->memory_start, 0x400000);
	assert_int_equal(q->mapping[1]->memory_limit, 0x500000);
	assert_int_equal(q->mapping[1]->file_offset, 0x1000);
	assert_string_equal(str(q, q->mapping[1]->filename), SRV);
	assert_true(q->mapping[1]->has_functions);
	/* A location per address, in its mapping, named. */
	assert_int_equal(q->n_location, p.nlocs);
	assert_int_equal(location_at(q, 0x400190)->mapping_id,
	    q->mapping[1]->id);
	assert_string_equal(function_name(q, location_at(q, 0x400190)->id),
	    "update_hash(user_var_entry*, bool)");
	assert_int_equal(q->n_function, 5);
	/* Samples: largest first, leaf first, objects then bytes. */
	assert_int_equal(q->n_sample, 3);
	assert_int_equal(q->sample[0]->value[0], 9);
	assert_int_equal(q->sample[0]->value[1], 144 * MIB);
	stack_of(q, 0, stack, sizeof(stack));
	assert_string_equal(stack, "my_malloc|update_hash(user_var_entry*, "
	    "bool)|dispatch_command");
	assert_int_equal(q->sample[1]->value[1], 10);
	perftools__profiles__profile__free_unpacked(q, NULL);
	free(buf);
	heap_profile_free(&p);
}

static void
test_empty(void **state)
{
	struct heap_dump d = { .rate = 0 };
	struct heap_profile p;
	unsigned char *buf;
	size_t len;
	Profile *q;
	char *t;

	(void)state;
	assert_int_equal(heap_profile_build(&d, fake_name, &syms, &p), 0);
	assert_int_equal(p.nstacks, 0);
	t = text_of(&p, 10, false);
	assert_non_null(strstr(t, "live: 0 B in 0 objects, 0 stacks\n"));
	free(t);
	assert_int_equal(heap_pprof_encode(&p, 0, &buf, &len), 0);
	q = decode(buf, len);
	assert_int_equal(q->n_sample, 0);
	perftools__profiles__profile__free_unpacked(q, NULL);
	free(buf);
	heap_profile_free(&p);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_profile_sums),
		cmocka_unit_test(test_text),
		cmocka_unit_test(test_folded),
		cmocka_unit_test(test_pprof),
		cmocka_unit_test(test_empty),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
