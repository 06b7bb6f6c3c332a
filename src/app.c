/*
 * The top level: it owns the options, the session and the output, decides
 * the mode, and chooses the exit status. It hands the modules below what
 * they need (the signal flags, a way to say notes) and is never called back.
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
#include "diag.h"
#include "exitcode.h"
#include "exporter.h"
#include "live.h"
#include "outfile.h"
#include "outname.h"
#include "pfs.h"
#include "prompt.h"
#include "replay.h"
#include "session.h"
#include "signals.h"
#include "wait.h"

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

/*
 * A binary format written to a terminal would garble it: standard output,
 * or the names of it that --output takes (outfile.c).
 */
static bool
binary_to_terminal(const struct options *o)
{
	const char *p = o->output;

	if (!o->format->binary || o->target == TARGET_LIST)
		return false;
	if (p == NULL || strcmp(p, "/dev/stdout") == 0 ||
	    strcmp(p, "/dev/fd/1") == 0 || strcmp(p, "/proc/self/fd/1") == 0)
		return isatty(STDOUT_FILENO);
	return strcmp(p, "/dev/tty") == 0;
}

/*
 * Whether the run writes its data to standard output: not the live view,
 * whose samples go only to --output, nor --listen's, which go nowhere
 * without one.
 */
static bool
writes_stdout(const struct options *o)
{
	const char *p = o->output;

	if (o->live || o->listen_port != 0)
		return false;
	return p == NULL || strcmp(p, "/dev/stdout") == 0 || strcmp(p, "/dev/fd/1") == 0 ||
	    strcmp(p, "/proc/self/fd/1") == 0;
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
	if (stdout_closed && writes_stdout(o)) {
		diag_say("standard output is closed: nowhere to write; give "
		    "--output FILE, or start with standard output open");
		return EXIT_RUNTIME;
	}
	if (binary_to_terminal(o)) {
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
			.stop = &sig->stop,
		},
	};
}

/* Returns 0, -1 having said why, or 1 when a signal ended the connect. */
static int
connect_session(struct session *s, const struct options *o,
    struct signal_flags *sig)
{
	char err[1024];

	session_setup(s, o, sig);
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
run_list(struct session *s, struct outfile *f, const struct signal_flags *sig)
{
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

/* From a connected session to the end of the mode the options ask for. */
static int
run_mode(struct options *o, struct session *s, struct signal_flags *sig,
    const struct diag *d)
{
	struct outfile f;
	/*
	 * Only waiting captures one statement after another: a file each;
	 * and --profile-at each writes a file per sample.
	 */
	bool each = o->format->profile && o->profile_at == PROFILE_AT_EACH;
	bool pattern = (o->target == TARGET_WAIT || each) &&
	    o->output != NULL && outname_is_pattern(o->output);
	struct capture_env env = {
		.opts = o, .session = s, .out = &f, .diag = d, .sig = sig,
	};

	/*
	 * The live view has the terminal: its samples go only to --output,
	 * and without one nowhere; its summary follows the screen.
	 */
	const char *path = o->live && o->output == NULL ? "/dev/null" :
	    o->output;
	int rc;

	if (outfile_init(&f, path, pattern, o->format, o->exact_bytes,
	    &sig->reopen) != 0)
		return EXIT_RUNTIME;
	/* The profile formats: which sample, which frame above the events. */
	f.out.keep.at = o->profile_at;
	f.out.keep.peak_of_filtered = o->n_include_events > 0 ||
	    o->n_exclude_events > 0;
	f.out.profile_root = o->profile_root;
	if (each)
		outfile_each_sample(&f);
	if (o->live)
		rc = live_run(&env);
	else if (o->target == TARGET_LIST)
		rc = run_list(s, &f, sig);
	else if (o->target == TARGET_WAIT)
		rc = wait_run(&env);
	else
		rc = capture_run(&env, NULL, 0, NULL);
	if (outfile_close(&f) != 0 && rc == EXIT_DONE)
		rc = EXIT_RUNTIME;
	outfile_free(&f);
	return rc;
}

/*
 * --listen: the exporter connects by itself, and again whenever the server
 * comes back, so that its endpoint serves from the start. What captures
 * write goes to --output, or nowhere.
 */
static int
run_exporter(struct options *o, struct session *s, struct signal_flags *sig,
    const struct diag *d)
{
	struct outfile f;
	struct capture_env env = {
		.opts = o, .session = s, .out = &f, .diag = d, .sig = sig,
	};
	int rc;

	session_setup(s, o, sig);
	if (outfile_init(&f, o->output != NULL ? o->output : "/dev/null",
	    false, o->format, o->exact_bytes, &sig->reopen) != 0)
		return EXIT_RUNTIME;
	rc = exporter_run(&env);
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
	/* Before the password prompt and the connection: nothing to draw on. */
	if (o.live && live_check_terminal() != 0) {
		rc = EXIT_USAGE;
		goto out;
	}
	/* Caught before connecting when it does not depend on the server. */
	if (o.target != TARGET_LIST && o.top != 0 && !capture_ring_fits(&o, 0)) {
		rc = EXIT_USAGE;
		goto out;
	}
	/* A capture replayed needs no server. */
	if (o.target == TARGET_READ) {
		rc = replay_run(&o, sig, &d);
		goto out;
	}
	if ((rc = ask_password(&o)) != 0) {
		rc = rc > 0 ? EXIT_DONE : EXIT_RUNTIME;
		goto out;
	}
	if (o.listen_port != 0)
		rc = run_exporter(&o, &s, sig, &d);
	else if ((rc = connect_session(&s, &o, sig)) != 0)
		rc = rc > 0 ? EXIT_DONE : EXIT_RUNTIME;
	else
		rc = run_mode(&o, &s, sig, &d);
out:
	session_close(&s);
	cli_free(&o);
	signals_end();
	return rc;
}
