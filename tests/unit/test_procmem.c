/*
 * The text of /proc files, parsed, and whether a process id is the
 * server's: fixtures copied from a MariaDB 10.11 sandbox's files (Linux
 * 6.x; Pss_Anon set apart from Anonymous, which it equalled there, so a
 * parser that took one for the other is seen), and the ways each can be
 * wrong.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <setjmp.h>
#include <cmocka.h>

#include "procmem.h"

static const char rollup[] =
    "564e03f28000-7fff808e3000 ---p 00000000 00:00 0"
    "                          [rollup]\n"
    "Rss:              218808 kB\n"
    "Pss:              197379 kB\n"
    "Pss_Dirty:        193148 kB\n"
    "Pss_Anon:         190001 kB\n"
    "Pss_File:           4251 kB\n"
    "Pss_Shmem:             0 kB\n"
    "Shared_Clean:      25348 kB\n"
    "Shared_Dirty:          0 kB\n"
    "Private_Clean:       312 kB\n"
    "Private_Dirty:    193148 kB\n"
    "Referenced:       218808 kB\n"
    "Anonymous:        193128 kB\n"
    "KSM:                   0 kB\n"
    "LazyFree:              0 kB\n"
    "AnonHugePages:         0 kB\n"
    "Swap:                  0 kB\n";

static const char status[] =
    "Name:\tmariadbd\n"
    "Umask:\t0022\n"
    "State:\tS (sleeping)\n"
    "VmPeak:\t 8591348 kB\n"
    "VmHWM:\t  220000 kB\n"
    "VmRSS:\t  218808 kB\n"
    "RssAnon:\t  193128 kB\n"
    "RssFile:\t   25680 kB\n"
    "RssShmem:\t       0 kB\n"
    "Threads:\t10\n";

static const char stat[] =
    "2902 (mariadbd) S 1 2541 26269 0 -1 4194560 53663 0 0 0 108 54 0 0 "
    "20 0 10 0 2578138 8797510500352 54638 18446744073709551615 "
    "94893080485888 94893090120297 140735350182064 0 0 0 552967 4102 "
    "26345 0 0 0 17 1 0 0 0 0 0\n";

/* /proc/stat's lines around btime; the real one has long "intr" lines. */
static const char proc_stat[] =
    "cpu  10132153 290696 3084719 46828483 16683 0 25195 0 0 0\n"
    "intr 1462898 0 9 0 0 0 0 3 0 1 0 0 0 0\n"
    "ctxt 1990473\n"
    "btime 1795630870\n"
    "processes 2307\n";

#define KB 1024

static void
test_rollup(void **state)
{
	struct process_memory p = { 0 };

	(void)state;
	assert_int_equal(procmem_parse_rollup(rollup, &p), 0);
	assert_true(p.known);
	assert_int_equal(p.resident_bytes, 218808 * KB);
	/* Anonymous, not Pss_Anon nor AnonHugePages, which start alike. */
	assert_int_equal(p.anon_bytes, 193128 * KB);
	assert_int_equal(p.file_bytes, (218808 - 193128) * KB);
}

static void
test_status(void **state)
{
	struct process_memory p = { 0 };

	(void)state;
	assert_int_equal(procmem_parse_status(status, &p), 0);
	assert_true(p.known);
	assert_int_equal(p.resident_bytes, 218808 * KB);
	assert_int_equal(p.anon_bytes, 193128 * KB);
	assert_int_equal(p.file_bytes, 25680 * KB);
}

