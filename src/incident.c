#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "conns_lines.h"
#include "dirfile.h"
#include "dirlist.h"
#include "incident.h"
#include "incident_page.h"
#include "output_format.h"
#include "reader.h"
#include "segments.h"
#include "utc.h"

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
first_segment(char **names, size_t n, int64_t from)
{
	char first[UTC_MAX];
	size_t start = 0;

	/* The names sort as time does: from's name is compared. */
	utc_format(first, sizeof(first), from, UTC_NAME);
	for (size_t i = 0; i < n; i++)
		if (strncmp(names[i], first, strlen(first)) <= 0)
			start = i;
	return start;
}

/*
 * The window's lines into out: those of the segments stamped from `from`
 * to `to`, a whole connections line first (the book at `from`, rebuilt
 * from the segment's start). The segments are the folder segfd's, the
 * recorder's descriptor: DIR swapped for a link since is not followed.
 * Torn lines are left out; so is a file that is not a regular one
 * (planted among the segments), with a note.
 */
static int
window_lines(const char *dir, int segfd, int64_t from, int64_t to,
    struct obuf *out, struct conns_book *book,
    const struct incident_notes *notes)
{
	struct gather g = { .from = from, .to = to, .out = out, .book = book };
	struct reader r = { .fd = -1 };
	char **names, why[128], path[4200], msg[4400];
	size_t n;
	int fd, rc = 0;

	if (segments_list_at(segfd, &names, &n) != 0)
		return -1;
	for (size_t i = first_segment(names, n, from); i < n && rc == 0;
	    i++) {
		snprintf(path, sizeof(path), "%s/segments/%s", dir, names[i]);
		if ((fd = reader_open_regular_at(segfd, names[i], why,
		    sizeof(why))) < 0) {
			snprintf(msg, sizeof(msg), "%s passed over: %s, not a "
			    "segment the recorder wrote", path, why);
			if (why[0] != '\0' && notes != NULL)
				notes->note(notes->ctx, msg);
			continue;
		}
		reader_reset(&r, fd, path);
		rc = gather_segment(&g, &r);
		close(fd);
	}
	free(r.buf);
	dirlist_free(names, n);
	obuf_free(&g.events);
	return rc != 0 ? -1 : obuf_status(out);
}

/* An incident's page is listed; what a crash left half-written goes. */
static bool
incident_entry(const char *name, void *ctx)
{
	size_t len = strlen(name);

	if (len > 4 && strcmp(name + len - 4, ".tmp") == 0) {
		unlinkat(*(int *)ctx, name, 0);
		return false;
	}
	return len > 5 && strcmp(name + len - 5, ".html") == 0;
}

/*
 * The oldest incidents beyond INCIDENTS_KEPT are removed, both files of
 * each: a server that restarts all day must not fill the disk with them.
 * Their names sort as time does.
 */
static void
prune_incidents(int fd)
{
	char name[300], **names;
	size_t n;

	if (dirlist_at(fd, incident_entry, &fd, &names, &n) != 0)
		return;
	for (size_t i = 0; i + INCIDENTS_KEPT < n; i++) {
		unlinkat(fd, names[i], 0);
		snprintf(name, sizeof(name), "%.*s.jsonl",
		    (int)(strlen(names[i]) - 5), names[i]);
		unlinkat(fd, name, 0);
	}
	dirlist_free(names, n);
}

/* DIR's folder name, reached from dirfd without following a link. */
static int
open_sub(int dirfd, const char *dir, const char *name, char *err,
    size_t errlen)
{
	int fd = openat(dirfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW |
	    O_CLOEXEC);

	if (fd < 0)
		snprintf(err, errlen, "cannot open %s/%s: %s", dir, name,
		    strerror(errno));
	return fd;
}

