/*
 * The incident's second picture (incident_page.h): over the window, the
 * memory of the connections that held the most, each a line, beside the
 * server's resident memory and its cgroup's limit. The chart of the
 * events (picture.h) cannot show them: the record reads the events at a
 * slower beat (beat.h), the connections and the process every second.
 */
#ifndef MYSQLMEMPROF_INCIDENT_PLOT_H
#define MYSQLMEMPROF_INCIDENT_PLOT_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* Connections drawn at most. */
#define PLOT_CONNECTIONS 5

/*
 * Writes the <svg> of the window's lines (len bytes of JSON Lines) with a
 * line for each of the n connection ids (n at most PLOT_CONNECTIONS).
 * Returns 0, or -1 with errno when out of memory (nothing written).
 */
int incident_plot(FILE *fp, const char *lines, size_t len,
    const uint64_t *ids, size_t n);

#endif
