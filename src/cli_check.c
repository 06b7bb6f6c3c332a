/*
 * The checks between options, once all are read: an option that needs
 * another (cli_needs), and what the profile formats and --output
 * patterns ask of the rest.
 */
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "cli_table.h"
#include "outname.h"
#include "output.h"

static int check_profile(struct cli_parse *ps);
static int check_heap(struct cli_parse *ps);

/* Whether an --output pattern holds %N (and not as "%%N"). */
static bool
has_sample_number(const char *pattern)
{
	for (const char *p = pattern; *p != '\0'; p++)
		if (*p == '%' && *++p == 'N')
			return true;
		else if (*p == '\0')
			break;
	return false;
}

/*
 * Options that need another, given on the command line without it (those
 * from an option file are left alone: the file may serve other runs too),
 * and the --output patterns that only captures have.
 */
int
cli_check_needs(struct cli_parse *ps)
{
	const struct options *o = ps->o;
	char why[256];

	if (o->target != TARGET_WAIT && ps->needs[NEEDS_WAIT] != NULL) {
		snprintf(ps->err, ps->errlen, "--%s needs --wait-for, "
		    "--longer-than or --bigger-than: it applies to statements "
		    "waited for",
		    ps->needs[NEEDS_WAIT]);
		return -1;
	}
	if (o->target == TARGET_WAIT && o->output != NULL &&
	    outname_is_pattern(o->output) &&
	    outname_check(o->output, why, sizeof(why)) != 0) {
		snprintf(ps->err, ps->errlen, "--output '%s': %s", o->output,
		    why);
		return -1;
	}
	if (ps->needs[NEEDS_RECORD] != NULL && o->record_dir == NULL) {
		snprintf(ps->err, ps->errlen, "--%s needs --record: it bounds "
		    "what the black box keeps", ps->needs[NEEDS_RECORD]);
		return -1;
	}
	if (ps->needs[NEEDS_READ] != NULL && o->target != TARGET_READ) {
		snprintf(ps->err, ps->errlen, "--%s needs --read: it picks the "
		    "samples replayed", ps->needs[NEEDS_READ]);
		return -1;
	}
	if (o->has_since && o->has_until && o->until_ms < o->since_ms) {
		snprintf(ps->err, ps->errlen, "--until comes before --since: "
		    "no sample is between them; give --until a later time");
		return -1;
	}
	if (o->record_dir != NULL && (o->target != TARGET_GLOBAL ||
	    o->listen_port != 0 || o->live || o->trigger_bytes != 0 ||
	    o->output != NULL)) {
		snprintf(ps->err, ps->errlen, "--record records the whole "
		    "server and every connection into its folder, alone; leave "
		    "out %s", o->listen_port != 0 ? "--listen" : o->live ?
		    "--live" : o->trigger_bytes != 0 ? "--trigger-bytes" :
		    o->output != NULL ? "--output (its samples are in the "
		    "folder; --read DIR writes them anywhere)" :
		    o->target == TARGET_READ ? "--read" :
		    "the target (--thread, --connection, --wait-for, --list, "
		    "--for-*)");
		return -1;
	}
	if (o->explain && (o->target != TARGET_GLOBAL ||
	    o->listen_port != 0 || o->record_dir != NULL || o->live ||
	    o->trigger_bytes != 0)) {
		snprintf(ps->err, ps->errlen, "--explain reads the whole server "
		    "once, alone; leave out %s", o->listen_port != 0 ?
		    "--listen" : o->record_dir != NULL ? "--record" : o->live ?
		    "--live" : o->trigger_bytes != 0 ? "--trigger-bytes" :
		    o->target == TARGET_READ ? "--read" :
		    "the target (--thread, --connection, --wait-for, --list, "
		    "--for-*)");
		return -1;
	}
	if (o->explain && o->format != NULL &&
	    strcmp(o->format->name, "text") != 0 &&
	    strcmp(o->format->name, "json") != 0) {
		snprintf(ps->err, ps->errlen, "--explain writes text or json, "
		    "not %s; give --format text or --format json",
		    o->format->name);
		return -1;
	}
	if (check_heap(ps) != 0)
		return -1;
	if (ps->needs[NEEDS_LISTEN] != NULL && o->listen_port == 0) {
		snprintf(ps->err, ps->errlen, "--%s needs --listen: it bounds "
		    "what the exporter serves", ps->needs[NEEDS_LISTEN]);
		return -1;
	}
	if (o->listen_port != 0 && (o->target == TARGET_LIST ||
	    o->target == TARGET_WAIT)) {
		snprintf(ps->err, ps->errlen, "--listen serves one target for as "
		    "long as it runs; give --global, --for-user, --for-host, "
		    "--for-account, --thread or --connection, not %s",
		    o->target == TARGET_LIST ? "--list" :
		    "--wait-for, --longer-than or --bigger-than");
		return -1;
	}
	/* html and svg draw a run: a list of threads has nothing to draw. */
	if (o->target == TARGET_LIST && o->format != NULL &&
	    o->format->one_run) {
		snprintf(ps->err, ps->errlen, "--format %s draws a run, and "
		    "--list lists threads; give --format text, csv or json",
		    o->format->name);
		return -1;
	}
	if (o->repeat && o->target == TARGET_WAIT && o->format != NULL &&
	    o->format->one_run && (o->output == NULL ||
	    !outname_is_pattern(o->output))) {
		snprintf(ps->err, ps->errlen, "--format %s writes one document "
		    "per capture; with --repeat, give --output a pattern such as "
		    "--output 'capture-%%Y%%m%%d-%%H%%M%%S-%%c.%s'",
		    o->format->name, o->format->name);
		return -1;
	}
	if (o->target == TARGET_READ && ps->needs[NEEDS_SERVER] != NULL) {
		snprintf(ps->err, ps->errlen, "--%s is for a server, and --read "
		    "replays a file without one; leave out --%s",
		    ps->needs[NEEDS_SERVER], ps->needs[NEEDS_SERVER]);
		return -1;
	}
	if (ps->needs[NEEDS_TRIGGER_BYTES] != NULL && o->trigger_bytes == 0 &&
	    o->bigger_than_bytes == 0 && o->bigger_than_pct == 0) {
		snprintf(ps->err, ps->errlen, "--%s needs --trigger-bytes or "
		    "--bigger-than: it says how long to go on once the total "
		    "falls below it", ps->needs[NEEDS_TRIGGER_BYTES]);
		return -1;
	}
	return check_profile(ps);
}

