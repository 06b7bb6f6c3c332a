/*
 * --output: opened only once sampling can start, reopened on SIGHUP,
 * closed with its write errors reported once.
 */
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>

#include "app_internal.h"

/* How open_output_file() treats what is there. */
enum open_mode {
	OPEN_TRUNCATE, /* --output: a new run starts the file again */
	OPEN_APPEND,   /* SIGHUP: go on in the file logrotate left */
	OPEN_NEW,      /* a capture's own file: never one that exists */
};

/*
 * Opens --output. It refuses a symbolic link (O_NOFOLLOW), so a link
 * planted in a shared directory cannot make it overwrite another file, and
 * anything but a regular file, a FIFO or a character device such as
 * /dev/null.
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
	struct stat st;
	FILE *fp;
	int fd;

	if (lstat(path, &st) == 0 && !S_ISREG(st.st_mode) &&
	    !S_ISFIFO(st.st_mode) && !S_ISCHR(st.st_mode)) {
		snprintf(err, errlen, "--output %s is %s; give the path of a "
		    "regular file", path, S_ISLNK(st.st_mode) ?
		    "a symbolic link" : S_ISDIR(st.st_mode) ? "a directory" :
		    "not a regular file");
		return NULL;
	}
	if ((fd = open(path, flags, 0644)) < 0) {
		if (errno == ENXIO)
			snprintf(err, errlen, "--output %s is a FIFO that no "
			    "one reads; start its reader first", path);
		else if (errno == EEXIST && mode == OPEN_NEW)
			snprintf(err, errlen, "--output %s was made by someone "
			    "else meanwhile (another mysqlmemprof?); give each "
			    "run its own --output pattern", path);
		else
			snprintf(err, errlen, "cannot open --output %s: %s; "
			    "check the path and its permissions", path,
			    strerror(errno));
		return NULL;
	}
	fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK);
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
 * Opens --output only now that sampling can start, so a failed start
 * leaves an existing file as it was.
 */
int
open_output(struct app *a)
{
	char err[1024];

	/* --repeat without a pattern: the captures go on in one output. */
	if (a->out.fp != NULL)
		return 0;
	a->out.fmt = a->opts.format;
	a->out.exact_bytes = a->opts.exact_bytes;
	if (a->opts.output == NULL) {
		a->out.fp = stdout;
		return 0;
	}
	if ((a->out.fp = open_output_file(a->opts.output,
	    a->output_pattern != NULL ? OPEN_NEW : OPEN_TRUNCATE, err,
	    sizeof(err))) == NULL) {
		say("%s", err);
		return -1;
	}
	return 0;
}

/*
 * After logrotate moved the file away, SIGHUP makes a new one; a new or
 * emptied file gets the format's header again. Returns -1 with errno set.
 */
int
reopen_output(struct app *a)
{
	char err[1024];
	struct stat st;
	FILE *fp;

	reopen_requested = 0;
	if (a->opts.output == NULL)
		return 0;
	if ((fp = open_output_file(a->opts.output, OPEN_APPEND, err,
	    sizeof(err))) == NULL) {
		/* Keep writing where we were; the old file is still open. */
		say("%s; still writing to the old file", err);
		return 0;
	}
	if (fclose(a->out.fp) != 0 && errno != EPIPE)
		say("closing the old --output: %s", strerror(errno));
	a->out.fp = fp;
	/* The new file stands alone: text names the statement again. */
	a->out.has_statement = false;
	if (fstat(fileno(fp), &st) == 0 && S_ISREG(st.st_mode) &&
	    st.st_size == 0)
		return output_begin(&a->out);
	return 0;
}

/* Closes the output; returns -1 (reported) when buffered data could not be written. */
int
close_output(struct app *a)
{
	FILE *fp = a->out.fp;
	int failed;

	if (fp == NULL)
		return 0;
	a->out.fp = NULL;
	failed = ferror(fp) != 0;
	failed |= (fp == stdout ? fflush(fp) : fclose(fp)) != 0;
	if (failed && a->write_failed)
		return 0; /* reported, and its exit status chosen, already */
	if (failed && errno != EPIPE) {
		say("cannot write to %s: %s; check the disk and the path",
		    a->opts.output != NULL ? a->opts.output : "standard output",
		    strerror(errno));
		return -1;
	}
	return 0;
}

int
write_failed(struct app *a)
{
	a->write_failed = true;
	/* A reader that went away (| head) is an end, not an error. */
	if (errno == EPIPE)
		return EXIT_DONE;
	say("cannot write to %s: %s; check the disk and the path",
	    a->opts.output != NULL ? a->opts.output : "standard output",
	    strerror(errno));
	return EXIT_RUNTIME;
}
