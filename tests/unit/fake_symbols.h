/*
 * The namer of a fake process for heap_profile_build(): its functions as
 * [start, end) named so, in a file; an address outside them is "0xdead",
 * as symbols.h leaves an address it cannot name. The table is the ctx.
 */
#ifndef MYSQLMEMPROF_TEST_FAKE_SYMBOLS_H
#define MYSQLMEMPROF_TEST_FAKE_SYMBOLS_H

#include <stddef.h>
#include <stdint.h>

#include "symbols.h"

struct fake_sym {
	uint64_t start, end;
	const char *name, *file;
};

struct fake_syms {
	const struct fake_sym *v;
	size_t n;
};

#define FAKE_SYMS(a) { (a), sizeof(a) / sizeof((a)[0]) }

static void
fake_name(void *ctx, uint64_t pc, struct symbol *out)
{
	const struct fake_syms *t = ctx;

	for (size_t i = 0; i < t->n; i++)
		if (pc >= t->v[i].start && pc < t->v[i].end) {
			*out = (struct symbol){ .name = t->v[i].name,
			    .file = t->v[i].file, .named = true,
			    .func_start = t->v[i].start };
			return;
		}
	*out = (struct symbol){ .name = "0xdead" };
}

#endif
