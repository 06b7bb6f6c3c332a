/*
 * The output file: --output opened only once sampling can start, reopened
 * on SIGHUP for logrotate, one file per capture when --output is a pattern,
 * and write errors reported once. It owns the struct output the formats
 * write through.
 */
#ifndef MYSQLMEMPROF_OUTFILE_H
#define MYSQLMEMPROF_OUTFILE_H

#include <signal.h>
#include <stdbool.h>
#include <stdint.h>

#include "diag.h"
#include "options.h"
#include "output.h"

struct outfile {
	struct output out;   /* out.fp is NULL while nothing is open */
	char *path;          /* the file written; NULL: standard output. Owned */
	char *pattern;       /* --output with a '%': a file per capture. Owned */
	bool failed;         /* a write failed, and was said */
	uint64_t captures;   /* captures begun in the file open now */
	/*
	 * --profile-at each: the pattern names a file per sample, opened as
	 * the sample is written (%N its number, %c the connection of the
	 * capture); nothing is open between samples.
	 */
	bool each;
	uint64_t connection_id;
	volatile sig_atomic_t *reopen; /* SIGHUP asks to reopen */
};

/*
 * Sets up f for path (NULL: standard output), the format and its
 * settings (copied); a pattern
 * path makes every capture name its own file (outfile_name()). It checks
 * at once what can be checked (the pattern expands, the directory takes
 * files), nothing is opened yet. Returns 0, or -1 having said why.
 */
int outfile_init(struct outfile *f, const char *path, bool pattern,
    const struct format *fmt, const struct output_settings *settings,
    volatile sig_atomic_t *reopen);
/*
 * The formats' settings as the options give them: one place, so that a
 * capture and a replay (--read) draw a profile alike.
 */
struct output_settings outfile_settings(const struct options *o);
/* --profile-at each with a profile format: a file a sample. */
bool outfile_each_wanted(const struct options *o);
/*
 * --profile-at each: every sample goes to a file of its own, named by the
 * pattern f was set up with.
 */
void outfile_each_sample(struct outfile *f);
/* Frees what outfile_init() made; the file must be closed. */
void outfile_free(struct outfile *f);

/*
 * Opens the output unless it is open: standard output, --output, or the
 * file outfile_name() chose. Returns 0, or -1 having said why.
 */
int outfile_open(struct outfile *f);
/*
 * Opens a file of its own beside the output (--statements), as --output
 * opens its file: private, never through a link; appended to when append
 * is set. The caller closes it. NULL with err, naming option, when it
 * cannot.
 */
FILE *outfile_open_extra(const char *path, const char *option, bool append,
    char *err, size_t errlen);
/*
 * --statements: the run's statements ranked (sum->run_statements) in fmt,
 * to path, a file of their own; appended to when append is set (a later
 * capture of the run). Returns 0, or -1 having said why.
 */
int outfile_write_statements(const char *path, const struct format *fmt,
    bool exact_bytes, bool append, const struct summary *sum);
/*
 * A capture begins: the first in the file open now writes the format's
 * header. Returns 0, or -1 with errno set.
 */
int outfile_begin_capture(struct outfile *f);
/*
 * With a pattern: names the file of a capture from the pattern and the
 * local time, never one that exists. Returns 0, or -1 having said why.
 */
int outfile_name(struct outfile *f, uint64_t connection_id,
    uint64_t thread_id);
/*
 * Reopens the file when SIGHUP asked for it; a new or emptied file gets
 * the format's header again. Returns 0, or -1 with errno set.
 */
int outfile_reopen_if_asked(struct outfile *f);
/*
 * Closes the output; returns -1 (said) when buffered data could not be
 * written and no write failure was said before.
 */
int outfile_close(struct outfile *f);
/*
 * After a format's write failed (errno set): says so once and returns the
 * exit status; a reader that went away (| head) is an end, not an error.
 */
int outfile_failed(struct outfile *f);

#endif
