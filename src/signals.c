/* The signal handlers: each sets one flag of struct signal_flags. */
#include <string.h>
#include <unistd.h>

#include "signals.h"

/* The handlers cannot be handed a pointer, so the flags live here. */
static struct signal_flags flags;

/*
 * After a stop, SIGALRM comes every second until the program ends: a call
 * that still blocks (the last write of the output to a pipe that stopped
 * taking it) fails with EINTR instead of holding the end up for ever.
 */
static void
on_signal(int sig)
{
	if (sig == SIGHUP)
		flags.reopen = 1;
	else if (sig == SIGUSR1)
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
	 * A stop interrupts whatever blocks: a write to a pipe nobody reads
	 * fails with EINTR instead of waiting for ever. Queries do not mind,
	 * as conn.c waits in poll(), which is never restarted anyway.
	 */
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGALRM, &sa, NULL);
	/*
	 * SIGHUP and SIGUSR1 ask for more, not for less: what they interrupt
	 * goes on. The sleep between samples still wakes up at once, as
	 * clock_nanosleep is never restarted.
	 */
	sa.sa_flags = SA_RESTART;
	sigaction(SIGHUP, &sa, NULL);
	sigaction(SIGUSR1, &sa, NULL);
	signal(SIGPIPE, SIG_IGN);
	return &flags;
}
