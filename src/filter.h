/*
 * --events and --exclude: which events a sample may keep, by SQL LIKE
 * patterns on the event name, matched here rather than on the server so
 * that the total still counts every event.
 */
#ifndef MYSQLMEMPROF_FILTER_H
#define MYSQLMEMPROF_FILTER_H

#include <stdbool.h>
#include <stddef.h>

struct event_filter {
	char *const *include; /* keep only names matching one of these */
	size_t n_include;     /* 0: every name */
	char *const *exclude; /* then drop names matching any of these */
	size_t n_exclude;
};

/* True when the filter can drop an event. */
bool filter_active(const struct event_filter *f);
/*
 * True when the event of that name is kept. A pattern matches the full
 * name or the name without its "memory/" prefix, as text shows it.
 */
bool filter_keeps(const struct event_filter *f, const char *name);

/*
 * SQL LIKE, as the server's case-insensitive collations apply it to
 * EVENT_NAME: '%' any run, '_' one character, '\' makes the next one
 * literal; ASCII letters match either case.
 */
bool filter_like(const char *pattern, const char *s);

#endif
