#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "dirfile.h"
#include "dirlist.h"
#include "heapdump.h"
#include "heapkeep.h"
#include "procfs.h"
#include "utc.h"

static char *
read_fd(int fd, uint64_t max, size_t *len)
{
	struct stat st, after;
	char *buf;
	size_t done = 0;
	ssize_t got;

	if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) || st.st_size <= 0 ||
	    (uint64_t)st.st_size > max ||
	    (buf = malloc((size_t)st.st_size + 1)) == NULL)
		return NULL;
	while (done < (size_t)st.st_size && ((got = read(fd, buf + done,
	    (size_t)st.st_size - done)) > 0 || (got < 0 && errno == EINTR)))
		done += got > 0 ? (size_t)got : 0;
	if (done != (size_t)st.st_size || fstat(fd, &after) != 0 ||
	    after.st_size != st.st_size) {
		free(buf);
		return NULL;
	}
	*len = done;
	return buf;
}

char *
heap_keep_read(int dirfd, const char *name, uint64_t max, size_t *len)
{
	int fd = openat(dirfd, name, O_RDONLY | O_NOFOLLOW | O_CLOEXEC |
	    O_NONBLOCK);
	char *text;

	if (fd < 0)
		return NULL;
	text = read_fd(fd, max, len);
	close(fd);
	return text;
}

/* The profile's total, or -1 when the text is no whole dump. */
static int64_t
total_of(const char *text, size_t len)
{
	struct heap_dump d;
	char err[256];
	int64_t t;

	if (heap_dump_parse(text, len, &d, err, sizeof(err)) != 0)
		return -1;
	t = d.total_bytes;
	heap_dump_free(&d);
	return t;
}

/* STAMP-PID.SEQ.heap of a name kept: its time; -1 when not one. */
static int64_t
kept_ms(const char *name)
{
	const char *rest;
	int64_t ms;
	int end = 0;
	long pid;
	unsigned long long seq;

	if (utc_scan(name, UTC_NAME, &ms, &rest) != 0 ||
	    sscanf(rest, "-%ld.%llu.heap%n", &pid, &seq, &end) != 2 ||
	    end == 0 || rest[end] != '\0')
		return -1;
	return ms;
}

static int
by_ms(const void *a, const void *b)
{
	const struct heap_kept *x = a, *y = b;

	return strcmp(x->name, y->name);
}

/*
 * Removes the oldest kept beyond the bounds. A dump copied is within the
 * bytes alone (copy() refuses a larger one); one an earlier run kept
 * under a larger --record-size may not be, and goes too.
 */
static void
prune(struct heap_keep *k)
{
	while (k->n > 0 && (k->n > HEAP_KEEP_DUMPS || k->bytes > k->max_bytes)) {
		(void)unlinkat(k->fd, k->kept[0].name, 0);
		k->bytes -= k->kept[0].size;
		memmove(&k->kept[0], &k->kept[1], --k->n * sizeof(k->kept[0]));
	}
}

/*
 * A kept dump into the list, oldest first (one more than are kept:
 * prune() follows).
 */
static void
add(struct heap_keep *k, const struct heap_kept *d)
{
	k->kept[k->n++] = *d;
	k->bytes += d->size;
	qsort(k->kept, k->n, sizeof(k->kept[0]), by_ms);
}

/* A dump kept is listed; what a crash left half-written goes. */
static bool
kept_entry(const char *name, void *ctx)
{
	struct heap_keep *k = ctx;
	size_t len = strlen(name);

	if (len > 4 && strcmp(name + len - 4, ".tmp") == 0) {
		(void)unlinkat(k->fd, name, 0);
		return false;
	}
	return kept_ms(name) >= 0 && len < sizeof(k->kept[0].name);
}

/* The dumps an earlier run kept. */
static void
take_earlier(struct heap_keep *k)
{
	char **names;
	size_t n;

	if (dirlist_at(k->fd, kept_entry, k, &names, &n) != 0)
		return;
	for (size_t i = 0; i < n; i++) {
		struct heap_kept h = { .ms = kept_ms(names[i]) };
		size_t len;
		char *text = heap_keep_read(k->fd, names[i], UINT64_MAX >> 1,
		    &len);

		if (text == NULL)
			continue;
		h.size = len;
		h.total_bytes = total_of(text, len);
		free(text);
		snprintf(h.name, sizeof(h.name), "%s", names[i]);
		add(k, &h);
		prune(k);
	}
	dirlist_free(names, n);
}

int
heap_keep_open(struct heap_keep *k, int dirfd, const char *dir,
    uint64_t max_bytes, char *err, size_t errlen)
{
	struct stat st;

	k->fd = -1;
	k->max_bytes = max_bytes;
	if (mkdirat(dirfd, "heap", 0700) != 0 && errno != EEXIST) {
		snprintf(err, errlen, "cannot make %s/heap: %s", dir,
		    strerror(errno));
		return -1;
	}
	if ((k->fd = openat(dirfd, "heap", O_RDONLY | O_DIRECTORY |
	    O_NOFOLLOW | O_CLOEXEC)) < 0 || fstat(k->fd, &st) != 0 ||
	    st.st_uid != geteuid() || (st.st_mode & 022) != 0) {
		snprintf(err, errlen, "%s/heap is not a folder of this account "
		    "that only it may write%s%s; remove it or give it to this "
		    "account with mode 0700", dir, k->fd < 0 ? ": " : "",
		    k->fd < 0 ? strerror(errno) : "");
		heap_keep_close(k);
		return -1;
	}
	take_earlier(k);
	return 0;
}

void
heap_keep_close(struct heap_keep *k)
{
	if (k->fd >= 0)
		close(k->fd);
	k->fd = -1;
}

