/*
 * The memory cgroup of a process, from trees of fixtures laid out as
 * /proc and /sys/fs/cgroup are: cgroup v1's memory controller (as this
 * machine mounts it, the files' text copied from it, Linux 6.18) and
 * v2, alone or beside v1 (hybrid: sys/unified); a limit, no limit (v1's
 * huge value, v2's "max"), a parent's lower limit, the counters, v2's
 * memory.high and its events, memory.pressure where the kernel has PSI, the
 * limits read apart from the counters; read on
 * after the process has died, and none when the cgroup is gone. And the
 * kernel's line on an OOM kill, from records of /dev/kmsg.
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

#include "cgroup.h"
#include "kmsg.h"

#define PID 2902
#define GIB (1024LL * 1024 * 1024)

static char root[64];
static char proc[128], sys[128];

static void
mkdirs(const char *rel)
{
	char cmd[640];

	snprintf(cmd, sizeof(cmd), "mkdir -p '%s/%s'", root, rel);
	assert_int_equal(system(cmd), 0);
}

/* root/rel's text (its folder made first). */
static void
put(const char *rel, const char *text)
{
	char path[512], *slash;
	FILE *fp;

	snprintf(path, sizeof(path), "%s", rel);
	if ((slash = strrchr(path, '/')) != NULL) {
		*slash = '\0';
		mkdirs(path);
	}
	snprintf(path, sizeof(path), "%s/%s", root, rel);
	assert_non_null(fp = fopen(path, "w"));
	fputs(text, fp);
	assert_int_equal(fclose(fp), 0);
}

