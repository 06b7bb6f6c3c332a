#include <inttypes.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "heap_flame.h"
#include "heapkeep.h"
#include "incident_heap.h"
#include "picture.h"
#include "symbols.h"
#include "units.h"

/* A kept dump is read whole up to this: the record's share is smaller. */
#define KEPT_MAX ((uint64_t)1 << 32)

static void
name_pc(void *ctx, uint64_t pc, struct symbol *out)
{
	symbols_lookup(ctx, pc, out);
}

/* The dump name of heapfd parsed into *d; -1 with h->why said. */
static int
parse(int heapfd, const char *name, struct heap_dump *d,
    struct incident_heap *h)
{
	size_t len;
	char *text = heap_keep_read(heapfd, name, KEPT_MAX, &len), err[200];
	int rc;

	if (text == NULL) {
		snprintf(h->why, sizeof(h->why), "heap/%s cannot be read", name);
		return -1;
	}
	rc = heap_dump_parse(text, len, d, err, sizeof(err));
	free(text);
	if (rc != 0)
		snprintf(h->why, sizeof(h->why), "heap/%s: %s", name, err);
	return rc;
}

void
incident_heap_load(int heapfd, const char *name, const char *base,
    struct incident_heap *h)
{
	struct heap_dump b;
	struct symbols *sym;

	memset(h, 0, sizeof(*h));
	snprintf(h->name, sizeof(h->name), "%s", name);
	snprintf(h->base_name, sizeof(h->base_name), "%s", base);
	if (name[0] == '\0' || parse(heapfd, name, &h->d, h) != 0)
		return;
	/* The files the process mapped name its frames, as --heap does. */
	if ((sym = symbols_open(h->d.maps, h->d.nmaps, NULL)) == NULL ||
	    heap_profile_build(&h->d, name_pc, sym, &h->p) != 0) {
		snprintf(h->why, sizeof(h->why), "out of memory naming it");
		symbols_free(sym);
		return;
	}
	h->has = true;
	if (base[0] != '\0' && parse(heapfd, base, &b, h) == 0) {
		if (heap_dump_diff(&h->d, &b, &h->growth) == 0) {
			if (heap_profile_build(&h->growth, name_pc, sym,
			    &h->g) == 0)
				h->has_growth = true;
			else
				heap_dump_free(&h->growth);
		}
		heap_dump_free(&b);
	}
	h->why[0] = '\0';
	symbols_free(sym);
}

void
incident_heap_free(struct incident_heap *h)
{
	if (h->has_growth) {
		heap_profile_free(&h->g);
		heap_dump_free(&h->growth);
	}
	if (h->has)
		heap_profile_free(&h->p);
	heap_dump_free(&h->d);
	memset(h, 0, sizeof(*h));
}

/* The largest stacks of p: bytes, share, the innermost frames. */
static void
stacks(FILE *fp, const struct heap_profile *p, const char *what)
{
	size_t n = p->nstacks < INCIDENT_HEAP_ROWS ? p->nstacks :
	    INCIDENT_HEAP_ROWS;

	fprintf(fp, "<table>\n<tr><th>%s</th><th>share</th><th class=\"text\">"
	    "the stack, the allocating call first</th></tr>\n", what);
	for (size_t i = 0; i < n; i++) {
		const struct heap_pstack *s = &p->stacks[i];
		char b[64];

		units_bytes(s->bytes, b, sizeof(b));
		fprintf(fp, "<tr><td title=\"%" PRId64 " bytes\">%s</td><td>"
		    "%.1f%%</td><td class=\"text\">", s->bytes, b,
		    p->total_bytes > 0 ? 100.0 * (double)s->bytes /
		    (double)p->total_bytes : 0.0);
		for (size_t d = 0; d < s->depth && d < INCIDENT_HEAP_FRAMES;
		    d++) {
			const char *f = p->funcs[p->locs[s->locs[d]].func].name;

			if (d > 0)
				fputs(" \xe2\x86\x90 ", fp);
			picture_text(fp, f, strlen(f), 120);
		}
		if (s->depth > INCIDENT_HEAP_FRAMES)
			fputs(" \xe2\x86\x90 ...", fp);
		fputs("</td></tr>\n", fp);
	}
	fputs("</table>\n", fp);
}

void
incident_heap_section(FILE *fp, const struct incident_heap *h)
{
	char b[64];

	if (h->name[0] == '\0')
		return;
	fputs("<h2>Heap profile</h2>\n", fp);
	if (!h->has) {
		fputs("<p class=\"note\">The last dump kept before the incident "
		    "could not be drawn: ", fp);
		picture_text(fp, h->why, strlen(h->why), 0);
		fputs(".</p>\n", fp);
		return;
	}
	units_bytes(h->p.total_bytes, b, sizeof(b));
	fprintf(fp, "<p>The server's jemalloc heap profile, the last dump the "
	    "record kept before the incident (heap/");
	picture_text(fp, h->name, strlen(h->name), 0);
	fprintf(fp, "): %s live, sampled. Each frame is as wide as the bytes "
	    "allocated through it; the callers below, the allocating calls "
	    "on top.</p>\n<figure>\n", b);
	heap_flame_svg(fp, &h->p, "Live heap by stack");
	fputs("</figure>\n<h2>The largest stacks</h2>\n", fp);
	stacks(fp, &h->p, "bytes");
	if (!h->has_growth) {
		fputs("<p class=\"note\">No dump kept before it: no growth to "
		    "show.</p>\n", fp);
		return;
	}
	units_bytes(h->g.total_bytes, b, sizeof(b));
	fprintf(fp, "<h2>The growth since the dump before</h2>\n<p>%s more "
	    "than heap/", b);
	picture_text(fp, h->base_name, strlen(h->base_name), 0);
	fputs(" held, in the stacks that grew.</p>\n", fp);
	stacks(fp, &h->g, "grew by");
}
