/*
 * A heap dump named: its return addresses made unique and named once each
 * (a dump of a busy server holds thousands of stacks over a few thousand
 * addresses), the functions made unique by name, then each stack's bytes
 * summed into its functions. Sorting does what a hash table would, with
 * no table to size.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "heap_profile.h"

int
heap_profile_is_allocator(const char *path)
{
	const char *base;

	if (path == NULL)
		return 0;
	base = strrchr(path, '/');
	base = base != NULL ? base + 1 : path;
	return strncmp(base, "libjemalloc", 11) == 0;
}

static int
cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/* Every address of the dump, once each, sorted, into p->locs. */
static int
gather_locations(const struct heap_dump *d, struct heap_profile *p)
{
	size_t n = 0, k = 0;
	uint64_t *pcs;

	for (size_t i = 0; i < d->nstacks; i++)
		n += d->stacks[i].depth;
	if ((pcs = malloc((n ? n : 1) * sizeof(*pcs))) == NULL)
		return -1;
	for (size_t i = 0; i < d->nstacks; i++)
		for (size_t j = 0; j < d->stacks[i].depth; j++)
			pcs[k++] = d->stacks[i].pcs[j];
	qsort(pcs, n, sizeof(*pcs), cmp_u64);
	p->locs = calloc(n ? n : 1, sizeof(*p->locs));
	if (p->locs == NULL) {
		free(pcs);
		return -1;
	}
	for (size_t i = 0; i < n; i++)
		if (p->nlocs == 0 || p->locs[p->nlocs - 1].pc != pcs[i])
			p->locs[p->nlocs++].pc = pcs[i];
	free(pcs);
	return 0;
}

/* The index of the mapping that holds pc; SIZE_MAX: none. */
static size_t
mapping_of(const struct heap_dump *d, uint64_t pc)
{
	for (size_t i = 0; i < d->nmaps; i++)
		if (pc >= d->maps[i].start && pc < d->maps[i].end)
			return i;
	return SIZE_MAX;
}

/* What naming the locations leaves for making the functions. */
struct naming {
	char **names;           /* a location's name, owned until moved */
	unsigned char *alloc;   /* a location in the allocator */
	size_t *order;          /* locations sorted by name */
	size_t n;               /* of names: the locations before pruning */
};

static const struct naming *sort_naming;

static int
cmp_by_name(const void *a, const void *b)
{
	const char *x = sort_naming->names[*(const size_t *)a];
	const char *y = sort_naming->names[*(const size_t *)b];

	return strcmp(x, y);
}

/* Each location named; the functions made, one per name. */
static int
name_locations(const struct heap_dump *d, heap_namer *name, void *ctx,
    struct heap_profile *p, struct naming *nm)
{
	for (size_t i = 0; i < p->nlocs; i++) {
		struct symbol s = { 0 };

		name(ctx, p->locs[i].pc, &s);
		nm->names[i] = strdup(s.name != NULL ? s.name : "?");
		if (nm->names[i] == NULL)
			return -1;
		nm->alloc[i] = (unsigned char)heap_profile_is_allocator(s.file);
		p->locs[i].map = mapping_of(d, p->locs[i].pc);
		nm->order[i] = i;
	}
	sort_naming = nm;
	qsort(nm->order, p->nlocs, sizeof(*nm->order), cmp_by_name);
	for (size_t k = 0; k < p->nlocs; k++) {
		size_t i = nm->order[k];

		if (p->nfuncs == 0 ||
		    strcmp(p->funcs[p->nfuncs - 1].name, nm->names[i]) != 0) {
			p->funcs[p->nfuncs++].name = nm->names[i];
			nm->names[i] = NULL; /* now the function's */
		}
		p->locs[i].func = p->nfuncs - 1;
	}
	return 0;
}

/* The index of pc in p->locs, which holds it. */
static size_t
location_index(const struct heap_profile *p, uint64_t pc)
{
	size_t lo = 0, hi = p->nlocs;

	while (hi - lo > 1) {
		size_t mid = lo + (hi - lo) / 2;

		if (p->locs[mid].pc <= pc)
			lo = mid;
		else
			hi = mid;
	}
	return lo;
}

