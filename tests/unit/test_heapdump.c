/*
 * jemalloc's heap dumps (heapdump.h): two real dumps of a MariaDB 10.11
 * sandbox run with LD_PRELOAD of Debian's libjemalloc2 5.3.0 and
 * MALLOC_CONF=prof:true,lg_prof_sample:19,lg_prof_interval:26 (five user
 * variables of 15,000,000 bytes set between them), checked against
 * jeprof's totals; the unbiasing by hand; every way a dump can be cut
 * short or wrong, each its line; the growth between two dumps; a large
 * dump; and the dumps and the source of a server found in a folder and a
 * /proc tree of fixtures.
 */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <setjmp.h>
#include <cmocka.h>

#include "fixtures.h"
#include "heapdump.h"
#include "strhash.h"

#define MAPS_LINE "55c4971c0000-55c4971f6000 r--p 00000000 fe:00 1234  " \
	"/usr/sbin/mariadbd\n"

static char err[256];

static struct heap_dump
real_dump(const char *name)
{
	char *path = golden_path(name), *text;
	struct heap_dump d;
	size_t len;

	assert_non_null(text = slurp(path, &len));
	if (heap_dump_parse(text, len, &d, err, sizeof(err)) != 0)
		fail_msg("%s: %s", path, err);
	free(text);
	free(path);
	return d;
}

static int
parse(const char *text, struct heap_dump *d)
{
	err[0] = '\0';
	return heap_dump_parse(text, strlen(text), d, err, sizeof(err));
}

/*
 * `jeprof --text --show_bytes /usr/sbin/mariadbd DUMP` says "Total:
 * 323488169 B" for i5 and 136598172 B for i1; we round each stack, jeprof
 * sums the unrounded: the same within half a byte a stack.
 */
static void
test_real(void **state)
{
	struct heap_dump d = real_dump("heap/mariadb.17563.5.i5.heap");
	const struct heap_mapping *m;
	int64_t sum = 0;
	size_t jemalloc = 0;

	(void)state;
	assert_int_equal(d.rate, 524288);
	assert_int_equal(d.nstacks, 64);
	assert_int_equal(d.nmaps, 178);
	assert_true(llabs(d.total_bytes - 323488169) <= 32);
	assert_int_equal(d.stacks[0].depth, 15);
	assert_int_equal(d.stacks[0].pcs[0], 0x7fd4980a2630);
	assert_int_equal(d.stacks[0].pcs[14], 0x55c4971f6ec1);
	for (size_t i = 0; i < d.nstacks; i++)
		sum += d.stacks[i].bytes;
	assert_int_equal(sum, d.total_bytes);
	for (size_t i = 0; i < d.nmaps; i++) {
		m = &d.maps[i];
		if (m->path != NULL && strstr(m->path, "libjemalloc") &&
		    m->executable) {
			jemalloc++;
			assert_true(m->start < 0x7fd4980a2630 &&
			    0x7fd4980a2630 < m->end);
		}
	}
	assert_int_equal(jemalloc, 1);
	/* 55c4983a4000-55c498c7c000 rw-p 00000000 00:00 0, anonymous. */
	for (m = d.maps; m->start != 0x55c4983a4000; m++)
		;
	assert_null(m->path);
	assert_string_equal(d.maps[d.nmaps - 1].path, "[vsyscall]");
	heap_dump_free(&d);
	assert_null(d.stacks);

	d = real_dump("heap/mariadb.17563.1.i1.heap");
	assert_int_equal(d.nstacks, 47);
	assert_true(llabs(d.total_bytes - 136598172) <= 24);
	heap_dump_free(&d);
}

