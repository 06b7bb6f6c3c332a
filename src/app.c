/*
 * The top level: the only place that prints errors and chooses the exit
 * status. Each step below returns a status; app_run() strings them.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "app.h"
#include "cli.h"
#include "conn.h"
#include "outname.h"
#include "output.h"
#include "pfs.h"
#include "prompt.h"
#include "reconnect.h"
#include "recorder.h"
#include "ring.h"
#include "sampler.h"
#include "summary.h"
#include "watch.h"

/* The ring may not take more than this: a typo should not eat the host. */
#define RING_LIMIT_BYTES ((size_t)1 << 30)

static volatile sig_atomic_t stop_requested;
static volatile sig_atomic_t reopen_requested;
static volatile sig_atomic_t dump_requested;

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

/*
 * Prints one line on stderr. Messages quote user input and server text,
 * so control characters are shown as '?': a message stays one line and
 * cannot move the terminal's cursor.
 */
static void
vsay(const char *fmt, va_list ap)
{
	char line[2048];

	vsnprintf(line, sizeof(line), fmt, ap);
	for (char *p = line; *p != '\0'; p++)
		if ((unsigned char)*p < 0x20 || *p == 0x7f)
			*p = '?';
	fprintf(stderr, "mysqlmemprof: %s\n", line);
}

static void
say(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsay(fmt, ap);
	va_end(ap);
}

static void
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

/*
 * Overwrites a password given on the command line so that ps(1) and
 * /proc/PID/cmdline do not show it, as the MySQL clients do.
 */
