/*
 * The JSON format's string writer, private to it; its own header so that
 * its unit test can compare it with the plain rule byte by byte.
 */
#ifndef MYSQLMEMPROF_OUTPUT_JSON_H
#define MYSQLMEMPROF_OUTPUT_JSON_H

#include <stddef.h>

#include "output_buf.h"

/*
 * The n bytes at s as a quoted JSON string: escaped where JSON needs it,
 * where scrub.h keeps a code point from terminals, and U+FFFD for each
 * byte that starts no UTF-8 sequence.
 */
void json_put_string(struct output_buf *b, const char *s, size_t n);

#endif
