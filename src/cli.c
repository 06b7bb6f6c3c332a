/*
 * Command line and option files. The option table (cli_options.c) names
 * every option once; this file walks it: getopt_long() and the option-file
 * keys, the defaults, the checks between options, and --help.
 */
#include <getopt.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "cli.h"
#include "cli_table.h"
#include "modes.h"
#include "optfile.h"

/* Groups read from option files, as the issue and mysql(1) do. */
static const char *const groups[] = { "client", "mysqlmemprof", NULL };

/*
 * What getopt_long() returns for the long option of row i; a short option
 * comes back as its letter.
 */
#define LONG_VAL(i) (256 + (int)(i))

static const struct cli_row *
row_by_val(int val)
{
	if (val >= LONG_VAL(0) && val < LONG_VAL(cli_n_rows))
		return &cli_rows[val - LONG_VAL(0)];
	for (size_t i = 0; i < cli_n_rows && val > 0; i++)
		if (cli_rows[i].short_name == val)
			return &cli_rows[i];
	return NULL;
}

static const struct cli_row *
row_by_name(const char *name)
{
	for (size_t i = 0; i < cli_n_rows; i++)
		if (cli_rows[i].name != NULL &&
		    strcmp(cli_rows[i].name, name) == 0)
			return &cli_rows[i];
	return NULL;
}

/* getopt_long()'s has_arg: a row whose --help names no value takes none. */
static int
has_arg(const struct cli_row *r)
{
	if (r->arg == NULL)
		return no_argument;
	return r->optional_arg ? optional_argument : required_argument;
}

/* A boolean in an option file: "bytes", "bytes=1", "bytes=OFF", ... */
static int
file_boolean(const char *value, int *on)
{
	static const char *const yes[] = { "1", "on", "true", "yes", NULL };
	static const char *const no[] = { "0", "off", "false", "no", NULL };

	if (value == NULL) {
		*on = 1;
		return 0;
	}
	for (int i = 0; yes[i] != NULL; i++)
		if (strcasecmp(value, yes[i]) == 0)
			return *on = 1, 0;
	for (int i = 0; no[i] != NULL; i++)
		if (strcasecmp(value, no[i]) == 0)
			return *on = 0, 0;
	return -1;
}

static int
apply_file_entry(struct cli_parse *ps, const struct optfile_entry *e)
{
	char where[4200];
	const char *key = e->key;
	int loose = 0, on;
	const struct cli_row *r;

	/* "loose-" marks an option this program may not know: ignore it then. */
	if (strncmp(key, "loose-", 6) == 0) {
		key += 6;
		loose = 1;
	}
	r = row_by_name(key);
	/*
	 * [client] is shared by every MySQL client, and so is a login path:
	 * skip what is not ours.
	 */
	if (r == NULL || r->command_line_only) {
		if (loose || strcasecmp(e->group, "client") == 0 ||
		    (ps->login_group != NULL &&
		    strcasecmp(e->group, ps->login_group) == 0))
			return 0;
		if (r != NULL)
			snprintf(ps->err, ps->errlen, "'%s' in [%s] at %s works "
			    "only on the command line; remove it from the file",
			    e->key, e->group, e->origin);
		else
			snprintf(ps->err, ps->errlen, "unknown option '%s' in [%s] "
			    "at %s; remove it or prefix it with loose-", e->key,
			    e->group, e->origin);
		return -1;
	}
	snprintf(where, sizeof(where), " in %s", e->origin);
	ps->where = where;
	if (has_arg(r) == no_argument) {
		if (file_boolean(e->value, &on) != 0) {
			snprintf(ps->err, ps->errlen, "%s in %s: '%s' is not a "
			    "boolean; give 0 or 1", e->key, e->origin, e->value);
			return -1;
		}
		if (!on) {
			cli_apply_off(ps, r);
			return 0;
		}
		return cli_apply(ps, r, NULL, true);
	}
	if (has_arg(r) == required_argument && e->value == NULL) {
		snprintf(ps->err, ps->errlen, "%s in %s needs a value; write "
		    "%s=VALUE", e->key, e->origin, e->key);
		return -1;
	}
	return cli_apply(ps, r, e->value, true);
}

