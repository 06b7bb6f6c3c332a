/*
 * The CSV format's text field writer, private to it; its own header so
 * that its unit test can compare it with the plain rule byte by byte.
 */
#ifndef MYSQLMEMPROF_OUTPUT_CSV_H
#define MYSQLMEMPROF_OUTPUT_CSV_H

#include <stddef.h>

#include "output_buf.h"

/*
 * The n bytes at s as a quoted field: quotes doubled, a NUL as \0, and a
 * ' before a leading formula character.
 */
void csv_put_text(struct output_buf *b, const char *s, size_t n);

#endif
