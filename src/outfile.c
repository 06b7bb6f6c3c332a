/*
 * The output file. It is opened only once sampling can start, so a failed
 * start leaves an existing file as it was, and it is never a symbolic link
 * or a file someone else made for a capture.
 */
#include <errno.h>
#include <stdio.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "exitcode.h"
#include "outfile.h"
#include "outname.h"

/* How open_output_file() treats what is there. */
enum open_mode {
	OPEN_TRUNCATE, /* --output: a new run starts the file again */
	OPEN_APPEND,   /* SIGHUP: go on in the file logrotate left */
	OPEN_NEW,      /* a capture's own file: never one that exists */
};

/*
 * The names people give for a descriptor the program already has:
 * /dev/stdout, /dev/stderr, /dev/fd/N and /proc/self/fd/N. They are
 * symbolic links, which --output otherwise refuses, so they are known by
 * name and the descriptor is duplicated instead of following any link.
 * Returns the descriptor's number, or -1 when path is none of them.
 */
static int
fd_name(const char *path)
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
 * Descriptor n of fd_name(), if it is open for writing; -1 having said
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
 * Opens --output, or duplicates the descriptor it names (fd_name()). It
 * refuses a symbolic link (O_NOFOLLOW), so a link planted in a shared
 * directory cannot make it overwrite another file, and what check_kind()
 * refuses, before opening and again on what was opened. A file it makes
 * is private (0600): every format holds statement text.
 */
