/*
 * The table of output formats, and the calls the program makes through it.
 * Each call flushes: a reader of a pipe sees every sample when it is taken,
 * and a full disk shows up at the first sample, not at exit.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "output.h"
#include "output_format.h"

static const struct format *const formats[] = {
	&format_text,
	&format_csv,
	&format_json,
};
#define N_FORMATS (sizeof(formats) / sizeof(formats[0]))

const struct format *
format_find(const char *name)
{
	for (size_t i = 0; i < N_FORMATS; i++)
		if (strcmp(formats[i]->name, name) == 0)
			return formats[i];
	return NULL;
}

/* Built from the table, so a new format needs no other change. */
const char *
format_names(const char *last)
{
	static char names[2][128];
	char *buf = names[strcmp(last, ", ") != 0];
	size_t len = 0;

	for (size_t i = 0; i < N_FORMATS && len < sizeof(names[0]); i++)
		len += (size_t)snprintf(buf + len, sizeof(names[0]) - len,
		    "%s%s", i == 0 ? "" : i + 1 < N_FORMATS ? ", " : last,
		    formats[i]->name);
	return buf;
}

int
output_status(FILE *fp)
{
	if (!ferror(fp))
		return 0;
	/* The failed write set errno; this is for a library that did not. */
	if (errno == 0)
		errno = EIO;
	return -1;
}

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

/*
 * Each callback runs with the lock of o->fp held, taken once here, so the
 * formats may write a sample's many small fields with the _unlocked stdio
 * calls. Then it flushes.
 */
static void
start(struct output *o)
{
	flockfile(o->fp);
}

static int
finish(struct output *o, int rc)
{
	funlockfile(o->fp);
	if (rc == -1 || fflush(o->fp) == EOF)
		return -1;
	return output_status(o->fp);
}

int
output_begin(struct output *o)
{
	start(o);
	return finish(o, o->fmt->begin ? o->fmt->begin(o) : 0);
}

int
output_sample(struct output *o, const struct sample *s)
{
	int rc;

	start(o);
	rc = o->fmt->sample ? o->fmt->sample(o, s) : 0;
	o->statement = s->statement;
	o->has_statement = true;
	return finish(o, rc);
}

int
output_end(struct output *o, const struct summary *sum)
{
	start(o);
	return finish(o, o->fmt->end ? o->fmt->end(o, sum) : 0);
}

int
output_dump(struct output *o, const struct output_dump *d)
{
	o->has_statement = false;
	start(o);
	return finish(o, o->fmt->dump ? o->fmt->dump(o, d) : 0);
}

int
output_capture(struct output *o, const struct output_capture *c)
{
	start(o);
	return finish(o, o->fmt->capture ? o->fmt->capture(o, c) : 0);
}

int
output_threads(struct output *o, const struct thread_list *l)
{
	start(o);
	return finish(o, o->fmt->threads ? o->fmt->threads(o, l) : 0);
}

size_t
output_utf8(const char *str, size_t n, uint32_t *cp)
{
	const unsigned char *s = (const unsigned char *)str;
	/* The range of the second byte: Unicode 15, table 3-7. */
	unsigned char lo = 0x80, hi = 0xbf;
	size_t len;
	uint32_t c;

	if (n == 0)
		return 0;
	if (s[0] < 0x80) {
		*cp = s[0];
		return 1;
	}
	if (s[0] < 0xc2)	/* a continuation byte, or an overlong C0/C1 */
		return 0;
	if (s[0] < 0xe0) {
		len = 2;
		c = s[0] & 0x1f;
	} else if (s[0] < 0xf0) {
		len = 3;
		c = s[0] & 0x0f;
		if (s[0] == 0xe0)	/* overlong */
			lo = 0xa0;
		if (s[0] == 0xed)	/* UTF-16 surrogates */
			hi = 0x9f;
	} else if (s[0] < 0xf5) {
		len = 4;
		c = s[0] & 0x07;
		if (s[0] == 0xf0)	/* overlong */
			lo = 0x90;
		if (s[0] == 0xf4)	/* beyond U+10FFFF */
			hi = 0x8f;
	} else
		return 0;
	if (n < len)
		return 0;
	for (size_t i = 1; i < len; i++) {
		if (s[i] < lo || s[i] > hi)
			return 0;
		c = c << 6 | (s[i] & 0x3f);
		lo = 0x80;
		hi = 0xbf;
	}
	*cp = c;
	return len;
}