/* One stack of the dump, the allocator's frames above it dropped. */
static int
make_stack(const struct heap_stack *s, const struct heap_profile *p,
    const unsigned char *alloc, struct heap_pstack *out)
{
	size_t skip = 0;

	while (skip < s->depth &&
	    alloc[location_index(p, s->pcs[skip])])
		skip++;
	if (skip == s->depth)
		skip = 0; /* the allocator's alone: kept as it is */
	out->depth = s->depth - skip;
	if ((out->locs = calloc(out->depth ? out->depth : 1,
	    sizeof(*out->locs))) == NULL)
		return -1;
	for (size_t j = 0; j < out->depth; j++)
		out->locs[j] = location_index(p, s->pcs[skip + j]);
	out->bytes = s->bytes;
	out->objects = s->objects;
	return 0;
}

/*
 * Only what the kept stacks reach stays: the allocator's own frames, and
 * the addresses of the stacks that hold nothing, go with their functions.
 * where[] maps an old index to the new one.
 */
static int
prune(struct heap_profile *p)
{
	size_t n = (p->nlocs > p->nfuncs ? p->nlocs : p->nfuncs) + 1;
	size_t *where = malloc(n * sizeof(*where)), kept = 0;

	if (where == NULL)
		return -1;
	memset(where, 0xff, n * sizeof(*where)); /* SIZE_MAX: unused */
	for (size_t i = 0; i < p->nstacks; i++)
		for (size_t j = 0; j < p->stacks[i].depth; j++)
			where[p->stacks[i].locs[j]] = 0;
	for (size_t i = 0; i < p->nlocs; i++)
		if (where[i] != SIZE_MAX) {
			where[i] = kept;
			p->locs[kept++] = p->locs[i];
		}
	p->nlocs = kept;
	for (size_t i = 0; i < p->nstacks; i++)
		for (size_t j = 0; j < p->stacks[i].depth; j++)
			p->stacks[i].locs[j] = where[p->stacks[i].locs[j]];
	memset(where, 0xff, n * sizeof(*where));
	for (size_t i = 0; i < p->nlocs; i++)
		where[p->locs[i].func] = 0;
	kept = 0;
	for (size_t i = 0; i < p->nfuncs; i++) {
		if (where[i] == SIZE_MAX) {
			free(p->funcs[i].name);
			continue;
		}
		where[i] = kept;
		p->funcs[kept++] = p->funcs[i];
	}
	p->nfuncs = kept;
	for (size_t i = 0; i < p->nlocs; i++)
		p->locs[i].func = where[p->locs[i].func];
	free(where);
	return 0;
}

/* Each stack's bytes into its functions: own once, inclusive once. */
static int
sum_functions(struct heap_profile *p)
{
	size_t *seen = calloc(p->nfuncs ? p->nfuncs : 1, sizeof(*seen));

	if (seen == NULL)
		return -1;
	for (size_t i = 0; i < p->nstacks; i++) {
		const struct heap_pstack *s = &p->stacks[i];

		for (size_t j = 0; j < s->depth; j++) {
			size_t f = p->locs[s->locs[j]].func;

			if (j == 0) {
				p->funcs[f].own_bytes += s->bytes;
				p->funcs[f].own_objects += s->objects;
			}
			if (seen[f] == i + 1)
				continue; /* recursion: once a stack */
			seen[f] = i + 1;
			p->funcs[f].incl_bytes += s->bytes;
			p->funcs[f].incl_objects += s->objects;
		}
		p->total_bytes += s->bytes;
		p->total_objects += s->objects;
	}
	free(seen);
	return 0;
}

static int
cmp_stacks(const void *a, const void *b)
{
	const struct heap_pstack *x = a, *y = b;

	return x->bytes > y->bytes ? -1 : x->bytes < y->bytes;
}

static const struct heap_function *sort_funcs;

