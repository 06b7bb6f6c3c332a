/*
 * The top level: the only place that prints errors and chooses the exit
 * status. This file takes the run from the command line to a connection
 * and hands it to --list, the sampling (app_sample.c) or the waiting for a
 * statement (app_wait.c); app_output.c owns --output.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>

#include "app_internal.h"
#include "prompt.h"

volatile sig_atomic_t stop_requested;
volatile sig_atomic_t reopen_requested;
volatile sig_atomic_t dump_requested;

/*
 * Prints one line on stderr. Messages quote user input and server text,
 * so control characters, C0 and C1, are shown as '?': a message stays one
 * line and cannot move the terminal's cursor.
 */
static void
vsay(const char *fmt, va_list ap)
{
	char line[2048];

	vsnprintf(line, sizeof(line), fmt, ap);
	for (unsigned char *p = (unsigned char *)line; *p != '\0'; p++) {
		if (*p < 0x20 || *p == 0x7f)
			*p = '?';
		/* C1 controls (U+0080 to U+009F, as UTF-8: C2 80 to C2 9F). */
		else if (*p == 0xc2 && p[1] >= 0x80 && p[1] <= 0x9f)
			p[0] = '?', p[1] = '?';
	}
	fprintf(stderr, "mysqlmemprof: %s\n", line);
}

void
say(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsay(fmt, ap);
	va_end(ap);
}

void
note(const struct app *a, const char *fmt, ...)
{
	va_list ap;

	if (a->opts.quiet)
		return;
	va_start(ap, fmt);
	vsay(fmt, ap);
	va_end(ap);
}

static void
on_signal(int sig)
{
	if (sig == SIGHUP)
		reopen_requested = 1;
	else if (sig == SIGUSR1)
		dump_requested = 1;
	else
		stop_requested = 1;
}

static void
install_signals(void)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;
	sigemptyset(&sa.sa_mask);
	/*
	 * SA_RESTART lets a query in flight finish; the sleep between
	 * samples still wakes up at once, as clock_nanosleep is never
	 * restarted.
	 */
	sa.sa_flags = SA_RESTART;
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	/* SIGHUP reopens --output, for logrotate (see reopen_output()). */
	sigaction(SIGHUP, &sa, NULL);
	/* SIGUSR1 writes the samples --trigger-bytes holds (recorder.h). */
	sigaction(SIGUSR1, &sa, NULL);
	/* A closed pipe shows up as EPIPE from the next write. */
	signal(SIGPIPE, SIG_IGN);
}

static void
print_warnings(const char *warn)
{
	const char *p = warn;

	while (*p != '\0') {
		size_t n = strcspn(p, "\n");
		say("warning: %.*s", (int)n, p);
		p += n + (p[n] == '\n');
	}
}

/* After --help or --version: whether standard output took it. */
static int
stdout_written(void)
{
	if (fflush(stdout) == 0 && !ferror(stdout))
		return EXIT_DONE;
	if (errno == EPIPE)
		return EXIT_DONE; /* | head: the reader had enough */
	say("cannot write to standard output: %s", strerror(errno));
	return EXIT_RUNTIME;
}

static int
parse_options(struct app *a, int argc, char **argv)
{
	struct cli_env env = cli_env_system();
	char warn[2048], err[1024];
	enum cli_status st;

	st = cli_parse(argc, argv, &env, &a->opts, warn, sizeof(warn), err,
	    sizeof(err));
	print_warnings(warn);
	switch (st) {
	case CLI_HELP:
		cli_usage(stdout);
		return stdout_written();
	case CLI_VERSION:
		printf("mysqlmemprof %s\n", MYSQLMEMPROF_VERSION);
		return stdout_written();
	case CLI_USAGE:
		say("%s", err);
		return EXIT_USAGE;
	case CLI_OK:
		break;
	}
	if (a->opts.password_on_command_line && !a->opts.quiet)
		say("warning: using a password on the command line can be "
		    "insecure; prefer an option file or -p to be asked");
	return -1; /* go on */
}

