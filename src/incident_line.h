/*
 * What an incident is (record.h, incident.h), and the lines of the record
 * as the incident's readers take them: the incident's own line, and the
 * time any line is stamped with. Pure: into a buffer, from a line given.
 */
#ifndef MYSQLMEMPROF_INCIDENT_LINE_H
#define MYSQLMEMPROF_INCIDENT_LINE_H

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
	/*
	 * The last heap dump the record kept before it (heapkeep.h), its
	 * name under DIR/heap ("": none), the one kept before it ("": none),
	 * its total; heapfd is DIR/heap, the recorder's, open until its
	 * incidents are written, read only when heap_dump is set.
	 */
	char heap_dump[96], heap_base[96];
	int64_t heap_bytes;
	int heapfd;
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

#endif