static void
test_missing_or_broken_fields(void **state)
{
	struct process_memory p = { 0 };

	(void)state;
	/* A kernel thread's status has no VmRSS; a field cut short. */
	assert_int_equal(procmem_parse_status("Name:\tkthreadd\n", &p), -1);
	assert_int_equal(procmem_parse_rollup("Rss: 10 kB\n", &p), -1);
	assert_int_equal(procmem_parse_rollup("Rss: 10 kB\nAnonymous: x kB\n",
	    &p), -1);
	assert_int_equal(procmem_parse_rollup("Rss: 10kB\nAnonymous: 1 kB\n",
	    &p), -1);
	/* A key inside another line is not the key. */
	assert_int_equal(procmem_parse_rollup("XRss: 10 kB\nAnonymous: 1 kB\n",
	    &p), -1);
	/* A longer key that starts alike is another field. */
	assert_int_equal(procmem_parse_rollup("RssLater: 5 kB\nRss: 10 kB\n"
	    "Anonymous: 1 kB\n", &p), 0);
	assert_int_equal(p.resident_bytes, 10 * KB);
	p = (struct process_memory){ 0 };
	/* More anonymous than resident: not a reading. */
	assert_int_equal(procmem_parse_rollup("Rss: 1 kB\nAnonymous: 2 kB\n",
	    &p), -1);
	/* Too large to be bytes. */
	assert_int_equal(procmem_parse_rollup("Rss: 18446744073709551615 kB\n"
	    "Anonymous: 1 kB\n", &p), -1);
	assert_false(p.known);
}

static void
test_start_and_btime(void **state)
{
	uint64_t ticks;
	int64_t btime;

	(void)state;
	assert_int_equal(procmem_parse_start(stat, &ticks), 0);
	assert_int_equal(ticks, 2578138);
	/* A name with spaces and parentheses does not shift the fields. */
	assert_int_equal(procmem_parse_start("7 (a) b) (c) S 1 2 3 4 5 6 7 8 9 "
	    "10 11 12 13 14 15 16 17 18 99 1\n", &ticks), 0);
	assert_int_equal(ticks, 99);
	assert_int_equal(procmem_parse_start("7 (short) S 1 2 3\n", &ticks),
	    -1);
	assert_int_equal(procmem_parse_start("no name at all", &ticks), -1);
	assert_int_equal(procmem_parse_btime(proc_stat, &btime), 0);
	assert_int_equal(btime, 1795630870);
	assert_int_equal(procmem_parse_btime("cpu 1\n", &btime), -1);
	assert_int_equal(procmem_parse_btime("btime x\n", &btime), -1);
}

static void
test_server_names(void **state)
{
	(void)state;
	assert_true(procmem_is_server_name("/usr/sbin/mariadbd"));
	assert_true(procmem_is_server_name("/usr/sbin/mysqld"));
	/* Under chroot: the path inside the root, or the root's too. */
	assert_true(procmem_is_server_name(
	    "/root/.cache/mysqlmemprof/sid/usr/sbin/mysqld"));
	/* Upgraded on disk while it runs. */
	assert_true(procmem_is_server_name("/usr/sbin/mariadbd (deleted)"));
	/* /proc/PID/comm, with its line feed. */
	assert_true(procmem_is_server_name("mysqld\n"));
	assert_false(procmem_is_server_name("/usr/bin/mysqld_safe"));
	assert_false(procmem_is_server_name("/usr/bin/python3"));
	assert_false(procmem_is_server_name("/usr/sbin/mysqld.old"));
	assert_false(procmem_is_server_name("xmysqld"));
	assert_false(procmem_is_server_name(""));
}

/* The sandbox's process: started 25781 s after boot at 100 ticks a second. */
#define STARTED (1795630870 + 25781)

static struct procmem_facts
facts(void)
{
	return (struct procmem_facts){ .exe = "/usr/sbin/mariadbd",
	    .comm = "mariadbd\n", .stat = stat, .proc_stat = proc_stat,
	    .ticks_per_s = 100 };
}

