#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "conns_lines.h"
#include "incident.h"
#include "incident_page.h"
#include "output_format.h"
#include "reader.h"
#include "segments.h"
#include "when.h"

/* Whether a record's line is a sample: --format json's begins so. */
static bool
is_sample(const char *line, size_t n)
{
	return n > 10 && memcmp(line, "{\"sample\":", 10) == 0;
}

/* Whether a sample's line keeps the events of one before (beat.h). */
static bool
kept(const char *line, size_t n)
{
	static const char key[] = "\"events_kept\":1";

	return memmem(line, n, key, sizeof(key) - 1) != NULL;
}

/* The window being gathered: its bounds, its lines, the book. */
struct gather {
	int64_t from, to;
	struct obuf *out;
	struct conns_book *book;
	bool begun, sampled;
	/*
	 * The last sample before the window that had its events: the
	 * window's first sample may keep them (beat.h), and a reader of the
	 * window alone would have none to take.
	 */
	struct obuf events;
};

/* One whole line of a segment: before the window, in it, or after. */
static int
gather_line(struct gather *g, const char *line, size_t ll)
{
	int64_t ms = incident_line_ms(line, ll);

	if (ms < 0 || ms > g->to)
		return 0;
	if (ms < g->from) {
		conns_line_apply(g->book, line, ll);
		if (is_sample(line, ll) && !kept(line, ll)) {
			obuf_clear(&g->events);
			obuf_write(&g->events, line, ll);
			obuf_write(&g->events, "\n", 1);
		}
		return 0;
	}
	if (!g->begun) {
		g->begun = true;
		if (conns_line_put(g->out, g->book, g->book->v, g->book->n,
		    true, ms) < 0)
			return -1;
	}
	if (!g->sampled && is_sample(line, ll)) {
		g->sampled = true;
		if (kept(line, ll) && g->events.len > 0)
			obuf_write(g->out, g->events.p, g->events.len);
	}
	/* The book follows, for the page's connections. */
	conns_line_apply(g->book, line, ll);
	obuf_write(g->out, line, ll);
	obuf_write(g->out, "\n", 1);
	return 0;
}

/*
 * The lines of one segment. A line torn (the record being written, or
 * the last before a kill), too long or unreadable is left out.
 */
static int
gather_segment(struct gather *g, struct reader *r)
{
	enum reader_got got;
	char *line;
	size_t ll;

	while ((got = reader_next(r, &line, &ll)) != READER_END &&
	    got != READER_ERROR && got != READER_CUT)
		if (got == READER_LINE && gather_line(g, line, ll) != 0)
			return -1;
	return 0;
}

/* The first segment of the window: the last begun at or before `from`. */
static size_t
first_segment(char **paths, size_t n, int64_t from)
{
	char first[64];
	size_t start = 0;

	when_stamp(first, sizeof(first), from);
	for (size_t i = 0; i < n; i++) {
		const char *name = strrchr(paths[i], '/') + 1;
		char t[64];

		/* 20261127T031200.123Z -> the same form as first's */
		snprintf(t, sizeof(t), "%.4s-%.2s-%.2sT%.2s:%.2s:%.2s.%.3sZ",
		    name, name + 4, name + 6, name + 9, name + 11, name + 13,
		    name + 16);
		if (strcmp(t, first) <= 0)
			start = i;
	}
	return start;
}

/*
 * The window's lines into out: those of the segments stamped from `from`
 * to `to`, a whole connections line first (the book at `from`, rebuilt
 * from the segment's start). Torn lines are left out; so is a file that
 * is not a regular one (planted among the segments), with a note.
 */
static int
window_lines(const char *dir, int64_t from, int64_t to, struct obuf *out,
    struct conns_book *book, const struct incident_notes *notes)
{
	struct gather g = { .from = from, .to = to, .out = out, .book = book };
	struct reader r = { .fd = -1 };
	char **paths, why[128], msg[4400];
	size_t n;
	int fd, rc = 0;

	if (segments_list(dir, &paths, &n) != 0)
		return -1;
	for (size_t i = first_segment(paths, n, from); i < n && rc == 0;
	    i++) {
		if ((fd = reader_open_regular(paths[i], why, sizeof(why))) < 0) {
			snprintf(msg, sizeof(msg), "%s passed over: %s, not a "
			    "segment the recorder wrote", paths[i], why);
			if (why[0] != '\0' && notes != NULL)
				notes->note(notes->ctx, msg);
			continue;
		}
		reader_reset(&r, fd, paths[i]);
		rc = gather_segment(&g, &r);
		close(fd);
	}
	free(r.buf);
	segments_list_free(paths, n);
	obuf_free(&g.events);
	return rc != 0 ? -1 : obuf_status(out);
}

/* Writes n bytes to path through a temporary name: whole or not at all. */
static int
write_whole(const char *path, const void *p, size_t n)
{
	char tmp[4300];
	int fd;
	ssize_t w = 0;

	snprintf(tmp, sizeof(tmp), "%s.tmp", path);
	fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW,
	    0600);
	if (fd < 0)
		return -1;
	for (size_t done = 0; done < n; done += (size_t)w)
		if ((w = write(fd, (const char *)p + done, n - done)) < 0 &&
		    errno != EINTR)
			break;
		else if (w < 0)
			w = 0;
	if (w < 0 || fsync(fd) != 0 || close(fd) != 0 ||
	    rename(tmp, path) != 0) {
		int e = errno;

		unlink(tmp);
		errno = e;
		return -1;
	}
	return 0;
}

