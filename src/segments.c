#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include "dirlist.h"
#include "segments.h"
#include "utc.h"

#define SEGMENT_SUFFIX ".jsonl"

/* 20261127T031200.123Z.jsonl */
static void
segment_name(char *buf, size_t size, int64_t ms)
{
	char name[UTC_MAX];

	utc_format(name, sizeof(name), ms, UTC_NAME);
	snprintf(buf, size, "%s" SEGMENT_SUFFIX, name);
}

bool
segments_is_name(const char *name)
{
	static const char shape[] = "ddddddddTdddddd.dddZ";
	size_t i;

	for (i = 0; shape[i] != '\0'; i++)
		if (shape[i] == 'd' ? name[i] < '0' || name[i] > '9' :
		    name[i] != shape[i])
			return false;
	return strcmp(name + i, SEGMENT_SUFFIX) == 0;
}

/* The ms since the epoch a segment's name says; -1 when none. */
static int64_t
name_ms(const char *name)
{
	const char *end;
	int64_t ms;

	if (!segments_is_name(name) || utc_scan(name, UTC_NAME, &ms,
	    &end) != 0)
		return -1;
	return ms;
}

int64_t
segments_now(const struct segments *g)
{
	return g->t0_ms + (int64_t)((g->clk.now_ns(g->clk.ctx) - g->t0_ns) /
	    1000000u);
}

/*
 * What the recorder makes or finds inside DIR is reached from DIR's
 * descriptor, never through a link: one planted as DIR/segments would
 * have the pruning remove files elsewhere.
 */
static int
open_sub(int dirfd, const char *dir, const char *name, char *err,
    size_t errlen)
{
	struct stat st;
	int fd;

	if (mkdirat(dirfd, name, 0700) != 0 && errno != EEXIST) {
		snprintf(err, errlen, "cannot make %s/%s: %s; give --record a "
		    "folder this account may write", dir, name, strerror(errno));
		return -1;
	}
	fd = openat(dirfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW |
	    O_CLOEXEC);
	if (fd < 0 && (errno == ELOOP || errno == ENOTDIR))
		snprintf(err, errlen, "%s/%s is %s, not a folder the recorder "
		    "made; remove it (the recorder makes its own)", dir, name,
		    fstatat(dirfd, name, &st, AT_SYMLINK_NOFOLLOW) == 0 &&
		    S_ISLNK(st.st_mode) ? "a link" : "a file");
	else if (fd < 0)
		snprintf(err, errlen, "cannot open %s/%s: %s", dir, name,
		    strerror(errno));
	return fd;
}

/*
 * The records hold the statements the server ran: a folder another
 * account owns, or may write (and so plant or remove files in), is
 * refused rather than taken.
 */
static int
check_own(int fd, const char *path, char *err, size_t errlen)
{
	struct stat st;

	if (fstat(fd, &st) != 0) {
		snprintf(err, errlen, "cannot read %s: %s", path,
		    strerror(errno));
		return -1;
	}
	if (st.st_uid != geteuid()) {
		snprintf(err, errlen, "%s is owned by uid %u, not by this "
		    "account (uid %u); chown %u %s, or run as its owner", path,
		    (unsigned)st.st_uid, (unsigned)geteuid(),
		    (unsigned)geteuid(), path);
		return -1;
	}
	if ((st.st_mode & 022) != 0) {
		snprintf(err, errlen, "%s may be written by other accounts "
		    "(mode %04o); chmod 700 %s", path,
		    (unsigned)(st.st_mode & 07777), path);
		return -1;
	}
	return 0;
}

/* DIR itself: it may be a link to a folder elsewhere (a bigger disk). */
static int
open_top(struct segments *g, const char *dir, char *err, size_t errlen)
{
	if (mkdir(dir, 0700) != 0 && errno != EEXIST) {
		snprintf(err, errlen, "cannot make %s: %s; give --record a "
		    "folder that can be made%s", dir, strerror(errno),
		    errno == EROFS ? " (this one is on a read-only file "
		    "system)" : errno == EACCES ? " (or run as an account "
		    "that may write there)" : "");
		return -1;
	}
	if ((g->dirfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC)) < 0) {
		if (errno == ENOTDIR)
			snprintf(err, errlen, "%s is not a folder; give "
			    "--record a folder", dir);
		else
			snprintf(err, errlen, "cannot open %s: %s", dir,
			    strerror(errno));
		return -1;
	}
	return check_own(g->dirfd, dir, err, errlen);
}

