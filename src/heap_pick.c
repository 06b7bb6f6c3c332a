/*
 * The dumps of the server's process. jemalloc names them
 * PREFIX.PID.SEQ.KINDITER.heap (heapdump.h); the newest of a pid has the
 * highest SEQ. A server in a chroot writes its prefix inside its root,
 * which heapfind puts before it; its mapped files are read through
 * /proc/PID/root.
 */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "exitcode.h"
#include "heap_pick.h"
#include "heapdump.h"
#include "procfs.h"

/* What to do about a server not profiled: one line with the fix and its cost. */
static const char how_to_profile[] =
    "start it with jemalloc's profiling, e.g. a systemd drop-in "
    "(systemctl edit mariadb): [Service] "
    "Environment=LD_PRELOAD=/usr/lib/x86_64-linux-gnu/libjemalloc.so.2 "
    "Environment=MALLOC_CONF=prof:true,prof_prefix:/var/lib/mysql-heap/"
    "jeprof,lg_prof_interval:32 (a folder the server may write); it costs "
    "little where queries allocate little, and several times the time of "
    "statements that allocate and free large blocks (mysqlmemprof(1), "
    "HEAP PROFILES)";

/*
 * The root the server sees as "/", when it is not ours: "" when it is, or
 * not ours to read (the paths are taken as they are).
 */
static void
server_root(const char *proc, pid_t pid, char *root, size_t len)
{
	char path[96], target[PATH_MAX];
	ssize_t n;

	snprintf(path, sizeof(path), "%s/%d/root", proc, (int)pid);
	n = readlink(path, target, sizeof(target) - 1);
	target[n > 0 ? n : 0] = '\0';
	if (n <= 0 || strcmp(target, "/") == 0)
		root[0] = '\0';
	else
		snprintf(root, len, "%s", path);
}

/* A root without /proc: jemalloc could copy no maps into the dumps. */
static void
maps_if_no_proc(const char *proc, struct heap_pick *out)
{
	char self[160];
	struct stat st;

	snprintf(self, sizeof(self), "%s/proc/self", out->root);
	if (out->root[0] != '\0' && stat(self, &st) != 0)
		snprintf(out->maps_now, sizeof(out->maps_now), "%s/%d/maps",
		    proc, (int)out->pid);
}

/*
 * Where to look: --heap-dir (a folder: any prefix in it), else the
 * server's prefix as heapfind made it (under a chroot's folder already).
 */
static void
dump_prefix(const struct options *o, const struct heap_source *src,
    char *prefix, size_t len)
{
	struct stat st;

	if (o->heap_dir == NULL)
		snprintf(prefix, len, "%s", src->prefix);
	else if (stat(o->heap_dir, &st) == 0 && S_ISDIR(st.st_mode))
		snprintf(prefix, len, "%s%s", o->heap_dir,
		    o->heap_dir[strlen(o->heap_dir) - 1] == '/' ? "" : "/");
	else
		snprintf(prefix, len, "%s", o->heap_dir);
}

/* The server's process here, or why --heap cannot read it. */
static int
trusted_pid(const struct session *s, const char *proc, char *err,
    size_t errlen)
{
	char why[512];

	if (procfs_check(proc, s->server.pid, s->server.boot_s, why,
	    sizeof(why)) == PROCMEM_TRUSTED)
		return 0;
	snprintf(err, errlen, "--heap reads the server's process here, but "
	    "%s; copy its dumps here and give --heap-file", why);
	return -1;
}

static int
not_profiled(const struct heap_source *src, pid_t pid, char *err,
    size_t errlen)
{
	snprintf(err, errlen, "the server (pid %d) %s: %s", (int)pid,
	    !src->jemalloc ? "does not run on jemalloc" :
	    "runs on jemalloc without profiling (MALLOC_CONF has no "
	    "prof:true)", how_to_profile);
	return EXIT_NO_PROFILE;
}

