/*
 * What the profile formats (folded, pprof) share: the state that keeps the
 * sample --profile-at asks for (profile.h), and the callbacks that offer it
 * each sample and write it when the capture ends, or at once with
 * --profile-at each. A profile format is its writer and one row.
 */
#include <stdlib.h>

#include "output.h"
#include "output_format.h"
#include "profile.h"

struct profile_state {
	struct profile_keep keep; /* owns the copy of the sample */
	enum profile_root root;
	output_profile_write *write;
};

void *
output_profile_init(const struct output_settings *set,
    output_profile_write *write)
{
	struct profile_state *p = calloc(1, sizeof(*p));

	if (p == NULL)
		return NULL;
	p->keep.at = set->profile_at;
	p->keep.peak_of_filtered = set->peak_of_filtered;
	p->root = set->profile_root;
	p->write = write;
	return p;
}

void
output_profile_free(void *state)
{
	struct profile_state *p = state;

	profile_keep_free(&p->keep);
	free(p);
}

/* The profile of the sample kept, if any; then it is forgotten. */
static int
write_kept(struct output *o, struct profile_state *p)
{
	char root[STATEMENT_TEXT_MAX * 2 + 4];
	const char *r;
	int rc;

	if (!p->keep.has)
		return 0;
	r = profile_root_frame(p->root, &p->keep.s, o->grain, root,
	    sizeof(root));
	rc = p->write(o, &p->keep.s, r);
	profile_keep_reset(&p->keep);
	return rc;
}

/* With --profile-at each, a sample is a profile in its own file. */
int
output_profile_sample(struct output *o, const struct sample *s)
{
	struct profile_state *p = o->state;

	if (profile_keep_offer(&p->keep, s) != 0)
		return -1;
	return p->keep.at == PROFILE_AT_EACH ? write_kept(o, p) : 0;
}

int
output_profile_end(struct output *o, const struct summary *sum)
{
	struct profile_state *p = o->state;

	(void)sum;
	return p->keep.at == PROFILE_AT_EACH ? 0 : write_kept(o, p);
}
