/*
 * The output file. It is opened only once sampling can start, so a failed
 * start leaves an existing file as it was, and it is never a symbolic link
 * or a file someone else made for a capture.
 */
#include <errno.h>
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

int
outfile_init(struct outfile *f, const char *path, bool pattern,
    const struct format *fmt, bool exact_bytes, const struct diag *d,
    volatile sig_atomic_t *reopen)
{
	char *copy = NULL;

	*f = (struct outfile){
		.out = { .fmt = fmt, .exact_bytes = exact_bytes },
		.diag = d, .reopen = reopen,
	};
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
}

int
outfile_open(struct outfile *f)
{
	char err[1024];

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

/*
 * An existing file is never overwritten: an earlier capture may have had
 * the same name, so a number is added instead.
 */
int
outfile_name(struct outfile *f, uint64_t connection_id, uint64_t thread_id)
{
	char name[4096], alt[4096];
	const char *path = name;
	struct stat st;
	time_t now = time(NULL);
	struct tm tm;
	char *copy;

	localtime_r(&now, &tm);
	if (outname_expand(f->pattern, connection_id, thread_id, &tm, name,
	    sizeof(name)) != 0) {
		diag_say("--output '%s' gives an empty or too long file name; "
		    "change the pattern", f->pattern);
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
	if (f->path == NULL || f->out.fp == NULL)
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
	f->out.has_statement = false;
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

int
outfile_close(struct outfile *f)
{
	FILE *fp = f->out.fp;
	int failed;

	f->captures = 0;
	if (fp == NULL)
		return 0;
	f->out.fp = NULL;
	failed = ferror(fp) != 0;
	failed |= (fp == stdout ? fflush(fp) : fclose(fp)) != 0;
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