/* Whether the dump pid.seq is kept already. */
static bool
is_kept(const struct heap_keep *k, pid_t pid, uint64_t seq)
{
	char tail[64];

	snprintf(tail, sizeof(tail), "Z-%ld.%" PRIu64 ".heap", (long)pid, seq);
	for (size_t i = 0; i < k->n; i++)
		if (strstr(k->kept[i].name, tail) != NULL)
			return true;
	return false;
}

/*
 * One dump copied in: read whole, parsed whole, written whole. 1, or 0
 * with why (being written, cut short, too large, not written).
 */
static int
copy(struct heap_keep *k, const struct heap_file *f, char *why,
    size_t whylen)
{
	struct heap_kept h = { 0 };
	struct stat st;
	char stamp[64], *text = NULL;
	size_t len;
	int fd = open(f->path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK);

	if (fd >= 0 && fstat(fd, &st) == 0)
		text = read_fd(fd, k->max_bytes, &len);
	if (fd >= 0)
		close(fd);
	if (text == NULL || (h.total_bytes = total_of(text, len)) < 0) {
		snprintf(why, whylen, "%s is not a whole dump of at most %" PRIu64
		    " KiB (being written, cut short, or larger than the share "
		    "of --record-size the dumps may take)", f->path,
		    k->max_bytes >> 10);
		free(text);
		return 0;
	}
	h.ms = (int64_t)st.st_mtim.tv_sec * 1000 + st.st_mtim.tv_nsec / 1000000;
	h.size = len;
	utc_format(stamp, sizeof(stamp), h.ms, UTC_NAME);
	snprintf(h.name, sizeof(h.name), "%s-%ld.%" PRIu64 ".heap", stamp,
	    (long)f->pid, f->seq);
	if (dirfile_write_whole(k->fd, h.name, text, len) != 0) {
		snprintf(why, whylen, "cannot keep %s: %s", f->path,
		    strerror(errno));
		free(text);
		return 0;
	}
	free(text);
	add(k, &h);
	prune(k);
	k->copies++;
	return 1;
}

int
heap_keep_dumps(struct heap_keep *k, const char *prefix, pid_t pid,
    char *why, size_t whylen)
{
	struct heap_file *files;
	size_t n;
	int rc = 0;

	if (why != NULL && whylen > 0)
		why[0] = '\0';
	if (heap_find_files(prefix, pid, &files, &n, why, whylen) != 0)
		return -1;
	/* The newest, or the one before when it is still being written. */
	for (size_t i = n, tries = 0; i-- > 0 && tries < 2 && rc == 0;
	    tries++) {
		if (is_kept(k, pid, files[i].seq))
			break;
		rc = copy(k, &files[i], why, whylen);
	}
	heap_files_free(files, n);
	return rc;
}

const struct heap_kept *
heap_keep_before(const struct heap_keep *k, int64_t ms,
    const struct heap_kept **base)
{
	*base = NULL;
	for (size_t i = k->n; i-- > 0;)
		if (k->kept[i].ms <= ms) {
			*base = i > 0 ? &k->kept[i - 1] : NULL;
			return &k->kept[i];
		}
	return NULL;
}

static void
look(struct heap_keep *k)
{
	const struct pfs_server_id *run = &k->session->server;
	struct heap_source src;
	char why[1024];
	const char *proc = k->proc != NULL ? k->proc : PROCFS_ROOT;

	if (run->pid == 0 || procfs_check(proc, run->pid, run->boot_s, why,
	    sizeof(why)) != PROCMEM_TRUSTED)
		return;
	/*
	 * The packaged service runs as its own user, who cannot read
	 * mysqld's environment: say so once, or DIR/heap stays empty with
	 * no word why.
	 */
	if (heap_find_source_in(proc, (pid_t)run->pid, &src, why,
	    sizeof(why)) != 0) {
		char msg[1200];

		snprintf(msg, sizeof(msg), "--record: the server's heap "
		    "profiles are not kept: %s", why);
		if (!k->said && k->notify != NULL)
			k->notify(k->notify_ctx, msg);
		k->said = true;
		return;
	}
	if (!src.jemalloc || !src.profiling || src.prefix[0] == '\0') {
		if (!k->said && k->notify != NULL)
			k->notify(k->notify_ctx, "--record: the server is not "
			    "profiled by jemalloc: the black box keeps its "
			    "heap profiles when it is (see --heap in the "
			    "manual)");
		k->said = true;
		return;
	}
	k->pid = (pid_t)run->pid;
	snprintf(k->prefix, sizeof(k->prefix), "%s", src.prefix);
	(void)heap_keep_dumps(k, k->prefix, k->pid, why, sizeof(why));
}

int
heap_keep_again(struct heap_keep *k)
{
	char why[1024];

	if (k->fd < 0 || k->pid == 0)
		return 0;
	return heap_keep_dumps(k, k->prefix, k->pid, why, sizeof(why)) == 1;
}

static enum source_status
source_read(void *ctx, uint64_t deadline_ns, struct reading *out,
    char *err, size_t errlen)
{
	struct heap_keep *k = ctx;
	enum source_status st = k->inner.read(k->inner.ctx, deadline_ns, out,
	    err, errlen);
	uint64_t now;

	if (st != SOURCE_OK || k->fd < 0)
		return st;
	now = k->clk->now_ns(k->clk->ctx);
	if (!gate_due(&k->gate, now))
		return st;
	gate_arm(&k->gate, now, k->every_ns != 0 ? k->every_ns :
	    HEAP_KEEP_EVERY_NS);
	look(k);
	return st;
}

struct source
heap_keep_source(struct heap_keep *k)
{
	return (struct source){ .ctx = k, .read = source_read };
}