/* The long and short options of getopt_long(), from the rows. */
static void
build_getopt(struct option *lo, char *shortopts)
{
	size_t n = 0;
	char *s = shortopts;

	*s++ = ':'; /* a missing value returns ':', not '?' */
	for (size_t i = 0; i < cli_n_rows; i++) {
		const struct cli_row *r = &cli_rows[i];

		if (r->name == NULL)
			continue;
		lo[n++] = (struct option){ r->name, has_arg(r), NULL,
		    LONG_VAL(i) };
		if (r->short_name == 0)
			continue;
		*s++ = r->short_name;
		if (has_arg(r) != no_argument)
			*s++ = ':';
		if (has_arg(r) == optional_argument)
			*s++ = ':';
	}
	lo[n] = (struct option){ 0 };
	*s = '\0';
}

/* First pass: only the options that say which option files to read. */
static void
scan_file_options(int argc, char **argv, const char *shortopts,
    const struct option *lo, struct file_choice *fc)
{
	const struct cli_row *r;
	int c;

	opterr = 0;
	optind = 0; /* glibc: a full reset, so cli_parse() can run again */
	while ((c = getopt_long(argc, argv, shortopts, lo, NULL)) != -1) {
		if ((r = row_by_val(c)) == NULL || r->kind != KIND_FILES)
			continue;
		if (has_arg(r) == no_argument)
			*(bool *)((char *)fc + r->field) = true;
		else
			*(const char **)((char *)fc + r->field) = optarg;
	}
}

static int
read_option_files(const struct file_choice *fc, const struct cli_env *env,
    struct optfile_list *list, char *warn, size_t warnlen, char *err,
    size_t errlen)
{
	char path[4096];

	if (fc->no_defaults)
		return 0;
	if (fc->defaults_file != NULL)
		return optfile_read(fc->defaults_file, groups, true, list, warn,
		    warnlen, err, errlen);
	for (const char *const *f = env->system_files; f && *f; f++)
		if (optfile_read(*f, groups, false, list, warn, warnlen, err,
		    errlen) != 0)
			return -1;
	if (env->mysql_home != NULL && *env->mysql_home != '\0') {
		snprintf(path, sizeof(path), "%s/my.cnf", env->mysql_home);
		if (optfile_read(path, groups, false, list, warn, warnlen, err,
		    errlen) != 0)
			return -1;
	}
	if (fc->extra_file != NULL && optfile_read(fc->extra_file, groups,
	    true, list, warn, warnlen, err, errlen) != 0)
		return -1;
	if (env->home != NULL && *env->home != '\0') {
		snprintf(path, sizeof(path), "%s/.my.cnf", env->home);
		if (optfile_read(path, groups, false, list, warn, warnlen, err,
		    errlen) != 0)
			return -1;
	}
	return 0;
}

/*
 * The login path file (~/.mylogin.cnf), read whatever --no-defaults or
 * --defaults-file say, as mysql does: [client], [mysqlmemprof] and the
 * group --login-path names. Its entries go to list in that order of
 * groups, so that the login path's own wins over [client].
 */
