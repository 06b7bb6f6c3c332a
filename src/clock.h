/*
 * Time as the sampler and the --live --list top need it: a monotonic clock
 * for deadlines and durations, the wall clock for timestamps people read,
 * a sleep until an absolute deadline, and a schedule of such deadlines.
 * Behind an interface so tests can use a fake clock.
 */
#ifndef MYSQLMEMPROF_CLOCK_H
#define MYSQLMEMPROF_CLOCK_H

#include <signal.h>
#include <stdbool.h>
#include <stdint.h>

struct clock {
	void *ctx;
	uint64_t (*now_ns)(void *ctx);  /* CLOCK_MONOTONIC */
	int64_t (*wall_ms)(void *ctx);  /* CLOCK_REALTIME, ms since the epoch */
	/*
	 * Returns 0 at the deadline, or EINTR when it woke early: a signal
	 * arrived, or a slice of at most 100 ms passed. The caller then looks
	 * at its flags and sleeps again.
	 */
	int (*sleep_until)(void *ctx, uint64_t deadline_ns);
};

/* The system's clocks. */
struct clock clock_system(void);

/*
 * The deadline after prev on a schedule every period_ns: prev + period_ns,
 * or, when a slow turn let now pass it, the first one not before now.
 * Missed deadlines are skipped, not made up in a burst; the phase is kept.
 */
uint64_t clock_next_deadline(uint64_t prev, uint64_t period_ns, uint64_t now);

/*
 * Sleeps on c until deadline_ns, asking done(ctx) before and at least
 * every every_ns (and after each signal). Returns true when done() ended
 * the wait, false at the deadline.
 */
bool clock_wait(const struct clock *c, uint64_t deadline_ns,
    uint64_t every_ns, bool (*done)(void *ctx), void *ctx);

/*
 * Sleeps on c for ns, or less when *stop is set (the signal that sets it
 * ends the sleep): the wait before connecting again. Returns *stop.
 */
bool clock_pause(const struct clock *c, uint64_t ns,
    volatile sig_atomic_t *stop);

#endif
