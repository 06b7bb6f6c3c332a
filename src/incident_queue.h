/*
 * The incidents of the record written by a thread of their own, in the
 * order they came, so that the sampling thread only hands one over: at
 * many connections an incident's window is read and drawn for longer
 * than a tick. The thread reads the segments the recorder goes on
 * appending to (incident.h). Owned by the recorder (record.c).
 */
#ifndef MYSQLMEMPROF_INCIDENT_QUEUE_H
#define MYSQLMEMPROF_INCIDENT_QUEUE_H

#include <signal.h>
#include <stdint.h>

#include "incident_line.h"

/* Incidents waiting while one is written; one more is not written. */
#define INCIDENT_QUEUE_WAITING 8

struct incident_queue;

/*
 * Starts the thread that writes the incidents of DIR (kept, not copied)
 * from segfd into incfd, its segments' and its incidents' folders (the
 * recorder's descriptors, kept open until incident_queue_finish()), each
 * of the window_ms before it. Once *stop is set (SIGINT, SIGTERM), the
 * one being written is finished and those waiting are not (stop may be
 * NULL: none). NULL with errno set when no thread could be made.
 */
struct incident_queue *incident_queue_start(const char *dir, int segfd,
    int incfd, int64_t window_ms, volatile sig_atomic_t *stop);

/*
 * Hands a copy of *in to the thread. Returns 0, or -1 when
 * INCIDENT_QUEUE_WAITING wait already (the incident's line is in the
 * record all the same).
 */
int incident_queue_post(struct incident_queue *q, const struct incident *in);

/*
 * Writes the incidents handed over and not yet written, ends the thread
 * and frees q. After a stop, only the one being written: those waiting
 * are dropped with one note naming them (their lines are in the record),
 * so that a stop at thousands of connections, seconds an incident, is
 * not killed by systemd's timeout. NULL is let be.
 */
void incident_queue_finish(struct incident_queue *q);

#endif
