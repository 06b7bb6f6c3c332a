/*
 * The password prompt reads /dev/tty, not standard input, so it works when
 * the output is piped and fails cleanly under cron.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <termios.h>
#include <unistd.h>

#include "prompt.h"

int
prompt_password(const char *prompt, char *buf, size_t len)
{
	struct termios saved, quiet;
	size_t n = 0;
	int fd, saved_errno, rc = 0;
	char ch;

	if ((fd = open("/dev/tty", O_RDWR | O_NOCTTY | O_CLOEXEC)) < 0) {
		errno = ENXIO;
		return -1;
	}
	if (tcgetattr(fd, &saved) != 0) {
		close(fd);
		errno = ENXIO;
		return -1;
	}
	quiet = saved;
	quiet.c_lflag &= ~(tcflag_t)(ECHO | ECHONL);
	quiet.c_lflag |= ICANON;
	(void)!write(fd, prompt, strlen(prompt));
	tcsetattr(fd, TCSAFLUSH, &quiet);
	for (;;) {
		ssize_t r = read(fd, &ch, 1);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0) {
			rc = -1;
			break;
		}
		if (ch == '\n' || ch == '\r')
			break;
		if (n + 1 < len)
			buf[n++] = ch;
	}
	buf[n] = '\0';
	saved_errno = errno;
	tcsetattr(fd, TCSAFLUSH, &saved);
	(void)!write(fd, "\n", 1);
	close(fd);
	errno = saved_errno;
	return rc;
}
