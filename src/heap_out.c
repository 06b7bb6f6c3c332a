/*
 * --heap's text and folded formats. Sizes in the text are binary units
 * (units.h) or, with --bytes, exact; shares are of the profile's total.
 */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "heap_out.h"
#include "profile.h"
#include "units.h"

/* A size in a column of width w: KiB/MiB, or the exact bytes. */
static void
put_size(struct obuf *b, int64_t v, bool exact, int w)
{
	char s[32];

	if (exact)
		snprintf(s, sizeof(s), "%" PRId64, v);
	else
		units_bytes(v, s, sizeof(s));
	obuf_printf(b, "%*s", w, s);
}

/* v as a share of total, "  47.8%", in a column of 8. */
static void
put_share(struct obuf *b, int64_t v, int64_t total)
{
	double pct = total > 0 ? 100.0 * (double)v / (double)total : 0.0;

	obuf_printf(b, "%7.1f%%", pct);
}

/* A function's name on one line: control characters become spaces. */
static void
put_name(struct obuf *b, const char *name)
{
	char clean[4096];

	profile_clean(clean, sizeof(clean), name, strlen(name));
	obuf_puts(b, clean);
	obuf_putc(b, '\n');
}

/* A list's heading; how many of its total --top shows. */
static size_t
list_heading(struct obuf *b, const char *what, size_t total, size_t top,
    const char *how)
{
	size_t n = top != 0 && top < total ? top : total;

	obuf_printf(b, "\nThe largest %s, %zu of %zu (%s):\n", what, n, total,
	    how);
	return n;
}

static void
text_heading(struct obuf *b, const struct heap_profile *p,
    const struct heap_meta *m)
{
	if (m->pid != 0)
		obuf_printf(b, "jemalloc heap profile of pid %d: %s\n",
		    (int)m->pid, m->dump);
	else
		obuf_printf(b, "jemalloc heap profile: %s\n", m->dump);
	if (m->base != NULL)
		obuf_printf(b, "growth since: %s\n", m->base);
	obuf_puts(b, m->base != NULL ? "grown: " : "live: ");
	put_size(b, p->total_bytes, m->exact, 0);
	obuf_printf(b, " in %" PRId64 " objects, %zu stacks", p->total_objects,
	    p->nstacks);
	if (p->rate > 1) {
		char rate[32];

		units_bytes((int64_t)p->rate, rate, sizeof(rate));
		obuf_printf(b, " (a sample every %s allocated on average, "
		    "scaled up as jeprof does)", rate);
	}
	obuf_putc(b, '\n');
}

static void
text_stacks(struct obuf *b, const struct heap_profile *p,
    const struct heap_meta *m)
{
	size_t n = list_heading(b, "stacks", p->nstacks, m->top,
	    "innermost frame first");

	for (size_t i = 0; i < n; i++) {
		const struct heap_pstack *s = &p->stacks[i];

		obuf_printf(b, "#%-3zu", i + 1);
		put_size(b, s->bytes, m->exact, 12);
		put_share(b, s->bytes, p->total_bytes);
		obuf_printf(b, "  %" PRId64 " object%s\n", s->objects,
		    s->objects == 1 ? "" : "s");
		for (size_t j = 0; j < s->depth; j++) {
			obuf_puts(b, "      ");
			put_name(b, p->funcs[p->locs[s->locs[j]].func].name);
		}
	}
}

static void
text_functions(struct obuf *b, const struct heap_profile *p,
    const struct heap_meta *m)
{
	size_t n = list_heading(b, "functions", p->nfuncs, m->top,
	    "inclusive: the stacks through it; own: allocated by its call");

	obuf_printf(b, "%12s%8s %12s%8s  %s\n", "inclusive", "share", "own",
	    "share", "function");
	for (size_t i = 0; i < n; i++) {
		const struct heap_function *f = &p->funcs[i];

		put_size(b, f->incl_bytes, m->exact, 12);
		put_share(b, f->incl_bytes, p->total_bytes);
		obuf_putc(b, ' ');
		put_size(b, f->own_bytes, m->exact, 12);
		put_share(b, f->own_bytes, p->total_bytes);
		obuf_puts(b, "  ");
		put_name(b, f->name);
	}
}

void
heap_out_text(struct obuf *b, const struct heap_profile *p,
    const struct heap_meta *m)
{
	text_heading(b, p, m);
	text_stacks(b, p, m);
	text_functions(b, p, m);
}

/* One frame's name, cleaned and escaped so that it stays one frame. */
static void
folded_frame(struct obuf *b, const char *name)
{
	char clean[4096];
	size_t len = profile_clean(clean, sizeof(clean), name, strlen(name));

	for (size_t i = 0; i < len; i++) {
		if (clean[i] == ';')
			obuf_puts(b, "%3B");
		else if (clean[i] == '%')
			obuf_puts(b, "%25");
		else
			obuf_putc(b, clean[i]);
	}
}

void
heap_out_folded(struct obuf *b, const struct heap_profile *p)
{
	for (size_t i = 0; i < p->nstacks; i++) {
		const struct heap_pstack *s = &p->stacks[i];

		for (size_t j = s->depth; j > 0; j--) {
			folded_frame(b, p->funcs[p->locs[s->locs[j - 1]].func].name);
			obuf_putc(b, j > 1 ? ';' : ' ');
		}
		obuf_int(b, s->bytes);
		obuf_putc(b, '\n');
	}
}
