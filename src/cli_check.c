/*
 * The checks between options, once all are read: an option that needs
 * another (cli_needs), what each mode's row refuses (modes.h), said in
 * the row's words by one check, and what the profile formats and
 * --output patterns ask of the rest.
 */
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "cli_table.h"
#include "modes.h"
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

/* Joins n words as "P a, P b or P c" into buf. */
static const char *
join(const char *const *words, size_t n, const char *prefix, char *buf,
    size_t len)
{
	size_t used = 0;

	buf[0] = '\0';
	for (size_t i = 0; i < n && used < len; i++) {
		int w = snprintf(buf + used, len - used, "%s%s%s",
		    i == 0 ? "" : i + 1 < n ? ", " : " or ", prefix, words[i]);

		if (w < 0)
			break;
		used += (size_t)w;
	}
	return buf;
}

/* The options that name the targets of mask (1 << TARGET_*), in table order. */
static const char *
target_options(unsigned mask, char *buf, size_t len)
{
	const char *names[CLI_MAX_ROWS];
	size_t n = 0;

	for (size_t i = 0; i < cli_n_rows; i++)
		if (cli_rows[i].name != NULL &&
		    cli_rows[i].target != TARGET_NONE &&
		    (mask & (1u << cli_rows[i].target)))
			names[n++] = cli_rows[i].name;
	return join(names, n, "--", buf, len);
}

/*
 * What mode m, which runs alone, is given with: another mode, what shapes
 * a capture, an --output its samples do not go to, a target; or NULL.
 */
static const char *
alone_with(const struct mode *m, const struct options *o, char *buf,
    size_t len)
{
	char names[256];

	for (size_t i = 0; i < N_MODES; i++)
		if (&modes[i] != m && modes[i].option && modes[i].chosen(o)) {
			snprintf(buf, len, "--%s", modes[i].name);
			return buf;
		}
	if (o->live)
		return "--live";
	if (o->trigger_bytes != 0)
		return "--trigger-bytes";
	if (m->elsewhere != NULL && o->output != NULL) {
		snprintf(buf, len, "--output (%s)", m->elsewhere);
		return buf;
	}
	if (o->target == TARGET_GLOBAL)
		return NULL;
	snprintf(buf, len, "the target (%s)", target_options(1u << o->target,
	    names, sizeof(names)));
	return buf;
}

/* What the row of mode m, given, refuses of the options: 0, or -1. */
static int
check_row(struct cli_parse *ps, const struct mode *m)
{
	const struct options *o = ps->o;
	char with[512], given[256];
	const char *w;

	if (m->alone != NULL &&
	    (w = alone_with(m, o, with, sizeof(with))) != NULL) {
		snprintf(ps->err, ps->errlen, "--%s %s, alone; leave out %s",
		    m->name, m->alone, w);
		return -1;
	}
	if (m->takes != 0 && !(m->takes & (1u << o->target))) {
		snprintf(ps->err, ps->errlen, "--%s %s; give %s, not %s",
		    m->name, m->takes_why, target_options(m->takes, with,
		    sizeof(with)), target_options(1u << o->target, given,
		    sizeof(given)));
		return -1;
	}
	if (o->format != NULL && !mode_writes(m, o->format->name)) {
		size_t n = 0;

		while (m->formats[n] != NULL)
			n++;
		snprintf(ps->err, ps->errlen, "--%s writes %s, not %s; give %s",
		    m->name, join(m->formats, n, "", given, sizeof(given)),
		    o->format->name, join(m->formats, n, "--format ", with,
		    sizeof(with)));
		return -1;
	}
	if (m->no_server != NULL && ps->needs[NEEDS_SERVER] != NULL) {
		snprintf(ps->err, ps->errlen, "--%s is for a server, and --%s %s "
		    "without one; leave out --%s", ps->needs[NEEDS_SERVER],
		    m->name, m->no_server, ps->needs[NEEDS_SERVER]);
		return -1;
	}
	return 0;
}

/*
 * What the modes' rows refuse. Each mode given by its option is checked,
 * the last row first: of two modes given, the later names the earlier
 * (--explain with --record: "--explain ...; leave out --record").
 */
