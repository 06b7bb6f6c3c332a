/*
 * Event names, each kept once for the whole process. The reader gives each
 * event it reads its name's entry (struct event_stat's ref), so the deltas
 * and the run statistics compare names by their entry and hash them
 * without reading them, and the writers know without looking whether a
 * name needs escaping. Entries are never freed: every copy of a sample
 * (the ring, the exporter's latest, the live model, the history, a
 * replayed line) may point at them until exit. A server has a few hundred
 * memory instruments, so the table stays small; past NAMES_MAX names it
 * stops growing and names_intern() answers NULL, which every user takes
 * as "go by the name itself".
 */
#ifndef MYSQLMEMPROF_NAMES_H
#define MYSQLMEMPROF_NAMES_H

#include <stdbool.h>
#include <stddef.h>

#define NAMES_MAX 65536

struct event_name {
	size_t hash;  /* strhash() of the name's bytes */
	size_t len;
	/*
	 * Every byte printable ASCII (0x20 to 0x7e) but '"' and '\\', and
	 * the first none of CSV's formula characters (=+-@): JSON and CSV
	 * write it between quotes as it is, and a terminal shows one cell a
	 * byte.
	 */
	bool plain;
	char name[]; /* len bytes and a NUL */
};

/*
 * The entry of the n bytes at s (no NUL among them), made at its first
 * call; NULL when out of memory or past NAMES_MAX names. Thread-safe.
 */
const struct event_name *names_intern(const char *s, size_t n);

/* Whether the n bytes at s are plain (struct event_name). */
bool names_plain(const char *s, size_t n);

#endif
