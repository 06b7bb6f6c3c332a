/*
 * The pprof encoder. The message is built in memory as protobuf-c's
 * structs (generated from proto/profile.proto into the build folder),
 * packed, then gzipped with zlib: both kept libraries, no hand-made wire
 * format.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "pprof.h"
#include "strhash.h"
#include "profile.h"
#include "profile.pb-c.h"

typedef Perftools__Profiles__Profile Profile;
typedef Perftools__Profiles__Sample Sample;
typedef Perftools__Profiles__ValueType ValueType;
typedef Perftools__Profiles__Label Label;
typedef Perftools__Profiles__Location Location;
typedef Perftools__Profiles__Line Line;
typedef Perftools__Profiles__Function Function;
typedef Perftools__Profiles__Mapping Mapping;

/* The sample types, in the order of every sample's values. */
enum { V_ALLOC_OBJECTS, V_ALLOC_SPACE, V_INUSE_OBJECTS, V_INUSE_SPACE, N_VALUES };
static const char *const value_names[N_VALUES][2] = {
	{ "alloc_objects", "count" },
	{ "alloc_space", "bytes" },
	{ "inuse_objects", "count" },
	{ "inuse_space", "bytes" },
};

/*
 * The string table, each string once, found again through a hash of open
 * addressing. The strings are owned; fn[i] is the function whose name is
 * string i, 0 for none (a function names one instrument path).
 */
struct strings {
	char **v;
	uint64_t *fn;
	size_t n, cap;
	size_t *slot;   /* index + 1 into v; 0: empty */
	size_t nslots;  /* a power of two, at least twice n */
};

static int
rehash(struct strings *t, size_t nslots)
{
	size_t *slot = calloc(nslots, sizeof(*slot));

	if (slot == NULL)
		return -1;
	for (size_t i = 0; i < t->n; i++) {
		size_t j = strhash(t->v[i], strlen(t->v[i])) & (nslots - 1);

		while (slot[j] != 0)
			j = (j + 1) & (nslots - 1);
		slot[j] = i + 1;
	}
	free(t->slot);
	t->slot = slot;
	t->nslots = nslots;
	return 0;
}

/* The index of the n bytes at s, added if new; -1 when out of memory. */
static int64_t
intern(struct strings *t, const char *s, size_t n)
{
	size_t j;
	char *copy;

	if (2 * (t->n + 1) > t->nslots &&
	    rehash(t, t->nslots ? 2 * t->nslots : 256) != 0)
		return -1;
	for (j = strhash(s, n) & (t->nslots - 1); t->slot[j] != 0;
	    j = (j + 1) & (t->nslots - 1)) {
		const char *v = t->v[t->slot[j] - 1];

		if (strncmp(v, s, n) == 0 && v[n] == '\0')
			return (int64_t)(t->slot[j] - 1);
	}
	if (t->n == t->cap) {
		size_t cap = t->cap ? 2 * t->cap : 64;
		char **v = realloc(t->v, cap * sizeof(*v));
		uint64_t *fn;

		if (v == NULL)
			return -1;
		t->v = v;
		if ((fn = realloc(t->fn, cap * sizeof(*fn))) == NULL)
			return -1;
		t->fn = fn;
		t->cap = cap;
	}
	if ((copy = strndup(s, n)) == NULL)
		return -1;
	t->v[t->n] = copy;
	t->fn[t->n] = 0;
	t->slot[j] = ++t->n;
	return (int64_t)(t->n - 1);
}

static int64_t
intern_str(struct strings *t, const char *s)
{
	return intern(t, s, strlen(s));
}

/* Everything one encoding allocates, freed at once by build_free(). */
struct build {
	Profile p;
	struct strings str;
	size_t cap_fn;   /* of p.function and p.location */
	Sample *samples;
	Sample **sample_ptrs;
	int64_t *values;
	uint64_t *stacks;
	Label *labels;
	Label **label_ptrs;
	size_t n_labels;
	ValueType types[N_VALUES];
	ValueType *type_ptrs[N_VALUES];
	ValueType period_type;
	Mapping mapping;
	Mapping *mapping_ptr;
};

static void
build_free(struct build *b)
{
	for (size_t i = 0; i < b->str.n; i++)
		free(b->str.v[i]);
	free(b->str.v);
	free(b->str.fn);
	free(b->str.slot);
	for (size_t i = 0; i < b->p.n_function; i++) {
		free(b->p.location[i]->line[0]);
		free(b->p.location[i]->line);
		free(b->p.location[i]);
		free(b->p.function[i]);
	}
	free(b->p.location);
	free(b->p.function);
	free(b->samples);
	free(b->sample_ptrs);
	free(b->values);
	free(b->stacks);
	free(b->labels);
	free(b->label_ptrs);
}

/*
 * The location of the function named by string name, made with its
 * function when new (both have the same id); 0 when out of memory.
 */
