/*
 * Output formats. Each format is one file (output_text.c, output_csv.c,
 * output_json.c) and one row in the table of output_table.c; the columns
 * they write are the rows of output_columns.c. The program writes through
 * the functions below, and finds a format by name in output_table.h.
 */
#ifndef MYSQLMEMPROF_OUTPUT_H
#define MYSQLMEMPROF_OUTPUT_H

#include <stdbool.h>
#include <stdio.h>

#include "profile.h"
#include "chart.h"
#include "output_buf.h"
#include "sample.h"
#include "summary.h"
#include "threads.h"

struct output {
	FILE *fp;
	const struct format *fmt;
	bool exact_bytes; /* text: integers instead of KiB/MiB */
	/*
	 * What is sampled when it is not a thread: "global", "user:NAME",
	 * "host:NAME" or "account:USER@HOST"; NULL for a thread.
	 */
	const char *grain;
	bool filtered;    /* --events/--exclude given: filtered totals are known */
	/*
	 * The statement of the last sample written, kept by output.c so
	 * that text can say where it changes; cleared by output_dump().
	 */
	bool has_statement;
	struct statement statement;
	unsigned setup_off; /* of the last sample written */
	/*
	 * The profile formats (folded, pprof): the sample kept for the
	 * profile written at the end of a capture (its storage is freed by
	 * outfile_free()), and the frame above the events.
	 */
	struct profile_keep keep;
	enum profile_root profile_root;
	/*
	 * --profile-at each: opens the file of the sample about to be
	 * written (outfile.c); NULL otherwise. Between samples fp is NULL,
	 * and what is not a sample is written nowhere. Returns 0, or -1 with
	 * errno set.
	 */
	int (*next_file)(void *ctx, const struct sample *s);
	void *next_file_ctx;
	/*
	 * html, svg: the picture of the run so far, made at its first sample
	 * and drawn and freed at the end; output_release() frees one left.
	 */
	struct chart *chart;
	/*
	 * What the callback of a format that writes through it (text, csv,
	 * json) has written: output.c sends it to fp in one write after
	 * each call. Kept from call to call; output_release() frees it.
	 */
	struct output_buf buf;
	/*
	 * A format's bytes to be copied into buf within one call (CSV: the
	 * fields of a sample that every row of it repeats), kept the same way.
	 */
	struct output_buf scratch;
};

/*
 * Samples held back by --trigger-bytes are about to be written: the total
 * reached the threshold, or SIGUSR1 asked for them.
 */
struct output_dump {
	bool by_signal;
	int64_t total;     /* the total of the sample that reached it */
	int64_t threshold; /* --trigger-bytes */
	size_t held;       /* samples written before that one; by signal, all */
};

/* A capture of --wait-for begins: which statement the samples that follow are of. */
struct output_capture {
	uint64_t number;        /* 1, 2, ... */
	int64_t started_s;      /* when the capture began, seconds since the epoch */
	uint64_t connection_id;
	uint64_t thread_id;
	int64_t running_s;      /* how long the statement had run then */
	const char *text;       /* the start of the statement */
};

/*
 * Every callback writes either to o->buf only (text, csv, json) or to
 * o->fp only, never to both, as output.c writes the buffer after the
 * callback; it returns 0, or -1 with errno set when a write failed (ENOMEM
 * when the buffer could not grow). A NULL callback writes nothing.
 */
struct format {
	const char *name;
	bool profile; /* one profile per capture: --profile-at and --profile-root apply */
	bool binary;  /* never to a terminal */
	int (*begin)(struct output *o);                         /* header */
	int (*sample)(struct output *o, const struct sample *s);
	int (*end)(struct output *o, const struct summary *sum);
	int (*threads)(struct output *o, const struct thread_list *l); /* --list */
	int (*dump)(struct output *o, const struct output_dump *d);
	int (*capture)(struct output *o, const struct output_capture *c);
	/*
	 * --statements: the run's statements ranked by growth (sum->
	 * run_statements), written to a file of their own at the end.
	 */
	int (*statements)(struct output *o, const struct summary *sum);
	/*
	 * It writes a whole document at the end of a run (html, svg): one
	 * run per file, and no list of threads.
	 */
	bool one_run;
};

/* 0, or -1 with errno set when a write to fp has failed. */
int output_status(FILE *fp);

/* These call the format's callback and flush, so readers see data at once. */
int output_begin(struct output *o);
int output_sample(struct output *o, const struct sample *s);
int output_end(struct output *o, const struct summary *sum);
int output_threads(struct output *o, const struct thread_list *l);
/* Says that held samples follow; the next sample names its statement again. */
int output_dump(struct output *o, const struct output_dump *d);
/*
 * Says which capture follows. Only text marks it: CSV and JSON rows tell
 * captures apart by thread_id and sample.
 */
int output_capture(struct output *o, const struct output_capture *c);
/* --statements: the run's statements, ranked, in the format's way. */
int output_statements(struct output *o, const struct summary *sum);
/*
 * Frees what a format kept between samples, when no end came to draw it,
 * and the buffer: every struct output that wrote is released.
 */
void output_release(struct output *o);

#endif
