/*
 * The program: parses, connects, decides the mode (--list, a capture, or
 * waiting for statements), and returns the exit status (exitcode.h).
 */
#ifndef MYSQLMEMPROF_APP_H
#define MYSQLMEMPROF_APP_H

int app_run(int argc, char **argv);

#endif
