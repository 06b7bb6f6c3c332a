/*
 * A heap profile summed for --explain (heap_summary.h). Which calls are
 * the server's instrumented allocation is read from MariaDB's and MySQL's
 * sources: mysys's my_malloc and kin call PSI_MEMORY_CALL(memory_alloc)
 * with the caller's key; performance_schema's own pfs_malloc counts into
 * its builtin classes; InnoDB's ut_allocator and, in MySQL 8.0.27+,
 * ut::*_withkey and ut::detail::Alloc_pfs do the same with InnoDB's keys.
 * A stack through one of them says the call was instrumented code, not
 * that its instrument was on, nor that it had a key at all
 * (PSI_NOT_INSTRUMENTED): the stack does not hold the key.
 */
#include <stdio.h>
#include <string.h>

#include "heap_summary.h"

/* The instrumented calls, by name without parameters. */
static const char *const instrumented_calls[] = {
	"my_malloc", "my_realloc", "my_memdup", "my_strdup", "my_strndup",
	"my_multi_malloc", "my_multi_malloc_large", "pfs_malloc",
	"pfs_malloc_array", "pfs_realloc_array",
	"ut::malloc_withkey", "ut::zalloc_withkey", "ut::realloc_withkey",
	"ut::new_withkey", "ut::new_arr_withkey",
	"ut::malloc_large_page_withkey", "ut::malloc_page_withkey",
};

/* ...and by the start of their names, for templates. */
static const char *const instrumented_prefixes[] = {
	"ut_allocator<", "ut::detail::Alloc_pfs",
};

bool
heap_summary_instrumented(const char *name)
{
	char s[HEAP_SUMMARY_NAME];

	heap_summary_short(name, s, sizeof(s));
	for (size_t i = 0; i < sizeof(instrumented_calls) /
	    sizeof(instrumented_calls[0]); i++)
		if (strcmp(s, instrumented_calls[i]) == 0)
			return true;
	for (size_t i = 0; i < sizeof(instrumented_prefixes) /
	    sizeof(instrumented_prefixes[0]); i++)
		if (strncmp(s, instrumented_prefixes[i],
		    strlen(instrumented_prefixes[i])) == 0)
			return true;
	return false;
}

/*
 * The parameters start at the first "(" outside a template's "<>" that
 * is neither "(anonymous namespace)" nor operator()'s own.
 */
void
heap_summary_short(const char *name, char *out, size_t len)
{
	static const char anon[] = "(anonymous namespace)";
	size_t i = 0, depth = 0;

	for (; name[i] != '\0'; i++) {
		if (strncmp(name + i, anon, sizeof(anon) - 1) == 0) {
			i += sizeof(anon) - 2;
			continue;
		}
		if (name[i] == '<')
			depth++;
		else if (name[i] == '>' && depth > 0)
			depth--;
		else if (name[i] == '(' && depth == 0 && i > 0 &&
		    !(i >= 8 && strncmp(name + i - 8, "operator", 8) == 0))
			break;
	}
	snprintf(out, len, "%.*s", (int)i, name);
}

/* Whether location l is in a shared library (lib*.so*), not the server's. */
static bool
in_library(const struct heap_profile *p, size_t l)
{
	const char *path, *base;

	if (p->locs[l].map == SIZE_MAX || p->maps == NULL ||
	    (path = p->maps[p->locs[l].map].path) == NULL)
		return false;
	base = strrchr(path, '/');
	base = base != NULL ? base + 1 : path;
	return strncmp(base, "lib", 3) == 0 && strstr(base, ".so") != NULL;
}

/* A name symbols.h gives an address it could not name: FILE+0xOFF, 0xADDR. */
static bool
unnamed(const char *name)
{
	const char *x = strstr(name, "+0x");

	if (strncmp(name, "0x", 2) == 0)
		x = name;
	else if (x != NULL)
		x++;
	return x != NULL && x[2] != '\0' &&
	    strspn(x + 2, "0123456789abcdefABCDEF") == strlen(x + 2);
}

/* The stack's first frame of the server's own code (own_frames()). */
static size_t
first_own(const struct heap_profile *p, const struct heap_pstack *s)
{
	size_t j = 0;

	while (j < s->depth && in_library(p, s->locs[j]))
		j++;
	return j == s->depth ? 0 : j; /* a library's alone: its frames */
}

static enum heap_mark
stack_mark(const struct heap_profile *p, const struct heap_pstack *s)
{
	for (size_t j = 0; j < s->depth; j++)
		if (heap_summary_instrumented(
		    p->funcs[p->locs[s->locs[j]].func].name))
			return HEAP_MARK_INSTRUMENTED;
	if (s->depth > 0 && unnamed(p->funcs[p->locs[s->locs[first_own(p,
	    s)]].func].name))
		return HEAP_MARK_UNNAMED;
	return HEAP_MARK_NOT;
}

/* The stack's first frames of the server's own code, innermost first. */
static void
own_frames(const struct heap_profile *p, const struct heap_pstack *s,
    struct heap_summary_stack *out)
{
	for (size_t j = first_own(p, s); j < s->depth && out->nframes < HEAP_SUMMARY_FRAMES; j++)
		heap_summary_short(p->funcs[p->locs[s->locs[j]].func].name,
		    out->frames[out->nframes++], HEAP_SUMMARY_NAME);
}

void
heap_summary_make(const struct heap_profile *p, struct heap_summary *out)
{
	memset(out, 0, sizeof(*out));
	out->state = HEAP_READ;
	out->total_bytes = p->total_bytes;
	out->nstacks = p->nstacks;
	/* The stacks are largest first: the top ones are the first ones. */
	for (size_t i = 0; i < p->nstacks; i++) {
		const struct heap_pstack *s = &p->stacks[i];
		enum heap_mark mark = stack_mark(p, s);

		if (mark == HEAP_MARK_INSTRUMENTED)
			out->instrumented_bytes += s->bytes;
		else if (mark == HEAP_MARK_UNNAMED)
			out->unnamed_bytes += s->bytes;
		else
			out->other_bytes += s->bytes;
		if (out->ntop == HEAP_SUMMARY_STACKS)
			continue;
		out->top[out->ntop].bytes = s->bytes;
		out->top[out->ntop].mark = mark;
		own_frames(p, s, &out->top[out->ntop++]);
	}
}