/* The incidents' names on disk too: a crash after the rename keeps them. */
static void
sync_folder(const char *dir)
{
	char path[4200];
	int fd;

	snprintf(path, sizeof(path), "%s/incidents", dir);
	if ((fd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC)) >= 0) {
		fsync(fd);
		close(fd);
	}
}

static int
by_name(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/*
 * The oldest incidents beyond INCIDENTS_KEPT are removed, both files of
 * each: a server that restarts all day must not fill the disk with them.
 * Their names sort as time does.
 */
static void
prune_incidents(const char *dir)
{
	char path[4200], **names = NULL;
	size_t n = 0, cap = 0;
	struct dirent *e;
	DIR *d;

	snprintf(path, sizeof(path), "%s/incidents", dir);
	if ((d = opendir(path)) == NULL)
		return;
	while ((e = readdir(d)) != NULL) {
		size_t len = strlen(e->d_name);
		char **v;

		/* A file a crash left half-written is no incident. */
		if (len > 4 && strcmp(e->d_name + len - 4, ".tmp") == 0) {
			snprintf(path, sizeof(path), "%s/incidents/%s", dir,
			    e->d_name);
			unlink(path);
			continue;
		}
		if (len < 5 || strcmp(e->d_name + len - 5, ".html") != 0)
			continue;
		if (n == cap) {
			if ((v = realloc(names, (cap = cap ? cap * 2 : 64) *
			    sizeof(*v))) == NULL)
				break;
			names = v;
		}
		if ((names[n] = strndup(e->d_name, len - 5)) == NULL)
			break;
		n++;
	}
	closedir(d);
	if (n > 0) /* names is NULL then */
		qsort(names, n, sizeof(*names), by_name);
	for (size_t i = 0; i + INCIDENTS_KEPT < n; i++) {
		snprintf(path, sizeof(path), "%s/incidents/%s.html", dir,
		    names[i]);
		unlink(path);
		snprintf(path, sizeof(path), "%s/incidents/%s.jsonl", dir,
		    names[i]);
		unlink(path);
	}
	for (size_t i = 0; i < n; i++)
		free(names[i]);
	free(names);
}

int
incident_write(const char *dir, const struct incident *in,
    int64_t window_ms, const struct incident_notes *notes, char *path,
    size_t pathlen, char *err, size_t errlen)
{
	struct obuf lines = { 0 };
	char *page = NULL;
	size_t page_len = 0;
	FILE *fp;
	struct conns_book book = { 0 };
	char stamp[64], stem[4200], html[4300];
	struct stat st;
	int rc = -1;

	when_stamp(stamp, sizeof(stamp), in->at_ms);
	/*
	 * 2026-11-27T03:12:05.123Z -> 20261127T031205Z; a second incident of
	 * the kind in the same second (a server crashing in a loop) takes
	 * -2, -3, ... rather than the first's place.
	 */
	for (int i = 1; i < 100; i++) {
		snprintf(stem, sizeof(stem), "%s/incidents/%.4s%.2s%.2sT%.2s"
		    "%.2s%.2sZ-%s", dir, stamp, stamp + 5, stamp + 8,
		    stamp + 11, stamp + 14, stamp + 17,
		    incident_kind_name(in->kind));
		if (i > 1)
			snprintf(stem + strlen(stem), sizeof(stem) - strlen(stem),
			    "-%d", i);
		snprintf(html, sizeof(html), "%s.html", stem);
		if (stat(html, &st) != 0)
			break;
	}
	if (window_lines(dir, in->at_ms - window_ms, in->at_ms, &lines,
	    &book, notes) != 0) {
		snprintf(err, errlen, "cannot read the segments of %s: %s",
		    dir, strerror(errno));
		goto out;
	}
	/* The record wrote the incident's own line first: it ends the window. */
	snprintf(path, pathlen, "%s.jsonl", stem);
	if (write_whole(path, lines.p, lines.len) != 0) {
		snprintf(err, errlen, "cannot write %s: %s", path,
		    strerror(errno));
		goto out;
	}
	snprintf(path, pathlen, "%s.html", stem);
	if ((fp = open_memstream(&page, &page_len)) == NULL) {
		snprintf(err, errlen, "out of memory");
		goto out;
	}
	rc = incident_page(fp, in, lines.p, lines.len);
	if (fclose(fp) != 0 || rc != 0 || write_whole(path, page,
	    page_len) != 0) {
		snprintf(err, errlen, "cannot write %s: %s", path,
		    strerror(errno));
		/* Both files or neither: the lines go with the page. */
		snprintf(path, pathlen, "%s.jsonl", stem);
		unlink(path);
		rc = -1;
		goto out;
	}
	rc = 0;
	prune_incidents(dir);
	sync_folder(dir);
out:
	obuf_free(&lines);
	free(page);
	conns_book_free(&book);
	return rc;
}