static int
take_lock(struct segments *g, const char *dir, char *err, size_t errlen)
{
	g->lockfd = openat(g->dirfd, "lock", O_RDWR | O_CREAT | O_CLOEXEC |
	    O_NOFOLLOW, 0600);
	if (g->lockfd < 0) {
		snprintf(err, errlen, "cannot open %s/lock: %s; give --record a "
		    "folder this account may write%s", dir, strerror(errno),
		    errno == EROFS ? " (this one is on a read-only file "
		    "system)" : "");
		return -1;
	}
	if (flock(g->lockfd, LOCK_EX | LOCK_NB) == 0)
		return 0;
	if (errno == EWOULDBLOCK)
		snprintf(err, errlen, "another mysqlmemprof records into %s (it "
		    "holds %s/lock); stop it, or give --record another folder",
		    dir, dir);
	else
		snprintf(err, errlen, "cannot lock %s/lock: %s; give --record a "
		    "folder on a local file system", dir, strerror(errno));
	return -1;
}

int
segments_open(struct segments *g, const char *dir, uint64_t max_bytes,
    int64_t max_age_ms, const struct clock *clk, char *err, size_t errlen)
{
	char path[4200];
	uint64_t seg = max_bytes / 16;

	memset(g, 0, sizeof(*g));
	g->fd = g->dirfd = g->segfd = g->incfd = g->lockfd = -1;
	g->sync = fdatasync;
	if (snprintf(g->dir, sizeof(g->dir), "%s", dir) >=
	    (int)sizeof(g->dir)) {
		snprintf(err, errlen, "--record: the folder's name is too long");
		return -1;
	}
	g->clk = *clk;
	g->t0_ms = clk->wall_ms(clk->ctx);
	g->t0_ns = clk->now_ns(clk->ctx);
	g->max_bytes = max_bytes;
	g->max_age_ms = max_age_ms;
	g->segment_bytes = seg < SEGMENTS_MIN_BYTES ? SEGMENTS_MIN_BYTES :
	    seg > SEGMENTS_MAX_BYTES ? SEGMENTS_MAX_BYTES : seg;
	g->segment_ms = max_age_ms / 8 < SEGMENTS_MAX_MS ? max_age_ms / 8 :
	    SEGMENTS_MAX_MS;
	if (open_top(g, dir, err, errlen) != 0 ||
	    take_lock(g, dir, err, errlen) != 0)
		goto fail;
	if ((g->segfd = open_sub(g->dirfd, dir, "segments", err,
	    errlen)) < 0)
		goto fail;
	snprintf(path, sizeof(path), "%s/segments", dir);
	if (check_own(g->segfd, path, err, errlen) != 0)
		goto fail;
	if ((g->incfd = open_sub(g->dirfd, dir, "incidents", err,
	    errlen)) < 0)
		goto fail;
	snprintf(path, sizeof(path), "%s/incidents", dir);
	if (check_own(g->incfd, path, err, errlen) != 0)
		goto fail;
	return 0;
fail:
	segments_close(g, NULL, 0);
	return -1;
}

/* A segment on disk: its name, size, and when its records began. */
struct seg {
	char name[64];
	uint64_t size;
	int64_t begun_ms;
	bool mine;
};

static bool
is_mine(const struct segments *g, const char *name, int64_t *begun_ms)
{
	for (size_t i = 0; i < g->n_mine; i++)
		if (strcmp(g->mine[i].name, name) == 0) {
			*begun_ms = g->mine[i].begun_ms;
			return true;
		}
	return false;
}

static int
by_seg(const void *a, const void *b)
{
	const struct seg *x = a, *y = b;

	if (x->mine != y->mine)
		return x->mine ? 1 : -1;
	/* This run's in the order begun; earlier runs' by their names. */
	if (x->mine)
		return x->begun_ms < y->begun_ms ? -1 : x->begun_ms > y->begun_ms;
	return strcmp(x->name, y->name);
}

