/*
 * Output formats. Each format is one file (output_text.c, output_csv.c,
 * output_json.c, ...) and one row in the table of output_table.c, and
 * keeps what it needs between calls in a state of its own; the columns
 * they write are the rows of output_columns.c. The program writes through
 * the functions below, and finds a format by name in output_table.h.
 */
#ifndef MYSQLMEMPROF_OUTPUT_H
#define MYSQLMEMPROF_OUTPUT_H

#include <stdbool.h>
#include <stdio.h>

#include "profile.h"
#include "obuf.h"
#include "sample.h"
#include "summary.h"
#include "threads.h"

/*
 * The run's options as the formats take them, the same for every format:
 * the caller (outfile_init()) fills them before the first write; a
 * format's init is handed them, and its callbacks may read them as
 * o->settings. None is one format's field in struct output.
 */
struct output_settings {
	bool exact_bytes; /* --bytes: text writes integers, not KiB/MiB */
	/* The profile formats (folded, pprof): which sample, which root frame. */
	enum profile_at profile_at;
	bool peak_of_filtered; /* the peak is of the filtered total (--events) */
	enum profile_root profile_root;
};

struct output {
	FILE *fp;
	const struct format *fmt;
	struct output_settings settings;
	/*
	 * What the capture written now is of, which every format may name:
	 * "global", "user:NAME", "host:NAME" or "account:USER@HOST", NULL for
	 * a thread; and whether --events/--exclude made filtered totals known.
	 * Set by the capture, as it learns them.
	 */
	const char *grain;
	bool filtered;
	/*
	 * What the format keeps from call to call, made by its init at the
	 * first call and freed by output_release(); NULL for a format that
	 * keeps nothing.
	 */
	void *state;
	/*
	 * --profile-at each: opens the file of the sample about to be
	 * written (outfile.c); NULL otherwise. Between samples fp is NULL,
	 * and what is not a sample is written nowhere. Returns 0, or -1 with
	 * errno set.
	 */
	int (*next_file)(void *ctx, const struct sample *s);
	void *next_file_ctx;
	/*
	 * What the callback of a format that writes through it (text, csv,
	 * json) has written: output.c sends it to fp in one write after
	 * each call. Kept from call to call; output_release() frees it.
	 */
	struct obuf buf;
	/*
	 * A format's bytes to be copied into buf within one call (CSV: the
	 * fields of a sample that every row of it repeats), kept the same way.
	 */
	struct obuf scratch;
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

/*
 * A capture of a hunt begins: which statement, or idle holder, the samples
 * that follow are of.
 */
struct output_capture {
	uint64_t number;        /* 1, 2, ... */
	int64_t started_s;      /* when the capture began, seconds since the epoch */
	uint64_t connection_id;
	uint64_t thread_id;
	int64_t running_s;      /* how long the statement had run (idle: been idle) then */
	const char *text;       /* the start of the statement; "" when idle */
	bool idle;              /* found holding size_bytes while running none */
	/*
	 * Had ended when a look found it, past size_bytes by its own peak
	 * (peak_bytes): running_s is how long it ran, duration_ms exactly.
	 */
	bool ended;
	int64_t duration_ms;
	int64_t bytes;          /* what its connection held when found */
	int64_t size_bytes;     /* --bigger-than; 0: none */
	/* Past size_bytes only between two looks: its session's peak said so. */
	bool between_looks;
	int64_t peak_bytes;     /* that peak; 0: not known */
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
	/*
	 * A format that keeps state of its own (text: the statement last
	 * named; the profiles: the sample kept; html, svg: the picture)
	 * makes it in init, called before its first callback, and frees it
	 * in free; it reaches it as o->state. init returns NULL when out of
	 * memory. NULL init: no state.
	 */
	void *(*init)(const struct output_settings *set);
	void (*free)(void *state);
	/*
	 * The output goes on in a new file (SIGHUP): what the old one said
	 * is said again where the format would not repeat it.
	 */
	void (*new_file)(void *state);
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
/*
 * Says that held samples follow; in text, the next sample names its
 * statement again.
 */
int output_dump(struct output *o, const struct output_dump *d);
/*
 * Says which capture follows. Text marks it with a heading, JSON with a
 * line of "type":"capture"; CSV rows tell captures apart by thread_id and
 * sample.
 */
int output_capture(struct output *o, const struct output_capture *c);
/* --statements: the run's statements, ranked, in the format's way. */
int output_statements(struct output *o, const struct summary *sum);
/* The output goes on in a new file: the format's new_file callback. */
void output_new_file(struct output *o);
/*
 * Frees the format's state (what it kept between samples, when no end
 * came to write it) and the buffers: every struct output that wrote is
 * released.
 */
void output_release(struct output *o);

#endif
