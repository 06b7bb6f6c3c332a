/* Byte counts for people (times: utc.h). */
#ifndef MYSQLMEMPROF_UNITS_H
#define MYSQLMEMPROF_UNITS_H

#include <stddef.h>
#include <stdint.h>

/*
 * "512 B", "25.22 KiB", "1.50 MiB", "-3.00 GiB": binary units, two
 * decimals; returns its length.
 */
size_t units_bytes(int64_t bytes, char *buf, size_t len);

#endif
