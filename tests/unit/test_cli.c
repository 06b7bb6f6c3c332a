/*
 * Command line and option files: what good input gives, and that every bad
 * input gives CLI_USAGE with a message naming the problem.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <cmocka.h>
#include <openssl/evp.h>

#include "cli.h"
#include "output_table.h"
#include "fixtures.h"
/* The option table itself, so that tests can walk every row. */
#include "../../src/cli_table.h"
#include "modes.h"

static char tmpdir[64];

static const char *const no_files[] = { NULL };

static struct cli_env
bare_env(void)
{
	return (struct cli_env){ .system_files = no_files };
}

/* Parses a command line given as a NULL-terminated list. */
static enum cli_status
parse_env(const struct cli_env *env, struct options *o, char *err,
    size_t errlen, ...)
{
	char *argv[64], warn[512];
	enum cli_status st;
	int argc = 0;
	va_list ap;

	/* Copies, as cli_parse() writes over a password in argv. */
	argv[argc++] = strdup("mysqlmemprof");
	va_start(ap, errlen);
	for (char *a; (a = va_arg(ap, char *)) != NULL;)
		argv[argc++] = strdup(a);
	va_end(ap);
	argv[argc] = NULL;
	err[0] = '\0';
	st = cli_parse(argc, argv, env, o, warn, sizeof(warn), err, errlen);
	for (int i = 0; i < argc; i++)
		free(argv[i]);
	return st;
}

#define PARSE(o, err, ...) \
	parse_env(&env, (o), (err), sizeof(err), __VA_ARGS__, (char *)NULL)

static void
write_file(const char *path, const char *text, mode_t mode)
{
	FILE *fp = fopen(path, "w");

	assert_non_null(fp);
	fputs(text, fp);
	fclose(fp);
	chmod(path, mode);
}

static void
test_defaults(void **state)
{
	struct cli_env env = bare_env();
	struct options o;
	char err[512];

	(void)state;
	assert_int_equal(PARSE(&o, err, "--thread", "42"), CLI_OK);
	assert_int_equal(o.target, TARGET_THREAD);
	assert_int_equal(o.target_id, 42);
	assert_int_equal(o.frequency_ms, 500);
	assert_int_equal(o.window, 50);
	assert_int_equal(o.top, 10);
	assert_int_equal(o.count, 0);
	assert_int_equal(o.duration_s, 0);
	assert_string_equal(o.format->name, "text");
	assert_null(o.output);
	assert_null(o.password);
	assert_int_equal(o.poll_ms, 1000);
	assert_int_equal(o.wait_timeout_s, 0);
	assert_int_equal(o.trigger_bytes, 0);
	assert_int_equal(o.trigger_hold_s, 5);
	assert_int_equal(o.connect_timeout_s, 10);
	assert_int_equal(o.read_timeout_s, 30);
	assert_int_equal(o.reconnect_timeout_s, 30);
	assert_int_equal(o.port, 0);
	assert_int_equal(o.ssl_mode, TLS_DEFAULT);
	assert_null(o.host);
	assert_false(o.repeat);
	assert_false(o.exact_bytes);
	assert_false(o.quiet);
	assert_false(o.password_prompt);
	assert_int_equal(o.n_include_events, 0);
	cli_free(&o);
}

static void
test_all_options(void **state)
{
	struct cli_env env = bare_env();
	struct options o;
	char err[512];

	(void)state;
	assert_int_equal(PARSE(&o, err, "--connection=17", "--frequency",
	    "250", "--count=9", "--duration", "60", "--window", "5",
	    "--top=0", "--format", "csv", "-o", "out.csv", "--bytes", "-q",
	    "-h", "db1", "-P", "3307", "-S", "/tmp/s.sock", "-u", "prof",
	    "-psecret", "--connect-timeout", "3", "--read-timeout=4"), CLI_OK);
	assert_int_equal(o.target, TARGET_CONNECTION);
	assert_int_equal(o.target_id, 17);
	assert_int_equal(o.frequency_ms, 250);
	assert_int_equal(o.count, 9);
	assert_int_equal(o.duration_s, 60);
	assert_int_equal(o.window, 5);
	assert_int_equal(o.top, 0);
	assert_string_equal(o.format->name, "csv");
	assert_string_equal(o.output, "out.csv");
	assert_true(o.exact_bytes);
	assert_true(o.quiet);
	assert_string_equal(o.host, "db1");
	assert_int_equal(o.port, 3307);
	assert_string_equal(o.socket, "/tmp/s.sock");
	assert_string_equal(o.user, "prof");
	assert_string_equal(o.password, "secret");
	assert_true(o.password_on_command_line);
	assert_false(o.password_prompt);
	assert_int_equal(o.connect_timeout_s, 3);
	assert_int_equal(o.read_timeout_s, 4);
	cli_free(&o);
}

static void
test_password_forms(void **state)
{
	struct cli_env env = bare_env();
	struct options o;
	char err[512];

	(void)state;
	assert_int_equal(PARSE(&o, err, "--list", "-p"), CLI_OK);
	assert_true(o.password_prompt);
	assert_null(o.password);
	cli_free(&o);
	assert_int_equal(PARSE(&o, err, "--list", "--password"), CLI_OK);
	assert_true(o.password_prompt);
	cli_free(&o);
	assert_int_equal(PARSE(&o, err, "--list", "--password=a b"), CLI_OK);
	assert_string_equal(o.password, "a b");
	cli_free(&o);
	/* MYSQL_PWD is used only when nothing else gives a password. */
	env.mysql_pwd = "fromenv";
	assert_int_equal(PARSE(&o, err, "--list"), CLI_OK);
	assert_string_equal(o.password, "fromenv");
	assert_false(o.password_on_command_line);
	cli_free(&o);
	assert_int_equal(PARSE(&o, err, "--list", "-pcli"), CLI_OK);
	assert_string_equal(o.password, "cli");
	cli_free(&o);
	assert_int_equal(PARSE(&o, err, "--list", "-p"), CLI_OK);
	assert_null(o.password);
	cli_free(&o);
}

static void
test_password_scrubbed_from_argv(void **state)
{
	struct cli_env env = bare_env();
	char a1[] = "--pass=secret", a2[] = "-qpsecret", a3[] = "--list";
	char *argv[] = { (char *)"mysqlmemprof", a1, a3, NULL };
	char *argv2[] = { (char *)"mysqlmemprof", a2, a3, NULL };
	struct options o;
	char warn[100], err[512];

	(void)state;
	/* An abbreviation of --password, and -p bundled after -q. */
	assert_int_equal(cli_parse(3, argv, &env, &o, warn, sizeof(warn), err,
	    sizeof(err)), CLI_OK);
	assert_string_equal(o.password, "secret");
	assert_string_equal(a1, "--pass=xxxxxx");
	cli_free(&o);
	assert_int_equal(cli_parse(3, argv2, &env, &o, warn, sizeof(warn),
	    err, sizeof(err)), CLI_OK);
	assert_string_equal(o.password, "secret");
	assert_true(o.quiet);
	assert_string_equal(a2, "-qpxxxxxx");
	cli_free(&o);
	/* "-p secret": the stray word is not echoed, it may be the password. */
	assert_int_equal(PARSE(&o, err, "--list", "-p", "hunter2"), CLI_USAGE);
	assert_null(strstr(err, "hunter2"));
	assert_non_null(strstr(err, "-pPASSWORD"));
	cli_free(&o);
}

static void
test_help_and_version(void **state)
{
	struct cli_env env = bare_env();
	struct options o;
	char err[512];

	(void)state;
	assert_int_equal(PARSE(&o, err, "--help"), CLI_HELP);
	cli_free(&o);
	assert_int_equal(PARSE(&o, err, "-?"), CLI_HELP);
	cli_free(&o);
	assert_int_equal(PARSE(&o, err, "--version"), CLI_VERSION);
	cli_free(&o);
	assert_int_equal(PARSE(&o, err, "-V"), CLI_VERSION);
	cli_free(&o);
}

static void
test_grains_and_filters(void **state)
{
	struct cli_env env = bare_env();
	struct options o;
	char err[512];

	(void)state;
	assert_int_equal(PARSE(&o, err, "--for-account", "a@b@c", "--events",
	    "memory/sql/%", "--exclude", "%root", "--events", "memory/innodb/%"),
	    CLI_OK);
	assert_int_equal(o.target, TARGET_ACCOUNT);
	/* Host names have no '@': the last one splits. */
	assert_string_equal(o.grain_user, "a@b");
	assert_string_equal(o.grain_host, "c");
	assert_int_equal(o.n_include_events, 2);
	assert_string_equal(o.include_events[0], "memory/sql/%");
	assert_string_equal(o.include_events[1], "memory/innodb/%");
	assert_int_equal(o.n_exclude_events, 1);
	assert_string_equal(o.exclude_events[0], "%root");
	cli_free(&o);
	assert_int_equal(PARSE(&o, err, "--global"), CLI_OK);
	assert_int_equal(o.target, TARGET_GLOBAL);
	cli_free(&o);
	assert_int_equal(PARSE(&o, err, "--for-host", "localhost"), CLI_OK);
	assert_int_equal(o.target, TARGET_HOST);
	assert_string_equal(o.grain_host, "localhost");
	cli_free(&o);
}

static void
test_last_value_wins(void **state)
{
	struct cli_env env = bare_env();
	struct options o;
	char err[512];

	(void)state;
	assert_int_equal(PARSE(&o, err, "--thread=1", "--thread=2", "--top=3",
	    "--top=4"), CLI_OK);
	assert_int_equal(o.target_id, 2);
	assert_int_equal(o.top, 4);
	cli_free(&o);
}

