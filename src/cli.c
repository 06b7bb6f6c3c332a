/*
 * Command line and option files. One table (optdefs) names every option
 * once; getopt_long, the option-file keys, the range checks and the hints
 * of error messages all come from it.
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "cli.h"
#include "optfile.h"
#include "outname.h"

enum opt_id {
	OPT_HOST = 'h',
	OPT_PORT = 'P',
	OPT_SOCKET = 'S',
	OPT_USER = 'u',
	OPT_PASSWORD = 'p',
	OPT_OUTPUT = 'o',
	OPT_QUIET = 'q',
	OPT_VERSION = 'V',
	OPT_THREAD = 256,
	OPT_CONNECTION,
	OPT_LIST,
	OPT_WAIT_FOR,
	OPT_LONGER_THAN,
	OPT_MATCH_USER,
	OPT_MATCH_DB,
	OPT_POLL,
	OPT_WAIT_TIMEOUT,
	OPT_REPEAT,
	OPT_GLOBAL,
	OPT_FOR_USER,
	OPT_FOR_HOST,
	OPT_FOR_ACCOUNT,
	OPT_EVENTS,
	OPT_EXCLUDE,
	OPT_FREQUENCY,
	OPT_COUNT,
	OPT_DURATION,
	OPT_WINDOW,
	OPT_TOP,
	OPT_TRIGGER_BYTES,
	OPT_TRIGGER_HOLD,
	OPT_FORMAT,
	OPT_BYTES,
	OPT_CONNECT_TIMEOUT,
	OPT_READ_TIMEOUT,
	OPT_RECONNECT_TIMEOUT,
	OPT_SSL_MODE,
	OPT_SSL_CA,
	OPT_SSL_CERT,
	OPT_SSL_KEY,
	OPT_DEFAULTS_FILE,
	OPT_DEFAULTS_EXTRA_FILE,
	OPT_NO_DEFAULTS,
	OPT_HELP, /* also -?, which getopt_long() returns as '?' */
};

/* Where an option may come from. */
enum opt_scope {
	ANYWHERE,
	COMMAND_LINE, /* help, version and the option-file options themselves */
};

struct optdef {
	const char *name;
	int has_arg;
	enum opt_id id;
	enum opt_scope scope;
	uint64_t min, max; /* for numbers; max == 0: not a number */
	const char *hint;  /* the fix, for error messages */
};

