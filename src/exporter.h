/*
 * --listen: mysqlmemprof as a long-lived Prometheus exporter. Captures
 * run one after another on the calling thread, reconnecting as captures
 * do, and hand each sample to the exporter; an HTTP server (libmicrohttpd,
 * on a thread of its own) serves the latest one. No endpoint queries the
 * server or runs SQL, so a scrape never waits on a slow server.
 */
#ifndef MYSQLMEMPROF_EXPORTER_H
#define MYSQLMEMPROF_EXPORTER_H

#include "capture.h"

/*
 * Serves until SIGINT or SIGTERM (or --count, --duration), and returns
 * the exit status: 0 then; 1 when the address cannot be listened on (in
 * use); 2 when it cannot be resolved. env->session has its parameters
 * and is not connected: the exporter connects, and connects again after
 * a capture ends with the server gone, serving mysqlmemprof_up 0 all the
 * while. env->observer is ignored: the exporter is the observer.
 */
int exporter_run(const struct capture_env *env);

#endif
