/*
 * --explain's answer (explain_model.c) from readings made here, and its
 * text and JSON (explain_out.c): the layers add up, each cause gets its
 * line of advice past its threshold and not below, a process that cannot
 * be read leaves what performance_schema counts, and the bounds say which
 * is the tighter.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <setjmp.h>
#include <cmocka.h>
#include <jansson.h>

#include "explain_model.h"
#include "explain_out.h"

#define MIB ((int64_t)1 << 20)

/* A glibc server: 400 MiB resident, 200 MiB counted, all instruments on. */
static struct explain_reading
reading(void)
{
	struct explain_reading r = {
		.server_version = "10.11.19-MariaDB",
		.wall_ms = 1795000000000,
		.pid = 4242,
		.has_process = true,
		.has_counted = true,
		.has_estimate = true,
		.has_measured = true,
	};

	r.proc = (struct process_layers){
		.known = true, .rss = 400 * MIB, .anon = 370 * MIB,
		.file = 25 * MIB, .shmem = 5 * MIB, .anon_huge = 0, .swap = 0,
		.allocator = ALLOC_GLIBC, .arenas = 4, .arena_resident = 10 * MIB,
		.brk_heap_resident = 2 * MIB,
	};
	strcpy(r.proc.allocator_lib, "/usr/lib/x86_64-linux-gnu/libc.so.6");
	r.counted = (struct counted_layers){
		.buffer_pool = 128 * MIB, .innodb_rest = 2 * MIB,
		.pfs_own = 60 * MIB, .temp_tables = 0, .rest = 10 * MIB,
		.total = 200 * MIB, .instruments = 300,
	};
	estimate_clear(&r.est);
	r.est.global_buffers = 300 * MIB;
	r.est.per_connection = 3 * MIB;
	r.est.max_connections = 100;
	r.est.total = 600 * MIB;
	r.meas = (struct measured_connections){
		.connections = 5, .sum_bytes = 5 * MIB, .largest_bytes = 2 * MIB,
		.sum_peaks = 8 * MIB, .largest_peak = 1 * MIB,
		.largest_statement_peak = -1,
	};
	return r;
}

static int64_t
bytes_of(const struct explain *e, const char *key)
{
	const struct explain_layer *l = explain_find(e, key);

	assert_non_null(l);
	return l->bytes;
}

/* Whether some advice line holds needle. */
static bool
advised(const struct explain *e, const char *needle)
{
	for (size_t i = 0; i < e->advices; i++)
		if (strstr(e->advice[i], needle) != NULL)
			return true;
	return false;
}

static void
test_layers_add_up(void **state)
{
	struct explain_reading r = reading();
	struct explain e;

	(void)state;
	explain_work(&r, &e);
	assert_int_equal(bytes_of(&e, "resident"), 400 * MIB);
	assert_int_equal(bytes_of(&e, "file_shared") + bytes_of(&e, "anonymous"),
	    bytes_of(&e, "resident"));
	assert_int_equal(bytes_of(&e, "counted") + bytes_of(&e, "not_counted"),
	    bytes_of(&e, "anonymous"));
	assert_int_equal(bytes_of(&e, "buffer_pool") + bytes_of(&e, "innodb") +
	    bytes_of(&e, "performance_schema") +
	    bytes_of(&e, "temporary_tables") + bytes_of(&e, "counted_rest"),
	    bytes_of(&e, "counted"));
	assert_non_null(strstr(explain_find(&e, "not_counted")->name,
	    "no instrument covers"));
	assert_int_equal(explain_find(&e, "counted")->depth, 2);
	assert_int_equal(explain_find(&e, "buffer_pool")->depth, 3);
	/* Below every threshold: no advice, no note. */
	assert_int_equal(e.advices, 0);
	assert_int_equal(e.notes_n, 0);
	assert_non_null(strstr(e.allocator, "glibc malloc, 4 arenas"));
	assert_non_null(strstr(e.allocator, "12.00 MiB"));
}

static void
test_instruments_off(void **state)
{
	struct explain_reading r = reading();
	struct explain e;

	(void)state;
	r.counted.instruments_off = 25;
	strcpy(r.counted.off_families, "sql");
	explain_work(&r, &e);
	assert_non_null(strstr(explain_find(&e, "not_counted")->name,
	    "25 of 300 memory instruments switched off (sql)"));
	assert_true(advised(&e, "memory instruments are off (25 of 300: sql)"));
	/* Every family of MySQL's off: the name whole, its end kept. */
	strcpy(r.counted.off_families, "archive, blackhole, csv, federated, "
	    "innodb, keyring, memory, myisam, mysql_server, mysqld_openssl, "
	    "mysys, partition, performance_schema, refcache, rpl, sql, "
	    "temptable, vio, x");
	explain_work(&r, &e);
	assert_non_null(strstr(explain_find(&e, "not_counted")->name,
	    "temptable, vio, x), and what no instrument covers"));
	assert_true(advised(&e, "SET ENABLED = 'YES'"));
}

