/*
 * The top level: it owns the options, the session and the output, picks
 * the mode from its table (modes[] below) and makes ready what the row
 * says it needs, and chooses the exit status. It hands the modules below
 * what they need (the signal flags, a way to say notes) and is never
 * called back.
 */
#include <errno.h>
#include <stdbool.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <unistd.h>

#include "app.h"
#include "capture.h"
#include "cli.h"
#include "diag.h"
#include "exitcode.h"
#include "explain.h"
#include "heap.h"
#include "exporter.h"
#include "live.h"
#include "outfile.h"
#include "outname.h"
#include "pfs.h"
#include "prompt.h"
#include "record.h"
#include "replay.h"
#include "session.h"
#include "signals.h"
#include "top.h"
#include "hunt.h"

static void
print_warnings(const char *warn)
{
	const char *p = warn;

	while (*p != '\0') {
		size_t n = strcspn(p, "\n");
		diag_say("warning: %.*s", (int)n, p);
		p += n + (p[n] == '\n');
	}
}

/*
 * Whether standard output was closed at the start. Its number then holds
 * /dev/null (open_standard_fds()), which takes every write: what is meant
 * for standard output is refused instead, as coreutils' "write error".
 */
static bool stdout_closed;

/*
 * Started with standard input, output or error closed (">&-", a careless
 * daemon), the next file opened would take its number: the server socket
 * would become fd 1 and samples would be written into it. Each closed one
 * is opened on /dev/null first; open() takes the lowest free number, so
 * going up from 0 fills each in turn. Returns 0, or -1 when one cannot be.
 */
static int
open_standard_fds(void)
{
	for (int fd = 0; fd <= 2; fd++) {
		if (fcntl(fd, F_GETFD) != -1 || errno != EBADF)
			continue;
		if (open("/dev/null", fd == 0 ? O_RDONLY : O_WRONLY) != fd)
			return -1;
		if (fd == STDOUT_FILENO)
			stdout_closed = true;
	}
	return 0;
}

/* After --help or --version: whether standard output took it. */
static int
stdout_written(void)
{
	if (stdout_closed) {
		diag_say("cannot write to standard output: it is closed");
		return EXIT_RUNTIME;
	}
	if (fflush(stdout) == 0 && !ferror(stdout))
		return EXIT_DONE;
	if (errno == EPIPE)
		return EXIT_DONE; /* | head: the reader had enough */
	diag_say("cannot write to standard output: %s", strerror(errno));
	return EXIT_RUNTIME;
}

/* Returns an exit status when the run ends here, or -1 to go on. */
static int
parse_options(struct options *o, int argc, char **argv)
{
	struct cli_env env = cli_env_system();
	char warn[2048], err[1024];
	enum cli_status st;

	st = cli_parse(argc, argv, &env, o, warn, sizeof(warn), err,
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
		diag_say("%s", err);
		return EXIT_USAGE;
	case CLI_OK:
		break;
	}
	return -1;
}

/* Returns 0, -1 having said why, or 1 when Ctrl-C ended the prompt. */
static int
ask_password(struct options *o)
{
	char buf[512];

	if (!o->password_prompt)
		return 0;
	if (prompt_password("Enter password: ", buf, sizeof(buf)) != 0) {
		if (errno == EINTR)
			return 1; /* Ctrl-C at the prompt: the person changed their mind */
		if (errno == ENXIO)
			diag_say("cannot ask for the password: no terminal; give "
			    "it in an option file, MYSQL_PWD or "
			    "--password=PASSWORD");
		else
			diag_say("no password was typed; type it at the prompt, "
			    "or give it in an option file or MYSQL_PWD");
		return -1;
	}
	o->password = strdup(buf);
	explicit_bzero(buf, sizeof(buf));
	if (o->password == NULL) {
		diag_say("out of memory");
		return -1;
	}
	return 0;
}

