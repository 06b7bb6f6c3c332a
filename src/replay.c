/*
 * --read (see replay.h). Lines are read with poll() in between (reader.h),
 * so that a stop answers at once even while a pipe is silent (the signal
 * handlers restart reads). Each capture in the file (the sample numbers
 * start again at 1 after --repeat) gets its own summary, as it did when
 * it was taken.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <libgen.h>
#include <sys/stat.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "dirlist.h"
#include "exitcode.h"
#include "jsonl.h"
#include "outfile.h"
#include "outname.h"
#include "reader.h"
#include "replay.h"
#include "ring.h"
#include "segments.h"
#include "runstats.h"
#include "summary.h"

/*
 * More events than any server has memory instruments, unless --window
 * asks for so many samples that the ring would pass 1 GiB, as capture.c
 * keeps it.
 */
#define REPLAY_MAX_EVENTS 2048
#define REPLAY_RING_LIMIT ((size_t)1 << 30)
static struct ring *
make_ring(size_t window)
{
	size_t per_sample = REPLAY_RING_LIMIT / window, events = 0;

	if (per_sample > sizeof(struct sample))
		events = (per_sample - sizeof(struct sample)) /
		    sizeof(struct event_stat);
	if (events > REPLAY_MAX_EVENTS)
		events = REPLAY_MAX_EVENTS;
	return ring_create(window, events > 0 ? events : 1);
}

struct replay {
	const struct options *o;
	const struct capture_observer *w; /* the live view; NULL: none */
	struct sampler_stats stats;       /* of the capture, for it */
	const struct diag *d;
	struct outfile f;
	struct ring *ring;
	struct runstats *run; /* the whole capture, as capture.c keeps it */
	struct jsonl_meta meta;
	uint64_t thread_id;
	uint64_t samples;  /* replayed, over every capture */
	bool begun;        /* a capture is open: its summary is still to come */
	uint64_t captures; /* summaries written */
	bool failed;       /* a write failed, and was said */
	/*
	 * --read DIR: the record's segments, where a line cut short (the
	 * last of a segment, after kill -9) or one that does not parse is
	 * left out and counted, not the end.
	 */
	bool lenient;
	uint64_t left_out;
};

/* The ring and the whole run's statistics of a capture to come. */
static int
fresh_capture(struct replay *p)
{
	p->ring = make_ring(p->o->window);
	p->run = runstats_create();
	if (p->ring != NULL && p->run != NULL)
		return 0;
	diag_say("out of memory for a window of %zu samples", p->o->window);
	return -1;
}

/* The summary of the capture replayed so far, then a fresh ring. */
static int
end_capture(struct replay *p)
{
	struct summary sum;
	int rc = 0;

	if (!p->begun)
		return 0;
	p->begun = false;
	if (summary_build(p->ring, 0, &sum) != 0 ||
	    summary_add_run(&sum, p->run) != 0) {
		summary_free(&sum);
		diag_say("out of memory building the summary");
		return -1;
	}
	sum.thread_id = p->thread_id;
	if (p->w != NULL && p->w->end != NULL)
		p->w->end(p->w->ctx, &sum, &p->stats, NULL);
	if (output_end(&p->f.out, &sum) != 0) {
		outfile_failed(&p->f);
		p->failed = true;
		rc = -1;
	}
	/* --statements as the run wrote it: the first capture starts the file. */
	if (rc == 0 && p->o->statements_file != NULL &&
	    outfile_write_statements(p->o->statements_file, p->o->format,
	    p->o->exact_bytes, p->captures++ > 0, &sum) != 0)
		rc = -1;
	summary_free(&sum);
	ring_free(p->ring);
	runstats_free(p->run);
	if (fresh_capture(p) != 0)
		rc = -1;
	return rc;
}

