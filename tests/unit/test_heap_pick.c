/*
 * Which dumps --heap reads, in a tree of /proc fixtures and a folder of
 * dumps: the newest of the server's pid by its SEQ (10 after 9), the first
 * for --heap-base first, a base of another pid refused, and each reason
 * there is nothing to read with its exit status.
 */
#include <fcntl.h>
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

#include "exitcode.h"
#include "heap_pick.h"

#define PID 2902
#define BTIME 1795630870
#define STARTED (BTIME + 25781)
#define JEMALLOC "7fd498000000-7fd498100000 r-xp 00010000 fe:00 332384 " \
	"/usr/lib/x86_64-linux-gnu/libjemalloc.so.2\n"

static char tmp[64], err[2048];
static struct session sess = { .server = { .boot_s = STARTED, .pid = PID } };
static struct options opts;
static struct heap_pick pick;

static void
put(const char *name, const char *text, size_t len)
{
	char path[256];
	FILE *fp;

	snprintf(path, sizeof(path), "%s/%s", tmp, name);
	assert_non_null(fp = fopen(path, "w"));
	assert_int_equal(fwrite(text, 1, len, fp), len);
	assert_int_equal(fclose(fp), 0);
}

#define PUT(name, s) put(name, s, sizeof(s) - 1)

/* The server's process: mariadbd started with the server, and its environ. */
static void
server(const char *environ, size_t len, const char *maps)
{
	char text[512], path[256];

	snprintf(text, sizeof(text), "%d (mariadbd) S 1 2541 26269 0 -1 "
	    "4194560 53663 0 0 0 108 54 0 0 20 0 10 0 %ld 8797510500352 "
	    "54638\n", PID, (long)(STARTED - BTIME) * sysconf(_SC_CLK_TCK));
	put("2902/stat", text, strlen(text));
	PUT("2902/comm", "mariadbd\n");
	put("2902/environ", environ, len);
	put("2902/maps", maps, strlen(maps));
	snprintf(path, sizeof(path), "%s/%d/cwd", tmp, PID);
	unlink(path);
	assert_int_equal(symlink(tmp, path), 0);
	snprintf(path, sizeof(path), "%s/%d/root", tmp, PID);
	unlink(path);
	assert_int_equal(symlink("/", path), 0);
}

#define SERVER(env, maps) server(env, sizeof(env) - 1, maps)
#define PROFILED "MALLOC_CONF=prof:true,prof_prefix:dumps/jeprof\0"

static int
pick_server(void)
{
	memset(err, 0, sizeof(err));
	return heap_pick_server(&sess, &opts, tmp, &pick, err, sizeof(err));
}

static int
setup(void **state)
{
	char dir[128];

	(void)state;
	snprintf(tmp, sizeof(tmp), "/tmp/test_heap_pick.XXXXXX");
	assert_non_null(mkdtemp(tmp));
	snprintf(dir, sizeof(dir), "%s/%d", tmp, PID);
	assert_int_equal(mkdir(dir, 0700), 0);
	snprintf(dir, sizeof(dir), "%s/dumps", tmp);
	assert_int_equal(mkdir(dir, 0700), 0);
	PUT("stat", "cpu  1 2 3 4\nbtime 1795630870\n");
	memset(&opts, 0, sizeof(opts));
	return 0;
}

static int
teardown(void **state)
{
	char cmd[128];

	(void)state;
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", tmp);
	assert_int_equal(system(cmd), 0);
	return 0;
}

static void
test_not_profiled(void **state)
{
	(void)state;
	SERVER("PATH=/bin\0", "");
	assert_int_equal(pick_server(), EXIT_NO_PROFILE);
	assert_non_null(strstr(err, "(pid 2902) does not run on jemalloc: "
	    "start it with jemalloc's profiling"));
	assert_non_null(strstr(err, "MALLOC_CONF=prof:true,"));
	assert_null(strchr(err, '\n'));
	/* Its prefix in no folder: said as not profiled, not as no folder. */
	SERVER("MALLOC_CONF=prof_prefix:/nonexistent/x\0", JEMALLOC);
	assert_int_equal(pick_server(), EXIT_NO_PROFILE);
	assert_non_null(strstr(err, "runs on jemalloc without profiling"));
	/* Profiled, no dump yet. */
	SERVER(PROFILED, JEMALLOC);
	assert_int_equal(pick_server(), EXIT_NO_PROFILE);
	assert_non_null(strstr(err, "no dump of the server's process (pid "
	    "2902) under "));
}

