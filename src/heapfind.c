/*
 * Where a server's jemalloc writes its heap profiles, from what its
 * /proc files say, and the dumps found there. The /proc root is a
 * parameter so that the unit tests read a tree of fixtures instead.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "heapdump.h"
#include "procfs.h"

#define CONF_VAR "MALLOC_CONF="
#define DEFAULT_PREFIX "jeprof"

/* The whole of a /proc file, NUL-ended (environ has NULs within: *len). */
static char *
read_whole(const char *path, size_t *len)
{
	size_t cap = 8192;
	char *buf = malloc(cap), *p;
	ssize_t got;
	int fd, saved;

	*len = 0;
	if (buf == NULL || (fd = open(path, O_RDONLY | O_CLOEXEC)) < 0) {
		saved = errno;
		free(buf);
		errno = saved;
		return NULL;
	}
	while ((got = read(fd, buf + *len, cap - 1 - *len)) != 0) {
		if (got < 0 && errno == EINTR)
			continue;
		if (got < 0)
			goto fail;
		if ((*len += (size_t)got) < cap - 1)
			continue;
		if ((p = realloc(buf, cap * 2)) == NULL)
			goto fail;
		buf = p;
		cap *= 2;
	}
	close(fd);
	buf[*len] = '\0';
	return buf;
fail:
	saved = errno;
	close(fd);
	free(buf);
	errno = saved;
	return NULL;
}

/* The one line said when root/PID/name cannot be read. */
static int
unreadable(const char *root, pid_t pid, const char *name, char *err,
    size_t errlen)
{
	const char *why = errno == ENOENT ? " (the process is gone)" :
	    errno == EACCES || errno == EPERM ? " (another user's process: "
	    "run as its user or root)" : "";

	snprintf(err, errlen, "cannot read %s/%ld/%s: %s%s", root, (long)pid,
	    name, strerror(errno), why);
	return -1;
}

/*
 * MALLOC_CONF's "key:value,key:value" as jemalloc reads it, a later key
 * over an earlier one: prof and prof_prefix. jemalloc also reads the
 * program's malloc_conf symbol and the name /etc/malloc.conf links to,
 * before MALLOC_CONF; neither is read here (a binary's symbol is not in
 * /proc, and the link is the host's, not a container's), so a server
 * profiled only through them is seen as not profiled.
 */
static void
parse_conf(const char *conf, struct heap_source *src, int *prefix_set)
{
	const char *p = conf, *colon, *comma;
	size_t klen, vlen;

	for (; *p != '\0'; p = *comma == ',' ? comma + 1 : comma) {
		comma = p + strcspn(p, ",");
		colon = memchr(p, ':', (size_t)(comma - p));
		if (colon == NULL)
			continue;
		klen = (size_t)(colon - p);
		vlen = (size_t)(comma - colon - 1);
		if (klen == 4 && memcmp(p, "prof", 4) == 0)
			src->profiling = vlen == 4 &&
			    memcmp(colon + 1, "true", 4) == 0;
		else if (klen == 11 && memcmp(p, "prof_prefix", 11) == 0 &&
		    vlen < sizeof(src->prefix)) {
			memcpy(src->prefix, colon + 1, vlen);
			src->prefix[vlen] = '\0';
			*prefix_set = 1;
		}
	}
}

/* MALLOC_CONF of environ's NUL-separated text (getenv's: the first). */
static const char *
conf_of(const char *env, size_t len)
{
	const char *p = env, *end = env + len;

	for (; p < end; p += strlen(p) + 1)
		if (strncmp(p, CONF_VAR, strlen(CONF_VAR)) == 0)
			return p + strlen(CONF_VAR);
	return NULL;
}

/* Whether maps' text maps a file named libjemalloc*. */
static int
maps_jemalloc(const char *maps)
{
	const char *line = maps, *nl, *base;

	for (; *line != '\0'; line = *nl == '\n' ? nl + 1 : nl) {
		nl = line + strcspn(line, "\n");
		base = memrchr(line, '/', (size_t)(nl - line));
		if (base != NULL && (size_t)(nl - base) > 12 &&
		    memcmp(base, "/libjemalloc", 12) == 0)
			return 1;
	}
	return 0;
}

/* The target of the link root/PID/name into buf; -1 with err said. */
static int
read_link(const char *root, pid_t pid, const char *name, char *buf,
    size_t len, char *err, size_t errlen)
{
	char path[PATH_MAX];
	ssize_t n;

	snprintf(path, sizeof(path), "%s/%ld/%s", root, (long)pid, name);
	if ((n = readlink(path, buf, len - 1)) < 0)
		return unreadable(root, pid, name, err, errlen);
	buf[n] = '\0';
	return 0;
}

