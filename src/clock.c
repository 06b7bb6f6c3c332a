/* The system's clocks behind struct clock. */
#include <errno.h>
#include <time.h>

#include "clock.h"

static uint64_t
system_now_ns(void *ctx)
{
	struct timespec ts;

	(void)ctx;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static int64_t
system_wall_ms(void *ctx)
{
	struct timespec ts;

	(void)ctx;
	clock_gettime(CLOCK_REALTIME, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static int
system_sleep_until(void *ctx, uint64_t deadline_ns)
{
	struct timespec ts = {
		.tv_sec = (time_t)(deadline_ns / 1000000000u),
		.tv_nsec = (long)(deadline_ns % 1000000000u),
	};
	int rc;

	(void)ctx;
	/*
	 * An absolute deadline: however long the sample took, the next one is
	 * due at start + k * interval, so the schedule cannot drift.
	 */
	rc = clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL);
	return rc == EINTR ? EINTR : 0;
}

struct clock
clock_system(void)
{
	return (struct clock){
		.ctx = NULL,
		.now_ns = system_now_ns,
		.wall_ms = system_wall_ms,
		.sleep_until = system_sleep_until,
	};
}