static int
check_modes(struct cli_parse *ps)
{
	const struct options *o = ps->o;
	const struct mode *m;

	for (size_t i = N_MODES; i-- > 0;)
		if (modes[i].option && modes[i].chosen(o) &&
		    check_row(ps, &modes[i]) != 0)
			return -1;
	m = mode_of(o);
	if (o->live && !(m->needs & (MODE_DRAWN | MODE_TERMINAL))) {
		snprintf(ps->err, ps->errlen, "--live draws a capture, a hunt "
		    "or --list, not --%s; leave out --live", m->name);
		return -1;
	}
	return 0;
}

/* Options that need another, given on the command line without it. */
static int
check_needs(struct cli_parse *ps)
{
	const struct options *o = ps->o;

	if (o->target != TARGET_WAIT && ps->needs[NEEDS_WAIT] != NULL) {
		snprintf(ps->err, ps->errlen, "--%s needs --wait-for, "
		    "--longer-than or --bigger-than: it applies to statements "
		    "waited for",
		    ps->needs[NEEDS_WAIT]);
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
	if (ps->needs[NEEDS_LISTEN] != NULL && o->listen_port == 0) {
		snprintf(ps->err, ps->errlen, "--%s needs --listen: it bounds "
		    "what the exporter serves", ps->needs[NEEDS_LISTEN]);
		return -1;
	}
	if (ps->needs[NEEDS_TRIGGER_BYTES] != NULL && o->trigger_bytes == 0 &&
	    o->bigger_than_bytes == 0 && o->bigger_than_pct == 0) {
		snprintf(ps->err, ps->errlen, "--%s needs --trigger-bytes or "
		    "--bigger-than: it says how long to go on once the total "
		    "falls below it", ps->needs[NEEDS_TRIGGER_BYTES]);
		return -1;
	}
	return 0;
}

/* What a hunt's --output pattern and --repeat ask of the format. */
static int
check_hunt_output(struct cli_parse *ps)
{
	const struct options *o = ps->o;
	char why[256];

	if (o->target == TARGET_WAIT && o->output != NULL &&
	    outname_is_pattern(o->output) &&
	    outname_check(o->output, why, sizeof(why)) != 0) {
		snprintf(ps->err, ps->errlen, "--output '%s': %s", o->output,
		    why);
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
	return 0;
}

/*
 * Options that need another, given on the command line without it (those
 * from an option file are left alone: the file may serve other runs too),
 * what the modes' rows refuse, and the --output patterns that only
 * captures have.
 */
int
cli_check_needs(struct cli_parse *ps)
{
	const struct options *o = ps->o;

	if (check_needs(ps) != 0 || check_hunt_output(ps) != 0)
		return -1;
	if (o->has_since && o->has_until && o->until_ms < o->since_ms) {
		snprintf(ps->err, ps->errlen, "--until comes before --since: "
		    "no sample is between them; give --until a later time");
		return -1;
	}
	if (check_modes(ps) != 0 || check_heap(ps) != 0)
		return -1;
	return check_profile(ps);
}

/*
 * --heap reads the server's heap profile, --heap-file a dump without a
 * server, so no "first" dump to find; what their rows refuse is checked
 * with the other modes'.
 */
static int
check_heap(struct cli_parse *ps)
{
	const struct options *o = ps->o;
	const struct mode *m =
	    &modes[o->heap ? MODE_ID_HEAP : MODE_ID_HEAP_FILE];

	if (!o->heap && o->heap_file == NULL) {
		if (ps->needs[NEEDS_HEAP] == NULL)
			return 0;
		snprintf(ps->err, ps->errlen, "--%s needs --heap or --heap-file: "
		    "it picks the dumps read", ps->needs[NEEDS_HEAP]);
		return -1;
	}
	if (ps->needs[NEEDS_PROFILE] != NULL) {
		snprintf(ps->err, ps->errlen, "--%s %s, alone; leave out %s",
		    m->name, m->alone,
		    strcmp(ps->needs[NEEDS_PROFILE], "profile-at") == 0 ?
		    "--profile-at (a heap profile is one dump)" :
		    "--profile-root (a heap profile's frames are its stacks')");
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
	if (o->format->binary && o->repeat &&
	    (o->output == NULL || !outname_is_pattern(o->output))) {
		snprintf(ps->err, ps->errlen, "--format %s with --repeat needs "
		    "a file per capture: give --output a pattern, e.g. "
		    "-o 'capture-%%c-%%Y%%m%%d-%%H%%M%%S.pb.gz'", o->format->name);
		return -1;
	}
	return 0;
}

