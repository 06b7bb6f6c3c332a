/*
 * Notes and errors on stderr, one line each, prefixed with the program's
 * name. They quote user input and server text, so what scrub.h refuses
 * (controls, bidi controls, line separators, bytes that are not UTF-8) is
 * shown as '?': a message stays one line and cannot move the cursor.
 */
#ifndef MYSQLMEMPROF_DIAG_H
#define MYSQLMEMPROF_DIAG_H

#include <stdbool.h>

struct diag {
	bool quiet; /* --quiet: notes are not shown; errors and warnings are */
};

/*
 * Whether every line starts with an ISO 8601 UTC time
 * ("2026-11-22T01:02:03.456Z mysqlmemprof: ..."), as a log wants; off
 * until set. The top level sets it once, from --timestamps.
 */
void diag_set_timestamps(bool on);
/* An error or a warning: always shown. */
void diag_say(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* A note on progress: shown unless d->quiet. */
void diag_note(const struct diag *d, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
/* diag_note() as a notify callback of a lower module; ctx is a struct diag. */
void diag_note_cb(void *ctx, const char *msg);
/* A warning ("warning: msg"), shown even with --quiet; ctx is unused. */
void diag_warn_cb(void *ctx, const char *msg);

#endif
