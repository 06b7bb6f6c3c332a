/*
 * The recorder writes the ring's samples from the oldest one not written
 * yet, so a dump is always the window as it stands, in order, with each
 * sample's own number and time.
 */
#include "recorder.h"

void
recorder_init(struct recorder *rc, struct output *out,
    const struct ring *ring, int64_t threshold, uint64_t hold_us)
{
	*rc = (struct recorder){ .out = out, .ring = ring,
	    .triggered = threshold > 0 };
	trigger_init(&rc->trigger, threshold, hold_us);
}

/* Writes the ring's samples from index first to the newest. */
static int
write_from(struct recorder *rc, size_t first)
{
	for (size_t i = first; i < ring_len(rc->ring); i++) {
		const struct sample *s = ring_get(rc->ring, i);

		if (output_sample(rc->out, s) != 0)
			return -1;
		trigger_written(&rc->trigger, s->seq);
		rc->written++;
	}
	return 0;
}

int
recorder_sample(struct recorder *rc, const struct sample *s)
{
	struct output_dump d = { .total = s->total_bytes,
	    .threshold = rc->trigger.threshold };
	size_t first;

	if (!rc->triggered) {
		rc->written++;
		return output_sample(rc->out, s);
	}
	switch (trigger_next(&rc->trigger, s)) {
	case TRIGGER_HOLD:
		return 0;
	case TRIGGER_START:
		rc->crossings++;
		first = trigger_unwritten(&rc->trigger, rc->ring);
		d.held = ring_len(rc->ring) - first - 1;
		if (output_dump(rc->out, &d) != 0)
			return -1;
		return write_from(rc, first);
	case TRIGGER_WRITE:
	default:
		return write_from(rc, trigger_unwritten(&rc->trigger,
		    rc->ring));
	}
}

int
recorder_dump(struct recorder *rc, size_t *n)
{
	struct output_dump d = { .by_signal = true,
	    .threshold = rc->trigger.threshold };
	size_t first;

	*n = 0;
	if (!rc->triggered)
		return 0;
	first = trigger_unwritten(&rc->trigger, rc->ring);
	if ((*n = d.held = ring_len(rc->ring) - first) == 0)
		return 0;
	if (output_dump(rc->out, &d) != 0)
		return -1;
	return write_from(rc, first);
}
