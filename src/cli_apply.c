/*
 * One value of one option, into struct options: checked and stored by the
 * kind of its row, with the handlers of the few rows that need their own.
 * Whether the value came from the command line or an option file matters
 * only for targets, the password and the options that need another.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#include "cli_table.h"
#include "output_table.h"
#include "utc.h"

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

/* A field of o, at an offset a row gives. */
static void *
field_at(struct options *o, size_t offset)
{
	return (char *)o + offset;
}

static int
store_string(struct cli_parse *ps, char **dst, const char *value)
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

/* KIND_STRING: with a hint, an empty value is refused and the hint given. */
static int
set_string(struct cli_parse *ps, const struct cli_row *r, const char *arg)
{
	if (r->hint != NULL && *arg == '\0') {
		snprintf(ps->err, ps->errlen, "--%s%s: empty value; %s",
		    r->name, ps->where, r->hint);
		return -1;
	}
	return store_string(ps, field_at(ps->o, r->field), arg);
}

static int
parse_number(struct cli_parse *ps, const struct cli_row *r, const char *arg,
    uint64_t *out)
{
	const char *errstr;

	if (cli_number(arg, r->min, r->max, out, &errstr) == 0)
		return 0;
	if (strcmp(errstr, "too large") == 0)
		snprintf(ps->err, ps->errlen, "--%s '%s'%s: too large (at most "
		    "%" PRIu64 "); %s", r->name, arg, ps->where, r->max,
		    r->hint);
	else
		snprintf(ps->err, ps->errlen, "--%s '%s'%s: %s; %s", r->name,
		    arg, ps->where, errstr, r->hint);
	return -1;
}

/*
 * KIND_NUMBER: the field is unsigned, of 4 or 8 bytes (unsigned, size_t,
 * uint64_t), which hold the same bits as a uint32_t or uint64_t would;
 * the row's max fits it.
 */
static void
store_number(void *dst, size_t size, uint64_t v)
{
	uint32_t v32 = (uint32_t)v;

	if (size == sizeof(v32))
		memcpy(dst, &v32, sizeof(v32));
	else
		memcpy(dst, &v, sizeof(v));
}

static int set_bytes(struct cli_parse *ps, const struct cli_row *r,
    const char *arg);

/*
 * --bigger-than: bytes, or "N%" of connection_memory_limit (1 to 100),
 * which only the server can turn into bytes.
 */
int
cli_set_bigger_than(struct cli_parse *ps, const struct cli_row *r,
    const char *arg, bool from_file)
{
	size_t len = strlen(arg);
	const char *errstr;
	char num[32];
	uint64_t pct;

	(void)from_file;
	ps->o->bigger_than_bytes = 0;
	ps->o->bigger_than_pct = 0;
	if (len == 0 || arg[len - 1] != '%')
		return set_bytes(ps, r, arg);
	if (len - 1 >= sizeof(num)) {
		errstr = "too long";
	} else {
		memcpy(num, arg, len - 1);
		num[len - 1] = '\0';
		if (cli_number(num, 1, 100, &pct, &errstr) == 0) {
			ps->o->bigger_than_pct = (unsigned)pct;
			return 0;
		}
	}
	snprintf(ps->err, ps->errlen, "--%s '%s'%s: %s; give a percentage of "
	    "connection_memory_limit from 1%% to 100%%, e.g. --%s 80%%",
	    r->name, arg, ps->where, errstr, r->name);
	return -1;
}

static int
set_bytes(struct cli_parse *ps, const struct cli_row *r, const char *arg)
{
	const char *errstr;

	if (cli_bytes(arg, r->min, r->max, field_at(ps->o, r->field),
	    &errstr) == 0)
		return 0;
	snprintf(ps->err, ps->errlen, "--%s '%s'%s: %s; %s", r->name, arg,
	    ps->where, errstr, r->hint);
	return -1;
}