static FILE *
open_output_file(const char *path, enum open_mode mode, char *err,
    size_t errlen)
{
	/*
	 * O_NONBLOCK: opening a FIFO that has no reader would otherwise wait
	 * for one, deaf to signals; it fails with ENXIO instead, and the
	 * flag is cleared once open so that writes block as usual.
	 */
	int flags = O_WRONLY | O_CREAT | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK |
	    (mode == OPEN_APPEND ? O_APPEND : 0) |
	    (mode == OPEN_NEW ? O_EXCL : 0);
	bool truncate = mode == OPEN_TRUNCATE;
	int named = fd_name(path);
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
			else if (errno == EEXIST && mode == OPEN_NEW)
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
static int
check_path(const char *path, const char *shown, bool exists_ok, char *err,
    size_t errlen)
{
	char dir[4096];
	int named = fd_name(path);
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

/* The file name a pattern gives now; -1 with err when it gives none. */
static int
expand(const char *pattern, uint64_t connection_id, uint64_t thread_id,
    char *name, size_t size, char *err, size_t errlen)
{
	time_t now = time(NULL);
	struct tm tm;

	localtime_r(&now, &tm);
	if (outname_expand(pattern, connection_id, thread_id, &tm, name,
	    size) == 0)
		return 0;
	snprintf(err, errlen, "--output '%.100s%s' gives an empty or too long "
	    "file name; change the pattern", pattern,
	    strlen(pattern) > 100 ? "..." : "");
	return -1;
}

/*
 * What can be known before waiting for a statement, perhaps for hours:
 * that the pattern expands and the file could be written. A pattern whose
 * directories hold a conversion names them only when a capture starts.
 */
static int
check_output(const char *path, bool pattern, char *err, size_t errlen)
{
	char name[4096];
	const char *slash = strrchr(path, '/');

	if (!pattern)
		return check_path(path, path, true, err, errlen);
	if (expand(path, 0, 0, name, sizeof(name), err, errlen) != 0)
		return -1;
	if (slash != NULL && memchr(path, '%', (size_t)(slash - path)) != NULL)
		return 0;
	return check_path(name, path, false, err, errlen);
}

int
outfile_init(struct outfile *f, const char *path, bool pattern,
    const struct format *fmt, const struct output_settings *settings,
    volatile sig_atomic_t *reopen)
{
	char *copy = NULL, err[1024];

	*f = (struct outfile){
		.out = { .fmt = fmt, .settings = *settings },
		.reopen = reopen,
	};
	if (path != NULL && check_output(path, pattern, err, sizeof(err)) != 0) {
		diag_say("%s", err);
		return -1;
	}
	if (path != NULL && (copy = strdup(path)) == NULL) {
		diag_say("out of memory");
		return -1;
	}
	if (pattern)
		f->pattern = copy;
	else
		f->path = copy;
	return 0;
}

void
outfile_free(struct outfile *f)
{
	free(f->path);
	free(f->pattern);
	f->path = f->pattern = NULL;
	output_release(&f->out);
}

int
outfile_open(struct outfile *f)
{
	char err[1024];

	/* Each sample opens its own (next_sample()). */
	if (f->each)
		return 0;
	/* --repeat without a pattern: the captures go on in one output. */
	if (f->out.fp != NULL)
		return 0;
	if (f->path == NULL) {
		f->out.fp = stdout;
		return 0;
	}
	if ((f->out.fp = open_output_file(f->path, f->pattern != NULL ?
	    OPEN_NEW : OPEN_TRUNCATE, err, sizeof(err))) == NULL) {
		diag_say("%s", err);
		return -1;
	}
	return 0;
}

FILE *
outfile_open_extra(const char *path, const char *option, bool append,
    char *err, size_t errlen)
{
	FILE *fp = open_output_file(path, append ? OPEN_APPEND :
	    OPEN_TRUNCATE, err, errlen);
	char *at, copy[2048];

	/* The checks name --output; the file is the option's. */
	if (fp == NULL && (at = strstr(err, "--output")) != NULL) {
		snprintf(copy, sizeof(copy), "%.*s%s%s", (int)(at - err), err,
		    option, at + strlen("--output"));
		snprintf(err, errlen, "%s", copy);
	}
	return fp;
}

int
outfile_begin_capture(struct outfile *f)
{
	/* --repeat without a pattern: one header, the captures after it. */
	if (f->captures++ == 0)
		return output_begin(&f->out);
	return 0;
}

/*
 * An existing file is never overwritten: an earlier capture may have had
 * the same name, so a number is added instead.
 */
int
outfile_name(struct outfile *f, uint64_t connection_id, uint64_t thread_id)
{
	char name[4096], alt[4096], err[300];
	const char *path = name;
	struct stat st;
	char *copy;

	/* With --profile-at each, the samples name the files. */
	if (f->each) {
		f->connection_id = connection_id;
		return 0;
	}
	if (expand(f->pattern, connection_id, thread_id, name, sizeof(name),
	    err, sizeof(err)) != 0) {
		diag_say("%s", err);
		return -1;
	}
	for (unsigned n = 2; lstat(path, &st) == 0; n++) {
		if (n > 1000 || outname_numbered(name, n, alt, sizeof(alt)) != 0) {
			diag_say("--output %s exists, and so do the numbered "
			    "names after it; move them away", name);
			return -1;
		}
		path = alt;
	}
	if ((copy = strdup(path)) == NULL) {
		diag_say("out of memory");
		return -1;
	}
	free(f->path);
	f->path = copy;
	return 0;
}

int
outfile_reopen_if_asked(struct outfile *f)
{
	char err[1024];
	struct stat st;
	FILE *fp;

	if (!*f->reopen)
		return 0;
	*f->reopen = 0;
	/* A file per sample is new each time already. */
	if (f->path == NULL || f->out.fp == NULL || f->each)
		return 0;
	if ((fp = open_output_file(f->path, OPEN_APPEND, err,
	    sizeof(err))) == NULL) {
		/* Keep writing where we were; the old file is still open. */
		diag_say("%s; still writing to the old file", err);
		return 0;
	}
	if (fclose(f->out.fp) != 0 && errno != EPIPE)
		diag_say("closing the old --output: %s", strerror(errno));
	f->out.fp = fp;
	/* The new file stands alone: text names the statement again. */
	output_new_file(&f->out);
	if (fstat(fileno(fp), &st) == 0 && S_ISREG(st.st_mode) &&
	    st.st_size == 0)
		return output_begin(&f->out);
	return 0;
}

static const char *
where(const struct outfile *f)
{
	return f->path != NULL ? f->path : "standard output";
}

/*
 * A binary format's file is whole or absent: a profile cut short is no
 * profile, and an empty file (nothing sampled) would fail its reader.
 * Only a regular file --output named is removed, never a descriptor.
 */
static void
remove_unless_whole(const struct outfile *f, bool failed)
{
	struct stat st;

	if (!f->out.fmt->binary || f->path == NULL || fd_name(f->path) >= 0 ||
	    lstat(f->path, &st) != 0 || !S_ISREG(st.st_mode))
		return;
	if ((failed || f->failed || st.st_size == 0) && unlink(f->path) == 0 &&
	    !failed && !f->failed)
		diag_say("no sample was written: %s is left out", f->path);
}

int
outfile_close(struct outfile *f)
{
	FILE *fp = f->out.fp;
	int failed;

	f->captures = 0;
	output_release(&f->out);
	if (fp == NULL)
		return 0;
	f->out.fp = NULL;
	failed = ferror(fp) != 0;
	failed |= (fp == stdout ? fflush(fp) : fclose(fp)) != 0;
	remove_unless_whole(f, failed);
	if (failed && f->failed)
		return 0; /* said, and its exit status chosen, already */
	if (failed && errno != EPIPE) {
		if (errno == EINTR) /* a stop gave up a blocked write */
			diag_say("stopped while %s took no more output; what "
			    "it did not take is lost", where(f));
		else
			diag_say("cannot write to %s: %s; check the disk and "
			    "the path", where(f), strerror(errno));
		return -1;
	}
	return 0;
}

int
outfile_failed(struct outfile *f)
{
	if (f->failed && f->each)
		return EXIT_RUNTIME; /* next_sample() said it */
	f->failed = true;
	if (errno == EPIPE)
		return EXIT_DONE;
	if (errno == EINTR) { /* a stop gave up a blocked write */
		diag_say("stopped while %s took no more output; what it did not "
		    "take is lost", where(f));
		return EXIT_RUNTIME;
	}
	diag_say("cannot write to %s: %s; check the disk and the path",
	    where(f), strerror(errno));
	return EXIT_RUNTIME;
}

/*
 * --profile-at each: before a sample is written, the file of the sample
 * before is closed (whole: it holds one profile) and the sample's own is
 * made from the pattern, never over one that exists.
 */
static int
next_sample(void *ctx, const struct sample *s)
{
	struct outfile *f = ctx;
	char name[4096], alt[4096], err[1024];
	const char *path = name;
	time_t t = (time_t)(s->wall_ms / 1000);
	struct stat st;
	struct tm tm;
	char *copy;
	FILE *fp;

	if (outfile_close(f) != 0) {
		f->failed = true;
		errno = EIO;
		return -1;
	}
	localtime_r(&t, &tm);
	if (outname_expand_sample(f->pattern, f->connection_id, s->thread_id,
	    s->seq, &tm, name, sizeof(name)) != 0) {
		snprintf(err, sizeof(err), "--output '%.100s' gives an empty "
		    "or too long file name; change the pattern", f->pattern);
		goto fail;
	}
	for (unsigned n = 2; lstat(path, &st) == 0; n++) {
		if (n > 1000 || outname_numbered(name, n, alt, sizeof(alt)) != 0) {
			snprintf(err, sizeof(err), "--output %.900s exists, and "
			    "so do the numbered names after it; move them away",
			    name);
			goto fail;
		}
		path = alt;
	}
	if ((fp = open_output_file(path, OPEN_NEW, err, sizeof(err))) == NULL)
		goto fail;
	if ((copy = strdup(path)) == NULL) {
		fclose(fp);
		unlink(path);
		snprintf(err, sizeof(err), "out of memory");
		goto fail;
	}
	free(f->path);
	f->path = copy;
	f->out.fp = fp;
	return 0;
fail:
	diag_say("%s", err);
	f->failed = true;
	errno = EIO;
	return -1;
}

void
outfile_each_sample(struct outfile *f)
{
	f->each = true;
	f->out.next_file = next_sample;
	f->out.next_file_ctx = f;
}

int
outfile_write_statements(const char *path, const struct format *fmt,
    bool exact_bytes, bool append, const struct summary *sum)
{
	struct output o = { .fmt = fmt, .settings.exact_bytes = exact_bytes };
	char err[1024];
	int rc;

	if ((o.fp = outfile_open_extra(path, "--statements", append, err,
	    sizeof(err))) == NULL) {
		diag_say("%s", err);
		return -1;
	}
	rc = output_statements(&o, sum);
	output_release(&o);
	if (fclose(o.fp) != 0)
		rc = -1;
	if (rc != 0)
		diag_say("--statements: cannot write %s: %s", path,
		    strerror(errno));
	return rc;
}