static uint64_t
location_of(struct build *b, int64_t name)
{
	Function *f;
	Location *l;
	Line *line, **lines;
	uint64_t id;

	if (b->str.fn[name] != 0)
		return b->str.fn[name];
	if (b->p.n_function == b->cap_fn) {
		size_t cap = b->cap_fn ? 2 * b->cap_fn : 64;
		Function **fv = realloc(b->p.function, cap * sizeof(*fv));
		Location **lv;

		if (fv == NULL)
			return 0;
		b->p.function = fv;
		if ((lv = realloc(b->p.location, cap * sizeof(*lv))) == NULL)
			return 0;
		b->p.location = lv;
		b->cap_fn = cap;
	}
	f = malloc(sizeof(*f));
	l = malloc(sizeof(*l));
	line = malloc(sizeof(*line));
	lines = malloc(sizeof(*lines));
	if (f == NULL || l == NULL || line == NULL || lines == NULL) {
		free(f);
		free(l);
		free(line);
		free(lines);
		return 0;
	}
	id = b->p.n_function + 1;
	perftools__profiles__function__init(f);
	f->id = id;
	f->name = f->system_name = name;
	perftools__profiles__line__init(line);
	line->function_id = id;
	perftools__profiles__location__init(l);
	l->id = id;
	l->mapping_id = b->mapping.id;
	l->line = lines;
	l->n_line = 1;
	l->line[0] = line;
	b->p.function[b->p.n_function] = f;
	b->p.location[b->p.n_function++] = l;
	b->p.n_location = b->p.n_function;
	b->str.fn[name] = id;
	return id;
}

/* A string label on every sample; its value cleaned. */
static int
add_label(struct build *b, const char *key, const char *value)
{
	char clean[STATEMENT_TEXT_MAX * 2 + 4];
	Label *l = &b->labels[b->n_labels];
	int64_t k, v;

	if (value == NULL)
		return 0;
	profile_clean(clean, sizeof(clean), value, strlen(value));
	if ((k = intern_str(&b->str, key)) < 0 ||
	    (v = intern_str(&b->str, clean)) < 0)
		return -1;
	perftools__profiles__label__init(l);
	l->key = k;
	l->str = v;
	b->label_ptrs[b->n_labels++] = l;
	return 0;
}

/* The stack of event e, leaf first, into stack; its depth, 0 on failure. */
static size_t
event_stack(struct build *b, const struct event_stat *e, int64_t root,
    uint64_t *stack)
{
	char name[EVENT_NAME_MAX * 2 + 4];
	size_t depth, n = 0;

	profile_clean(name, sizeof(name), e->name,
	    strnlen(e->name, sizeof(e->name)));
	depth = profile_frames(name);

	for (size_t f = depth; f > 0; f--) {
		int64_t s = intern(&b->str, name, profile_prefix(name, f));

		if (s < 0 || (stack[n++] = location_of(b, s)) == 0)
			return 0;
	}
	if (root >= 0 && (stack[n++] = location_of(b, root)) == 0)
		return 0;
	return n;
}

static int
build_samples(struct build *b, const struct sample *s, const char *root)
{
	size_t frames = 0;
	uint64_t *stack;
	int64_t r = -1;

	for (size_t i = 0; i < s->n_events; i++)
		frames += profile_frames(s->events[i].name) + 1;
	b->samples = calloc(s->n_events ? s->n_events : 1, sizeof(*b->samples));
	b->sample_ptrs = calloc(s->n_events ? s->n_events : 1,
	    sizeof(*b->sample_ptrs));
	b->values = calloc(s->n_events * N_VALUES + 1, sizeof(*b->values));
	b->stacks = calloc(frames + 1, sizeof(*b->stacks));
	if (b->samples == NULL || b->sample_ptrs == NULL || b->values == NULL ||
	    b->stacks == NULL)
		return -1;
	if (root != NULL) {
		char clean[STATEMENT_TEXT_MAX * 2 + 4];

		profile_clean(clean, sizeof(clean), root, strlen(root));
		if ((r = intern_str(&b->str, clean)) < 0)
			return -1;
	}
	stack = b->stacks;
	for (size_t i = 0; i < s->n_events; i++) {
		const struct event_stat *e = &s->events[i];
		Sample *ps = &b->samples[i];
		int64_t *v = &b->values[i * N_VALUES];

		perftools__profiles__sample__init(ps);
		if ((ps->n_location_id = event_stack(b, e, r, stack)) == 0)
			return -1;
		ps->location_id = stack;
		stack += ps->n_location_id;
		v[V_ALLOC_OBJECTS] = profile_counter(e->alloc_count);
		v[V_ALLOC_SPACE] = profile_counter(e->alloc_bytes);
		v[V_INUSE_OBJECTS] = profile_current(e->current_count);
		v[V_INUSE_SPACE] = profile_current(e->current_bytes);
		ps->n_value = N_VALUES;
		ps->value = v;
		ps->n_label = b->n_labels;
		ps->label = b->label_ptrs;
		b->sample_ptrs[i] = ps;
	}
	b->p.n_sample = s->n_events;
	b->p.sample = b->sample_ptrs;
	return 0;
}

