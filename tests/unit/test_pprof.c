/*
 * The pprof encoder: a known sample is encoded, then read back with zlib
 * and protobuf-c's own unpacking, and every field a reader uses is
 * checked: the sample types, the values, the stacks, the labels, times.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include <setjmp.h>
#include <cmocka.h>

#include "fixtures.h"
#include "pprof.h"
#include "profile.pb-c.h"
#include "pprof_check.h"

static const char *
label(const Profile *p, size_t i, const char *key)
{
	const Perftools__Profiles__Sample *s = p->sample[i];

	for (size_t j = 0; j < s->n_label; j++)
		if (strcmp(str(p, s->label[j]->key), key) == 0)
			return str(p, s->label[j]->str);
	return NULL;
}

static void
test_encodes_a_sample(void **state)
{
	struct event_stat e[] = {
		ev("memory/innodb/row0sel", 25830),
		ev("memory/sql/Filesort_buffer::sort_keys", 4096),
		ev("memory/sql/odd name;with semicolon", 100),
		ev("memory/sql/caf\xc3\xa9\xff", 7),     /* UTF-8, then a bad byte */
		ev("memory/sql/freed_elsewhere", -300),  /* negative: 0 */
	};
	struct sample s = {
		.wall_ms = 1700000000123, .elapsed_us = 2500000,
		.thread_id = 42, .n_events = 5, .events = e,
	};
	struct pprof_meta m = {
		.time_ns = 1700000000123000000, .duration_ns = 2500000000,
		.thread = "42", .user = "app", .statement = "SELECT 1",
	};
	unsigned char *buf;
	size_t len;
	char stack[1024];
	Profile *p;

	(void)state;
	e[0].alloc_bytes = UINT64_MAX; /* beyond int64: the largest value */
	assert_int_equal(pprof_encode(&s, &m, &buf, &len), 0);
	p = decode(buf, len);
	free(buf);

	assert_string_equal(p->string_table[0], "");
	assert_int_equal(p->n_sample_type, 4);
	assert_string_equal(str(p, p->sample_type[0]->type), "alloc_objects");
	assert_string_equal(str(p, p->sample_type[0]->unit), "count");
	assert_string_equal(str(p, p->sample_type[1]->type), "alloc_space");
	assert_string_equal(str(p, p->sample_type[1]->unit), "bytes");
	assert_string_equal(str(p, p->sample_type[2]->type), "inuse_objects");
	assert_string_equal(str(p, p->sample_type[3]->type), "inuse_space");
	assert_string_equal(str(p, p->sample_type[3]->unit), "bytes");
	assert_string_equal(str(p, p->default_sample_type), "inuse_space");
	assert_int_equal(p->time_nanos, 1700000000123000000);
	assert_int_equal(p->duration_nanos, 2500000000);

	assert_int_equal(p->n_sample, 5);
	for (size_t i = 0; i < 5; i++) {
		assert_int_equal(p->sample[i]->n_value, 4);
		assert_string_equal(label(p, i, "thread"), "42");
		assert_string_equal(label(p, i, "user"), "app");
		assert_string_equal(label(p, i, "statement"), "SELECT 1");
	}
	stack_of(p, 0, stack, sizeof(stack));
	assert_string_equal(stack, "memory/innodb/row0sel|memory/innodb|memory");
	assert_int_equal(p->sample[0]->value[3], 25830);
	assert_int_equal(p->sample[0]->value[2], 25830 / 512);
	assert_int_equal(p->sample[0]->value[1], INT64_MAX);
	assert_int_equal(p->sample[0]->value[0], 7);
	assert_int_equal(p->sample[1]->value[3], 4096);
	assert_int_equal(p->sample[1]->value[1], 4096 + 8192);
	/* A name with odd bytes is still one frame, valid UTF-8. */
	stack_of(p, 2, stack, sizeof(stack));
	assert_string_equal(stack, "memory/sql/odd name;with semicolon|"
	    "memory/sql|memory");
	stack_of(p, 3, stack, sizeof(stack));
	assert_string_equal(stack, "memory/sql/caf\xc3\xa9\xef\xbf\xbd|"
	    "memory/sql|memory");
	/* Memory freed by another thread: 0 in use, never negative. */
	assert_int_equal(p->sample[4]->value[3], 0);
	assert_int_equal(p->sample[4]->value[2], 0);
	/* Shared frames are one function each. */
	assert_int_equal(p->n_function, 8);
	assert_int_equal(p->n_location, 8);
	perftools__profiles__profile__free_unpacked(p, NULL);
}

static void
test_root_frame_and_no_labels(void **state)
{
	struct event_stat e[] = { ev("memory/sql/THD::main_mem_root", 1000) };
	struct sample s = { .n_events = 1, .events = e };
	struct pprof_meta m = { .root = "SELECT\n  *" };
	unsigned char *buf;
	size_t len;
	char stack[1024];
	Profile *p;

	(void)state;
	assert_int_equal(pprof_encode(&s, &m, &buf, &len), 0);
	p = decode(buf, len);
	free(buf);
	stack_of(p, 0, stack, sizeof(stack));
	/* The root is the outermost caller; its newline is a space. */
	assert_string_equal(stack, "memory/sql/THD::main_mem_root|memory/sql|"
	    "memory|SELECT   *");
	assert_int_equal(p->sample[0]->n_label, 0);
	assert_int_equal(p->time_nanos, 0);
	perftools__profiles__profile__free_unpacked(p, NULL);
}

/* A sample that kept no event is an empty profile, still readable. */
static void
test_empty_sample(void **state)
{
	struct sample s = { 0 };
	struct pprof_meta m = { .thread = "7" };
	unsigned char *buf;
	size_t len;
	Profile *p;

	(void)state;
	assert_int_equal(pprof_encode(&s, &m, &buf, &len), 0);
	p = decode(buf, len);
	free(buf);
	assert_int_equal(p->n_sample, 0);
	assert_int_equal(p->n_sample_type, 4);
	perftools__profiles__profile__free_unpacked(p, NULL);
}

/*
 * Times no clock gives (a file given to --read): their nanoseconds
 * saturate rather than overflow (make SANITIZE=1 traps an overflow).
 */
static void
test_times_saturate(void **state)
{
	struct sample s = { .wall_ms = INT64_MAX / 1000, .thread_id = 7 };
	struct pprof_labels l;
	struct pprof_meta m;

	(void)state;
	pprof_meta_of(&s, NULL, &l, &m);
	assert_true(m.time_ns == INT64_MAX);
	assert_true(pprof_ns(-(INT64_MAX / 1000), 1000000) == INT64_MIN);
	assert_true(pprof_ns(1500, 1000) == 1500000);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_encodes_a_sample),
		cmocka_unit_test(test_root_frame_and_no_labels),
		cmocka_unit_test(test_empty_sample),
		cmocka_unit_test(test_times_saturate),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