/* Each bad command line, and a word its message must contain. */
static const struct bad {
	const char *args[6];
	const char *expect;
} bad_lines[] = {
	{ { NULL }, "no target" },
	{ { "--frequency", "250", NULL }, "no target" },
	{ { "--thread", "1", "--connection", "2", NULL }, "only one" },
	{ { "--thread", "1", "--list", NULL }, "only one" },
	{ { "--list", "--connection=3", NULL }, "only one" },
	{ { "--thread", "abc", NULL }, "--thread 'abc': not a number" },
	{ { "--thread", "0", NULL }, "at least 1" },
	{ { "--thread", "-5", NULL }, "must be positive" },
	{ { "--thread", "18446744073709551616", NULL }, "too large" },
	{ { "--thread", "", NULL }, "empty" },
	{ { "--connection", "12abc", NULL }, "trailing" },
	{ { "--connection", " 12", NULL }, "not a number" },
	{ { "--list", "--frequency", "0", NULL }, "--frequency '0'" },
	{ { "--list", "--frequency", "abc", NULL }, "not a number" },
	{ { "--list", "--frequency", "10x", NULL }, "trailing" },
	{ { "--list", "--frequency", "-5", NULL }, "positive" },
	{ { "--list", "--frequency", "3600001", NULL }, "at most 3600000" },
	{ { "--list", "--frequency", "1.5", NULL }, "trailing" },
	{ { "--list", "--frequency", "+5", NULL }, "not a number" },
	{ { "--list", "--count", "0", NULL }, "--count" },
	{ { "--list", "--count", "1e3", NULL }, "trailing" },
	{ { "--list", "--duration", "0", NULL }, "--duration" },
	{ { "--list", "--duration", "5s", NULL }, "trailing" },
	{ { "--list", "--window", "0", NULL }, "--window" },
	{ { "--list", "--window", "100001", NULL }, "too large" },
	{ { "--list", "--top", "-1", NULL }, "negative" },
	{ { "--list", "--top", "10001", NULL }, "too large" },
	{ { "--list", "--port", "0", NULL }, "--port" },
	{ { "--global", "--format", "folded", "--profile-at", "first" },
	    "--profile-at 'first': unknown value; give last, peak or each" },
	{ { "--global", "--format", "pprof", "--profile-root=user", NULL },
	    "give none, thread or statement" },
	{ { "--list", "--format", "folded", NULL }, "--list writes text, csv or "
	    "json, not folded" },
	{ { "--global", "--format=pprof", "--profile-at=each", NULL },
	    "give --output a pattern with %N" },
	{ { "--global", "--format=folded", "--profile-at=each", "-o", "a%%N" },
	    "give --output a pattern with %N" },
	{ { "--global", "--format=folded", "--profile-at=each", "-o", "%N%q" },
	    "unknown conversion %q" },
	{ { "--wait-for", "x", "--repeat", "--format=pprof", NULL },
	    "give --output a pattern" },
	{ { "--list", "--port", "65536", NULL }, "too large" },
	{ { "--list", "-P", "http", NULL }, "not a number" },
	{ { "--list", "--connect-timeout", "0", NULL }, "--connect-timeout" },
	{ { "--list", "--read-timeout", "x", NULL }, "--read-timeout" },
	{ { "--list", "--format", "xml", NULL }, "text, csv, json" },
	{ { "--list", "--format", "html", NULL }, "--list writes text, csv or "
	    "json, not html; give --format text, --format csv or --format json" },
	{ { "--wait-for", "x", "--repeat", "--format", "svg", NULL },
	    "--format svg writes one document per capture; with --repeat, give "
	    "--output a pattern" },
	{ { "--list", "--format", "", NULL }, "unknown format" },
	{ { "--list", "--output", "", NULL }, "empty file name" },
	{ { "--list", "--bogus", NULL }, "unknown option '--bogus'" },
	{ { "--list", "--co", "3", NULL }, "option '--co' is ambiguous: it "
	    "could be --connection, --count or --connect-timeout" },
	{ { "--list", "--re=1", NULL }, "option '--re' is ambiguous: it "
	    "could be --read, --repeat, --record, --record-size, --record-age, "
	    "--read-timeout or --reconnect-timeout" },
	{ { "--connection", "--count", "3", NULL },
	    "--connection needs a value, and '--count' is an option" },
	{ { "--list", "-u", "--cou", "3", NULL },
	    "--user needs a value, and '--cou' is an option" },
	{ { "--list", "--host", "-P", "3", NULL },
	    "--host needs a value, and '-P' is an option" },
	{ { "--list", "-x", NULL }, "unknown option '-x'" },
	{ { "--list", "--thread", NULL }, "--thread needs a value" },
	{ { "--list", "--frequency", NULL }, "needs a value" },
	{ { "--list", "-u", NULL }, "needs a value" },
	{ { "--list", "extra", NULL }, "unexpected argument 'extra'" },
	{ { "--list", "--defaults-file=/nonexistent/my.cnf", NULL },
	    "/nonexistent/my.cnf" },
	{ { "--list", "--defaults-extra-file=/nonexistent/x.cnf", NULL },
	    "cannot read option file" },
	{ { "--list", "--defaults-file=/", NULL }, "not a regular file" },
	{ { "--list", "--bytes=1", NULL }, "--bytes takes no value" },
	{ { "--global", "--thread", "1", NULL }, "only one" },
	{ { "--for-user", "a", "--for-host", "b", NULL }, "only one" },
	{ { "--for-user", "", NULL }, "--for-user" },
	{ { "--for-account", "app", NULL }, "USER@HOST" },
	{ { "--for-account", "@host", NULL }, "USER@HOST" },
	{ { "--for-account", "app@", NULL }, "USER@HOST" },
	{ { "--global", "--events", "", NULL }, "empty pattern" },
	{ { "--global", "--exclude", "", NULL }, "empty pattern" },
	{ { "--list", "--quiet=yes", NULL }, "--quiet takes no value" },
	/* --wait-for and --longer-than: a target of their own. */
	{ { "--wait-for", "x", "--thread", "1", NULL }, "only one" },
	{ { "--thread", "1", "--wait-for", "x", NULL }, "only one" },
	{ { "--longer-than", "5", "--list", NULL }, "only one" },
	{ { "--connection", "3", "--longer-than", "5", NULL }, "only one" },
	{ { "--repeat", NULL }, "no target" },
	{ { "--match-user", "batch", NULL }, "no target" },
	{ { "--thread", "1", "--repeat", NULL },
	    "--repeat needs --wait-for, --longer-than or --bigger-than" },
	{ { "--list", "--poll", "100", NULL }, "--poll needs --wait-for" },
	{ { "--connection", "1", "--wait-timeout", "5", NULL },
	    "--wait-timeout needs --wait-for" },
	{ { "--thread", "1", "--match-user", "u", NULL }, "--match-user needs" },
	{ { "--thread", "1", "--match-db", "d", NULL }, "--match-db needs" },
	{ { "--wait-for", "", NULL }, "--wait-for: empty value" },
	{ { "--wait-for", "x", "--match-user", "", NULL },
	    "--match-user: empty value" },
	{ { "--wait-for", "x", "--match-db=", NULL }, "--match-db: empty" },
	{ { "--wait-for", NULL }, "--wait-for needs a value" },
	{ { "--longer-than", "-1", NULL }, "must not be negative" },
	{ { "--longer-than", "5s", NULL }, "trailing" },
	{ { "--longer-than", "", NULL }, "empty value" },
	{ { "--longer-than", "315360001", NULL }, "at most 315360000" },
	{ { "--wait-for", "x", "--poll", "9", NULL }, "--poll '9': too small" },
	{ { "--wait-for", "x", "--poll", "3600001", NULL }, "too large" },
	{ { "--wait-for", "x", "--poll", "1.5", NULL }, "trailing" },
	{ { "--wait-for", "x", "--wait-timeout", "0", NULL }, "at least 1" },
	{ { "--wait-for", "x", "--wait-timeout", "1h", NULL }, "trailing" },
	{ { "--wait-for", "x", "-o", "cap-%", NULL }, "lone %" },
	{ { "--wait-for", "x", "-o", "cap-%q.csv", NULL },
	    "unknown conversion %q" },
	{ { "--longer-than", "1", "-o", "%D", NULL }, "unknown conversion %D" },
	{ { "--wait-for", "x", "--repeat=1", NULL }, "--repeat takes no value" },
};

static void
test_bad_command_lines(void **state)
{
	(void)state;
	for (size_t i = 0; i < sizeof(bad_lines) / sizeof(bad_lines[0]); i++) {
		struct cli_env env = bare_env();
		const struct bad *b = &bad_lines[i];
		char *argv[8], warn[512], err[512] = "";
		struct options o;
		int argc = 0;

		argv[argc++] = strdup("mysqlmemprof");
		for (int k = 0; b->args[k] != NULL; k++)
			argv[argc++] = strdup(b->args[k]);
		argv[argc] = NULL;
		enum cli_status st = cli_parse(argc, argv, &env, &o, warn,
		    sizeof(warn), err, sizeof(err));
		for (int k = 0; k < argc; k++)
			free(argv[k]);
		if (st != CLI_USAGE || strstr(err, b->expect) == NULL ||
		    strchr(err, '\n') != NULL)
			fail_msg("case %zu (%s ...): status %d, message '%s', "
			    "wanted '%s'", i, b->args[0] ? b->args[0] : "",
			    st, err, b->expect);
		cli_free(&o);
	}
}

static void
test_numbers(void **state)
{
	const char *errstr;
	uint64_t v;

	(void)state;
	assert_int_equal(cli_number("0", 0, 10, &v, &errstr), 0);
	assert_int_equal(v, 0);
	assert_int_equal(cli_number("18446744073709551615", 1, UINT64_MAX, &v,
	    &errstr), 0);
	assert_true(v == UINT64_MAX);
	assert_int_equal(cli_number("18446744073709551616", 1, UINT64_MAX, &v,
	    &errstr), -1);
	assert_string_equal(errstr, "too large");
	assert_int_equal(cli_number("007", 1, 10, &v, &errstr), 0);
	assert_int_equal(v, 7);
	assert_int_equal(cli_number("7 ", 1, 10, &v, &errstr), -1);
	assert_int_equal(cli_number("0x10", 1, 100, &v, &errstr), -1);
}

/* Byte counts: K, M and G are binary; anything else after the digits is not. */
static void
test_bytes(void **state)
{
	static const struct {
		const char *in;
		uint64_t want;
	} good[] = {
		{ "1", 1 }, { "1024", 1024 }, { "1K", 1024 }, { "1k", 1024 },
		{ "3M", 3 << 20 }, { "2g", (uint64_t)2 << 30 },
		{ "007K", 7 << 10 },
		{ "8589934591G", UINT64_C(8589934591) << 30 },
	};
	static const struct {
		const char *in, *errstr;
	} bad[] = {
		{ "", "empty value" }, { "K", "not a number" },
		{ "G", "not a number" }, { "-1M", "must not be negative" },
		{ "1.5G", "trailing characters after the number" },
		{ "1KB", "trailing characters after the number" },
		{ "1T", "trailing characters after the number" },
		{ "1 K", "trailing characters after the number" },
		{ "5 ", "trailing characters after the number" },
		{ "1KK", "trailing characters after the number" },
		{ "0x10", "trailing characters after the number" },
		{ "M1", "not a number" },
		{ "17179869184G", "too large" }, /* 2^64 */
		{ "18446744073709551616", "too large" },
		{ "99999999999999999999999999999999999", "too large" },
		{ "9999999999999999999999999999999999x", "not a number" },
	};
	const char *errstr;
	uint64_t v;

	(void)state;
	for (size_t i = 0; i < sizeof(good) / sizeof(good[0]); i++) {
		errstr = NULL;
		if (cli_bytes(good[i].in, 0, UINT64_MAX, &v, &errstr) != 0)
			fail_msg("'%s': %s", good[i].in, errstr);
		if (v != good[i].want)
			fail_msg("'%s': %ju, want %ju", good[i].in,
			    (uintmax_t)v, (uintmax_t)good[i].want);
	}
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		errstr = NULL;
		if (cli_bytes(bad[i].in, 0, UINT64_MAX, &v, &errstr) == 0)
			fail_msg("'%s' accepted as %ju", bad[i].in,
			    (uintmax_t)v);
		assert_non_null(errstr);
		if (strcmp(errstr, bad[i].errstr) != 0)
			fail_msg("'%s': \"%s\", want \"%s\"", bad[i].in, errstr,
			    bad[i].errstr);
	}
	/* The range applies to the bytes, not to the digits. */
	assert_int_equal(cli_bytes("1K", 1, 1024, &v, &errstr), 0);
	assert_int_equal(cli_bytes("2K", 1, 1024, &v, &errstr), -1);
	assert_string_equal(errstr, "too large");
	assert_int_equal(cli_bytes("0", 1, 1024, &v, &errstr), -1);
	assert_string_equal(errstr, "must be at least 1");
	assert_int_equal(cli_bytes("0K", 1, 1024, &v, &errstr), -1);
}

