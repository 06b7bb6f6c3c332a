/*
 * One sample as a pprof profile: a gzipped perftools.profiles.Profile
 * (proto/profile.proto), encoded with protobuf-c and zlib. Pure: the only
 * output is the buffer. The pprof format and the exporter's /pprof
 * endpoint both call it.
 *
 * Each kept event is one pprof sample whose stack is its name split on
 * '/', general frames as callers ("memory" calls "memory/innodb" calls
 * "memory/innodb/row0sel"), so a function names one instrument path and
 * `pprof -top` lists events by their full names. The values are
 * alloc_objects, alloc_space, inuse_objects and inuse_space (Go's heap
 * profile order; inuse_space is the default), negative current counters
 * as 0 (profile.h).
 */
#ifndef MYSQLMEMPROF_PPROF_H
#define MYSQLMEMPROF_PPROF_H

#include <stddef.h>
#include <stdint.h>

#include "sample.h"

struct pprof_meta {
	int64_t time_ns;        /* wall clock of the sample, ns since the epoch */
	int64_t duration_ns;    /* the interval the profile covers (0: unknown) */
	const char *thread;     /* label values; NULL: no label */
	const char *user;
	const char *statement;
	const char *root;       /* a frame above every event; NULL: none */
};

/* The text of a profile's labels, with the room it needs. */
struct pprof_labels {
	char thread[700];
	char user[600];
	char statement[STATEMENT_TEXT_MAX + 1];
};

/*
 * v counted in units of unit nanoseconds, in nanoseconds; saturated, for a
 * time read back (--read) that no clock gives.
 */
int64_t pprof_ns(int64_t v, int64_t unit);

/*
 * The labels of sample s of a thread, or of a grain ("global",
 * "user:NAME", "host:NAME", "account:USER@HOST"; NULL for a thread), into
 * m, their text in l: thread is the thread id or the grain, user the
 * account name of a user or account grain, statement the text of the
 * statement (to a NUL it may hold). The times and the root are the
 * caller's to set.
 */
void pprof_meta_of(const struct sample *s, const char *grain,
    struct pprof_labels *l, struct pprof_meta *m);

/* One sample as a gzipped perftools.profiles.Profile in a malloc'd buffer. */
int pprof_encode(const struct sample *s, const struct pprof_meta *m,
    unsigned char **buf, size_t *len);   /* 0, or -1 with errno */

struct Perftools__Profiles__Profile; /* profile.pb-c.h */

/*
 * A message built with protobuf-c's structs, packed and gzipped into a
 * malloc'd buffer, as a profile is sent; 0, or -1 with errno.
 */
int pprof_pack(const struct Perftools__Profiles__Profile *p,
    unsigned char **buf, size_t *len);

#endif