static void
test_arenas(void **state)
{
	struct explain_reading r = reading();
	struct explain e;

	(void)state;
	r.proc.arenas = EXPLAIN_ARENAS;
	r.proc.arena_resident = EXPLAIN_ARENA_BYTES - r.proc.brk_heap_resident;
	explain_work(&r, &e);
	assert_true(advised(&e, "glibc malloc with 8 arenas holds 64.00 MiB"));
	assert_true(advised(&e, "MALLOC_ARENA_MAX=4"));
	/* One arena fewer, or a byte less: none. */
	r.proc.arenas = EXPLAIN_ARENAS - 1;
	explain_work(&r, &e);
	assert_false(advised(&e, "MALLOC_ARENA_MAX"));
	r.proc.arenas = EXPLAIN_ARENAS;
	r.proc.arena_resident--;
	explain_work(&r, &e);
	assert_false(advised(&e, "MALLOC_ARENA_MAX"));
	/* jemalloc has no arenas of glibc's. */
	r.proc.arena_resident = 500 * MIB;
	r.proc.allocator = ALLOC_JEMALLOC;
	explain_work(&r, &e);
	assert_false(advised(&e, "MALLOC_ARENA_MAX"));
	assert_non_null(strstr(e.allocator, "jemalloc"));
}

/* A large gap with every instrument on, and few arenas: the allocator. */
static void
test_large_gap(void **state)
{
	struct explain_reading r = reading();
	struct explain e;

	(void)state;
	r.proc.anon = 1024 * MIB;
	r.proc.rss = r.proc.anon + 30 * MIB;
	explain_work(&r, &e);
	assert_int_equal(bytes_of(&e, "not_counted"), 824 * MIB);
	assert_true(advised(&e, "824.00 MiB (80% of the anonymous memory)"));
	r.counted.instruments_off = 1;
	explain_work(&r, &e);
	assert_false(advised(&e, "(80% of the anonymous memory)"));
}

static void
test_other_causes(void **state)
{
	struct explain_reading r = reading();
	struct explain e;

	(void)state;
	r.counted.pfs_own = 100 * MIB;   /* 25% of 400, under 128 MiB */
	explain_work(&r, &e);
	assert_false(advised(&e, "performance_schema's own tables"));
	r.counted.pfs_own = 130 * MIB;
	explain_work(&r, &e);
	assert_true(advised(&e, "performance_schema's own tables hold "
	    "130.00 MiB (33% of the resident memory)"));
	r.proc.anon_huge = EXPLAIN_THP_BYTES;
	r.proc.swap = EXPLAIN_THP_BYTES;
	explain_work(&r, &e);
	assert_true(advised(&e, "transparent huge pages back 64.00 MiB"));
	assert_true(advised(&e, "64.00 MiB of the server is swapped out"));
	assert_int_equal(bytes_of(&e, "huge_pages"), 64 * MIB);
	assert_int_equal(bytes_of(&e, "swap"), 64 * MIB);
	r.cg.has_cgroup = true;
	r.cg.cgroup_version = 1;
	r.cg.cgroup_usage_bytes = 79 * MIB;
	r.cg.cgroup_limit_bytes = 100 * MIB;
	strcpy(r.cgroup_dir, "/sys/fs/cgroup/memory/mysql");
	explain_work(&r, &e);
	assert_false(advised(&e, "of its limit"));
	assert_non_null(strstr(e.cgroup, "usage 79.00 MiB of its limit "
	    "100.00 MiB (79%)"));
	r.cg.cgroup_usage_bytes = 80 * MIB;
	explain_work(&r, &e);
	assert_true(advised(&e, "the cgroup's usage 80.00 MiB is 80% of its "
	    "limit 100.00 MiB"));
	r.cg.cgroup_limit_bytes = -1;
	explain_work(&r, &e);
	assert_non_null(strstr(e.cgroup, "no limit set, 0 OOM kills"));
	/* A v1 kernel before 4.13 counts none: left out, not "-1". */
	r.cg.cgroup_oom_kills = -1;
	explain_work(&r, &e);
	assert_null(strstr(e.cgroup, "OOM kills"));
	assert_null(strstr(e.cgroup, "-1"));
}