/* AdjustSamples' figures, and rate 0 left alone. */
static void
test_unbias(void **state)
{
	struct heap_dump d;
	double scale = 1 / (1 - exp(-(4096.0 / 2) / 524288));

	(void)state;
	assert_int_equal(parse("heap_v2/524288\n"
	    "  t*: 2: 4096 [0: 0]\n"
	    "  t0: 2: 4096 [0: 0]\n"
	    "@ 0x1 0x2\n"
	    "  t*: 2: 4096 [0: 0]\n"
	    "  t3: 2: 4096 [0: 0]\n"
	    "@ 0x3\n"
	    "  t*: 0: 0 [0: 0]\n"
	    "\nMAPPED_LIBRARIES:\n" MAPS_LINE, &d), 0);
	assert_int_equal(d.nstacks, 2);
	assert_int_equal(d.stacks[0].bytes, llround(4096 * scale));
	assert_int_equal(d.stacks[0].objects, llround(2 * scale));
	assert_int_equal(d.stacks[0].bytes, 1050625);
	assert_int_equal(d.stacks[1].bytes, 0);
	assert_int_equal(d.total_bytes, 1050625);
	assert_int_equal(d.nmaps, 1);
	assert_string_equal(d.maps[0].path, "/usr/sbin/mariadbd");
	assert_int_equal(d.maps[0].start, 0x55c4971c0000);
	assert_false(d.maps[0].executable);
	heap_dump_free(&d);

	assert_int_equal(parse("heap_v2/0\n  t*: 2: 4096 [0: 0]\n"
	    "@ 0x1\n  t*: 2: 4096 [0: 0]\n\nMAPPED_LIBRARIES:\n", &d), 0);
	assert_int_equal(d.stacks[0].bytes, 4096);
	assert_int_equal(d.stacks[0].objects, 2);
	assert_int_equal(d.nmaps, 0);
	heap_dump_free(&d);
}