static void
scrub_password(int argc, char **argv)
{
	for (int i = 1; i < argc; i++) {
		char *v = NULL;

		if (strcmp(argv[i], "--") == 0)
			break;
		if (strncmp(argv[i], "--password=", 11) == 0)
			v = argv[i] + 11;
		else if (strncmp(argv[i], "-p", 2) == 0 && argv[i][1] == 'p')
			v = argv[i] + 2;
		if (v != NULL)
			memset(v, 'x', strlen(v));
	}
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

static int
parse_options(struct app *a, int argc, char **argv)
{
	struct cli_env env = cli_env_system();
	char warn[2048], err[1024];
	enum cli_status st;

	st = cli_parse(argc, argv, &env, &a->opts, warn, sizeof(warn), err,
	    sizeof(err));
	scrub_password(argc, argv);
	print_warnings(warn);
	switch (st) {
	case CLI_HELP:
		cli_usage(stdout);
		return EXIT_DONE;
	case CLI_VERSION:
		printf("mysqlmemprof %s\n", MYSQLMEMPROF_VERSION);
		return EXIT_DONE;
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

static int
ask_password(struct app *a)
{
	char buf[512];

	if (!a->opts.password_prompt)
		return 0;
	if (prompt_password("Enter password: ", buf, sizeof(buf)) != 0) {
		say("cannot ask for the password: no terminal; give it in an "
		    "option file, MYSQL_PWD or --password=PASSWORD");
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

/*
 * Opens --output. It refuses a symbolic link (O_NOFOLLOW), so a link
 * planted in a shared directory cannot make it overwrite another file, and
 * anything but a regular file, a FIFO or a character device such as
 * /dev/null. A first open truncates; a reopen on SIGHUP appends.
 */
static FILE *
open_output_file(const char *path, int truncate, char *err, size_t errlen)
{
	int flags = O_WRONLY | O_CREAT | O_CLOEXEC | O_NOFOLLOW |
	    (truncate ? 0 : O_APPEND);
	struct stat st;
	FILE *fp;
	int fd;

	/* Check the kind first: opening a FIFO for writing could block. */
	if (lstat(path, &st) == 0 && !S_ISREG(st.st_mode) &&
	    !S_ISFIFO(st.st_mode) && !S_ISCHR(st.st_mode)) {
		snprintf(err, errlen, "--output %s is %s; give the path of a "
		    "regular file", path, S_ISLNK(st.st_mode) ?
		    "a symbolic link" : S_ISDIR(st.st_mode) ? "a directory" :
		    "not a regular file");
		return NULL;
	}
	if ((fd = open(path, flags, 0644)) < 0) {
		snprintf(err, errlen, "cannot open --output %s: %s; check the "
		    "path and its permissions", path, strerror(errno));
		return NULL;
	}
	/* Truncate only regular files: ftruncate fails on /dev/null. */
	if (truncate && fstat(fd, &st) == 0 && S_ISREG(st.st_mode))
		(void)!ftruncate(fd, 0);
	if ((fp = fdopen(fd, "w")) == NULL) {
		snprintf(err, errlen, "cannot open --output %s: %s", path,
		    strerror(errno));
		close(fd);
	}
	return fp;
}

/*
 * Opens --output only now that sampling can start, so a failed start
 * leaves an existing file as it was.
 */
static int
open_output(struct app *a)
{
	char err[1024];

	/* --repeat without a pattern: the captures go on in one output. */
	if (a->out.fp != NULL)
		return 0;
	a->out.fmt = a->opts.format;
	a->out.exact_bytes = a->opts.exact_bytes;
	if (a->opts.output == NULL) {
		a->out.fp = stdout;
		return 0;
	}
	if ((a->out.fp = open_output_file(a->opts.output, 1, err,
	    sizeof(err))) == NULL) {
		say("%s", err);
		return -1;
	}
	return 0;
}

/*
 * After logrotate moved the file away, SIGHUP makes a new one; a new or
 * emptied file gets the format's header again. Returns -1 with errno set.
 */
static int
reopen_output(struct app *a)
{
	char err[1024];
	FILE *fp;
	long size;

	reopen_requested = 0;
	if (a->opts.output == NULL)
		return 0;
	if ((fp = open_output_file(a->opts.output, 0, err, sizeof(err))) ==
	    NULL) {
		/* Keep writing where we were; the old file is still open. */
		say("%s; still writing to the old file", err);
		return 0;
	}
	if (fclose(a->out.fp) != 0 && errno != EPIPE)
		say("closing the old --output: %s", strerror(errno));
	a->out.fp = fp;
	fseek(fp, 0, SEEK_END);
	size = ftell(fp);
	return size <= 0 ? output_begin(&a->out) : 0;
}

/* Closes the output; returns -1 (reported) when buffered data could not be written. */
static int
close_output(struct app *a)
{
	FILE *fp = a->out.fp;
	int failed;

	if (fp == NULL)
		return 0;
	a->out.fp = NULL;
	failed = ferror(fp) != 0;
	failed |= (fp == stdout ? fflush(fp) : fclose(fp)) != 0;
	if (failed && a->write_failed)
		return 0; /* reported, and its exit status chosen, already */
	if (failed && errno != EPIPE) {
		say("cannot write to %s: %s", a->opts.output != NULL ?
		    a->opts.output : "standard output", strerror(errno));
		return -1;
	}
	return 0;
}

static int
write_failed(struct app *a)
{
	a->write_failed = true;
	/* A reader that went away (| head) is an end, not an error. */
	if (errno == EPIPE)
		return EXIT_DONE;
	say("cannot write to %s: %s; check the disk and the path",
	    a->opts.output != NULL ? a->opts.output : "standard output",
	    strerror(errno));
	return EXIT_RUNTIME;
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

/* Finds the thread to sample; returns 0 or an exit status. */
static int
resolve_target(struct app *a, uint64_t *thread_id, uint64_t *connection_id)
{
	const struct options *o = &a->opts;
	char err[1024];
	enum pfs_status st;

	/* run_wait() found it, and left out our own thread. */
	if (a->follow != NULL) {
		*thread_id = a->follow->stmt.thread_id;
		*connection_id = a->follow->stmt.connection_id;
		return 0;
	}
	if (o->target == TARGET_CONNECTION) {
		*connection_id = o->target_id;
		st = pfs_thread_of_connection(a->conn, o->target_id, thread_id,
		    err, sizeof(err));
	} else {
		*thread_id = o->target_id;
		st = pfs_check_thread(a->conn, o->target_id, connection_id,
		    err, sizeof(err));
	}
	if (st != PFS_OK) {
		say("%s", err);
		return EXIT_RUNTIME;
	}
	if (*thread_id == a->own_thread) {
		say("thread %" PRIu64 " is mysqlmemprof's own connection; give "
		    "the thread of another session (see --list)", *thread_id);
		return EXIT_USAGE;
	}
	return 0;
}

/*
 * Says so when the ring for --window and --top would pass RING_LIMIT_BYTES;
 * `all` is the number of memory instruments, 0 while it is not known.
 */
static bool
ring_too_big(const struct options *o, size_t all)
{
	size_t events = sampler_max_events(o->top, all);
	size_t per_sample = RING_LIMIT_BYTES / o->window;

	if (per_sample >= sizeof(struct sample) && events <= (per_sample -
	    sizeof(struct sample)) / sizeof(struct event_stat))
		return false;
	say("--window %zu with %zu events per sample needs more than %zu MiB; "
	    "lower --window or --top", o->window, events, RING_LIMIT_BYTES >> 20);
	return true;
}

static struct ring *
make_ring(struct app *a)
{
	const struct options *o = &a->opts;
	size_t events = sampler_max_events(o->top, a->instruments);
	struct ring *r;

	if ((r = ring_create(o->window, events > 0 ? events : 1)) == NULL)
		say("out of memory for a window of %zu samples", o->window);
	return r;
}

/* Copies text for one line of text output: control characters become spaces. */
static void
one_line(char *dst, size_t size, const char *text, size_t max)
{
	size_t n = 0;

	for (; text[n] != '\0' && n < max && n + 1 < size; n++)
		dst[n] = (unsigned char)text[n] < 0x20 ? ' ' : text[n];
	dst[n] = '\0';
}

/*
 * Writes the format's header once per output. Before each capture of
 * --wait-for, text gets a heading that says which statement follows; CSV
 * and JSON rows tell captures apart by thread_id and sample.
 */
static int
begin_capture(struct app *a)
{
	const struct stmt_match *m;
	char when[32], text[128];
	time_t now;
	struct tm tm;

	if (a->out_captures++ == 0 && output_begin(&a->out) != 0)
		return -1;
	if (a->follow == NULL || strcmp(a->out.fmt->name, "text") != 0)
		return 0;
	m = &a->follow->stmt;
	now = time(NULL);
	localtime_r(&now, &tm);
	strftime(when, sizeof(when), "%Y-%m-%d %H:%M:%S", &tm);
	one_line(text, sizeof(text), m->text, 60);
	fprintf(a->out.fp, "## Capture %" PRIu64 " at %s: connection %" PRIu64
	    ", thread %" PRIu64 ", running %" PRId64 " s: %s%s ##\n",
	    a->capture_no, when, m->connection_id, m->thread_id, m->time_s,
	    text, strlen(m->text) > 60 ? "..." : "");
	return fflush(a->out.fp) != 0 || ferror(a->out.fp) ? -1 : 0;
}

/* Says why a capture of --wait-for ended. */
static void
note_capture_end(const struct app *a, const struct sampler_stats *stats)
{
	const char *why;

	switch (stats->end) {
	case SAMPLER_END_GONE:
		why = a->follow->end == FOLLOW_FINISHED ?
		    "the statement finished" : "the connection closed";
		break;
	case SAMPLER_END_COUNT:
		why = "--count reached";
		break;
	case SAMPLER_END_DURATION:
		why = "--duration reached";
		break;
	case SAMPLER_END_STOPPED:
		why = "interrupted";
		break;
	default:
		return; /* an error, said already */
	}
	note(a, "capture %" PRIu64 " ended (%s): connection %" PRIu64 ", %"
	    PRIu64 " samples", a->capture_no, why,
	    a->follow->stmt.connection_id, stats->taken);
}

/* SIGUSR1: writes the samples held, at once. */
static int
answer_dump(void *ctx)
{
	struct app *a = ctx;
	size_t n;

	if (!dump_requested)
		return 0;
	dump_requested = 0;
	if (recorder_dump(&a->rec, &n) != 0)
		return -1;
	if (a->opts.trigger_bytes > 0)
		note(a, "SIGUSR1: %zu held sample%s written", n, n == 1 ? "" :
		    "s");
	return 0;
}

static int
sink_sample(void *ctx, const struct sample *s)
{
	struct app *a = ctx;

	if (reopen_requested && reopen_output(a) != 0)
		return -1;
	if (recorder_sample(&a->rec, s) != 0)
		return -1;
	return answer_dump(a);
}

/* Says once when samples will have no statement ids, and how to fix it. */
static void
check_statements(struct app *a)
{
	char msg[1024];

	if (a->statements_checked)
		return;
	a->statements_checked = true;
	switch (pfs_check_statements(a->conn, msg, sizeof(msg))) {
	case PFS_OK:
		return;
	case PFS_DISABLED:
		a->statements_off = true;
		break;
	default:
		break; /* a failed check: the reader will say what is wrong */
	}
	note(a, "%s", msg);
}

/* With --trigger-bytes, what is held and how to have it written. */
static void
note_trigger(const struct app *a, const struct sampler_stats *stats)
{
	const struct options *o = &a->opts;

	if (o->trigger_bytes == 0)
		return;
	if (stats == NULL)
		note(a, "writing nothing until the thread total reaches "
		    "%" PRIu64 " bytes (--trigger-bytes), then the %zu samples "
		    "before it; kill -USR1 %ld writes the samples held",
		    o->trigger_bytes, o->window, (long)getpid());
	else if (a->rec.crossings == 0)
		note(a, "the thread total never reached --trigger-bytes "
		    "%" PRIu64 " in %" PRIu64 " samples; %" PRIu64 " written on "
		    "SIGUSR1", o->trigger_bytes, stats->taken, a->rec.written);
}

static void
note_reconnect(void *ctx, const char *msg)
{
	note(ctx, "%s", msg);
}

/* The grain of --global and --for-*; false for a thread. */
static bool
target_grain(const struct options *o, enum pfs_grain *g)
{
	switch (o->target) {
	case TARGET_GLOBAL: *g = GRAIN_GLOBAL; return true;
	case TARGET_USER: *g = GRAIN_USER; return true;
	case TARGET_HOST: *g = GRAIN_HOST; return true;
	case TARGET_ACCOUNT: *g = GRAIN_ACCOUNT; return true;
	default: return false;
	}
}

/*
 * Checks that the grain has rows and names it for the output ("global",
 * "user:app", "host:localhost", "account:app@localhost").
 */
static int
check_grain(struct app *a, enum pfs_grain g)
{
	const struct options *o = &a->opts;
	char err[1024];

	if (pfs_check_grain(a->conn, g, o->grain_user, o->grain_host, err,
	    sizeof(err)) != PFS_OK) {
		say("%s", err);
		return EXIT_RUNTIME;
	}
	if (g == GRAIN_GLOBAL)
		snprintf(a->grain, sizeof(a->grain), "global");
	else if (g == GRAIN_USER)
		snprintf(a->grain, sizeof(a->grain), "user:%s", o->grain_user);
	else if (g == GRAIN_HOST)
		snprintf(a->grain, sizeof(a->grain), "host:%s", o->grain_host);
	else
		snprintf(a->grain, sizeof(a->grain), "account:%s@%s",
		    o->grain_user, o->grain_host);
	a->out.grain = a->grain;
	return 0;
}

static int
run_sampling(struct app *a)
{
	const struct options *o = &a->opts;
	struct sampler_config cfg = {
		.interval_ns = o->frequency_ms * 1000000u,
		.count = o->count,
		.duration_ns = o->duration_s * 1000000000u,
		.top = o->top,
	};
	struct pfs_reader *reader = NULL;
	struct reconnect recon;
	struct sampler_stats stats;
	struct summary sum;
	struct ring *ring;
	struct clock clk = clock_system();
	struct source src;
	uint64_t connection_id = 0;
	char err[1024] = "";
	int rc;

	enum pfs_grain grain;
	bool is_grain = target_grain(o, &grain);

	if (is_grain)
		rc = check_grain(a, grain);
	else
		rc = resolve_target(a, &cfg.thread_id, &connection_id);
	if (rc != 0)
		return rc;
	a->filter = (struct event_filter){
		.include = o->include_events, .n_include = o->n_include_events,
		.exclude = o->exclude_events, .n_exclude = o->n_exclude_events,
	};
	cfg.filter = &a->filter;
	a->out.filtered = filter_active(&a->filter);
	if (ring_too_big(o, a->instruments))
		return EXIT_USAGE;
	if ((ring = make_ring(a)) == NULL)
		return EXIT_RUNTIME;
	if (!is_grain)
		check_statements(a);
	recorder_init(&a->rec, &a->out, ring, (int64_t)o->trigger_bytes,
	    o->trigger_hold_s * 1000000u);
	cfg.wake = answer_dump;
	dump_requested = 0;
	reader = is_grain ? pfs_reader_create_grain(a->conn, grain,
	    o->grain_user, o->grain_host) :
	    pfs_reader_create(a->conn, cfg.thread_id);
	if (reader == NULL) {
		say("out of memory");
		ring_free(ring);
		return EXIT_RUNTIME;
	}
	if (a->statements_off)
		pfs_reader_without_statements(reader);
	recon = (struct reconnect){
		.conn = &a->conn, .params = &a->params, .reader = reader,
		.thread_id = cfg.thread_id,
		.timeout_ns = o->reconnect_timeout_s * 1000000000u,
		.server_boot_s = a->server_boot_s, .clk = &clk,
		.stop = &stop_requested, .notify = note_reconnect,
		.notify_ctx = a,
	};
	src = reconnect_source(&recon);
	if (a->follow != NULL) {
		a->follow->inner = src;
		a->follow->conn = &a->conn;
		a->follow->clk = &clk;
		src = follow_source(a->follow);
	}
	if (open_output(a) != 0) {
		rc = EXIT_RUNTIME;
		goto done;
	}
	char what[700];
	if (is_grain)
		snprintf(what, sizeof(what), "%s", a->grain);
	else if (connection_id != 0)
		snprintf(what, sizeof(what), "thread %" PRIu64 " (connection "
		    "%" PRIu64 ")", cfg.thread_id, connection_id);
	else
		snprintf(what, sizeof(what), "thread %" PRIu64 " (a background "
		    "thread)", cfg.thread_id);
	const char *cipher = conn_cipher(a->conn);
	note(a, "sampling %s every %" PRIu64 " ms on %s%s%s; our own thread "
	    "is %" PRIu64, what, o->frequency_ms, conn_server_version(a->conn),
	    cipher != NULL ? " over TLS " : "", cipher != NULL ? cipher : "",
	    a->own_thread);
	if (begin_capture(a) != 0) {
		rc = write_failed(a);
		goto done;
	}

	note_trigger(a, NULL);
	sampler_run(&cfg, &src, &clk, ring, sink_sample, a, &stop_requested,
	    &stats, err, sizeof(err));
	note_trigger(a, &stats);

	rc = EXIT_DONE;
	switch (stats.end) {
	case SAMPLER_END_SINK_ERROR:
		rc = write_failed(a);
		goto done;
	case SAMPLER_END_SOURCE_ERROR:
		say("%s; the %" PRIu64 " samples taken are written", err,
		    stats.taken);
		rc = EXIT_RUNTIME;
		break;
	case SAMPLER_END_GONE:
		if (a->follow == NULL)
			note(a, "thread %" PRIu64 " ended after %" PRIu64
			    " samples", cfg.thread_id, stats.taken);
		break;
	default:
		break;
	}
	if (a->follow != NULL)
		note_capture_end(a, &stats);
	if (stats.skipped > 0)
		note(a, "%" PRIu64 " ticks skipped: samples took longer than "
		    "--frequency %" PRIu64 " ms", stats.skipped, o->frequency_ms);
	if (summary_build(ring, stats.skipped, &sum) != 0) {
		say("out of memory building the summary");
		rc = EXIT_RUNTIME;
		goto done;
	}
	sum.thread_id = cfg.thread_id;
	if (output_end(&a->out, &sum) != 0 && rc == EXIT_DONE)
		rc = write_failed(a);
	summary_free(&sum);
done:
	pfs_reader_free(reader);
	ring_free(ring);
	return rc;
}

/* "statement like 'X' running at least 5 s of user 'U' in database 'D'". */
static void
describe_wait(const struct options *o, char *buf, size_t size)
{
	size_t len;

	snprintf(buf, size, "statement");
	if (o->wait_pattern != NULL) {
		len = strlen(buf);
		snprintf(buf + len, size - len, " like '%s'", o->wait_pattern);
	}
	if (o->longer_than_s > 0) {
		len = strlen(buf);
		snprintf(buf + len, size - len, " running at least %" PRIu64
		    " s", o->longer_than_s);
	}
	if (o->match_user != NULL) {
		len = strlen(buf);
		snprintf(buf + len, size - len, " of user '%s'", o->match_user);
	}
	if (o->match_db != NULL) {
		len = strlen(buf);
		snprintf(buf + len, size - len, " in database '%s'", o->match_db);
	}
}

/*
 * Points opts.output at the file of a capture, from the --output pattern
 * and the local time. An existing file is never overwritten: an earlier
 * capture may have had the same name, so a number is added instead.
 */
static int
name_capture(struct app *a, const struct stmt_match *m)
{
	char name[4096], alt[4096];
	const char *path = name;
	struct stat st;
	time_t now = time(NULL);
	struct tm tm;
	char *copy;

	localtime_r(&now, &tm);
	if (outname_expand(a->output_pattern, m->connection_id, m->thread_id,
	    &tm, name, sizeof(name)) != 0) {
		say("--output '%s' gives an empty or too long file name; "
		    "change the pattern", a->output_pattern);
		return -1;
	}
	for (unsigned n = 2; lstat(path, &st) == 0; n++) {
		if (n > 1000 || outname_numbered(name, n, alt, sizeof(alt)) != 0) {
			say("--output %s exists, and so do the numbered names "
			    "after it; move them away", name);
			return -1;
		}
		path = alt;
	}
	if ((copy = strdup(path)) == NULL) {
		say("out of memory");
		return -1;
	}
	free(a->opts.output);
	a->opts.output = copy;
	return 0;
}

/*
 * --wait-for, --longer-than: waits for a matching statement, captures its
 * thread until the statement ends, and with --repeat waits again. Exit
 * status 3 when --wait-timeout passed before anything was captured.
 */
static int
run_wait(struct app *a)
{
	const struct options *o = &a->opts;
	struct clock clk = clock_system();
	struct watch w = {
		.conn = &a->conn,
		.filter = { .pattern = o->wait_pattern, .user = o->match_user,
		    .db = o->match_db, .min_time_s = (int64_t)o->longer_than_s },
		.own_thread = a->own_thread,
		.poll_ns = o->poll_ms * 1000000u,
		.timeout_ns = o->wait_timeout_s * 1000000000u,
		.clk = &clk, .stop = &stop_requested,
		.notify = note_reconnect, .notify_ctx = a,
	};
	struct follow f;
	struct stmt_match m;
	char what[1024], err[1024];
	int rc = EXIT_DONE;

	/* The pattern is kept; opts.output becomes each capture's file. */
	if (o->output != NULL && outname_is_pattern(o->output)) {
		a->output_pattern = a->opts.output;
		a->opts.output = NULL;
	}
	describe_wait(o, what, sizeof(what));
	for (;;) {
		note(a, "waiting for a %s, looking every %" PRIu64 " ms; our own "
		    "thread is %" PRIu64, what, o->poll_ms, a->own_thread);
		switch (watch_wait(&w, &m, err, sizeof(err))) {
		case WATCH_FOUND:
			break;
		case WATCH_STOPPED:
			return EXIT_DONE;
		case WATCH_TIMEOUT:
			if (a->capture_no == 0) {
				say("no %s within --wait-timeout %" PRIu64 " s",
				    what, o->wait_timeout_s);
				return EXIT_NO_MATCH;
			}
			note(a, "no other %s within --wait-timeout %" PRIu64
			    " s; %" PRIu64 " captures", what,
			    o->wait_timeout_s, a->capture_no);
			return EXIT_DONE;
		case WATCH_ERROR:
			say("%s", err);
			return EXIT_RUNTIME;
		}
		note(a, "found connection %" PRIu64 " (thread %" PRIu64 ", user "
		    "%s) running for %" PRId64 " s: %.100s", m.connection_id,
		    m.thread_id, m.user, m.time_s, m.text);
		if (a->output_pattern != NULL && name_capture(a, &m) != 0)
			return EXIT_RUNTIME;
		f = (struct follow){ .stmt = m, .poll_ns = w.poll_ns };
		a->follow = &f;
		a->capture_no++;
		rc = run_sampling(a);
		a->follow = NULL;
		/* Still running (--count, --duration): not to be taken again. */
		if (f.end == FOLLOW_RUNNING)
			watch_captured(&w, &m);
		if (a->output_pattern != NULL) {
			if (close_output(a) != 0 && rc == EXIT_DONE)
				rc = EXIT_RUNTIME;
			a->out_captures = 0;
		}
		if (rc != EXIT_DONE || a->write_failed || stop_requested ||
		    !o->repeat)
			return rc;
		note(a, "%" PRIu64 " capture%s so far", a->capture_no,
		    a->capture_no == 1 ? "" : "s");
	}
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
	if (ask_password(&a) != 0 || connect_and_check(&a) != 0) {
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
