/* The signal handlers: each sets one flag of struct signal_flags. */
#include <string.h>
#include <unistd.h>

#include "signals.h"

/* The handlers cannot be handed a pointer, so the flags live here. */
static struct signal_flags flags;

/*
 * After a stop, SIGALRM comes every second until the program ends: a call
 * that still blocks (a write of the output to a pipe whose reader stopped
 * reading) fails with EINTR instead of holding the end up for ever.
 */
static void
on_signal(int sig)
{
	if (sig == SIGHUP) {
		flags.reopen = 1;
		flags.hangup = 1;
	} else if (sig == SIGUSR1)
		flags.dump = 1;
	else if (sig == SIGALRM)
		alarm(1);
	else {
		flags.stop = 1;
		alarm(1);
	}
}

struct signal_flags *
signals_install(void)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;
	sigemptyset(&sa.sa_mask);
	/*
	 * SA_RESTART lets what a signal interrupts go on: a write to a
	 * reader that is only slow is not cut short by a stop, and the
	 * sleep between samples still wakes up at once, as clock_nanosleep
	 * is never restarted. Queries wait in conn.c's poll(), which is
	 * never restarted either and looks at the stop flag itself.
	 */
	sa.sa_flags = SA_RESTART;
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
	sigaction(SIGUSR1, &sa, NULL);
	/* The second a stop gives a write: after it, the write fails. */
	sa.sa_flags = 0;
	sigaction(SIGALRM, &sa, NULL);
	signal(SIGPIPE, SIG_IGN);
	return &flags;
}

void
signals_end(void)
{
	alarm(0);
}
