/*
 * The heap profile as pprof's message, built as protobuf-c's structs
 * (proto/profile.proto, generated into the build folder), packed, then
 * gzipped by pprof_pack(). The profile already has each function once and
 * each address once, so the string table needs no lookup: the names go
 * in as they are, in order.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "heap_pprof.h"
#include "pprof.h"
#include "profile.pb-c.h"

typedef Perftools__Profiles__Profile Profile;
typedef Perftools__Profiles__Sample Sample;
typedef Perftools__Profiles__ValueType ValueType;
typedef Perftools__Profiles__Location Location;
typedef Perftools__Profiles__Line Line;
typedef Perftools__Profiles__Function Function;
typedef Perftools__Profiles__Mapping Mapping;

/* The string table's first entries, in this order. */
enum { S_EMPTY, S_OBJECTS, S_COUNT, S_SPACE, S_BYTES, N_FIXED };
static const char *const fixed[N_FIXED] = {
	"", "inuse_objects", "count", "inuse_space", "bytes",
};

/* Everything one encoding allocates, freed at once by build_free(). */
struct build {
	Profile p;
	ValueType types[2], *type_ptrs[2], period;
	char **strings;
	Mapping *maps, **map_ptrs;
	Function *funcs, **func_ptrs;
	Location *locs, **loc_ptrs;
	Line *lines, **line_ptrs;
	Sample *samples, **sample_ptrs;
	uint64_t *ids;
	int64_t *values;
};

static void
build_free(struct build *b)
{
	free(b->strings);
	free(b->maps);
	free(b->map_ptrs);
	free(b->funcs);
	free(b->func_ptrs);
	free(b->locs);
	free(b->loc_ptrs);
	free(b->lines);
	free(b->line_ptrs);
	free(b->samples);
	free(b->sample_ptrs);
	free(b->ids);
	free(b->values);
}

/* calloc of n things, at least one, so that an empty profile is no failure. */
static void *
table(size_t n, size_t size)
{
	return calloc(n ? n : 1, size);
}

static int
build_alloc(struct build *b, const struct heap_profile *p)
{
	size_t frames = 0;

	for (size_t i = 0; i < p->nstacks; i++)
		frames += p->stacks[i].depth;
	b->strings = table(N_FIXED + p->nfuncs + p->nmaps, sizeof(char *));
	b->maps = table(p->nmaps, sizeof(Mapping));
	b->map_ptrs = table(p->nmaps, sizeof(Mapping *));
	b->funcs = table(p->nfuncs, sizeof(Function));
	b->func_ptrs = table(p->nfuncs, sizeof(Function *));
	b->locs = table(p->nlocs, sizeof(Location));
	b->loc_ptrs = table(p->nlocs, sizeof(Location *));
	b->lines = table(p->nlocs, sizeof(Line));
	b->line_ptrs = table(p->nlocs, sizeof(Line *));
	b->samples = table(p->nstacks, sizeof(Sample));
	b->sample_ptrs = table(p->nstacks, sizeof(Sample *));
	b->ids = table(frames, sizeof(uint64_t));
	b->values = table(2 * p->nstacks, sizeof(int64_t));
	return b->strings && b->maps && b->map_ptrs && b->funcs &&
	    b->func_ptrs && b->locs && b->loc_ptrs && b->lines &&
	    b->line_ptrs && b->samples && b->sample_ptrs && b->ids &&
	    b->values ? 0 : -1;
}

/* The sample types and the period: a sample every rate bytes. */
static void
build_types(struct build *b, const struct heap_profile *p)
{
	for (size_t i = 0; i < N_FIXED; i++)
		b->strings[i] = (char *)fixed[i];
	for (size_t i = 0; i < 2; i++) {
		perftools__profiles__value_type__init(&b->types[i]);
		b->types[i].type = i == 0 ? S_OBJECTS : S_SPACE;
		b->types[i].unit = i == 0 ? S_COUNT : S_BYTES;
		b->type_ptrs[i] = &b->types[i];
	}
	perftools__profiles__value_type__init(&b->period);
	b->period.type = S_SPACE;
	b->period.unit = S_BYTES;
	b->p.n_sample_type = 2;
	b->p.sample_type = b->type_ptrs;
	b->p.default_sample_type = S_SPACE;
	b->p.period_type = &b->period;
	b->p.period = (int64_t)p->rate;
}