/* KIND_LIST, such as --events: each time given, one more pattern. */
static int
add_pattern(struct cli_parse *ps, const struct cli_row *r, const char *arg)
{
	char ***list = field_at(ps->o, r->field);
	size_t *n = field_at(ps->o, r->count);
	char **grown;

	if (*arg == '\0') {
		snprintf(ps->err, ps->errlen, "--%s%s: empty pattern; give a SQL "
		    "LIKE pattern, e.g. --%s 'memory/innodb/%%'", r->name,
		    ps->where, r->name);
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

static int
set_target(struct cli_parse *ps, enum target_kind kind, bool from_file)
{
	struct options *o = ps->o;

	/*
	 * A second target on the command line is a mistake; one on the
	 * command line replaces one from an option file.
	 */
	if (o->target != TARGET_NONE && o->target != kind &&
	    !(ps->target_from_file && !from_file)) {
		snprintf(ps->err, ps->errlen, "--thread, --connection, --list, "
		    "--wait-for, --longer-than or --bigger-than, --global and "
		    "--for-user, "
		    "--for-host, --for-account and --read name targets that exclude each "
		    "other; give only one of them");
		return -1;
	}
	o->target = kind;
	o->target_id = 0; /* --thread and --connection store theirs after */
	ps->target_from_file = from_file;
	return 0;
}

int
cli_apply(struct cli_parse *ps, const struct cli_row *r, const char *arg,
    bool from_file)
{
	uint64_t v = 0;

	if (r->kind == KIND_NUMBER && parse_number(ps, r, arg, &v) != 0)
		return -1;
	if (!from_file && r->needs != NEEDS_NOTHING &&
	    ps->needs[r->needs] == NULL)
		ps->needs[r->needs] = r->name;
	if (r->target != TARGET_NONE &&
	    set_target(ps, r->target, from_file) != 0)
		return -1;
	if (r->implies != TARGET_NONE)
		ps->implied = r->implies;
	switch (r->kind) {
	case KIND_STRING:
		return set_string(ps, r, arg);
	case KIND_NUMBER:
		store_number(field_at(ps->o, r->field), r->size, v);
		return 0;
	case KIND_BYTES:
		return set_bytes(ps, r, arg);
	case KIND_FLAG:
		if (r->size != 0)
			*(bool *)field_at(ps->o, r->field) = true;
		return 0;
	case KIND_LIST:
		return add_pattern(ps, r, arg);
	case KIND_SPECIAL:
		return r->set(ps, r, arg, from_file);
	default:
		/* Help only, or handled by the passes of cli.c. */
		return 0;
	}
}

void
cli_apply_off(struct cli_parse *ps, const struct cli_row *r)
{
	if (r->kind == KIND_FLAG && r->size != 0)
		*(bool *)field_at(ps->o, r->field) = false;
}

void
cli_free_field(struct options *o, const struct cli_row *r)
{
	if (r->kind == KIND_STRING) {
		char **s = field_at(o, r->field);

		free(*s);
		*s = NULL;
	} else if (r->kind == KIND_LIST) {
		char ***list = field_at(o, r->field);
		size_t *n = field_at(o, r->count);

		for (size_t i = 0; i < *n; i++)
			free((*list)[i]);
		free(*list);
		*list = NULL;
		*n = 0;
	}
}

/* The handlers of KIND_SPECIAL rows. */

/* --password alone, or -p, asks for it at the prompt. */
int
cli_set_password(struct cli_parse *ps, const struct cli_row *r,
    const char *arg, bool from_file)
{
	struct options *o = ps->o;

	(void)r;
	o->password_prompt = arg == NULL;
	o->password_on_command_line = !from_file && arg != NULL;
	/* One given before (a file, then the command line) is wiped. */
	if (o->password != NULL)
		explicit_bzero(o->password, strlen(o->password));
	if (arg == NULL) {
		free(o->password);
		o->password = NULL;
		return 0;
	}
	return store_string(ps, &o->password, arg);
}

int
cli_set_ssl_mode(struct cli_parse *ps, const struct cli_row *r,
    const char *arg, bool from_file)
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

	(void)from_file;
	for (size_t i = 0; i < sizeof(modes) / sizeof(modes[0]); i++) {
		if (strcasecmp(arg, modes[i].name) == 0) {
			ps->o->ssl_mode = modes[i].mode;
			return 0;
		}
	}
	snprintf(ps->err, ps->errlen, "--%s '%s'%s: unknown mode; give "
	    "DISABLED, PREFERRED, REQUIRED, VERIFY_CA or VERIFY_IDENTITY",
	    r->name, arg, ps->where);
	return -1;
}

/* --protocol, as mysql(1) takes it; PIPE and MEMORY are Windows'. */
int
cli_set_protocol(struct cli_parse *ps, const struct cli_row *r,
    const char *arg, bool from_file)
{
	(void)from_file;
	if (strcasecmp(arg, "TCP") == 0)
		ps->o->protocol = PROTOCOL_TCP;
	else if (strcasecmp(arg, "SOCKET") == 0)
		ps->o->protocol = PROTOCOL_SOCKET;
	else {
		snprintf(ps->err, ps->errlen, "--%s '%s'%s: unknown protocol; "
		    "give TCP or SOCKET", r->name, arg, ps->where);
		return -1;
	}
	return 0;
}

/*
 * --tls-version: a comma-separated list of the versions MySQL 8.0.28 and
 * later still speak, stored as the library takes it.
 */
int
cli_set_tls_version(struct cli_parse *ps, const struct cli_row *r,
    const char *arg, bool from_file)
{
	static const char *const versions[] = { "TLSv1.2", "TLSv1.3" };
	bool want[2] = { false, false };
	const char *p = arg;

	(void)from_file;
	do {
		size_t n = strcspn(p, ","), i;

		for (i = 0; i < 2; i++)
			if (n == strlen(versions[i]) &&
			    strncasecmp(p, versions[i], n) == 0)
				break;
		if (i == 2) {
			snprintf(ps->err, ps->errlen, "--%s '%s'%s: unknown "
			    "version '%.*s'; give TLSv1.2, TLSv1.3 or "
			    "TLSv1.2,TLSv1.3", r->name, arg, ps->where, (int)n,
			    p);
			return -1;
		}
		want[i] = true;
		p += n;
	} while (*p++ == ',');
	return store_string(ps, &ps->o->tls_version, want[0] && want[1] ?
	    "TLSv1.2,TLSv1.3" : want[0] ? versions[0] : versions[1]);
}

/* --timestamps alone is on; =on, =off or =auto say it. */
int
cli_set_timestamps(struct cli_parse *ps, const struct cli_row *r,
    const char *arg, bool from_file)
{
	(void)from_file;
	if (arg == NULL || strcasecmp(arg, "on") == 0)
		ps->o->timestamps = STAMP_ON;
	else if (strcasecmp(arg, "off") == 0)
		ps->o->timestamps = STAMP_OFF;
	else if (strcasecmp(arg, "auto") == 0)
		ps->o->timestamps = STAMP_AUTO;
	else {
		snprintf(ps->err, ps->errlen, "--%s '%s'%s: give on, off or "
		    "auto, e.g. --%s=off", r->name, arg, ps->where, r->name);
		return -1;
	}
	return 0;
}

/* --for-account USER@HOST: split at the last '@', as host names have none. */
int
cli_set_account(struct cli_parse *ps, const struct cli_row *r,
    const char *arg, bool from_file)
{
	const char *at = strrchr(arg, '@');
	struct options *o = ps->o;

	(void)from_file;
	if (at == NULL || at == arg || at[1] == '\0') {
		snprintf(ps->err, ps->errlen, "--%s '%s'%s: not USER@HOST; "
		    "give both, e.g. --%s app@localhost", r->name, arg,
		    ps->where, r->name);
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

int
cli_set_format(struct cli_parse *ps, const struct cli_row *r,
    const char *arg, bool from_file)
{
	(void)from_file;
	if ((ps->o->format = output_table_find(arg)) == NULL) {
		snprintf(ps->err, ps->errlen, "--%s '%s'%s: unknown format; "
		    "give one of %s", r->name, arg, ps->where,
		    output_table_names(", "));
		return -1;
	}
	return 0;
}

/* Like a string, but its empty value has a message of its own. */
/* A word of a short list, for the rows whose values are words. */
static int
set_word(struct cli_parse *ps, const struct cli_row *r, const char *arg,
    const char *const *words, size_t n, unsigned *out)
{
	char list[256] = "";

	for (size_t i = 0; i < n; i++) {
		if (strcmp(arg, words[i]) == 0) {
			*out = (unsigned)i;
			return 0;
		}
		snprintf(list + strlen(list), sizeof(list) - strlen(list),
		    "%s%s", i == 0 ? "" : i + 1 < n ? ", " : " or ", words[i]);
	}
	snprintf(ps->err, ps->errlen, "--%s '%s'%s: unknown value; give %s",
	    r->name, arg, ps->where, list);
	return -1;
}

/* In the order of enum profile_at. */
int
cli_set_profile_at(struct cli_parse *ps, const struct cli_row *r,
    const char *arg, bool from_file)
{
	static const char *const words[] = { "last", "peak", "each" };
	unsigned v;

	(void)from_file;
	if (set_word(ps, r, arg, words, sizeof(words) / sizeof(words[0]),
	    &v) != 0)
		return -1;
	ps->o->profile_at = (enum profile_at)v;
	return 0;
}

/* In the order of enum profile_root. */
int
cli_set_profile_root(struct cli_parse *ps, const struct cli_row *r,
    const char *arg, bool from_file)
{
	static const char *const words[] = { "none", "thread", "statement" };
	unsigned v;

	(void)from_file;
	if (set_word(ps, r, arg, words, sizeof(words) / sizeof(words[0]),
	    &v) != 0)
		return -1;
	ps->o->profile_root = (enum profile_root)v;
	return 0;
}

int
cli_set_output(struct cli_parse *ps, const struct cli_row *r,
    const char *arg, bool from_file)
{
	(void)from_file;
	if (*arg == '\0') {
		snprintf(ps->err, ps->errlen, "--%s%s: empty file name; give a "
		    "file, or leave it out for standard output", r->name,
		    ps->where);
		return -1;
	}
	return store_string(ps, &ps->o->output, arg);
}

/*
 * --listen [ADDR:]PORT; an IPv6 address goes in brackets, as in URLs:
 * [::1]:9100. The address is looked up when the exporter starts.
 */
int
cli_set_listen(struct cli_parse *ps, const struct cli_row *r,
    const char *arg, bool from_file)
{
	const char *colon = strrchr(arg, ':'), *port = arg, *errstr;
	struct options *o = ps->o;
	size_t alen = 0, skip = 0;
	uint64_t n;

	(void)from_file;
	if (colon != NULL) {
		port = colon + 1;
		alen = (size_t)(colon - arg);
		if (arg[0] == '[' && alen >= 2 && arg[alen - 1] == ']') {
			skip = 1;
			alen -= 2;
		}
		if (alen == 0 || (skip == 0 && memchr(arg, ':', alen) != NULL)) {
			snprintf(ps->err, ps->errlen, "--%s '%s'%s: not "
			    "[ADDR:]PORT; give e.g. --%s 9104, --%s "
			    "0.0.0.0:9104 or --%s '[::1]:9104'", r->name, arg,
			    ps->where, r->name, r->name, r->name);
			return -1;
		}
	}
	if (cli_number(port, 1, 65535, &n, &errstr) != 0) {
		snprintf(ps->err, ps->errlen, "--%s '%s'%s: port %s; give a TCP "
		    "port from 1 to 65535, e.g. --%s 9104", r->name, arg,
		    ps->where, errstr, r->name);
		return -1;
	}
	free(o->listen_addr);
	o->listen_addr = NULL;
	if (alen > 0 && (o->listen_addr = strndup(arg + skip, alen)) == NULL) {
		snprintf(ps->err, ps->errlen, "out of memory");
		return -1;
	}
	o->listen_port = (unsigned)n;
	return 0;
}

/* --since, --until: a UTC time or a span before now (utc.h). */
int
cli_set_when(struct cli_parse *ps, const struct cli_row *r,
    const char *arg, bool from_file)
{
	struct options *o = ps->o;
	bool since = strcmp(r->name, "since") == 0;
	struct timespec ts;
	int64_t ms;

	(void)from_file;
	clock_gettime(CLOCK_REALTIME, &ts);
	if (utc_when(arg, (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000,
	    &ms) != 0) {
		snprintf(ps->err, ps->errlen, "--%s '%s'%s: not a time; give "
		    "UTC as 2026-11-27T03:05 (seconds and Z optional), or a "
		    "span before now, e.g. -10m, -2h, -1d", r->name, arg,
		    ps->where);
		return -1;
	}
	*(since ? &o->since_ms : &o->until_ms) = ms;
	*(since ? &o->has_since : &o->has_until) = true;
	return 0;
}