static const struct optdef optdefs[] = {
	{ "host", required_argument, OPT_HOST, ANYWHERE, 0, 0, NULL },
	{ "port", required_argument, OPT_PORT, ANYWHERE, 1, 65535,
	    "give a TCP port, e.g. --port 3306" },
	{ "socket", required_argument, OPT_SOCKET, ANYWHERE, 0, 0, NULL },
	{ "user", required_argument, OPT_USER, ANYWHERE, 0, 0, NULL },
	{ "password", optional_argument, OPT_PASSWORD, ANYWHERE, 0, 0, NULL },
	{ "connect-timeout", required_argument, OPT_CONNECT_TIMEOUT, ANYWHERE,
	    1, 3600, "give seconds, e.g. --connect-timeout 10" },
	{ "read-timeout", required_argument, OPT_READ_TIMEOUT, ANYWHERE,
	    1, 3600, "give seconds, e.g. --read-timeout 30" },
	{ "reconnect-timeout", required_argument, OPT_RECONNECT_TIMEOUT,
	    ANYWHERE, 0, 86400, "give seconds, or 0 not to reconnect, e.g. "
	    "--reconnect-timeout 30" },
	{ "ssl-mode", required_argument, OPT_SSL_MODE, ANYWHERE, 0, 0, NULL },
	{ "ssl-ca", required_argument, OPT_SSL_CA, ANYWHERE, 0, 0, NULL },
	{ "ssl-cert", required_argument, OPT_SSL_CERT, ANYWHERE, 0, 0, NULL },
	{ "ssl-key", required_argument, OPT_SSL_KEY, ANYWHERE, 0, 0, NULL },
	{ "defaults-file", required_argument, OPT_DEFAULTS_FILE, COMMAND_LINE,
	    0, 0, NULL },
	{ "defaults-extra-file", required_argument, OPT_DEFAULTS_EXTRA_FILE,
	    COMMAND_LINE, 0, 0, NULL },
	{ "no-defaults", no_argument, OPT_NO_DEFAULTS, COMMAND_LINE, 0, 0,
	    NULL },
	{ "thread", required_argument, OPT_THREAD, ANYWHERE, 1, UINT64_MAX,
	    "give a THREAD_ID from performance_schema.threads (see --list)" },
	{ "connection", required_argument, OPT_CONNECTION, ANYWHERE, 1,
	    UINT64_MAX, "give a connection id from SHOW PROCESSLIST (see --list)" },
	{ "list", no_argument, OPT_LIST, ANYWHERE, 0, 0, NULL },
	{ "wait-for", required_argument, OPT_WAIT_FOR, ANYWHERE, 0, 0, NULL },
	{ "longer-than", required_argument, OPT_LONGER_THAN, ANYWHERE, 0,
	    315360000, "give seconds, e.g. --longer-than 60" },
	{ "match-user", required_argument, OPT_MATCH_USER, ANYWHERE, 0, 0,
	    NULL },
	{ "match-db", required_argument, OPT_MATCH_DB, ANYWHERE, 0, 0, NULL },
	{ "poll", required_argument, OPT_POLL, ANYWHERE, 10, 3600000,
	    "give milliseconds between looks, e.g. --poll 1000" },
	{ "wait-timeout", required_argument, OPT_WAIT_TIMEOUT, ANYWHERE, 1,
	    315360000, "give seconds, e.g. --wait-timeout 3600" },
	{ "repeat", no_argument, OPT_REPEAT, ANYWHERE, 0, 0, NULL },
	{ "global", no_argument, OPT_GLOBAL, ANYWHERE, 0, 0, NULL },
	{ "for-user", required_argument, OPT_FOR_USER, ANYWHERE, 0, 0, NULL },
	{ "for-host", required_argument, OPT_FOR_HOST, ANYWHERE, 0, 0, NULL },
	{ "for-account", required_argument, OPT_FOR_ACCOUNT, ANYWHERE, 0, 0,
	    NULL },
	{ "events", required_argument, OPT_EVENTS, ANYWHERE, 0, 0, NULL },
	{ "exclude", required_argument, OPT_EXCLUDE, ANYWHERE, 0, 0, NULL },
	{ "frequency", required_argument, OPT_FREQUENCY, ANYWHERE, 1, 3600000,
	    "give milliseconds between samples, e.g. --frequency 250" },
	{ "count", required_argument, OPT_COUNT, ANYWHERE, 1,
	    UINT64_C(1000000000000), "give a number of samples, e.g. --count 100" },
	{ "duration", required_argument, OPT_DURATION, ANYWHERE, 1, 315360000,
	    "give seconds, e.g. --duration 60" },
	{ "window", required_argument, OPT_WINDOW, ANYWHERE, 1, 100000,
	    "give a number of samples, e.g. --window 50" },
	{ "top", required_argument, OPT_TOP, ANYWHERE, 0, 10000,
	    "give a number of events, or 0 for all, e.g. --top 10" },
	/* A byte count with K, M or G: parsed by cli_bytes(), not number(). */
	{ "trigger-bytes", required_argument, OPT_TRIGGER_BYTES, ANYWHERE, 0,
	    0, NULL },
	{ "trigger-hold", required_argument, OPT_TRIGGER_HOLD, ANYWHERE, 0,
	    86400, "give seconds, e.g. --trigger-hold 5" },
	{ "format", required_argument, OPT_FORMAT, ANYWHERE, 0, 0, NULL },
	{ "output", required_argument, OPT_OUTPUT, ANYWHERE, 0, 0, NULL },
	{ "bytes", no_argument, OPT_BYTES, ANYWHERE, 0, 0, NULL },
	{ "quiet", no_argument, OPT_QUIET, ANYWHERE, 0, 0, NULL },
	{ "help", no_argument, OPT_HELP, COMMAND_LINE, 0, 0, NULL },
	{ "version", no_argument, OPT_VERSION, COMMAND_LINE, 0, 0, NULL },
};
#define N_OPTDEFS (sizeof(optdefs) / sizeof(optdefs[0]))

static const char shortopts[] = ":h:P:S:u:p::o:qV?";

/* Groups read from option files, as the issue and mysql(1) do. */
static const char *const groups[] = { "client", "mysqlmemprof", NULL };

struct parse {
	struct options *o;
	char *err;
	size_t errlen;
	const char *where; /* "" or " in FILE:LINE" */
	int target_from_file;
	const char *wait_only; /* an option of --wait-for given on the command line */
	bool trigger_hold_given; /* on the command line */
};

static const struct optdef *
optdef_by_id(int id)
{
	for (size_t i = 0; i < N_OPTDEFS; i++)
		if ((int)optdefs[i].id == id)
			return &optdefs[i];
	return NULL;
}

