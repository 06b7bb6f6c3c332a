/*
 * What the files of the top level (app.c, app_output.c, app_sample.c,
 * app_wait.c) share, and only they: the state of a run, the flags the
 * signal handlers set, and the steps one file calls in another.
 */
#ifndef MYSQLMEMPROF_APP_INTERNAL_H
#define MYSQLMEMPROF_APP_INTERNAL_H

#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "app.h"
#include "cli.h"
#include "conn.h"
#include "filter.h"
#include "output.h"
#include "recorder.h"
#include "watch.h"

/* The ring may not take more than this: a typo should not eat the host. */
#define RING_LIMIT_BYTES ((size_t)1 << 30)

/* Set by the signal handlers of app.c: SIGINT/SIGTERM, SIGHUP, SIGUSR1. */
extern volatile sig_atomic_t stop_requested;
extern volatile sig_atomic_t reopen_requested;
extern volatile sig_atomic_t dump_requested;

struct app {
	struct options opts;
	struct conn_params params;
	struct conn *conn;
	struct output out;
	uint64_t own_thread;
	int64_t server_boot_s;
	size_t instruments; /* memory instruments the server knows */
	bool write_failed;  /* reported once: closing must not say it again */
	char grain[600];    /* "user:app" and such, for --global and --for-* */
	struct event_filter filter; /* --events, --exclude */
	struct recorder rec; /* --trigger-bytes; every sample goes through it */
	bool statements_checked; /* the consumer's note is given once */
	bool statements_off;     /* events_statements_current is disabled */
	/* --wait-for, --longer-than: see run_wait(). */
	struct follow *follow;   /* the statement captured now, or NULL */
	uint64_t capture_no;     /* its number: 1, 2, ... */
	char *output_pattern;    /* --output when a pattern; opts.output is then the capture's file */
	uint64_t out_captures;   /* captures begun in the open output */
};

/* One line on stderr, control characters shown as '?'. */
void say(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* The same, unless --quiet. */
void note(const struct app *a, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

/* app_output.c: each returns 0, or -1 having said why (write_failed: the exit status). */
int open_output(struct app *a);
int reopen_output(struct app *a);
int close_output(struct app *a);
int write_failed(struct app *a);

/* app_sample.c */
bool ring_too_big(const struct options *o, size_t all);
/* A notify callback (struct reconnect, struct watch): a note on stderr. */
void note_cb(void *app, const char *msg);
int run_sampling(struct app *a);

/* app_wait.c */
int run_wait(struct app *a);

#endif