/* What the session connects with, from the options. */
static void
session_setup(struct session *s, const struct options *o,
    struct signal_flags *sig)
{
	*s = (struct session){
		.ops = &session_server,
		.params = {
			.host = o->host, .user = o->user,
			.password = o->password, .socket = o->socket,
			.port = o->port,
			.connect_timeout_s = o->connect_timeout_s,
			.read_timeout_s = o->read_timeout_s,
			.ssl_mode = o->ssl_mode, .ssl_ca = o->ssl_ca,
			.ssl_cert = o->ssl_cert, .ssl_key = o->ssl_key,
			.ssl_crl = o->ssl_crl, .ssl_crlpath = o->ssl_crlpath,
			.tls_version = o->tls_version, .protocol = o->protocol,
			.server_public_key_path = o->server_public_key_path,
			.get_server_public_key = o->get_server_public_key,
			.enable_cleartext_plugin = o->enable_cleartext_plugin,
			.stop = &sig->stop,
		},
	};
	s->params.pin = &s->pin;
}

/* Returns 0, -1 having said why, or 1 when a signal ended the connect. */
static int
connect_session(struct session *s, const struct signal_flags *sig)
{
	char err[1024];

	if (session_open(s, err, sizeof(err)) != 0) {
		if (sig->stop)
			return 1; /* nothing sampled: as Ctrl-C at the prompt */
		diag_say("%s", err);
		return -1;
	}
	return 0;
}

/* --list: the server's threads, largest memory first. */
static int
run_list(const struct capture_env *env)
{
	struct session *s = env->session;
	struct outfile *f = env->out;
	const struct signal_flags *sig = env->sig;
	struct thread_list l;
	char err[1024];
	int rc = EXIT_DONE;

	if (s->ops->list_threads(s->conn, &s->kind, &l, err, sizeof(err)) !=
	    PFS_OK) {
		if (sig->stop)
			return EXIT_DONE; /* stopped before the list came: no list */
		diag_say("%s", err);
		return EXIT_RUNTIME;
	}
	if (outfile_open(f) != 0)
		rc = EXIT_RUNTIME;
	else if (output_threads(&f->out, &l) != 0)
		rc = outfile_failed(f);
	thread_list_free(&l);
	return rc;
}

/* One capture of the target of the options. */
static int
run_capture(const struct capture_env *env)
{
	return capture_run(env, NULL, 0, NULL);
}

/* --read: a capture replayed; it opens the file and its output itself. */
static int
run_read(const struct capture_env *env)
{
	return replay_run(env);
}

/* The tests that choose a mode, one a row of modes[]. */
static bool
is_read(const struct options *o)
{
	return o->target == TARGET_READ;
}

static bool
is_listen(const struct options *o)
{
	return o->listen_port != 0;
}

static bool
is_record(const struct options *o)
{
	return o->record_dir != NULL;
}

static bool
is_explain(const struct options *o)
{
	return o->explain;
}

static bool
is_heap(const struct options *o)
{
	return o->heap;
}

static bool
is_heap_file(const struct options *o)
{
	return o->heap_file != NULL;
}

static bool
is_top(const struct options *o)
{
	return o->live && o->target == TARGET_LIST;
}

static bool
is_list(const struct options *o)
{
	return o->target == TARGET_LIST;
}

static bool
is_hunt(const struct options *o)
{
	return o->target == TARGET_WAIT;
}

static bool
is_capture(const struct options *o)
{
	(void)o;
	return true; /* a thread, a connection or a grain */
}

