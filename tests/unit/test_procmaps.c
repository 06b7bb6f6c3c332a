/*
 * A process's layers from its maps, smaps and status: the parsers on the
 * text of real servers (procmaps_fixtures.h: glibc with its arenas,
 * jemalloc, tcmalloc, MySQL with both), the shapes a heap of glibc can
 * take and the regions that only look like one, junk; then
 * procfs_layers() on fixture trees of /proc: each of those processes, one
 * whose smaps or maps cannot be read, one that is gone, and an smaps far
 * larger than a page.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <setjmp.h>
#include <cmocka.h>

#include "procfs.h"
#include "procmaps.h"
#include "procmaps_fixtures.h"

#define KB 1024LL
#define MIB (1024LL * 1024)
#define PID 2902

static char root[64];

/* maps' text: smaps' without the fields, only the regions' headers. */
static char *
maps_of(const char *smaps)
{
	char *out = malloc(strlen(smaps) + 1), *o = out;
	const char *p = smaps, *nl;

	assert_non_null(out);
	for (; *p != '\0'; p = nl + 1) {
		nl = strchr(p, '\n');
		assert_non_null(nl);
		/* A field starts with its name, a header with an address. */
		if (strchr("0123456789abcdef", *p) != NULL) {
			memcpy(o, p, (size_t)(nl - p + 1));
			o += nl - p + 1;
		}
	}
	*o = '\0';
	return out;
}

static struct process_layers
fresh(void)
{
	struct process_layers l;

	memset(&l, 0x55, sizeof(l));
	return l;
}

static void
test_glibc(void **state)
{
	struct process_layers l = fresh();
	char *maps = maps_of(glibc_smaps);

	(void)state;
	assert_int_equal(procmaps_parse_smaps(glibc_smaps, &l), 0);
	assert_int_equal(l.allocator, ALLOC_GLIBC);
	assert_string_equal(l.allocator_lib,
	    "/usr/lib/x86_64-linux-gnu/libc.so.6");
	/*
	 * Seven heaps (five in a row, the one after the 8 TiB reservation,
	 * the one after the 232 MiB region) and the main arena.
	 */
	assert_int_equal(l.arenas, 8);
	assert_int_equal(l.arena_resident, (6148 + 6148 + 58732 + 58048 +
	    58724 + 21032 + 21032) * KB);
	assert_int_equal(l.brk_heap_resident, 38836 * KB);
	assert_int_equal(l.anon_huge, 2048 * KB);
	assert_string_equal(procmaps_allocator_name(l.allocator),
	    "glibc malloc");

	/* maps: the same allocator and heaps, and no resident figures. */
	l = fresh();
	assert_int_equal(procmaps_parse_maps(maps, &l), 0);
	assert_int_equal(l.allocator, ALLOC_GLIBC);
	assert_int_equal(l.arenas, 8);
	assert_int_equal(l.arena_resident, -1);
	assert_int_equal(l.brk_heap_resident, -1);
	assert_int_equal(l.anon_huge, -1);
	/* maps' text is not smaps'. */
	assert_int_equal(procmaps_parse_smaps(maps, &l), -1);
	free(maps);
}

static void
test_jemalloc(void **state)
{
	struct process_layers l = fresh();

	(void)state;
	assert_int_equal(procmaps_parse_smaps(jemalloc_smaps, &l), 0);
	assert_int_equal(l.allocator, ALLOC_JEMALLOC);
	assert_string_equal(l.allocator_lib,
	    "/usr/lib/x86_64-linux-gnu/libjemalloc.so.2");
	/* Arenas are glibc's; jemalloc takes nothing by sbrk. */
	assert_int_equal(l.arenas, 0);
	assert_int_equal(l.arena_resident, 0);
	assert_int_equal(l.brk_heap_resident, 0);
	assert_string_equal(procmaps_allocator_name(l.allocator), "jemalloc");
}

