/*
 * The server's process beside the samples, against a fake server and a
 * tree of /proc fixtures: trusted once per run of the server (not per
 * sample), read from status or else smaps_rollup, absent with one note
 * when the id is not the server's here, and the server's own count asked
 * at most once a second. Its memory cgroup beside it, from a tree of
 * /sys/fs/cgroup fixtures (test_cgroup.c tests the files' reading): found
 * once per trusted pid, one note when there is none, none for a process
 * that is not the server's.
 */
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fake_server.h"
#include "procfs.h"
#include "resident.h"

#define PID 2902
#define BTIME 1795630870
/* Started 25781 s after boot, at the kernel's ticks per second. */
#define STARTED (BTIME + 25781)

static struct fake_server srv;
static struct session sess;
static char root[64];
static char sys[128];
static char told[4][1024];
static size_t n_told;
static struct resident res;
static struct source src;

static void
notify(void *ctx, const char *msg)
{
	(void)ctx;
	if (n_told < 4)
		snprintf(told[n_told], sizeof(told[0]), "%s", msg);
	n_told++;
}

static enum source_status
inner_read(void *ctx, uint64_t deadline_ns, struct reading *out, char *err,
    size_t errlen)
{
	(void)ctx, (void)deadline_ns, (void)err, (void)errlen;
	*out = (struct reading){ 0 };
	return SOURCE_OK;
}

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

static void
drop(const char *name)
{
	char path[256];

	snprintf(path, sizeof(path), "%s/%s", root, name);
	unlink(path);
}

static void
exe_is(const char *target)
{
	char path[256];

	snprintf(path, sizeof(path), "%s/%d/exe", root, PID);
	unlink(path);
	assert_int_equal(symlink(target, path), 0);
}

/* The process's stat with its start, in ticks after boot. */
static void
started_at(long secs)
{
	char text[512];

	snprintf(text, sizeof(text), "%d (mariadbd) S 1 2541 26269 0 -1 "
	    "4194560 53663 0 0 0 108 54 0 0 20 0 10 0 %ld 8797510500352 "
	    "54638\n", PID, secs * sysconf(_SC_CLK_TCK));
	put("2902/stat", text);
}

static int
setup(void **state)
{
	char dir[128], cmd[256];

	(void)state;
	snprintf(root, sizeof(root), "/tmp/test_resident.XXXXXX");
	assert_non_null(mkdtemp(root));
	snprintf(dir, sizeof(dir), "%s/%d", root, PID);
	assert_int_equal(mkdir(dir, 0700), 0);
	put("stat", "cpu  1 2 3 4\nintr 1 0 9\nbtime 1795630870\n"
	    "processes 2307\n");
	started_at(STARTED - BTIME);
	put("2902/comm", "mariadbd\n");
	put("2902/smaps_rollup", "564e03f28000-7fff808e3000 ---p 00000000 "
	    "00:00 0 [rollup]\nRss:  300000 kB\nPss:  290000 kB\n"
	    "Anonymous:  250000 kB\n");
	put("2902/status", "Name:\tmariadbd\nVmRSS:\t 200000 kB\n"
	    "RssAnon:\t 150000 kB\nRssFile:\t 50000 kB\n");
	exe_is("/usr/sbin/mariadbd");
	put("2902/cgroup", "4:memory:/mmp\n0::/\n");
	snprintf(sys, sizeof(sys), "%s/sys", root);
	snprintf(dir, sizeof(dir), "%s/sys/memory/mmp", root);
	snprintf(cmd, sizeof(cmd), "mkdir -p '%s'", dir);
	assert_int_equal(system(cmd), 0);
	put("sys/memory/mmp/memory.usage_in_bytes", "218532096\n");
	put("sys/memory/mmp/memory.limit_in_bytes", "4294967296\n");
	put("sys/memory/mmp/memory.oom_control", "oom_kill_disable 0\n"
	    "under_oom 0\noom_kill 0\n");
	srv = (struct fake_server){ .boot_s = STARTED, .pid = PID,
	    .next_own = 7, .status_bytes = 4096, .status_known = true };
	fake_session(&srv, &sess);
	n_told = 0;
	res = (struct resident){
		.inner = { .read = inner_read }, .session = &sess,
		.clk = &fake_clock, .proc = root, .sys = sys,
		.notify = notify,
	};
	src = resident_source(&res);
	return 0;
}

