/*
 * The command line and option files, turned into struct options. Parsing
 * prints nothing and never exits: it returns a status and one line of error.
 * Each option is one row of the table in src/cli_options.c, which names the
 * field of struct options (options.h) that it sets.
 */
#ifndef MYSQLMEMPROF_CLI_H
#define MYSQLMEMPROF_CLI_H

#include <stddef.h>
#include <stdio.h>

#include "options.h"

/*
 * Where option files and the environment are looked up; tests point these
 * elsewhere. A NULL entry is skipped.
 */
struct cli_env {
	const char *const *system_files; /* NULL-terminated: /etc/my.cnf, ... */
	const char *mysql_home;          /* $MYSQL_HOME, for its my.cnf */
	const char *home;                /* for ~/.my.cnf */
	/* The login path file: $MYSQL_TEST_LOGIN_FILE, or ~/.mylogin.cnf. */
	const char *login_file;
	const char *mysql_pwd;           /* $MYSQL_PWD */
};

/*
 * The environment of the real program: /etc/my.cnf, $HOME, the login
 * path file, $MYSQL_PWD.
 */
struct cli_env cli_env_system(void);

/*
 * Parses option files then argv (the command line wins). warn receives a
 * note the caller should print (e.g. an ignored world-writable file). A
 * password in argv is overwritten with 'x' once copied.
 */
enum cli_status cli_parse(int argc, char **argv, const struct cli_env *env,
    struct options *opts, char *warn, size_t warnlen, char *err,
    size_t errlen);
void cli_free(struct options *opts);
void cli_usage(FILE *fp);

#endif
