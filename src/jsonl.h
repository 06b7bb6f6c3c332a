/*
 * The lines of a capture written by --format json, read back: each line
 * becomes the struct sample it was written from, so that --read replays a
 * capture through every format and the summary. Pure: it reads a line
 * given in memory (jansson parses it) and never a file.
 */
#ifndef MYSQLMEMPROF_JSONL_H
#define MYSQLMEMPROF_JSONL_H

#include <stdbool.h>
#include <stddef.h>

#include "sample.h"

/*
 * The largest figure of bytes or of things held (current, high, total,
 * resident, cgroup) a line may give, either sign: 1 PiB, more memory than
 * any machine has. A line beyond it is refused, so that no sum of a
 * sample's figures (at most a few thousand) can overflow.
 */
#define JSONL_MAX_HELD ((int64_t)1 << 50)

/*
 * What a line says of the run rather than of the sample. Zeroed before
 * the first line; the caller frees finished after the last.
 */
struct jsonl_meta {
	bool has_grain;  /* "grain" is not null: --global, --for-* */
	char grain[600]; /* "global", "user:app", ... */
	bool filtered;   /* "filtered_total_bytes" is not null: --events, --exclude */
	/*
	 * The sample's "finished" statements, which its finished points to
	 * until the next line; grown as needed, freed by the caller.
	 */
	struct finished_statement *finished;
	size_t finished_cap;
	/*
	 * The events of the last sample that had its own, for a line whose
	 * "events_kept" says it repeats them (--record: beat.h).
	 */
	struct event_stat *kept;
	size_t n_kept, kept_cap;
};

/* Frees what meta holds (finished, kept); it is zero again. */
void jsonl_meta_free(struct jsonl_meta *meta);

/*
 * Parses the len bytes at line (its newline left out) into *s, whose
 * events array has room for max_events; the other fields of *s are
 * overwritten; the sums of delta_sums() cover the events the line holds
 * (all of them with --top 0). Returns 0; 1 for a line that is not a
 * sample, to pass over (one with a "type": "capture", a capture of a hunt
 * begins; the lines --record writes beside its samples); or -1 with
 * err saying what is wrong, in words
 * that follow "line N: ", e.g. "not JSON (...)" or "not a mysqlmemprof
 * sample: no \"events\"".
 */
int jsonl_sample(const char *line, size_t len, struct sample *s,
    size_t max_events, struct jsonl_meta *meta, char *err, size_t errlen);

#endif
