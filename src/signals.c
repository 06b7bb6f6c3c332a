/* The signal handlers: each sets one flag of struct signal_flags. */
#include <string.h>

#include "signals.h"

/* The handlers cannot be handed a pointer, so the flags live here. */
static struct signal_flags flags;

static void
on_signal(int sig)
{
	if (sig == SIGHUP)
		flags.reopen = 1;
	else if (sig == SIGUSR1)
		flags.dump = 1;
	else
		flags.stop = 1;
}

struct signal_flags *
signals_install(void)
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
	sigaction(SIGHUP, &sa, NULL);
	sigaction(SIGUSR1, &sa, NULL);
	signal(SIGPIPE, SIG_IGN);
	return &flags;
}
