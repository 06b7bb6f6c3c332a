/*
 * The helpers the formats share. Integers without printf are in
 * output_buf.c; UTF-8 is read by scrub.c, below diag and the formats alike.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "output_format.h"

int
output_chart_sample(struct output *o, const struct sample *s)
{
	if (o->chart == NULL && (o->chart = chart_create()) == NULL) {
		errno = ENOMEM;
		return -1;
	}
	chart_add(o->chart, s);
	return 0;
}

const char *
output_chart_what(const struct output *o, uint64_t thread_id, char *buf,
    size_t len)
{
	if (o->grain != NULL)
		snprintf(buf, len, "%s", o->grain);
	else
		snprintf(buf, len, "thread %" PRIu64, thread_id);
	return buf;
}

const char *
output_chart_total(const struct output *o, char *buf, size_t len)
{
	snprintf(buf, len, "%s total", o->grain != NULL ? o->grain : "thread");
	return buf;
}
