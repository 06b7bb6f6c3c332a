/*
 * The memory cgroup's files, found and read (see cgroup.h). Each read
 * opens the file anew: the kernel makes its text at read.
 */
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cgroup.h"
#include "procfs.h"

/* memory.stat is the longest, some 1.5 KiB. */
#define CGROUP_TEXT_MAX 8192

/* A decimal number ending at a newline, a space or the end, into *n. */
static int
number(const char *p, const char **endp, int64_t *n)
{
	uint64_t v;
	char *end;

	if (!isdigit((unsigned char)*p))
		return -1;
	errno = 0;
	v = strtoull(p, &end, 10);
	if (errno != 0 || v > (uint64_t)INT64_MAX ||
	    (*end != '\n' && *end != ' ' && *end != '\0'))
		return -1;
	*n = (int64_t)v;
	if (endp != NULL)
		*endp = end;
	return 0;
}

/* Nothing but a newline after a value. */
static bool
ends(const char *p)
{
	return p[0] == '\0' || (p[0] == '\n' && p[1] == '\0');
}

int
cgroup_parse_count(const char *text, int64_t *n)
{
	const char *end;
	int64_t v;

	if (number(text, &end, &v) != 0 || !ends(end))
		return -1;
	*n = v;
	return 0;
}

int
cgroup_parse_limit(const char *text, int64_t *bytes)
{
	int64_t v;

	if (strncmp(text, "max", 3) == 0 && ends(text + 3)) {
		*bytes = -1;
		return 0;
	}
	if (cgroup_parse_count(text, &v) != 0)
		return -1;
	*bytes = v >= CGROUP_V1_NO_LIMIT ? -1 : v;
	return 0;
}

int
cgroup_parse_key(const char *text, const char *key, int64_t *n)
{
	size_t klen = strlen(key);
	const char *p = text;

	while (p != NULL && *p != '\0') {
		if (strncmp(p, key, klen) == 0 && p[klen] == ' ')
			return number(p + klen + 1, NULL, n);
		if ((p = strchr(p, '\n')) != NULL)
			p++;
	}
	return -1;
}

/* Whether the comma-separated list of len bytes at p names "memory". */
static bool
names_memory(const char *p, size_t len)
{
	const char *end = p + len, *q;

	while (p < end) {
		q = memchr(p, ',', (size_t)(end - p));
		if (q == NULL)
			q = end;
		if (q - p == 6 && memcmp(p, "memory", 6) == 0)
			return true;
		p = q + 1;
	}
	return false;
}

int
cgroup_parse_membership(const char *text, int *version, char *path,
    size_t len)
{
	const char *line = text, *c1, *c2, *eol;
	const char *v2 = NULL;
	size_t n;
	int ver = 0;

	for (; *line != '\0'; line = *eol != '\0' ? eol + 1 : eol) {
		eol = strchr(line, '\n');
		if (eol == NULL)
			eol = line + strlen(line);
		c1 = memchr(line, ':', (size_t)(eol - line));
		c2 = c1 != NULL ? memchr(c1 + 1, ':', (size_t)(eol - c1 - 1)) :
		    NULL;
		if (c2 == NULL || c2 + 1 >= eol || c2[1] != '/')
			continue;
		if (c2 == c1 + 1 && c1 - line == 1 && line[0] == '0') {
			if (v2 == NULL)
				v2 = c2 + 1;
		} else if (names_memory(c1 + 1, (size_t)(c2 - c1 - 1))) {
			/* v1's memory controller holds the memory, hybrid or not. */
			ver = 1;
			line = c2 + 1;
			break;
		}
	}
	if (ver == 0 && v2 == NULL)
		return -1;
	if (ver == 0) {
		ver = 2;
		line = v2;
	}
	eol = strchr(line, '\n');
	n = eol != NULL ? (size_t)(eol - line) : strlen(line);
	if (n >= len)
		return -1;
	memcpy(path, line, n);
	path[n] = '\0';
	*version = ver;
	return 0;
}

/* dir/name's text into buf, NUL-terminated; -1 with errno. */
static int
read_text(const char *dir, const char *name, char *buf, size_t len)
{
	char path[4096];

	if ((size_t)snprintf(path, sizeof(path), "%s/%s", dir, name) >=
	    sizeof(path)) {
		errno = ENAMETOOLONG;
		return -1;
	}
	return procfs_read_text(path, buf, len);
}

