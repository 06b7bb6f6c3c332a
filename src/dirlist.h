/*
 * A folder's entries in name order (the record's names sort as time
 * does; a dot before any other character, so that a name's stem sorts
 * as itself: X.html before X-2.html), read through a descriptor of the
 * folder: the record
 * reaches its folders from DIR's descriptor without following a link,
 * and the listing opens its own (openat "."), so the caller's offset is
 * never moved.
 */
#ifndef MYSQLMEMPROF_DIRLIST_H
#define MYSQLMEMPROF_DIRLIST_H

#include <stdbool.h>
#include <stddef.h>

/* Whether the entry name is listed; ctx is the caller's. */
typedef bool (*dirlist_keep_fn)(const char *name, void *ctx);

/*
 * The entries of the folder fd that keep takes (all but "." and ".."
 * when keep is NULL), sorted: *names and each name allocated
 * (dirlist_free()). Returns 0 (none: *names NULL, *n 0), or -1 with
 * errno set.
 */
int dirlist_at(int fd, dirlist_keep_fn keep, void *ctx, char ***names,
    size_t *n);

void dirlist_free(char **names, size_t n);

#endif