/* Each wrong dump: -1, nothing kept, and its line. */
static const struct {
	const char *text, *err;
} bad[] = {
	{ "", "empty, not a jemalloc heap_v2 dump" },
	{ "heap profile: 1: 2 [3: 4] @ heap\n", "not a jemalloc heap_v2" },
	{ "heap_v2/52x\n", "line 1: the rate" },
	{ "heap_v2/99999999999999999999\n", "line 1: the rate" },
	{ "heap_v2/8\n", "line 2: cut short" },
	{ "heap_v2/8\n@ 0x1\n", "line 2: cut short" },
	{ "heap_v2/8\n  t*: 1: 8 [0: 0]\n", "line 3: cut short: the dump "
	    "ends before MAPPED_LIBRARIES:" },
	{ "heap_v2/8\n  t*: 1: 8 [0: 0]\n@ 0x1\n  t*: 1: 8 [0: 0]\n",
	    "line 5: cut short" },
	{ "heap_v2/8\n  t*: 1: 8 [0: 0]\n@ 0x1\n  t*: 1: 8 [0: 0]\n\n",
	    "line 6: cut short: no MAPPED_LIBRARIES:" },
	{ "heap_v2/8\n  t*: 1: 8 [0: 0]\n@ 0x1\n  t*: 1: 8 [0: 0]\n\n"
	    "MAPPED_LIBRARIES:\n" MAPS_LINE "7f00-7f10 r-xp 0",
	    "line 8: cut short (no newline" },
	{ "heap_v2/8\n  t*: 1: 8 [0: 0]\n@ 0x1\n  t*: 1: 8 [0",
	    "line 4: cut short (no newline" },
	{ "heap_v2/8\n  t*: 1: 8 [0: 0]\n@ 0x1\n@ 0x2\n  t*: 1: 8 [0: 0]\n",
	    "line 4: a stack without its \"t*\" line" },
	{ "heap_v2/8\n  t*: 1: 8 [0: 0]\n@ 0x1\n\nMAPPED_LIBRARIES:\n",
	    "line 4: a stack without its \"t*\" line" },
	{ "heap_v2/8\n  t*: 1: 8 [0: 0]\n@ 0x1\n  t0: 1: 8 [0: 0]\n",
	    "line 4: a stack without its \"t*\" line" },
	{ "heap_v2/8\n  t*: 1: 8 [0: 0]\n@ 0x1\n  t*: 1: 8 [0: 0]\n"
	    "  t*: 1: 8 [0: 0]\n", "line 5: a \"t*\" line without its stack" },
	{ "heap_v2/8\n  t*: 1: 8 [0: 0]\n@ 0x1\n  t*: 1x: 8 [0: 0]\n",
	    "line 4: not a \"t*: COUNT: BYTES" },
	{ "heap_v2/8\n  t*: 1: 8 [0: 0]\n@ 0x1\n  t*: 1: 8\n",
	    "line 4: not a \"t*: COUNT: BYTES" },
	{ "heap_v2/8\n  t*: 1: 8 [0: 0]\n@ 0x1\n  t*: 1: 8 [0: 0] x\n",
	    "line 4: not a \"t*: COUNT: BYTES" },
	{ "heap_v2/8\n  t*: 1: 8 [0: 0]\n@ 0x1\n"
	    "  t*: 1: 99999999999999999999 [0: 0]\n",
	    "line 4: not a \"t*: COUNT: BYTES" },
	{ "heap_v2/8\n  t*: 1: 8 [0: 0]\n@ 0x1\n"
	    "  t*: 1: 9999999999999999999 [0: 0]\n",
	    "line 4: count out of range" },
	{ "heap_v2/8\n  t*: 1: 8 [0: 0]\n@ 0x1\n"
	    "  t*: 1: 4611686018427387904 [0: 0]\n",
	    "line 4: bytes out of range once unbiased" },
	{ "heap_v2/8\n  t*: 1: 8 [0: 0]\n@ 0x1\n"
	    "  t*: 1: 4000000000000000000 [0: 0]\n@ 0x2\n"
	    "  t*: 1: 4000000000000000000 [0: 0]\n@ 0x3\n"
	    "  t*: 1: 4000000000000000000 [0: 0]\n\nMAPPED_LIBRARIES:\n",
	    "line 8: the total is out of range" },
	{ "heap_v2/8\n  t*: 1: 8 [0: 0]\n@ 0x1\n  t*: 8: 1 [0: 0]\n",
	    "line 4: fewer bytes than objects" },
	{ "heap_v2/8\n  t*: 1: 8 [0: 0]\n@ 0x1\n  t*: 0: 8 [0: 0]\n",
	    "line 4: fewer bytes than objects, or bytes without objects" },
	{ "heap_v2/8\n  t*: 1: 8 [0: 0]\n@ 0x1 0xfoo\n",
	    "line 3: not an address" },
	{ "heap_v2/8\n  t*: 1: 8 [0: 0]\n@ 0x10000000000000000\n",
	    "line 3: not an address" },
	{ "heap_v2/8\n  t*: 1: 8 [0: 0]\n@ 0x1,0x2\n",
	    "line 3: not an address" },
	{ "heap_v2/8\n  t*: 1: 8 [0: 0]\nwhat\n",
	    "line 3: not a line of a heap_v2 dump" },
	{ "heap_v2/8\n  t*: 1: 8 [0: 0]\n@ 0x1\n  t*: 1: 8 [0: 0]\n\n"
	    "MAPPED_LIBRARIES:\n" MAPS_LINE "7f00-7f10 r-xp zz 00:00 0\n",
	    "line 8: not a line of /proc/PID/maps" },
	{ "heap_v2/8\n  t*: 1: 8 [0: 0]\n@ 0x1\n  t*: 1: 8 [0: 0]\n\n"
	    "MAPPED_LIBRARIES:\n7f10-7f00 r-xp 0 00:00 0\n",
	    "line 7: not a line of /proc/PID/maps" },
	{ "heap_v2/8\n  t*: 1: 8 [0: 0]\n@ 0x1\n  t*: 1: 8 [0: 0]\n\n"
	    "heap_v2/8\n", "line 6: cut short: no MAPPED_LIBRARIES:" },
};

