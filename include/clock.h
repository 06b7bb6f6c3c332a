/*
 * Time as the sampler needs it: a monotonic clock for deadlines and
 * durations, the wall clock for timestamps people read, and a sleep until an
 * absolute deadline. Behind an interface so tests can use a fake clock.
 */
#ifndef MYSQLMEMPROF_CLOCK_H
#define MYSQLMEMPROF_CLOCK_H

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

#endif
