#include <stdlib.h>
#include <string.h>

#include "beat.h"

static enum source_status
beat_read(void *ctx, uint64_t deadline_ns, struct reading *out, char *err,
    size_t errlen)
{
	struct beat *b = ctx;
	uint64_t now = b->clk->now_ns(b->clk->ctx);
	enum source_status st;

	if (!gate_due(&b->gate, now)) {
		struct session *s = b->session;

		if (s != NULL && s->ops->ping(s->conn, err, errlen) == PFS_LOST)
			return SOURCE_LOST;
		*out = (struct reading){ .events = b->kept, .n = b->n,
		    .events_kept = true };
		return SOURCE_OK;
	}
	st = b->inner.read(b->inner.ctx, deadline_ns, out, err, errlen);
	if (st != SOURCE_OK)
		return st;
	if (out->n > b->cap) {
		struct event_stat *k = realloc(b->kept, out->n * sizeof(*k));

		if (k == NULL) {
			/* Read again next time rather than keep nothing. */
			b->n = 0;
			return st;
		}
		b->kept = k;
		b->cap = out->n;
	}
	if (out->n > 0)
		memcpy(b->kept, out->events, out->n * sizeof(*b->kept));
	b->n = out->n;
	gate_arm(&b->gate, now, b->every_ns);
	return st;
}

struct source
beat_source(struct beat *b)
{
	return (struct source){ .ctx = b, .read = beat_read };
}

void
beat_free(struct beat *b)
{
	free(b->kept);
	b->kept = NULL;
	b->n = b->cap = 0;
}
