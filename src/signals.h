/*
 * The signals mysqlmemprof answers. The handlers only set flags; the
 * modules that wait are handed the flags as pointers and look at them
 * when a wait wakes up, so a run always ends the way a count would.
 */
#ifndef MYSQLMEMPROF_SIGNALS_H
#define MYSQLMEMPROF_SIGNALS_H

#include <signal.h>

struct signal_flags {
	volatile sig_atomic_t stop;   /* SIGINT, SIGTERM: end the run */
	volatile sig_atomic_t reopen; /* SIGHUP: reopen --output (logrotate) */
	volatile sig_atomic_t dump;   /* SIGUSR1: write the samples held */
	/* SIGHUP too: --live ends, as its terminal hung up. */
	volatile sig_atomic_t hangup;
};

/*
 * Installs the handlers and ignores SIGPIPE (a closed pipe shows up as
 * EPIPE from the next write). After SIGINT or SIGTERM, SIGALRM interrupts
 * every second whatever still blocks, so no wait outlasts a stop by more.
 * Returns the flags they set, owned here.
 */
struct signal_flags *signals_install(void);

/* Once nothing can block any more: no SIGALRM after this. */
void signals_end(void);

#endif
