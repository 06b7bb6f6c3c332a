/*
 * The output file. It is opened only once sampling can start, so a failed
 * start leaves an existing file as it was, and it is never a symbolic link
 * or a file someone else made for a capture.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "exitcode.h"
#include "outfile.h"
#include "outname.h"
#include "outpath.h"

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
		return outpath_check(path, path, true, err, errlen);
	if (expand(path, 0, 0, name, sizeof(name), err, errlen) != 0)
		return -1;
	if (slash != NULL && memchr(path, '%', (size_t)(slash - path)) != NULL)
		return 0;
	return outpath_check(name, path, false, err, errlen);
}

struct output_settings
outfile_settings(const struct options *o)
{
	return (struct output_settings){
		.exact_bytes = o->exact_bytes, .profile_at = o->profile_at,
		.peak_of_filtered = o->n_include_events > 0 ||
		    o->n_exclude_events > 0,
		.profile_root = o->profile_root,
	};
}

bool
outfile_each_wanted(const struct options *o)
{
	return o->format->profile && o->profile_at == PROFILE_AT_EACH;
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
	if ((f->out.fp = outpath_open(f->path, f->pattern != NULL ?
	    OUTPATH_NEW : OUTPATH_TRUNCATE, err, sizeof(err))) == NULL) {
		diag_say("%s", err);
		return -1;
	}
	return 0;
}

FILE *
outfile_open_extra(const char *path, const char *option, bool append,
    char *err, size_t errlen)
{
	FILE *fp = outpath_open(path, append ? OUTPATH_APPEND :
	    OUTPATH_TRUNCATE, err, errlen);
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
	if ((fp = outpath_open(f->path, OUTPATH_APPEND, err,
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

	if (!f->out.fmt->binary || f->path == NULL || outpath_fd(f->path) >= 0 ||
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
	if ((fp = outpath_open(path, OUTPATH_NEW, err, sizeof(err))) == NULL)
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
