/*
 * libFuzzer harness for the parsers of /proc text (procmem.h): any bytes
 * as /proc/PID/status, smaps_rollup, stat, /proc/stat, an exe link or a
 * comm must be parsed or refused, never read out of bounds, and what is
 * parsed must add up (file pages are resident minus anonymous, none
 * negative). The input is cut at NUL bytes into the texts of one process.
 * The memory cgroup's files (cgroup.h) and a record of the kernel's log
 * (kmsg.h) too: a limit is bytes or -1 (none), a path found starts with
 * '/', a line kept is NUL-ended. And the layers of maps, smaps and status
 * (procmaps.h): no figure below -1, arenas only for glibc, the library's
 * path NUL-ended, and the same findings whether the text is walked whole
 * or a line at a time without NULs.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "cgroup.h"
#include "kmsg.h"
#include "procmaps.h"
#include "procmem.h"

/* The next NUL-ended piece of buf (len bytes, a NUL after them), or "". */
static const char *
piece(char **at, const char *end)
{
	char *p = *at;

	if (p >= end)
		return "";
	*at = p + strlen(p) + 1;
	return p;
}

static void
check(const struct process_memory *m, int rc)
{
	if (rc != 0)
		return;
	if (!m->known || m->resident_bytes < 0 || m->anon_bytes < 0 ||
	    m->file_bytes < 0 ||
	    m->file_bytes != m->resident_bytes - m->anon_bytes)
		abort();
}

static void
cgroup_checks(const char *buf, size_t size)
{
	char path[256];
	struct kmsg_oom o;
	int64_t n;
	int v;

	if (cgroup_parse_membership(buf, &v, path, sizeof(path)) == 0 &&
	    ((v != 1 && v != 2) || path[0] != '/'))
		abort();
	if (cgroup_parse_limit(buf, &n) == 0 && n < -1)
		abort();
	if (cgroup_parse_count(buf, &n) == 0 && n < 0)
		abort();
	if (cgroup_parse_key(buf, "oom_kill", &n) == 0 && n < 0)
		abort();
	if (cgroup_parse_pressure(buf, "some", &n) == 0 &&
	    (n < 0 || n > 10000))
		abort();
	if (kmsg_parse_oom(buf, size, size, &o) &&
	    memchr(o.line, '\0', sizeof(o.line)) == NULL)
		abort();
}

static void
layers_check(const struct process_layers *l, int rc)
{
	if (rc != 0)
		return;
	if (l->arenas < 0 || (l->allocator != ALLOC_GLIBC && l->arenas != 0) ||
	    l->arena_resident < -1 || l->brk_heap_resident < -1 ||
	    l->anon_huge < -1 ||
	    memchr(l->allocator_lib, '\0', sizeof(l->allocator_lib)) == NULL)
		abort();
}

static void
procmaps_checks(const uint8_t *data, size_t size, const char *buf)
{
	struct process_layers whole, lines;
	struct procmaps_scan s;
	const uint8_t *p = data, *end = data + size, *nl;
	int rc;

	memset(&whole, 0, sizeof(whole));
	layers_check(&whole, procmaps_parse_maps(buf, &whole));
	memset(&whole, 0, sizeof(whole));
	rc = procmaps_parse_smaps(buf, &whole);
	layers_check(&whole, rc);
	memset(&whole, 0, sizeof(whole));
	if (procmaps_parse_status(buf, &whole) == 0 &&
	    (whole.rss < 0 || whole.anon < 0 || whole.file < 0 ||
	    whole.shmem < -1 || whole.swap < -1))
		abort();

	/* The raw bytes a line at a time, as procfs_layers() feeds them. */
	if (memchr(data, '\0', size) != NULL)
		return;
	memset(&whole, 0, sizeof(whole));
	rc = procmaps_parse_maps(buf, &whole);
	procmaps_scan_begin(&s);
	for (; p < end; p = nl + 1) {
		nl = memchr(p, '\n', (size_t)(end - p));
		if (nl == NULL)
			nl = end - 1;
		procmaps_scan_line(&s, (const char *)p, (size_t)(nl - p + 1));
	}
	memset(&lines, 0, sizeof(lines));
	if (procmaps_scan_end(&s, &lines) != rc || (rc == 0 &&
	    (lines.allocator != whole.allocator ||
	    lines.arenas != whole.arenas ||
	    strcmp(lines.allocator_lib, whole.allocator_lib) != 0)))
		abort();
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *buf = malloc(size + 1), *at, why[256];
	const char *end;
	struct process_memory m;
	struct procmem_facts f;
	uint64_t ticks;
	int64_t btime;

	if (buf == NULL)
		return 0;
	memcpy(buf, data, size);
	buf[size] = '\0';
	end = buf + size;

	/* The whole input as each file. */
	memset(&m, 0, sizeof(m));
	check(&m, procmem_parse_status(buf, &m));
	memset(&m, 0, sizeof(m));
	check(&m, procmem_parse_rollup(buf, &m));
	(void)procmem_parse_start(buf, &ticks);
	(void)procmem_parse_btime(buf, &btime);
	(void)procmem_is_server_name(buf);

	/* Pieces of it as the files of one process, to be trusted or not. */
	at = buf;
	f.exe = piece(&at, end);
	f.comm = piece(&at, end);
	f.stat = piece(&at, end);
	f.proc_stat = piece(&at, end);
	f.ticks_per_s = size > 0 ? (long)(data[0] % 3) * 50 : 100;
	if (size > 1 && (data[1] & 1))
		f.exe = NULL; /* unreadable */
	why[0] = '\0';
	enum procmem_trust t = procmem_trust(size, (int64_t)size * 1000, &f,
	    why, sizeof(why));
	if (t != PROCMEM_TRUSTED && why[0] == '\0')
		abort(); /* not trusted, and no word why */
	if (memchr(why, '\0', sizeof(why)) == NULL)
		abort();
	cgroup_checks(buf, size);
	procmaps_checks(data, size, buf);
	free(buf);
	return 0;
}
