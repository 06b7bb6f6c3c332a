/*
 * What --output (and --statements) may be, and opening it: never through
 * a symbolic link, nothing another user planted in a shared directory, a
 * descriptor the program has known by its name, a new file private.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "outpath.h"

/*
 * The names people give for a descriptor the program already has:
 * /dev/stdout, /dev/stderr, /dev/fd/N and /proc/self/fd/N. They are
 * symbolic links, which --output otherwise refuses, so they are known by
 * name and the descriptor is duplicated instead of following any link.
 * Returns the descriptor's number, or -1 when path is none of them.
 */
int
outpath_fd(const char *path)
{
	static const char *const dirs[] = { "/dev/fd/", "/proc/self/fd/" };

	if (strcmp(path, "/dev/stdout") == 0)
		return 1;
	if (strcmp(path, "/dev/stderr") == 0)
		return 2;
	for (size_t i = 0; i < sizeof(dirs) / sizeof(dirs[0]); i++) {
		const char *n = path + strlen(dirs[i]);

		if (strncmp(path, dirs[i], strlen(dirs[i])) != 0 ||
		    n[0] == '\0' || strlen(n) > 9 ||
		    strspn(n, "0123456789") != strlen(n))
			continue;
		return atoi(n);
	}
	return -1;
}

/*
 * Descriptor n of outpath_fd(), if it is open for writing; -1 having said
 * why. Above 2, a socket is refused: the server connection is one of ours,
 * and samples written into it would break it.
 */
static int
named_fd_writable(const char *path, int n, char *err, size_t errlen)
{
	int fl = fcntl(n, F_GETFL);
	struct stat st;

	if (fl == -1 || (fl & O_ACCMODE) == O_RDONLY) {
		snprintf(err, errlen, "--output %s: descriptor %d is not open "
		    "for writing; redirect it, or give a file", path, n);
		return -1;
	}
	if (n > 2 && fstat(n, &st) == 0 && S_ISSOCK(st.st_mode)) {
		snprintf(err, errlen, "--output %s: descriptor %d is a socket, "
		    "maybe the server connection; give a file", path, n);
		return -1;
	}
	return 0;
}

/* The directory path is in, into dir. */
static void
dir_of(const char *path, char *dir, size_t dirlen)
{
	const char *slash = strrchr(path, '/');

	if (slash == NULL)
		snprintf(dir, dirlen, ".");
	else
		snprintf(dir, dirlen, "%.*s",
		    (int)(slash == path ? 1 : slash - path), path);
}

/*
 * In a sticky directory others can write to, such as /tmp, a file or FIFO
 * that another user made is a trap laid for whoever writes there next.
 * It is refused as the kernel's protected_regular and protected_fifos
 * would, without relying on them: unless it is ours or the directory
 * owner's.
 */
static bool
planted(const char *path, const struct stat *st)
{
	char dir[4096];
	struct stat ds;

	if (st->st_uid == geteuid() ||
	    (!S_ISREG(st->st_mode) && !S_ISFIFO(st->st_mode)))
		return false;
	dir_of(path, dir, sizeof(dir));
	if (stat(dir, &ds) != 0)
		return true; /* cannot tell: do not trust it */
	return (ds.st_mode & S_ISVTX) != 0 &&
	    (ds.st_mode & (S_IWOTH | S_IWGRP)) != 0 && st->st_uid != ds.st_uid;
}

/*
 * What --output may be: a regular file, a FIFO or a character device such
 * as /dev/null, never a symbolic link, and nothing planted by another user
 * in a shared directory. Returns 0, or -1 with err saying why not.
 */
static int
check_kind(const char *path, const struct stat *st, char *err, size_t errlen)
{
	if (!S_ISREG(st->st_mode) && !S_ISFIFO(st->st_mode) &&
	    !S_ISCHR(st->st_mode)) {
		snprintf(err, errlen, "--output %s is %s; give the path of a "
		    "regular file", path, S_ISLNK(st->st_mode) ?
		    "a symbolic link" : S_ISDIR(st->st_mode) ? "a directory" :
		    "not a regular file");
		return -1;
	}
	if (planted(path, st)) {
		snprintf(err, errlen, "--output %s belongs to another user in a "
		    "shared directory; remove it, or write somewhere else",
		    path);
		return -1;
	}
	return 0;
}

