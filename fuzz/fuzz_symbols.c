/*
 * libFuzzer harness for the symbol reader (symbols.h): any bytes, written
 * to a file, as an ELF file a process maps executable twice (its start and
 * a page in) beside a read-only mapping of it. libelf and libdwfl read it;
 * we must not crash, and every answer must hold together: a name always,
 * the file and its offset for a pc inside a mapping, a function that
 * starts at or before pc - 1 when named. The seed (fuzz_symbols.seeds/)
 * is tests/unit/symfix/lib.c built small: -nostdlib, 16-byte pages.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "symbols.h"

static char path[] = "/tmp/fuzz_symbols.XXXXXX";
static int fd = -1;

static void
remove_file(void)
{
	unlink(path);
}

static void
check(const struct heap_mapping *maps, size_t n, uint64_t pc,
    const struct symbol *sym)
{
	const struct heap_mapping *m = NULL;

	for (size_t i = 0; i < n; i++)
		if (pc >= maps[i].start && pc < maps[i].end)
			m = &maps[i];
	if (sym->name == NULL || sym->name[0] == '\0')
		abort();
	if (m == NULL && (sym->file != NULL || sym->named))
		abort();
	if (m != NULL && (sym->file == NULL || strcmp(sym->file, path) != 0 ||
	    sym->file_offset != pc - m->start + m->offset))
		abort();
	if (sym->named && (pc == 0 || sym->func_start > pc - 1))
		abort();
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct heap_mapping maps[] = {
		{ 0x400000, 0x402000, 0, path, 1 },
		{ 0x402000, 0x403000, 0x2000, path, 0 },
		{ 0x7f0000001000, 0x7f0000002000, 0x1000, path, 1 },
	};
	size_t n = sizeof(maps) / sizeof(maps[0]);
	struct symbols *s;
	struct symbol sym;

	if (fd < 0) {
		if ((fd = mkstemp(path)) < 0)
			abort();
		atexit(remove_file);
	}
	if (ftruncate(fd, 0) != 0 ||
	    pwrite(fd, data, size, 0) != (ssize_t)size)
		abort();
	if ((s = symbols_open(maps, n, NULL)) == NULL)
		return 0;
	if (symbols_unreadable(s) < 0 || symbols_unreadable(s) > 1)
		abort();
	/* Every 61 bytes of the mappings and around them; asked again, the
	 * answer comes from the cache and must be the first. */
	for (uint64_t pc = 0x3fff00; pc < 0x403100; pc += 61) {
		struct symbol again;

		symbols_lookup(s, pc, &sym);
		check(maps, n, pc, &sym);
		symbols_lookup(s, pc, &again);
		if (again.name != sym.name)
			abort();
	}
	for (uint64_t pc = 0x7f0000000f00; pc < 0x7f0000002100; pc += 61) {
		symbols_lookup(s, pc, &sym);
		check(maps, n, pc, &sym);
	}
	symbols_free(s);
	return 0;
}