static int
build_profile(struct build *b, const struct sample *s,
    const struct pprof_meta *m)
{
	Profile *p = &b->p;

	perftools__profiles__profile__init(p);
	if (intern_str(&b->str, "") != 0) /* string_table[0] */
		return -1;
	for (size_t i = 0; i < N_VALUES; i++) {
		int64_t t = intern_str(&b->str, value_names[i][0]);
		int64_t u = intern_str(&b->str, value_names[i][1]);

		if (t < 0 || u < 0)
			return -1;
		perftools__profiles__value_type__init(&b->types[i]);
		b->types[i].type = t;
		b->types[i].unit = u;
		b->type_ptrs[i] = &b->types[i];
	}
	p->n_sample_type = N_VALUES;
	p->sample_type = b->type_ptrs;
	p->default_sample_type = b->types[V_INUSE_SPACE].type;
	/* What one unit of the values is: a byte of memory. */
	perftools__profiles__value_type__init(&b->period_type);
	b->period_type.type = intern_str(&b->str, "space");
	b->period_type.unit = b->types[V_INUSE_SPACE].unit;
	p->period_type = &b->period_type;
	p->period = 1;
	/*
	 * One mapping that says the functions are known, so pprof neither
	 * looks for a binary to symbolize nor says it has none.
	 */
	perftools__profiles__mapping__init(&b->mapping);
	b->mapping.id = 1;
	if ((b->mapping.filename = intern_str(&b->str, "performance_schema")) < 0)
		return -1;
	b->mapping.has_functions = 1;
	b->mapping_ptr = &b->mapping;
	p->n_mapping = 1;
	p->mapping = &b->mapping_ptr;
	p->time_nanos = m->time_ns;
	p->duration_nanos = m->duration_ns;
	if ((b->labels = calloc(3, sizeof(*b->labels))) == NULL ||
	    (b->label_ptrs = calloc(3, sizeof(*b->label_ptrs))) == NULL ||
	    add_label(b, "thread", m->thread) != 0 ||
	    add_label(b, "user", m->user) != 0 ||
	    add_label(b, "statement", m->statement) != 0)
		return -1;
	if (build_samples(b, s, m->root) != 0)
		return -1;
	p->n_string_table = b->str.n;
	p->string_table = b->str.v;
	return 0;
}

/* The packed message, gzipped (windowBits 16 + 15: a gzip header). */
static int
gzip(const uint8_t *in, size_t n, unsigned char **buf, size_t *len)
{
	z_stream z = { 0 };
	unsigned char *out;
	size_t cap;

	if (deflateInit2(&z, Z_DEFAULT_COMPRESSION, Z_DEFLATED, 16 + 15, 8,
	    Z_DEFAULT_STRATEGY) != Z_OK) {
		errno = ENOMEM;
		return -1;
	}
	cap = deflateBound(&z, (uLong)n) + 32;
	if ((out = malloc(cap)) == NULL) {
		deflateEnd(&z);
		return -1;
	}
	z.next_in = (Bytef *)in;
	z.avail_in = (uInt)n;
	z.next_out = out;
	z.avail_out = (uInt)cap;
	if (deflate(&z, Z_FINISH) != Z_STREAM_END) {
		deflateEnd(&z);
		free(out);
		errno = EIO;
		return -1;
	}
	*len = z.total_out;
	*buf = out;
	deflateEnd(&z);
	return 0;
}

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

int64_t
pprof_ns(int64_t v, int64_t unit)
{
	int64_t ns;

	if (__builtin_mul_overflow(v, unit, &ns))
		return v < 0 ? INT64_MIN : INT64_MAX;
	return ns;
}

void
pprof_meta_of(const struct sample *s, const char *grain,
    struct pprof_labels *l, struct pprof_meta *m)
{
	if (grain != NULL)
		snprintf(l->thread, sizeof(l->thread), "%s", grain);
	else
		snprintf(l->thread, sizeof(l->thread), "%" PRIu64,
		    s->thread_id);
	/* A C string: the label stops at a NUL the text may hold. */
	snprintf(l->statement, sizeof(l->statement), "%s", s->statement.text);
	*m = (struct pprof_meta){
		.time_ns = pprof_ns(s->wall_ms, 1000000),
		.thread = l->thread,
		.user = grain_user(grain, l->user, sizeof(l->user)),
		.statement = l->statement[0] != '\0' ? l->statement : NULL,
	};
}

int
pprof_encode(const struct sample *s, const struct pprof_meta *m,
    unsigned char **buf, size_t *len)
{
	struct build b = { 0 };
	int rc = -1;

	*buf = NULL;
	*len = 0;
	if (build_profile(&b, s, m) != 0) {
		errno = ENOMEM;
		goto out;
	}
	rc = pprof_pack(&b.p, buf, len);
out:
	build_free(&b);
	return rc;
}

int
pprof_pack(const struct Perftools__Profiles__Profile *p, unsigned char **buf,
    size_t *len)
{
	size_t n = perftools__profiles__profile__get_packed_size(p);
	uint8_t *packed = malloc(n ? n : 1);
	int rc;

	if (packed == NULL)
		return -1;
	perftools__profiles__profile__pack(p, packed);
	rc = gzip(packed, n, buf, len);
	free(packed);
	return rc;
}
