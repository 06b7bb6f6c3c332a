/*
 * The one rule for text that may reach a terminal: what the server or a
 * user gave is shown as '?' where it would move the cursor, change modes,
 * reorder or break the line (C0 and C1 controls, DEL, U+2028 and U+2029,
 * the bidi controls U+202A to U+202E and U+2066 to U+2069), and where it is
 * not UTF-8. diag and the text format use it; JSON escapes the same code
 * points. It calls nothing above it.
 */
#ifndef MYSQLMEMPROF_SCRUB_H
#define MYSQLMEMPROF_SCRUB_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/*
 * The length (1 to 4) of the well-formed UTF-8 sequence at s, of which n
 * bytes are left, and its code point in *cp; 0 when s[0] starts none.
 */
size_t scrub_utf8(const char *s, size_t n, uint32_t *cp);

/* Whether code point cp may be written to a terminal as it is. */
bool scrub_shown(uint32_t cp);

/*
 * How many bytes from s on, of n, are ASCII from low (at most 0x7f) to
 * 0x7e and neither ex1 nor ex2 (0 excludes nothing more): the run a writer
 * copies as it is. Eight bytes are looked at a time: most names and
 * statements are one such run, and a byte at a time was most of what
 * JSON spent on a sample's strings.
 */
size_t scrub_ascii_run(const char *s, size_t n, unsigned char low,
    unsigned char ex1, unsigned char ex2);

/*
 * Scrubs the string s in place: each character scrub_shown() refuses and
 * each byte that starts no UTF-8 sequence becomes one '?'.
 */
void scrub_string(char *s);

/*
 * Copies s into out (size bytes, at least 1) on one line for a note: each
 * run of ASCII white space (a statement's newlines and indents) becomes
 * one space, none leads or trails; cut to fit. Returns whether it was cut.
 */
bool scrub_oneline(const char *s, char *out, size_t size);

#endif
