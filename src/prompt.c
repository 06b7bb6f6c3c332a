/*
 * The password prompt reads /dev/tty, not standard input, so it works when
 * the output is piped and fails cleanly under cron.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <termios.h>
#include <unistd.h>

#include "prompt.h"

static volatile sig_atomic_t interrupted;

static void
on_signal(int sig)
{
	(void)sig;
	interrupted = 1;
}

/*
 * Reads a line into buf; -1 with errno EINTR (Ctrl-C) or 0 (end of input).
 * SIGINT and SIGTERM are blocked but while ppoll() waits, so one that
 * comes at any moment, even just before the wait, ends it.
 */
static int
read_line(int fd, char *buf, size_t len, const sigset_t *waiting)
{
	struct pollfd pfd = { .fd = fd, .events = POLLIN };
	size_t n = 0;
	char ch;

	for (;;) {
		ssize_t r;

		if (ppoll(&pfd, 1, NULL, waiting) < 0) {
			if (errno == EINTR && !interrupted)
				continue;
			r = -1;
		} else {
			r = read(fd, &ch, 1);
		}
		if (r < 0 && errno == EINTR && !interrupted)
			continue;
		if (r <= 0) {
			if (r == 0)
				errno = 0;
			buf[n] = '\0';
			return -1;
		}
		if (ch == '\n' || ch == '\r')
			break;
		if (n + 1 < len)
			buf[n++] = ch;
		explicit_bzero(&ch, sizeof(ch));
	}
	buf[n] = '\0';
	return 0;
}

int
prompt_password(const char *prompt, char *buf, size_t len)
{
	struct sigaction sa, old_int, old_term;
	struct termios saved, quiet;
	sigset_t both, old_mask, waiting;
	int fd, saved_errno, rc;

	if ((fd = open("/dev/tty", O_RDWR | O_NOCTTY | O_CLOEXEC)) < 0 ||
	    tcgetattr(fd, &saved) != 0) {
		if (fd >= 0)
			close(fd);
		errno = ENXIO;
		return -1;
	}
	sigemptyset(&both);
	sigaddset(&both, SIGINT);
	sigaddset(&both, SIGTERM);
	sigprocmask(SIG_BLOCK, &both, &old_mask);
	waiting = old_mask;
	sigdelset(&waiting, SIGINT);
	sigdelset(&waiting, SIGTERM);
	/*
	 * Without SA_RESTART, so that Ctrl-C ends the read instead of being
	 * noted and ignored; the terminal's echo is restored either way.
	 */
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;
	sigemptyset(&sa.sa_mask);
	interrupted = 0;
	sigaction(SIGINT, &sa, &old_int);
	sigaction(SIGTERM, &sa, &old_term);
	quiet = saved;
	quiet.c_lflag &= ~(tcflag_t)(ECHO | ECHONL);
	quiet.c_lflag |= ICANON;
	/*
	 * Echo off before the prompt, as getpass(3) does: TCSAFLUSH drops
	 * what was typed before it, so it must come before anyone is asked.
	 */
	tcsetattr(fd, TCSAFLUSH, &quiet);
	(void)!write(fd, prompt, strlen(prompt));
	rc = read_line(fd, buf, len, &waiting);
	saved_errno = errno;
	tcsetattr(fd, TCSAFLUSH, &saved);
	/* A signal held back since the line was read still counts here. */
	sigprocmask(SIG_SETMASK, &waiting, NULL);
	if (rc == 0 && interrupted) {
		rc = -1;
		saved_errno = EINTR;
	}
	sigaction(SIGINT, &old_int, NULL);
	sigaction(SIGTERM, &old_term, NULL);
	sigprocmask(SIG_SETMASK, &old_mask, NULL);
	(void)!write(fd, "\n", 1);
	close(fd);
	if (rc != 0)
		explicit_bzero(buf, len); /* nothing half typed stays behind */
	errno = saved_errno;
	return rc;
}