static int
teardown(void **state)
{
	char cmd[128];

	(void)state;
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", root);
	assert_int_equal(system(cmd), 0);
	return 0;
}

static struct reading
read_one(void)
{
	struct reading r;
	char err[256];

	assert_int_equal(src.read(src.ctx, 0, &r, err, sizeof(err)),
	    SOURCE_OK);
	srv.now += 250 * MS;
	return r;
}

static void
test_reads_the_trusted_process(void **state)
{
	struct reading r;

	(void)state;
	r = read_one();
	assert_true(r.process.known);
	/* status, not smaps_rollup's costly walk of the page tables. */
	assert_int_equal(r.process.resident_bytes, 200000 * 1024LL);
	assert_int_equal(r.process.anon_bytes, 150000 * 1024LL);
	assert_int_equal(r.process.file_bytes, 50000 * 1024LL);
	assert_true(r.process.has_status);
	assert_int_equal(r.process.status_bytes, 4096);
	assert_int_equal(n_told, 0);
	/* A kernel before 4.5: no RssAnon in status; smaps_rollup then. */
	put("2902/status", "Name:\tmariadbd\nVmRSS:\t 200000 kB\n");
	r = read_one();
	assert_true(r.process.known);
	assert_int_equal(r.process.resident_bytes, 300000 * 1024LL);
	assert_int_equal(r.process.anon_bytes, 250000 * 1024LL);
	assert_int_equal(r.process.file_bytes, 50000 * 1024LL);
	assert_int_equal(n_told, 0);
}

static void
test_status_once_a_second(void **state)
{
	struct reading r;

	(void)state;
	for (int i = 0; i < 12; i++) {
		r = read_one();
		if (i == 5)
			srv.status_bytes = 8192;
	}
	/* 12 samples in 3 s: the status asked at 0, 1 and 2 s. */
	assert_int_equal(srv.status_reads, 3);
	assert_int_equal(r.process.status_bytes, 8192);
	srv.status_known = false;
	srv.now += 1000 * MS;
	r = read_one();
	assert_false(r.process.has_status);
	assert_int_equal(r.process.status_bytes, 0);
	assert_true(r.process.known);
}

static void
test_checks_once_per_run_of_the_server(void **state)
{
	struct reading r;

	(void)state;
	assert_true(read_one().process.known);
	/*
	 * Checked at the first sample only: what the id's process is now
	 * is not asked again while the session knows the same server.
	 */
	exe_is("/usr/bin/python3.11");
	assert_true(read_one().process.known);
	/* A reconnect learns another run of the server: checked again. */
	sess.server.boot_s += 60;
	r = read_one();
	assert_false(r.process.known);
	assert_true(r.process.has_status);
	assert_int_equal(n_told, 1);
	assert_non_null(strstr(told[0], "python3.11, not mysqld or "
	    "mariadbd"));
	assert_non_null(strstr(told[0], "untracked_bytes columns are null"));
	for (int i = 0; i < 8; i++)
		assert_false(read_one().process.known);
	assert_int_equal(n_told, 1);
}

static void
test_another_server_is_not_trusted(void **state)
{
	(void)state;
	/*
	 * The same binary, started an hour after the server connected to: its
	 * pid reused by a newer process.
	 */
	started_at(STARTED - BTIME + 3600);
	for (int i = 0; i < 4; i++)
		assert_false(read_one().process.known);
	assert_int_equal(n_told, 1);
	assert_non_null(strstr(told[0], "started 3600 s after"));
}

static void
test_no_such_process_here(void **state)
{
	struct reading r;

	(void)state;
	sess.server.pid = 77777;
	r = read_one();
	assert_false(r.process.known);
	assert_int_equal(r.process.resident_bytes, 0);
	/* A server elsewhere: no cgroup either, and no second note on it. */
	assert_false(r.process.has_cgroup);
	assert_int_equal(r.process.pid, 0);
	/* The server's own count comes from the server, from anywhere. */
	assert_true(r.process.has_status);
	assert_int_equal(n_told, 1);
	assert_non_null(strstr(told[0], "no process 77777 on this machine"));
	/* A reconnect to a server still elsewhere: no second note. */
	sess.server.boot_s += 60;
	assert_false(read_one().process.known);
	assert_int_equal(n_told, 1);
}