static void
test_bad(void **state)
{
	struct heap_dump d;

	(void)state;
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		memset(&d, 0x55, sizeof(d));
		if (parse(bad[i].text, &d) != -1 ||
		    strstr(err, bad[i].err) == NULL)
			fail_msg("bad[%zu]: \"%s\", wanted \"%s\"", i, err,
			    bad[i].err);
		assert_null(d.stacks);
		assert_int_equal(d.nstacks, 0);
		assert_null(d.maps);
		assert_null(strchr(err, '\n'));
	}
}

/* The real dump cut at each of many places: never a profile. */
static void
test_cut(void **state)
{
	char *path = golden_path("heap/mariadb.17563.5.i5.heap"), *text;
	const char *maps;
	struct heap_dump d;
	size_t len, cuts = 0;

	(void)state;
	assert_non_null(text = slurp(path, &len));
	maps = strstr(text, "MAPPED_LIBRARIES:\n");
	assert_non_null(maps);
	for (size_t at = 1; at < len; at += 97) {
		/* A cut after a whole maps line is a dump with fewer maps. */
		if (text + at > maps && text[at - 1] == '\n')
			continue;
		if (heap_dump_parse(text, at, &d, err, sizeof(err)) != -1)
			fail_msg("cut at %zu of %zu parsed", at, len);
		assert_non_null(strstr(err, "cut short"));
		cuts++;
	}
	assert_true(cuts > 300);
	free(text);
	free(path);
}

/*
 * A dump of n stacks of depth frames, stack i holding (i + 1) * 8 bytes;
 * they differ only in their last frame, as stacks with the same
 * allocator's frames and callers' do.
 */
static char *
big_dump(size_t n, size_t depth, size_t *len)
{
	size_t cap = n * (depth * 19 + 64) + 128, at = 0;
	char *buf = malloc(cap);

	assert_non_null(buf);
	at += (size_t)snprintf(buf, cap, "heap_v2/0\n  t*: 1: 8 [0: 0]\n");
	for (size_t i = 0; i < n; i++) {
		at += (size_t)snprintf(buf + at, cap - at, "@");
		for (size_t f = 0; f < depth; f++)
			at += (size_t)snprintf(buf + at, cap - at, " 0x%zx",
			    f + 1 < depth ? 0x500000 + f : 0x400000 + i);
		at += (size_t)snprintf(buf + at, cap - at,
		    "\n  t*: 1: %zu [0: 0]\n  t0: 1: %zu [0: 0]\n",
		    (i + 1) * 8, (i + 1) * 8);
	}
	at += (size_t)snprintf(buf + at, cap - at, "\nMAPPED_LIBRARIES:\n");
	assert_true(at < cap);
	*len = at;
	return buf;
}

/* 20,000 stacks of 128 frames, and the growth of one over itself. */
static void
test_large(void **state)
{
	size_t n = 20000, len;
	char *text = big_dump(n, 128, &len);
	struct heap_dump d, grown, none = { 0 };

	(void)state;
	assert_int_equal(heap_dump_parse(text, len, &d, err, sizeof(err)), 0);
	assert_int_equal(d.nstacks, n);
	assert_int_equal(d.stacks[n - 1].depth, 128);
	assert_int_equal(d.stacks[n - 1].pcs[127], 0x400000 + n - 1);
	assert_int_equal(d.stacks[n - 1].pcs[126], 0x500000 + 126);
	assert_int_equal(d.total_bytes, (int64_t)(n * (n + 1) / 2 * 8));
	assert_int_equal(heap_dump_diff(&d, &d, &grown), 0);
	assert_int_equal(grown.nstacks, 0);
	assert_int_equal(grown.total_bytes, 0);
	heap_dump_free(&grown);
	/* Against none: every stack its own, though many share a slot. */
	assert_int_equal(heap_dump_diff(&d, &none, &grown), 0);
	assert_int_equal(grown.nstacks, n);
	assert_int_equal(grown.total_bytes, d.total_bytes);
	assert_int_equal(grown.stacks[n - 1].bytes, d.stacks[n - 1].bytes);
	heap_dump_free(&grown);
	heap_dump_free(&d);
	free(text);
}

