/*
 * The black box's heap dumps (heapkeep.c) on folders made here: the
 * newest whole dump of the pid copied byte for byte into DIR/heap under
 * its time, nothing copied twice, the HEAP_KEEP_DUMPS newest kept within
 * the byte bound, a dump cut short (as one being written) or of another
 * pid not copied, nothing outside DIR/heap touched, an earlier run's
 * dumps taken back and its half-written file removed, and the last kept
 * before a time found with the one before it.
 */
#include <dirent.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <unistd.h>

#include <setjmp.h>
#include <cmocka.h>

#include "heapkeep.h"

#define DUMP "heap_v2/524288\n  t*: 2: 4096 [0: 0]\n" \
	"@ 0x1 0x2\n  t*: 2: 4096 [0: 0]\n" \
	"\nMAPPED_LIBRARIES:\n" \
	"55c4971c0000-55c4971f6000 r-xp 00000000 fe:00 1 /usr/sbin/mariadbd\n"

struct fx {
	char src[64];           /* the server's dumps */
	char dir[64];           /* DIR */
	int dirfd;
	struct heap_keep k;
};

/* A dump of pid seq into the server's folder, written at time s. */
static void
dump(struct fx *f, long pid, int seq, const char *text, time_t s)
{
	char path[200];
	FILE *fp;
	struct timeval tv[2] = { { s, 0 }, { s, 0 } };

	snprintf(path, sizeof(path), "%s/jeprof.%ld.%d.i%d.heap", f->src, pid,
	    seq, seq);
	assert_non_null(fp = fopen(path, "w"));
	fputs(text, fp);
	assert_int_equal(fclose(fp), 0);
	assert_int_equal(utimes(path, tv), 0);
}

static int
setup(void **state)
{
	struct fx *f = calloc(1, sizeof(*f));
	char err[256];

	snprintf(f->src, sizeof(f->src), "/tmp/heapkeep-src.XXXXXX");
	snprintf(f->dir, sizeof(f->dir), "/tmp/heapkeep-dir.XXXXXX");
	assert_non_null(mkdtemp(f->src));
	assert_non_null(mkdtemp(f->dir));
	assert_true((f->dirfd = open(f->dir, O_RDONLY | O_DIRECTORY)) >= 0);
	assert_int_equal(heap_keep_open(&f->k, f->dirfd, f->dir, 1 << 20, err,
	    sizeof(err)), 0);
	*state = f;
	return 0;
}

static void
rm_rf(const char *dir)
{
	char cmd[200];

	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	assert_int_equal(system(cmd), 0);
}

static int
teardown(void **state)
{
	struct fx *f = *state;

	heap_keep_close(&f->k);
	close(f->dirfd);
	rm_rf(f->src);
	rm_rf(f->dir);
	free(f);
	return 0;
}

/* The names in DIR/heap, sorted, one a line. */
static char *
names(const struct fx *f)
{
	char path[200], *out = calloc(1, 4096);
	struct dirent **v;
	int n;

	snprintf(path, sizeof(path), "%s/heap", f->dir);
	n = scandir(path, &v, NULL, alphasort);
	assert_true(n >= 0);
	for (int i = 0; i < n; i++) {
		if (v[i]->d_name[0] != '.') {
			strcat(out, v[i]->d_name);
			strcat(out, "\n");
		}
		free(v[i]);
	}
	free(v);
	return out;
}

static int
keep(struct fx *f, long pid)
{
	char prefix[100], why[1024];

	snprintf(prefix, sizeof(prefix), "%s/jeprof", f->src);
	return heap_keep_dumps(&f->k, prefix, pid, why, sizeof(why));
}

static void
test_copies_the_newest_whole(void **state)
{
	struct fx *f = *state;
	char path[200], buf[512], *got;
	int fd;
	ssize_t n;

	dump(f, 4242, 1, DUMP, 1800000000);
	dump(f, 4242, 2, DUMP DUMP, 1800000060); /* not one dump: junk */
	dump(f, 4242, 3, DUMP, 1800000120);
	assert_int_equal(keep(f, 4242), 1);
	got = names(f);
	assert_string_equal(got, "20270115T080200.000Z-4242.3.heap\n");
	free(got);
	snprintf(path, sizeof(path), "%s/heap/20270115T080200.000Z-4242.3.heap",
	    f->dir);
	assert_true((fd = open(path, O_RDONLY)) >= 0);
	n = read(fd, buf, sizeof(buf));
	close(fd);
	assert_int_equal(n, strlen(DUMP));
	assert_memory_equal(buf, DUMP, strlen(DUMP));
	assert_int_equal(f->k.kept[0].total_bytes, 1050625);
	/* Once: nothing new. */
	assert_int_equal(keep(f, 4242), 0);
	assert_int_equal(f->k.n, 1);
}

static void
test_cut_short_and_other_pid_not_copied(void **state)
{
	struct fx *f = *state;
	char *got;

	/* Being written: no end yet. The one before it is taken. */
	dump(f, 4242, 1, DUMP, 1800000000);
	dump(f, 4242, 2, "heap_v2/524288\n  t*: 2: 4096 [0: 0]\n@ 0x1",
	    1800000060);
	dump(f, 99, 7, DUMP, 1800000120);
	assert_int_equal(keep(f, 4242), 1);
	got = names(f);
	assert_string_equal(got, "20270115T080000.000Z-4242.1.heap\n");
	free(got);
	/* Another pid's alone: nothing. */
	assert_int_equal(keep(f, 4243), 0);
	assert_int_equal(f->k.n, 1);
}