/* --bigger-than: a size as --trigger-bytes takes it, and a waiting target. */
static void
test_bigger_than(void **state)
{
	struct cli_env env = bare_env();
	struct options o;
	char err[512];

	(void)state;
	assert_int_equal(PARSE(&o, err, "--bigger-than", "1G", "--match-user",
	    "batch", "--repeat"), CLI_OK);
	assert_int_equal(o.target, TARGET_WAIT);
	assert_int_equal(o.bigger_than_bytes, (uint64_t)1 << 30);
	assert_int_equal(o.longer_than_s, 0);
	assert_null(o.wait_pattern);
	cli_free(&o);
	/* With the other conditions: one target, all of them kept. */
	assert_int_equal(PARSE(&o, err, "--wait-for", "%x%", "--longer-than",
	    "30", "--bigger-than=512M"), CLI_OK);
	assert_int_equal(o.bigger_than_bytes, (uint64_t)512 << 20);
	assert_int_equal(o.longer_than_s, 30);
	assert_string_equal(o.wait_pattern, "%x%");
	cli_free(&o);
	assert_int_equal(PARSE(&o, err, "--bigger-than", "0"), CLI_USAGE);
	assert_non_null(strstr(err, "must be at least 1"));
	cli_free(&o);
	assert_int_equal(PARSE(&o, err, "--bigger-than", "1T"), CLI_USAGE);
	assert_non_null(strstr(err, "e.g. --bigger-than 1G"));
	cli_free(&o);
	assert_int_equal(PARSE(&o, err, "--bigger-than", "1G", "--thread",
	    "3"), CLI_USAGE);
	assert_non_null(strstr(err, "only one"));
	cli_free(&o);
	/* A share of connection_memory_limit, from 1% to 100%. */
	assert_int_equal(PARSE(&o, err, "--bigger-than", "80%",
	    "--running-only", "--trigger-hold", "2"), CLI_OK);
	assert_int_equal(o.bigger_than_pct, 80);
	assert_int_equal(o.bigger_than_bytes, 0);
	assert_true(o.running_only);
	assert_int_equal(o.trigger_hold_s, 2);
	assert_int_equal(o.target, TARGET_WAIT);
	cli_free(&o);
	/* The last one given counts: a size after a share replaces it. */
	assert_int_equal(PARSE(&o, err, "--bigger-than", "100%",
	    "--bigger-than", "2M"), CLI_OK);
	assert_int_equal(o.bigger_than_pct, 0);
	assert_int_equal(o.bigger_than_bytes, 2 << 20);
	cli_free(&o);
	assert_int_equal(PARSE(&o, err, "--bigger-than", "0%"), CLI_USAGE);
	assert_non_null(strstr(err, "--bigger-than '0%': must be at least 1; "
	    "give a percentage of connection_memory_limit from 1% to 100%"));
	cli_free(&o);
	assert_int_equal(PARSE(&o, err, "--bigger-than", "101%"), CLI_USAGE);
	assert_non_null(strstr(err, "from 1% to 100%"));
	cli_free(&o);
	assert_int_equal(PARSE(&o, err, "--bigger-than", "8x%"), CLI_USAGE);
	cli_free(&o);
	assert_int_equal(PARSE(&o, err, "--bigger-than", "%"), CLI_USAGE);
	cli_free(&o);
	/* --trigger-hold without a size to hold to. */
	assert_int_equal(PARSE(&o, err, "--wait-for", "x", "--trigger-hold",
	    "2"), CLI_USAGE);
	assert_non_null(strstr(err, "needs --trigger-bytes or --bigger-than"));
	cli_free(&o);
}

static void
test_trigger_options(void **state)
{
	struct cli_env env = bare_env();
	struct options o;
	char err[512];

	(void)state;
	assert_int_equal(PARSE(&o, err, "--thread", "1"), CLI_OK);
	assert_int_equal(o.trigger_bytes, 0);
	assert_int_equal(o.trigger_hold_s, 5);
	cli_free(&o);
	assert_int_equal(PARSE(&o, err, "--thread", "1", "--trigger-bytes",
	    "1G", "--trigger-hold=0"), CLI_OK);
	assert_int_equal(o.trigger_bytes, (uint64_t)1 << 30);
	assert_int_equal(o.trigger_hold_s, 0);
	cli_free(&o);
	assert_int_equal(PARSE(&o, err, "--thread", "1",
	    "--trigger-bytes=1500000"), CLI_OK);
	assert_int_equal(o.trigger_bytes, 1500000);
	cli_free(&o);

	assert_int_equal(PARSE(&o, err, "--thread", "1", "--trigger-hold",
	    "3"), CLI_USAGE);
	assert_non_null(strstr(err, "--trigger-hold needs --trigger-bytes"));
	cli_free(&o);
	assert_int_equal(PARSE(&o, err, "--thread", "1", "--trigger-bytes",
	    "1.5G"), CLI_USAGE);
	assert_string_equal(err, "--trigger-bytes '1.5G': trailing characters "
	    "after the number; give bytes, with K, M or G for KiB, MiB or GiB, "
	    "e.g. --trigger-bytes 512M");
	cli_free(&o);
	assert_int_equal(PARSE(&o, err, "--thread", "1", "--trigger-bytes",
	    "0"), CLI_USAGE);
	assert_non_null(strstr(err, "must be at least 1"));
	cli_free(&o);
	/* Past INT64_MAX, the largest total a thread can have. */
	assert_int_equal(PARSE(&o, err, "--thread", "1", "--trigger-bytes",
	    "8589934592G"), CLI_USAGE);
	assert_non_null(strstr(err, "too large"));
	cli_free(&o);
	assert_int_equal(PARSE(&o, err, "--thread", "1", "--trigger-hold",
	    "86401", "--trigger-bytes", "1M"), CLI_USAGE);
	assert_non_null(strstr(err, "--trigger-hold '86401': too large"));
	cli_free(&o);
}

/* Option files. */

static void
test_option_files_in_order(void **state)
{
	char sys[128], extra[160], extra_path[128], home_cnf[128];
	const char *files[] = { sys, NULL };
	struct cli_env env = { .system_files = files, .home = tmpdir };
	struct options o;
	char err[512];

	(void)state;
	snprintf(sys, sizeof(sys), "%s/sys.cnf", tmpdir);
	snprintf(extra_path, sizeof(extra_path), "%s/extra.cnf", tmpdir);
	snprintf(extra, sizeof(extra), "--defaults-extra-file=%s", extra_path);
	snprintf(home_cnf, sizeof(home_cnf), "%s/.my.cnf", tmpdir);
	write_file(sys, "[client]\nuser = sysuser\nport=3000\nhost=syshost\n"
	    "default-character-set=utf8mb4\n[mysqld]\nbogus\n"
	    "[mysqlmemprof]\ntop=7\n", 0644);
	write_file(home_cnf, "[client]\nport=4000\n[mysqlmemprof]\n"
	    "frequency = 125 # a comment\nformat=\"json\"\n", 0600);
	write_file(extra_path, "[client]\nuser=extrauser\npassword='p#w d'\n",
	    0600);

	assert_int_equal(PARSE(&o, err, "--list", extra, "-h", "clihost"),
	    CLI_OK);
	assert_string_equal(o.host, "clihost");      /* command line wins */
	assert_string_equal(o.user, "extrauser");    /* extra after system */
	assert_int_equal(o.port, 4000);              /* ~/.my.cnf last */
	assert_int_equal(o.top, 7);
	assert_int_equal(o.frequency_ms, 125);
	assert_string_equal(o.format->name, "json");
	assert_string_equal(o.password, "p#w d");
	assert_false(o.password_on_command_line);
	cli_free(&o);

	/* --no-defaults reads nothing; --defaults-file reads only that file. */
	assert_int_equal(PARSE(&o, err, "--list", "--no-defaults"), CLI_OK);
	assert_null(o.user);
	assert_int_equal(o.top, 10);
	cli_free(&o);
	char only[160];
	snprintf(only, sizeof(only), "--defaults-file=%s", home_cnf);
	assert_int_equal(PARSE(&o, err, "--list", only), CLI_OK);
	assert_null(o.user);
	assert_int_equal(o.port, 4000);
	cli_free(&o);
}