static bool
segment_entry(const char *name, void *ctx)
{
	(void)ctx;
	return segments_is_name(name);
}

/*
 * The regular files of DIR/segments named as segments, oldest first:
 * earlier runs' by their names, then this run's in the order begun,
 * whatever the wall clock said when they were named. *v is allocated.
 */
static int
list_own(struct segments *g, struct seg **v, size_t *n)
{
	char **names;
	size_t k;
	struct stat st;

	*v = NULL;
	*n = 0;
	if (dirlist_at(g->segfd, segment_entry, NULL, &names, &k) != 0)
		return -1;
	if (k > 0 && (*v = calloc(k, sizeof(**v))) == NULL) {
		dirlist_free(names, k);
		return -1;
	}
	for (size_t i = 0; i < k; i++) {
		struct seg *s = &(*v)[*n];

		if (fstatat(g->segfd, names[i], &st, AT_SYMLINK_NOFOLLOW) != 0 ||
		    !S_ISREG(st.st_mode))
			continue;
		snprintf(s->name, sizeof(s->name), "%.63s", names[i]);
		s->size = (uint64_t)st.st_size;
		s->mine = is_mine(g, s->name, &s->begun_ms);
		if (!s->mine)
			s->begun_ms = name_ms(s->name);
		(*n)++;
	}
	dirlist_free(names, k);
	if (*n > 0)
		qsort(*v, *n, sizeof(**v), by_seg);
	return 0;
}

/* Removes a segment, never the one written; whether it went. */
static bool
remove_seg(struct segments *g, const char *name)
{
	if (strcmp(name, g->name) == 0 || unlinkat(g->segfd, name, 0) != 0)
		return false;
	for (size_t i = 0; i < g->n_mine; i++)
		if (strcmp(g->mine[i].name, name) == 0) {
			memmove(&g->mine[i], &g->mine[i + 1],
			    (g->n_mine - i - 1) * sizeof(g->mine[0]));
			g->n_mine--;
			break;
		}
	return true;
}

void
segments_prune(struct segments *g)
{
	struct seg *v;
	size_t n, i;
	uint64_t total = 0;
	int64_t limit = segments_now(g) - g->max_age_ms;

	if (list_own(g, &v, &n) != 0)
		return;
	for (i = 0; i < n; i++)
		total += v[i].size;
	/*
	 * The one written may grow to a segment's size: the others keep
	 * to the rest. A segment's records end where the next begins.
	 */
	for (i = 0; i + 1 < n; i++) {
		bool old = v[i + 1].begun_ms < limit;

		if (!old && total + g->segment_bytes <= g->max_bytes)
			break;
		if (remove_seg(g, v[i].name))
			total -= v[i].size;
	}
	free(v);
}

/* Removes the oldest segment but the one written; whether one was. */
static bool
drop_oldest(struct segments *g)
{
	struct seg *v;
	size_t n;
	bool done;

	if (list_own(g, &v, &n) != 0)
		return false;
	done = n >= 2 && remove_seg(g, v[0].name);
	free(v);
	return done;
}

static bool
no_room(int e)
{
	return e == ENOSPC || e == EDQUOT;
}

static int
say_full(struct segments *g, char *err, size_t errlen)
{
	snprintf(err, errlen, "the disk of %s is full (%s) and holds no older "
	    "segment to remove; free space on it, or give a smaller "
	    "--record-size", g->dir, strerror(errno));
	return SEGMENTS_FULL;
}

/* This run's segments, to tell their order whatever their names say. */
static int
add_mine(struct segments *g, const char *name, int64_t begun_ms)
{
	if (g->n_mine == g->cap_mine) {
		size_t cap = g->cap_mine ? g->cap_mine * 2 : 16;
		struct segments_mine *v = realloc(g->mine, cap * sizeof(*v));

		if (v == NULL)
			return -1;
		g->mine = v;
		g->cap_mine = cap;
	}
	snprintf(g->mine[g->n_mine].name, sizeof(g->mine[0].name), "%s", name);
	g->mine[g->n_mine++].begun_ms = begun_ms;
	return 0;
}