/* The last part of a path. */
static const char *
base_name(const char *path)
{
	const char *slash = strrchr(path, '/');

	return slash != NULL ? slash + 1 : path;
}

/* The pid of dump path as its name says; 0: not named as a dump. */
static pid_t
pid_of_dump(const char *path)
{
	char dir[PATH_MAX], err[256];
	const char *name = base_name(path);
	struct heap_file *f;
	size_t n;
	pid_t pid = 0;

	snprintf(dir, sizeof(dir), "%.*s", (int)(name - path), path);
	if (dir[0] == '\0')
		snprintf(dir, sizeof(dir), "./");
	if (heap_find_files(dir, 0, &f, &n, err, sizeof(err)) != 0)
		return 0;
	for (size_t i = 0; i < n && pid == 0; i++)
		if (strcmp(base_name(f[i].path), name) == 0)
			pid = f[i].pid;
	heap_files_free(f, n);
	return pid;
}

/* --heap-base: "first", or a dump of the same process. */
static int
pick_base(const struct options *o, const struct heap_file *f, size_t n,
    pid_t pid, struct heap_pick *out, char *err, size_t errlen)
{
	pid_t other;

	if (o->heap_base == NULL)
		return 0;
	if (strcmp(o->heap_base, "first") == 0) {
		if (n < 2) {
			snprintf(err, errlen, "--heap-base first: the server's "
			    "process (pid %d) has one dump yet, %s: no growth to "
			    "show until the next", (int)pid, f[0].path);
			return EXIT_NO_PROFILE;
		}
		snprintf(out->base, sizeof(out->base), "%s", f[0].path);
		return 0;
	}
	if ((other = pid_of_dump(o->heap_base)) == 0) {
		snprintf(err, errlen, "--heap-base %s: not a dump's name "
		    "(PREFIX.PID.SEQ.KIND.heap), so not known to be the "
		    "server's; give one of its dumps, or first", o->heap_base);
		return EXIT_RUNTIME;
	}
	if (other != pid) {
		snprintf(err, errlen, "--heap-base %s is a dump of pid %d, not "
		    "of the server's process (pid %d); give one of its dumps, "
		    "or first", o->heap_base, (int)other, (int)pid);
		return EXIT_RUNTIME;
	}
	snprintf(out->base, sizeof(out->base), "%s", o->heap_base);
	return 0;
}

/*
 * The dumps under prefix of processes other than pid, in words ("12
 * dumps of other processes (pid 4242 and 2 more)"); "" when none.
 */
static void
others_there(const char *prefix, pid_t pid, char *buf, size_t len)
{
	struct heap_file *f;
	char err[256];
	size_t n, pids = 0;

	buf[0] = '\0';
	if (heap_find_files(prefix, 0, &f, &n, err, sizeof(err)) != 0)
		return;
	for (size_t i = 0; i < n; i++)  /* sorted by pid */
		pids += f[i].pid != pid && (i == 0 || f[i].pid != f[i - 1].pid);
	if (n > 0 && pids > 0)
		snprintf(buf, len, ", only %zu dump%s of other processes (pid "
		    "%d%s): a server started again has a new pid, and its "
		    "helpers write their own", n, n == 1 ? "" : "s",
		    (int)(f[0].pid != pid ? f[0].pid : f[n - 1].pid),
		    pids > 1 ? " and others" : "");
	heap_files_free(f, n);
}

/* None of pid's dumps under prefix: which of the two reasons. */
static int
no_dump(const struct heap_source *src, pid_t pid, const char *prefix,
    char *err, size_t errlen)
{
	char others[256];

	if (!src->jemalloc || !src->profiling)
		return not_profiled(src, pid, err, errlen);
	others_there(prefix, pid, others, sizeof(others));
	snprintf(err, errlen, "no dump of the server's process (pid %d) under "
	    "%s yet%s; jemalloc writes one as the server allocates "
	    "(lg_prof_interval of MALLOC_CONF=%s): wait for one, or give --heap-dir "
	    "where they are, or --heap-file one of them", (int)pid, prefix,
	    others, src->conf);
	return EXIT_NO_PROFILE;
}