/* MariaDB counts a MEMORY table's blocks as it reserves them. */
static void
test_counted_past_anonymous(void **state)
{
	struct explain_reading r = reading();
	struct explain e;

	(void)state;
	r.counted.temp_tables = 500 * MIB;
	r.counted.total += 500 * MIB;
	explain_work(&r, &e);
	assert_int_equal(bytes_of(&e, "not_counted"), 0);
	assert_int_equal(e.notes_n, 1);
	assert_non_null(strstr(e.notes[0], "performance_schema counts "
	    "330.00 MiB more than the anonymous"));
}

static void
test_process_unread(void **state)
{
	struct explain_reading r = reading();
	struct explain e;

	(void)state;
	r.has_process = false;
	strcpy(r.process_why, "no process 4242 under /proc: it ended, or runs "
	    "in another pid namespace");
	explain_work(&r, &e);
	assert_null(explain_find(&e, "resident"));
	assert_null(explain_find(&e, "not_counted"));
	assert_int_equal(explain_find(&e, "counted")->depth, 0);
	assert_int_equal(explain_find(&e, "buffer_pool")->depth, 1);
	assert_int_equal(e.notes_n, 1);
	assert_non_null(strstr(e.notes[0], "another pid namespace; only what "
	    "performance_schema counts"));
	assert_string_equal(e.allocator, "");
	/* Its maps alone unread: the status's layers, no allocator. */
	r = reading();
	r.proc.known = false;
	strcpy(r.proc.why, "cannot read /proc/4242/smaps: Permission denied");
	explain_work(&r, &e);
	assert_non_null(explain_find(&e, "resident"));
	assert_non_null(strstr(e.allocator, "not known: its maps were not "
	    "read (cannot read /proc/4242/smaps"));
}

static void
test_bounds(void **state)
{
	struct explain_reading r = reading();
	struct explain e;

	(void)state;
	explain_work(&r, &e);
	/* 300 MiB + 100 x 1 MiB against 600 MiB. */
	assert_int_equal(e.measured_bound, 400 * MIB);
	assert_non_null(strstr(e.bounds, "the measured bound is the tighter, "
	    "1.5x below the estimate"));
	r.meas.largest_peak = 10 * MIB;
	explain_work(&r, &e);
	assert_int_equal(e.measured_bound, 1300 * MIB);
	assert_non_null(strstr(e.bounds, "2.2x above the estimate"));
	/* No peaks kept (MariaDB without PROCESS): what is held now bounds nothing. */
	r.meas.largest_peak = -1;
	explain_work(&r, &e);
	assert_int_equal(e.measured_bound, -1);
	assert_string_equal(e.bounds, "");
	/* No peak above 0: no bound. */
	r.meas.largest_peak = 0;
	explain_work(&r, &e);
	assert_int_equal(e.measured_bound, -1);
}

static void
test_json(void **state)
{
	struct explain_reading r = reading();
	struct explain e;
	struct obuf b = { 0 };
	json_error_t err;
	json_t *j, *l;

	(void)state;
	r.counted.instruments_off = 3;
	strcpy(r.counted.off_families, "sql\n\"x\"");
	explain_work(&r, &e);
	explain_json(&b, &r, &e);
	obuf_putc(&b, '\0');
	j = json_loads(b.p, 0, &err);
	assert_non_null(j);
	assert_int_equal(json_integer_value(json_object_get(j, "pid")), 4242);
	assert_string_equal(json_string_value(json_object_get(j, "type")),
	    "explain");
	l = json_object_get(j, "layers");
	assert_int_equal(json_array_size(l), e.layers);
	assert_string_equal(json_string_value(json_object_get(
	    json_array_get(l, 0), "layer")), "resident");
	assert_int_equal(json_integer_value(json_object_get(
	    json_array_get(l, 0), "bytes")), 400 * MIB);
	assert_string_equal(json_string_value(json_object_get(json_object_get(
	    j, "instruments"), "off_families")), "sql\n\"x\"");
	assert_string_equal(json_string_value(json_object_get(json_object_get(
	    j, "allocator"), "name")), "glibc");
	assert_int_equal(json_integer_value(json_object_get(json_object_get(
	    j, "estimate"), "per_connection_bytes")), 3 * MIB);
	assert_true(json_is_null(json_object_get(json_object_get(j,
	    "measured"), "largest_statement")));
	assert_true(json_is_null(json_object_get(j, "cgroup")));
	assert_int_equal(json_array_size(json_object_get(j, "advice")),
	    e.advices);
	json_decref(j);
	obuf_free(&b);
}