/*
 * The prefix as this process opens it. A relative one is made absolute
 * against the process's cwd as it is now: jemalloc opens the dump's name
 * relative to the cwd at dump time, and mariadbd and mysqld change to
 * their datadir at start, so dumps written before that (prof_gdump's
 * first) are in the folder it was started from, which /proc no longer
 * says. An absolute one is under the process's root: a chroot's folder
 * is put before it (the link of a chroot reads as the folder; a
 * container's, in a mount namespace of its own, reads "/" and its paths
 * are the container's).
 */
static int
absolute_prefix(const char *root, pid_t pid, struct heap_source *src,
    char *err, size_t errlen)
{
	char dir[PATH_MAX], joined[sizeof(src->prefix)];

	if (src->prefix[0] == '\0')
		return 0;
	if (read_link(root, pid, src->prefix[0] == '/' ? "root" : "cwd", dir,
	    sizeof(dir), err, errlen) != 0)
		return -1;
	if (strcmp(dir, "/") == 0)
		dir[0] = '\0';
	if ((size_t)snprintf(joined, sizeof(joined), "%s%s%s", dir,
	    src->prefix[0] == '/' ? "" : "/", src->prefix) >= sizeof(joined)) {
		snprintf(err, errlen, "the dumps' prefix %s/%s is too long",
		    dir, src->prefix);
		return -1;
	}
	memcpy(src->prefix, joined, sizeof(joined));
	return 0;
}

int
heap_find_source_in(const char *root, pid_t pid, struct heap_source *src,
    char *err, size_t errlen)
{
	char path[PATH_MAX], *env, *maps;
	const char *conf;
	size_t len;
	int prefix_set = 0;

	memset(src, 0, sizeof(*src));
	snprintf(path, sizeof(path), "%s/%ld/environ", root, (long)pid);
	if ((env = read_whole(path, &len)) == NULL)
		return unreadable(root, pid, "environ", err, errlen);
	if ((conf = conf_of(env, len)) != NULL) {
		snprintf(src->conf, sizeof(src->conf), "%s", conf);
		parse_conf(conf, src, &prefix_set);
	}
	free(env);
	if (!prefix_set)
		snprintf(src->prefix, sizeof(src->prefix), DEFAULT_PREFIX);
	snprintf(path, sizeof(path), "%s/%ld/maps", root, (long)pid);
	if ((maps = read_whole(path, &len)) == NULL)
		return unreadable(root, pid, "maps", err, errlen);
	/* A jemalloc linked into the binary maps no file of its own. */
	src->jemalloc = maps_jemalloc(maps);
	free(maps);
	return absolute_prefix(root, pid, src, err, errlen);
}

int
heap_find_source(pid_t pid, struct heap_source *src, char *err,
    size_t errlen)
{
	return heap_find_source_in(PROCFS_ROOT, pid, src, err, errlen);
}

/* Digits of [s, end) as a number; -1 on none, junk or overflow. */
static int
digits(const char *s, const char *end, uint64_t *v)
{
	if (s == end)
		return -1;
	for (*v = 0; s < end; s++) {
		if (*s < '0' || *s > '9' ||
		    *v > (UINT64_MAX - (uint64_t)(*s - '0')) / 10)
			return -1;
		*v = *v * 10 + (uint64_t)(*s - '0');
	}
	return 0;
}

/*
 * Whether name is BASE.PID.SEQ.KINDITER.heap (base NULL: any prefix),
 * read from the right since a prefix may hold dots. 'f' (prof_final) has
 * no ITER: jemalloc names it PREFIX.PID.SEQ.f.heap.
 */
static int
match_name(const char *name, const char *base, struct heap_file *f)
{
	const char *end = name + strlen(name), *dot, *kind;
	uint64_t pid;

	if (end - name < 5 || strcmp(end - 5, ".heap") != 0)
		return 0;
	end -= 5;
	if ((kind = memrchr(name, '.', (size_t)(end - name))) == NULL)
		return 0;
	f->kind = kind[1];
	if (f->kind == 'f' ? kind + 2 != end : (strchr("ium", f->kind) ==
	    NULL || f->kind == '\0' || digits(kind + 2, end, &f->iter) != 0))
		return 0;
	if ((dot = memrchr(name, '.', (size_t)(kind - name))) == NULL ||
	    digits(dot + 1, kind, &f->seq) != 0)
		return 0;
	kind = dot;
	if ((dot = memrchr(name, '.', (size_t)(kind - name))) == NULL ||
	    dot == name || digits(dot + 1, kind, &pid) != 0 || pid == 0 ||
	    pid > INT_MAX)
		return 0;
	f->pid = (pid_t)pid;
	if (base != NULL && ((size_t)(dot - name) != strlen(base) ||
	    memcmp(name, base, strlen(base)) != 0))
		return 0;
	return 1;
}