/* One line: a sample into the ring and out in the format. */
static int
replay_line(struct replay *p, const char *line, size_t n, uint64_t lineno)
{
	struct sample *s = ring_slot(p->ring);
	char err[512];
	uint64_t last_seq = p->begun ? ring_get(p->ring,
	    ring_len(p->ring) - 1)->seq : 0;
	int rc = jsonl_sample(line, n, s, ring_max_events(p->ring), &p->meta,
	    err, sizeof(err));

	if (rc == 1)
		return 0; /* a capture's line, not a sample */
	if (rc != 0 && p->lenient) {
		p->left_out++;
		return 0;
	}
	if (rc != 0) {
		diag_say("%s: line %" PRIu64 ": %s", p->o->read_path, lineno,
		    err);
		return -1;
	}
	/* --since, --until: outside the window, as if not there. */
	if ((p->o->has_since && s->wall_ms < p->o->since_ms) ||
	    (p->o->has_until && s->wall_ms > p->o->until_ms))
		return 0;
	/* Numbers starting again: the next capture of --repeat. */
	if (p->begun && (s->seq <= last_seq || s->thread_id != p->thread_id)) {
		struct sample keep = *s;
		size_t bytes = keep.n_events * sizeof(*keep.events);
		struct event_stat *ev = malloc(bytes > 0 ? bytes : 1);

		if (ev == NULL) {
			diag_say("out of memory");
			return -1;
		}
		memcpy(ev, s->events, bytes);
		if (end_capture(p) != 0) {
			free(ev);
			return -1;
		}
		s = ring_slot(p->ring);
		keep.events = s->events;
		memcpy(s->events, ev, bytes);
		*s = keep;
		free(ev);
	}
	if (!p->begun) {
		p->thread_id = s->thread_id;
		p->f.out.grain = p->meta.has_grain ? p->meta.grain : NULL;
		p->f.out.filtered = p->meta.filtered;
		if (outfile_open(&p->f) != 0)
			return -1;
		if (outfile_begin_capture(&p->f) != 0)
			goto failed;
		p->begun = true;
		p->stats = (struct sampler_stats){ .end = SAMPLER_END_COUNT };
		if (p->w != NULL && p->w->begin != NULL)
			p->w->begin(p->w->ctx, &(struct capture_target){
				.thread_id = s->thread_id,
				.grain = p->f.out.grain,
				.server_version = "",
				.interval_ms = 0,
			});
	}
	/* The line's statements, kept in the ring as the sampler keeps them. */
	if (s->n_finished > 0) {
		const struct finished_statement *from = s->finished;
		size_t nf = s->n_finished;
		struct finished_statement *f = ring_finished(p->ring, nf);

		if (f == NULL) {
			diag_say("out of memory");
			return -1;
		}
		memcpy(f, from, nf * sizeof(*f));
	}
	ring_commit(p->ring);
	runstats_add(p->run, s);
	p->samples++;
	p->stats.taken++;
	if (p->w != NULL && p->w->sample != NULL &&
	    p->w->sample(p->w->ctx, s, &p->stats) != 0)
		return -1;
	if (output_sample(&p->f.out, s) != 0)
		goto failed;
	return 0;
failed:
	outfile_failed(&p->f);
	p->failed = true;
	return -1;
}

static int
open_input(const char *path, int *fd)
{
	if (strcmp(path, "-") == 0) {
		*fd = 0;
		return 0;
	}
	if ((*fd = open(path, O_RDONLY | O_CLOEXEC)) < 0) {
		diag_say("--read %s: %s; give a file written by --format json",
		    path, strerror(errno));
		return -1;
	}
	return 0;
}