static void
test_tcmalloc(void **state)
{
	struct process_layers l = fresh();

	(void)state;
	assert_int_equal(procmaps_parse_smaps(tcmalloc_smaps, &l), 0);
	assert_int_equal(l.allocator, ALLOC_TCMALLOC);
	assert_string_equal(l.allocator_lib,
	    "/usr/lib/x86_64-linux-gnu/libtcmalloc_minimal.so.4.5.10");
	assert_int_equal(l.arenas, 0);
	assert_int_equal(l.brk_heap_resident, 407632 * KB);
	assert_string_equal(procmaps_allocator_name(l.allocator), "tcmalloc");
}

/* MySQL links tcmalloc; jemalloc preloaded over it serves malloc. */
static void
test_preloaded_over_linked(void **state)
{
	struct process_layers l = fresh();

	(void)state;
	assert_int_equal(procmaps_parse_smaps(mysql_je_smaps, &l), 0);
	assert_int_equal(l.allocator, ALLOC_JEMALLOC);
	assert_string_equal(l.allocator_lib, "/root/.cache/mysqlmemprof/sid"
	    "/usr/lib/x86_64-linux-gnu/libjemalloc.so.2");
	assert_int_equal(l.brk_heap_resident, 2076 * KB);
	/* tcmalloc_minimal preloaded over it: the one above, loaded first. */
	l = fresh();
	assert_int_equal(procmaps_parse_maps(
	    "7f0ad0221000-7f0ad0230000 r--p 00000000 fe:00 1 "
	    "/usr/lib/libtcmalloc.so.4.6.5\n"
	    "7f0ad0249000-7f0ad0253000 r--p 00028000 fe:00 1 "
	    "/usr/lib/libtcmalloc.so.4.6.5\n"
	    "7f0ad1800000-7f0ad180a000 r--p 00000000 fe:00 2 "
	    "/usr/lib/libtcmalloc_minimal.so.4.6.5\n"
	    "7f0ad2800000-7f0ad280a000 r--p 00000000 fe:00 3 "
	    "/usr/lib/libc.so.6\n", &l), 0);
	assert_int_equal(l.allocator, ALLOC_TCMALLOC);
	assert_string_equal(l.allocator_lib,
	    "/usr/lib/libtcmalloc_minimal.so.4.6.5");
}

/* One region of smaps: its header, then its Rss. */
static void
region(FILE *fp, uint64_t start, uint64_t end, const char *perms,
    const char *path, long rss_kb)
{
	fprintf(fp, "%012llx-%012llx %s 00000000 00:00 0 %s\n"
	    "Rss:        %ld kB\nAnonHugePages:     0 kB\n",
	    (unsigned long long)start, (unsigned long long)end, perms, path,
	    rss_kb);
}

#define AT(n) ((uint64_t)0x7f0000000000 + (uint64_t)(n) * 64 * MIB)

static void
test_heap_shapes(void **state)
{
	struct process_layers l = fresh();
	char *text = NULL;
	size_t len = 0;
	FILE *fp = open_memstream(&text, &len);

	(void)state;
	assert_non_null(fp);
	fprintf(fp, "7f1000000000-7f1000001000 r--p 00000000 fe:00 1 "
	    "/usr/lib/libc.so.6\nRss: 4 kB\n");
	/* A heap grown to the whole 64 MiB: one rw-p region. Counted. */
	region(fp, AT(0), AT(1), "rw-p", "", 100);
	/* Its ---p part merged with a thread's guard page after it. */
	region(fp, AT(2), AT(2) + MIB, "rw-p", "", 200);
	region(fp, AT(2) + MIB, AT(3) + 4096, "---p", "", 0);
	/* Named by glibc 2.41's glibc.mem.decorate_maps. */
	region(fp, AT(4), AT(4) + MIB, "rw-p",
	    "[anon: glibc: malloc arena]", 400);
	region(fp, AT(4) + MIB, AT(5), "---p",
	    "[anon: glibc: malloc arena]", 0);
	/* Not heaps: a buffer pool of 128 MiB mmapped at a boundary, */
	region(fp, AT(6), AT(8), "rw-p", "", 1000);
	/* a ---p part that stops short of the boundary, */
	region(fp, AT(9), AT(9) + MIB, "rw-p", "", 2000);
	region(fp, AT(9) + MIB, AT(10) - 4096, "---p", "", 0);
	/* a gap between the two parts, */
	region(fp, AT(11), AT(11) + MIB, "rw-p", "", 3000);
	region(fp, AT(11) + 2 * MIB, AT(12), "---p", "", 0);
	/* a file's pages, */
	region(fp, AT(12), AT(12) + MIB, "rw-p", "/dev/shm/x",
	    4000);
	region(fp, AT(12) + MIB, AT(13), "---p", "", 0);
	/* and a region not at a boundary. */
	region(fp, AT(13) + 4096, AT(13) + MIB, "rw-p", "",
	    5000);
	region(fp, AT(13) + MIB, AT(14) + 4096, "---p", "", 0);
	assert_int_equal(fclose(fp), 0);

	assert_int_equal(procmaps_parse_smaps(text, &l), 0);
	assert_int_equal(l.allocator, ALLOC_GLIBC);
	assert_int_equal(l.arenas, 3 + 1);
	assert_int_equal(l.arena_resident, (100 + 200 + 400) * KB);
	free(text);
}

