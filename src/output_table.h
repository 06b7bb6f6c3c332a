/* The output formats by name: --format, --help and messages. */
#ifndef MYSQLMEMPROF_OUTPUT_TABLE_H
#define MYSQLMEMPROF_OUTPUT_TABLE_H

#include "output.h"

/* The format of that name, or NULL. */
const struct format *output_table_find(const char *name);
/*
 * The names of the formats, last joined by `last`: ", " gives "text, csv,
 * json" (messages), " or " gives "text, csv or json" (--help).
 */
const char *output_table_names(const char *last);

#endif