static void
test_newest_and_first(void **state)
{
	(void)state;
	SERVER(PROFILED, JEMALLOC);
	PUT("dumps/jeprof.2902.9.i9.heap", "");
	PUT("dumps/jeprof.2902.10.i10.heap", "");
	PUT("dumps/jeprof.2902.1.i1.heap", "");
	PUT("dumps/jeprof.3000.77.i77.heap", "");
	assert_int_equal(pick_server(), 0);
	assert_int_equal(pick.pid, PID);
	assert_non_null(strstr(pick.dump, "/dumps/jeprof.2902.10.i10.heap"));
	assert_string_equal(pick.base, "");
	assert_string_equal(pick.root, "");
	/* The one read when the newest is still being written. */
	assert_non_null(strstr(pick.prev, "/dumps/jeprof.2902.9.i9.heap"));
	opts.heap_base = "first";
	assert_int_equal(pick_server(), 0);
	assert_non_null(strstr(pick.base, "/dumps/jeprof.2902.1.i1.heap"));
	assert_non_null(strstr(pick.prev, "/dumps/jeprof.2902.9.i9.heap"));
	/* --heap-dir: the folder, whatever the prefix. */
	opts.heap_base = NULL;
	PUT("jemalloc.2902.12.i12.heap", "");
	opts.heap_dir = tmp;
	assert_int_equal(pick_server(), 0);
	assert_non_null(strstr(pick.dump, "/jemalloc.2902.12.i12.heap"));
}

/* A dump the server holds open is being written; one it closed is not. */
static void
test_being_written(void **state)
{
	char dir[128], link[160], dump[160];

	(void)state;
	SERVER(PROFILED, JEMALLOC);
	PUT("dumps/jeprof.2902.1.i1.heap", "");
	PUT("dumps/jeprof.2902.2.i2.heap", "");
	snprintf(dir, sizeof(dir), "%s/%d/fd", tmp, PID);
	assert_int_equal(mkdir(dir, 0700), 0);
	snprintf(dump, sizeof(dump), "%s/dumps/jeprof.2902.2.i2.heap", tmp);
	snprintf(link, sizeof(link), "%s/7", dir);
	assert_int_equal(symlink(dump, link), 0);
	snprintf(link, sizeof(link), "%s/8", dir);
	assert_int_equal(symlink("/nonexistent", link), 0);
	assert_int_equal(pick_server(), 0);
	assert_string_equal(pick.dump, dump);
	assert_int_equal(heap_pick_being_written(&pick, dump), 1);
	assert_int_equal(heap_pick_being_written(&pick, pick.prev), 0);
	/* --heap-file: no server's fds to look in. */
	opts.heap_file = dump;
	assert_int_equal(heap_pick_file(&opts, &pick), 0);
	assert_int_equal(heap_pick_being_written(&pick, dump), 0);
}

static void
test_base_of_another_process(void **state)
{
	char other[128];

	(void)state;
	SERVER(PROFILED, JEMALLOC);
	PUT("dumps/jeprof.2902.1.i1.heap", "");
	PUT("dumps/jeprof.3000.77.i77.heap", "");
	snprintf(other, sizeof(other), "%s/dumps/jeprof.3000.77.i77.heap", tmp);
	opts.heap_base = other;
	assert_int_equal(pick_server(), EXIT_RUNTIME);
	assert_non_null(strstr(err, "is a dump of pid 3000, not of the "
	    "server's process (pid 2902)"));
	snprintf(other, sizeof(other), "%s/stat", tmp);
	assert_int_equal(pick_server(), EXIT_RUNTIME);
	assert_non_null(strstr(err, ": not a dump's name"));
	/* One dump: no growth since the first yet. */
	opts.heap_base = "first";
	assert_int_equal(pick_server(), EXIT_NO_PROFILE);
	assert_non_null(strstr(err, "has one dump yet"));
}