/* What a mode needs made ready before it runs, in the order app_run() does. */
enum mode_needs {
	MODE_TERMINAL = 1 << 0, /* a terminal to draw on (--live) */
	MODE_RING     = 1 << 1, /* keeps --window samples: the ring checked */
	MODE_SESSION  = 1 << 2, /* the password asked, the session set up */
	MODE_CONNECT  = 1 << 3, /* and connected; without, the mode connects */
	MODE_OUTPUT   = 1 << 4, /* the output file: --output, stdout, nowhere */
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

#define SERVER (MODE_SESSION | MODE_CONNECT)

/*
 * The modes, one row each, as git's commands[]: its name, the test of the
 * options that chooses it (the first row whose test passes runs), what it
 * needs, and its run function. The live view and the exporter's HTTP
 * server are observers of captures (struct capture_observer), not rows
 * that choose again.
 */
static const struct mode {
	const char *name;  /* as the manual and the ARCHITECTURE call it */
	bool (*chosen)(const struct options *o);
	unsigned needs;    /* enum mode_needs */
	int (*run)(const struct capture_env *env); /* the exit status */
} modes[] = {
	{ "read",    is_read,    MODE_RING | MODE_DRAWN,             run_read },
	{ "listen",  is_listen,  MODE_RING | MODE_SESSION | MODE_OUTPUT |
	    MODE_NAMED_OUTPUT, exporter_run },
	{ "record",  is_record,  MODE_RING | MODE_SESSION | MODE_OUTPUT |
	    MODE_NAMED_OUTPUT, record_run },
	{ "explain", is_explain, MODE_RING | SERVER | MODE_OUTPUT |
	    MODE_ANY_INSTRUMENTS, explain_run },
	/* The server's pid is all it asks: any instruments will do. */
	{ "heap",    is_heap,    SERVER | MODE_OUTPUT | MODE_ANY_INSTRUMENTS,
	    heap_run },
	{ "heap-file", is_heap_file, MODE_OUTPUT, heap_run },
	{ "top",     is_top,     MODE_TERMINAL | SERVER | MODE_OUTPUT |
	    MODE_NAMED_OUTPUT | MODE_THREADS, top_run },
	{ "list",    is_list,    SERVER | MODE_OUTPUT | MODE_THREADS, run_list },
	{ "hunt",    is_hunt,    MODE_RING | SERVER | MODE_OUTPUT | MODE_DRAWN |
	    MODE_FILE_EACH, hunt_run },
	{ "capture", is_capture, MODE_RING | SERVER | MODE_OUTPUT | MODE_DRAWN,
	    run_capture },
};

#undef SERVER

static const struct mode *
mode_of(const struct options *o)
{
	size_t i = 0;

	while (!modes[i].chosen(o))
		i++; /* the last row takes what is left */
	return &modes[i];
}

/* Whether --live draws mode m: the live view is an observer of its row. */
static bool
drawn(const struct mode *m, const struct options *o)
{
	return o->live && (m->needs & MODE_DRAWN);
}

/*
 * Whether the run writes its data to standard output: not when the live
 * view draws it, nor for a mode whose samples go only to --output.
 */
static bool
writes_stdout(const struct mode *m, const struct options *o)
{
	const char *p = o->output;

	if (drawn(m, o) || (m->needs & MODE_NAMED_OUTPUT))
		return false;
	return p == NULL || strcmp(p, "/dev/stdout") == 0 || strcmp(p, "/dev/fd/1") == 0 ||
	    strcmp(p, "/proc/self/fd/1") == 0;
}

/*
 * A binary format written to a terminal would garble it: standard output,
 * or the names of it that --output takes (outfile.c).
 */
static bool
binary_to_terminal(const struct mode *m, const struct options *o)
{
	const char *p = o->output;

	if (!o->format->binary || (m->needs & MODE_THREADS))
		return false;
	if (p == NULL || strcmp(p, "/dev/stdout") == 0 ||
	    strcmp(p, "/dev/fd/1") == 0 || strcmp(p, "/proc/self/fd/1") == 0)
		return isatty(STDOUT_FILENO);
	return strcmp(p, "/dev/tty") == 0;
}

/* What the options ask of mode m: an exit status when it cannot run, or -1. */
static int
check_mode(const struct mode *m, const struct options *o)
{
	if (o->live && !(m->needs & (MODE_DRAWN | MODE_TERMINAL))) {
		diag_say("--live draws a capture, a hunt or --list, not "
		    "--%s; leave out --live", m->name);
		return EXIT_USAGE;
	}
	if (stdout_closed && writes_stdout(m, o)) {
		diag_say("standard output is closed: nowhere to write; give "
		    "--output FILE, or start with standard output open");
		return EXIT_RUNTIME;
	}
	if (binary_to_terminal(m, o)) {
		diag_say("--format %s is binary and standard output is a "
		    "terminal; write it to a file with -o FILE, or pipe it",
		    o->format->name);
		return EXIT_USAGE;
	}
	if (o->password_on_command_line && !o->quiet)
		diag_say("warning: using a password on the command line can be "
		    "insecure; prefer an option file or -p to be asked");
	return -1;
}

/* The mode run; with --live, watched by the live view when it draws it. */
static int
run_observed(const struct mode *m, struct capture_env *env)
{
	struct live *l;
	int rc;

	if (!drawn(m, env->opts))
		return m->run(env);
	if ((l = live_start(env)) == NULL)
		return EXIT_RUNTIME;
	env->observer = live_observer(l);
	env->gap = live_gap(l);
	rc = m->run(env);
	live_end(l);
	return rc;
}

/* The mode run, with the output file it needs from start to close. */
static int
run_mode(const struct mode *m, struct capture_env *env,
    struct signal_flags *sig)
{
	const struct options *o = env->opts;
	struct outfile f;
	/* --profile-at each writes a file per sample. */
	bool each = outfile_each_wanted(o);
	bool pattern = ((m->needs & MODE_FILE_EACH) || each) &&
	    o->output != NULL && outname_is_pattern(o->output);

