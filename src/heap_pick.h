/*
 * Which dumps --heap reads: of the server's process (its pid as the
 * session learnt it, trusted through /proc), the newest under its
 * MALLOC_CONF prof_prefix or --heap-dir, and the base --heap-base names;
 * or the file --heap-file names. Says nothing: an exit status and err.
 */
#ifndef MYSQLMEMPROF_HEAP_PICK_H
#define MYSQLMEMPROF_HEAP_PICK_H

#include <limits.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "options.h"
#include "session.h"

struct heap_pick {
	pid_t pid;              /* the process of the dumps; 0: not known */
	char dump[PATH_MAX];    /* the dump read */
	char base[PATH_MAX];    /* the base of a growth; "": none */
	/*
	 * The server's dump before the newest (not the base), read when the
	 * newest is cut short (jemalloc still writing it); "": none.
	 */
	char prev[PATH_MAX];
	/* /proc/PID/root when the server runs in a chroot; "": "/" */
	char root[96];
	/*
	 * /proc/PID/maps when the server's root has no /proc, so that its
	 * jemalloc wrote its dumps without their maps; "": they have them.
	 */
	char maps_now[96];
	char fds[96];           /* /proc/PID/fd of the server; "": none */
	/*
	 * A note when the folder of the dumps holds more than
	 * HEAP_FOLDER_FILES dumps or HEAP_FOLDER_BYTES; "": it does not.
	 */
	char folder_note[PATH_MAX + 512];
};

/* Past these, the folder of dumps gets a note: nothing prunes it. */
#define HEAP_FOLDER_FILES 1000
#define HEAP_FOLDER_BYTES ((uint64_t)1 << 30)

/*
 * The server's dumps into *out. proc: where /proc is (NULL: /proc).
 * Returns 0, or the exit status with one line in err: EXIT_NO_PROFILE
 * when the server is not profiled or has no dump yet, EXIT_RUNTIME when
 * its process is not here or a dump is not its own.
 */
int heap_pick_server(const struct session *s, const struct options *o,
    const char *proc, struct heap_pick *out, char *err, size_t errlen);

/*
 * Whether the server still holds path open (jemalloc writing it): what
 * tells a dump of no MAPPED_LIBRARIES cut short between two stacks from a
 * whole one, which it otherwise resembles. 0 when not known (no fds).
 */
int heap_pick_being_written(const struct heap_pick *p, const char *path);

/* --heap-file's dump and --heap-base's file into *out; 0. */
int heap_pick_file(const struct options *o, struct heap_pick *out);

#endif
