/*
 * What output.c shares with the format files, and only with them: each
 * format's row of the table, and the helpers more than one format needs.
 */
#ifndef MYSQLMEMPROF_OUTPUT_FORMAT_H
#define MYSQLMEMPROF_OUTPUT_FORMAT_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "output.h"

extern const struct format format_text;
extern const struct format format_csv;
extern const struct format format_json;

/*
 * The length (1 to 4) of the well-formed UTF-8 sequence at s, of which n
 * bytes are left, and its code point in *cp; 0 when s[0] starts none.
 */
size_t output_utf8(const char *s, size_t n, uint32_t *cp);

/* 0, or -1 with errno set when a write to fp has failed. */
int output_status(FILE *fp);

#endif
