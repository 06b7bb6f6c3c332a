/*
 * Names for a process's return addresses, from the ELF files it maps
 * (issue 34): .symtab, else .dynsym, and the debug file found by build id
 * (/usr/lib/debug/.build-id/) where one is installed, read with elfutils'
 * libdwfl; C++ names demangled. An address is named only when it falls
 * inside a symbol's size (a static function must not take the name of the
 * nearest exported one); otherwise it keeps its file and offset.
 */
#ifndef MYSQLMEMPROF_SYMBOLS_H
#define MYSQLMEMPROF_SYMBOLS_H

#include <stdbool.h>
#include <stdint.h>

#include "heapdump.h"

struct symbols;

/* The name of one address. */
struct symbol {
	const char *name;       /* demangled function, or "FILE+0xOFF", or
	                           "0xADDR" outside every mapping; the
	                           symbols' own until symbols_free */
	const char *file;       /* the mapped file's path; NULL: none */
	uint64_t file_offset;   /* pc's offset in that file */
	uint64_t func_start;    /* the function's first address; 0: unnamed */
	bool named;             /* a symbol holds pc */
};

/*
 * A reader over the mappings of one process at one time (a dump's
 * MAPPED_LIBRARIES, or /proc/PID/maps parsed the same way). root, when not
 * NULL, is put before every path (/proc/PID/root: a server in a chroot or
 * a container). NULL with errno when out of memory; files that cannot be
 * read are not an error: their addresses keep file and offset.
 */
struct symbols *symbols_open(const struct heap_mapping *maps, size_t n,
    const char *root);

/* pc's name into *out. Fast on a repeated pc (cached). */
void symbols_lookup(struct symbols *s, uint64_t pc, struct symbol *out);

/*
 * How many of the mapped executable files had no symbols to read (stripped
 * of .symtab and .dynsym, no debug file), or could not be read (gone,
 * another user's, cut short, not the ELF that was mapped), for one note.
 */
int symbols_unreadable(const struct symbols *s);

/* The nth of those files (0 first), as the maps name it; NULL past them. */
const char *symbols_unreadable_file(const struct symbols *s, int n);

void symbols_free(struct symbols *s);

#endif