static const struct optdef *
optdef_by_name(const char *name)
{
	for (size_t i = 0; i < N_OPTDEFS; i++)
		if (strcmp(optdefs[i].name, name) == 0)
			return &optdefs[i];
	return NULL;
}

int
cli_bytes(const char *s, uint64_t min, uint64_t max, uint64_t *out,
    const char **errstr)
{
	static const char units[] = "KMGkmg";
	char digits[32];
	size_t n = strlen(s);
	const char *u;
	unsigned shift = 0;
	uint64_t v;

	if (n > 0 && (u = strchr(units, s[n - 1])) != NULL) {
		shift = 10 * (unsigned)((u - units) % 3 + 1);
		if (--n == 0) {
			*errstr = "not a number";
			return -1;
		}
	}
	if (n >= sizeof(digits)) {
		/* Only digits can make it this long and still be valid. */
		*errstr = strspn(s, "0123456789") < n ? "not a number" :
		    "too large";
		return -1;
	}
	memcpy(digits, s, n);
	digits[n] = '\0';
	if (cli_number(digits, 0, UINT64_MAX, &v, errstr) != 0)
		return -1;
	if (v > UINT64_MAX >> shift) {
		*errstr = "too large";
		return -1;
	}
	v <<= shift;
	if (v < min) {
		*errstr = min == 1 ? "must be at least 1" : "too small";
		return -1;
	}
	if (v > max) {
		*errstr = "too large";
		return -1;
	}
	*out = v;
	return 0;
}

int
cli_number(const char *s, uint64_t min, uint64_t max, uint64_t *out,
    const char **errstr)
{
	uint64_t v = 0;
	const char *p = s;

	if (*p == '\0') {
		*errstr = "empty value";
		return -1;
	}
	if (*p == '-') {
		*errstr = min > 0 ? "must be positive" : "must not be negative";
		return -1;
	}
	for (; *p != '\0'; p++) {
		if (*p < '0' || *p > '9') {
			*errstr = p == s ? "not a number" :
			    "trailing characters after the number";
			return -1;
		}
		if (v > (UINT64_MAX - (uint64_t)(*p - '0')) / 10) {
			*errstr = "too large";
			return -1;
		}
		v = v * 10 + (uint64_t)(*p - '0');
	}
	if (v < min) {
		*errstr = min == 1 ? "must be at least 1" : "too small";
		return -1;
	}
	if (v > max) {
		*errstr = "too large";
		return -1;
	}
	*out = v;
	return 0;
}

static int
set_string(struct parse *ps, char **dst, const char *value)
{
	char *copy = strdup(value);

	if (copy == NULL) {
		snprintf(ps->err, ps->errlen, "out of memory");
		return -1;
	}
	free(*dst);
	*dst = copy;
	return 0;
}

static int
number(struct parse *ps, const struct optdef *d, const char *arg,
    uint64_t *out)
{
	const char *errstr;

	if (cli_number(arg, d->min, d->max, out, &errstr) == 0)
		return 0;
	if (strcmp(errstr, "too large") == 0)
		snprintf(ps->err, ps->errlen, "--%s '%s'%s: too large (at most "
		    "%" PRIu64 "); %s", d->name, arg, ps->where, d->max, d->hint);
	else
		snprintf(ps->err, ps->errlen, "--%s '%s'%s: %s; %s", d->name,
		    arg, ps->where, errstr, d->hint);
	return -1;
}

static int
set_target(struct parse *ps, enum target_kind kind, uint64_t id,
    int from_file)
{
	struct options *o = ps->o;

	/*
	 * A second target on the command line is a mistake; one on the
	 * command line replaces one from an option file.
	 */
	if (o->target != TARGET_NONE && o->target != kind &&
	    !(ps->target_from_file && !from_file)) {
		snprintf(ps->err, ps->errlen, "--thread, --connection, --list, "
		    "--wait-for or --longer-than, --global and --for-user, "
		    "--for-host, --for-account name targets that exclude each "
		    "other; give only one of them");
		return -1;
	}
	o->target = kind;
	o->target_id = id;
	ps->target_from_file = from_file;
	return 0;
}

