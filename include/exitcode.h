/* The exit statuses of mysqlmemprof, as the man page documents them. */
#ifndef MYSQLMEMPROF_EXITCODE_H
#define MYSQLMEMPROF_EXITCODE_H

enum {
	EXIT_DONE = 0,
	EXIT_RUNTIME = 1,
	EXIT_USAGE = 2,
	EXIT_NO_MATCH = 3, /* --wait-timeout passed and nothing was captured */
	/*
	 * A reconnect found a server that shows a TLS certificate other than
	 * the first connection's, or no TLS where it had TLS (CONN_UNTRUSTED):
	 * a status of its own, so that a service manager's restart, which
	 * would take whatever answers as the first connection, can be
	 * prevented (debian/'s units: RestartPreventExitStatus=).
	 */
	EXIT_CERT_CHANGED = 4,
	/*
	 * --heap: the server is not profiled by jemalloc, or has written no
	 * dump yet: nothing to read, which a script may wait out.
	 */
	EXIT_NO_PROFILE = 5,
};

#endif