int
incident_write(const char *dir, const struct incident *in,
    int64_t window_ms, const struct incident_notes *notes, char *path,
    size_t pathlen, char *err, size_t errlen)
{
	int dirfd, segfd = -1, incfd = -1, rc = -1;

	/* As the recorder opens them (segments.h): DIR may be a link. */
	if ((dirfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC)) < 0) {
		snprintf(err, errlen, "cannot open %s: %s", dir,
		    strerror(errno));
		return -1;
	}
	if ((segfd = open_sub(dirfd, dir, "segments", err, errlen)) >= 0 &&
	    (incfd = open_sub(dirfd, dir, "incidents", err, errlen)) >= 0)
		rc = incident_write_at(dir, segfd, incfd, in, window_ms, notes,
		    path, pathlen, err, errlen);
	if (incfd >= 0)
		close(incfd);
	if (segfd >= 0)
		close(segfd);
	close(dirfd);
	return rc;
}

/*
 * The incident's stem in the folder fd: 2026-11-27T03:12:05.123Z ->
 * 20261127T031205Z-KIND; a second incident of the kind in the same second
 * (a server crashing in a loop) takes -2, -3, ... rather than the first's
 * place.
 */
static void
stem_of(int fd, const struct incident *in, char *stem, size_t len)
{
	char stamp[UTC_MAX], html[300];
	struct stat st;

	utc_format(stamp, sizeof(stamp), in->at_ms, UTC_NAME_S);
	for (int i = 1; i < 100; i++) {
		snprintf(stem, len, "%s-%s", stamp,
		    incident_kind_name(in->kind));
		if (i > 1)
			snprintf(stem + strlen(stem), len - strlen(stem), "-%d",
			    i);
		snprintf(html, sizeof(html), "%s.html", stem);
		if (fstatat(fd, html, &st, AT_SYMLINK_NOFOLLOW) != 0)
			break;
	}
}

/* Writes the incident's file stem.ext; path says which, for messages. */
static int
put_file(const char *dir, int fd, const char *stem, const char *ext,
    const void *p, size_t n, char *path, size_t pathlen)
{
	char name[300];

	snprintf(name, sizeof(name), "%s.%s", stem, ext);
	snprintf(path, pathlen, "%s/incidents/%s", dir, name);
	return dirfile_write_whole(fd, name, p, n);
}

int
incident_write_at(const char *dir, int segfd, int fd,
    const struct incident *in, int64_t window_ms,
    const struct incident_notes *notes, char *path, size_t pathlen,
    char *err, size_t errlen)
{
	struct obuf lines = { 0 };
	char *page = NULL, stem[200], name[300];
	size_t page_len = 0;
	FILE *fp;
	struct conns_book book = { 0 };
	struct incident_heap heap = { 0 };
	int rc = -1;

	stem_of(fd, in, stem, sizeof(stem));
	if (window_lines(dir, segfd, in->at_ms - window_ms, in->at_ms,
	    &lines, &book, notes) != 0) {
		snprintf(err, errlen, "cannot read the segments of %s: %s",
		    dir, strerror(errno));
		goto out;
	}
	/* The record wrote the incident's own line first: it ends the window. */
	if (put_file(dir, fd, stem, "jsonl", lines.p, lines.len, path,
	    pathlen) != 0) {
		snprintf(err, errlen, "cannot write %s: %s", path,
		    strerror(errno));
		goto out;
	}
	if ((fp = open_memstream(&page, &page_len)) == NULL) {
		snprintf(err, errlen, "out of memory");
		goto out;
	}
	if (in->heap_dump[0] != '\0')
		incident_heap_load(in->heapfd, in->heap_dump, in->heap_base,
		    &heap);
	rc = incident_page(fp, in, lines.p, lines.len, &heap);
	if (fclose(fp) != 0 || rc != 0 || put_file(dir, fd, stem, "html",
	    page, page_len, path, pathlen) != 0) {
		snprintf(err, errlen, "cannot write %s: %s", path,
		    strerror(errno));
		/* Both files or neither: the lines go with the page. */
		snprintf(name, sizeof(name), "%s.jsonl", stem);
		unlinkat(fd, name, 0);
		rc = -1;
		goto out;
	}
	prune_incidents(fd);
	/* The incidents' names on disk too: a crash after the rename keeps them. */
	if ((rc = fsync(fd)) != 0)
		snprintf(err, errlen, "cannot sync %s/incidents: %s", dir,
		    strerror(errno));
out:
	obuf_free(&lines);
	free(page);
	conns_book_free(&book);
	incident_heap_free(&heap);
	return rc;
}
