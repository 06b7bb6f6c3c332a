/*
 * The program: parses, picks the mode from one table (a capture, waiting
 * for statements, --list, its top, --listen, --read), makes ready what the
 * mode needs (a terminal, a connection, the output file), runs it, and
 * returns the exit status (exitcode.h).
 */
#ifndef MYSQLMEMPROF_APP_H
#define MYSQLMEMPROF_APP_H

int app_run(int argc, char **argv);

#endif
