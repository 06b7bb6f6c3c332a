/*
 * libFuzzer harness for the heap dump parser (heapdump.h): any bytes as a
 * jemalloc heap_v2 dump must be parsed or refused with one line naming
 * the problem, never read out of bounds; what is parsed must add up (the
 * total is the sum of the stacks, none negative, every frame stored). The
 * input is cut at its first NUL into a newer dump and a base: when both
 * parse, their growth keeps only stacks that grew, and a dump less
 * itself has none.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "heapdump.h"

/* grown: a growth, whose objects may be fewer while its bytes grew. */
static void
check(const struct heap_dump *d, int grown)
{
	int64_t bytes = 0, objects = 0;

	for (size_t i = 0; i < d->nstacks; i++) {
		if (d->stacks[i].bytes < 0 || (!grown && d->stacks[i].objects < 0) ||
		    (d->stacks[i].depth > 0 && d->stacks[i].pcs == NULL))
			abort();
		bytes += d->stacks[i].bytes;
		objects += d->stacks[i].objects;
	}
	if (bytes != d->total_bytes || objects != d->total_objects)
		abort();
	for (size_t i = 0; i < d->nmaps; i++)
		if (d->maps[i].start > d->maps[i].end)
			abort();
}

/* One line in err, or a dump that adds up. */
static int
parse(const char *text, size_t len, struct heap_dump *d)
{
	char err[256];

	err[0] = '\0';
	if (heap_dump_parse(text, len, d, err, sizeof(err)) != 0) {
		if (err[0] == '\0' || strchr(err, '\n') != NULL ||
		    d->stacks != NULL || d->maps != NULL)
			abort();
		return -1;
	}
	check(d, 0);
	return 0;
}

static void
diff_check(const struct heap_dump *newer, const struct heap_dump *base)
{
	struct heap_dump out;

	if (heap_dump_diff(newer, base, &out) != 0)
		return;
	check(&out, 1);
	if (out.nstacks > newer->nstacks || out.nmaps != newer->nmaps)
		abort();
	for (size_t i = 0; i < out.nstacks; i++)
		if (out.stacks[i].bytes <= 0)
			abort();
	if (newer == base && out.nstacks != 0)
		abort();
	heap_dump_free(&out);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *text = (const char *)data, *nul;
	struct heap_dump newer, base;
	size_t len;

	/* The parser takes a length: no NUL is needed after the text. */
	nul = memchr(text, '\0', size);
	len = nul == NULL ? size : (size_t)(nul - text);
	if (parse(text, len, &newer) != 0)
		return 0;
	diff_check(&newer, &newer);
	if (nul != NULL && parse(nul + 1, size - len - 1, &base) == 0) {
		diff_check(&newer, &base);
		heap_dump_free(&base);
	}
	heap_dump_free(&newer);
	return 0;
}
