/*
 * The page of an incident (incident.h): what happened, the cgroup's
 * counters and the kernel's line, the chart of the window's samples
 * (resident, counted and the limit over time), the connections that held
 * the most when it happened with their statements, and those that grew
 * fastest. Self-contained HTML, as --format html's: nothing fetched.
 */
#ifndef MYSQLMEMPROF_INCIDENT_PAGE_H
#define MYSQLMEMPROF_INCIDENT_PAGE_H

#include <stdio.h>

#include "incident_heap.h"
#include "incident_line.h"

/*
 * Writes the page of in from the incident's lines (len bytes of JSON
 * Lines, as incident_write() gathered them), and heap's section (NULL:
 * none; incident_heap.h). Returns 0, or -1 with errno.
 */
int incident_page(FILE *fp, const struct incident *in, const char *lines,
    size_t len, const struct incident_heap *heap);

#endif
