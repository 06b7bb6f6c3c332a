/*
 * Folded stacks, as flamegraph.pl, speedscope and Pyroscope read them: one
 * line per kept event of the sample --profile-at chose, written when the
 * capture ends, "memory;innodb;row0sel 25830" (current bytes).
 *
 * Each part of an instrument name between '/' is one frame. So that a
 * name stays one frame whatever it holds: ';' is written %3B and '%' %25
 * (percent-encoding, so it reads back); control characters become spaces;
 * bytes that are not UTF-8 become U+FFFD; other UTF-8 and spaces stay as
 * they are (readers take the count after the last space).
 */
#include <stdio.h>
#include <string.h>

#include "output.h"
#include "output_format.h"
#include "profile.h"

/* One frame's n bytes, cleaned and escaped. */
static void
put_frame(FILE *fp, const char *s, size_t n)
{
	char clean[STATEMENT_TEXT_MAX * 2 + 4];
	size_t len = profile_clean(clean, sizeof(clean), s, n);

	for (size_t i = 0; i < len; i++) {
		if (clean[i] == ';')
			fputs_unlocked("%3B", fp);
		else if (clean[i] == '%')
			fputs_unlocked("%25", fp);
		else
			putc_unlocked(clean[i], fp);
	}
}

static void
put_event(FILE *fp, const struct event_stat *e, const char *root)
{
	char buf[OUTPUT_INT_MAX];
	const char *p = e->name, *end = p + strnlen(e->name, sizeof(e->name));

	if (root != NULL) {
		put_frame(fp, root, strlen(root));
		putc_unlocked(';', fp);
	}
	for (;;) {
		const char *slash = memchr(p, '/', (size_t)(end - p));

		put_frame(fp, p, (size_t)((slash ? slash : end) - p));
		if (slash == NULL)
			break;
		putc_unlocked(';', fp);
		p = slash + 1;
	}
	putc_unlocked(' ', fp);
	fwrite_unlocked(buf, 1, output_int(buf, profile_current(
	    e->current_bytes)), fp);
	putc_unlocked('\n', fp);
}

/* The profile of the sample kept, if any; then it is forgotten. */
static int
write_kept(struct output *o)
{
	const struct sample *s = &o->keep.s;
	char root[STATEMENT_TEXT_MAX * 2 + 4];
	const char *r;

	if (!o->keep.has)
		return 0;
	r = profile_root_frame(o->profile_root, s, o->grain, root,
	    sizeof(root));
	for (size_t i = 0; i < s->n_events; i++)
		put_event(o->fp, &s->events[i], r);
	profile_keep_reset(&o->keep);
	return output_status(o->fp);
}

/* With --profile-at each, a sample is a profile in its own file. */
static int
folded_sample(struct output *o, const struct sample *s)
{
	if (profile_keep_offer(&o->keep, s) != 0)
		return -1;
	return o->keep.at == PROFILE_AT_EACH ? write_kept(o) : 0;
}

static int
folded_end(struct output *o, const struct summary *sum)
{
	(void)sum;
	return o->keep.at == PROFILE_AT_EACH ? 0 : write_kept(o);
}

const struct format format_folded = {
	.name = "folded",
	.profile = true,
	.sample = folded_sample,
	.end = folded_end,
};
