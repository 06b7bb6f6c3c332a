/*
 * The modes of the program, one row each, as git's commands[]: the test
 * of the options that chooses it, what it needs made ready, what it takes
 * and refuses, the formats it writes and its default --frequency. The
 * command line checks the options against the rows (cli_check.c), app
 * makes ready what the chosen row needs and runs it (its run functions,
 * by the row's id, are the one thing app keeps: they are above cli).
 */
#ifndef MYSQLMEMPROF_MODES_H
#define MYSQLMEMPROF_MODES_H

#include <stdbool.h>
#include <stddef.h>

#include "options.h"

/* The rows, in the order they are tried: the first chosen runs. */
enum mode_id {
	MODE_ID_READ, MODE_ID_LISTEN, MODE_ID_RECORD, MODE_ID_EXPLAIN,
	MODE_ID_HEAP_FILE, MODE_ID_HEAP, MODE_ID_TOP, MODE_ID_LIST,
	MODE_ID_HUNT, MODE_ID_CAPTURE, N_MODES,
};

/* What a mode needs made ready before it runs, in the order app_run() does. */
enum mode_needs {
	MODE_TERMINAL = 1 << 0, /* a terminal to draw on (--live) */
	MODE_RING     = 1 << 1, /* keeps --window samples: the ring checked */
	MODE_SESSION  = 1 << 2, /* the password asked, the session set up */
	MODE_CONNECT  = 1 << 3, /* and connected; without, the mode connects */
	/*
	 * The output file its captures write into: --output, stdout, or
	 * /dev/null (.elsewhere: its samples go elsewhere).
	 */
	MODE_OUTPUT   = 1 << 4,
	MODE_DRAWN    = 1 << 5, /* with --live, the live view watches it */
	/* Its data go only to --output, nowhere without one (as drawn). */
	MODE_NAMED_OUTPUT = 1 << 6,
	/* Captures one after another: --output may name a file for each. */
	MODE_FILE_EACH = 1 << 7,
	/* Writes lists of threads, not samples: a binary format is no harm. */
	MODE_THREADS  = 1 << 8,
	/*
	 * Reads the server with every memory instrument off too: what is
	 * off is part of its answer (the session's instruments_may_be_off).
	 */
	MODE_ANY_INSTRUMENTS = 1 << 9,
};

/*
 * A row. Its refusals are said as "--NAME ...", so only a row whose name
 * is an option (.option) refuses anything.
 */
struct mode {
	const char *name;  /* as the manual and the ARCHITECTURE call it */
	enum mode_id id;
	bool (*chosen)(const struct options *o);
	unsigned needs;    /* enum mode_needs */
	bool option;       /* chosen by the option --NAME */
	/*
	 * "--NAME ALONE, alone": it takes no other mode, no --live, no
	 * --trigger-bytes, no target but --global.
	 */
	const char *alone;
	/* The targets it takes, 1 << TARGET_*, and why; 0: any. */
	unsigned takes;
	const char *takes_why;
	/* Non-NULL: --output is refused, its samples being elsewhere: why. */
	const char *elsewhere;
	/* No server: what it reads instead ("--NAME READS without one"). */
	const char *no_server;
	const char *const *formats; /* the --format names it writes; NULL: any */
	unsigned frequency_ms;      /* --frequency's default */
};

extern const struct mode modes[N_MODES];

/* The row that runs with options o: the first whose test passes. */
const struct mode *mode_of(const struct options *o);

/* Whether mode m writes the format named name. */
bool mode_writes(const struct mode *m, const char *name);

#endif