static void
test_junk(void **state)
{
	struct process_layers l = fresh();

	(void)state;
	assert_int_equal(procmaps_parse_maps("", &l), -1);
	assert_int_equal(procmaps_parse_maps("Name:\tmariadbd\n", &l), -1);
	/* Not headers: no dash, bad permissions, no inode, end <= start. */
	assert_int_equal(procmaps_parse_maps("7f00 rw-p 0 00:00 0\n", &l),
	    -1);
	assert_int_equal(procmaps_parse_maps("10-20 rwxq 0 00:00 0\n", &l),
	    -1);
	assert_int_equal(procmaps_parse_maps("10-20 rw-p 0 00:00 \n", &l),
	    -1);
	assert_int_equal(procmaps_parse_maps("20-10 rw-p 0 00:00 0\n", &l),
	    -1);
	assert_int_equal(procmaps_parse_maps(
	    "100000000000000000-200000000000000000 rw-p 0 00:00 0\n", &l), -1);
	/* A header, and an Rss that is no number of kB. */
	assert_int_equal(procmaps_parse_smaps("10-20 rw-p 0 00:00 0\n"
	    "Rss: many kB\n", &l), -1);
	assert_int_equal(procmaps_parse_smaps("10-20 rw-p 0 00:00 0\n"
	    "Rss: 4 MB\n", &l), -1);
	assert_int_equal(procmaps_parse_smaps("10-20 rw-p 0 00:00 0\n"
	    "Rss: 99999999999999999999 kB\n", &l), -1);
	/* Sums that would overflow. */
	assert_int_equal(procmaps_parse_smaps("10-20 rw-p 0 00:00 0 "
	    "[heap]\nRss: 9007199254740991 kB\n30-40 rw-p 0 00:00 0 [heap]\n"
	    "Rss: 9007199254740991 kB\n", &l), -1);
	assert_int_equal(procmaps_parse_smaps("10-20 rw-p 0 00:00 0\n"
	    "Rss: 4 kB\nAnonHugePages: 9007199254740991 kB\n"
	    "30-40 rw-p 0 00:00 0\nRss: 4 kB\n"
	    "AnonHugePages: 9007199254740991 kB\n", &l), -1);
	/* The smallest that is right: no allocator known, no arenas. */
	l = fresh();
	assert_int_equal(procmaps_parse_smaps("10-20 rw-p 0 00:00 0\n"
	    "Rss: 4 kB\n", &l), 0);
	assert_int_equal(l.allocator, ALLOC_UNKNOWN);
	assert_string_equal(l.allocator_lib, "");
	assert_int_equal(l.arenas, 0);
	assert_string_equal(procmaps_allocator_name(l.allocator), "unknown");
}

