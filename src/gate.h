/*
 * The beat of a slower source on the chain: a read of its own at most
 * every so often, on the monotonic clock, beside samples taken faster.
 * A gate never armed, or reset, is due at once.
 */
#ifndef MYSQLMEMPROF_GATE_H
#define MYSQLMEMPROF_GATE_H

#include <stdbool.h>
#include <stdint.h>

struct gate {
	uint64_t next_ns; /* 0: due with the next sample */
};

/* Whether the read it gates is due at now_ns. */
bool gate_due(const struct gate *g, uint64_t now_ns);

/* The next read due every_ns after now_ns (0: with the next sample). */
void gate_arm(struct gate *g, uint64_t now_ns, uint64_t every_ns);

/* Due with the next sample, as at the start. */
void gate_reset(struct gate *g);

#endif