/* Whether dir/name exists. */
static bool
has_file(const char *dir, const char *name)
{
	char path[4096];

	return (size_t)snprintf(path, sizeof(path), "%s/%s", dir, name) <
	    sizeof(path) && access(path, F_OK) == 0;
}

/* sys/sub/path into dir when the memory controller's file is there. */
static int
try_dir(char *dir, size_t len, const char *sys, const char *sub,
    const char *path, const char *file)
{
	/* The root cgroup's path is "/": no double slash. */
	if ((size_t)snprintf(dir, len, "%s%s%s", sys, sub,
	    strcmp(path, "/") == 0 ? "" : path) >= len) {
		errno = ENAMETOOLONG;
		return -1;
	}
	if (!has_file(dir, file)) {
		errno = ENOENT;
		return -1;
	}
	return 0;
}

int
cgroup_find(const char *proc, const char *sys, uint64_t pid, char *dir,
    size_t len)
{
	char text[CGROUP_TEXT_MAX], path[4096], name[64];
	int version;

	snprintf(name, sizeof(name), "%" PRIu64, pid);
	snprintf(path, sizeof(path), "%s/%s", proc, name);
	if (read_text(path, "cgroup", text, sizeof(text)) != 0)
		return -1;
	if (cgroup_parse_membership(text, &version, path, sizeof(path)) != 0) {
		errno = ENOENT;
		return -1;
	}
	if (version == 1)
		return try_dir(dir, len, sys, "/memory", path,
		    "memory.usage_in_bytes");
	/* v2 alone is mounted at sys; beside v1 (hybrid), at sys/unified. */
	if (try_dir(dir, len, sys, "", path, "memory.current") == 0)
		return 0;
	return try_dir(dir, len, sys, "/unified", path, "memory.current");
}

/* The limit file name of dir; -1 (no limit) when it cannot be read. */
static int64_t
limit_of(const char *dir, const char *name)
{
	char text[64];
	int64_t v;

	if (read_text(dir, name, text, sizeof(text)) != 0 ||
	    cgroup_parse_limit(text, &v) != 0)
		return -1;
	return v;
}

/* The lower of two limits, -1 being none. */
static int64_t
lower(int64_t a, int64_t b)
{
	if (a < 0)
		return b;
	if (b < 0)
		return a;
	return a < b ? a : b;
}

/* A key of text, or -1 when it has none. */
static int64_t
key_or_none(const char *text, const char *key)
{
	int64_t v;

	return cgroup_parse_key(text, key, &v) == 0 ? v : -1;
}

int
cgroup_parse_pressure(const char *text, const char *kind, int64_t *hundredths)
{
	size_t klen = strlen(kind);
	const char *p = text;
	int64_t whole, frac;

	while (p != NULL && *p != '\0') {
		if (strncmp(p, kind, klen) == 0 &&
		    strncmp(p + klen, " avg10=", 7) == 0) {
			p += klen + 7;
			/* "12.34": whole percent, a dot, two digits. */
			if (!isdigit((unsigned char)*p))
				return -1;
			errno = 0;
			whole = strtoll(p, (char **)&p, 10);
			if (errno != 0 || whole > 100 || p[0] != '.' ||
			    !isdigit((unsigned char)p[1]) ||
			    !isdigit((unsigned char)p[2]) || p[3] != ' ')
				return -1;
			frac = (p[1] - '0') * 10 + (p[2] - '0');
			if (whole * 100 + frac > 10000)
				return -1;
			*hundredths = whole * 100 + frac;
			return 0;
		}
		if ((p = strchr(p, '\n')) != NULL)
			p++;
	}
	return -1;
}

/*
 * v2: a parent's memory.max (or memory.high) bounds its children too, so
 * the limit is the lowest on the way up to the root cgroup, which has none.
 */
static int64_t
v2_lowest(const char *dir, const char *name)
{
	char up[4096], *slash;
	int64_t limit = limit_of(dir, name);

	snprintf(up, sizeof(up), "%s", dir);
	while ((slash = strrchr(up, '/')) != NULL && slash != up) {
		*slash = '\0';
		if (!has_file(up, name))
			break;
		limit = lower(limit, limit_of(up, name));
	}
	return limit;
}

/*
 * v1: the limit is the lower of the cgroup's own and memory.stat's
 * hierarchical_memory_limit (its ancestors').
 */