static void
test_status(void **state)
{
	struct process_layers l = fresh();

	(void)state;
	assert_int_equal(procmaps_parse_status(glibc_status, &l), 0);
	assert_int_equal(l.rss, 835692 * KB);
	assert_int_equal(l.anon, 810224 * KB);
	assert_int_equal(l.file, 25468 * KB);
	assert_int_equal(l.shmem, 12 * KB);
	assert_int_equal(l.swap, 340 * KB);
	/* Without RssShmem and VmSwap: not known. */
	l = fresh();
	assert_int_equal(procmaps_parse_status("VmRSS:\t 10 kB\n"
	    "RssAnon:\t 6 kB\nRssFile:\t 4 kB\n", &l), 0);
	assert_int_equal(l.shmem, -1);
	assert_int_equal(l.swap, -1);
	/* Before Linux 4.5: no RssAnon. */
	assert_int_equal(procmaps_parse_status("VmRSS:\t 10 kB\n", &l), -1);
}

/* The fixture tree. */

static void
put(const char *name, const char *text)
{
	char path[256];
	FILE *fp;

	snprintf(path, sizeof(path), "%s/%s", root, name);
	assert_non_null(fp = fopen(path, "w"));
	fputs(text, fp);
	assert_int_equal(fclose(fp), 0);
}

/* A process of the tree: its status, smaps and maps. */
static void
process(const char *smaps)
{
	char *maps = maps_of(smaps);

	put("2902/status", glibc_status);
	put("2902/smaps", smaps);
	put("2902/maps", maps);
	free(maps);
}

/* name made a folder: it opens, and cannot be read (EISDIR). */
static void
unreadable(const char *name)
{
	char path[256];

	snprintf(path, sizeof(path), "%s/%s", root, name);
	assert_int_equal(unlink(path), 0);
	assert_int_equal(mkdir(path, 0700), 0);
}

static int
setup(void **state)
{
	char dir[128];

	(void)state;
	snprintf(root, sizeof(root), "/tmp/test_procmaps.XXXXXX");
	assert_non_null(mkdtemp(root));
	snprintf(dir, sizeof(dir), "%s/%d", root, PID);
	assert_int_equal(mkdir(dir, 0700), 0);
	return 0;
}

static int
teardown(void **state)
{
	char cmd[256];

	(void)state;
	snprintf(cmd, sizeof(cmd), "chmod -R u+rwx '%s'; rm -rf '%s'", root,
	    root);
	assert_int_equal(system(cmd), 0);
	return 0;
}

static void
test_layers_of_each(void **state)
{
	struct process_layers l;

	(void)state;
	process(glibc_smaps);
	assert_int_equal(procfs_layers(root, PID, &l), 0);
	assert_true(l.known);
	assert_string_equal(l.why, "");
	assert_int_equal(l.rss, 835692 * KB);
	assert_int_equal(l.swap, 340 * KB);
	assert_int_equal(l.allocator, ALLOC_GLIBC);
	assert_int_equal(l.arenas, 8);
	assert_int_equal(l.brk_heap_resident, 38836 * KB);
	assert_int_equal(l.anon_huge, 2048 * KB);

	process(jemalloc_smaps);
	assert_int_equal(procfs_layers(root, PID, &l), 0);
	assert_int_equal(l.allocator, ALLOC_JEMALLOC);
	assert_int_equal(l.arenas, 0);

	process(tcmalloc_smaps);
	assert_int_equal(procfs_layers(root, PID, &l), 0);
	assert_int_equal(l.allocator, ALLOC_TCMALLOC);
	assert_int_equal(l.brk_heap_resident, 407632 * KB);
}

/* smaps that cannot be read: maps says the allocator and the arenas. */
static void
test_smaps_unreadable(void **state)
{
	struct process_layers l;

	(void)state;
	process(glibc_smaps);
	unreadable("2902/smaps");
	assert_int_equal(procfs_layers(root, PID, &l), 0);
	assert_true(l.known);
	assert_non_null(strstr(l.why, "cannot read "));
	assert_non_null(strstr(l.why, "/2902/smaps: Is a directory"));
	assert_int_equal(l.allocator, ALLOC_GLIBC);
	assert_int_equal(l.arenas, 8);
	assert_int_equal(l.arena_resident, -1);
	assert_int_equal(l.brk_heap_resident, -1);
	assert_int_equal(l.rss, 835692 * KB);
}

