/*
 * Reading the server's files under /proc. Each read opens the file anew:
 * the kernel makes its text at read, and a process that ended leaves
 * nothing to keep open.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "procfs.h"

/* smaps_rollup, status and stat are far below this. */
#define PROCFS_TEXT_MAX 8192

/* root/PID/name (pid 0: root/name). */
static void
path_of(char *path, size_t len, const char *root, uint64_t pid,
    const char *name)
{
	if (pid == 0)
		snprintf(path, len, "%s/%s", root, name);
	else
		snprintf(path, len, "%s/%" PRIu64 "/%s", root, pid, name);
}

int
procfs_read_text(const char *path, char *buf, size_t len)
{
	size_t n = 0;
	ssize_t got;
	int fd, saved;

	if ((fd = open(path, O_RDONLY | O_CLOEXEC)) < 0)
		return -1;
	while (n + 1 < len && (got = read(fd, buf + n, len - 1 - n)) != 0) {
		if (got < 0) {
			if (errno == EINTR)
				continue;
			saved = errno;
			close(fd);
			errno = saved;
			return -1;
		}
		n += (size_t)got;
	}
	buf[n] = '\0';
	close(fd);
	return 0;
}

/* root/PID/name's text into buf, NUL-terminated; -1 with errno. */
static int
read_text(const char *root, uint64_t pid, const char *name, char *buf,
    size_t len)
{
	char path[4096];

	path_of(path, sizeof(path), root, pid, name);
	return procfs_read_text(path, buf, len);
}

/*
 * The "btime" line of root/stat, which may come after long lines of
 * interrupt counts on a large machine: read a line at a time.
 */
static int
read_btime_line(const char *root, char *buf, size_t len)
{
	char path[4096], *line = NULL;
	size_t cap = 0;
	int rc = -1;
	FILE *fp;

	path_of(path, sizeof(path), root, 0, "stat");
	if ((fp = fopen(path, "re")) == NULL)
		return -1;
	while (getline(&line, &cap, fp) > 0)
		if (strncmp(line, "btime ", 6) == 0) {
			snprintf(buf, len, "%s", line);
			rc = 0;
			break;
		}
	free(line);
	fclose(fp);
	return rc;
}

enum procmem_trust
procfs_check(const char *root, uint64_t pid, int64_t boot_s, char *why,
    size_t whylen)
{
	char exe[4096], comm[256], stat[2048], btime[256], path[4096];
	struct procmem_facts f = { .ticks_per_s = sysconf(_SC_CLK_TCK) };
	ssize_t n;

	if (pid != 0 && read_text(root, pid, "stat", stat, sizeof(stat)) == 0)
		f.stat = stat;
	if (pid != 0) {
		path_of(path, sizeof(path), root, pid, "exe");
		/* Another user's process: exe needs the right to trace it. */
		if ((n = readlink(path, exe, sizeof(exe) - 1)) > 0) {
			exe[n] = '\0';
			f.exe = exe;
		}
		if (read_text(root, pid, "comm", comm, sizeof(comm)) == 0)
			f.comm = comm;
	}
	if (read_btime_line(root, btime, sizeof(btime)) == 0)
		f.proc_stat = btime;
	return procmem_trust(pid, boot_s, &f, why, whylen);
}

int
procfs_memory(const char *root, uint64_t pid, struct process_memory *out)
{
	char text[PROCFS_TEXT_MAX];

	/*
	 * status first: the kernel's counters, the same figures as
	 * smaps_rollup's at a hundredth of the cost (0.03 ms against 5 ms for
	 * a MariaDB sandbox, 35 ms for MySQL's 1.3 GB), which walks every page
	 * table holding the server's mmap lock. smaps_rollup when status lacks
	 * RssAnon (kernels before 4.5); it needs the right to trace.
	 */
	if (read_text(root, pid, "status", text, sizeof(text)) != 0)
		return -1;
	if (procmem_parse_status(text, out) == 0)
		return 0;
	if (read_text(root, pid, "smaps_rollup", text, sizeof(text)) != 0)
		return -1;
	if (procmem_parse_rollup(text, out) != 0) {
		errno = EINVAL;
		return -1;
	}
	return 0;
}

/*
 * Walks root/PID/name a line at a time, so a server's smaps (thousands of
 * regions, some MiB) is never held whole. 0, or -1 with errno.
 */
static int
scan_file(const char *root, uint64_t pid, const char *name,
    struct process_layers *out)
{
	struct procmaps_scan s;
	char path[4096], *line = NULL;
	size_t cap = 0;
	ssize_t n;
	int rc = 0, saved;
	FILE *fp;

	path_of(path, sizeof(path), root, pid, name);
	if ((fp = fopen(path, "re")) == NULL)
		return -1;
	procmaps_scan_begin(&s);
	errno = 0;
	while ((n = getline(&line, &cap, fp)) > 0)
		procmaps_scan_line(&s, line, (size_t)n);
	/* A folder opens, and fails at the first read: EISDIR. */
	if (ferror(fp)) {
		rc = -1;
		saved = errno != 0 ? errno : EIO;
	} else if (procmaps_scan_end(&s, out) != 0) {
		rc = -1;
		/* Empty: the process ended while it was read. */
		saved = s.regions == 0 ? ESRCH : EINVAL;
	}
	free(line);
	fclose(fp);
	if (rc != 0)
		errno = saved;
	return rc;
}

/* Why root/PID/name could not be read (err), in words, into why. */
static void
say_unread(char *why, size_t len, const char *root, uint64_t pid,
    const char *name, int err)
{
	char path[4096];

	path_of(path, sizeof(path), root, pid, name);
	if (err == ENOENT || err == ESRCH)
		snprintf(why, len, "no process %" PRIu64 " under %s: it ended, "
		    "or runs in another pid namespace", pid, root);
	else if (err == EACCES || err == EPERM)
		snprintf(why, len, "cannot read %.120s: %s (another user's process: "
		    "its maps are for its user and root)", path,
		    strerror(err));
	else
		snprintf(why, len, "cannot read %.180s: %s", path,
		    strerror(err));
}

int
procfs_layers(const char *root, uint64_t pid, struct process_layers *out)
{
	char text[PROCFS_TEXT_MAX], smaps_why[256];
	int err;

	*out = (struct process_layers){
		.rss = -1, .anon = -1, .file = -1, .shmem = -1, .swap = -1,
		.anon_huge = -1, .arena_resident = -1,
		.brk_heap_resident = -1,
	};
	if (read_text(root, pid, "status", text, sizeof(text)) != 0) {
		say_unread(out->why, sizeof(out->why), root, pid, "status",
		    errno);
		return -1;
	}
	if (procmaps_parse_status(text, out) != 0) {
		snprintf(out->why, sizeof(out->why), "%s/%" PRIu64 "/status "
		    "has no RssAnon and RssFile (Linux before 4.5)", root, pid);
		return -1;
	}
	if (scan_file(root, pid, "smaps", out) == 0) {
		out->known = true;
		return 0;
	}
	err = errno;
	say_unread(smaps_why, sizeof(smaps_why), root, pid, "smaps", err);
	/*
	 * A kernel without CONFIG_PROC_PAGE_MONITOR has maps and no smaps:
	 * the allocator and the arenas still show, not what they hold.
	 */
	if (err != ESRCH && scan_file(root, pid, "maps", out) == 0) {
		out->known = true;
		snprintf(out->why, sizeof(out->why), "%s", smaps_why);
		return 0;
	}
	snprintf(out->why, sizeof(out->why), "%s", smaps_why);
	return -1;
}