/* Returns 0, -1 having said why, or 1 when Ctrl-C ended the prompt. */
static int
ask_password(struct app *a)
{
	char buf[512];

	if (!a->opts.password_prompt)
		return 0;
	if (prompt_password("Enter password: ", buf, sizeof(buf)) != 0) {
		if (errno == EINTR)
			return 1; /* Ctrl-C at the prompt: the person changed their mind */
		if (errno == ENXIO)
			say("cannot ask for the password: no terminal; give it in "
			    "an option file, MYSQL_PWD or --password=PASSWORD");
		else
			say("no password was typed; type it at the prompt, or "
			    "give it in an option file or MYSQL_PWD");
		return -1;
	}
	a->opts.password = strdup(buf);
	explicit_bzero(buf, sizeof(buf));
	if (a->opts.password == NULL) {
		say("out of memory");
		return -1;
	}
	return 0;
}

static int
connect_and_check(struct app *a)
{
	const struct options *o = &a->opts;
	char err[1024];
	size_t enabled;

	a->params = (struct conn_params){
		.host = o->host, .user = o->user, .password = o->password,
		.socket = o->socket, .port = o->port,
		.connect_timeout_s = o->connect_timeout_s,
		.read_timeout_s = o->read_timeout_s,
		.ssl_mode = o->ssl_mode, .ssl_ca = o->ssl_ca,
		.ssl_cert = o->ssl_cert, .ssl_key = o->ssl_key,
	};
	if (conn_open(&a->conn, &a->params, err, sizeof(err)) != CONN_OK) {
		say("%s", err);
		return -1;
	}
	if (pfs_preflight(a->conn, &enabled, &a->instruments, err,
	    sizeof(err)) != PFS_OK ||
	    pfs_own_thread(a->conn, &a->own_thread, err, sizeof(err)) != PFS_OK ||
	    pfs_server_boot(a->conn, &a->server_boot_s, err, sizeof(err)) !=
	    PFS_OK) {
		say("%s", err);
		return -1;
	}
	return 0;
}

static int
run_list(struct app *a)
{
	struct thread_list l;
	char err[1024];
	int rc = EXIT_DONE;

	if (pfs_list_threads(a->conn, &l, err, sizeof(err)) != PFS_OK) {
		say("%s", err);
		return EXIT_RUNTIME;
	}
	if (open_output(a) != 0)
		rc = EXIT_RUNTIME;
	else if (output_threads(&a->out, &l) != 0)
		rc = write_failed(a);
	thread_list_free(&l);
	return rc;
}

int
app_run(int argc, char **argv)
{
	struct app a = { 0 };
	int rc;

	install_signals();
	/*
	 * The default 50 us timer slack would show as lateness at short
	 * intervals; 1 us keeps wake-ups on the deadline.
	 */
	prctl(PR_SET_TIMERSLACK, 1000UL, 0, 0, 0);
	if ((rc = parse_options(&a, argc, argv)) >= 0)
		goto out;
	/* Caught before connecting when it does not depend on the server. */
	if (a.opts.target != TARGET_LIST && a.opts.top != 0 &&
	    ring_too_big(&a.opts, 0)) {
		rc = EXIT_USAGE;
		goto out;
	}
	if ((rc = ask_password(&a)) != 0) {
		rc = rc > 0 ? EXIT_DONE : EXIT_RUNTIME;
		goto out;
	}
	if (connect_and_check(&a) != 0) {
		rc = EXIT_RUNTIME;
		goto out;
	}
	if (a.opts.target == TARGET_LIST)
		rc = run_list(&a);
	else if (a.opts.target == TARGET_WAIT)
		rc = run_wait(&a);
	else
		rc = run_sampling(&a);
out:
	if (close_output(&a) != 0 && rc == EXIT_DONE)
		rc = EXIT_RUNTIME;
	conn_close(a.conn);
	free(a.output_pattern);
	cli_free(&a.opts);
	return rc;
}
