#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "segments.h"

#define SEGMENT_SUFFIX ".jsonl"

/* 20261127T031200.123Z.jsonl */
static void
segment_name(char *buf, size_t size, int64_t ms)
{
	time_t t = (time_t)(ms / 1000);
	struct tm tm;

	gmtime_r(&t, &tm);
	snprintf(buf, size, "%04d%02d%02dT%02d%02d%02d.%03dZ" SEGMENT_SUFFIX,
	    tm.tm_year + 1900, tm.tm_mon + 1, tm.tm_mday, tm.tm_hour,
	    tm.tm_min, tm.tm_sec, (int)(ms % 1000));
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

/*
 * DIR may be a link to a folder elsewhere (a bigger disk), as an
 * administrator makes one; what the recorder makes inside it is its own.
 */
static int
make_dir(const char *path, char *err, size_t errlen)
{
	struct stat st;

	if (mkdir(path, 0700) != 0 && errno != EEXIST) {
		snprintf(err, errlen, "cannot make %s: %s; give --record a "
		    "folder that can be made%s", path, strerror(errno),
		    errno == EROFS ? " (this one is on a read-only file "
		    "system)" : errno == EACCES ? " (or run as an account "
		    "that may write there)" : "");
		return -1;
	}
	if (stat(path, &st) != 0 || !S_ISDIR(st.st_mode)) {
		snprintf(err, errlen, "%s is not a folder; give --record a "
		    "folder", path);
		return -1;
	}
	return 0;
}

int
segments_open(struct segments *g, const char *dir, uint64_t max_bytes,
    int64_t max_age_ms, char *err, size_t errlen)
{
	char path[4200];
	uint64_t seg = max_bytes / 16;

	memset(g, 0, sizeof(*g));
	g->fd = g->segfd = g->lockfd = -1;
	if (snprintf(g->dir, sizeof(g->dir), "%s", dir) >=
	    (int)sizeof(g->dir)) {
		snprintf(err, errlen, "--record: the folder's name is too long");
		return -1;
	}
	g->max_bytes = max_bytes;
	g->max_age_ms = max_age_ms;
	g->segment_bytes = seg < SEGMENTS_MIN_BYTES ? SEGMENTS_MIN_BYTES :
	    seg > SEGMENTS_MAX_BYTES ? SEGMENTS_MAX_BYTES : seg;
	g->segment_ms = max_age_ms / 8 < SEGMENTS_MAX_MS ? max_age_ms / 8 :
	    SEGMENTS_MAX_MS;
	if (make_dir(dir, err, errlen) != 0)
		return -1;
	snprintf(path, sizeof(path), "%s/lock", dir);
	g->lockfd = open(path, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0600);
	if (g->lockfd < 0) {
		snprintf(err, errlen, "cannot open %s: %s; give --record a "
		    "folder this account may write%s", path, strerror(errno),
		    errno == EROFS ? " (this one is on a read-only file "
		    "system)" : "");
		return -1;
	}
	if (flock(g->lockfd, LOCK_EX | LOCK_NB) != 0) {
		if (errno == EWOULDBLOCK)
			snprintf(err, errlen, "another mysqlmemprof records into "
			    "%s (it holds %s); stop it, or give --record another "
			    "folder", dir, path);
		else
			snprintf(err, errlen, "cannot lock %s: %s; give --record "
			    "a folder on a local file system", path,
			    strerror(errno));
		segments_close(g);
		return -1;
	}
	snprintf(path, sizeof(path), "%s/segments", dir);
	if (make_dir(path, err, errlen) != 0)
		goto fail;
	if ((g->segfd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC)) < 0) {
		snprintf(err, errlen, "cannot open %s: %s", path,
		    strerror(errno));
		goto fail;
	}
	snprintf(path, sizeof(path), "%s/incidents", dir);
	if (make_dir(path, err, errlen) != 0)
		goto fail;
	return 0;
fail:
	segments_close(g);
	return -1;
}

static int
sync_now(struct segments *g, int64_t now_ms)
{
	g->synced_ms = now_ms;
	return g->fd >= 0 ? fdatasync(g->fd) : 0;
}

/* Removes the oldest segments, never the one written, beyond the bounds. */
void
segments_prune(struct segments *g, int64_t now_ms)
{
	char **paths;
	size_t n, i;
	uint64_t *size, total = 0;

	if (segments_list(g->dir, &paths, &n) != 0 || n < 2) {
		if (n == 1)
			segments_list_free(paths, n);
		return;
	}
	if ((size = calloc(n, sizeof(*size))) == NULL) {
		segments_list_free(paths, n);
		return;
	}
	for (i = 0; i < n; i++) {
		struct stat st;

		if (stat(paths[i], &st) == 0)
			size[i] = (uint64_t)st.st_size;
		total += size[i];
	}
	/*
	 * The one written may grow to a segment's size: the others keep
	 * to the rest. A segment's records end where the next begins.
	 */
	for (i = 0; i + 1 < n; i++) {
		const char *next = strrchr(paths[i + 1], '/') + 1;
		char limit[64];
		bool old;

		/* Begun after the wall clock stepped back, it sorts early. */
		if (strcmp(strrchr(paths[i], '/') + 1, g->name) == 0)
			continue;
		segment_name(limit, sizeof(limit), now_ms - g->max_age_ms);
		old = strcmp(next, limit) < 0;
		if (!old && total + g->segment_bytes <= g->max_bytes)
			break;
		if (unlink(paths[i]) == 0)
			total -= size[i];
	}
	free(size);
	segments_list_free(paths, n);
}