/*
 * Opens --output, or duplicates the descriptor it names (outpath_fd()). It
 * refuses a symbolic link (O_NOFOLLOW), so a link planted in a shared
 * directory cannot make it overwrite another file, and what check_kind()
 * refuses, before opening and again on what was opened. A file it makes
 * is private (0600): every format holds statement text.
 */
FILE *
outpath_open(const char *path, enum outpath_mode mode, char *err,
    size_t errlen)
{
	/*
	 * O_NONBLOCK: opening a FIFO that has no reader would otherwise wait
	 * for one, deaf to signals; it fails with ENXIO instead, and the
	 * flag is cleared once open so that writes block as usual.
	 */
	int flags = O_WRONLY | O_CREAT | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK |
	    (mode == OUTPATH_APPEND ? O_APPEND : 0) |
	    (mode == OUTPATH_NEW ? O_EXCL : 0);
	bool truncate = mode == OUTPATH_TRUNCATE;
	int named = outpath_fd(path);
	struct stat st;
	FILE *fp;
	int fd;

	if (named >= 0) {
		if (named_fd_writable(path, named, err, errlen) != 0)
			return NULL;
		/* Written as the shell opened it: never truncated here. */
		if ((fd = fcntl(named, F_DUPFD_CLOEXEC, 3)) < 0) {
			snprintf(err, errlen, "cannot open --output %s: %s",
			    path, strerror(errno));
			return NULL;
		}
		truncate = false;
	} else {
		if (lstat(path, &st) == 0 &&
		    check_kind(path, &st, err, errlen) != 0)
			return NULL;
		if ((fd = open(path, flags, 0600)) < 0) {
			if (errno == ENXIO)
				snprintf(err, errlen, "--output %s is a FIFO "
				    "that no one reads; start its reader "
				    "first", path);
			else if (errno == EEXIST && mode == OUTPATH_NEW)
				snprintf(err, errlen, "--output %s was made by "
				    "someone else meanwhile (another "
				    "mysqlmemprof?); give each run its own "
				    "--output pattern", path);
			else
				snprintf(err, errlen, "cannot open --output %s: "
				    "%s; check the path and its permissions",
				    path, strerror(errno));
			return NULL;
		}
		/* Swapped between lstat() and open(): what was opened counts. */
		if (fstat(fd, &st) != 0 ||
		    check_kind(path, &st, err, errlen) != 0) {
			close(fd);
			return NULL;
		}
		fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK);
	}
	/* Truncate only regular files: ftruncate fails on /dev/null. */
	if (truncate && fstat(fd, &st) == 0 && S_ISREG(st.st_mode))
		(void)!ftruncate(fd, 0);
	if ((fp = fdopen(fd, "w")) == NULL) {
		snprintf(err, errlen, "cannot open --output %s: %s", path,
		    strerror(errno));
		close(fd);
	}
	return fp;
}

/*
 * Whether a file can be made or written at path: what is there is one
 * --output may be and writable, or the directory exists and takes new
 * files. Messages name it shown (the pattern it came from). Returns 0, or
 * -1 with err saying why not.
 */
int
outpath_check(const char *path, const char *shown, bool exists_ok, char *err,
    size_t errlen)
{
	char dir[4096];
	int named = outpath_fd(path);
	struct stat st;

	if (named >= 0)
		return named_fd_writable(path, named, err, errlen);
	if (exists_ok && lstat(path, &st) == 0) {
		if (check_kind(path, &st, err, errlen) != 0)
			return -1;
		if (access(path, W_OK) != 0) {
			snprintf(err, errlen, "cannot write to --output %s: %s; "
			    "check its permissions", path, strerror(errno));
			return -1;
		}
		return 0;
	}
	dir_of(path, dir, sizeof(dir));
	if (stat(dir, &st) != 0) {
		snprintf(err, errlen, "--output %s: directory %.512s: %s; "
		    "create it first, or correct the path", shown, dir,
		    strerror(errno));
		return -1;
	}
	if (!S_ISDIR(st.st_mode)) {
		snprintf(err, errlen, "--output %s: %.512s is not a directory; "
		    "correct the path", shown, dir);
		return -1;
	}
	if (access(dir, W_OK | X_OK) != 0) {
		snprintf(err, errlen, "--output %s: cannot make a file in %.512s: "
		    "%s; check its permissions", shown, dir, strerror(errno));
		return -1;
	}
	return 0;
}