/*
 * A full disk said by the sync or the close of the segment (XFS, btrfs,
 * NFS and quotas may say so there, not at the write): its lines since
 * the last sync may be lost, not the run. The segment is left, and the
 * next turn removes an older one for room (where writes never fail, as
 * on NFS, nothing else would) and begins another. An empty one (its
 * name's sync failed) goes, so that a disk full for long does not fill
 * the folder with them.
 */
static int
left_full(struct segments *g, const char *what, char *err, size_t errlen)
{
	char name[64];

	snprintf(err, errlen, "the disk of %s is full (%s) at the %s of "
	    "segments/%s, whose last lines may be lost; free space on it, or "
	    "give a smaller --record-size", g->dir, strerror(errno), what,
	    g->name);
	if (g->fd >= 0)
		close(g->fd);
	g->fd = -1;
	snprintf(name, sizeof(name), "%s", g->name);
	g->name[0] = '\0'; /* none is written now: remove_seg() may take it */
	if (g->bytes == 0)
		remove_seg(g, name);
	g->room_due = true;
	return SEGMENTS_FULL;
}

static int
sync_now(struct segments *g, char *err, size_t errlen)
{
	g->synced_ms = segments_now(g);
	if (g->fd < 0 || g->sync(g->fd) == 0)
		return 0;
	if (no_room(errno))
		return left_full(g, "sync", err, errlen);
	snprintf(err, errlen, "cannot sync %s/segments/%s: %s; check the disk",
	    g->dir, g->name, strerror(errno));
	return -1;
}

int
segments_sync(struct segments *g, char *err, size_t errlen)
{
	return sync_now(g, err, errlen);
}

/* Leaves the segment written: whole on disk first. */
static int
leave(struct segments *g, char *err, size_t errlen)
{
	int rc, fd = g->fd;

	if (fd < 0)
		return 0;
	/* A full disk at the sync has left it already. */
	if ((rc = sync_now(g, err, errlen)) == SEGMENTS_FULL)
		return rc;
	g->fd = -1;
	if (close(fd) != 0 && rc == 0) {
		if (no_room(errno))
			return left_full(g, "close", err, errlen);
		snprintf(err, errlen, "cannot close %s/segments/%s: %s",
		    g->dir, g->name, strerror(errno));
		rc = -1;
	}
	return rc;
}

/* A new segment, named by wall_ms; 0, SEGMENTS_FULL or -1. */
static int
begin(struct segments *g, int64_t wall_ms, char *err, size_t errlen)
{
	char name[64];
	int fd;

	if (g->room_due)
		drop_oldest(g);
	g->room_due = false;
	/* Two begun within a millisecond: the later one's name is later. */
	for (int64_t t = wall_ms;;) {
		int e;

		segment_name(name, sizeof(name), t);
		fd = openat(g->segfd, name, O_WRONLY | O_CREAT | O_EXCL |
		    O_APPEND | O_CLOEXEC | O_NOFOLLOW, 0600);
		if (fd >= 0)
			break;
		e = errno;
		if (no_room(e) && drop_oldest(g))
			continue;
		errno = e;
		if (e != EEXIST || ++t > wall_ms + 1000)
			break;
	}
	if (fd < 0 && no_room(errno))
		return say_full(g, err, errlen);
	if (fd < 0 || add_mine(g, name, segments_now(g)) != 0) {
		snprintf(err, errlen, "cannot make a segment in %s/segments: "
		    "%s", g->dir, fd < 0 ? strerror(errno) : "out of memory");
		if (fd >= 0) {
			unlinkat(g->segfd, name, 0);
			close(fd);
		}
		return -1;
	}
	g->fd = fd;
	snprintf(g->name, sizeof(g->name), "%s", name);
	g->bytes = 0;
	g->opened_ms = g->synced_ms = segments_now(g);
	/* Its name is on disk too, so that a crash does not lose the file. */
	if (fsync(g->segfd) != 0) {
		if (no_room(errno))
			return left_full(g, "sync", err, errlen);
		snprintf(err, errlen, "cannot sync %s/segments: %s; check the "
		    "disk", g->dir, strerror(errno));
		return -1;
	}
	return 0;
}
int
segments_turn(struct segments *g, int64_t wall_ms, size_t n, char *err,
    size_t errlen)
{
	int rc;

	bool fits = g->fd >= 0 && g->bytes + n <= g->segment_bytes &&
	    segments_now(g) - g->opened_ms < g->segment_ms;

	/*
	 * Lines were lost to a full disk: the next ones begin again, as at a
	 * segment's start, in the same segment while it has room.
	 */
	if (fits && g->full) {
		g->full = false;
		return 1;
	}
	if (fits)
		return 0;
	if ((rc = leave(g, err, errlen)) != 0)
		return rc;
	if ((rc = begin(g, wall_ms, err, errlen)) != 0)
		return rc;
	g->full = false;
	segments_prune(g);
	return 1;
}