static void
test_process_gone(void **state)
{
	(void)state;
	assert_true(read_one().process.known);
	drop("2902/smaps_rollup");
	drop("2902/status");
	assert_false(read_one().process.known);
	assert_false(read_one().process.known);
	assert_int_equal(n_told, 1);
	assert_non_null(strstr(told[0], "cannot read process 2902"));
}

static void
test_reads_the_cgroup(void **state)
{
	struct reading r;
	char cmd[320];

	(void)state;
	r = read_one();
	assert_int_equal(r.process.pid, PID);
	assert_true(r.process.has_cgroup);
	assert_int_equal(r.process.cgroup_version, 1);
	assert_int_equal(r.process.cgroup_usage_bytes, 218532096);
	assert_int_equal(r.process.cgroup_limit_bytes, 4096LL << 20);
	assert_int_equal(r.process.cgroup_oom_kills, 0);
	/*
	 * The counts are read with every sample; the limits (a walk up the
	 * tree) and the folder once a minute: a new limit and a move are seen
	 * then, not before.
	 */
	put("sys/memory/mmp/memory.oom_control", "oom_kill 1\n");
	put("sys/memory/mmp/memory.limit_in_bytes", "9223372036854771712\n");
	snprintf(cmd, sizeof(cmd), "mkdir -p '%s/sys/memory/other'", root);
	assert_int_equal(system(cmd), 0);
	put("sys/memory/other/memory.usage_in_bytes", "5\n");
	put("sys/memory/other/memory.limit_in_bytes", "4096\n");
	put("2902/cgroup", "4:memory:/other\n");
	r = read_one();
	assert_true(r.process.has_cgroup);
	assert_int_equal(r.process.cgroup_oom_kills, 1);
	assert_int_equal(r.process.cgroup_limit_bytes, 4096LL << 20);
	assert_int_equal(r.process.cgroup_usage_bytes, 218532096);
	srv.now += RESIDENT_CGROUP_EVERY_NS;
	r = read_one();
	assert_int_equal(r.process.cgroup_usage_bytes, 5);
	assert_int_equal(r.process.cgroup_limit_bytes, 4096);
	put("2902/cgroup", "4:memory:/mmp\n");
	srv.now += RESIDENT_CGROUP_EVERY_NS;
	r = read_one();
	assert_true(r.process.has_cgroup);
	/* No limit is a figure, not a failure: no note. */
	assert_int_equal(r.process.cgroup_limit_bytes, -1);
	assert_int_equal(n_told, 0);
	/* The cgroup removed: one note, the process still read. */
	drop("sys/memory/mmp/memory.usage_in_bytes");
	for (int i = 0; i < 3; i++) {
		r = read_one();
		assert_true(r.process.known);
		assert_false(r.process.has_cgroup);
	}
	assert_int_equal(n_told, 1);
	assert_non_null(strstr(told[0], "memory cgroup is not shown: cannot "
	    "read"));
}

static void
test_no_memory_cgroup(void **state)
{
	struct reading r;

	(void)state;
	/* v2's root cgroup only: no memory controller's files to read. */
	put("2902/cgroup", "0::/\n");
	for (int i = 0; i < 3; i++) {
		r = read_one();
		assert_true(r.process.known);
		assert_false(r.process.has_cgroup);
	}
	assert_int_equal(n_told, 1);
	assert_non_null(strstr(told[0], "process 2902 is in no memory cgroup "
	    "found under"));
	assert_non_null(strstr(told[0], "cgroup_* columns are null"));
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_reads_the_trusted_process,
		    setup, teardown),
		cmocka_unit_test_setup_teardown(test_status_once_a_second,
		    setup, teardown),
		cmocka_unit_test_setup_teardown(
		    test_checks_once_per_run_of_the_server, setup, teardown),
		cmocka_unit_test_setup_teardown(
		    test_another_server_is_not_trusted, setup, teardown),
		cmocka_unit_test_setup_teardown(test_no_such_process_here,
		    setup, teardown),
		cmocka_unit_test_setup_teardown(test_process_gone, setup,
		    teardown),
		cmocka_unit_test_setup_teardown(test_reads_the_cgroup, setup,
		    teardown),
		cmocka_unit_test_setup_teardown(test_no_memory_cgroup, setup,
		    teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
