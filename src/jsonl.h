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

/* What a line says of the run rather than of the sample. */
struct jsonl_meta {
	bool has_grain;  /* "grain" is not null: --global, --for-* */
	char grain[600]; /* "global", "user:app", ... */
	bool filtered;   /* "filtered_total_bytes" is not null: --events, --exclude */
};

/*
 * Parses the len bytes at line (its newline left out) into *s, whose
 * events array has room for max_events; the other fields of *s are
 * overwritten; the sums of delta_sums() cover the events the line holds
 * (all of them with --top 0). Returns 0, or -1 with err saying what is wrong, in words
 * that follow "line N: ", e.g. "not JSON (...)" or "not a mysqlmemprof
 * sample: no \"events\"".
 */
int jsonl_sample(const char *line, size_t len, struct sample *s,
    size_t max_events, struct jsonl_meta *meta, char *err, size_t errlen);

/*
 * Whether the line is a statement a sample brought ("type":"finished"),
 * which --format json writes just before that sample's line.
 */
bool jsonl_is_finished(const char *line, size_t len);

/*
 * Parses such a line into *f, and the sample that brought it into *seq.
 * Returns 0, or -1 with err as jsonl_sample() says it.
 */
int jsonl_finished(const char *line, size_t len, struct finished_statement *f,
    uint64_t *seq, char *err, size_t errlen);

#endif