#define DIFF_HEAD "heap_v2/0\n  t*: 1: 8 [0: 0]\n"
#define DIFF_TAIL "\nMAPPED_LIBRARIES:\n" MAPS_LINE

/*
 * jeprof --base: A grew by 200, C is new, B shrank and is left out, D is
 * twice in newer (summed) and once in base; a stack is all its frames, so
 * "0x1 0x2" and "0x1" are two.
 */
static void
test_diff(void **state)
{
	struct heap_dump newer, base, out;

	(void)state;
	assert_int_equal(parse(DIFF_HEAD
	    "@ 0xa 0xb\n  t*: 3: 300 [0: 0]\n"
	    "@ 0xb\n  t*: 1: 150 [0: 0]\n"
	    "@ 0xc\n  t*: 1: 50 [0: 0]\n"
	    "@ 0xd\n  t*: 1: 40 [0: 0]\n"
	    "@ 0xd\n  t*: 1: 40 [0: 0]\n" DIFF_TAIL, &newer), 0);
	assert_int_equal(parse(DIFF_HEAD
	    "@ 0xa\n  t*: 1: 1000 [0: 0]\n"
	    "@ 0xa 0xb\n  t*: 1: 100 [0: 0]\n"
	    "@ 0xb\n  t*: 1: 200 [0: 0]\n"
	    "@ 0xd\n  t*: 1: 30 [0: 0]\n" DIFF_TAIL, &base), 0);
	assert_int_equal(heap_dump_diff(&newer, &base, &out), 0);
	assert_int_equal(out.nstacks, 3);
	assert_int_equal(out.stacks[0].depth, 2);
	assert_int_equal(out.stacks[0].pcs[1], 0xb);
	assert_int_equal(out.stacks[0].bytes, 200);
	assert_int_equal(out.stacks[0].objects, 2);
	assert_int_equal(out.stacks[1].pcs[0], 0xc);
	assert_int_equal(out.stacks[1].bytes, 50);
	assert_int_equal(out.stacks[2].pcs[0], 0xd);
	assert_int_equal(out.stacks[2].bytes, 50);
	assert_int_equal(out.total_bytes, 300);
	assert_int_equal(out.nmaps, 1);
	assert_string_equal(out.maps[0].path, "/usr/sbin/mariadbd");
	assert_ptr_not_equal(out.maps[0].path, newer.maps[0].path);
	heap_dump_free(&out);
	heap_dump_free(&newer);
	heap_dump_free(&base);
}

/*
 * Two stacks that differ only in their last frame and share a slot of
 * the growth's table (16 slots for two stacks): both kept.
 */
static void
test_diff_collide(void **state)
{
	uint64_t a[2] = { 0x1, 0x2 }, b[2] = { 0x1, 0x3 };
	struct heap_dump newer, out, none = { 0 };
	char text[256];

	(void)state;
	while ((strhash((const char *)b, sizeof(b)) & 15) !=
	    (strhash((const char *)a, sizeof(a)) & 15))
		b[1]++;
	snprintf(text, sizeof(text), DIFF_HEAD "@ 0x1 0x2\n  t*: 1: 100 "
	    "[0: 0]\n@ 0x1 0x%" PRIx64 "\n  t*: 1: 50 [0: 0]\n" DIFF_TAIL, b[1]);
	assert_int_equal(parse(text, &newer), 0);
	assert_int_equal(heap_dump_diff(&newer, &none, &out), 0);
	assert_int_equal(out.nstacks, 2);
	assert_int_equal(out.stacks[1].pcs[1], b[1]);
	assert_int_equal(out.stacks[1].bytes, 50);
	heap_dump_free(&out);
	heap_dump_free(&newer);
}