static void
test_option_file_problems(void **state)
{
	char path[128], arg[160];
	struct cli_env env = bare_env();
	struct options o;
	char err[512], warn[512];
	const char *files[] = { path, NULL };

	(void)state;
	snprintf(path, sizeof(path), "%s/bad.cnf", tmpdir);
	snprintf(arg, sizeof(arg), "--defaults-file=%s", path);

	write_file(path, "[mysqlmemprof]\nbogus=1\n", 0644);
	assert_int_equal(PARSE(&o, err, "--list", arg), CLI_USAGE);
	assert_non_null(strstr(err, "unknown option 'bogus'"));
	cli_free(&o);

	write_file(path, "[mysqlmemprof]\nhelp\n", 0644);
	assert_int_equal(PARSE(&o, err, "--list", arg), CLI_USAGE);
	assert_non_null(strstr(err, "only on the command line"));
	assert_non_null(strstr(err, "bad.cnf:2"));
	cli_free(&o);

	write_file(path, "[mysqlmemprof]\nloose-bogus=1\n[client]\nssl-ca=x\n",
	    0644);
	assert_int_equal(PARSE(&o, err, "--list", arg), CLI_OK);
	cli_free(&o);

	write_file(path, "[mysqlmemprof]\ntop=lots\n", 0644);
	assert_int_equal(PARSE(&o, err, "--list", arg), CLI_USAGE);
	assert_non_null(strstr(err, "--top 'lots' in "));
	cli_free(&o);

	write_file(path, "[client]\nport\n", 0644);
	assert_int_equal(PARSE(&o, err, "--list", arg), CLI_USAGE);
	assert_non_null(strstr(err, "needs a value"));
	cli_free(&o);

	write_file(path, "[client]\npassword=\"open\n", 0644);
	assert_int_equal(PARSE(&o, err, "--list", arg), CLI_USAGE);
	assert_non_null(strstr(err, "unterminated quote"));
	cli_free(&o);

	write_file(path, "[client\nuser=x\n", 0644);
	assert_int_equal(PARSE(&o, err, "--list", arg), CLI_USAGE);
	assert_non_null(strstr(err, "without ']'"));
	cli_free(&o);

	write_file(path, "[mysqlmemprof]\nbytes=maybe\n", 0644);
	assert_int_equal(PARSE(&o, err, "--list", arg), CLI_USAGE);
	assert_non_null(strstr(err, "boolean"));
	cli_free(&o);

	write_file(path, "[mysqlmemprof]\nbytes=1\nquiet\nquiet=off\n", 0644);
	assert_int_equal(PARSE(&o, err, "--list", arg), CLI_OK);
	assert_true(o.exact_bytes);
	assert_false(o.quiet);
	cli_free(&o);

	/* A world-writable file is skipped with a warning, as mysql does. */
	write_file(path, "[client]\nuser=evil\n", 0666);
	char *argv[] = { (char *)"mysqlmemprof", (char *)"--list", NULL };
	env.system_files = files;
	assert_int_equal(cli_parse(2, argv, &env, &o, warn, sizeof(warn), err,
	    sizeof(err)), CLI_OK);
	assert_null(o.user);
	assert_non_null(strstr(warn, "world-writable"));
	cli_free(&o);

	/* An unreadable directory in the system list is skipped. */
	snprintf(path, sizeof(path), "%s", tmpdir);
	assert_int_equal(cli_parse(2, argv, &env, &o, warn, sizeof(warn), err,
	    sizeof(err)), CLI_OK);
	cli_free(&o);
}

static void
test_includes(void **state)
{
	char main_cnf[128], inc[128], dir[128], dcnf[128], arg[160], text[400];
	struct cli_env env = bare_env();
	struct options o;
	char err[512];

	(void)state;
	snprintf(main_cnf, sizeof(main_cnf), "%s/main.cnf", tmpdir);
	snprintf(inc, sizeof(inc), "%s/inc.cnf", tmpdir);
	snprintf(dir, sizeof(dir), "%s/conf.d", tmpdir);
	snprintf(dcnf, sizeof(dcnf), "%s/conf.d/50-x.cnf", tmpdir);
	mkdir(dir, 0755);
	snprintf(text, sizeof(text), "[client]\nuser=first\n!include %s\n"
	    "!includedir %s\n", inc, dir);
	write_file(main_cnf, text, 0644);
	write_file(inc, "[client]\nuser=included\n", 0644);
	write_file(dcnf, "[mysqlmemprof]\nwindow=9\n", 0644);
	snprintf(arg, sizeof(arg), "--defaults-file=%s", main_cnf);
	assert_int_equal(PARSE(&o, err, "--list", arg), CLI_OK);
	assert_string_equal(o.user, "included");
	assert_int_equal(o.window, 9);
	cli_free(&o);

	/* A file that includes itself is reported, not followed forever. */
	snprintf(text, sizeof(text), "!include %s\n", main_cnf);
	write_file(main_cnf, text, 0644);
	assert_int_equal(PARSE(&o, err, "--list", arg), CLI_USAGE);
	assert_non_null(strstr(err, "nested too deep"));
	cli_free(&o);
}

static void
test_wait_options(void **state)
{
	struct cli_env env = bare_env();
	struct options o;
	char path[128], arg[160], err[512];

	(void)state;
	assert_int_equal(PARSE(&o, err, "--wait-for", "%GROUP BY%"), CLI_OK);
	assert_int_equal(o.target, TARGET_WAIT);
	assert_string_equal(o.wait_pattern, "%GROUP BY%");
	assert_int_equal(o.longer_than_s, 0);
	assert_int_equal(o.poll_ms, 1000);
	assert_int_equal(o.wait_timeout_s, 0);
	assert_false(o.repeat);
	assert_null(o.match_user);
	cli_free(&o);

	/* The two combine, in either order, with the options of waiting. */
	assert_int_equal(PARSE(&o, err, "--longer-than=30", "--wait-for",
	    "INSERT%", "--match-user", "batch", "--match-db=dw", "--poll",
	    "250", "--wait-timeout", "3600", "--repeat", "-o",
	    "cap-%Y%m%d-%H%M%S-%c-%t-100%%.csv"), CLI_OK);
	assert_int_equal(o.target, TARGET_WAIT);
	assert_string_equal(o.wait_pattern, "INSERT%");
	assert_int_equal(o.longer_than_s, 30);
	assert_string_equal(o.match_user, "batch");
	assert_string_equal(o.match_db, "dw");
	assert_int_equal(o.poll_ms, 250);
	assert_int_equal(o.wait_timeout_s, 3600);
	assert_true(o.repeat);
	cli_free(&o);

	/* --longer-than alone is a target; 0 means any running statement. */
	assert_int_equal(PARSE(&o, err, "--longer-than", "0"), CLI_OK);
	assert_int_equal(o.target, TARGET_WAIT);
	assert_null(o.wait_pattern);
	cli_free(&o);

	/* Patterns are for captures only: elsewhere a % is a plain name. */
	assert_int_equal(PARSE(&o, err, "--thread", "1", "-o", "50%"), CLI_OK);
	assert_string_equal(o.output, "50%");
	cli_free(&o);

	/*
	 * An option file may hold the options of waiting for some runs: a
	 * target on the command line replaces its own, and the rest is then
	 * left alone, not an error.
	 */
	snprintf(path, sizeof(path), "%s/wait.cnf", tmpdir);
	snprintf(arg, sizeof(arg), "--defaults-file=%s", path);
	write_file(path, "[mysqlmemprof]\nwait-for = %nightly%\nrepeat\n"
	    "poll = 500\nmatch-user = batch\n", 0600);
	assert_int_equal(PARSE(&o, err, arg, "--thread", "5"), CLI_OK);
	assert_int_equal(o.target, TARGET_THREAD);
	cli_free(&o);
	assert_int_equal(PARSE(&o, err, arg, "--longer-than", "60"), CLI_OK);
	assert_int_equal(o.target, TARGET_WAIT);
	assert_string_equal(o.wait_pattern, "%nightly%");
	assert_int_equal(o.longer_than_s, 60);
	assert_int_equal(o.poll_ms, 500);
	assert_true(o.repeat);
	cli_free(&o);
	write_file(path, "[mysqlmemprof]\nlonger-than = 5\nrepeat = off\n",
	    0600);
	assert_int_equal(PARSE(&o, err, arg), CLI_OK);
	assert_int_equal(o.target, TARGET_WAIT);
	assert_false(o.repeat);
	cli_free(&o);
}

/* The option table: what every row promises, tried on every row. */

/* Writes text as the only option file and parses it with the arguments. */
static enum cli_status
parse_file_env(const char *text, struct options *o, char *err, size_t errlen,
    ...)
{
	char path[128], arg[160], *argv[16], warn[512];
	enum cli_status st;
	int argc = 0;
	va_list ap;

	snprintf(path, sizeof(path), "%s/table.cnf", tmpdir);
	snprintf(arg, sizeof(arg), "--defaults-file=%s", path);
	write_file(path, text, 0600);
	argv[argc++] = strdup("mysqlmemprof");
	argv[argc++] = strdup(arg);
	va_start(ap, errlen);
	for (char *a; (a = va_arg(ap, char *)) != NULL && argc < 15;)
		argv[argc++] = strdup(a);
	va_end(ap);
	argv[argc] = NULL;
	err[0] = '\0';
	struct cli_env env = bare_env();
	st = cli_parse(argc, argv, &env, o, warn, sizeof(warn), err, errlen);
	for (int i = 0; i < argc; i++)
		free(argv[i]);
	return st;
}

#define PARSE_FILE(text, o, err, ...) \
	parse_file_env((text), (o), (err), sizeof(err), __VA_ARGS__, \
	    (char *)NULL)

static void *
field(struct options *o, const struct cli_row *r)
{
	return (char *)o + r->field;
}

/* A good value for a row of a plain kind, to give it on its own. */
static const char *
good_value(const struct cli_row *r, char *buf, size_t len)
{
	switch (r->kind) {
	case KIND_FLAG:
		return NULL;
	case KIND_NUMBER:
		snprintf(buf, len, "%ju", (uintmax_t)r->min);
		return buf;
	case KIND_STRING:
	case KIND_LIST:
		return "x";
	case KIND_BYTES:
		return "1M";
	case KIND_SPECIAL:
		if (r->set == cli_set_profile_at)
			return "peak";
		if (r->set == cli_set_profile_root)
			return "thread";
		if (r->set == cli_set_ssl_mode)
			return "REQUIRED";
		if (r->set == cli_set_protocol)
			return "TCP";
		if (r->set == cli_set_tls_version)
			return "TLSv1.2";
		if (r->set == cli_set_when)
			return "2026-11-27T03:05Z";
		/* FALLTHROUGH */
	default:
		fail_msg("--%s: no good value for its kind %d; add one here",
		    r->name, r->kind);
		return NULL;
	}
}

/* "--name" or "--name=value", for a command line. */
static const char *
option_arg(const struct cli_row *r, char *buf, size_t len)
{
	char value[32];
	const char *v = good_value(r, value, sizeof(value));

	snprintf(buf, len, v == NULL ? "--%s" : "--%s=%s", r->name, v);
	return buf;
}

/*
 * Every flag an option file sets can be switched off by a later line of a
 * file, in each of the ways mysql(1) reads a false boolean.
 */
