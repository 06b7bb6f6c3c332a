/*
 * pprof: the sample --profile-at chose as a gzipped perftools.profiles
 * Profile (pprof.h), written in one piece when the capture ends, for
 * `go tool pprof`, its web UI and the continuous profilers.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "output.h"
#include "output_format.h"
#include "pprof.h"
#include "profile.h"

/* The account name of a grain of one user or account, into buf. */
static const char *
grain_user(const char *grain, char *buf, size_t size)
{
	const char *at;

	if (grain == NULL)
		return NULL;
	if (strncmp(grain, "user:", 5) == 0) {
		snprintf(buf, size, "%s", grain + 5);
		return buf;
	}
	if (strncmp(grain, "account:", 8) == 0 &&
	    (at = strrchr(grain, '@')) != NULL) {
		snprintf(buf, size, "%.*s", (int)(at - grain - 8), grain + 8);
		return buf;
	}
	return NULL;
}

/* The profile of the sample kept, if any; then it is forgotten. */
static int
write_kept(struct output *o)
{
	const struct sample *s = &o->keep.s;
	char thread[700], user[600], root[STATEMENT_TEXT_MAX * 2 + 4];
	char stmt[STATEMENT_TEXT_MAX + 1];
	struct pprof_meta m;
	unsigned char *buf;
	size_t len;

	if (!o->keep.has)
		return 0;
	if (o->grain != NULL)
		snprintf(thread, sizeof(thread), "%s", o->grain);
	else
		snprintf(thread, sizeof(thread), "%" PRIu64, s->thread_id);
	/* A C string: the label stops at a NUL the text may hold. */
	snprintf(stmt, sizeof(stmt), "%s", s->statement.text);
	m = (struct pprof_meta){
		.time_ns = s->wall_ms * 1000000,
		.duration_ns = (int64_t)s->elapsed_us * 1000,
		.thread = thread,
		.user = grain_user(o->grain, user, sizeof(user)),
		.statement = stmt[0] != '\0' ? stmt : NULL,
		.root = profile_root_frame(o->profile_root, s, o->grain, root,
		    sizeof(root)),
	};
	profile_keep_reset(&o->keep);
	if (pprof_encode(s, &m, &buf, &len) != 0)
		return -1;
	fwrite_unlocked(buf, 1, len, o->fp);
	free(buf);
	return output_status(o->fp);
}

/* With --profile-at each, a sample is a profile in its own file. */
static int
pprof_sample(struct output *o, const struct sample *s)
{
	if (profile_keep_offer(&o->keep, s) != 0)
		return -1;
	return o->keep.at == PROFILE_AT_EACH ? write_kept(o) : 0;
}

static int
pprof_end(struct output *o, const struct summary *sum)
{
	(void)sum;
	return o->keep.at == PROFILE_AT_EACH ? 0 : write_kept(o);
}

const struct format format_pprof = {
	.name = "pprof",
	.profile = true,
	.binary = true,
	.sample = pprof_sample,
	.end = pprof_end,
};