/*
 * The real dumps: `jeprof --text --show_bytes --base=i1 mariadbd i5`
 * says "Total: 186889997 B", with no stack that shrank.
 */
static void
test_diff_real(void **state)
{
	struct heap_dump newer = real_dump("heap/mariadb.17563.5.i5.heap");
	struct heap_dump base = real_dump("heap/mariadb.17563.1.i1.heap");
	struct heap_dump out;

	(void)state;
	assert_int_equal(heap_dump_diff(&newer, &base, &out), 0);
	assert_int_equal(out.nstacks, 17);
	assert_true(llabs(out.total_bytes - 186889997) <= 32);
	assert_int_equal(out.nmaps, newer.nmaps);
	heap_dump_free(&out);
	heap_dump_free(&newer);
	heap_dump_free(&base);
}

static char tmp[64];

static int
setup(void **state)
{
	(void)state;
	snprintf(tmp, sizeof(tmp), "/tmp/test_heapdump.XXXXXX");
	return mkdtemp(tmp) == NULL ? -1 : 0;
}

static int
teardown(void **state)
{
	(void)state;
	return fixture_remove_tree(tmp);
}

/* An empty file tmp/NAME (a folder when the name ends in '/'). */
static void
touch(const char *fmt, ...)
{
	char name[256], path[512];
	va_list ap;
	FILE *fp;

	va_start(ap, fmt);
	vsnprintf(name, sizeof(name), fmt, ap);
	va_end(ap);
	snprintf(path, sizeof(path), "%s/%s", tmp, name);
	if (path[strlen(path) - 1] == '/') {
		assert_int_equal(mkdir(path, 0755), 0);
		return;
	}
	assert_non_null(fp = fopen(path, "w"));
	fclose(fp);
}

static void
want(const struct heap_file *f, pid_t pid, uint64_t seq, char kind,
    uint64_t iter, const char *name)
{
	char path[512];

	snprintf(path, sizeof(path), "%s/%s", tmp, name);
	assert_int_equal(f->pid, pid);
	assert_int_equal(f->seq, seq);
	assert_int_equal(f->kind, kind);
	assert_int_equal(f->iter, iter);
	assert_string_equal(f->path, path);
}

/* Only PREFIX.PID.SEQ.KINDITER.heap, by pid then seq (10 after 9). */
static void
test_files(void **state)
{
	struct heap_file *f;
	char prefix[128];
	size_t n;

	(void)state;
	touch("jeprof.100.3.i2.heap");
	touch("jeprof.100.1.i0.heap");
	touch("jeprof.100.10.u0.heap");
	touch("jeprof.100.9.m1.heap");
	touch("jeprof.20.5.f.heap");
	/* Not dumps of prefix "jeprof", or not dumps. */
	touch("other.100.2.i1.heap");
	touch("jeprof.out.100.4.i3.heap");
	touch("jeprof.100.x.i1.heap");
	touch("jeprof.100.2.f1.heap");
	touch("jeprof.100.2.i.heap");
	touch("jeprof.100.2.x1.heap");
	touch("jeprof.100.2.i1.heap.tmp");
	touch("jeprof.0.2.i1.heap");
	touch("jeprof.100.99999999999999999999.i1.heap");
	touch("jeprof.100.12.i7.heap/");
	touch(".100.2.i1.heap");
	snprintf(prefix, sizeof(prefix), "%s/jeprof", tmp);
	assert_int_equal(heap_find_files(prefix, 0, &f, &n, err,
	    sizeof(err)), 0);
	assert_int_equal(n, 5);
	want(&f[0], 20, 5, 'f', 0, "jeprof.20.5.f.heap");
	want(&f[1], 100, 1, 'i', 0, "jeprof.100.1.i0.heap");
	want(&f[2], 100, 3, 'i', 2, "jeprof.100.3.i2.heap");
	want(&f[3], 100, 9, 'm', 1, "jeprof.100.9.m1.heap");
	want(&f[4], 100, 10, 'u', 0, "jeprof.100.10.u0.heap");
	heap_files_free(f, n);

	assert_int_equal(heap_find_files(prefix, 20, &f, &n, err,
	    sizeof(err)), 0);
	assert_int_equal(n, 1);
	heap_files_free(f, n);

	/* A folder: any prefix, dots in it too. */
	snprintf(prefix, sizeof(prefix), "%s/", tmp);
	assert_int_equal(heap_find_files(prefix, 100, &f, &n, err,
	    sizeof(err)), 0);
	assert_int_equal(n, 6);
	want(&f[1], 100, 2, 'i', 1, "other.100.2.i1.heap");
	want(&f[3], 100, 4, 'i', 3, "jeprof.out.100.4.i3.heap");
	heap_files_free(f, n);
}