/*
 * The disk is full and no older segment is left to remove: the start of
 * the line written is taken back, so that no torn line stays. When the
 * segment alone holds much of the disk (a --record-size larger than it),
 * segments become an eighth of it, so that the next turn begins one and
 * removes this one, and later fills remove less.
 */
static int
full(struct segments *g, char *err, size_t errlen)
{
	int e = errno;
	uint64_t eighth = g->bytes / 8;

	if (ftruncate(g->fd, (off_t)g->bytes) != 0) {
		snprintf(err, errlen, "cannot cut %s/segments/%s back after a "
		    "full disk: %s", g->dir, g->name, strerror(errno));
		return -1;
	}
	if (eighth >= SEGMENTS_MIN_BYTES && eighth < g->segment_bytes)
		g->segment_bytes = eighth;
	g->full = true;
	errno = e;
	return say_full(g, err, errlen);
}

int
segments_write(struct segments *g, const void *p, size_t n, char *err,
    size_t errlen)
{
	const char *b = p;
	size_t done = 0;

	while (done < n) {
		ssize_t w = write(g->fd, b + done, n - done);

		if (w < 0 && errno == EINTR)
			continue;
		/*
		 * A full disk: the oldest segments make room for the newest,
		 * as many as it takes; the rest of the line then follows the
		 * start already written, into the same segment, whole.
		 */
		if (w < 0 && no_room(errno)) {
			if (drop_oldest(g))
				continue;
			return full(g, err, errlen);
		}
		if (w < 0) {
			snprintf(err, errlen, "cannot write %s/segments/%s: %s; "
			    "check the disk and the folder", g->dir, g->name,
			    strerror(errno));
			return -1;
		}
		done += (size_t)w;
	}
	g->bytes += n;
	if (segments_now(g) - g->synced_ms >= SEGMENTS_SYNC_MS)
		return sync_now(g, err, errlen);
	return 0;
}

int
segments_close(struct segments *g, char *err, size_t errlen)
{
	char ignored[512];
	int rc;

	if (err == NULL) {
		err = ignored;
		errlen = sizeof(ignored);
	}
	rc = leave(g, err, errlen);
	if (g->segfd >= 0)
		close(g->segfd);
	if (g->incfd >= 0)
		close(g->incfd);
	if (g->dirfd >= 0)
		close(g->dirfd);
	if (g->lockfd >= 0)
		close(g->lockfd);
	g->segfd = g->incfd = g->dirfd = g->lockfd = -1;
	free(g->mine);
	g->mine = NULL;
	g->n_mine = g->cap_mine = 0;
	return rc;
}

int
segments_list(const char *dir, char ***paths, size_t *n)
{
	char path[4200];
	int fd;

	*paths = NULL;
	*n = 0;
	snprintf(path, sizeof(path), "%s/segments", dir);
	if ((fd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC)) < 0)
		return -1;
	if (segments_list_at(fd, paths, n) != 0) {
		close(fd);
		return -1;
	}
	close(fd);
	/* Each name a whole path. */
	for (size_t i = 0; i < *n; i++) {
		char *p;

		if (asprintf(&p, "%s/%s", path, (*paths)[i]) < 0) {
			dirlist_free(*paths, *n);
			*paths = NULL;
			*n = 0;
			errno = ENOMEM;
			return -1;
		}
		free((*paths)[i]);
		(*paths)[i] = p;
	}
	return 0;
}

int
segments_list_at(int segfd, char ***names, size_t *n)
{
	return dirlist_at(segfd, segment_entry, NULL, names, n);
}
