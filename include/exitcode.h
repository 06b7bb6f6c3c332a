/* The exit statuses of mysqlmemprof, as the man page documents them. */
#ifndef MYSQLMEMPROF_EXITCODE_H
#define MYSQLMEMPROF_EXITCODE_H

enum {
	EXIT_DONE = 0,
	EXIT_RUNTIME = 1,
	EXIT_USAGE = 2,
	EXIT_NO_MATCH = 3, /* --wait-timeout passed and nothing was captured */
};

#endif
