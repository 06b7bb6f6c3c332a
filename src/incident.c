#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "conns_lines.h"
#include "incident.h"
#include "incident_page.h"
#include "output_format.h"
#include "segments.h"
#include "when.h"

/* A line longer than this is none the recorder wrote. */
#define INCIDENT_MAX_LINE ((size_t)64 << 20)

static const char *const kind_names[] = {
	[INCIDENT_GONE] = "server-gone",
	[INCIDENT_RESTARTED] = "restarted",
	[INCIDENT_OOM_KILL] = "oom-kill",
	[INCIDENT_LIMIT_SHARE] = "limit-share",
};

const char *
incident_kind_name(enum incident_kind k)
{
	return kind_names[k];
}

static void
put_int(struct obuf *b, const char *key, bool known, int64_t v)
{
	char n[64];

	if (known)
		snprintf(n, sizeof(n), ",\"%s\":%" PRId64, key, v);
	else
		snprintf(n, sizeof(n), ",\"%s\":null", key);
	obuf_puts(b, n);
}

void
incident_put_line(struct obuf *b, const struct incident *in)
{
	const struct process_memory *p = &in->process;
	char t[64];

	when_stamp(t, sizeof(t), in->at_ms);
	obuf_puts(b, "{\"type\":\"incident\",\"timestamp\":\"");
	obuf_puts(b, t);
	obuf_puts(b, "\",\"kind\":\"");
	obuf_puts(b, kind_names[in->kind]);
	obuf_puts(b, "\",\"what\":");
	output_json_put_string(b, in->what, strlen(in->what));
	put_int(b, "process_resident_bytes", p->known, p->resident_bytes);
	put_int(b, "cgroup_usage_bytes", p->has_cgroup, p->cgroup_usage_bytes);
	put_int(b, "cgroup_limit_bytes", p->has_cgroup &&
	    p->cgroup_limit_bytes >= 0, p->cgroup_limit_bytes);
	put_int(b, "cgroup_oom_kills", p->has_cgroup,
	    (int64_t)p->cgroup_oom_kills);
	obuf_puts(b, ",\"kernel\":");
	if (in->kmsg[0] != '\0')
		output_json_put_string(b, in->kmsg, strlen(in->kmsg));
	else
		obuf_puts(b, "null");
	obuf_puts(b, "}\n");
}

int64_t
incident_line_ms(const char *line, size_t n)
{
	static const char key[] = "\"timestamp\":\"";
	const char *p = memmem(line, n, key, sizeof(key) - 1), *end;
	char t[40];
	int64_t ms;

	if (p == NULL)
		return -1;
	p += sizeof(key) - 1;
	end = memchr(p, '"', (size_t)(line + n - p));
	if (end == NULL || end - p >= (ptrdiff_t)sizeof(t))
		return -1;
	memcpy(t, p, (size_t)(end - p));
	t[end - p] = '\0';
	return when_parse(t, 0, &ms) == 0 ? ms : -1;
}

/* Reads a whole file; NULL with errno set. */
static char *
slurp(const char *path, size_t *len)
{
	FILE *f = fopen(path, "re");
	char *buf = NULL;
	size_t cap = 0, n = 0, got;

	if (f == NULL)
		return NULL;
	do {
		if (n == cap) {
			char *b = realloc(buf, cap = cap ? cap * 2 : 1 << 16);

			if (b == NULL) {
				free(buf);
				fclose(f);
				errno = ENOMEM;
				return NULL;
			}
			buf = b;
		}
		got = fread(buf + n, 1, cap - n, f);
		n += got;
	} while (got > 0);
	fclose(f);
	*len = n;
	return buf;
}

/*
 * The window's lines into out: those of the segments stamped from `from`
 * to `to`, a whole connections line first (the book at `from`, rebuilt
 * from the segment's start). Torn lines are left out.
 */
static int
window_lines(const char *dir, int64_t from, int64_t to, struct obuf *out,
    struct conns_book *book)
{
	char **paths, first[64];
	size_t n, i, start = 0;
	bool begun = false;

	if (segments_list(dir, &paths, &n) != 0)
		return -1;
	/* The last segment begun at or before `from` (names sort as time). */
	when_stamp(first, sizeof(first), from);
	for (i = 0; i < n; i++) {
		const char *name = strrchr(paths[i], '/') + 1;
		char t[64];

		/* 20261127T031200.123Z -> the same form as first's */
		snprintf(t, sizeof(t), "%.4s-%.2s-%.2sT%.2s:%.2s:%.2s.%.3sZ",
		    name, name + 4, name + 6, name + 9, name + 11, name + 13,
		    name + 16);
		if (strcmp(t, first) <= 0)
			start = i;
	}
	for (i = start; i < n; i++) {
		size_t len, at = 0;
		char *buf = slurp(paths[i], &len);

		if (buf == NULL)
			continue;
		while (at < len) {
			char *line = buf + at, *nl = memchr(line, '\n', len - at);
			size_t ll;
			int64_t ms;

			if (nl == NULL)
				break; /* torn: the record being written */
			ll = (size_t)(nl - line);
			at += ll + 1;
			ms = incident_line_ms(line, ll);
			if (ms < 0 || ms > to)
				continue;
			if (ms < from) {
				conns_line_apply(book, line, ll);
				continue;
			}
			if (!begun) {
				begun = true;
				if (conns_line_put(out, book, book->v, book->n,
				    true, ms) < 0) {
					free(buf);
					segments_list_free(paths, n);
					return -1;
				}
			}
			/* The book follows, for the page's connections. */
			conns_line_apply(book, line, ll);
			obuf_write(out, line, ll + 1);
		}
		free(buf);
	}
	segments_list_free(paths, n);
	return obuf_status(out);
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

int
incident_write(const char *dir, const struct incident *in,
    int64_t window_ms, char *path, size_t pathlen, char *err, size_t errlen)
{
	struct obuf lines = { 0 };
	char *page = NULL;
	size_t page_len = 0;
	FILE *fp;
	struct conns_book book = { 0 };
	char stamp[64], stem[4200];
	int rc = -1;

	when_stamp(stamp, sizeof(stamp), in->at_ms);
	/* 2026-11-27T03:12:05.123Z -> 20261127T031205Z */
	snprintf(stem, sizeof(stem), "%s/incidents/%.4s%.2s%.2sT%.2s%.2s%.2sZ-%s",
	    dir, stamp, stamp + 5, stamp + 8, stamp + 11, stamp + 14,
	    stamp + 17, kind_names[in->kind]);
	if (window_lines(dir, in->at_ms - window_ms, in->at_ms, &lines,
	    &book) != 0) {
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
		rc = -1;
		goto out;
	}
	rc = 0;
out:
	obuf_free(&lines);
	free(page);
	conns_book_free(&book);
	return rc;
}
