/* The program: parses, connects, samples, reports; returns the exit status. */
#ifndef MYSQLMEMPROF_APP_H
#define MYSQLMEMPROF_APP_H

/* Exit statuses, as the man page documents them. */
enum {
	EXIT_DONE = 0,
	EXIT_RUNTIME = 1,
	EXIT_USAGE = 2,
	EXIT_NO_MATCH = 3, /* --wait-timeout passed and nothing was captured */
};

int app_run(int argc, char **argv);

#endif
