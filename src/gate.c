#include "gate.h"

bool
gate_due(const struct gate *g, uint64_t now_ns)
{
	return now_ns >= g->next_ns;
}

void
gate_arm(struct gate *g, uint64_t now_ns, uint64_t every_ns)
{
	g->next_ns = every_ns > 0 ? now_ns + every_ns : 0;
}

void
gate_reset(struct gate *g)
{
	g->next_ns = 0;
}
