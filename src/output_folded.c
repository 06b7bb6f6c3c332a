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
	fwrite_unlocked(buf, 1, obuf_int_digits(buf, profile_current(
	    e->current_bytes)), fp);
	putc_unlocked('\n', fp);
}

/* One profile: a line per kept event of s. */
static int
write_folded(struct output *o, const struct sample *s, const char *root)
{
	for (size_t i = 0; i < s->n_events; i++)
		put_event(o->fp, &s->events[i], root);
	return output_status(o->fp);
}

static void *
folded_init(const struct output_settings *set)
{
	return output_profile_init(set, write_folded);
}

const struct format format_folded = {
	.name = "folded",
	.profile = true,
	.init = folded_init,
	.free = output_profile_free,
	.sample = output_profile_sample,
	.end = output_profile_end,
};
