/*
 * The writing helpers the formats share: integers without printf. UTF-8
 * is read by scrub.c, below diag and the formats alike.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "output_format.h"

/*
 * Integers are written by hand: a sample of ten events has some 250 of
 * them, and a printf for each cost more than the rest of the row. Digits
 * by hand never depend on the locale either.
 */
size_t
output_uint(char *buf, uint64_t v)
{
	char digits[OUTPUT_INT_MAX];
	size_t i = sizeof(digits);

	do
		digits[--i] = (char)('0' + v % 10);
	while ((v /= 10) != 0);
	memcpy(buf, digits + i, sizeof(digits) - i);
	return sizeof(digits) - i;
}

size_t
output_int(char *buf, int64_t v)
{
	if (v >= 0)
		return output_uint(buf, (uint64_t)v);
	buf[0] = '-';
	return 1 + output_uint(buf + 1, -(uint64_t)v); /* INT64_MIN too */
}

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
