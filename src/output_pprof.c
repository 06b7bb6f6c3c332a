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

/* One profile: s, encoded and gzipped, in one write. */
static int
write_pprof(struct output *o, const struct sample *s, const char *root)
{
	struct pprof_labels l;
	struct pprof_meta m;
	unsigned char *buf;
	size_t len;

	pprof_meta_of(s, o->grain, &l, &m);
	/* How long the capture had run by this sample. */
	m.duration_ns = pprof_ns((int64_t)s->elapsed_us, 1000);
	m.root = root;
	if (pprof_encode(s, &m, &buf, &len) != 0)
		return -1;
	fwrite_unlocked(buf, 1, len, o->fp);
	free(buf);
	return output_status(o->fp);
}

static void *
pprof_init(const struct output_settings *set)
{
	return output_profile_init(set, write_pprof);
}

const struct format format_pprof = {
	.name = "pprof",
	.profile = true,
	.binary = true,
	.init = pprof_init,
	.free = output_profile_free,
	.sample = output_profile_sample,
	.end = output_profile_end,
};