static int
read_login_file(const struct file_choice *fc, const struct cli_env *env,
    struct optfile_list *list, char *warn, size_t warnlen, char *err,
    size_t errlen)
{
	const char *name = fc->login_path;
	const char *login_groups[] = { "client", "mysqlmemprof", name, NULL };
	bool seen[3] = { false, false, false }, found;
	struct optfile_list all = { 0 };
	char path[4096];

	if (env->login_file != NULL)
		snprintf(path, sizeof(path), "%s", env->login_file);
	else if (env->home != NULL && *env->home != '\0')
		snprintf(path, sizeof(path), "%s/.mylogin.cnf", env->home);
	else
		path[0] = '\0';
	if (path[0] != '\0' && optfile_read_login(path, login_groups, seen,
	    &found, &all, warn, warnlen, err, errlen) != 0) {
		optfile_list_free(&all);
		return -1;
	}
	if (name != NULL && (path[0] == '\0' || !found || !seen[2])) {
		if (path[0] == '\0' || !found)
			snprintf(err, errlen, "--login-path=%s: no login path "
			    "file %s was read; make one with mysql_config_editor "
			    "set --login-path=%s", name, path[0] != '\0' ? path :
			    "(no $HOME)", name);
		else
			snprintf(err, errlen, "--login-path=%s: %s has no such "
			    "login path; see mysql_config_editor print --all",
			    name, path);
		optfile_list_free(&all);
		return -1;
	}
	/* [client] and [mysqlmemprof] first, in the file's order; then NAME. */
	for (int pass = 0; pass < 2; pass++) {
		for (size_t i = 0; i < all.n; i++) {
			struct optfile_entry *e = &all.v[i];
			bool own = e->group != NULL && name != NULL &&
			    strcasecmp(e->group, name) == 0 &&
			    strcasecmp(name, "client") != 0 &&
			    strcasecmp(name, "mysqlmemprof") != 0;

			/* What the first pass took is left empty. */
			if (e->group == NULL || own != (pass == 1))
				continue;
			if (optfile_list_take(list, e) != 0) {
				snprintf(err, errlen, "out of memory reading %s",
				    path);
				optfile_list_free(&all);
				return -1;
			}
		}
	}
	optfile_list_free(&all);
	return 0;
}

/*
 * The long options that "--word" (up to any '=') abbreviates, listed into
 * buf as "--a, --b or --c"; returns how many.
 */
static size_t
abbreviated(const char *word, char *buf, size_t len)
{
	size_t n = strcspn(word + 2, "="), found = 0, used = 0;

	if (strncmp(word, "--", 2) != 0 || n == 0)
		return 0;
	for (size_t i = 0; i < cli_n_rows; i++) {
		const char *name = cli_rows[i].name;

		if (name == NULL || strncmp(name, word + 2, n) != 0)
			continue;
		if (found++ > 0 && used < len)
			used += snprintf(buf + used, len - used, ", ");
		if (used < len)
			used += snprintf(buf + used, len - used, "--%s", name);
	}
	/* The last ", " becomes " or ". */
	char *last = found > 1 ? strrchr(buf, ',') : NULL;
	if (last != NULL && used + 2 < len) {
		memmove(last + 3, last + 1, strlen(last + 1) + 1);
		memcpy(last, " or", 3);
	}
	return found;
}

static enum cli_status
unknown_option(struct cli_parse *ps, int argc, char **argv)
{
	const char *arg = optind > 0 && optind <= argc ? argv[optind - 1] : "?";
	const struct cli_row *r = row_by_val(optopt);
	char could[256] = "";

	/* getopt_long() sets optopt to a long option given a value it takes none of. */
	if (optopt == 0 && abbreviated(arg, could, sizeof(could)) > 1)
		snprintf(ps->err, ps->errlen, "option '%.*s' is ambiguous: it "
		    "could be %s", (int)strcspn(arg, "="), arg, could);
	else if (r != NULL && has_arg(r) == no_argument)
		snprintf(ps->err, ps->errlen, "--%s takes no value; write --%s "
		    "alone", r->name, r->name);
	else if (optopt > 0 && optopt < 128)
		snprintf(ps->err, ps->errlen, "unknown option '-%c'; see "
		    "mysqlmemprof --help", optopt);
	else
		snprintf(ps->err, ps->errlen, "unknown option '%s'; see "
		    "mysqlmemprof --help", arg);
	return CLI_USAGE;
}

