/*
 * The top level: it owns the options, the session and the output, decides
 * the mode, and chooses the exit status. It hands the modules below what
 * they need (the signal flags, a way to say notes) and is never called back.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <unistd.h>

#include "app.h"
#include "capture.h"
#include "diag.h"
#include "exitcode.h"
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
	}
	return 0;
}

/* After --help or --version: whether standard output took it. */
static int
stdout_written(void)
{
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

/* Returns 0, -1 having said why, or 1 when a signal ended the connect. */
static int
connect_session(struct session *s, const struct options *o,
    struct signal_flags *sig)
{
	char err[1024];

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
			.stop = &sig->stop,
		},
	};
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

	if (pfs_list_threads(s->conn, &l, err, sizeof(err)) != PFS_OK) {
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
	/* Only waiting captures one statement after another: a file each. */
	bool pattern = o->target == TARGET_WAIT && o->output != NULL &&
	    outname_is_pattern(o->output);
	struct capture_env env = {
		.opts = o, .session = s, .out = &f, .diag = d, .sig = sig,
	};
	int rc;

	if (outfile_init(&f, o->output, pattern, o->format, o->exact_bytes,
	    &sig->reopen) != 0)
		return EXIT_RUNTIME;
	if (o->target == TARGET_LIST)
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
	if ((rc = connect_session(&s, &o, sig)) != 0)
		rc = rc > 0 ? EXIT_DONE : EXIT_RUNTIME;
	else
		rc = run_mode(&o, &s, sig, &d);
out:
	session_close(&s);
	cli_free(&o);
	signals_end();
	return rc;
}