static void
test_text(void **state)
{
	struct explain_reading r = reading();
	struct explain e;
	struct obuf b = { 0 };

	(void)state;
	r.proc.arenas = 9;
	r.proc.arena_resident = 100 * MIB;
	/* A statement's text from the server reaches no terminal raw. */
	r.meas.largest_statement_peak = 50 * MIB;
	strcpy(r.meas.largest_statement, "SELECT '\033[2J'");
	explain_work(&r, &e);
	explain_text(&b, &r, &e, false);
	obuf_putc(&b, '\0');
	assert_non_null(strstr(b.p, "## The server's memory in layers: "
	    "10.11.19-MariaDB, pid 4242, at "));
	assert_non_null(strstr(b.p, "\n  400.00 MiB  resident  "
	    "(/proc/4242/status VmRSS)\n"));
	assert_non_null(strstr(b.p, "\n  128.00 MiB        the InnoDB buffer "
	    "pool  (memory/innodb/buf_buf_pool)\n"));
	assert_non_null(strstr(b.p, "\n  600.00 MiB  MySQLTuner's estimate: "
	    "global buffers 300.00 MiB + max_connections 100 x 3.00 MiB a "
	    "connection\n"));
	assert_non_null(strstr(b.p, "\n - glibc malloc with 9 arenas holds "
	    "102.00 MiB resident"));
	assert_null(strchr(b.p, '\033'));
	obuf_free(&b);
	/* --bytes: whole numbers. */
	explain_text(&b, &r, &e, true);
	obuf_putc(&b, '\0');
	assert_non_null(strstr(b.p, "            419430400  resident"));
	obuf_free(&b);
}

/* A profile read: 300 MiB live, the user variables' stack the largest. */
static void
profiled(struct explain_reading *r)
{
	struct heap_summary *h = &r->heap;

	h->state = HEAP_READ;
	strcpy(h->dump, "/var/lib/mysql-heap/jeprof.4242.9.i9.heap");
	h->age_s = 12;
	h->total_bytes = 300 * MIB;
	h->instrumented_bytes = 250 * MIB;
	h->other_bytes = 40 * MIB;
	h->unnamed_bytes = 10 * MIB;
	h->nstacks = 40;
	h->ntop = 3;
	h->top[0] = (struct heap_summary_stack){ .bytes = 144 * MIB,
	    .mark = HEAP_MARK_INSTRUMENTED, .nframes = 2,
	    .frames = { "my_malloc", "update_hash" } };
	h->top[1] = (struct heap_summary_stack){ .bytes = 20 * MIB,
	    .nframes = 1, .frames = { "Foo::\033grow" } };
	h->top[2] = (struct heap_summary_stack){ .bytes = 10 * MIB,
	    .mark = HEAP_MARK_UNNAMED, .nframes = 1,
	    .frames = { "mysqld+0x277cfc8" } };
}

static void
test_heap_text(void **state)
{
	struct explain_reading r = reading();
	struct explain e;
	struct obuf b = { 0 };

	(void)state;
	profiled(&r);
	explain_work(&r, &e);
	/* 72 MiB counted outside the pool, 250 MiB instrumented. */
	assert_non_null(strstr(e.heap, "counts 72.00 MiB outside the buffer "
	    "pool"));
	assert_non_null(strstr(e.heap, "hold 250.00 MiB, 178.00 MiB more: "
	    "instrumented code that no instrument counts"));
	explain_text(&b, &r, &e, false);
	obuf_putc(&b, '\0');
	assert_non_null(strstr(b.p, "\n  300.00 MiB  heap profile (jemalloc, "
	    "dump 12 s old): live, 81% of the anonymous pages  "
	    "(/var/lib/mysql-heap/jeprof.4242.9.i9.heap)\n"
	    "  250.00 MiB    through the instrumented calls (my_malloc and "
	    "kin): counted while their instrument is on\n"
	    "   40.00 MiB    around them (malloc, new, libraries): counted by "
	    "no instrument\n"
	    "   10.00 MiB    allocated by a call with no name (a static "
	    "function): either\n the largest stacks, 3 of 40, innermost frame "
	    "first:\n  144.00 MiB  instrumented      my_malloc < update_hash\n"
	    "   20.00 MiB  not instrumented  Foo::"));
	assert_non_null(strstr(b.p, "\n   10.00 MiB  unnamed call      "
	    "mysqld+0x277cfc8\n"));
	assert_null(strchr(b.p, '\033'));
	obuf_free(&b);
	/* Not profiled: nothing of it in the text. */
	r.heap = (struct heap_summary){ .state = HEAP_NOT_PROFILED };
	explain_work(&r, &e);
	assert_string_equal(e.heap, "");
	explain_text(&b, &r, &e, false);
	obuf_putc(&b, '\0');
	assert_null(strstr(b.p, "heap profile"));
	obuf_free(&b);
}