static int
setup(void **state)
{
	(void)state;
	snprintf(root, sizeof(root), "/tmp/test_cgroup.XXXXXX");
	assert_non_null(mkdtemp(root));
	snprintf(proc, sizeof(proc), "%s/proc", root);
	snprintf(sys, sizeof(sys), "%s/sys", root);
	mkdirs("proc");
	mkdirs("sys");
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

/* What this machine's /proc/PID/cgroup says: v1, and v2's line too. */
static const char hybrid[] =
    "9:name=systemd:/\n"
    "8:pids:/\n"
    "5:devices:/\n"
    "4:memory:/mmp/mariadbd\n"
    "3:cpuset:/\n"
    "1:cpu:/\n"
    "0::/\n";

/* v1's memory.stat, cut: a limit above (hierarchical) and the totals. */
static const char v1_stat[] =
    "cache 6787072\n"
    "rss 1744896\n"
    "rss_huge 0\n"
    "shmem 0\n"
    "hierarchical_memory_limit 9223372036854771712\n"
    "hierarchical_memsw_limit 9223372036854771712\n"
    "total_cache 16787072\n"
    "total_rss 201744896\n"
    "total_rss_huge 0\n";

static const char v1_oom[] =
    "oom_kill_disable 0\n"
    "under_oom 0\n"
    "oom_kill 0\n";

static void
v1_tree(const char *limit)
{
	put("proc/2902/cgroup", hybrid);
	put("sys/memory/mmp/mariadbd/memory.usage_in_bytes", "218532096\n");
	put("sys/memory/mmp/mariadbd/memory.limit_in_bytes", limit);
	put("sys/memory/mmp/mariadbd/memory.oom_control", v1_oom);
	put("sys/memory/mmp/mariadbd/memory.stat", v1_stat);
}

static const char v2_stat[] =
    "anon 190001152\n"
    "file 25681920\n"
    "kernel 4112384\n"
    "kernel_stack 1261568\n"
    "anon_thp 0\n"
    "file_mapped 12288\n";

static const char v2_events[] =
    "low 0\n"
    "high 0\n"
    "max 41\n"
    "oom 2\n"
    "oom_kill 1\n"
    "oom_group_kill 0\n";

/* v2 under at ("" alone, "/unified" beside v1), in system.slice. */
static void
v2_tree(const char *at, const char *max, const char *parent_max)
{
	char d[256], f[300];

	put("proc/2902/cgroup", "0::/system.slice/mariadb.service\n");
	snprintf(d, sizeof(d), "sys%s/system.slice", at);
	snprintf(f, sizeof(f), "%s/memory.max", d);
	put(f, parent_max);
	snprintf(f, sizeof(f), "%s/mariadb.service/memory.current", d);
	put(f, "218532096\n");
	snprintf(f, sizeof(f), "%s/mariadb.service/memory.max", d);
	put(f, max);
	snprintf(f, sizeof(f), "%s/mariadb.service/memory.high", d);
	put(f, "max\n");
	snprintf(f, sizeof(f), "%s/mariadb.service/memory.events", d);
	put(f, v2_events);
	snprintf(f, sizeof(f), "%s/mariadb.service/memory.stat", d);
	put(f, v2_stat);
	/* The root cgroup has no memory.max: the walk up ends there. */
	snprintf(f, sizeof(f), "sys%s/memory.stat", at);
	put(f, v2_stat);
}

static void
find_read(struct process_memory *m, const char *want_dir)
{
	char dir[512], want[512];

	assert_int_equal(cgroup_find(proc, sys, PID, dir, sizeof(dir)), 0);
	snprintf(want, sizeof(want), "%s/%s", root, want_dir);
	assert_string_equal(dir, want);
	memset(m, 0, sizeof(*m));
	assert_int_equal(cgroup_read(dir, m), 0);
	assert_true(m->has_cgroup);
}

static void
test_membership(void **state)
{
	char path[256];
	int v;

	(void)state;
	assert_int_equal(cgroup_parse_membership(hybrid, &v, path,
	    sizeof(path)), 0);
	assert_int_equal(v, 1);
	assert_string_equal(path, "/mmp/mariadbd");
	/* The controller shares its hierarchy with another. */
	assert_int_equal(cgroup_parse_membership("2:cpu,memory:/a:b\n0::/\n",
	    &v, path, sizeof(path)), 0);
	assert_int_equal(v, 1);
	assert_string_equal(path, "/a:b");
	/* v2 alone, no newline at the end. */
	assert_int_equal(cgroup_parse_membership("0::/system.slice/x.service",
	    &v, path, sizeof(path)), 0);
	assert_int_equal(v, 2);
	assert_string_equal(path, "/system.slice/x.service");
	/* v1 without its memory controller mounted, and no v2: none. */
	assert_int_equal(cgroup_parse_membership("5:memoryx:/a\n3:cpu:/\n",
	    &v, path, sizeof(path)), -1);
	assert_int_equal(cgroup_parse_membership("", &v, path, sizeof(path)),
	    -1);
	assert_int_equal(cgroup_parse_membership("garbage\n1::\n", &v, path,
	    sizeof(path)), -1);
	/* A path longer than the room for it. */
	assert_int_equal(cgroup_parse_membership("0::/abcdefgh\n", &v, path,
	    4), -1);
}

static void
test_limits_and_counts(void **state)
{
	int64_t n;

	(void)state;
	assert_int_equal(cgroup_parse_limit("max\n", &n), 0);
	assert_int_equal(n, -1);
	assert_int_equal(cgroup_parse_limit("9223372036854771712\n", &n), 0);
	assert_int_equal(n, -1);
	assert_int_equal(cgroup_parse_limit("4294967296\n", &n), 0);
	assert_int_equal(n, 4 * GIB);
	assert_int_equal(cgroup_parse_limit("0", &n), 0);
	assert_int_equal(n, 0);
	assert_int_equal(cgroup_parse_limit("maximum\n", &n), -1);
	assert_int_equal(cgroup_parse_limit("12x\n", &n), -1);
	assert_int_equal(cgroup_parse_limit("", &n), -1);
	assert_int_equal(cgroup_parse_limit("-1\n", &n), -1);
	assert_int_equal(cgroup_parse_count("18446744073709551615\n", &n),
	    -1);
	assert_int_equal(cgroup_parse_count("12\n3\n", &n), -1);
	assert_int_equal(cgroup_parse_key(v2_events, "oom", &n), 0);
	assert_int_equal(n, 2);
	assert_int_equal(cgroup_parse_key(v2_events, "oom_kill", &n), 0);
	assert_int_equal(n, 1);
	assert_int_equal(cgroup_parse_key(v2_events, "oom_group", &n), -1);
	assert_int_equal(cgroup_parse_key(v1_stat, "rss", &n), 0);
	assert_int_equal(n, 1744896);
	assert_int_equal(cgroup_parse_key("oom x\n", "oom", &n), -1);
}

static void
test_v1_with_a_limit(void **state)
{
	struct process_memory m;

	(void)state;
	v1_tree("4294967296\n");
	find_read(&m, "sys/memory/mmp/mariadbd");
	assert_int_equal(m.cgroup_version, 1);
	assert_int_equal(m.cgroup_usage_bytes, 218532096);
	assert_int_equal(m.cgroup_limit_bytes, 4 * GIB);
	assert_int_equal(m.cgroup_high_bytes, -1);
	assert_int_equal(m.cgroup_high_events, -1);
	assert_int_equal(m.cgroup_oom_kills, 0);
	/* v1 has no PSI of a cgroup. */
	assert_int_equal(m.cgroup_pressure_some, -1);
	assert_int_equal(m.cgroup_pressure_full, -1);
	assert_false(m.known);
}

static void
test_v1_no_limit_and_a_parents(void **state)
{
	struct process_memory m;
	char stat[512];

	(void)state;
	v1_tree("9223372036854771712\n");
	find_read(&m, "sys/memory/mmp/mariadbd");
	assert_int_equal(m.cgroup_limit_bytes, -1);
	/* A limit set on mmp bounds mariadbd: hierarchical_memory_limit. */
	snprintf(stat, sizeof(stat), "rss 1\nhierarchical_memory_limit "
	    "1073741824\ntotal_rss 5\n");
	put("sys/memory/mmp/mariadbd/memory.stat", stat);
	find_read(&m, "sys/memory/mmp/mariadbd");
	assert_int_equal(m.cgroup_limit_bytes, GIB);
	/* A kernel before 4.13 counts no kills. */
	put("sys/memory/mmp/mariadbd/memory.oom_control",
	    "oom_kill_disable 0\nunder_oom 0\n");
	v1_tree("2147483648\n");
	put("sys/memory/mmp/mariadbd/memory.oom_control",
	    "oom_kill_disable 0\nunder_oom 0\n");
	find_read(&m, "sys/memory/mmp/mariadbd");
	assert_int_equal(m.cgroup_limit_bytes, 2 * GIB);
	assert_int_equal(m.cgroup_oom_kills, -1);
}

static void
test_v2_with_a_limit(void **state)
{
	struct process_memory m;

	(void)state;
	v2_tree("", "4294967296\n", "max\n");
	find_read(&m, "sys/system.slice/mariadb.service");
	assert_int_equal(m.cgroup_version, 2);
	assert_int_equal(m.cgroup_usage_bytes, 218532096);
	assert_int_equal(m.cgroup_limit_bytes, 4 * GIB);
	assert_int_equal(m.cgroup_high_bytes, -1);
	assert_int_equal(m.cgroup_high_events, 0);
	assert_int_equal(m.cgroup_oom_kills, 1);
	/* No memory.pressure: a kernel without PSI (UML's). */
	assert_int_equal(m.cgroup_pressure_some, -1);
	assert_int_equal(m.cgroup_pressure_full, -1);
	/* The slice's lower limit bounds the service. */
	put("sys/system.slice/memory.max", "1073741824\n");
	put("sys/system.slice/mariadb.service/memory.high", "805306368\n");
	find_read(&m, "sys/system.slice/mariadb.service");
	assert_int_equal(m.cgroup_limit_bytes, GIB);
	assert_int_equal(m.cgroup_high_bytes, 768LL * 1024 * 1024);
}

static void
test_v2_no_limit_hybrid(void **state)
{
	struct process_memory m;

	(void)state;
	/* Beside v1 without its memory controller: v2 in sys/unified. */
	v2_tree("/unified", "max\n", "max\n");
	put("proc/2902/cgroup", "4:cpu:/\n0::/system.slice/mariadb.service\n");
	find_read(&m, "sys/unified/system.slice/mariadb.service");
	assert_int_equal(m.cgroup_version, 2);
	assert_int_equal(m.cgroup_limit_bytes, -1);
	assert_int_equal(m.cgroup_oom_kills, 1);
	/* An older kernel's memory.events: no oom_kill. */
	put("sys/unified/system.slice/mariadb.service/memory.events",
	    "low 0\nhigh 0\nmax 0\noom 0\n");
	find_read(&m, "sys/unified/system.slice/mariadb.service");
	assert_int_equal(m.cgroup_high_events, 0);
	assert_int_equal(m.cgroup_oom_kills, -1);
}

static const char pressure[] =
    "some avg10=12.34 avg60=5.00 avg300=1.02 total=123456\n"
    "full avg10=0.50 avg60=0.10 avg300=0.00 total=4567\n";

static void
test_pressure_parse(void **state)
{
	int64_t n;

	(void)state;
	assert_int_equal(cgroup_parse_pressure(pressure, "some", &n), 0);
	assert_int_equal(n, 1234);
	assert_int_equal(cgroup_parse_pressure(pressure, "full", &n), 0);
	assert_int_equal(n, 50);
	assert_int_equal(cgroup_parse_pressure("some avg10=100.00 avg60=1\n",
	    "some", &n), 0);
	assert_int_equal(n, 10000);
	/* A kernel's without the full line (the root's before 5.13). */
	assert_int_equal(cgroup_parse_pressure("some avg10=0.00 avg60=0.00 "
	    "avg300=0.00 total=0\n", "full", &n), -1);
	assert_int_equal(cgroup_parse_pressure("some avg10=1.5 x\n", "some",
	    &n), -1);
	assert_int_equal(cgroup_parse_pressure("some avg10=-1.00 x\n", "some",
	    &n), -1);
	assert_int_equal(cgroup_parse_pressure("some avg10=101.00 x\n", "some",
	    &n), -1);
	assert_int_equal(cgroup_parse_pressure("some avg10=100.01 x\n", "some",
	    &n), -1);
	assert_int_equal(cgroup_parse_pressure("", "some", &n), -1);
}

/*
 * v2 under systemd: the service over its memory.high (throttled, its
 * events counted), the slice's high lower than its own, PSI given.
 */
static void
test_v2_high_and_pressure(void **state)
{
	struct process_memory m;

	(void)state;
	v2_tree("", "max\n", "max\n");
	put("sys/system.slice/mariadb.service/memory.high", "209715200\n");
	put("sys/system.slice/mariadb.service/memory.events",
	    "low 0\nhigh 3172\nmax 0\noom 0\noom_kill 0\n");
	put("sys/system.slice/mariadb.service/memory.pressure", pressure);
	find_read(&m, "sys/system.slice/mariadb.service");
	assert_int_equal(m.cgroup_limit_bytes, -1);
	assert_int_equal(m.cgroup_high_bytes, 209715200);
	assert_true(m.cgroup_usage_bytes > m.cgroup_high_bytes);
	assert_int_equal(m.cgroup_high_events, 3172);
	assert_int_equal(m.cgroup_pressure_some, 1234);
	assert_int_equal(m.cgroup_pressure_full, 50);
	/* The slice throttles lower than the service. */
	put("sys/system.slice/memory.high", "104857600\n");
	find_read(&m, "sys/system.slice/mariadb.service");
	assert_int_equal(m.cgroup_high_bytes, 104857600);
	/* The service has no limit, its slice one: the slice's bounds it. */
	put("sys/system.slice/memory.max", "1073741824\n");
	find_read(&m, "sys/system.slice/mariadb.service");
	assert_int_equal(m.cgroup_limit_bytes, GIB);
	/* A kernel booted with psi=0: the file is there, its read fails. */
	put("sys/system.slice/mariadb.service/memory.pressure", "");
	find_read(&m, "sys/system.slice/mariadb.service");
	assert_int_equal(m.cgroup_pressure_some, -1);
	assert_int_equal(m.cgroup_pressure_full, -1);
}

/*
 * The limits are read apart from the counters, and kept: the counters of
 * each sample open only their own files (a limit changed meanwhile is seen
 * at the next cgroup_read_limits).
 */
static void
test_limits_kept_between_reads(void **state)
{
	struct cgroup_limits l;
	struct process_memory m;
	char dir[512];

	(void)state;
	v2_tree("", "4294967296\n", "1073741824\n");
	assert_int_equal(cgroup_find(proc, sys, PID, dir, sizeof(dir)), 0);
	assert_int_equal(cgroup_read_limits(dir, &l), 0);
	assert_int_equal(l.version, 2);
	assert_int_equal(l.limit_bytes, GIB);
	assert_false(l.has_pressure);
	put("sys/system.slice/memory.max", "max\n");
	put("sys/system.slice/mariadb.service/memory.max", "max\n");
	put("sys/system.slice/mariadb.service/memory.current", "5\n");
	memset(&m, 0, sizeof(m));
	assert_int_equal(cgroup_read_counts(&l, &m), 0);
	assert_int_equal(m.cgroup_usage_bytes, 5);
	assert_int_equal(m.cgroup_limit_bytes, GIB);
	assert_int_equal(cgroup_read_limits(dir, &l), 0);
	assert_int_equal(l.limit_bytes, -1);
	/* Not a memory cgroup's folder. */
	assert_int_equal(cgroup_read_limits(root, &l), -1);
}

static void
test_none_found(void **state)
{
	char dir[512];

	(void)state;
	/* No such process. */
	assert_int_equal(cgroup_find(proc, sys, PID, dir, sizeof(dir)), -1);
	/* v2's root cgroup, which has no memory.current. */
	v2_tree("", "max\n", "max\n");
	put("proc/2902/cgroup", "0::/\n");
	assert_int_equal(cgroup_find(proc, sys, PID, dir, sizeof(dir)), -1);
	/* v1 named, its controller not mounted under sys. */
	put("proc/2902/cgroup", "4:memory:/elsewhere\n");
	assert_int_equal(cgroup_find(proc, sys, PID, dir, sizeof(dir)), -1);
	/* No room for the folder's name. */
	v1_tree("max\n");
	assert_int_equal(cgroup_find(proc, sys, PID, dir, 8), -1);
}

static void
test_read_after_the_process_died(void **state)
{
	struct process_memory m;
	char dir[512], cmd[600];

	(void)state;
	v1_tree("4294967296\n");
	assert_int_equal(cgroup_find(proc, sys, PID, dir, sizeof(dir)), 0);
	snprintf(cmd, sizeof(cmd), "rm -r '%s/proc/2902'", root);
	assert_int_equal(system(cmd), 0);
	/* The kernel killed it: the cgroup stays, and says so. */
	put("sys/memory/mmp/mariadbd/memory.oom_control",
	    "oom_kill_disable 0\nunder_oom 0\noom_kill 1\n");
	memset(&m, 0, sizeof(m));
	assert_int_equal(cgroup_read(dir, &m), 0);
	assert_int_equal(m.cgroup_oom_kills, 1);
	/* The cgroup removed: nothing read, has_cgroup cleared. */
	snprintf(cmd, sizeof(cmd), "rm -r '%s'", dir);
	assert_int_equal(system(cmd), 0);
	m.has_cgroup = true;
	assert_int_equal(cgroup_read(dir, &m), -1);
	assert_false(m.has_cgroup);
}

static const char killed[] =
    "3,1021,581912345,-;Memory cgroup out of memory: Killed process 2902 "
    "(mariadbd) total-vm:1838464kB, anon-rss:402112kB, file-rss:0kB, "
    "shmem-rss:0kB, UID:0 pgtables:1144kB oom_score_adj:0\n";

static const char oom_kill[] =
    "6,1020,581912300,-;oom-kill:constraint=CONSTRAINT_MEMCG,"
    "nodemask=(null),cpuset=/,mems_allowed=0,oom_memcg=/mmp,"
    "task_memcg=/mmp,task=mariadbd,pid=2902,uid=0\n";

static void
test_kmsg_parse(void **state)
{
	struct kmsg_oom o;

	(void)state;
	assert_true(kmsg_parse_oom(killed, strlen(killed), PID, &o));
	assert_true(o.killed);
	assert_int_equal(o.usec, 581912345);
	assert_non_null(strstr(o.line, "Memory cgroup out of memory: Killed "
	    "process 2902 (mariadbd)"));
	assert_null(strchr(o.line, '\n'));
	assert_true(kmsg_parse_oom(oom_kill, strlen(oom_kill), PID, &o));
	assert_false(o.killed);
	assert_int_equal(strncmp(o.line, "oom-kill:constraint", 19), 0);
	/* Another process: 290 is not 2902, nor 29021. */
	assert_false(kmsg_parse_oom(killed, strlen(killed), 290, &o));
	assert_false(kmsg_parse_oom(killed, strlen(killed), 29021, &o));
	assert_false(kmsg_parse_oom(oom_kill, strlen(oom_kill), 290, &o));
	/* Not an OOM line; no prefix. */
	assert_false(kmsg_parse_oom("6,1,0,-;pid=2902 Killed\n", 24, PID, &o));
	assert_false(kmsg_parse_oom("Killed process 2902 (x)", 23, PID, &o));
}

static void
test_kmsg_find(void **state)
{
	char path[256], log[2048];
	struct kmsg_oom o;

	(void)state;
	snprintf(path, sizeof(path), "%s/kmsg", root);
	snprintf(log, sizeof(log),
	    "6,1000,581000000,-;eth0: link up\n SUBSYSTEM=net\n DEVICE=n2\n"
	    "%s%s 9,1000,1,-;Killed process 2902 continuation\n"
	    "6,1022,581912400,-;oom_reaper: reaped process 2902 (mariadbd)\n",
	    oom_kill, killed);
	put("kmsg", log);
	assert_int_equal(kmsg_find_oom(path, PID, &o), 1);
	assert_true(o.killed);
	assert_int_equal(o.usec, 581912345);
	/* Only the oom-kill line was kept by the log. */
	snprintf(log, sizeof(log), "%s6,1,2,-;x\n", oom_kill);
	put("kmsg", log);
	assert_int_equal(kmsg_find_oom(path, PID, &o), 1);
	assert_false(o.killed);
	assert_int_equal(kmsg_find_oom(path, 77, &o), 0);
	snprintf(path, sizeof(path), "%s/none", root);
	assert_int_equal(kmsg_find_oom(path, PID, &o), -1);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_membership),
		cmocka_unit_test(test_limits_and_counts),
		cmocka_unit_test_setup_teardown(test_v1_with_a_limit, setup,
		    teardown),
		cmocka_unit_test_setup_teardown(test_v1_no_limit_and_a_parents,
		    setup, teardown),
		cmocka_unit_test_setup_teardown(test_v2_with_a_limit, setup,
		    teardown),
		cmocka_unit_test_setup_teardown(test_v2_no_limit_hybrid, setup,
		    teardown),
		cmocka_unit_test(test_pressure_parse),
		cmocka_unit_test_setup_teardown(test_v2_high_and_pressure,
		    setup, teardown),
		cmocka_unit_test_setup_teardown(
		    test_limits_kept_between_reads, setup, teardown),
		cmocka_unit_test_setup_teardown(test_none_found, setup,
		    teardown),
		cmocka_unit_test_setup_teardown(
		    test_read_after_the_process_died, setup, teardown),
		cmocka_unit_test(test_kmsg_parse),
		cmocka_unit_test_setup_teardown(test_kmsg_find, setup,
		    teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