/* Neither: not known, and why; status's figures still there. */
static void
test_maps_unreadable(void **state)
{
	struct process_layers l;

	(void)state;
	process(glibc_smaps);
	unreadable("2902/smaps");
	unreadable("2902/maps");
	assert_int_equal(procfs_layers(root, PID, &l), -1);
	assert_false(l.known);
	assert_non_null(strstr(l.why, "/2902/smaps: Is a directory"));
	assert_int_equal(l.rss, 835692 * KB);
	assert_int_equal(l.arenas, 0);
	assert_int_equal(l.arena_resident, -1);
}

/*
 * Another user's process: its smaps and maps are its user's and root's.
 * The tree's files made unreadable, which root reads all the same: only
 * run when not root.
 */
static void
test_not_ours(void **state)
{
	struct process_layers l;
	char path[256];

	(void)state;
	if (geteuid() == 0) {
		skip();
		return;
	}
	process(glibc_smaps);
	snprintf(path, sizeof(path), "%s/2902/smaps", root);
	assert_int_equal(chmod(path, 0), 0);
	snprintf(path, sizeof(path), "%s/2902/maps", root);
	assert_int_equal(chmod(path, 0), 0);
	assert_int_equal(procfs_layers(root, PID, &l), -1);
	assert_false(l.known);
	assert_non_null(strstr(l.why, "Permission denied (another user's "
	    "process"));
}

static void
test_gone(void **state)
{
	struct process_layers l;

	(void)state;
	assert_int_equal(procfs_layers(root, 4242, &l), -1);
	assert_false(l.known);
	assert_non_null(strstr(l.why, "no process 4242 under "));
	assert_non_null(strstr(l.why, "another pid namespace"));
	assert_int_equal(l.rss, -1);
	/* Ended between status and smaps: smaps reads empty. */
	process(glibc_smaps);
	put("2902/smaps", "");
	assert_int_equal(procfs_layers(root, PID, &l), -1);
	assert_false(l.known);
	assert_non_null(strstr(l.why, "no process 2902 under "));
}

/*
 * A big server's smaps is some MiB: read whole, not cut at a buffer's
 * size. 3,000 thread stacks (guard and stack), then a heap at the end.
 */
static void
test_large_smaps(void **state)
{
	struct process_layers l;
	char *text = NULL;
	size_t len = 0;
	FILE *fp = open_memstream(&text, &len);
	uint64_t at = 0x7e0000000000;

	(void)state;
	assert_non_null(fp);
	fprintf(fp, "7f1000000000-7f1000001000 r--p 00000000 fe:00 1 "
	    "/usr/lib/libc.so.6\nRss: 4 kB\n");
	for (int i = 0; i < 3000; i++, at += 0x49000) {
		region(fp, at, at + 0x1000, "---p", "", 0);
		region(fp, at + 0x1000, at + 0x49000, "rw-p", "",
		    16);
	}
	region(fp, AT(0), AT(0) + MIB, "rw-p", "", 700);
	region(fp, AT(0) + MIB, AT(1), "---p", "", 0);
	assert_int_equal(fclose(fp), 0);
	assert_true(len > 200000);
	put("2902/status", glibc_status);
	put("2902/smaps", text);
	assert_int_equal(procfs_layers(root, PID, &l), 0);
	assert_int_equal(l.arenas, 2);
	assert_int_equal(l.arena_resident, 700 * KB);
	free(text);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_glibc),
		cmocka_unit_test(test_jemalloc),
		cmocka_unit_test(test_tcmalloc),
		cmocka_unit_test(test_preloaded_over_linked),
		cmocka_unit_test(test_heap_shapes),
		cmocka_unit_test(test_junk),
		cmocka_unit_test(test_status),
		cmocka_unit_test_setup_teardown(test_layers_of_each, setup,
		    teardown),
		cmocka_unit_test_setup_teardown(test_smaps_unreadable, setup,
		    teardown),
		cmocka_unit_test_setup_teardown(test_maps_unreadable, setup,
		    teardown),
		cmocka_unit_test_setup_teardown(test_not_ours, setup,
		    teardown),
		cmocka_unit_test_setup_teardown(test_gone, setup, teardown),
		cmocka_unit_test_setup_teardown(test_large_smaps, setup,
		    teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
