/*
 * Notes and errors on stderr. Every message of the program goes through
 * here, so the scrubbing of control characters is done once, by the rule
 * the text format uses too (scrub.h).
 */
#include <stdarg.h>
#include <stdio.h>

#include "diag.h"
#include "scrub.h"

static void
vsay(const char *fmt, va_list ap)
{
	char line[2048];

	vsnprintf(line, sizeof(line), fmt, ap);
	scrub_string(line);
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