static void
test_keeps_the_newest_within_bounds(void **state)
{
	struct fx *f = *state;
	char *got, *big;
	size_t len = strlen(DUMP);

	for (int i = 1; i <= 5; i++) {
		dump(f, 4242, i, DUMP, 1800000000 + i);
		assert_int_equal(keep(f, 4242), 1);
	}
	got = names(f);
	assert_string_equal(got, "20270115T080003.000Z-4242.3.heap\n"
	    "20270115T080004.000Z-4242.4.heap\n"
	    "20270115T080005.000Z-4242.5.heap\n");
	free(got);
	assert_int_equal(f->k.n, HEAP_KEEP_DUMPS);
	assert_int_equal(f->k.bytes, HEAP_KEEP_DUMPS * len);
	/* Bytes: a bound of two dumps keeps two. */
	f->k.max_bytes = 2 * len + 1;
	dump(f, 4242, 6, DUMP, 1800000010);
	assert_int_equal(keep(f, 4242), 1);
	assert_int_equal(f->k.n, 2);
	assert_true(f->k.bytes <= f->k.max_bytes);
	/* One larger than the bound is not copied at all. */
	assert_non_null(big = malloc(3 * len + 1));
	snprintf(big, 3 * len + 1, "%s", DUMP);
	memset(big + len - 1, '\n', 2 * len);
	big[3 * len] = '\0';
	dump(f, 4242, 7, big, 1800000020);
	free(big);
	assert_int_equal(keep(f, 4242), 0);
	assert_int_equal(f->k.n, 2);
}

static void
test_nothing_outside_dir_heap(void **state)
{
	struct fx *f = *state;
	char *got, path[200];
	struct stat st;

	dump(f, 4242, 1, DUMP, 1800000000);
	assert_int_equal(keep(f, 4242), 1);
	snprintf(path, sizeof(path), "%s/jeprof.4242.1.i1.heap", f->src);
	assert_int_equal(stat(path, &st), 0);
	got = names(f);
	assert_string_equal(got, "20270115T080000.000Z-4242.1.heap\n");
	free(got);
	/* DIR holds heap/ alone. */
	snprintf(path, sizeof(path), "ls -A %s | grep -qvx heap", f->dir);
	assert_int_not_equal(system(path), 0);
}

static void
test_earlier_run_and_before(void **state)
{
	struct fx *f = *state;
	const struct heap_kept *d, *base;
	char err[256], path[200];
	FILE *fp;

	dump(f, 4242, 1, DUMP, 1800000000);
	assert_int_equal(keep(f, 4242), 1);
	dump(f, 4242, 2, DUMP, 1800000060);
	assert_int_equal(keep(f, 4242), 1);
	heap_keep_close(&f->k);
	snprintf(path, sizeof(path), "%s/heap/x.heap.tmp", f->dir);
	assert_non_null(fp = fopen(path, "w"));
	fclose(fp);
	memset(&f->k, 0, sizeof(f->k));
	assert_int_equal(heap_keep_open(&f->k, f->dirfd, f->dir, 1 << 20, err,
	    sizeof(err)), 0);
	assert_int_equal(f->k.n, 2);
	assert_int_equal(access(path, F_OK), -1);
	assert_null(heap_keep_before(&f->k, 1800000000000 - 1, &base));
	d = heap_keep_before(&f->k, 1800000030000, &base);
	assert_string_equal(d->name, "20270115T080000.000Z-4242.1.heap");
	assert_null(base);
	d = heap_keep_before(&f->k, 1800000060000, &base);
	assert_string_equal(d->name, "20270115T080100.000Z-4242.2.heap");
	assert_string_equal(base->name, "20270115T080000.000Z-4242.1.heap");
	assert_int_equal(d->total_bytes, 1050625);
	/* A smaller --record-size since: the newest alone, then none. */
	heap_keep_close(&f->k);
	memset(&f->k, 0, sizeof(f->k));
	assert_int_equal(heap_keep_open(&f->k, f->dirfd, f->dir, strlen(DUMP),
	    err, sizeof(err)), 0);
	assert_int_equal(f->k.n, 1);
	assert_string_equal(f->k.kept[0].name,
	    "20270115T080100.000Z-4242.2.heap");
	heap_keep_close(&f->k);
	memset(&f->k, 0, sizeof(f->k));
	assert_int_equal(heap_keep_open(&f->k, f->dirfd, f->dir,
	    strlen(DUMP) - 1, err, sizeof(err)), 0);
	assert_int_equal(f->k.n, 0);
	assert_int_equal(f->k.bytes, 0);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_copies_the_newest_whole,
		    setup, teardown),
		cmocka_unit_test_setup_teardown(
		    test_cut_short_and_other_pid_not_copied, setup, teardown),
		cmocka_unit_test_setup_teardown(
		    test_keeps_the_newest_within_bounds, setup, teardown),
		cmocka_unit_test_setup_teardown(test_nothing_outside_dir_heap,
		    setup, teardown),
		cmocka_unit_test_setup_teardown(test_earlier_run_and_before,
		    setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
