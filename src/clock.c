/* The system's clocks behind struct clock, and schedules on any clock. */
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

/*
 * A signal that arrives after the caller looked at its flags but before
 * the sleep starts would not end the sleep, which can last an hour; so the
 * sleep is cut in slices and returns EINTR after each one, and the caller
 * looks at its flags again at least this often.
 */
#define SLICE_NS (100 * 1000000ull)

static int
system_sleep_until(void *ctx, uint64_t deadline_ns)
{
	uint64_t now = system_now_ns(ctx);
	uint64_t wake = deadline_ns > now && deadline_ns - now > SLICE_NS ?
	    now + SLICE_NS : deadline_ns;
	struct timespec ts = {
		.tv_sec = (time_t)(wake / 1000000000u),
		.tv_nsec = (long)(wake % 1000000000u),
	};

	/*
	 * An absolute deadline: however long the sample took, the next one is
	 * due at start + k * interval, so the schedule cannot drift.
	 */
	if (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL) == EINTR)
		return EINTR;
	return wake < deadline_ns ? EINTR : 0;
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

uint64_t
clock_next_deadline(uint64_t prev, uint64_t period_ns, uint64_t now)
{
	uint64_t next = prev + period_ns;

	if (period_ns == 0)
		return now;
	if (next >= now)
		return next;
	/* The deadlines missed are skipped; the next is still on the phase. */
	return next + (now - next + period_ns - 1) / period_ns * period_ns;
}

bool
clock_wait(const struct clock *c, uint64_t deadline_ns, uint64_t every_ns,
    bool (*done)(void *ctx), void *ctx)
{
	for (;;) {
		uint64_t now;

		if (done(ctx))
			return true;
		if ((now = c->now_ns(c->ctx)) >= deadline_ns)
			return false;
		(void)c->sleep_until(c->ctx, every_ns > 0 && deadline_ns -
		    now > every_ns ? now + every_ns : deadline_ns);
	}
}

bool
clock_pause(const struct clock *c, uint64_t ns, volatile sig_atomic_t *stop)
{
	uint64_t until = c->now_ns(c->ctx) + ns;

	while (!*stop && c->now_ns(c->ctx) < until)
		c->sleep_until(c->ctx, until);
	return *stop;
}
