/*
 * MySQL option files (my.cnf), read the way the MySQL clients read them:
 * [group] sections, key=value lines, quotes and escapes, !include and
 * !includedir.
 */
#ifndef MYSQLMEMPROF_OPTFILE_H
#define MYSQLMEMPROF_OPTFILE_H

#include <stdbool.h>
#include <stddef.h>

struct optfile_entry {
	char *key;     /* '_' turned into '-' */
	char *value;   /* NULL for a key without '=' */
	char *group;   /* the group it was read from */
	char *origin;  /* "FILE:LINE", for messages */
};

struct optfile_list {
	struct optfile_entry *v; /* in the order read; owned by the list */
	size_t n;
	size_t cap;
};

/*
 * Appends the entries of the groups named in groups (NULL-terminated) from
 * path to out. A missing file is skipped unless must_exist. World-writable
 * files are skipped with a warning in warn (if not NULL), as mysql does.
 * Returns 0, or -1 with one line in err.
 */
int optfile_read(const char *path, const char *const *groups, bool must_exist,
    struct optfile_list *out, char *warn, size_t warnlen, char *err,
    size_t errlen);
void optfile_list_free(struct optfile_list *l);

#endif