static int
by_pid_seq(const void *a, const void *b)
{
	const struct heap_file *x = a, *y = b;

	if (x->pid != y->pid)
		return x->pid < y->pid ? -1 : 1;
	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

/* One more file of *files, path DIR/NAME. */
static int
add_file(struct heap_file **files, size_t *n, size_t *cap, const char *dir,
    const char *name, const struct heap_file *f)
{
	struct heap_file *p;

	if (*n == *cap) {
		*cap = *cap == 0 ? 64 : *cap * 2;
		if ((p = realloc(*files, *cap * sizeof(*p))) == NULL)
			return -1;
		*files = p;
	}
	(*files)[*n] = *f;
	if (asprintf(&(*files)[*n].path, "%s/%s", dir, name) < 0)
		return -1;
	(*n)++;
	return 0;
}

/* The folder of prefix and the base of its names (NULL: any). */
static int
split_prefix(const char *prefix, char *dir, size_t dirlen,
    const char **base)
{
	const char *slash = strrchr(prefix, '/');

	if (slash == NULL) {
		snprintf(dir, dirlen, ".");
		*base = prefix;
		return 0;
	}
	if ((size_t)(slash - prefix) + 2 > dirlen)
		return -1;
	memcpy(dir, prefix, (size_t)(slash - prefix));
	dir[slash - prefix] = '\0';
	if (slash == prefix)
		snprintf(dir, dirlen, "/");
	*base = slash[1] == '\0' ? NULL : slash + 1;
	return 0;
}

int
heap_find_files(const char *prefix, pid_t pid, struct heap_file **files,
    size_t *n, char *err, size_t errlen)
{
	char dir[PATH_MAX];
	const char *base;
	struct dirent *e;
	struct heap_file f;
	size_t cap = 0;
	DIR *dp;

	*files = NULL;
	*n = 0;
	if (*prefix == '\0' || split_prefix(prefix, dir, sizeof(dir),
	    &base) != 0) {
		snprintf(err, errlen, "no folder of dumps in prefix \"%s\"",
		    prefix);
		return -1;
	}
	if ((dp = opendir(dir)) == NULL) {
		snprintf(err, errlen, "cannot list %s: %s", dir,
		    strerror(errno));
		return -1;
	}
	while ((e = readdir(dp)) != NULL) {
		memset(&f, 0, sizeof(f));
		if (e->d_type == DT_DIR || !match_name(e->d_name, base, &f) ||
		    (pid != 0 && f.pid != pid))
			continue;
		if (add_file(files, n, &cap, dir, e->d_name, &f) != 0) {
			snprintf(err, errlen, "listing %s: %s", dir,
			    strerror(errno));
			closedir(dp);
			heap_files_free(*files, *n);
			*files = NULL;
			*n = 0;
			return -1;
		}
	}
	closedir(dp);
	if (*n > 1)
		qsort(*files, *n, sizeof(**files), by_pid_seq);
	return 0;
}

int
heap_folder_usage(const char *prefix, size_t *files, uint64_t *bytes)
{
	char dir[PATH_MAX];
	const char *base;
	struct dirent *e;
	struct heap_file f;
	struct stat st;
	DIR *dp;

	*files = 0;
	*bytes = 0;
	if (*prefix == '\0' || split_prefix(prefix, dir, sizeof(dir),
	    &base) != 0 || (dp = opendir(dir)) == NULL)
		return -1;
	while ((e = readdir(dp)) != NULL) {
		memset(&f, 0, sizeof(f));
		if (e->d_type == DT_DIR || !match_name(e->d_name, base, &f) ||
		    fstatat(dirfd(dp), e->d_name, &st, AT_SYMLINK_NOFOLLOW) != 0)
			continue;
		(*files)++;
		*bytes += (uint64_t)st.st_size;
	}
	closedir(dp);
	return 0;
}

void
heap_files_free(struct heap_file *files, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(files[i].path);
	free(files);
}
