/*
 * Notes and errors on stderr. Every message of the program goes through
 * here, so the scrubbing of control characters is done once.
 */
#include <stdarg.h>
#include <stdio.h>

#include "diag.h"

static void
vsay(const char *fmt, va_list ap)
{
	char line[2048];

	vsnprintf(line, sizeof(line), fmt, ap);
	for (unsigned char *p = (unsigned char *)line; *p != '\0'; p++) {
		if (*p < 0x20 || *p == 0x7f)
			*p = '?';
		/* C1 controls (U+0080 to U+009F, as UTF-8: C2 80 to C2 9F). */
		else if (*p == 0xc2 && p[1] >= 0x80 && p[1] <= 0x9f)
			p[0] = '?', p[1] = '?';
	}
	fprintf(stderr, "mysqlmemprof: %s\n", line);
}

void
diag_say(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsay(fmt, ap);
	va_end(ap);
}

void
diag_note(const struct diag *d, const char *fmt, ...)
{
	va_list ap;

	if (d->quiet)
		return;
	va_start(ap, fmt);
	vsay(fmt, ap);
	va_end(ap);
}

void
diag_note_cb(void *ctx, const char *msg)
{
	diag_note(ctx, "%s", msg);
}

void
diag_warn_cb(void *ctx, const char *msg)
{
	(void)ctx;
	diag_say("warning: %s", msg);
}