static int
set_ssl_mode(struct parse *ps, const char *arg)
{
	static const struct {
		const char *name;
		enum conn_tls_mode mode;
	} modes[] = {
		{ "DISABLED", TLS_DISABLED },
		{ "PREFERRED", TLS_PREFERRED },
		{ "REQUIRED", TLS_REQUIRED },
		{ "VERIFY_CA", TLS_VERIFY_CA },
		{ "VERIFY_IDENTITY", TLS_VERIFY_IDENTITY },
	};

	for (size_t i = 0; i < sizeof(modes) / sizeof(modes[0]); i++) {
		if (strcasecmp(arg, modes[i].name) == 0) {
			ps->o->ssl_mode = modes[i].mode;
			return 0;
		}
	}
	snprintf(ps->err, ps->errlen, "--ssl-mode '%s'%s: unknown mode; give "
	    "DISABLED, PREFERRED, REQUIRED, VERIFY_CA or VERIFY_IDENTITY", arg,
	    ps->where);
	return -1;
}

/* A string that must not be empty, e.g. --wait-for. */
static int
set_nonempty(struct parse *ps, const struct optdef *d, char **dst,
    const char *arg, const char *hint)
{
	if (*arg == '\0') {
		snprintf(ps->err, ps->errlen, "--%s%s: empty value; %s", d->name,
		    ps->where, hint);
		return -1;
	}
	return set_string(ps, dst, arg);
}

static int
set_trigger_bytes(struct parse *ps, const char *arg)
{
	const char *errstr;

	if (cli_bytes(arg, 1, INT64_MAX, &ps->o->trigger_bytes, &errstr) == 0)
		return 0;
	snprintf(ps->err, ps->errlen, "--trigger-bytes '%s'%s: %s; give bytes, "
	    "with K, M or G for KiB, MiB or GiB, e.g. --trigger-bytes 512M",
	    arg, ps->where, errstr);
	return -1;
}

/* --for-account USER@HOST: split at the last '@', as host names have none. */
static int
set_account(struct parse *ps, const char *arg)
{
	const char *at = strrchr(arg, '@');
	struct options *o = ps->o;

	if (at == NULL || at == arg || at[1] == '\0') {
		snprintf(ps->err, ps->errlen, "--for-account '%s'%s: not "
		    "USER@HOST; give both, e.g. --for-account app@localhost",
		    arg, ps->where);
		return -1;
	}
	free(o->grain_user);
	free(o->grain_host);
	o->grain_user = strndup(arg, (size_t)(at - arg));
	o->grain_host = strdup(at + 1);
	if (o->grain_user == NULL || o->grain_host == NULL) {
		snprintf(ps->err, ps->errlen, "out of memory");
		return -1;
	}
	return 0;
}

/* --events and --exclude add to their list each time they are given. */
static int
add_pattern(struct parse *ps, const struct optdef *d, char ***list,
    size_t *n, const char *arg)
{
	char **grown;

	if (*arg == '\0') {
		snprintf(ps->err, ps->errlen, "--%s%s: empty pattern; give a SQL "
		    "LIKE pattern, e.g. --%s 'memory/innodb/%%'", d->name,
		    ps->where, d->name);
		return -1;
	}
	if ((grown = realloc(*list, (*n + 1) * sizeof(*grown))) == NULL ||
	    (grown[*n] = strdup(arg)) == NULL) {
		if (grown != NULL)
			*list = grown;
		snprintf(ps->err, ps->errlen, "out of memory");
		return -1;
	}
	*list = grown;
	(*n)++;
	return 0;
}