static void
test_heap_json(void **state)
{
	struct explain_reading r = reading();
	struct explain e;
	struct obuf b = { 0 };
	json_error_t err;
	json_t *j, *h, *st;

	(void)state;
	profiled(&r);
	explain_work(&r, &e);
	explain_json(&b, &r, &e);
	obuf_putc(&b, '\0');
	j = json_loads(b.p, 0, &err);
	assert_non_null(j);
	h = json_object_get(j, "heap");
	assert_string_equal(json_string_value(json_object_get(h, "state")),
	    "read");
	assert_string_equal(json_string_value(json_object_get(h, "dump")),
	    "/var/lib/mysql-heap/jeprof.4242.9.i9.heap");
	assert_int_equal(json_integer_value(json_object_get(h,
	    "age_seconds")), 12);
	assert_int_equal(json_integer_value(json_object_get(h,
	    "total_bytes")), 300 * MIB);
	assert_int_equal(json_integer_value(json_object_get(h,
	    "instrumented_bytes")), 250 * MIB);
	assert_int_equal(json_integer_value(json_object_get(h,
	    "not_instrumented_bytes")), 40 * MIB);
	assert_int_equal(json_integer_value(json_object_get(h,
	    "unnamed_bytes")), 10 * MIB);
	assert_true(json_is_null(json_object_get(h, "why")));
	st = json_object_get(h, "stacks");
	assert_int_equal(json_array_size(st), 3);
	assert_true(json_is_null(json_object_get(json_array_get(st, 2),
	    "instrumented")));
	assert_int_equal(json_integer_value(json_object_get(json_array_get(st,
	    0), "bytes")), 144 * MIB);
	assert_true(json_is_true(json_object_get(json_array_get(st, 0),
	    "instrumented")));
	assert_true(json_is_false(json_object_get(json_array_get(st, 1),
	    "instrumented")));
	assert_string_equal(json_string_value(json_array_get(json_object_get(
	    json_array_get(st, 0), "frames"), 1)), "update_hash");
	json_decref(j);
	obuf_free(&b);
	/* The reading once a minute looks at no profile: null. */
	r.heap = (struct heap_summary){ 0 };
	explain_work(&r, &e);
	explain_json(&b, &r, &e);
	obuf_putc(&b, '\0');
	j = json_loads(b.p, 0, &err);
	assert_non_null(j);
	assert_true(json_is_null(json_object_get(j, "heap")));
	json_decref(j);
	obuf_free(&b);
}

/* A large part not counted and no profile: one line says how to see it. */
static void
test_heap_advice(void **state)
{
	struct explain_reading r = reading();
	struct explain e;

	(void)state;
	r.proc.allocator = ALLOC_JEMALLOC;
	r.proc.anon = r.proc.rss = 600 * MIB;
	r.heap.state = HEAP_NOT_PROFILED;
	strcpy(r.heap.why, "the server (pid 4242) runs on jemalloc without "
	    "profiling");
	explain_work(&r, &e);
	assert_true(advised(&e, "400.00 MiB (67% of the anonymous memory) is "
	    "counted by no instrument, and no heap profile shows where it "
	    "went: the server (pid 4242) runs on jemalloc without profiling"));
	/* Below the threshold, or profiled: no such line. */
	r.proc.anon = r.proc.rss = 400 * MIB;
	explain_work(&r, &e);
	assert_false(advised(&e, "no heap profile"));
	r.proc.anon = r.proc.rss = 600 * MIB;
	profiled(&r);
	explain_work(&r, &e);
	assert_false(advised(&e, "no heap profile"));
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_layers_add_up),
		cmocka_unit_test(test_instruments_off),
		cmocka_unit_test(test_arenas),
		cmocka_unit_test(test_large_gap),
		cmocka_unit_test(test_other_causes),
		cmocka_unit_test(test_counted_past_anonymous),
		cmocka_unit_test(test_process_unread),
		cmocka_unit_test(test_bounds),
		cmocka_unit_test(test_json),
		cmocka_unit_test(test_text),
		cmocka_unit_test(test_heap_text),
		cmocka_unit_test(test_heap_json),
		cmocka_unit_test(test_heap_advice),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
