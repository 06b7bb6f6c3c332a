/* Asking the person at the terminal for a password. */
#ifndef MYSQLMEMPROF_PROMPT_H
#define MYSQLMEMPROF_PROMPT_H

#include <stddef.h>

/*
 * Prints prompt on the terminal and reads a line without echo into buf.
 * Returns 0, or -1 with errno set: ENXIO, there is no terminal; EINTR,
 * Ctrl-C or SIGTERM; 0, the input ended without a line.
 */
int prompt_password(const char *prompt, char *buf, size_t len);

#endif
