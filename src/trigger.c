/*
 * The trigger remembers the last sample written rather than a count, so
 * that a dump on SIGUSR1, a crossing and the samples after it can never
 * write a sample twice, whatever order they come in.
 */
#include "trigger.h"

void
trigger_init(struct trigger *t, int64_t threshold, uint64_t hold_us)
{
	*t = (struct trigger){ .threshold = threshold, .hold_us = hold_us };
}

/*
 * When the sample was due, in whole milliseconds as ticks are: a sample
 * taken late counts as on time, so the hold is a whole number of intervals.
 * elapsed_us and late_us are each rounded down, hence the rounding here.
 */
static uint64_t
due_us(const struct sample *s)
{
	uint64_t t = s->elapsed_us > s->late_us ?
	    s->elapsed_us - s->late_us : 0;

	return (t + 500) / 1000 * 1000;
}

enum trigger_action
trigger_next(struct trigger *t, const struct sample *s)
{
	uint64_t now = due_us(s);

	if (!t->writing) {
		if (s->total_bytes < t->threshold)
			return TRIGGER_HOLD;
		t->writing = true;
		t->below = false;
		return TRIGGER_START;
	}
	if (s->total_bytes >= t->threshold) {
		t->below = false;
		return TRIGGER_WRITE;
	}
	if (!t->below) {
		t->below = true;
		t->below_since_us = now;
	}
	if (now - t->below_since_us < t->hold_us)
		return TRIGGER_WRITE;
	t->writing = false;
	t->below = false;
	return TRIGGER_HOLD;
}

size_t
trigger_unwritten(const struct trigger *t, const struct ring *r)
{
	size_t i = ring_len(r);

	/* Newest first: the unwritten samples are the newest ones. */
	while (i > 0 && ring_get(r, i - 1)->seq > t->written)
		i--;
	return i;
}

void
trigger_written(struct trigger *t, uint64_t seq)
{
	if (seq > t->written)
		t->written = seq;
}