/* Ten thousand dumps, sorted; a folder that is not there. */
static void
test_files_many(void **state)
{
	struct heap_file *f;
	char prefix[128];
	size_t n = 10000, got;

	(void)state;
	for (size_t i = 0; i < n; i++)
		touch("jeprof.7.%zu.i%zu.heap", (i * 7919) % n, i);
	snprintf(prefix, sizeof(prefix), "%s/jeprof", tmp);
	assert_int_equal(heap_find_files(prefix, 7, &f, &got, err,
	    sizeof(err)), 0);
	assert_int_equal(got, n);
	for (size_t i = 0; i < n; i++)
		assert_int_equal(f[i].seq, i);
	heap_files_free(f, got);

	snprintf(prefix, sizeof(prefix), "%s/none/jeprof", tmp);
	assert_int_equal(heap_find_files(prefix, 7, &f, &got, err,
	    sizeof(err)), -1);
	assert_non_null(strstr(err, "/none: No such file or directory"));
	assert_null(f);
}

/* root/PID/environ, maps and a cwd link to tmp/cwd. */
static void
fake_proc(pid_t pid, const char *environ, size_t envlen, const char *maps)
{
	char path[512];
	FILE *fp;

	touch("%d/", (int)pid);
	snprintf(path, sizeof(path), "%s/%d/environ", tmp, (int)pid);
	assert_non_null(fp = fopen(path, "w"));
	assert_int_equal(fwrite(environ, 1, envlen, fp), envlen);
	fclose(fp);
	if (maps != NULL) {
		snprintf(path, sizeof(path), "%s/%d/maps", tmp, (int)pid);
		assert_non_null(fp = fopen(path, "w"));
		fputs(maps, fp);
		fclose(fp);
	}
	snprintf(path, sizeof(path), "%s/%d/cwd", tmp, (int)pid);
	assert_int_equal(symlink("/var/lib/mysql", path), 0);
	snprintf(path, sizeof(path), "%s/%d/root", tmp, (int)pid);
	assert_int_equal(symlink(pid == 12 ? "/srv/chroot" : "/", path), 0);
}

#define ENV(s) s, sizeof(s) - 1
#define JEMALLOC_MAPS MAPS_LINE "7fd498000000-7fd498100000 r-xp 00010000 " \
	"fe:00 332384  /usr/lib/x86_64-linux-gnu/libjemalloc.so.2\n"