static void
test_flags_switched_off_in_option_files(void **state)
{
	static const char *const off[] = { "off", "OFF", "0", "false", "no" };
	struct options o;
	char text[256], err[512];
	size_t tested = 0;

	(void)state;
	for (size_t i = 0; i < cli_n_rows; i++) {
		const struct cli_row *r = &cli_rows[i];
		/* A flag that implies a target (--explain) takes no other. */
		const char *target = r->implies != TARGET_NONE ? "--global" :
		    "--list";

		if (r->kind != KIND_FLAG || r->size == 0)
			continue;
		for (size_t k = 0; k < sizeof(off) / sizeof(off[0]); k++) {
			snprintf(text, sizeof(text), "[mysqlmemprof]\n%s\n"
			    "%s = %s\n", r->name, r->name, off[k]);
			if (PARSE_FILE(text, &o, err, target) != CLI_OK)
				fail_msg("%s=%s: %s", r->name, off[k], err);
			if (*(bool *)field(&o, r))
				fail_msg("'%s=%s' in an option file left --%s "
				    "on", r->name, off[k], r->name);
			cli_free(&o);
		}
		/* And on again, which tells that the right field was tried. */
		snprintf(text, sizeof(text), "[mysqlmemprof]\n%s=off\n%s=on\n",
		    r->name, r->name);
		assert_int_equal(PARSE_FILE(text, &o, err, target), CLI_OK);
		if (!*(bool *)field(&o, r))
			fail_msg("'%s=on' after '%s=off' left --%s off", r->name,
			    r->name, r->name);
		cli_free(&o);
		tested++;
	}
	assert_true(tested >= 3); /* --repeat, --bytes, --quiet */

	/* The case issue 8 names: repeat=off after repeat. */
	assert_int_equal(PARSE_FILE("[mysqlmemprof]\nlonger-than = 5\nrepeat\n"
	    "repeat = off\n", &o, err, "--list"), CLI_OK);
	assert_false(o.repeat);
	cli_free(&o);
	/* The command line still wins over the file. */
	assert_int_equal(PARSE_FILE("[mysqlmemprof]\nrepeat = off\n", &o, err,
	    "--longer-than", "5", "--repeat"), CLI_OK);
	assert_true(o.repeat);
	cli_free(&o);
}

/* A flag that only names a target is not undone by "=off": it is ignored. */
static void
test_target_flags_off_in_option_files(void **state)
{
	struct options o;
	char err[512];

	(void)state;
	assert_int_equal(parse_file_env("[mysqlmemprof]\nlist=off\n", &o, err,
	    sizeof(err), (char *)NULL), CLI_USAGE);
	assert_non_null(strstr(err, "no target"));
	cli_free(&o);
	assert_int_equal(PARSE_FILE("[mysqlmemprof]\nglobal = 0\n", &o, err,
	    "--thread", "3"), CLI_OK);
	assert_int_equal(o.target, TARGET_THREAD);
	cli_free(&o);
	assert_int_equal(parse_file_env("[mysqlmemprof]\nglobal = yes\n", &o,
	    err, sizeof(err), (char *)NULL), CLI_OK);
	assert_int_equal(o.target, TARGET_GLOBAL);
	cli_free(&o);
}

/*
 * "loose-" excuses a name this program does not know, and nothing else: a
 * known option is applied, a bad value is still an error.
 */
static void
test_loose_prefix(void **state)
{
	struct options o;
	char err[512];

	(void)state;
	assert_int_equal(PARSE_FILE("[mysqlmemprof]\nloose-top = 7\n"
	    "loose-bogus = 1\nloose-help\nloose-bytes\nloose-repeat\n"
	    "loose-repeat = off\nloose-format = csv\n", &o, err, "--list"),
	    CLI_OK);
	assert_int_equal(o.top, 7);
	assert_true(o.exact_bytes);
	assert_false(o.repeat);
	assert_string_equal(o.format->name, "csv");
	cli_free(&o);

	assert_int_equal(PARSE_FILE("[mysqlmemprof]\nloose-top = lots\n", &o,
	    err, "--list"), CLI_USAGE);
	assert_non_null(strstr(err, "--top 'lots' in "));
	cli_free(&o);
	assert_int_equal(PARSE_FILE("[mysqlmemprof]\nloose-bytes = maybe\n", &o,
	    err, "--list"), CLI_USAGE);
	assert_non_null(strstr(err, "loose-bytes in "));
	assert_non_null(strstr(err, "not a boolean"));
	cli_free(&o);
	/* Without the prefix, an unknown name in our own group is an error. */
	assert_int_equal(PARSE_FILE("[mysqlmemprof]\nbogus = 1\n", &o, err,
	    "--list"), CLI_USAGE);
	assert_non_null(strstr(err, "prefix it with loose-"));
	cli_free(&o);
	assert_int_equal(PARSE_FILE("[client]\nbogus = 1\nloose-top = 3\n", &o,
	    err, "--list"), CLI_OK);
	assert_int_equal(o.top, 3);
	cli_free(&o);
}

/* Parses mysqlmemprof followed by a NULL-terminated list of words. */
static enum cli_status
parse_words(struct options *o, char *err, size_t errlen,
    const char *const *words)
{
	char *argv[16], warn[512];
	struct cli_env env = bare_env();
	enum cli_status st;
	int argc = 0;

	argv[argc++] = strdup("mysqlmemprof");
	for (; *words != NULL && argc < 15; words++)
		argv[argc++] = strdup(*words);
	argv[argc] = NULL;
	err[0] = '\0';
	st = cli_parse(argc, argv, &env, o, warn, sizeof(warn), err, errlen);
	for (int i = 0; i < argc; i++)
		free(argv[i]);
	return st;
}

/*
 * --heap and --heap-file read a heap profile once, alone, as text, folded
 * or pprof; --heap-file has no server, so no "first" dump, no --heap-dir,
 * no connection options.
 */
static void
test_heap(void **state)
{
	static const struct {
		const char *words[6];
		const char *says;       /* NULL: accepted */
	} cases[] = {
		{ { "--heap" }, NULL },
		{ { "--heap", "--heap-base", "first", "--format=pprof" }, NULL },
		{ { "--heap-file", "x.heap", "--heap-base", "y.heap" }, NULL },
		{ { "--heap", "--thread", "1" }, "leave out the target" },
		{ { "--heap", "--explain" }, "leave out --explain" },
		{ { "--heap", "--listen", "9104" }, "leave out --listen" },
		{ { "--heap", "--format", "csv" }, "writes text, folded or pprof, "
		    "not csv" },
		{ { "--heap", "--format=folded", "--profile-at", "peak" },
		    "leave out --profile-at" },
		{ { "--heap", "--heap-file", "x" }, "leave out --heap-file" },
		{ { "--heap-file", "x", "--heap-base", "first" },
		    "--heap-base first needs --heap" },
		{ { "--heap-file", "x", "--heap-dir", "/d" },
		    "leave out --heap-dir" },
		{ { "--heap-file", "x", "--host", "h" },
		    "--heap-file reads a dump without one; leave out --host" },
		{ { "--heap-dir", "/d", "--global" }, "--heap-dir needs --heap" },
	};
	struct options o;
	char err[512];

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		enum cli_status st = parse_words(&o, err, sizeof(err),
		    cases[i].words);

		if (cases[i].says == NULL && st != CLI_OK)
			fail_msg("%s %s: %s", cases[i].words[0],
			    cases[i].words[1], err);
		if (cases[i].says != NULL && (st != CLI_USAGE ||
		    strstr(err, cases[i].says) == NULL))
			fail_msg("%s %s: '%s', wanted '%s'", cases[i].words[0],
			    cases[i].words[1] ? cases[i].words[1] : "", err,
			    cases[i].says);
		if (st == CLI_OK)
			assert_true(o.heap || o.heap_file != NULL);
		cli_free(&o);
	}
}

/* The words that give mode row m: its option, and a value if it takes one. */
static void
mode_words(const struct mode *m, const char **words)
{
	static const struct { const char *name, *value; } values[] = {
		{ "read", "cap.jsonl" }, { "listen", "9104" },
		{ "record", "/tmp/mmp-none" }, { "heap-file", "x.heap" },
	};

	words[0] = m->name;
	words[1] = NULL;
	for (size_t i = 0; i < sizeof(values) / sizeof(values[0]); i++)
		if (strcmp(values[i].name, m->name) == 0)
			words[1] = values[i].value;
}

/* Parses the words of modes a and b (b may be NULL) and then more. */
static enum cli_status
parse_modes(struct options *o, char *err, const struct mode *a,
    const struct mode *b, const char *const *more)
{
	const char *words[12];
	char opt[2][32];
	size_t n = 0;

	for (int k = 0; k < 2; k++) {
		const struct mode *m = k == 0 ? a : b;
		const char *w[2];

		if (m == NULL)
			continue;
		mode_words(m, w);
		snprintf(opt[k], sizeof(opt[k]), "--%s", w[0]);
		words[n++] = opt[k];
		if (w[1] != NULL)
			words[n++] = w[1];
	}
	while (*more != NULL && n < 11)
		words[n++] = *more++;
	words[n] = NULL;
	return parse_words(o, err, 512, words);
}

/*
 * What the modes' rows refuse, walked from the rows: a mode that runs
 * alone refuses each other mode given by its option, --live,
 * --trigger-bytes and every target but --global, naming what to leave
 * out; a row that takes some targets names them; a row's formats.
 */
static void
test_mode_rows_refuse(void **state)
{
	static const char *const none[] = { NULL };
	static const char *const shapes[][3] = {
		{ "--live", NULL }, { "--trigger-bytes", "1G", NULL },
		{ "--thread", "1", NULL }, { "--wait-for", "x", NULL },
	};
	struct options o;
	char err[512], want[128];
	size_t tested = 0;

	(void)state;
	for (size_t i = 0; i < N_MODES; i++) {
		const struct mode *m = &modes[i];

		assert_int_equal(m->id, i);
		if (!m->option)
			continue;
		for (size_t j = 0; m->alone != NULL && j < N_MODES; j++) {
			if (j == i || !modes[j].option)
				continue;
			assert_int_equal(parse_modes(&o, err, m, &modes[j],
			    none), CLI_USAGE);
			/* Of two that run alone, the later row names the earlier. */
			snprintf(want, sizeof(want), "leave out --%s",
			    modes[j].alone != NULL && j > i ? m->name :
			    modes[j].name);
			if (strstr(err, want) == NULL)
				fail_msg("--%s --%s: '%s', wanted '%s'",
				    m->name, modes[j].name, err, want);
			cli_free(&o);
			tested++;
		}
		for (size_t k = 0; m->alone != NULL &&
		    k < sizeof(shapes) / sizeof(shapes[0]); k++) {
			assert_int_equal(parse_modes(&o, err, m, NULL,
			    shapes[k]), CLI_USAGE);
			snprintf(want, sizeof(want), "--%s %s, alone; leave out ",
			    m->name, m->alone);
			if (strstr(err, want) == NULL ||
			    strstr(err, shapes[k][0]) == NULL)
				fail_msg("--%s %s: '%s'", m->name, shapes[k][0],
				    err);
			cli_free(&o);
			tested++;
		}
		if (m->formats != NULL) {
			static const char *const svg[] = { "--format", "svg",
			    NULL };

			assert_int_equal(parse_modes(&o, err, m, NULL, svg),
			    CLI_USAGE);
			snprintf(want, sizeof(want), "--%s writes %s", m->name,
			    m->formats[0]);
			if (strstr(err, want) == NULL || !strstr(err, "not svg"))
				fail_msg("--%s --format svg: '%s'", m->name, err);
			cli_free(&o);
			tested++;
		}
	}
	assert_true(tested >= 4 * 5 + 4 * 4 + 3);

	/* --listen takes one target: not a list, a hunt or a file. */
	assert_int_equal(parse_modes(&o, err, &modes[MODE_ID_LISTEN], NULL,
	    (const char *const[]){ "--read", "x", NULL }), CLI_USAGE);
	assert_non_null(strstr(err, "--listen serves one target for as long "
	    "as it runs; give --thread, --connection, --global, --for-user, "
	    "--for-host or --for-account, not --read"));
	cli_free(&o);
	assert_int_equal(parse_modes(&o, err, &modes[MODE_ID_LISTEN], NULL,
	    (const char *const[]){ "--for-user", "app", NULL }), CLI_OK);
	cli_free(&o);
	/* --record's samples are in its folder: no --output. */
	assert_int_equal(parse_modes(&o, err, &modes[MODE_ID_RECORD], NULL,
	    (const char *const[]){ "-o", "x.json", NULL }), CLI_USAGE);
	assert_non_null(strstr(err, "leave out --output (its samples are in "
	    "the folder"));
	cli_free(&o);
	/* --live draws only what its row lets it. */
	assert_int_equal(parse_modes(&o, err, &modes[MODE_ID_LISTEN], NULL,
	    (const char *const[]){ "--live", NULL }), CLI_USAGE);
	assert_non_null(strstr(err, "--live draws a capture, a hunt or --list, "
	    "not --listen; leave out --live"));
	cli_free(&o);
}