static int
cmp_funcs(const void *a, const void *b)
{
	const struct heap_function *x = &sort_funcs[*(const size_t *)a];
	const struct heap_function *y = &sort_funcs[*(const size_t *)b];

	if (x->incl_bytes != y->incl_bytes)
		return x->incl_bytes > y->incl_bytes ? -1 : 1;
	if (x->own_bytes != y->own_bytes)
		return x->own_bytes > y->own_bytes ? -1 : 1;
	return strcmp(x->name, y->name);
}

/* The functions put largest first, the locations following them. */
static int
order_functions(struct heap_profile *p)
{
	size_t n = p->nfuncs ? p->nfuncs : 1;
	size_t *order = malloc(n * sizeof(*order));
	size_t *where = malloc(n * sizeof(*where));
	struct heap_function *f = malloc(n * sizeof(*f));

	if (order == NULL || where == NULL || f == NULL) {
		free(order);
		free(where);
		free(f);
		return -1;
	}
	for (size_t i = 0; i < p->nfuncs; i++)
		order[i] = i;
	sort_funcs = p->funcs;
	qsort(order, p->nfuncs, sizeof(*order), cmp_funcs);
	for (size_t k = 0; k < p->nfuncs; k++) {
		f[k] = p->funcs[order[k]];
		where[order[k]] = k;
	}
	for (size_t i = 0; i < p->nlocs; i++)
		p->locs[i].func = where[p->locs[i].func];
	free(p->funcs);
	p->funcs = f;
	free(order);
	free(where);
	return 0;
}

/* The stacks that hold bytes, then the sums and the orders. */
static int
make_stacks(const struct heap_dump *d, struct heap_profile *p,
    const unsigned char *alloc)
{
	if ((p->stacks = calloc(d->nstacks ? d->nstacks : 1,
	    sizeof(*p->stacks))) == NULL)
		return -1;
	for (size_t i = 0; i < d->nstacks; i++) {
		if (d->stacks[i].bytes <= 0 || d->stacks[i].depth == 0)
			continue;
		if (make_stack(&d->stacks[i], p, alloc,
		    &p->stacks[p->nstacks]) != 0)
			return -1;
		p->nstacks++;
	}
	qsort(p->stacks, p->nstacks, sizeof(*p->stacks), cmp_stacks);
	if (prune(p) != 0 || sum_functions(p) != 0)
		return -1;
	return order_functions(p);
}

int
heap_profile_build(const struct heap_dump *d, heap_namer *name, void *ctx,
    struct heap_profile *p)
{
	struct naming nm = { 0 };
	int rc = -1;

	memset(p, 0, sizeof(*p));
	p->maps = d->maps;
	p->nmaps = d->nmaps;
	p->rate = d->rate;
	if (gather_locations(d, p) != 0)
		goto out;
	nm.names = calloc(p->nlocs + 1, sizeof(*nm.names));
	nm.alloc = calloc(p->nlocs + 1, sizeof(*nm.alloc));
	nm.order = calloc(p->nlocs + 1, sizeof(*nm.order));
	p->funcs = calloc(p->nlocs + 1, sizeof(*p->funcs));
	if (nm.names == NULL || nm.alloc == NULL || nm.order == NULL ||
	    p->funcs == NULL)
		goto out;
	nm.n = p->nlocs;
	if (name_locations(d, name, ctx, p, &nm) != 0 ||
	    make_stacks(d, p, nm.alloc) != 0)
		goto out;
	rc = 0;
out:
	for (size_t i = 0; nm.names != NULL && i < nm.n; i++)
		free(nm.names[i]);
	free(nm.names);
	free(nm.alloc);
	free(nm.order);
	if (rc != 0) {
		heap_profile_free(p);
		errno = ENOMEM;
	}
	return rc;
}

void
heap_profile_free(struct heap_profile *p)
{
	for (size_t i = 0; i < p->nfuncs; i++)
		free(p->funcs[i].name);
	for (size_t i = 0; i < p->nstacks; i++)
		free(p->stacks[i].locs);
	free(p->funcs);
	free(p->stacks);
	free(p->locs);
	memset(p, 0, sizeof(*p));
}
