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

/*
 * The server a test of a chain's source starts from: thread 42 of
 * connection 9, a reading of 1,000 bytes, everything switched on; the
 * session on it, the flags cleared, env with what every such test gives.
 * A test changes what it needs after.
 */
static inline void
fake_capture_setup(void)
{
	srv = (struct fake_server){ .boot_s = 1700000000, .next_own = 7,
	    .target = 42, .target_connection = 9, .global_bytes = 1 << 30,
	    .setup = { .memory_enabled = 100, .statements = true,
	    .instrumented = 1 },
	    .reader_bytes = { 1000 }, .n_reader_bytes = 1 };
	fake_session(&srv, &sess);
	sess.instruments = 100;
	sig = (struct signal_flags){ 0 };
	dg = (struct diag){ 0 };
	opts = (struct options){ 0 };
	env = (struct capture_env){ .opts = &opts, .session = &sess,
	    .out = &out, .diag = &dg, .sig = &sig, .clk = &fake_clock };
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