static void
test_source(void **state)
{
	struct heap_source src;

	(void)state;
	fake_proc(10, ENV("PATH=/bin\0MALLOC_CONF=prof:true,prof_prefix:"
	    "dumps/jeprof,lg_prof_sample:19\0HOME=/\0"), JEMALLOC_MAPS);
	assert_int_equal(heap_find_source_in(tmp, 10, &src, err,
	    sizeof(err)), 0);
	assert_true(src.jemalloc);
	assert_true(src.profiling);
	assert_string_equal(src.prefix, "/var/lib/mysql/dumps/jeprof");
	assert_string_equal(src.conf,
	    "prof:true,prof_prefix:dumps/jeprof,lg_prof_sample:19");

	/* No MALLOC_CONF, no jemalloc: jemalloc's default name. */
	fake_proc(11, ENV("PATH=/bin\0XMALLOC_CONF=prof:true\0"), MAPS_LINE
	    "7f00-7f10 r-xp 0 fe:00 1 /usr/lib/libjemalloc-not/libc.so.6\n");
	assert_int_equal(heap_find_source_in(tmp, 11, &src, err,
	    sizeof(err)), 0);
	assert_false(src.jemalloc);
	assert_false(src.profiling);
	assert_string_equal(src.prefix, "/var/lib/mysql/jeprof");
	assert_string_equal(src.conf, "");

	/*
	 * A later key over an earlier; getenv's first MALLOC_CONF; an
	 * absolute prefix under the chroot of pid 12.
	 */
	fake_proc(12, ENV("MALLOC_CONF=prof:true,prof_prefix:/a/b,junk,"
	    "prof:false\0MALLOC_CONF=prof:true\0"), JEMALLOC_MAPS);
	assert_int_equal(heap_find_source_in(tmp, 12, &src, err,
	    sizeof(err)), 0);
	assert_false(src.profiling);
	assert_string_equal(src.prefix, "/srv/chroot/a/b");

	/* prof_prefix set empty: jemalloc writes no dump. */
	fake_proc(15, ENV("MALLOC_CONF=prof:true,prof_prefix:\0"),
	    JEMALLOC_MAPS);
	assert_int_equal(heap_find_source_in(tmp, 15, &src, err,
	    sizeof(err)), 0);
	assert_true(src.profiling);
	assert_string_equal(src.prefix, "");

	/* Gone; maps not readable. */
	assert_int_equal(heap_find_source_in(tmp, 13, &src, err,
	    sizeof(err)), -1);
	assert_non_null(strstr(err, "/13/environ: No such file or directory "
	    "(the process is gone)"));
	fake_proc(14, ENV("MALLOC_CONF=prof:true\0"), NULL);
	assert_int_equal(heap_find_source_in(tmp, 14, &src, err,
	    sizeof(err)), -1);
	assert_non_null(strstr(err, "/14/maps: "));
}

/* This process through the real /proc, and a child that ended. */
static void
test_source_self(void **state)
{
	const char *conf = getenv("MALLOC_CONF");
	struct heap_source src;
	char cwd[4096], want_prefix[4200];
	pid_t child;

	(void)state;
	assert_non_null(getcwd(cwd, sizeof(cwd)));
	assert_int_equal(heap_find_source(getpid(), &src, err, sizeof(err)),
	    0);
	assert_string_equal(src.conf, conf == NULL ? "" : conf);
	if (conf == NULL) {
		snprintf(want_prefix, sizeof(want_prefix), "%s/jeprof",
		    strcmp(cwd, "/") == 0 ? "" : cwd);
		assert_string_equal(src.prefix, want_prefix);
	}

	if ((child = fork()) == 0)
		_exit(0);
	assert_true(child > 0);
	assert_int_equal(waitpid(child, NULL, 0), child);
	assert_int_equal(heap_find_source(child, &src, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "(the process is gone)"));
	assert_non_null(strstr(err, "/proc/"));
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_real),
		cmocka_unit_test(test_unbias),
		cmocka_unit_test(test_bad),
		cmocka_unit_test(test_cut),
		cmocka_unit_test(test_large),
		cmocka_unit_test(test_diff),
		cmocka_unit_test(test_diff_collide),
		cmocka_unit_test(test_diff_real),
		cmocka_unit_test_setup_teardown(test_files, setup, teardown),
		cmocka_unit_test_setup_teardown(test_files_many, setup,
		    teardown),
		cmocka_unit_test_setup_teardown(test_source, setup, teardown),
		cmocka_unit_test(test_source_self),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