static void
test_not_the_server(void **state)
{
	(void)state;
	SERVER(PROFILED, JEMALLOC);
	PUT("2902/comm", "bash\n");
	assert_int_equal(pick_server(), EXIT_RUNTIME);
	assert_non_null(strstr(err, "--heap reads the server's process "
	    "here, but "));
	assert_non_null(strstr(err, "give --heap-file"));
	/* A server on another host: its pid is no process here. */
	sess.server.pid = PID + 1;
	assert_int_equal(pick_server(), EXIT_RUNTIME);
	sess.server.pid = PID;
	assert_non_null(strstr(err, "--heap reads the server's process "
	    "here, but "));
	assert_non_null(strstr(err, "give --heap-file"));
	assert_non_null(strstr(err, "no process 2903 on this machine"));
	assert_null(strchr(err, '\n'));
}

/*
 * A folder past HEAP_FOLDER_FILES dumps (of any process: helpers' count)
 * or HEAP_FOLDER_BYTES gets its note; at the bound, or with files that
 * are not dumps, none.
 */
static void
test_folder_past_its_bound(void **state)
{
	char name[64], path[256], dir[256];
	int i, fd;

	(void)state;
	SERVER(PROFILED, JEMALLOC);
	for (i = 0; i < HEAP_FOLDER_FILES - 1; i++) {
		snprintf(name, sizeof(name), "dumps/jeprof.%d.%d.i%d.heap",
		    i % 2 ? PID : 3000, i, i);
		put(name, "", 0);
	}
	PUT("dumps/jeprof.2902.x.heap", "");
	PUT("dumps/notes.txt", "");
	PUT("dumps/jeprof.2902.5000.i5000.heap", "");
	assert_int_equal(pick_server(), 0);
	assert_string_equal(pick.folder_note, "");
	PUT("dumps/jeprof.3000.5001.u5001.heap", "");
	assert_int_equal(pick_server(), 0);
	assert_non_null(strstr(pick.folder_note, "/dumps/jeprof.*.heap: "
	    "1001 dumps, 0.0 MiB, and neither the server nor mysqlmemprof "
	    "removes one: bound the folder"));
	assert_null(strchr(pick.folder_note, '\n'));
	/* One large dump (sparse: its size is what counts). */
	snprintf(path, sizeof(path), "%s/big", tmp);
	assert_int_equal(mkdir(path, 0700), 0);
	snprintf(path, sizeof(path), "%s/big/jeprof.2902.1.i1.heap", tmp);
	assert_true((fd = open(path, O_WRONLY | O_CREAT, 0600)) >= 0);
	assert_int_equal(ftruncate(fd, (off_t)HEAP_FOLDER_BYTES), 0);
	assert_int_equal(close(fd), 0);
	snprintf(dir, sizeof(dir), "%s/big/jeprof", tmp);
	opts.heap_dir = dir;
	assert_int_equal(pick_server(), 0);
	assert_string_equal(pick.folder_note, "");
	snprintf(path, sizeof(path), "%s/big/jeprof.3000.2.f.heap", tmp);
	assert_true((fd = open(path, O_WRONLY | O_CREAT, 0600)) >= 0);
	assert_int_equal(write(fd, "x", 1), 1);
	assert_int_equal(close(fd), 0);
	assert_int_equal(pick_server(), 0);
	assert_non_null(strstr(pick.folder_note, ": 2 dumps, 1024.0 MiB, "));
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_not_profiled, setup,
		    teardown),
		cmocka_unit_test_setup_teardown(test_newest_and_first, setup,
		    teardown),
		cmocka_unit_test_setup_teardown(test_being_written, setup,
		    teardown),
		cmocka_unit_test_setup_teardown(test_base_of_another_process,
		    setup, teardown),
		cmocka_unit_test_setup_teardown(test_not_the_server, setup,
		    teardown),
		cmocka_unit_test_setup_teardown(test_folder_past_its_bound,
		    setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
