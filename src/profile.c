/*
 * What the profile formats share: the sample kept, the frames of a name,
 * the root frame and the cleaning of odd bytes.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "profile.h"
#include "scrub.h"

/* The sample's total that --profile-at peak compares. */
static int64_t
total_of(const struct profile_keep *k, const struct sample *s)
{
	return k->peak_of_filtered ? s->filtered_total_bytes : s->total_bytes;
}

int
profile_keep_offer(struct profile_keep *k, const struct sample *s)
{
	/* The first of equal peaks: the moment the peak was reached. */
	if (k->has && k->at == PROFILE_AT_PEAK &&
	    total_of(k, s) <= total_of(k, &k->s))
		return 0;
	if (s->n_events > k->cap) {
		struct event_stat *e = realloc(k->events,
		    s->n_events * sizeof(*e));

		if (e == NULL)
			return -1;
		k->events = e;
		k->cap = s->n_events;
	}
	k->s = *s;
	if (s->n_events > 0)
		memcpy(k->events, s->events, s->n_events * sizeof(*k->events));
	k->s.events = k->events;
	k->has = true;
	return 0;
}

void
profile_keep_reset(struct profile_keep *k)
{
	k->has = false;
}

void
profile_keep_free(struct profile_keep *k)
{
	free(k->events);
	k->events = NULL;
	k->cap = 0;
	k->has = false;
}

size_t
profile_frames(const char *name)
{
	size_t n = 1;

	for (const char *p = name; *p != '\0'; p++)
		n += *p == '/';
	return n;
}

size_t
profile_prefix(const char *name, size_t n)
{
	const char *p = name;

	for (; *p != '\0'; p++)
		if (*p == '/' && --n == 0)
			break;
	return (size_t)(p - name);
}

size_t
profile_clean(char *dst, size_t size, const char *s, size_t n)
{
	static const char fffd[] = "\xef\xbf\xbd";
	size_t len = 0, k;
	uint32_t cp;

	for (size_t i = 0; i < n; i += k) {
		const char *put = s + i;
		size_t m;

		if ((k = scrub_utf8(s + i, n - i, &cp)) == 0) {
			put = fffd;
			m = 3;
			k = 1;
		} else if (cp < 0x20 || (cp >= 0x7f && cp < 0xa0)) {
			put = " ";
			m = 1;
		} else
			m = k;
		if (len + m >= size)
			break;
		memcpy(dst + len, put, m);
		len += m;
	}
	dst[len] = '\0';
	return len;
}

const char *
profile_root_frame(enum profile_root r, const struct sample *s,
    const char *grain, char *buf, size_t size)
{
	const struct statement *st = &s->statement;
	size_t n;

	switch (r) {
	case PROFILE_ROOT_THREAD:
		if (grain != NULL)
			profile_clean(buf, size, grain, strlen(grain));
		else
			snprintf(buf, size, "thread %" PRIu64, s->thread_id);
		return buf;
	case PROFILE_ROOT_STATEMENT:
		if ((n = statement_text_len(st)) > 0)
			profile_clean(buf, size, st->text, n);
		else if (st->digest[0] != '\0')
			snprintf(buf, size, "digest %s", st->digest);
		else
			snprintf(buf, size, "no statement");
		return buf;
	default:
		return NULL;
	}
}