/* Reads every line; returns the exit status. */
static int
replay_lines(struct replay *p, struct reader *r)
{
	uint64_t lineno = 0;
	char *line;
	size_t n;
	enum reader_got got;

	while ((got = reader_next(r, &line, &n)) > READER_END ||
	    (got == READER_TOO_LONG && p->lenient)) {
		lineno++;
		if (got == READER_TOO_LONG || (got == READER_CUT &&
		    p->lenient)) {
			p->left_out++;
			continue;
		}
		if (got == READER_CUT) {
			diag_say("%s: cut short: line %" PRIu64 " has no end; "
			    "the %" PRIu64 " sample%s before it %s replayed",
			    r->name, lineno, p->samples,
			    p->samples == 1 ? "" : "s",
			    p->samples == 1 ? "is" : "are");
			return EXIT_RUNTIME;
		}
		if (replay_line(p, line, n, lineno) != 0)
			return p->failed && errno == EPIPE ? EXIT_DONE :
			    EXIT_RUNTIME;
	}
	if (got == READER_ERROR && errno == EINTR)
		return EXIT_DONE; /* stopped: the end is written as for a count */
	if (got == READER_ERROR) {
		diag_say("--read %s: %s", r->name, strerror(errno));
		return EXIT_RUNTIME;
	}
	if (got == READER_TOO_LONG) {
		diag_say("%s: line %" PRIu64 " is longer than %zu MiB: not a "
		    "capture written by --format json", r->name, lineno + 1,
		    READER_MAX_LINE >> 20);
		return EXIT_RUNTIME;
	}
	if (lineno == 0 && !p->lenient) {
		diag_say("%s: empty: no sample to replay; give a file written "
		    "by --format json", r->name);
		return EXIT_RUNTIME;
	}
	return EXIT_DONE;
}

/*
 * --read DIR: each segment of the record in turn, oldest first, as one
 * stream; a segment that went (pruned while read) is passed over, and
 * what is not a regular file (planted there) is passed over with a note.
 */
static int
replay_dir(struct replay *p, struct reader *r)
{
	char **paths, why[128];
	size_t n;
	int fd, rc = EXIT_DONE;

	if (segments_list(p->o->read_path, &paths, &n) != 0 &&
	    errno != ENOENT) {
		diag_say("--read %s: %s; give a folder --record wrote",
		    p->o->read_path, strerror(errno));
		return EXIT_RUNTIME;
	}
	if (n == 0) {
		diag_say("--read %s: no records (no segments/*.jsonl); give a "
		    "folder --record wrote", p->o->read_path);
		dirlist_free(paths, n);
		return EXIT_RUNTIME;
	}
	p->lenient = true;
	for (size_t i = 0; i < n && rc == EXIT_DONE; i++) {
		if ((fd = reader_open_regular(paths[i], why, sizeof(why))) < 0) {
			if (why[0] != '\0')
				diag_note(p->d, "%s passed over: %s, not a "
				    "segment --record wrote", paths[i], why);
			continue;
		}
		reader_reset(r, fd, paths[i]);
		rc = replay_lines(p, r);
		close(r->fd);
		r->fd = -1;
	}
	r->name = p->o->read_path;
	dirlist_free(paths, n);
	if (p->left_out > 0)
		diag_note(p->d, "%" PRIu64 " line%s of %s left out: cut short "
		    "(the last of a segment when the recorder was killed), "
		    "longer than %zu MiB or not a record", p->left_out,
		    p->left_out == 1 ? "" : "s", p->o->read_path,
		    READER_MAX_LINE >> 20);
	return rc;
}

static bool
is_dir(const char *path)
{
	struct stat st;

	return strcmp(path, "-") != 0 && stat(path, &st) == 0 &&
	    S_ISDIR(st.st_mode);
}

/*
 * What the output is (--output, or standard output without one), when it
 * is a regular file there already: only such a file can be read back.
 */
static bool
output_file(const char *output, struct stat *out)
{
	return (output != NULL ? stat(output, out) :
	    fstat(STDOUT_FILENO, out)) == 0 && S_ISREG(out->st_mode);
}

static bool
same_file(const struct stat *a, const struct stat *b)
{
	return a->st_dev == b->st_dev && a->st_ino == b->st_ino;
}

/*
 * Whether the output is a file the replay reads: written there, it would
 * be emptied before it is read, or read back as it grows. By device and
 * inode, not by name: a link names the same file.
 */
static bool
output_is_input(int fd, const char *output)
{
	struct stat in, out;

	return output_file(output, &out) && fstat(fd, &in) == 0 &&
	    same_file(&in, &out);
}