static enum cli_status
missing_argument(struct cli_parse *ps, int argc, char **argv)
{
	const struct cli_row *r = row_by_val(optopt);
	const char *arg = optind > 0 && optind <= argc ? argv[optind - 1] : "?";

	if (r != NULL)
		snprintf(ps->err, ps->errlen, "--%s needs a value; write "
		    "--%s=VALUE", r->name, r->name);
	else
		snprintf(ps->err, ps->errlen, "%s needs a value; see "
		    "mysqlmemprof --help", arg);
	return CLI_USAGE;
}

/*
 * Whether the separate value of an option is an option itself, as in
 * "--connection --count 3": then the value was left out.
 */
static bool
value_is_option(const char *value)
{
	char could[8];

	if (value[0] != '-' || value[1] == '\0')
		return false;
	if (value[1] == '-')
		return abbreviated(value, could, sizeof(could)) > 0;
	return value[2] == '\0' && row_by_val((unsigned char)value[1]) != NULL;
}

/* Second pass: the command line itself, over what the files set. */
static enum cli_status
parse_command_line(struct cli_parse *ps, int argc, char **argv,
    const char *shortopts, const struct option *lo)
{
	int c;

	opterr = 0;
	optind = 0;
	for (;;) {
		const struct cli_row *r;

		optopt = 0;
		if ((c = getopt_long(argc, argv, shortopts, lo, NULL)) == -1)
			break;
		if (c == ':')
			return missing_argument(ps, argc, argv);
		/*
		 * getopt_long() returns '?' both for -? and for an unknown
		 * option; only the unknown ones set optopt or start with "--".
		 */
		if (c == '?' && (optopt != 0 ||
		    strncmp(argv[optind - 1], "--", 2) == 0))
			return unknown_option(ps, argc, argv);
		if ((r = row_by_val(c)) == NULL)
			return unknown_option(ps, argc, argv);
		if (r->kind == KIND_EXIT)
			return r->status;
		if (optarg != NULL && optarg == argv[optind - 1] &&
		    value_is_option(optarg)) {
			snprintf(ps->err, ps->errlen, "--%s needs a value, and "
			    "'%s' is an option; write --%s=VALUE", r->name,
			    optarg, r->name);
			return CLI_USAGE;
		}
		ps->where = "";
		if (cli_apply(ps, r, optarg, false) != 0)
			return CLI_USAGE;
		/*
		 * optarg points into argv: once copied, a secret is
		 * overwritten there, whatever form or abbreviation gave it,
		 * so that ps(1) and /proc/PID/cmdline do not show it.
		 */
		if (r->secret && optarg != NULL)
			memset(optarg, 'x', strlen(optarg));
	}
	if (optind < argc && ps->o->password_prompt) {
		/* Likely "-p secret": never echo what may be a password. */
		snprintf(ps->err, ps->errlen, "unexpected argument after -p; a "
		    "password must be attached (-pPASSWORD or "
		    "--password=PASSWORD), or leave it out to be asked");
		return CLI_USAGE;
	}
	if (optind < argc) {
		snprintf(ps->err, ps->errlen, "unexpected argument '%s'; "
		    "options take the form --name=value, see mysqlmemprof "
		    "--help", argv[optind]);
		return CLI_USAGE;
	}
	return CLI_OK;
}

static int
set_defaults(struct cli_parse *ps)
{
	memset(ps->o, 0, sizeof(*ps->o));
	for (size_t i = 0; i < cli_n_rows; i++)
		if (cli_rows[i].def != NULL &&
		    cli_apply(ps, &cli_rows[i], cli_rows[i].def, true) != 0)
			return -1;
	return 0;
}

enum cli_status
cli_parse(int argc, char **argv, const struct cli_env *env,
    struct options *o, char *warn, size_t warnlen, char *err, size_t errlen)
{
	struct option lo[CLI_MAX_ROWS + 1];
	char shortopts[3 * CLI_MAX_ROWS + 2];
	struct file_choice fc = { 0 };
	struct optfile_list files = { 0 };
	struct cli_parse ps = { .o = o, .err = err, .errlen = errlen,
	    .where = "" };
	enum cli_status st;

