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

/* The profile of the sample kept, if any; then it is forgotten. */
static int
write_kept(struct output *o)
{
	const struct sample *s = &o->keep.s;
	char root[STATEMENT_TEXT_MAX * 2 + 4];
	struct pprof_labels l;
	struct pprof_meta m;
	unsigned char *buf;
	size_t len;

	if (!o->keep.has)
		return 0;
	pprof_meta_of(s, o->grain, &l, &m);
	/* How long the capture had run by this sample. */
	m.duration_ns = (int64_t)s->elapsed_us * 1000;
	m.root = profile_root_frame(o->profile_root, s, o->grain, root,
	    sizeof(root));
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