/* What --heap and --heap-file cannot be given with. */
static const char *
heap_conflict(const struct options *o)
{
	if (o->heap && o->heap_file != NULL)
		return "--heap-file (it reads a dump alone; --heap, the server's)";
	if (o->explain)
		return "--explain";
	if (o->listen_port != 0)
		return "--listen";
	if (o->record_dir != NULL)
		return "--record";
	if (o->live)
		return "--live";
	if (o->trigger_bytes != 0)
		return "--trigger-bytes";
	if (o->target == TARGET_READ)
		return "--read";
	if (o->target != TARGET_GLOBAL)
		return "the target (--thread, --connection, --wait-for, --list, "
		    "--for-*)";
	return NULL;
}

/*
 * --heap reads the server's heap profile once, alone, as text, folded or
 * pprof; --heap-file a dump without a server, so no "first" dump to find.
 */
static int
check_heap(struct cli_parse *ps)
{
	const struct options *o = ps->o;
	const char *with;

	if (!o->heap && o->heap_file == NULL) {
		if (ps->needs[NEEDS_HEAP] == NULL)
			return 0;
		snprintf(ps->err, ps->errlen, "--%s needs --heap or --heap-file: "
		    "it picks the dumps read", ps->needs[NEEDS_HEAP]);
		return -1;
	}
	if ((with = heap_conflict(o)) == NULL &&
	    ps->needs[NEEDS_PROFILE] != NULL)
		with = strcmp(ps->needs[NEEDS_PROFILE], "profile-at") == 0 ?
		    "--profile-at (a heap profile is one dump)" :
		    "--profile-root (a heap profile's frames are its stacks')";
	if (with != NULL) {
		snprintf(ps->err, ps->errlen, "--%s reads a heap profile once, "
		    "alone; leave out %s", o->heap ? "heap" : "heap-file", with);
		return -1;
	}
	if (o->format != NULL && strcmp(o->format->name, "text") != 0 &&
	    strcmp(o->format->name, "folded") != 0 &&
	    strcmp(o->format->name, "pprof") != 0) {
		snprintf(ps->err, ps->errlen, "--%s writes text, folded or "
		    "pprof, not %s; give one of those to --format",
		    o->heap ? "heap" : "heap-file", o->format->name);
		return -1;
	}
	if (o->heap_file == NULL)
		return 0;
	if (o->heap_dir != NULL) {
		snprintf(ps->err, ps->errlen, "--heap-dir finds the server's "
		    "dumps, and --heap-file names one; leave out --heap-dir");
		return -1;
	}
	if (o->heap_base != NULL && strcmp(o->heap_base, "first") == 0) {
		snprintf(ps->err, ps->errlen, "--heap-base first needs --heap "
		    "(the server's dumps); with --heap-file, give the base "
		    "dump's file");
		return -1;
	}
	if (ps->needs[NEEDS_SERVER] != NULL) {
		snprintf(ps->err, ps->errlen, "--%s is for a server, and "
		    "--heap-file reads a dump without one; leave out --%s",
		    ps->needs[NEEDS_SERVER], ps->needs[NEEDS_SERVER]);
		return -1;
	}
	return 0;
}

/*
 * What the profile formats cannot do: they write one profile when a
 * capture ends, so --list has none, and a binary one cannot share a file
 * with the next capture.
 */
static int
check_profile(struct cli_parse *ps)
{
	const struct options *o = ps->o;
	char why[256];

	if (!o->format->profile && ps->needs[NEEDS_PROFILE] != NULL) {
		snprintf(ps->err, ps->errlen, "--%s applies to profiles; give "
		    "--format folded or pprof too", ps->needs[NEEDS_PROFILE]);
		return -1;
	}
	if (o->format->profile && o->profile_at == PROFILE_AT_EACH &&
	    (o->output == NULL || !has_sample_number(o->output))) {
		snprintf(ps->err, ps->errlen, "--profile-at each writes a file "
		    "per sample: give --output a pattern with %%N, the sample "
		    "number, e.g. -o 'mem-%%N.%s'", o->format->binary ?
		    "pb.gz" : "folded");
		return -1;
	}
	if (o->format->profile && o->profile_at == PROFILE_AT_EACH &&
	    outname_check(o->output, why, sizeof(why)) != 0) {
		snprintf(ps->err, ps->errlen, "--output '%s': %s", o->output,
		    why);
		return -1;
	}
	if (o->format->profile && o->target == TARGET_LIST) {
		snprintf(ps->err, ps->errlen, "--list writes no profile; give "
		    "--format text, csv or json");
		return -1;
	}
	if (o->format->binary && o->repeat &&
	    (o->output == NULL || !outname_is_pattern(o->output))) {
		snprintf(ps->err, ps->errlen, "--format %s with --repeat needs "
		    "a file per capture: give --output a pattern, e.g. "
		    "-o 'capture-%%c-%%Y%%m%%d-%%H%%M%%S.pb.gz'", o->format->name);
		return -1;
	}
	return 0;
}

/* Every row's default, applied as if it came before all else. */
