/*
 * The files of /proc that say what the server's process holds, opened
 * and read; procmem.h parses their text. The root is "/proc", or a tree
 * of fixtures in the unit tests.
 */
#ifndef MYSQLMEMPROF_PROCFS_H
#define MYSQLMEMPROF_PROCFS_H

#include <stddef.h>
#include <stdint.h>

#include "procmaps.h"
#include "procmem.h"

#define PROCFS_ROOT "/proc"

/*
 * A small file of the kernel's (/proc, /sys: read whole in one go) into
 * buf, NUL-terminated, cut at len - 1 bytes. 0, or -1 with errno.
 */
int procfs_read_text(const char *path, char *buf, size_t len);

/*
 * Whether pid, which the server that started at boot_s gave, is that
 * server's process on this machine; *why says why not.
 */
enum procmem_trust procfs_check(const char *root, uint64_t pid,
    int64_t boot_s, char *why, size_t whylen);

/*
 * The resident memory of pid into *out: status (which everyone may read,
 * and cheap), else smaps_rollup. Returns 0, or -1 (errno set) when neither
 * is read, as when the process has ended.
 */
int procfs_memory(const char *root, uint64_t pid, struct process_memory *out);

/*
 * The layers of pid into *out: status, then smaps walked a line at a time
 * (maps when smaps cannot be read: no resident figures per region then).
 * Returns 0; -1 with out->known false and out->why set when the process
 * is gone or its maps are not ours to read (status figures may be set).
 */
int procfs_layers(const char *root, uint64_t pid, struct process_layers *out);

#endif