/* --frequency's default is the mode's: the black box's beat is slower. */
static void
test_frequency_default_of_the_mode(void **state)
{
	static const char *const rec[] = { "--record", "/tmp/x", NULL };
	static const char *const rec_given[] = { "--record", "/tmp/x",
	    "--frequency", "200", NULL };
	static const char *const global[] = { "--global", NULL };
	struct options o;
	char err[512];

	(void)state;
	assert_int_equal(parse_words(&o, err, sizeof(err), rec), CLI_OK);
	assert_int_equal(o.frequency_ms, modes[MODE_ID_RECORD].frequency_ms);
	assert_int_equal(o.frequency_ms, 1000);
	cli_free(&o);
	assert_int_equal(parse_words(&o, err, sizeof(err), rec_given), CLI_OK);
	assert_int_equal(o.frequency_ms, 200);
	cli_free(&o);
	assert_int_equal(parse_words(&o, err, sizeof(err), global), CLI_OK);
	assert_int_equal(o.frequency_ms, 500);
	cli_free(&o);
}

/*
 * The options of waiting, and --trigger-hold: on the command line without
 * what they need, an error naming it; with it, or from an option file
 * that may serve other runs, accepted.
 */
static void
test_options_that_need_another(void **state)
{
	static const struct {
		const char *message;
		const char *with[2][5]; /* ways to give what they need */
	} needs[N_NEEDS] = {
		[NEEDS_WAIT] = { "needs --wait-for, --longer-than or "
		    "--bigger-than: it applies to statements waited for", {
			{ "--wait-for", "x", NULL },
			{ "--longer-than", "0", NULL } } },
		[NEEDS_TRIGGER_BYTES] = { "needs --trigger-bytes or "
		    "--bigger-than: it says how long to go on", {
			{ "--thread", "1", "--trigger-bytes", "1M", NULL },
			{ "--bigger-than", "80%", NULL } } },
		[NEEDS_PROFILE] = { "applies to profiles; give --format folded "
		    "or pprof too", {
			{ "--thread", "1", "--format", "folded", NULL },
			{ "--global", "--format=pprof", NULL } } },
		[NEEDS_LISTEN] = { "needs --listen: it bounds what the "
		    "exporter serves", {
			{ "--listen", "19199", NULL },
			{ "--listen=127.0.0.1:19199", NULL } } },
		[NEEDS_RECORD] = { "needs --record: it bounds what the black "
		    "box keeps", {
			{ "--record", "/tmp/x", NULL },
			{ "--record=/tmp/x", "--global", NULL } } },
		[NEEDS_READ] = { "needs --read: it picks the samples "
		    "replayed", {
			{ "--read", "x.jsonl", NULL },
			{ "--read=-", NULL } } },
		[NEEDS_HEAP] = { "needs --heap or --heap-file: it picks the "
		    "dumps read", {
			{ "--heap", NULL },
			{ "--heap", "--format=folded", NULL } } },
	};
	struct options o;
	char arg[64], text[128], want[160], value[32], err[512];
	size_t tested[N_NEEDS] = { 0 };

	(void)state;
	for (size_t i = 0; i < cli_n_rows; i++) {
		const struct cli_row *r = &cli_rows[i];
		const char *words[8] = { "--thread", "1", arg, NULL };
		const char *v;

		/* The options of a server: test_server_options_and_read. */
		if (r->needs == NEEDS_NOTHING || r->needs == NEEDS_SERVER)
			continue;
		option_arg(r, arg, sizeof(arg));
		assert_int_equal(parse_words(&o, err, sizeof(err), words),
		    CLI_USAGE);
		snprintf(want, sizeof(want), "--%s %s", r->name,
		    needs[r->needs].message);
		if (strstr(err, want) == NULL)
			fail_msg("%s: '%s', wanted '%s'", arg, err, want);
		cli_free(&o);

		for (size_t w = 0; w < 2; w++) {
			size_t n = 0;

			for (; needs[r->needs].with[w][n] != NULL; n++)
				words[n] = needs[r->needs].with[w][n];
			words[n++] = arg;
			words[n] = NULL;
			if (parse_words(&o, err, sizeof(err), words) != CLI_OK)
				fail_msg("%s with %s: %s", arg, words[0], err);
			cli_free(&o);
		}

		v = good_value(r, value, sizeof(value));
		snprintf(text, sizeof(text), "[mysqlmemprof]\n%s%s%s\n",
		    r->name, v != NULL ? "=" : "", v != NULL ? v : "");
		if (PARSE_FILE(text, &o, err, "--thread", "1") != CLI_OK)
			fail_msg("%s in an option file, with --thread: %s",
			    r->name, err);
		cli_free(&o);
		tested[r->needs]++;
	}
	assert_int_equal(tested[NEEDS_WAIT], 6);
	assert_int_equal(tested[NEEDS_TRIGGER_BYTES], 1);
	assert_int_equal(tested[NEEDS_PROFILE], 2);
	assert_int_equal(tested[NEEDS_HEAP], 2);
}

/*
 * The options of a connection make no sense with --read, which replays a
 * file: on the command line with it, an error naming them; with a server
 * target, or from an option file ([client] often holds host and user),
 * accepted.
 */
static void
test_server_options_and_read(void **state)
{
	struct options o;
	char arg[64], text[128], want[160], value[32], err[512];
	size_t tested = 0;

	(void)state;
	for (size_t i = 0; i < cli_n_rows; i++) {
		const struct cli_row *r = &cli_rows[i];
		const char *words[8] = { "--read", "cap.jsonl", arg, NULL };
		const char *v;

		if (r->needs != NEEDS_SERVER)
			continue;
		if (r->set == cli_set_password)
			snprintf(arg, sizeof(arg), "--%s=pw", r->name);
		else
			option_arg(r, arg, sizeof(arg));
		assert_int_equal(parse_words(&o, err, sizeof(err), words),
		    CLI_USAGE);
		snprintf(want, sizeof(want), "--%s is for a server, and --read "
		    "replays a file", r->name);
		if (strstr(err, want) == NULL)
			fail_msg("%s: '%s', wanted '%s'", arg, err, want);
		cli_free(&o);
		words[0] = "--thread";
		words[1] = "1";
		if (parse_words(&o, err, sizeof(err), words) != CLI_OK)
			fail_msg("%s with --thread: %s", arg, err);
		cli_free(&o);
		tested++;
		if (r->set == cli_set_password)
			continue;
		v = good_value(r, value, sizeof(value));
		snprintf(text, sizeof(text), "[mysqlmemprof]\n%s%s%s\n",
		    r->name, v != NULL ? "=" : "", v != NULL ? v : "");
		if (PARSE_FILE(text, &o, err, "--read", "x") != CLI_OK)
			fail_msg("%s in an option file, with --read: %s",
			    r->name, err);
		assert_int_equal(o.target, TARGET_READ);
		cli_free(&o);
	}
	/*
	 * host port socket protocol user password, three timeouts, seven of
	 * TLS, two of the server's RSA key, --enable-cleartext-plugin.
	 */
	assert_int_equal(tested, 19);
}

/* An unsigned integer field of a row, whatever its width. */
static uint64_t
number_field(struct options *o, const struct cli_row *r)
{
	uint32_t v32;
	uint64_t v64;

	if (r->size == sizeof(v32)) {
		memcpy(&v32, field(o, r), sizeof(v32));
		return v32;
	}
	assert_int_equal(r->size, sizeof(v64));
	memcpy(&v64, field(o, r), sizeof(v64));
	return v64;
}

/*
 * Each row's default is what a run without the option gets, and what its
 * line of --help says.
 */
static void
test_defaults_of_the_rows(void **state)
{
	struct cli_env env = bare_env();
	struct options o;
	char err[512], want[64];
	size_t tested = 0;

	(void)state;
	assert_int_equal(PARSE(&o, err, "--list"), CLI_OK);
	for (size_t i = 0; i < cli_n_rows; i++) {
		const struct cli_row *r = &cli_rows[i];

		if (r->def == NULL)
			continue;
		if (r->kind == KIND_NUMBER) {
			if (number_field(&o, r) != strtoull(r->def, NULL, 10))
				fail_msg("--%s: %ju, wanted the default %s",
				    r->name, (uintmax_t)number_field(&o, r),
				    r->def);
		} else if (r->kind == KIND_BYTES) {
			uint64_t v;
			const char *why;

			assert_int_equal(cli_bytes(r->def, 1, INT64_MAX, &v,
			    &why), 0);
			if (number_field(&o, r) != v)
				fail_msg("--%s: %ju, wanted the default %s",
				    r->name, (uintmax_t)number_field(&o, r),
				    r->def);
		} else if (r->set == cli_set_format) {
			assert_string_equal(o.format->name, r->def);
		} else if (r->set == cli_set_profile_at) {
			assert_string_equal(r->def, "last");
			assert_int_equal(o.profile_at, PROFILE_AT_LAST);
		} else if (r->set == cli_set_profile_root) {
			assert_string_equal(r->def, "none");
			assert_int_equal(o.profile_root, PROFILE_ROOT_NONE);
		} else {
			fail_msg("--%s: a default of kind %d; check it here",
			    r->name, r->kind);
		}
		snprintf(want, sizeof(want), "(default %s", r->def);
		if (strstr(r->help, want) == NULL)
			fail_msg("--%s: its help does not say '%s'", r->name,
			    want);
		tested++;
	}
	assert_true(tested >= 9);
	cli_free(&o);
}

