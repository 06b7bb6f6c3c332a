/*
 * Lines, bounded, and segments opened only when regular files (see
 * reader.h). A line too long is passed over without being held: the
 * bytes up to its newline are read and dropped as they come.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "reader.h"

static size_t
bound(const struct reader *r)
{
	return r->max_line > 0 ? r->max_line : READER_MAX_LINE;
}

/* Room for one more read: the buffer doubled, up to the bound. */
static int
grow(struct reader *r)
{
	size_t cap = r->cap > 0 ? r->cap * 2 : bound(r) < 65536 ? bound(r) :
	    65536;
	char *b;

	if ((b = realloc(r->buf, cap)) == NULL)
		return -1;
	r->buf = b;
	r->cap = cap;
	return 0;
}

/* Reads what the descriptor has; 0, or -1 on an error or a stop. */
static int
fill(struct reader *r)
{
	struct pollfd p = { .fd = r->fd, .events = POLLIN };
	ssize_t got;

	if (r->stop != NULL && *r->stop) {
		errno = EINTR;
		return -1;
	}
	if (poll(&p, 1, 200) == 0 || p.revents == 0)
		return 0;
	got = read(r->fd, r->buf + r->len, r->cap - r->len);
	if (got < 0 && (errno == EINTR || errno == EAGAIN))
		return 0;
	if (got < 0)
		return -1;
	if (got == 0)
		r->eof = true;
	r->len += (size_t)got;
	return 0;
}

enum reader_got
reader_next(struct reader *r, char **line, size_t *n)
{
	for (;;) {
		/* Nothing read yet is no buffer at all: memchr takes none. */
		char *nl = r->len > r->start ? memchr(r->buf + r->start, '\n',
		    r->len - r->start) : NULL;

		if (nl != NULL && r->skipping) {
			/* The end of the line too long: the next begins. */
			r->start = (size_t)(nl - r->buf) + 1;
			r->skipping = false;
			continue;
		}
		if (nl != NULL) {
			*line = r->buf + r->start;
			*n = (size_t)(nl - *line);
			r->start += *n + 1;
			return READER_LINE;
		}
		if (r->skipping)
			r->start = r->len = 0;
		if (r->eof) {
			if (r->start == r->len)
				return READER_END;
			*line = r->buf + r->start;
			*n = r->len - r->start;
			r->start = r->len;
			return READER_CUT;
		}
		if (r->start > 0) {
			memmove(r->buf, r->buf + r->start, r->len - r->start);
			r->len -= r->start;
			r->start = 0;
		}
		if (r->len == r->cap && r->cap >= bound(r)) {
			r->skipping = true;
			r->start = r->len = 0;
			return READER_TOO_LONG;
		}
		if (r->len == r->cap && grow(r) != 0)
			return READER_ERROR;
		if (fill(r) != 0)
			return READER_ERROR;
	}
}

void
reader_reset(struct reader *r, int fd, const char *name)
{
	r->fd = fd;
	r->name = name;
	r->len = r->start = 0;
	r->eof = r->skipping = false;
}

/* What a file that is not a regular one is, for the note. */
static const char *
kind(mode_t mode)
{
	return S_ISFIFO(mode) ? "a FIFO" : S_ISDIR(mode) ? "a folder" :
	    S_ISCHR(mode) || S_ISBLK(mode) ? "a device" :
	    S_ISSOCK(mode) ? "a socket" : "not a regular file";
}

int
reader_open_regular(const char *path, char *why, size_t whylen)
{
	return reader_open_regular_at(AT_FDCWD, path, why, whylen);
}

int
reader_open_regular_at(int dirfd, const char *name, char *why,
    size_t whylen)
{
	struct stat st;
	int fd;

	*why = '\0';
	/* O_NONBLOCK: opening a FIFO with no writer would wait for one. */
	fd = openat(dirfd, name, O_RDONLY | O_NONBLOCK | O_NOFOLLOW |
	    O_CLOEXEC);
	if (fd < 0) {
		if (errno != ENOENT)
			snprintf(why, whylen, "%s", errno == ELOOP ?
			    "a symbolic link" : strerror(errno));
		return -1;
	}
	if (fstat(fd, &st) != 0)
		snprintf(why, whylen, "%s", strerror(errno));
	else if (!S_ISREG(st.st_mode))
		snprintf(why, whylen, "%s", kind(st.st_mode));
	else
		return fd;
	close(fd);
	return -1;
}
