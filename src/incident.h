/*
 * An incident of the black box (record.h): what happened and when, with
 * the minutes of records before it, written into DIR/incidents as JSON
 * Lines (what --read replays: the lines of the segments in that window,
 * the connections whole at its start) and as a page (incident_page.h),
 * each file whole or not at all, named by the incident's UTC time and
 * kind.
 */
#ifndef MYSQLMEMPROF_INCIDENT_H
#define MYSQLMEMPROF_INCIDENT_H

#include <stddef.h>
#include <stdint.h>

#include "obuf.h"
#include "sample.h"

enum incident_kind {
	INCIDENT_GONE,        /* the server went away */
	INCIDENT_RESTARTED,   /* it came back another run */
	INCIDENT_OOM_KILL,    /* its cgroup's OOM-kill count rose */
	INCIDENT_LIMIT_SHARE, /* its resident memory passed --incident-share */
};

struct incident {
	enum incident_kind kind;
	int64_t at_ms;          /* UTC */
	char what[1400];        /* one line, for people */
	/* The last sample's process, its cgroup read again after the event. */
	struct process_memory process;
	char cgroup_dir[4096];  /* where it was read; "" none */
	char kmsg[1024];        /* the kernel's OOM line of the server; "" */
};

/* "server-gone", "restarted", "oom-kill", "limit-share". */
const char *incident_kind_name(enum incident_kind k);

/*
 * The incident's line, as the segment and the incident's JSONL hold it:
 * {"type":"incident",...}\n.
 */
void incident_put_line(struct obuf *b, const struct incident *in);

/* The stamp of a record's line: its "timestamp"; -1 when it has none. */
int64_t incident_line_ms(const char *line, size_t n);

/*
 * Writes DIR/incidents/STAMP-KIND.jsonl and .html from the segments'
 * records of the window_ms before in->at_ms; path gets the page's.
 * Returns 0, or -1 with err set.
 */
int incident_write(const char *dir, const struct incident *in,
    int64_t window_ms, char *path, size_t pathlen, char *err,
    size_t errlen);

#endif