/* cli_usage() into a string, owned by the caller. */
static char *
usage_text(void)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *fp = open_memstream(&buf, &len);

	assert_non_null(fp);
	cli_usage(fp);
	assert_int_equal(fclose(fp), 0);
	return buf;
}

/* Every option has one line of --help, which starts with its names. */
static void
test_help_names_every_option(void **state)
{
	char *help = usage_text(), start[96];

	(void)state;
	for (size_t i = 0; i < cli_n_rows; i++) {
		const struct cli_row *r = &cli_rows[i];
		const char *p, *at, *text;
		int n;

		if (r->name == NULL)
			continue;
		if (r->short_name != 0)
			n = snprintf(start, sizeof(start), "\n  -%c, --%s",
			    r->short_name, r->name);
		else
			n = snprintf(start, sizeof(start), "\n      --%s",
			    r->name);
		if (r->arg != NULL)
			snprintf(start + n, sizeof(start) - (size_t)n,
			    r->optional_arg ? "[=%s] " : "=%s ", r->arg);
		else
			snprintf(start + n, sizeof(start) - (size_t)n, " ");
		if ((at = strstr(help, start)) == NULL)
			fail_msg("--help has no line '%s'", start + 1);
		p = at + strlen(start);
		if (strstr(p, start) != NULL)
			fail_msg("--help has '%s' twice", start + 1);
		p += strspn(p, " ");
		/* The names of the formats come from their table. */
		if (r->help_formats) {
			const char *names = output_table_names(" or ");

			if (strncmp(p, names, strlen(names)) != 0)
				fail_msg("--%s: the format names are not in "
				    "--help", r->name);
			p += strlen(names);
		}
		text = r->help + (r->help_formats ? 0 : strspn(r->help, " "));
		if (strncmp(p, text, strcspn(text, "\n")) != 0)
			fail_msg("--%s: its text is not in --help", r->name);
	}
	/* Lines fit a terminal. */
	for (const char *line = help; *line != '\0';) {
		size_t len = strcspn(line, "\n");

		if (len > 79)
			fail_msg("--help line of %zu columns: %.*s", len,
			    (int)len, line);
		line += len + (line[len] == '\n');
	}
	free(help);
}

/*
 * The long name of the option in a line of the manual that begins an
 * entry (".It Fl -list", ".It Fl q , Fl -quiet"), with its length; NULL
 * for other lines.
 */
static const char *
manual_entry(const char *line, size_t *len)
{
	const char *name, *end = line + strcspn(line, "\n");

	if (strncmp(line, ".It Fl ", 7) != 0 ||
	    (name = strstr(line, "Fl -")) == NULL || name > end)
		return NULL;
	name += 4;
	*len = strcspn(name, " \n");
	return name;
}

/*
 * Each option has one entry in the manual, which gives its short name
 * first if it has one, and each entry there is an option of the table.
 */
static void
test_manual_names_every_option(void **state)
{
	size_t len, seen[CLI_MAX_ROWS] = { 0 };
	char *man;

	(void)state;
	/* Relative to the top of the tree, as for the golden files. */
	if ((man = slurp("man/mysqlmemprof.1", &len)) == NULL)
		fail_msg("man/mysqlmemprof.1: %s", strerror(errno));
	for (const char *line = man; *line != '\0';) {
		size_t n, i;
		const char *name = manual_entry(line, &n);

		for (i = 0; name != NULL && i < cli_n_rows; i++)
			if (cli_rows[i].name != NULL &&
			    strlen(cli_rows[i].name) == n &&
			    strncmp(cli_rows[i].name, name, n) == 0)
				break;
		if (name != NULL && i == cli_n_rows)
			fail_msg("the manual has --%.*s, the table has not",
			    (int)n, name);
		if (name != NULL) {
			const struct cli_row *r = &cli_rows[i];
			char c = r->short_name;

			seen[i]++;
			if (c != 0 && (line[7] != c || line[8] != ' '))
				fail_msg("the manual's --%s does not begin "
				    "with -%c", r->name, c);
			if (c == 0 && line[7] != '-')
				fail_msg("the manual's --%s has a short name",
				    r->name);
		}
		line += strcspn(line, "\n");
		line += *line == '\n';
	}
	for (size_t i = 0; i < cli_n_rows; i++)
		if (cli_rows[i].name != NULL && seen[i] != 1)
			fail_msg("--%s has %zu entries in the manual, not one",
			    cli_rows[i].name, seen[i]);
	free(man);
}

/*
 * The long name of the option a line of --help begins ("  -q, --quiet",
 * "      --list"), with its short name in *c (0 if none); NULL for the
 * other lines.
 */
static const char *
help_entry(const char *line, size_t *len, char *c)
{
	*c = 0;
	if (strncmp(line, "  -", 3) == 0 && line[4] == ',' &&
	    strncmp(line + 5, " --", 3) == 0) {
		*c = line[3];
		line += 8;
	} else if (strncmp(line, "      --", 8) == 0)
		line += 8;
	else
		return NULL;
	*len = strcspn(line, "=[ \n");
	return line;
}

/* Whether a line of help begins with the option opt ("--list"). */
static bool
help_names(const char *help, const char *opt)
{
	const char *name;
	size_t n;
	char c;

	for (const char *line = help; *line != '\0';) {
		if ((name = help_entry(line, &n, &c)) != NULL &&
		    strlen(opt + 2) == n && strncmp(name, opt + 2, n) == 0)
			return true;
		line += strcspn(line, "\n");
		line += *line == '\n';
	}
	return false;
}

/*
 * The short name the manual's entry of option name gives ('-' when none),
 * or 0 when the manual has no entry of it.
 */
static char
manual_short(const char *man, const char *name)
{
	const char *at;
	size_t n;

	for (const char *line = man; *line != '\0';) {
		if ((at = manual_entry(line, &n)) != NULL &&
		    strlen(name) == n && strncmp(at, name, n) == 0)
			return line[7];
		line += strcspn(line, "\n");
		line += *line == '\n';
	}
	return 0;
}

/*
 * The manual is the reference of every option: each option --help prints
 * has its entry there, with the same short name, and each entry of the
 * manual is an option --help prints.
 */
static void
test_help_is_the_manual_s(void **state)
{
	char *help = usage_text(), *man, want[64], c;
	size_t len, n, helped = 0;
	const char *name;

	(void)state;
	/* Relative to the top of the tree, as for the golden files. */
	if ((man = slurp("man/mysqlmemprof.1", &len)) == NULL)
		fail_msg("man/mysqlmemprof.1: %s", strerror(errno));
	for (const char *line = help; *line != '\0';) {
		if ((name = help_entry(line, &n, &c)) != NULL) {
			snprintf(want, sizeof(want), "%.*s", (int)n, name);
			if (manual_short(man, want) != (c != 0 ? c : '-'))
				fail_msg("--help has --%s (short name '%c'), the "
				    "manual has no such entry", want,
				    c != 0 ? c : '-');
			helped++;
		}
		line += strcspn(line, "\n");
		line += *line == '\n';
	}
	assert_true(helped >= 60);
	for (const char *line = man; *line != '\0';) {
		if ((name = manual_entry(line, &n)) != NULL) {
			snprintf(want, sizeof(want), "--%.*s", (int)n, name);
			if (!help_names(help, want))
				fail_msg("the manual has %s, --help has not",
				    want);
		}
		line += strcspn(line, "\n");
		line += *line == '\n';
	}
	free(man);
	free(help);
}

/* What the code takes for granted of the rows. */
static void
test_rows_are_well_formed(void **state)
{
	(void)state;
	assert_true(cli_n_rows <= CLI_MAX_ROWS);
	for (size_t i = 0; i < cli_n_rows; i++) {
		const struct cli_row *r = &cli_rows[i];

		if (r->kind == KIND_HEADING || r->kind == KIND_NOTE) {
			assert_null(r->name);
			continue;
		}
		if (r->name == NULL || r->help == NULL)
			fail_msg("row %zu: an option without name or help", i);
		for (size_t k = 0; k < i; k++) {
			if (cli_rows[k].name != NULL &&
			    strcmp(cli_rows[k].name, r->name) == 0)
				fail_msg("--%s: two rows", r->name);
			if (r->short_name != 0 &&
			    cli_rows[k].short_name == r->short_name)
				fail_msg("-%c: two rows", r->short_name);
		}
		switch (r->kind) {
		case KIND_NUMBER:
			/* The largest value fits the field; errors say the fix. */
			if ((r->size != 4 && r->size != 8) ||
			    (r->size == 4 && r->max > UINT32_MAX) ||
			    r->max == 0 || r->min > r->max || r->hint == NULL)
				fail_msg("--%s: range or field", r->name);
			break;
		case KIND_BYTES:
			assert_int_equal(r->size, sizeof(uint64_t));
			assert_non_null(r->hint);
			break;
		case KIND_STRING:
		case KIND_LIST:
			assert_int_equal(r->size, sizeof(char *));
			break;
		case KIND_FLAG:
			assert_true(r->size == 0 || r->size == sizeof(bool));
			/* A flag with no field of its own names a target. */
			assert_true(r->size != 0 || r->target != TARGET_NONE);
			break;
		case KIND_SPECIAL:
			assert_non_null(r->set);
			break;
		default:
			assert_true(r->command_line_only);
			break;
		}
		/* Only flags and the options of the command line take none. */
		if (r->arg == NULL)
			assert_true(r->kind == KIND_FLAG ||
			    r->kind == KIND_FILES || r->kind == KIND_EXIT);
	}
}

/* What the option-file reader copes with, seen through the options. */
static void
test_option_file_line_ends(void **state)
{
	struct options o;
	char err[512];

	(void)state;
	assert_int_equal(PARSE_FILE("[mysqlmemprof]\r\ntop = 7\r\n"
	    "bytes\r\nuser = u\r\n", &o, err, "--list"), CLI_OK);
	assert_int_equal(o.top, 7);
	assert_true(o.exact_bytes);
	assert_string_equal(o.user, "u");
	cli_free(&o);
	/* No newline after the last line. */
	assert_int_equal(PARSE_FILE("[mysqlmemprof]\ntop = 8\nquiet", &o, err,
	    "--list"), CLI_OK);
	assert_int_equal(o.top, 8);
	assert_true(o.quiet);
	cli_free(&o);
	assert_int_equal(PARSE_FILE("[mysqlmemprof]\nrepeat\nrepeat=off", &o,
	    err, "--longer-than", "1"), CLI_OK);
	assert_false(o.repeat);
	cli_free(&o);
}

