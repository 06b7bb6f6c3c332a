/*
 * What a capture or a wait is handed, around the fake server: options
 * parsed from a command line as the program parses them, an output to
 * /dev/null, signal flags and the fake clock. For test_capture.c and
 * test_wait.c.
 */
#ifndef MYSQLMEMPROF_FAKE_CAPTURE_H
#define MYSQLMEMPROF_FAKE_CAPTURE_H

#include <stdarg.h>
#include <stdlib.h>

#include "fake_server.h"
#include "notes.h"

#include "capture.h"
#include "cli.h"
#include "exitcode.h"

static struct fake_server srv;
static struct session sess;
static struct options opts;
static struct outfile out;
static struct signal_flags sig;
static struct diag dg;
static struct capture_env env;
/* Where parse() sends the output; NULL: /dev/null. */
static const char *out_path;

/* Parses the options of a command line, NULL-terminated, into opts. */
static void
parse(const char *first, ...)
{
	static const char *const no_files[] = { NULL };
	struct cli_env ce = { .system_files = no_files };
	char *argv[32], warn[256], err[256];
	int argc = 0;
	va_list ap;

	argv[argc++] = strdup("mysqlmemprof");
	va_start(ap, first);
	for (const char *a = first; a != NULL; a = va_arg(ap, const char *))
		argv[argc++] = strdup(a);
	va_end(ap);
	argv[argc] = NULL;
	if (cli_parse(argc, argv, &ce, &opts, warn, sizeof(warn), err,
	    sizeof(err)) != CLI_OK)
		fail_msg("%s", err);
	for (int i = 0; i < argc; i++)
		free(argv[i]);
	static const struct output_settings settings;

	assert_int_equal(outfile_init(&out, out_path != NULL ? out_path :
	    "/dev/null", false, opts.format,
	    &settings, &sig.reopen), 0);
}

/* One capture of what parse() set up, its notes read into notes. */
static inline int
capture_once(void)
{
	int rc;

	notes_start();
	rc = capture_run(&env, NULL, 1, NULL);
	notes_read();
	return rc;
}

/* Ends what parse() began. */
static inline void
parse_free(void)
{
	assert_int_equal(outfile_close(&out), 0);
	outfile_free(&out);
	cli_free(&opts);
}

#endif
