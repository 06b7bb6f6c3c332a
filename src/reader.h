/*
 * Lines read back from a capture or a record's segment (--read, the
 * incidents), each at most READER_MAX_LINE bytes so that no file can make
 * the reader hold more; and a segment opened only when it is a regular
 * file, so that a FIFO, a folder or a link planted among the segments is
 * passed over instead of blocking or being followed.
 */
#ifndef MYSQLMEMPROF_READER_H
#define MYSQLMEMPROF_READER_H

#include <signal.h>
#include <stdbool.h>
#include <stddef.h>

/* A line longer than this is none that --format json or --record wrote. */
#define READER_MAX_LINE ((size_t)64 << 20)

/* What reader_next() found. */
enum reader_got {
	READER_END = 0,       /* no more */
	READER_LINE = 1,      /* a line, without its newline */
	READER_CUT = 2,       /* a last line with no newline (cut short) */
	READER_ERROR = -1,    /* a read error, or a stop (errno EINTR) */
	READER_TOO_LONG = -2, /* a line over the bound, passed over:
	                         the next call reads the line after it */
};

struct reader {
	int fd;
	const char *name;   /* for messages: the path, or "standard input" */
	char *buf;          /* owned; free() it when done with the reader */
	size_t len, cap;    /* bytes held, and room */
	size_t start;       /* where the next line begins */
	bool eof;
	bool skipping;      /* inside a line too long, up to its newline */
	volatile sig_atomic_t *stop; /* set: the reading ends; NULL: none */
	size_t max_line;    /* 0: READER_MAX_LINE (a fuzzer sets less) */
};

/*
 * The next line of r into *line and *n (valid until the next call); waits
 * with poll() so that a stop answers at once while a pipe is silent.
 */
enum reader_got reader_next(struct reader *r, char **line, size_t *n);

/* r at the start of another descriptor, its buffer kept. */
void reader_reset(struct reader *r, int fd, const char *name);

/*
 * Opens path for reading when it is a regular file, without following a
 * link and without waiting on a FIFO. Returns the descriptor, or -1 with
 * why saying what the file is instead ("a FIFO", "a symbolic link") or
 * why it could not be opened; why is "" when it is gone (pruned while
 * the list was read).
 */
int reader_open_regular(const char *path, char *why, size_t whylen);

/* The same, of name in the folder dirfd (the recorder's DIR/segments). */
int reader_open_regular_at(int dirfd, const char *name, char *why,
    size_t whylen);

#endif