	if (set_defaults(&ps) != 0)
		return CLI_USAGE;
	if (warn != NULL && warnlen > 0)
		warn[0] = '\0';
	build_getopt(lo, shortopts);
	scan_file_options(argc, argv, shortopts, lo, &fc);
	if (read_option_files(&fc, env, &files, warn, warnlen, err,
	    errlen) != 0 || read_login_file(&fc, env, &files, warn, warnlen,
	    err, errlen) != 0) {
		optfile_list_free(&files);
		return CLI_USAGE;
	}
	ps.login_group = fc.login_path;
	for (size_t i = 0; i < files.n; i++) {
		if (apply_file_entry(&ps, &files.v[i]) != 0) {
			optfile_list_free(&files);
			return CLI_USAGE;
		}
	}
	optfile_list_free(&files);

	if ((st = parse_command_line(&ps, argc, argv, shortopts, lo)) != CLI_OK)
		return st;
	/* As mysql(1): the socket is only for localhost. */
	if (o->protocol == PROTOCOL_SOCKET && o->host != NULL &&
	    strcmp(o->host, "localhost") != 0) {
		snprintf(err, errlen, "--protocol=SOCKET connects through the "
		    "unix socket, which only the host localhost has, not '%s'; "
		    "leave out --host or give --protocol=TCP", o->host);
		return CLI_USAGE;
	}
	if ((o->ssl_mode == TLS_VERIFY_CA ||
	    o->ssl_mode == TLS_VERIFY_IDENTITY) && o->ssl_ca == NULL) {
		snprintf(err, errlen, "--ssl-mode %s needs --ssl-ca; give the "
		    "CA certificate that signed the server's",
		    o->ssl_mode == TLS_VERIFY_CA ? "VERIFY_CA" :
		    "VERIFY_IDENTITY");
		return CLI_USAGE;
	}
	/* As --listen's row says: the exporter watches the whole server. */
	if (o->target == TARGET_NONE)
		o->target = ps.implied;
	/* Each mode's row has its beat: the black box's is slower. */
	if (o->frequency_ms == 0)
		o->frequency_ms = mode_of(o)->frequency_ms;
	if (o->target == TARGET_NONE) {
		snprintf(err, errlen, "no target; give --thread ID, "
		    "--connection ID, --wait-for PATTERN, --longer-than SECONDS, "
		    "--bigger-than SIZE, --read FILE, or --list to see the threads");
		return CLI_USAGE;
	}
	if (cli_check_needs(&ps) != 0)
		return CLI_USAGE;
	/* MYSQL_PWD comes last, as for the MySQL clients. */
	if (o->password == NULL && !o->password_prompt &&
	    env->mysql_pwd != NULL) {
		if ((o->password = strdup(env->mysql_pwd)) == NULL) {
			snprintf(err, errlen, "out of memory");
			return CLI_USAGE;
		}
	}
	return CLI_OK;
}

void
cli_free(struct options *o)
{
	if (o->password != NULL) {
		/* Do not leave the password in freed memory. */
		explicit_bzero(o->password, strlen(o->password));
		free(o->password);
	}
	/*
	 * The strings only handlers set; the other rows free their own, and
	 * --for-account sets the fields of --for-user and --for-host.
	 */
	free(o->output);
	free(o->listen_addr);
	free(o->tls_version);
	for (size_t i = 0; i < cli_n_rows; i++)
		cli_free_field(o, &cli_rows[i]);
	memset(o, 0, sizeof(*o));
}

struct cli_env
cli_env_system(void)
{
	static const char *const system_files[] = {
		"/etc/my.cnf", "/etc/mysql/my.cnf", NULL,
	};

	return (struct cli_env){
		.system_files = system_files,
		.mysql_home = getenv("MYSQL_HOME"),
		.home = getenv("HOME"),
		.login_file = getenv("MYSQL_TEST_LOGIN_FILE"),
		.mysql_pwd = getenv("MYSQL_PWD"),
	};
}