static void
test_trust(void **state)
{
	struct procmem_facts f = facts();
	char why[512];

	(void)state;
	assert_int_equal(procmem_trust(2902, STARTED, &f, why, sizeof(why)),
	    PROCMEM_TRUSTED);
	/*
	 * A slow start: the server counts its uptime from 30 s, or 10 min,
	 * after its process began (performance_schema, the buffer pool, an
	 * entry script before exec).
	 */
	assert_int_equal(procmem_trust(2902, STARTED + 30, &f, why,
	    sizeof(why)), PROCMEM_TRUSTED);
	assert_int_equal(procmem_trust(2902, STARTED + 600, &f, why,
	    sizeof(why)), PROCMEM_TRUSTED);
	/* Whole seconds and a stepped btime: a process seemingly later. */
	assert_int_equal(procmem_trust(2902, STARTED - PROCMEM_CLOCK_SLACK_S,
	    &f, why, sizeof(why)), PROCMEM_TRUSTED);
	/* exe not ours to read (another user's process): comm tells. */
	f.exe = NULL;
	assert_int_equal(procmem_trust(2902, STARTED, &f, why, sizeof(why)),
	    PROCMEM_TRUSTED);
}

static void
test_distrust(void **state)
{
	struct procmem_facts f = facts();
	char why[512];

	(void)state;
	assert_int_equal(procmem_trust(0, STARTED, &f, why, sizeof(why)),
	    PROCMEM_NO_PID);
	assert_non_null(strstr(why, "THREAD_OS_ID"));
	/*
	 * A server process started after the server connected to says it
	 * did: the id of an ended one, reused.
	 */
	assert_int_equal(procmem_trust(2902, STARTED - PROCMEM_CLOCK_SLACK_S -
	    1, &f, why, sizeof(why)), PROCMEM_OTHER_START);
	assert_non_null(strstr(why, "started 6 s after"));
	assert_int_equal(procmem_trust(2902, STARTED - 3600, &f, why,
	    sizeof(why)), PROCMEM_OTHER_START);
	assert_non_null(strstr(why, "3600 s after"));
	/* A server killed for memory and not yet reaped: a zombie. */
	{
		char zombie[sizeof(stat)];

		memcpy(zombie, stat, sizeof(stat));
		zombie[strchr(zombie, ')') - zombie + 2] = 'Z';
		f.stat = zombie;
		assert_int_equal(procmem_trust(2902, STARTED, &f, why,
		    sizeof(why)), PROCMEM_NO_PROCESS);
		assert_non_null(strstr(why, "has ended"));
		f.stat = stat;
	}
	/* The id of a process that is not a server. */
	f.exe = "/usr/bin/python3.11";
	assert_int_equal(procmem_trust(2902, STARTED, &f, why, sizeof(why)),
	    PROCMEM_NOT_SERVER);
	assert_non_null(strstr(why, "python3.11, not mysqld or mariadbd"));
	f.exe = NULL;
	f.comm = "bash\n";
	assert_int_equal(procmem_trust(2902, STARTED, &f, why, sizeof(why)),
	    PROCMEM_NOT_SERVER);
	assert_null(strchr(why, '\n'));
	f.comm = NULL;
	assert_int_equal(procmem_trust(2902, STARTED, &f, why, sizeof(why)),
	    PROCMEM_UNREADABLE);
	/* No process of that id here at all. */
	f = facts();
	f.stat = NULL;
	assert_int_equal(procmem_trust(2902, STARTED, &f, why, sizeof(why)),
	    PROCMEM_NO_PROCESS);
	assert_non_null(strstr(why, "no process 2902 on this machine"));
	/* Its start cannot be read: not trusted. */
	f = facts();
	f.proc_stat = NULL;
	assert_int_equal(procmem_trust(2902, STARTED, &f, why, sizeof(why)),
	    PROCMEM_UNREADABLE);
	f = facts();
	f.ticks_per_s = 0;
	assert_int_equal(procmem_trust(2902, STARTED, &f, why, sizeof(why)),
	    PROCMEM_UNREADABLE);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_rollup),
		cmocka_unit_test(test_status),
		cmocka_unit_test(test_missing_or_broken_fields),
		cmocka_unit_test(test_start_and_btime),
		cmocka_unit_test(test_server_names),
		cmocka_unit_test(test_trust),
		cmocka_unit_test(test_distrust),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