static int
setup(void **state)
{
	(void)state;
	snprintf(tmpdir, sizeof(tmpdir), "/tmp/mmp-test-cli-XXXXXX");
	return mkdtemp(tmpdir) == NULL ? -1 : 0;
}

static int
teardown(void **state)
{
	char cmd[128];

	(void)state;
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", tmpdir);
	return system(cmd) == 0 ? 0 : -1;
}

/*
 * A login path file as mysql_config_editor writes it: 4 unused bytes, a
 * 20-byte key folded into AES-128's 16, each line on its own, encrypted.
 * test_optfile.c reads one the real mysql_config_editor made.
 */
static void
write_login_file(const char *path, const char *text)
{
	unsigned char raw[20], key[16] = { 0 }, buf[4096];
	size_t n = 24;
	FILE *fp;

	for (size_t i = 0; i < sizeof(raw); i++)
		raw[i] = (unsigned char)(i * 37 + 11);
	for (size_t i = 0; i < sizeof(raw); i++)
		key[i % 16] ^= raw[i];
	memset(buf, 0, 4);
	memcpy(buf + 4, raw, sizeof(raw));
	for (const char *line = text; *line != '\0';) {
		int len = (int)(strcspn(line, "\n") + 1), out = 0, last = 0;
		EVP_CIPHER_CTX *ctx = EVP_CIPHER_CTX_new();

		assert_non_null(ctx);
		assert_true(EVP_EncryptInit_ex(ctx, EVP_aes_128_ecb(), NULL, key,
		    NULL) && EVP_EncryptUpdate(ctx, buf + n + 4, &out,
		    (const unsigned char *)line, len) &&
		    EVP_EncryptFinal_ex(ctx, buf + n + 4 + out, &last));
		EVP_CIPHER_CTX_free(ctx);
		out += last;
		memcpy(buf + n, &(uint32_t){ (uint32_t)out }, 4); /* x86: LE */
		n += 4 + (size_t)out;
		line += len;
	}
	assert_non_null(fp = fopen(path, "wb"));
	assert_int_equal(fwrite(buf, 1, n, fp), n);
	fclose(fp);
	chmod(path, 0600);
}

/*
 * The login path file comes after the option files, even with
 * --no-defaults or --defaults-file, as for mysql: its [client] first,
 * then the group --login-path names; the command line wins over all.
 */
static void
test_login_path(void **state)
{
	char cnf[128], login[128], only[160];
	const char *files[] = { cnf, NULL };
	struct cli_env env = { .system_files = files, .login_file = login };
	struct options o;
	char err[512];

	(void)state;
	snprintf(cnf, sizeof(cnf), "%s/lp-my.cnf", tmpdir);
	snprintf(login, sizeof(login), "%s/lp-login.cnf", tmpdir);
	snprintf(only, sizeof(only), "--defaults-file=%s", cnf);
	write_file(cnf, "[client]\nuser=fileuser\nhost=filehost\nport=1\n"
	    "[mysqlmemprof]\ntop=3\n", 0600);
	write_login_file(login, "[prod]\nuser = \"produser\"\nport = 3\n"
	    "[client]\nuser = \"loginuser\"\npassword = \"s#cret\"\nport = 2\n"
	    "[mysqld]\nbogus = 1\n[prod]\nsocket = \"/run/p.sock\"\n");

	assert_int_equal(PARSE(&o, err, "--list"), CLI_OK);
	assert_string_equal(o.user, "loginuser");
	assert_string_equal(o.password, "s#cret");
	assert_string_equal(o.host, "filehost");
	assert_int_equal(o.port, 2);
	assert_int_equal(o.top, 3);
	assert_null(o.socket);
	cli_free(&o);

	/* [prod] wins over [client], though the file has it first. */
	assert_int_equal(PARSE(&o, err, "--list", "--login-path=prod", "-P",
	    "4"), CLI_OK);
	assert_string_equal(o.user, "produser");
	assert_string_equal(o.password, "s#cret");
	assert_string_equal(o.socket, "/run/p.sock");
	assert_int_equal(o.port, 4);
	cli_free(&o);

	assert_int_equal(PARSE(&o, err, "--list", "--no-defaults",
	    "--login-path", "prod"), CLI_OK);
	assert_string_equal(o.user, "produser");
	assert_null(o.host);
	cli_free(&o);
	assert_int_equal(PARSE(&o, err, "--list", only), CLI_OK);
	assert_string_equal(o.user, "loginuser");
	cli_free(&o);

	assert_int_equal(PARSE(&o, err, "--list", "--login-path=test"),
	    CLI_USAGE);
	assert_non_null(strstr(err, "--login-path=test: "));
	assert_non_null(strstr(err, "has no such login path"));
	cli_free(&o);

	/* Only the command line may name it. */
	write_file(cnf, "[mysqlmemprof]\nlogin-path=prod\n", 0600);
	assert_int_equal(PARSE(&o, err, "--list"), CLI_USAGE);
	assert_non_null(strstr(err, "works only on the command line"));
	cli_free(&o);
	write_file(cnf, "[client]\nlogin-path=prod\n", 0600);
	assert_int_equal(PARSE(&o, err, "--list"), CLI_OK);
	assert_string_equal(o.user, "loginuser");
	cli_free(&o);

	/* Others may read it: ignored, as mysql does. */
	chmod(login, 0644);
	assert_int_equal(PARSE(&o, err, "--list"), CLI_OK);
	assert_null(o.user);
	cli_free(&o);
	assert_int_equal(PARSE(&o, err, "--list", "--login-path=prod"),
	    CLI_USAGE);
	assert_non_null(strstr(err, "no login path file"));
	cli_free(&o);

	/* Without the variable, it is ~/.mylogin.cnf. */
	env.login_file = NULL;
	env.home = "/nonexistent";
	assert_int_equal(PARSE(&o, err, "--list", "--login-path=prod"),
	    CLI_USAGE);
	assert_non_null(strstr(err, "/nonexistent/.mylogin.cnf"));
	cli_free(&o);
	unlink(cnf);
	unlink(login);
}

/* --protocol and --tls-version, as mysql(1) takes them. */
static void
test_protocol_and_tls_version(void **state)
{
	struct cli_env env = bare_env();
	struct options o;
	char err[512];

	(void)state;
	assert_int_equal(PARSE(&o, err, "--list"), CLI_OK);
	assert_int_equal(o.protocol, PROTOCOL_DEFAULT);
	assert_int_equal(o.ssl_mode, TLS_DEFAULT);
	assert_null(o.tls_version);
	assert_false(o.get_server_public_key);
	cli_free(&o);
	assert_int_equal(PARSE(&o, err, "--list", "--protocol=tcp", "-h",
	    "localhost", "--tls-version=tlsv1.3,TLSv1.2",
	    "--get-server-public-key", "--server-public-key-path=k.pem",
	    "--ssl-crl=c.pem", "--ssl-crlpath=crls"), CLI_OK);
	assert_int_equal(o.protocol, PROTOCOL_TCP);
	assert_string_equal(o.tls_version, "TLSv1.2,TLSv1.3");
	assert_true(o.get_server_public_key);
	assert_string_equal(o.server_public_key_path, "k.pem");
	assert_string_equal(o.ssl_crl, "c.pem");
	assert_string_equal(o.ssl_crlpath, "crls");
	cli_free(&o);
	assert_int_equal(PARSE(&o, err, "--list", "--protocol=SOCKET", "-h",
	    "localhost", "--tls-version=TLSv1.3"), CLI_OK);
	assert_int_equal(o.protocol, PROTOCOL_SOCKET);
	assert_string_equal(o.tls_version, "TLSv1.3");
	cli_free(&o);

	assert_int_equal(PARSE(&o, err, "--list", "--protocol=SOCKET", "-h",
	    "db1"), CLI_USAGE);
	assert_non_null(strstr(err, "only the host localhost has, not 'db1'"));
	cli_free(&o);
	assert_int_equal(PARSE(&o, err, "--list", "--protocol=pipe"),
	    CLI_USAGE);
	assert_string_equal(err, "--protocol 'pipe': unknown protocol; give "
	    "TCP or SOCKET");
	cli_free(&o);
	static const char *const bad[] = { "TLSv1.1", "", "TLSv1.2,",
	    "TLSv1.2;TLSv1.3", "TLSv1.2,TLSv1.0" };
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		char arg[64];

		snprintf(arg, sizeof(arg), "--tls-version=%s", bad[i]);
		assert_int_equal(PARSE(&o, err, "--list", arg), CLI_USAGE);
		if (strstr(err, "unknown version") == NULL ||
		    strstr(err, "give TLSv1.2, TLSv1.3") == NULL)
			fail_msg("%s: %s", arg, err);
		cli_free(&o);
	}
	assert_int_equal(PARSE(&o, err, "--list", "--ssl-crl="), CLI_USAGE);
	assert_non_null(strstr(err, "--ssl-crl: empty value"));
	cli_free(&o);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_defaults),
		cmocka_unit_test(test_heap),
		cmocka_unit_test(test_mode_rows_refuse),
		cmocka_unit_test(test_frequency_default_of_the_mode),
		cmocka_unit_test(test_all_options),
		cmocka_unit_test(test_password_forms),
		cmocka_unit_test(test_password_scrubbed_from_argv),
		cmocka_unit_test(test_help_and_version),
		cmocka_unit_test(test_grains_and_filters),
		cmocka_unit_test(test_last_value_wins),
		cmocka_unit_test(test_bad_command_lines),
		cmocka_unit_test(test_numbers),
		cmocka_unit_test(test_bytes),
		cmocka_unit_test(test_bigger_than),
		cmocka_unit_test(test_trigger_options),
		cmocka_unit_test(test_option_files_in_order),
		cmocka_unit_test(test_option_file_problems),
		cmocka_unit_test(test_includes),
		cmocka_unit_test(test_wait_options),
		cmocka_unit_test(test_flags_switched_off_in_option_files),
		cmocka_unit_test(test_target_flags_off_in_option_files),
		cmocka_unit_test(test_loose_prefix),
		cmocka_unit_test(test_options_that_need_another),
		cmocka_unit_test(test_server_options_and_read),
		cmocka_unit_test(test_defaults_of_the_rows),
		cmocka_unit_test(test_help_names_every_option),
		cmocka_unit_test(test_help_is_the_manual_s),
		cmocka_unit_test(test_manual_names_every_option),
		cmocka_unit_test(test_rows_are_well_formed),
		cmocka_unit_test(test_option_file_line_ends),
		cmocka_unit_test(test_login_path),
		cmocka_unit_test(test_protocol_and_tls_version),
	};
	return cmocka_run_group_tests_name("cli", tests, setup, teardown);
}