static void
v1_limits(struct cgroup_limits *l)
{
	char text[CGROUP_TEXT_MAX];
	int64_t v;

	l->limit_bytes = limit_of(l->dir, "memory.limit_in_bytes");
	if (read_text(l->dir, "memory.stat", text, sizeof(text)) == 0 &&
	    cgroup_parse_key(text, "hierarchical_memory_limit", &v) == 0)
		l->limit_bytes = lower(l->limit_bytes,
		    v >= CGROUP_V1_NO_LIMIT ? -1 : v);
}

int
cgroup_read_limits(const char *dir, struct cgroup_limits *l)
{
	if ((size_t)snprintf(l->dir, sizeof(l->dir), "%s", dir) >=
	    sizeof(l->dir)) {
		errno = ENAMETOOLONG;
		return -1;
	}
	l->high_bytes = -1;
	l->has_pressure = false;
	if (has_file(dir, "memory.current")) {
		l->version = 2;
		l->limit_bytes = v2_lowest(dir, "memory.max");
		l->high_bytes = v2_lowest(dir, "memory.high");
		l->has_pressure = has_file(dir, "memory.pressure");
	} else if (has_file(dir, "memory.usage_in_bytes")) {
		l->version = 1;
		v1_limits(l);
	} else {
		errno = ENOENT;
		return -1;
	}
	return 0;
}

/* The usage file's count into *usage; -1 with errno. */
static int
usage_of(const char *dir, const char *name, int64_t *usage)
{
	char text[64];

	if (read_text(dir, name, text, sizeof(text)) != 0)
		return -1;
	if (cgroup_parse_count(text, usage) != 0) {
		errno = EINVAL;
		return -1;
	}
	return 0;
}

/* v2's counters: the usage, memory.events' and memory.pressure's. */
static int
v2_counts(const struct cgroup_limits *l, struct process_memory *out)
{
	char text[CGROUP_TEXT_MAX];

	if (usage_of(l->dir, "memory.current", &out->cgroup_usage_bytes) != 0)
		return -1;
	out->cgroup_high_events = out->cgroup_oom_kills = -1;
	if (read_text(l->dir, "memory.events", text, sizeof(text)) == 0) {
		out->cgroup_high_events = key_or_none(text, "high");
		out->cgroup_oom_kills = key_or_none(text, "oom_kill");
	}
	/* A kernel booted with psi=0 has the file and refuses its read. */
	if (l->has_pressure && read_text(l->dir, "memory.pressure", text,
	    sizeof(text)) == 0 && cgroup_parse_pressure(text, "some",
	    &out->cgroup_pressure_some) == 0 && cgroup_parse_pressure(text,
	    "full", &out->cgroup_pressure_full) == 0)
		return 0;
	out->cgroup_pressure_some = out->cgroup_pressure_full = -1;
	return 0;
}

/*
 * v1's: the usage and memory.oom_control's kills. v1 counts no times over
 * a soft limit, and kernels before 4.13 no kills (oom_kills -1).
 */
static int
v1_counts(const struct cgroup_limits *l, struct process_memory *out)
{
	char text[256];

	if (usage_of(l->dir, "memory.usage_in_bytes",
	    &out->cgroup_usage_bytes) != 0)
		return -1;
	out->cgroup_high_events = -1;
	out->cgroup_pressure_some = out->cgroup_pressure_full = -1;
	out->cgroup_oom_kills = -1;
	if (read_text(l->dir, "memory.oom_control", text, sizeof(text)) == 0)
		out->cgroup_oom_kills = key_or_none(text, "oom_kill");
	return 0;
}

int
cgroup_read_counts(const struct cgroup_limits *l, struct process_memory *out)
{
	int rc = l->version == 2 ? v2_counts(l, out) : v1_counts(l, out);

	out->has_cgroup = rc == 0;
	if (rc != 0)
		return -1;
	out->cgroup_version = l->version;
	out->cgroup_limit_bytes = l->limit_bytes;
	out->cgroup_high_bytes = l->high_bytes;
	return 0;
}

int
cgroup_read(const char *dir, struct process_memory *out)
{
	struct cgroup_limits l;

	if (cgroup_read_limits(dir, &l) != 0) {
		out->has_cgroup = false;
		return -1;
	}
	return cgroup_read_counts(&l, out);
}
