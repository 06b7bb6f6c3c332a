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

#include "incident_line.h"

/* The newest incidents kept in DIR/incidents; older ones are removed. */
#define INCIDENTS_KEPT 100

/* Where incident_write() says what it passed over (a FIFO, a link). */
struct incident_notes {
	void (*note)(void *ctx, const char *msg);
	void *ctx;
};

/*
 * Writes DIR/incidents/STAMP-KIND.jsonl and .html from the segments'
 * records of the window_ms before in->at_ms, then removes the oldest
 * beyond INCIDENTS_KEPT; path gets the page's. notes may be NULL.
 * Returns 0, or -1 with err set.
 */
int incident_write(const char *dir, const struct incident *in,
    int64_t window_ms, const struct incident_notes *notes, char *path,
    size_t pathlen, char *err, size_t errlen);

/*
 * The same from the folder segfd into the folder fd (DIR/segments and
 * DIR/incidents, opened by the recorder): what is in them is reached
 * without following links, whatever DIR's name leads to since.
 */
int incident_write_at(const char *dir, int segfd, int fd,
    const struct incident *in, int64_t window_ms,
    const struct incident_notes *notes, char *path, size_t pathlen,
    char *err, size_t errlen);

#endif
