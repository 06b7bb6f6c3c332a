/*
 * A file written whole in a folder the caller holds open: the incidents'
 * files and the black box's heap dumps (heapkeep) both need it, so it
 * sits below both.
 */
#ifndef MYSQLMEMPROF_DIRFILE_H
#define MYSQLMEMPROF_DIRFILE_H

#include <stddef.h>

/*
 * Writes n bytes to name in the folder fd through a temporary name
 * (NAME.tmp), synced, then renamed: whole or not at all. The temporary
 * file is made anew, never one found there. 0, or -1 with errno.
 */
int dirfile_write_whole(int fd, const char *name, const void *p, size_t n);

#endif