/* The same for --read DIR: a segment, or a new file among them. */
static bool
output_in_record(const char *dir, const char *output)
{
	struct stat seg, out;
	char path[4200], **paths, *copy;
	size_t n;
	bool in = false;

	snprintf(path, sizeof(path), "%s/segments", dir);
	if (output != NULL && stat(path, &seg) == 0 &&
	    (copy = strdup(output)) != NULL) {
		in = stat(dirname(copy), &out) == 0 && same_file(&seg, &out);
		free(copy);
	}
	if (in || !output_file(output, &out) ||
	    segments_list(dir, &paths, &n) != 0)
		return in;
	for (size_t i = 0; i < n && !in; i++)
		in = lstat(paths[i], &seg) == 0 && same_file(&seg, &out);
	dirlist_free(paths, n);
	return in;
}

/* The output refused when it is the input; -1 then, 0 when not. */
static int
refuse_output(const struct options *o, bool dir, int fd)
{
	const char *name = o->output != NULL ? o->output : "standard output";

	if (dir && output_in_record(o->read_path, o->output)) {
		diag_say("--output: %s is in the record --read replays (%s/"
		    "segments); write outside that folder", name,
		    o->read_path);
		return -1;
	}
	if (!dir && output_is_input(fd, o->output)) {
		diag_say("--output: %s is the file --read replays; write to "
		    "another file", name);
		return -1;
	}
	return 0;
}

int
replay_run(const struct capture_env *env)
{
	const struct options *o = env->opts;
	struct signal_flags *sig = env->sig;
	const struct diag *d = env->diag;
	struct replay p = { .o = o, .d = d, .w = env->observer };
	struct reader r = {
		.name = strcmp(o->read_path, "-") == 0 ? "standard input" :
		    o->read_path,
		.stop = &sig->stop,
	};
	const struct output_settings settings = outfile_settings(o);
	bool each = outfile_each_wanted(o);
	bool dir = is_dir(o->read_path);
	int rc;

	if (dir)
		r.fd = -1;
	else if (open_input(o->read_path, &r.fd) != 0)
		return EXIT_RUNTIME;
	if (refuse_output(o, dir, r.fd) != 0) {
		if (r.fd > 0)
			close(r.fd);
		return EXIT_USAGE;
	}
	/* Drawn by the live view: the samples go only to --output, if any. */
	if (outfile_init(&p.f, o->output == NULL && p.w != NULL ? "/dev/null" :
	    o->output, each && o->output != NULL &&
	    outname_is_pattern(o->output), o->format, &settings,
	    &sig->reopen) != 0) {
		if (r.fd > 0)
			close(r.fd);
		return EXIT_RUNTIME;
	}
	if (each)
		outfile_each_sample(&p.f);
	if (fresh_capture(&p) != 0) {
		rc = EXIT_RUNTIME;
	} else {
		rc = dir ? replay_dir(&p, &r) : replay_lines(&p, &r);
		/* Whatever stopped the reading, what was replayed is whole. */
		if (!p.failed && end_capture(&p) != 0 && rc == EXIT_DONE)
			rc = EXIT_RUNTIME;
		if (rc == EXIT_DONE)
			diag_note(d, "replayed %" PRIu64 " sample%s from %s",
			    p.samples, p.samples == 1 ? "" : "s", r.name);
		if (rc == EXIT_DONE && p.samples == 0 && (o->has_since ||
		    o->has_until))
			diag_say("no sample of %s is between --since and "
			    "--until; give times within the record's (UTC)",
			    o->read_path);
	}
	if (outfile_close(&p.f) != 0 && rc == EXIT_DONE)
		rc = EXIT_RUNTIME;
	outfile_free(&p.f);
	ring_free(p.ring);
	runstats_free(p.run);
	jsonl_meta_free(&p.meta);
	free(r.buf);
	if (r.fd > 0)
		close(r.fd);
	return rc;
}
