/*
 * MySQL option files (my.cnf), read the way the MySQL clients read them:
 * [group] sections, key=value lines, quotes and escapes, !include and
 * !includedir; and the login path file, whose lines are the same,
 * encrypted.
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
/*
 * Appends the entries of groups from the login path file of
 * mysql_config_editor (~/.mylogin.cnf, whose lines are encrypted); seen[i]
 * (if not NULL) is set when the file has a group groups[i], and *found
 * when the file was read. A missing file is skipped; one that others may
 * read is skipped with a warning, as mysql does. Returns 0, or -1 with
 * one line in err.
 */
int optfile_read_login(const char *path, const char *const *groups,
    bool *seen, bool *found, struct optfile_list *out, char *warn,
    size_t warnlen, char *err, size_t errlen);
/* Moves *e to the end of l: l owns its strings, *e is left empty. */
int optfile_list_take(struct optfile_list *l, struct optfile_entry *e);
void optfile_list_free(struct optfile_list *l);

#endif
