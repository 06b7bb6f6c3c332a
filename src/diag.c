/*
 * Notes and errors on stderr. Every message of the program goes through
 * here, so the scrubbing of control characters is done once, by the rule
 * the text format uses too (scrub.h).
 */
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <time.h>

#include "diag.h"
#include "scrub.h"
#include "utc.h"

/*
 * Set once by the top level before anything is said, and only read after:
 * diag_say() is called from everywhere without a struct diag to carry it.
 */
static bool stamped;

void
diag_set_timestamps(bool on)
{
	stamped = on;
}

/* "2026-11-22T01:02:03.456Z ": UTC, so that logs of any zone compare. */
static size_t
put_stamp(char *buf, size_t len)
{
	struct timespec ts;
	char when[UTC_MAX];
	int n;

	if (clock_gettime(CLOCK_REALTIME, &ts) != 0)
		return 0;
	utc_format(when, sizeof(when), (int64_t)ts.tv_sec * 1000 +
	    ts.tv_nsec / 1000000, UTC_STAMP);
	n = snprintf(buf, len, "%s ", when);
	return n > 0 && (size_t)n < len ? (size_t)n : 0;
}

/*
 * The line is made whole first and written by one call: glibc 2.37+
 * writes an unbuffered stream's printf in pieces of 128 bytes, and a
 * reader of the pipe (a test, a log collector) may see half a line.
 */
static void
vsay(const char *fmt, va_list ap)
{
	static const char who[] = "mysqlmemprof: ";
	char msg[2048], line[2048 + 64];
	size_t n = stamped ? put_stamp(line, sizeof(line)) : 0;

	vsnprintf(msg, sizeof(msg), fmt, ap);
	scrub_string(msg);
	n += (size_t)snprintf(line + n, sizeof(line) - n, "%s%s\n", who, msg);
	if (n >= sizeof(line)) {
		n = sizeof(line) - 1;
		line[n - 1] = '\n';
	}
	/* One line whole, though threads (the incidents', the UI) say too. */
	flockfile(stderr);
	fwrite(line, 1, n, stderr);
	funlockfile(stderr);
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