/* Removes the oldest segment but the one written; whether one was. */
static bool
drop_oldest(struct segments *g)
{
	char **paths;
	size_t n;
	bool done;

	if (segments_list(g->dir, &paths, &n) != 0)
		return false;
	done = n >= 2 && strcmp(strrchr(paths[0], '/') + 1, g->name) != 0 &&
	    unlink(paths[0]) == 0;
	segments_list_free(paths, n);
	return done;
}

int
segments_turn(struct segments *g, int64_t now_ms, size_t n, char *err,
    size_t errlen)
{
	char name[64];
	int fd;

	if (g->fd >= 0 && g->bytes + n <= g->segment_bytes &&
	    now_ms - g->opened_ms < g->segment_ms)
		return 0;
	if (g->fd >= 0) {
		/* Whole on disk before anything is removed for its sake. */
		if (sync_now(g, now_ms) != 0) {
			snprintf(err, errlen, "cannot sync %s/segments/%s: %s",
			    g->dir, g->name, strerror(errno));
			return -1;
		}
		close(g->fd);
		g->fd = -1;
	}
	/* Two segments begun within a millisecond: the later one's name is later. */
	for (int64_t t = now_ms;; t++) {
		segment_name(name, sizeof(name), t);
		fd = openat(g->segfd, name, O_WRONLY | O_CREAT | O_EXCL |
		    O_APPEND | O_CLOEXEC | O_NOFOLLOW, 0600);
		if (fd >= 0 || errno != EEXIST || t > now_ms + 1000)
			break;
	}
	if (fd < 0) {
		snprintf(err, errlen, "cannot make a segment in %s/segments: "
		    "%s", g->dir, strerror(errno));
		return -1;
	}
	g->fd = fd;
	snprintf(g->name, sizeof(g->name), "%s", name);
	g->bytes = 0;
	g->opened_ms = now_ms;
	g->synced_ms = now_ms;
	/* Its name is on disk too, so that a crash does not lose the file. */
	fsync(g->segfd);
	segments_prune(g, now_ms);
	return 1;
}

int
segments_write(struct segments *g, const void *p, size_t n, int64_t now_ms,
    char *err, size_t errlen)
{
	const char *b = p;
	size_t done = 0;
	bool retried = false;

	while (done < n) {
		ssize_t w = write(g->fd, b + done, n - done);

		if (w < 0 && errno == EINTR)
			continue;
		/*
		 * A full disk: the oldest segment makes room for the newest,
		 * once; a torn start of the line written is then the end of
		 * this segment, as after a crash, and the line goes to the next.
		 */
		if (w < 0 && (errno == ENOSPC || errno == EDQUOT) && !retried &&
		    drop_oldest(g)) {
			retried = true;
			continue;
		}
		if (w < 0) {
			snprintf(err, errlen, "cannot write %s/segments/%s: %s; "
			    "%s", g->dir, g->name, strerror(errno),
			    errno == ENOSPC || errno == EDQUOT ? "free space on "
			    "its disk, or give a smaller --record-size" :
			    "check the disk and the folder");
			return -1;
		}
		done += (size_t)w;
	}
	g->bytes += n;
	if (now_ms - g->synced_ms >= SEGMENTS_SYNC_MS && sync_now(g, now_ms) != 0) {
		snprintf(err, errlen, "cannot sync %s/segments/%s: %s", g->dir,
		    g->name, strerror(errno));
		return -1;
	}
	return 0;
}

void
segments_close(struct segments *g)
{
	if (g->fd >= 0) {
		fdatasync(g->fd);
		close(g->fd);
	}
	if (g->segfd >= 0)
		close(g->segfd);
	if (g->lockfd >= 0)
		close(g->lockfd);
	g->fd = g->segfd = g->lockfd = -1;
}

static int
by_name(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

int
segments_list(const char *dir, char ***paths, size_t *n)
{
	char path[4200];
	struct dirent *e;
	char **v = NULL;
	size_t len = 0, cap = 0;
	DIR *d;

	*paths = NULL;
	*n = 0;
	snprintf(path, sizeof(path), "%s/segments", dir);
	if ((d = opendir(path)) == NULL)
		return -1;
	while ((e = readdir(d)) != NULL) {
		char *p;

		if (!segments_is_name(e->d_name))
			continue;
		if (len == cap) {
			char **nv = realloc(v, (cap = cap ? cap * 2 : 16) *
			    sizeof(*v));

			if (nv == NULL)
				goto fail;
			v = nv;
		}
		if (asprintf(&p, "%s/%s", path, e->d_name) < 0)
			goto fail;
		v[len++] = p;
	}
	closedir(d);
	if (len > 0) /* v is NULL then */
		qsort(v, len, sizeof(*v), by_name);
	*paths = v;
	*n = len;
	return 0;
fail:
	closedir(d);
	segments_list_free(v, len);
	errno = ENOMEM;
	return -1;
}

void
segments_list_free(char **paths, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(paths[i]);
	free(paths);
}
