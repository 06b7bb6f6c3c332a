/*
 * Where samples come from. The sampler sees only this interface, so unit
 * tests drive it with a fake and the program with performance_schema.
 */
#ifndef MYSQLMEMPROF_SOURCE_H
#define MYSQLMEMPROF_SOURCE_H

#include <stddef.h>

#include "sample.h"

enum source_status {
	SOURCE_OK,
	SOURCE_GONE,  /* the target no longer exists: a normal end */
	SOURCE_ERROR, /* the source failed; err says why */
};

struct source {
	void *ctx;
	/*
	 * Reads every event of the target. *events stays owned by the
	 * source and is valid until the next call.
	 */
	enum source_status (*read)(void *ctx, struct event_stat **events,
	    size_t *n, char *err, size_t errlen);
};

#endif