	/*
	 * The live view has the terminal: its samples go only to --output,
	 * and without one nowhere; its summary follows the screen.
	 */
	const char *path = o->output == NULL && (drawn(m, o) ||
	    (m->needs & MODE_NAMED_OUTPUT)) ? "/dev/null" : o->output;
	const struct output_settings settings = outfile_settings(o);
	int rc;

	if (!(m->needs & MODE_OUTPUT))
		return run_observed(m, env);
	if (outfile_init(&f, path, pattern, o->format, &settings,
	    &sig->reopen) != 0)
		return EXIT_RUNTIME;
	if (each)
		outfile_each_sample(&f);
	env->out = &f;
	rc = run_observed(m, env);
	if (outfile_close(&f) != 0 && rc == EXIT_DONE)
		rc = EXIT_RUNTIME;
	outfile_free(&f);
	return rc;
}

int
app_run(int argc, char **argv)
{
	struct signal_flags *sig;
	struct options o;
	struct session s = { .ops = &session_server };
	struct capture_env env;
	const struct mode *m;
	struct diag d;
	int rc;

	if (open_standard_fds() != 0)
		return EXIT_RUNTIME; /* nowhere to say it */
	sig = signals_install();

	/*
	 * The default 50 us timer slack would show as lateness at short
	 * intervals; 1 us keeps wake-ups on the deadline.
	 */
	prctl(PR_SET_TIMERSLACK, 1000UL, 0, 0, 0);
	memset(&o, 0, sizeof(o));
	if ((rc = parse_options(&o, argc, argv)) >= 0)
		goto out;
	d = (struct diag){ .quiet = o.quiet };
	diag_set_timestamps(o.timestamps == STAMP_ON ||
	    (o.timestamps == STAMP_AUTO && !isatty(STDERR_FILENO)));
	m = mode_of(&o);
	if ((rc = check_mode(m, &o)) >= 0)
		goto out;
	/* Before the password prompt and the connection: nothing to draw on. */
	if ((drawn(m, &o) || (m->needs & MODE_TERMINAL)) &&
	    live_check_terminal() != 0) {
		rc = EXIT_USAGE;
		goto out;
	}
	/* Caught before connecting when it does not depend on the server. */
	if ((m->needs & MODE_RING) && o.top != 0 && !capture_ring_fits(&o, 0)) {
		rc = EXIT_USAGE;
		goto out;
	}
	if (m->needs & MODE_SESSION) {
		if ((rc = ask_password(&o)) != 0) {
			rc = rc > 0 ? EXIT_DONE : EXIT_RUNTIME;
			goto out;
		}
		session_setup(&s, &o, sig);
		s.instruments_may_be_off = m->needs & MODE_ANY_INSTRUMENTS;
	}
	if ((m->needs & MODE_CONNECT) && (rc = connect_session(&s, sig)) != 0) {
		rc = rc > 0 ? EXIT_DONE : EXIT_RUNTIME;
		goto out;
	}
	env = (struct capture_env){
		.opts = &o, .session = &s, .diag = &d, .sig = sig,
	};
	rc = run_mode(m, &env, sig);
	/* Ended by a reconnect to another certificate: not to be restarted. */
	if (rc == EXIT_RUNTIME && s.opened == CONN_UNTRUSTED)
		rc = EXIT_CERT_CHANGED;
out:
	session_close(&s);
	cli_free(&o);
	signals_end();
	return rc;
}
