/*
 * What --output (and --statements) may be, and opening it safely: a
 * regular file, a FIFO or a character device, never a symbolic link, and
 * nothing planted by another user in a shared directory; /dev/stdout,
 * /dev/fd/N and the like duplicate the descriptor they name. Messages
 * name --output; outfile.c names another option in them.
 */
#ifndef MYSQLMEMPROF_OUTPATH_H
#define MYSQLMEMPROF_OUTPATH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

/* How outpath_open() treats what is there. */
enum outpath_mode {
	OUTPATH_TRUNCATE, /* --output: a new run starts the file again */
	OUTPATH_APPEND,   /* SIGHUP: go on in the file logrotate left */
	OUTPATH_NEW,      /* a capture's own file: never one that exists */
};

/*
 * The descriptor path names (/dev/stdout, /dev/stderr, /dev/fd/N,
 * /proc/self/fd/N), or -1 when it names none.
 */
int outpath_fd(const char *path);
/*
 * Opens path as mode says, or duplicates the descriptor it names. A file
 * it makes is private (0600). NULL with err saying why not.
 */
FILE *outpath_open(const char *path, enum outpath_mode mode, char *err,
    size_t errlen);
/*
 * Whether a file can be made or written at path (exists_ok: what is there
 * may be written), messages naming it shown. 0, or -1 with err.
 */
int outpath_check(const char *path, const char *shown, bool exists_ok,
    char *err, size_t errlen);

#endif
