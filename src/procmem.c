/*
 * The text of /proc files, parsed (see procmem.h). Each parser takes the
 * whole text and finds its fields by name, so a kernel that adds a line
 * or orders them otherwise changes nothing.
 */
#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "procmem.h"

/*
 * The value of the line "key: N ..." of text, a number of units; the key
 * must start a line and be followed by its colon.
 */
static int
field(const char *text, const char *key, uint64_t *v)
{
	size_t klen = strlen(key);
	const char *p = text;

	while (p != NULL && *p != '\0') {
		if (strncmp(p, key, klen) == 0 && p[klen] == ':') {
			const char *q = p + klen + 1;
			char *end;

			while (*q == ' ' || *q == '\t')
				q++;
			if (!isdigit((unsigned char)*q))
				return -1;
			errno = 0;
			*v = strtoull(q, &end, 10);
			if (errno != 0 || (*end != ' ' && *end != '\n' &&
			    *end != '\0'))
				return -1;
			return 0;
		}
		if ((p = strchr(p, '\n')) != NULL)
			p++;
	}
	return -1;
}

int
procmem_parse_kb(const char *text, const char *key, int64_t *bytes)
{
	uint64_t kb;

	if (field(text, key, &kb) != 0 || kb > (uint64_t)INT64_MAX / 1024)
		return -1;
	*bytes = (int64_t)kb * 1024;
	return 0;
}

static int
fill(struct process_memory *out, int64_t rss, int64_t anon)
{
	if (anon > rss)
		return -1;
	out->known = true;
	out->resident_bytes = rss;
	out->anon_bytes = anon;
	out->file_bytes = rss - anon;
	return 0;
}

int
procmem_parse_rollup(const char *text, struct process_memory *out)
{
	int64_t rss, anon;

	if (procmem_parse_kb(text, "Rss", &rss) != 0 ||
	    procmem_parse_kb(text, "Anonymous", &anon) != 0)
		return -1;
	return fill(out, rss, anon);
}

int
procmem_parse_status(const char *text, struct process_memory *out)
{
	int64_t rss, anon;

	if (procmem_parse_kb(text, "VmRSS", &rss) != 0 ||
	    procmem_parse_kb(text, "RssAnon", &anon) != 0)
		return -1;
	return fill(out, rss, anon);
}

int
procmem_parse_start(const char *stat, uint64_t *ticks)
{
	const char *p = strrchr(stat, ')');
	char *end;

	if (p == NULL)
		return -1;
	p++;
	/* After the name: state is field 3, starttime field 22. */
	for (int f = 3; f <= 22; f++) {
		while (*p == ' ')
			p++;
		if (*p == '\0' || *p == '\n')
			return -1;
		if (f == 22)
			break;
		while (*p != ' ' && *p != '\0' && *p != '\n')
			p++;
	}
	if (!isdigit((unsigned char)*p))
		return -1;
	errno = 0;
	*ticks = strtoull(p, &end, 10);
	if (errno != 0 || (*end != ' ' && *end != '\n' && *end != '\0'))
		return -1;
	return 0;
}

int
procmem_parse_btime(const char *text, int64_t *btime_s)
{
	const char *p = text;

	/* "btime N", its own line; no colon, unlike the others. */
	while (p != NULL && *p != '\0') {
		if (strncmp(p, "btime ", 6) == 0) {
			char *end;
			long long v;

			errno = 0;
			v = strtoll(p + 6, &end, 10);
			if (errno != 0 || end == p + 6 || v <= 0 ||
			    (*end != '\n' && *end != '\0'))
				return -1;
			*btime_s = v;
			return 0;
		}
		if ((p = strchr(p, '\n')) != NULL)
			p++;
	}
	return -1;
}

bool
procmem_is_server_name(const char *path)
{
	const char *base = strrchr(path, '/');
	size_t len;

	base = base != NULL ? base + 1 : path;
	len = strcspn(base, "\n");
	/* The kernel marks a binary replaced on disk since exec. */
	if (len > 10 && strncmp(base + len - 10, " (deleted)", 10) == 0)
		len -= 10;
	return (len == 6 && strncmp(base, "mysqld", 6) == 0) ||
	    (len == 8 && strncmp(base, "mariadbd", 8) == 0);
}

/*
 * Whether /proc/PID/stat's text is of a process that has ended: its state,
 * the field after the name (counted after the last ')'), is Z (a zombie)
 * or X (dead). A server killed for memory stays a zombie until reaped.
 */
static bool
ended(const char *stat)
{
	const char *p = strrchr(stat, ')');

	return p != NULL && p[1] == ' ' && (p[2] == 'Z' || p[2] == 'X');
}

enum procmem_trust
procmem_trust(uint64_t pid, int64_t boot_s, const struct procmem_facts *f,
    char *why, size_t whylen)
{
	const char *name = f->exe != NULL ? f->exe : f->comm;
	uint64_t ticks;
	int64_t btime, started;

	if (pid == 0) {
		snprintf(why, whylen, "the server gives no process id "
		    "(performance_schema.threads has no THREAD_OS_ID for "
		    "thread/sql/main)");
		return PROCMEM_NO_PID;
	}
	if (f->stat == NULL) {
		snprintf(why, whylen, "no process %" PRIu64 " on this machine: "
		    "the server runs elsewhere (or in another pid namespace)",
		    pid);
		return PROCMEM_NO_PROCESS;
	}
	if (ended(f->stat)) {
		snprintf(why, whylen, "process %" PRIu64 " has ended (its "
		    "parent has not reaped it yet)", pid);
		return PROCMEM_NO_PROCESS;
	}
	if (name == NULL) {
		snprintf(why, whylen, "cannot tell what process %" PRIu64
		    " runs", pid);
		return PROCMEM_UNREADABLE;
	}
	if (!procmem_is_server_name(name)) {
		snprintf(why, whylen, "process %" PRIu64 " here is %.*s, not "
		    "mysqld or mariadbd: the server runs elsewhere", pid,
		    (int)strcspn(name, "\n"), name);
		return PROCMEM_NOT_SERVER;
	}
	if (f->proc_stat == NULL || f->ticks_per_s <= 0 ||
	    procmem_parse_start(f->stat, &ticks) != 0 ||
	    procmem_parse_btime(f->proc_stat, &btime) != 0) {
		snprintf(why, whylen, "cannot read when process %" PRIu64
		    " started", pid);
		return PROCMEM_UNREADABLE;
	}
	started = btime + (int64_t)(ticks / (uint64_t)f->ticks_per_s);
	if (started > boot_s + PROCMEM_CLOCK_SLACK_S) {
		snprintf(why, whylen, "process %" PRIu64 " here is a server "
		    "that started %" PRId64 " s after the one connected to: "
		    "another server, on another machine or in another pid "
		    "namespace", pid, started - boot_s);
		return PROCMEM_OTHER_START;
	}
	return PROCMEM_TRUSTED;
}
