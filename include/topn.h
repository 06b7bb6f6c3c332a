/* Choosing the events a sample keeps. */
#ifndef MYSQLMEMPROF_TOPN_H
#define MYSQLMEMPROF_TOPN_H

#include <stddef.h>

#include "sample.h"

/*
 * Puts into order[] pointers to the k events of src[0..n) with the largest
 * current bytes, largest first (ties: larger high-water mark, then name);
 * k == 0 means all. order[] must hold n pointers. Returns how many it kept.
 */
size_t topn_select(const struct event_stat *src, size_t n, size_t k,
    const struct event_stat **order);

#endif
