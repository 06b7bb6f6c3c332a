/*
 * libFuzzer harness for --heap's profile and formats: a dump the parser
 * takes is named by a namer that gives every address a name of its low
 * byte (so names repeat, some with ';', '%' or control characters, some
 * in "libjemalloc"), then built into a profile and written as text,
 * folded and pprof. The profile must add up: its total the sum of its
 * stacks, no function's inclusive bytes above the total, own bytes summing
 * to the total, every stack's frames pointing at locations and functions.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "heap_out.h"
#include "heap_pprof.h"
#include "heap_profile.h"
#include "heapdump.h"

/* Names by the address's low byte; a quarter of them the allocator's. */
static void
fuzz_name(void *ctx, uint64_t pc, struct symbol *out)
{
	static char names[256][16];
	unsigned b = (unsigned)(pc & 0xff);

	(void)ctx;
	snprintf(names[b], sizeof(names[b]), "f%u%s", b, b % 7 == 0 ? ";%\n" :
	    "");
	*out = (struct symbol){ .name = names[b], .named = true,
	    .file = b % 4 == 0 ? "/lib/libjemalloc.so.2" : "/usr/sbin/mysqld" };
}

static void
check(const struct heap_profile *p)
{
	int64_t total = 0, own = 0;

	for (size_t i = 0; i < p->nstacks; i++) {
		if (p->stacks[i].depth == 0)
			abort();
		for (size_t j = 0; j < p->stacks[i].depth; j++)
			if (p->stacks[i].locs[j] >= p->nlocs ||
			    p->locs[p->stacks[i].locs[j]].func >= p->nfuncs)
				abort();
		total += p->stacks[i].bytes;
	}
	for (size_t i = 0; i < p->nfuncs; i++) {
		if (p->funcs[i].incl_bytes > total)
			abort();
		own += p->funcs[i].own_bytes;
	}
	if (total != p->total_bytes || own != total)
		abort();
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const struct heap_meta m = { .dump = "fuzz", .top = 5 };
	struct heap_dump d;
	struct heap_profile p;
	struct obuf b = { 0 };
	unsigned char *buf;
	size_t len;
	char err[256];

	if (heap_dump_parse((const char *)data, size, &d, err,
	    sizeof(err)) != 0)
		return 0;
	if (heap_profile_build(&d, fuzz_name, NULL, &p) == 0) {
		check(&p);
		heap_out_text(&b, &p, &m);
		heap_out_folded(&b, &p);
		if (heap_pprof_encode(&p, 0, &buf, &len) == 0)
			free(buf);
		heap_profile_free(&p);
	}
	obuf_free(&b);
	heap_dump_free(&d);
	return 0;
}