/* The dump's mappings, id i + 1; their names after the functions'. */
static void
build_mappings(struct build *b, const struct heap_profile *p)
{
	for (size_t i = 0; i < p->nmaps; i++) {
		const struct heap_mapping *hm = &p->maps[i];
		Mapping *m = &b->maps[i];
		size_t s = N_FIXED + p->nfuncs + i;

		perftools__profiles__mapping__init(m);
		m->id = i + 1;
		m->memory_start = hm->start;
		m->memory_limit = hm->end;
		m->file_offset = hm->offset;
		b->strings[s] = hm->path != NULL ? hm->path : "";
		m->filename = (int64_t)s;
		/* Named here: pprof looks for no binary of its own. */
		m->has_functions = 1;
		b->map_ptrs[i] = m;
	}
	b->p.n_mapping = p->nmaps;
	b->p.mapping = b->map_ptrs;
}

/* A function per name (id i + 1), a location per address (id i + 1). */
static void
build_code(struct build *b, const struct heap_profile *p)
{
	for (size_t i = 0; i < p->nfuncs; i++) {
		Function *f = &b->funcs[i];

		perftools__profiles__function__init(f);
		f->id = i + 1;
		b->strings[N_FIXED + i] = p->funcs[i].name;
		f->name = f->system_name = (int64_t)(N_FIXED + i);
		b->func_ptrs[i] = f;
	}
	for (size_t i = 0; i < p->nlocs; i++) {
		Location *l = &b->locs[i];

		perftools__profiles__location__init(l);
		perftools__profiles__line__init(&b->lines[i]);
		b->lines[i].function_id = p->locs[i].func + 1;
		b->line_ptrs[i] = &b->lines[i];
		l->id = i + 1;
		l->address = p->locs[i].pc;
		l->mapping_id = p->locs[i].map == SIZE_MAX ? 0 :
		    p->locs[i].map + 1;
		l->n_line = 1;
		l->line = &b->line_ptrs[i];
		b->loc_ptrs[i] = l;
	}
	b->p.n_function = p->nfuncs;
	b->p.function = b->func_ptrs;
	b->p.n_location = p->nlocs;
	b->p.location = b->loc_ptrs;
}

/* A sample per stack, its locations leaf first as pprof has them. */
static void
build_samples(struct build *b, const struct heap_profile *p)
{
	uint64_t *ids = b->ids;

	for (size_t i = 0; i < p->nstacks; i++) {
		const struct heap_pstack *s = &p->stacks[i];
		Sample *ps = &b->samples[i];

		perftools__profiles__sample__init(ps);
		for (size_t j = 0; j < s->depth; j++)
			ids[j] = s->locs[j] + 1;
		ps->location_id = ids;
		ps->n_location_id = s->depth;
		ids += s->depth;
		b->values[2 * i] = s->objects;
		b->values[2 * i + 1] = s->bytes;
		ps->value = &b->values[2 * i];
		ps->n_value = 2;
		b->sample_ptrs[i] = ps;
	}
	b->p.n_sample = p->nstacks;
	b->p.sample = b->sample_ptrs;
}

int
heap_pprof_encode(const struct heap_profile *p, int64_t time_ns,
    unsigned char **buf, size_t *len)
{
	struct build b = { 0 };
	int rc = -1;

	*buf = NULL;
	*len = 0;
	perftools__profiles__profile__init(&b.p);
	if (build_alloc(&b, p) != 0) {
		errno = ENOMEM;
		goto out;
	}
	build_types(&b, p);
	build_mappings(&b, p);
	build_code(&b, p);
	build_samples(&b, p);
	b.p.n_string_table = N_FIXED + p->nfuncs + p->nmaps;
	b.p.string_table = b.strings;
	b.p.time_nanos = time_ns;
	rc = pprof_pack(&b.p, buf, len);
out:
	build_free(&b);
	return rc;
}