/* Applies one option; arg is NULL when none was given. */
static int
apply(struct parse *ps, const struct optdef *d, const char *arg,
    int from_file)
{
	struct options *o = ps->o;
	uint64_t v;

	if (d->max != 0 && number(ps, d, arg, &v) != 0)
		return -1;
	if (!from_file && ps->wait_only == NULL && (d->id == OPT_MATCH_USER ||
	    d->id == OPT_MATCH_DB || d->id == OPT_POLL ||
	    d->id == OPT_WAIT_TIMEOUT || d->id == OPT_REPEAT))
		ps->wait_only = d->name;
	switch (d->id) {
	case OPT_HOST:
		return set_string(ps, &o->host, arg);
	case OPT_SOCKET:
		return set_string(ps, &o->socket, arg);
	case OPT_USER:
		return set_string(ps, &o->user, arg);
	case OPT_PORT:
		o->port = (unsigned)v;
		return 0;
	case OPT_PASSWORD:
		o->password_prompt = arg == NULL;
		o->password_on_command_line = !from_file && arg != NULL;
		if (arg == NULL) {
			free(o->password);
			o->password = NULL;
			return 0;
		}
		return set_string(ps, &o->password, arg);
	case OPT_CONNECT_TIMEOUT:
		o->connect_timeout_s = (unsigned)v;
		return 0;
	case OPT_READ_TIMEOUT:
		o->read_timeout_s = (unsigned)v;
		return 0;
	case OPT_RECONNECT_TIMEOUT:
		o->reconnect_timeout_s = v;
		return 0;
	case OPT_SSL_MODE:
		return set_ssl_mode(ps, arg);
	case OPT_SSL_CA:
		return set_string(ps, &o->ssl_ca, arg);
	case OPT_SSL_CERT:
		return set_string(ps, &o->ssl_cert, arg);
	case OPT_SSL_KEY:
		return set_string(ps, &o->ssl_key, arg);
	case OPT_THREAD:
		return set_target(ps, TARGET_THREAD, v, from_file);
	case OPT_CONNECTION:
		return set_target(ps, TARGET_CONNECTION, v, from_file);
	case OPT_LIST:
		return set_target(ps, TARGET_LIST, 0, from_file);
	case OPT_WAIT_FOR:
		if (set_target(ps, TARGET_WAIT, 0, from_file) != 0)
			return -1;
		return set_nonempty(ps, d, &o->wait_pattern, arg, "give a SQL "
		    "LIKE pattern, e.g. --wait-for '%GROUP BY%'");
	case OPT_LONGER_THAN:
		o->longer_than_s = v;
		return set_target(ps, TARGET_WAIT, 0, from_file);
	case OPT_MATCH_USER:
		return set_nonempty(ps, d, &o->match_user, arg, "give an account "
		    "name as SHOW PROCESSLIST shows it");
	case OPT_MATCH_DB:
		return set_nonempty(ps, d, &o->match_db, arg, "give a database "
		    "name");
	case OPT_GLOBAL:
		return set_target(ps, TARGET_GLOBAL, 0, from_file);
	case OPT_FOR_USER:
		if (set_target(ps, TARGET_USER, 0, from_file) != 0)
			return -1;
		return set_nonempty(ps, d, &o->grain_user, arg, "give an account "
		    "name, e.g. --for-user app");
	case OPT_FOR_HOST:
		if (set_target(ps, TARGET_HOST, 0, from_file) != 0)
			return -1;
		return set_nonempty(ps, d, &o->grain_host, arg, "give a client "
		    "host, e.g. --for-host localhost");
	case OPT_FOR_ACCOUNT:
		if (set_target(ps, TARGET_ACCOUNT, 0, from_file) != 0)
			return -1;
		return set_account(ps, arg);
	case OPT_EVENTS:
		return add_pattern(ps, d, &o->include_events,
		    &o->n_include_events, arg);
	case OPT_EXCLUDE:
		return add_pattern(ps, d, &o->exclude_events,
		    &o->n_exclude_events, arg);
	case OPT_POLL:
		o->poll_ms = v;
		return 0;
	case OPT_WAIT_TIMEOUT:
		o->wait_timeout_s = v;
		return 0;
	case OPT_REPEAT:
		o->repeat = true;
		return 0;
	case OPT_FREQUENCY:
		o->frequency_ms = v;
		return 0;
	case OPT_COUNT:
		o->count = v;
		return 0;
	case OPT_DURATION:
		o->duration_s = v;
		return 0;
	case OPT_WINDOW:
		o->window = (size_t)v;
		return 0;
	case OPT_TOP:
		o->top = (size_t)v;
		return 0;
	case OPT_TRIGGER_BYTES:
		return set_trigger_bytes(ps, arg);
	case OPT_TRIGGER_HOLD:
		o->trigger_hold_s = v;
		ps->trigger_hold_given |= !from_file;
		return 0;
	case OPT_FORMAT:
		if ((o->format = format_find(arg)) == NULL) {
			snprintf(ps->err, ps->errlen, "--format '%s'%s: unknown "
			    "format; give one of %s", arg, ps->where,
			    format_names());
			return -1;
		}
		return 0;
	case OPT_OUTPUT:
		if (*arg == '\0') {
			snprintf(ps->err, ps->errlen, "--output%s: empty file "
			    "name; give a file, or leave it out for standard "
			    "output", ps->where);
			return -1;
		}
		return set_string(ps, &o->output, arg);
	case OPT_BYTES:
		o->exact_bytes = true;
		return 0;
	case OPT_QUIET:
		o->quiet = true;
		return 0;
	default:
		/* Handled before parsing (option files) or by the caller. */
		return 0;
	}
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
apply_file_entry(struct parse *ps, const struct optfile_entry *e)
{
	char where[4200];
	const char *key = e->key;
	int loose = 0, on;
	const struct optdef *d;

	/* "loose-" marks an option this program may not know: ignore it then. */
	if (strncmp(key, "loose-", 6) == 0) {
		key += 6;
		loose = 1;
	}
	d = optdef_by_name(key);
	/* [client] is shared by every MySQL client: skip what is not ours. */
	if (d == NULL || d->scope == COMMAND_LINE) {
		if (loose || strcasecmp(e->group, "client") == 0)
			return 0;
		if (d != NULL)
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
	if (d->has_arg == no_argument) {
		if (file_boolean(e->value, &on) != 0) {
			snprintf(ps->err, ps->errlen, "%s in %s: '%s' is not a "
			    "boolean; give 0 or 1", e->key, e->origin, e->value);
			return -1;
		}
		if (!on) {
			if (d->id == OPT_BYTES)
				ps->o->exact_bytes = false;
			else if (d->id == OPT_QUIET)
				ps->o->quiet = false;
			else if (d->id == OPT_REPEAT)
				ps->o->repeat = false;
			return 0;
		}
		return apply(ps, d, NULL, 1);
	}
	if (d->has_arg == required_argument && e->value == NULL) {
		snprintf(ps->err, ps->errlen, "%s in %s needs a value; write "
		    "%s=VALUE", e->key, e->origin, e->key);
		return -1;
	}
	return apply(ps, d, e->value, 1);
}

static void
build_longopts(struct option *lo)
{
	for (size_t i = 0; i < N_OPTDEFS; i++)
		lo[i] = (struct option){ optdefs[i].name, optdefs[i].has_arg,
		    NULL, (int)optdefs[i].id };
	lo[N_OPTDEFS] = (struct option){ 0 };
}

struct file_choice {
	int no_defaults;
	const char *defaults_file;
	const char *extra_file;
};

/* First pass: only the options that say which option files to read. */
static void
scan_file_options(int argc, char **argv, const struct option *lo,
    struct file_choice *fc)
{
	int c;

	opterr = 0;
	optind = 0; /* glibc: a full reset, so cli_parse() can run again */
	while ((c = getopt_long(argc, argv, shortopts, lo, NULL)) != -1) {
		if (c == OPT_NO_DEFAULTS)
			fc->no_defaults = 1;
		else if (c == OPT_DEFAULTS_FILE)
			fc->defaults_file = optarg;
		else if (c == OPT_DEFAULTS_EXTRA_FILE)
			fc->extra_file = optarg;
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

static enum cli_status
unknown_option(struct parse *ps, int argc, char **argv)
{
	const char *arg = optind > 0 && optind <= argc ? argv[optind - 1] : "?";

	const struct optdef *d = optdef_by_id(optopt);

	/* getopt_long() sets optopt to a long option given a value it takes none of. */
	if (d != NULL && d->has_arg == no_argument)
		snprintf(ps->err, ps->errlen, "--%s takes no value; write --%s "
		    "alone", d->name, d->name);
	else if (optopt > 0 && optopt < 128)
		snprintf(ps->err, ps->errlen, "unknown option '-%c'; see "
		    "mysqlmemprof --help", optopt);
	else
		snprintf(ps->err, ps->errlen, "unknown option '%s'; see "
		    "mysqlmemprof --help", arg);
	return CLI_USAGE;
}

static enum cli_status
missing_argument(struct parse *ps, int argc, char **argv)
{
	const struct optdef *d = optdef_by_id(optopt);
	const char *arg = optind > 0 && optind <= argc ? argv[optind - 1] : "?";

	if (d != NULL)
		snprintf(ps->err, ps->errlen, "--%s needs a value; write "
		    "--%s=VALUE", d->name, d->name);
	else
		snprintf(ps->err, ps->errlen, "%s needs a value; see "
		    "mysqlmemprof --help", arg);
	return CLI_USAGE;
}

/* Second pass: the command line itself, over what the files set. */
static enum cli_status
parse_command_line(struct parse *ps, int argc, char **argv,
    const struct option *lo)
{
	int c;

	opterr = 0;
	optind = 0;
	for (;;) {
		const struct optdef *d;

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
		if (c == OPT_HELP || c == '?')
			return CLI_HELP;
		if (c == OPT_VERSION)
			return CLI_VERSION;
		if ((d = optdef_by_id(c)) == NULL)
			return unknown_option(ps, argc, argv);
		ps->where = "";
		if (apply(ps, d, optarg, 0) != 0)
			return CLI_USAGE;
		/*
		 * optarg points into argv: once copied, the password is
		 * overwritten there, whatever form or abbreviation gave it,
		 * so that ps(1) and /proc/PID/cmdline do not show it.
		 */
		if (d->id == OPT_PASSWORD && optarg != NULL)
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

/*
 * The options of --wait-for make sense with it only. Those that came from
 * an option file are left alone: the file may serve other runs too.
 */
static int
check_wait_options(struct parse *ps)
{
	const struct options *o = ps->o;
	char why[256];

	if (o->target != TARGET_WAIT) {
		if (ps->wait_only == NULL)
			return 0;
		snprintf(ps->err, ps->errlen, "--%s needs --wait-for or "
		    "--longer-than: it applies to statements waited for",
		    ps->wait_only);
		return -1;
	}
	if (o->output != NULL && outname_is_pattern(o->output) &&
	    outname_check(o->output, why, sizeof(why)) != 0) {
		snprintf(ps->err, ps->errlen, "--output '%s': %s", o->output,
		    why);
		return -1;
	}
	return 0;
}

static void
set_defaults(struct options *o)
{
	memset(o, 0, sizeof(*o));
	o->connect_timeout_s = 10;
	o->read_timeout_s = 30;
	o->reconnect_timeout_s = 30;
	o->frequency_ms = 500;
	o->trigger_hold_s = 5;
	o->poll_ms = 1000;
	o->window = 50;
	o->top = 10;
	o->format = format_find("text");
}

enum cli_status
cli_parse(int argc, char **argv, const struct cli_env *env,
    struct options *o, char *warn, size_t warnlen, char *err, size_t errlen)
{
	struct option lo[N_OPTDEFS + 1];
	struct file_choice fc = { 0 };
	struct optfile_list files = { 0 };
	struct parse ps = { .o = o, .err = err, .errlen = errlen, .where = "" };
	enum cli_status st;

	set_defaults(o);
	if (warn != NULL && warnlen > 0)
		warn[0] = '\0';
	build_longopts(lo);
	scan_file_options(argc, argv, lo, &fc);
	if (read_option_files(&fc, env, &files, warn, warnlen, err,
	    errlen) != 0) {
		optfile_list_free(&files);
		return CLI_USAGE;
	}
	for (size_t i = 0; i < files.n; i++) {
		if (apply_file_entry(&ps, &files.v[i]) != 0) {
			optfile_list_free(&files);
			return CLI_USAGE;
		}
	}
	optfile_list_free(&files);

	if ((st = parse_command_line(&ps, argc, argv, lo)) != CLI_OK)
		return st;
	if ((o->ssl_mode == TLS_VERIFY_CA ||
	    o->ssl_mode == TLS_VERIFY_IDENTITY) && o->ssl_ca == NULL) {
		snprintf(err, errlen, "--ssl-mode %s needs --ssl-ca; give the "
		    "CA certificate that signed the server's",
		    o->ssl_mode == TLS_VERIFY_CA ? "VERIFY_CA" :
		    "VERIFY_IDENTITY");
		return CLI_USAGE;
	}
	if (o->target == TARGET_NONE) {
		snprintf(err, errlen, "no target; give --thread ID, "
		    "--connection ID, --wait-for PATTERN, --longer-than SECONDS, "
		    "or --list to see the threads");
		return CLI_USAGE;
	}
	if (check_wait_options(&ps) != 0)
		return CLI_USAGE;
	if (ps.trigger_hold_given && o->trigger_bytes == 0) {
		snprintf(err, errlen, "--trigger-hold needs --trigger-bytes: it "
		    "says how long to go on writing once the total falls below "
		    "it");
		return CLI_USAGE;
	}
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
	free(o->host);
	free(o->user);
	if (o->password != NULL) {
		/* Do not leave the password in freed memory. */
		explicit_bzero(o->password, strlen(o->password));
		free(o->password);
	}
	free(o->socket);
	free(o->output);
	free(o->wait_pattern);
	free(o->match_user);
	free(o->match_db);
	free(o->ssl_ca);
	free(o->ssl_cert);
	free(o->ssl_key);
	free(o->grain_user);
	free(o->grain_host);
	for (size_t i = 0; i < o->n_include_events; i++)
		free(o->include_events[i]);
	free(o->include_events);
	for (size_t i = 0; i < o->n_exclude_events; i++)
		free(o->exclude_events[i]);
	free(o->exclude_events);
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
		.mysql_pwd = getenv("MYSQL_PWD"),
	};
}

void
cli_usage(FILE *fp)
{
	fputs(
"Usage: mysqlmemprof [OPTIONS] --thread ID | --connection ID | --list\n"
"       mysqlmemprof [OPTIONS] --wait-for PATTERN | --longer-than SECONDS\n"
"       mysqlmemprof [OPTIONS] --global | --for-user NAME | --for-host HOST |\n"
"                    --for-account USER@HOST\n"
"Samples the memory of a MySQL or MariaDB thread, account or server from\n"
"performance_schema.\n"
"\n"
"Target (exactly one):\n"
"      --thread=ID            performance_schema THREAD_ID to sample\n"
"      --connection=ID        connection id (SHOW PROCESSLIST) to sample\n"
"      --list                 list the server's threads, largest memory first\n"
"      --wait-for=PATTERN     wait for a statement whose text is LIKE PATTERN,\n"
"                             sample its connection until it ends\n"
"      --longer-than=SECONDS  the same for a statement running this long;\n"
"                             with --wait-for, both must hold\n"
"      --global               sample the whole server's memory\n"
"      --for-user=NAME        sample every session of account name NAME\n"
"      --for-host=HOST        sample every session from client host HOST\n"
"      --for-account=USER@HOST  sample every session of USER@HOST\n"
"\n"
"Waiting (with --wait-for or --longer-than):\n"
"      --match-user=NAME      only statements of this account\n"
"      --match-db=NAME        only statements whose default database is NAME\n"
"      --poll=MS              milliseconds between looks (default 1000)\n"
"      --wait-timeout=SECONDS give up waiting after SECONDS: exit status 3\n"
"      --repeat               after a capture, wait for the next statement\n"
"  Here --output may hold %c (connection id), %t (thread id), %% and strftime\n"
"  conversions such as %Y%m%d-%H%M%S: then each capture has its own file.\n"
"\n"
"Sampling:\n"
"      --frequency=MS         milliseconds between samples (default 500)\n"
"      --count=N              stop after N samples\n"
"      --duration=SECONDS     stop after SECONDS\n"
"      --window=N             samples kept for the summary (default 50)\n"
"      --top=N                events kept per sample (default 10; 0: all)\n"
"      --events=PATTERN       keep only events LIKE PATTERN (repeatable)\n"
"      --exclude=PATTERN      drop events LIKE PATTERN (repeatable); the total\n"
"                             still counts every event\n"
"\n"
"Flight recorder:\n"
"      --trigger-bytes=N      write nothing until the thread total reaches N\n"
"                             bytes (K, M, G: KiB, MiB, GiB); then write the\n"
"                             last --window samples up to it, then each one;\n"
"                             SIGUSR1 writes the samples held at any time\n"
"      --trigger-hold=SECONDS go on writing until the total has been below N\n"
"                             this long (default 5)\n"
"\n"
"Output:\n"
"      --format=FORMAT        text, csv or json (default text)\n"
"  -o, --output=FILE          write to FILE instead of standard output\n"
"      --bytes                text: exact byte counts instead of KiB/MiB\n"
"  -q, --quiet                no notes on standard error\n"
"\n"
"Connection:\n"
"  -h, --host=HOST            server host (default localhost)\n"
"  -P, --port=PORT            TCP port\n"
"  -S, --socket=PATH          unix socket\n"
"  -u, --user=USER            account to connect as\n"
"  -p, --password[=PASSWORD]  password; without a value, prompt for it\n"
"      --connect-timeout=SECONDS  (default 10)\n"
"      --read-timeout=SECONDS     (default 30)\n"
"      --reconnect-timeout=SECONDS  keep reconnecting this long (default 30;\n"
"                             0: do not reconnect)\n"
"      --ssl-mode=MODE        DISABLED, PREFERRED, REQUIRED, VERIFY_CA or\n"
"                             VERIFY_IDENTITY\n"
"      --ssl-ca=FILE          CA certificate to check the server's against\n"
"      --ssl-cert=FILE        client certificate\n"
"      --ssl-key=FILE         client certificate's key\n"
"      --defaults-file=FILE   read only this option file\n"
"      --defaults-extra-file=FILE  read this option file too\n"
"      --no-defaults          read no option file\n"
"\n"
"  -?, --help                 print this help and exit\n"
"  -V, --version              print the version and exit\n"
"\n"
"Option files: groups [client] and [mysqlmemprof]. Exit status: 0 done,\n"
"1 runtime error, 2 usage error, 3 nothing matched within --wait-timeout.\n"
"See mysqlmemprof(1).\n", fp);
}