/*
 * The note of a folder of dumps past a bound: jemalloc writes a dump for
 * each 2^lg_prof_interval bytes allocated (in practice many more), every
 * process of the environment writes its own, and nothing removes them.
 */
static void
folder_note(const char *prefix, struct heap_pick *out)
{
	uint64_t bytes;
	size_t files;

	if (heap_folder_usage(prefix, &files, &bytes) != 0 ||
	    (files <= HEAP_FOLDER_FILES && bytes <= HEAP_FOLDER_BYTES))
		return;
	snprintf(out->folder_note, sizeof(out->folder_note), "%s.*.heap: "
	    "%zu dumps, %.1f MiB, and neither the server nor mysqlmemprof "
	    "removes one: bound the folder (a tmpfiles.d line with an age, or "
	    "a cron job) or raise lg_prof_interval (mysqlmemprof(1), HEAP "
	    "PROFILES)", prefix, files, (double)bytes / (1 << 20));
}

int
heap_pick_server(const struct session *s, const struct options *o,
    const char *proc, struct heap_pick *out, char *err, size_t errlen)
{
	struct heap_source src;
	struct heap_file *f;
	char prefix[PATH_MAX + 128];
	size_t n;
	int rc;

	memset(out, 0, sizeof(*out));
	proc = proc != NULL ? proc : PROCFS_ROOT;
	if (trusted_pid(s, proc, err, errlen) != 0)
		return EXIT_RUNTIME;
	out->pid = (pid_t)s->server.pid;
	if (heap_find_source_in(proc, out->pid, &src, err, errlen) != 0)
		return EXIT_RUNTIME;
	if (o->heap_dir == NULL && (!src.jemalloc || !src.profiling))
		return not_profiled(&src, out->pid, err, errlen);
	server_root(proc, out->pid, out->root, sizeof(out->root));
	maps_if_no_proc(proc, out);
	snprintf(out->fds, sizeof(out->fds), "%s/%d/fd", proc, (int)out->pid);
	dump_prefix(o, &src, prefix, sizeof(prefix));
	folder_note(prefix, out);
	if (heap_find_files(prefix, out->pid, &f, &n, err, errlen) != 0)
		return EXIT_RUNTIME;
	if (n == 0)
		rc = no_dump(&src, out->pid, prefix, err, errlen);
	else {
		snprintf(out->dump, sizeof(out->dump), "%s", f[n - 1].path);
		rc = pick_base(o, f, n, out->pid, out, err, errlen);
		if (n > 1 && strcmp(f[n - 2].path, out->base) != 0)
			snprintf(out->prev, sizeof(out->prev), "%s",
			    f[n - 2].path);
	}
	heap_files_free(f, n);
	return rc;
}

int
heap_pick_being_written(const struct heap_pick *p, const char *path)
{
	struct stat dump, st;
	struct dirent *e;
	char fd[PATH_MAX];
	DIR *dir;
	int held = 0;

	if (p->fds[0] == '\0' || stat(path, &dump) != 0 ||
	    (dir = opendir(p->fds)) == NULL)
		return 0;
	while (!held && (e = readdir(dir)) != NULL) {
		snprintf(fd, sizeof(fd), "%s/%s", p->fds, e->d_name);
		held = e->d_name[0] != '.' && stat(fd, &st) == 0 &&
		    st.st_dev == dump.st_dev && st.st_ino == dump.st_ino;
	}
	closedir(dir);
	return held;
}

int
heap_pick_file(const struct options *o, struct heap_pick *out)
{
	memset(out, 0, sizeof(*out));
	snprintf(out->dump, sizeof(out->dump), "%s", o->heap_file);
	if (o->heap_base != NULL)
		snprintf(out->base, sizeof(out->base), "%s", o->heap_base);
	out->pid = pid_of_dump(o->heap_file);
	return 0;
}
