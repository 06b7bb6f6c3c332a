/*
 * symbols: names of real addresses, in this process (its own functions,
 * the libraries of tests/unit/symfix/ it loads) and in a running program
 * of symfix, from /proc/PID/maps as a dump's MAPPED_LIBRARIES gives them.
 */
#include <dlfcn.h>
#include <elf.h>
#include <limits.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include "symbols.h"

int symbols_test_global(int x);

/* This binary's own functions: one exported, one static. */
__attribute__((noinline)) int
symbols_test_global(int x)
{
	return x * 11 + 3;
}

__attribute__((noinline)) static int
symbols_test_static(int x)
{
	return symbols_test_global(x) - 4;
}

/* The maps of a process: the lines of /proc/PID/maps, paths owned. */
struct maps {
	struct heap_mapping m[1024];
	size_t n;
};

static void
maps_free(struct maps *mp)
{
	for (size_t i = 0; i < mp->n; i++)
		free(mp->m[i].path);
	free(mp);
}

/*
 * pid's maps (0: this process's); with strip_root, only the files under
 * that folder, each named as the process would see it were it its root.
 */
static struct maps *
maps_read(pid_t pid, const char *strip_root)
{
	char path[64], line[8192], perms[8];
	struct maps *mp = calloc(1, sizeof(*mp));
	FILE *f;

	if (pid)
		snprintf(path, sizeof(path), "/proc/%d/maps", (int)pid);
	else
		snprintf(path, sizeof(path), "/proc/self/maps");
	assert_non_null(mp);
	assert_non_null(f = fopen(path, "r"));
	while (fgets(line, sizeof(line), f) && mp->n < 1024) {
		struct heap_mapping *m = &mp->m[mp->n];
		unsigned long long s, e, o;
		int pos = 0;

		if (sscanf(line, "%llx-%llx %7s %llx %*s %*s %n", &s, &e, perms,
		    &o, &pos) < 4)
			continue;
		line[strcspn(line, "\n")] = '\0';
		m->start = s, m->end = e, m->offset = o;
		m->executable = perms[2] == 'x';
		const char *p = line + pos;
		if (strip_root) {
			if (strncmp(p, strip_root, strlen(strip_root)) != 0)
				continue;
			p += strlen(strip_root);
		}
		m->path = *p ? strdup(p) : NULL;
		mp->n++;
	}
	fclose(f);
	return mp;
}

/* The mapping of mp holding pc. */
static const struct heap_mapping *
maps_at(const struct maps *mp, uint64_t pc)
{
	for (size_t i = 0; i < mp->n; i++)
		if (pc >= mp->m[i].start && pc < mp->m[i].end)
			return &mp->m[i];
	fail_msg("no mapping holds %#llx", (unsigned long long)pc);
	return NULL;
}

/* build/symfix/NAME, beside this test's binary. */
static const char *
symfix(const char *name)
{
	static char path[PATH_MAX + 64];
	char exe[PATH_MAX];
	ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);

	assert_true(n > 0);
	exe[n] = '\0';
	*strrchr(exe, '/') = '\0';
	snprintf(path, sizeof(path), "%s/symfix/%s", exe, name);
	return path;
}

static void *
load(const char *path)
{
	void *h = dlopen(path, RTLD_NOW | RTLD_LOCAL);

	if (h == NULL)
		fail_msg("dlopen %s: %s", path, dlerror());
	return h;
}

static uint64_t
fn_at(void *h, const char *name)
{
	void *p = dlsym(h, name);

	assert_non_null(p);
	return (uint64_t)(uintptr_t)p;
}

/* A pc that returns into fn (its second byte), named fn. */
static void
assert_named(struct symbols *s, uint64_t fn, const char *name)
{
	struct symbol sym;

	symbols_lookup(s, fn + 1, &sym);
	assert_true(sym.named);
	assert_string_equal(sym.name, name);
	assert_int_equal(sym.func_start, fn);
}

/* A pc left unnamed: "BASENAME+0xOFF", OFF its offset in the file. */
static void
assert_unnamed(struct symbols *s, const struct maps *mp, uint64_t pc,
    const char *base)
{
	const struct heap_mapping *m = maps_at(mp, pc);
	struct symbol sym;
	char want[256];

	symbols_lookup(s, pc, &sym);
	snprintf(want, sizeof(want), "%s+0x%llx", base,
	    (unsigned long long)(pc - m->start + m->offset));
	assert_false(sym.named);
	assert_string_equal(sym.name, want);
	assert_string_equal(sym.file, m->path);
	assert_int_equal(sym.file_offset, pc - m->start + m->offset);
	assert_int_equal(sym.func_start, 0);
}

static struct symbols *
open_maps(const struct maps *mp, const char *root)
{
	struct symbols *s = symbols_open(mp->m, mp->n, root);

	assert_non_null(s);
	return s;
}

/* The test's own PIE binary, with .symtab: both its functions named. */
static void
test_own_functions(void **state)
{
	struct maps *mp = maps_read(0, NULL);
	struct symbols *s = open_maps(mp, NULL);
	uint64_t g = (uint64_t)(uintptr_t)symbols_test_global;
	uint64_t st = (uint64_t)(uintptr_t)symbols_test_static;
	struct symbol sym;

	(void)state;
	/* A return address at a function's first byte returns from a call
	 * at the end of what precedes it: pc - 1 is looked up. */
	symbols_lookup(s, g, &sym);
	assert_string_not_equal(sym.name, "symbols_test_global");
	assert_int_not_equal(sym.func_start, g);
	assert_named(s, g, "symbols_test_global");
	assert_named(s, st, "symbols_test_static");
	symbols_lookup(s, g + 1, &sym);
	assert_non_null(strstr(sym.file, "test_symbols"));
	assert_int_equal(sym.file_offset,
	    g + 1 - maps_at(mp, g)->start + maps_at(mp, g)->offset);
	assert_int_equal(symbols_unreadable(s), 0);
	assert_int_equal(symbols_test_static(1), 10);
	symbols_free(s);
	maps_free(mp);
}

/* The library with .symtab: static, exported and C++ functions named. */
static void
test_library(void **state)
{
	void *h = load(symfix("libsymfix.so"));
	void *(*hidden)(void) = (void *(*)(void))fn_at(h, "symfix_hidden_addr");
	void *(*cxx)(void) = (void *(*)(void))fn_at(h, "symfix_cxx_addr");
	struct maps *mp = maps_read(0, NULL);
	struct symbols *s = open_maps(mp, NULL);

	(void)state;
	assert_named(s, fn_at(h, "symfix_exported"), "symfix_exported");
	assert_named(s, (uintptr_t)hidden(), "symfix_hidden");
	assert_named(s, (uintptr_t)cxx(),
	    "symfix::grow(unsigned long, char const*)");
	/* 64 bytes of no symbol after a one-byte function. */
	assert_unnamed(s, mp, fn_at(h, "symfix_gap_before") + 33,
	    "libsymfix.so");
	assert_named(s, fn_at(h, "symfix_gap_after"), "symfix_gap_after");
	/* A symbol of no size names nothing, not even its own first byte. */
	assert_unnamed(s, mp, fn_at(h, "symfix_sizeless") + 1, "libsymfix.so");
	assert_unnamed(s, mp, fn_at(h, "symfix_sizeless") + 33,
	    "libsymfix.so");
	assert_named(s, fn_at(h, "symfix_gap_end"), "symfix_gap_end");
	symbols_free(s);

	/* Its code in two mappings (as a part remapped or protected apart
	 * leaves it): one file at one bias, both parts named. */
	struct heap_mapping *m = (struct heap_mapping *)maps_at(mp,
	    fn_at(h, "symfix_exported"));
	uint64_t cut = fn_at(h, "symfix_exported") + 8;
	mp->m[mp->n] = *m;
	mp->m[mp->n].path = strdup(m->path);
	mp->m[mp->n].start = cut;
	mp->m[mp->n].offset += cut - m->start;
	m->end = cut;
	mp->n++;
	s = open_maps(mp, NULL);
	assert_named(s, fn_at(h, "symfix_exported"), "symfix_exported");
	assert_named(s, (uintptr_t)hidden(), "symfix_hidden");
	symbols_free(s);
	maps_free(mp);
	dlclose(h);
}

/*
 * A symbol of a version ("__libc_start_main@@GLIBC_2.34" in libc's .symtab
 * or debug file) is named without it: one function, one name.
 */
static void
test_version_dropped(void **state)
{
	uint64_t fn = (uint64_t)(uintptr_t)dlsym(RTLD_DEFAULT,
	    "__libc_start_main");
	struct maps *mp = maps_read(0, NULL);
	struct symbols *s = open_maps(mp, NULL);
	struct symbol sym;

	(void)state;
	assert_int_not_equal(fn, 0);
	symbols_lookup(s, fn + 1, &sym);
	if (!sym.named)
		skip();         /* a libc of no symbols: nothing to name */
	assert_string_equal(sym.name, "__libc_start_main");
	symbols_free(s);
	maps_free(mp);
}

/*
 * Stripped of .symtab: what .dynsym exports is named, the static function
 * after symfix_exported is not (nor given its neighbour's name).
 */
static void
test_stripped_library(void **state)
{
	void *h = load(symfix("libsymfix_stripped.so"));
	void *(*hidden)(void) = (void *(*)(void))fn_at(h, "symfix_hidden_addr");
	struct maps *mp = maps_read(0, NULL);
	struct symbols *s = open_maps(mp, NULL);

	(void)state;
	assert_named(s, fn_at(h, "symfix_exported"), "symfix_exported");
	assert_unnamed(s, mp, (uintptr_t)hidden() + 1,
	    "libsymfix_stripped.so");
	assert_int_equal(symbols_unreadable(s), 0);
	symbols_free(s);
	maps_free(mp);
	dlclose(h);
}

/*
 * Stripped, with its debug file by build id under a root: named from the
 * debug file when the root is given; without it the path is missing.
 */
static void
test_debug_file_under_root(void **state)
{
	char root[PATH_MAX];
	void *h, *(*hidden)(void);
	struct maps *mp;
	struct symbols *s;

	(void)state;
	assert_non_null(realpath(symfix("root"), root));
	h = load(symfix("root/lib/libsymfix_split.so"));
	hidden = (void *(*)(void))fn_at(h, "symfix_hidden_addr");
	mp = maps_read(0, root);
	s = open_maps(mp, root);
	assert_named(s, (uintptr_t)hidden(), "symfix_hidden");
	assert_int_equal(symbols_unreadable(s), 0);
	symbols_free(s);

	s = open_maps(mp, NULL);
	assert_unnamed(s, mp, (uintptr_t)hidden() + 1, "libsymfix_split.so");
	assert_unnamed(s, mp, fn_at(h, "symfix_exported") + 1,
	    "libsymfix_split.so");
	assert_int_equal(symbols_unreadable(s), 1);
	symbols_free(s);
	maps_free(mp);
	dlclose(h);
}

/*
 * Mappings no file stands behind (and a FIFO, which must not be waited
 * on), and a pc outside them all.
 */
static void
test_no_file(void **state)
{
	char fifo[] = "/tmp/test_symbols.fifo.XXXXXX";
	struct heap_mapping m[] = {
		{ 0x10000, 0x20000, 0x3000, "/nonexistent/libgone.so", 1 },
		{ 0x20000, 0x30000, 0, NULL, 1 },
		{ 0x40000, 0x41000, 0, "[vdso]", 1 },
		{ 0x50000, 0x51000, 0x13000, "/nonexistent/libgone.so", 1 },
		{ 0x60000, 0x61000, 0, fifo, 1 },
	};
	struct symbols *s;
	struct symbol sym;

	(void)state;
	assert_non_null(mkdtemp(fifo));
	assert_int_equal(rmdir(fifo), 0);
	assert_int_equal(mkfifo(fifo, 0600), 0);
	s = symbols_open(m, 5, NULL);
	unlink(fifo);
	assert_non_null(s);
	symbols_lookup(s, 0x10010, &sym);
	assert_string_equal(sym.name, "libgone.so+0x3010");
	assert_string_equal(sym.file, "/nonexistent/libgone.so");
	assert_int_equal(sym.file_offset, 0x3010);
	assert_false(sym.named);
	symbols_lookup(s, 0x20010, &sym);
	assert_string_equal(sym.name, "0x20010");
	assert_null(sym.file);
	symbols_lookup(s, 0x35000, &sym);
	assert_string_equal(sym.name, "0x35000");
	assert_null(sym.file);
	symbols_lookup(s, 0x40008, &sym);
	assert_string_equal(sym.name, "[vdso]+0x8");
	/* The missing file counts, once, and the FIFO; the anonymous and
	 * [vdso] do not. */
	assert_int_equal(symbols_unreadable(s), 2);
	/* Each named once, in the maps' order, for the note. */
	assert_string_equal(symbols_unreadable_file(s, 0),
	    "/nonexistent/libgone.so");
	assert_string_equal(symbols_unreadable_file(s, 1), fifo);
	assert_null(symbols_unreadable_file(s, 2));
	symbols_free(s);
}

/*
 * A file refused: mapped executable twice (as fuzz_symbols maps it: an
 * ELF read at two biases), nothing named, counted once.
 */
static void
assert_refused(const char *path, uint64_t off)
{
	struct heap_mapping m[] = {
		{ 0x400000, 0x402000, 0, (char *)path, 1 },
		{ 0x7f0000001000, 0x7f0000002000, 0x1000, (char *)path, 1 },
	};
	struct symbols *s = symbols_open(m, 2, NULL);
	struct symbol sym;

	assert_non_null(s);
	symbols_lookup(s, 0x400000 + off, &sym);
	assert_false(sym.named);
	assert_int_equal(sym.file_offset, off);
	assert_int_equal(symbols_unreadable(s), 1);
	symbols_free(s);
}

/*
 * libsymfix.so cut short at several lengths (a binary half copied, or
 * replaced while mapped), and fuzz_symbols' file whose section headers
 * lie past its end: never read past the end, nothing named, counted.
 * libelf reads that one out of bounds without a fault but under
 * AddressSanitizer (make SANITIZE=1), which this test needs to fail.
 */
static void
test_cut_short(void **state)
{
	static const size_t cuts[] = { 0, 63, 405, 4096, 8192, 12000 };
	char path[] = "/tmp/test_symbols.XXXXXX";
	static char buf[65536];
	FILE *f = fopen(symfix("libsymfix.so"), "rb");
	size_t len;
	int fd;

	(void)state;
	assert_non_null(f);
	len = fread(buf, 1, sizeof(buf), f);
	fclose(f);
	assert_true(len > 12000 && len < sizeof(buf));
	assert_true((fd = mkstemp(path)) >= 0);
	for (size_t i = 0; i < sizeof(cuts) / sizeof(cuts[0]); i++) {
		assert_int_equal(ftruncate(fd, 0), 0);
		assert_int_equal(pwrite(fd, buf, cuts[i], 0), (ssize_t)cuts[i]);
		assert_refused(path, 0x1110);
	}
	/* Whole, but a program header's data past the end. */
	Elf64_Ehdr *eh = (Elf64_Ehdr *)buf;
	Elf64_Phdr *ph = (Elf64_Phdr *)(buf + eh->e_phoff);
	ph[eh->e_phnum - 1].p_offset = len;
	ph[eh->e_phnum - 1].p_filesz = 64;
	assert_int_equal(pwrite(fd, buf, len, 0), (ssize_t)len);
	assert_refused(path, 0x1110);
	close(fd);
	unlink(path);
	assert_refused(symfix("shoff_past_end.elf"), 0x10);
}

/* A running symfix program: its maps, and where its two functions are. */
static struct maps *
run_prog(const char *name, pid_t *pid, int *in, uint64_t *g, uint64_t *st)
{
	int to[2], from[2];
	char line[128];
	unsigned long long a, b;
	FILE *f;

	assert_int_equal(pipe(to), 0);
	assert_int_equal(pipe(from), 0);
	if ((*pid = fork()) == 0) {
		dup2(to[0], 0);
		dup2(from[1], 1);
		close(to[1]);
		close(from[0]);
		execl(symfix(name), name, (char *)NULL);
		_exit(127);
	}
	close(to[0]);
	close(from[1]);
	*in = to[1];
	assert_non_null(f = fdopen(from[0], "r"));
	assert_non_null(fgets(line, sizeof(line), f));
	fclose(f);
	assert_int_equal(sscanf(line, "%llx %llx", &a, &b), 2);
	*g = a, *st = b;
	return maps_read(*pid, NULL);
}

static void
end_prog(pid_t pid, int in)
{
	int status;

	close(in);
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 0);
}

/* Another process's PIE executable, from its maps: with .symtab named. */
static void
test_program(void **state)
{
	uint64_t g, st;
	pid_t pid;
	int in;
	struct maps *mp = run_prog("prog", &pid, &in, &g, &st);
	struct symbols *s = open_maps(mp, NULL);

	(void)state;
	end_prog(pid, in);
	assert_named(s, g, "symfix_prog_global");
	assert_named(s, st, "symfix_prog_static");
	assert_int_equal(symbols_unreadable(s), 0);
	symbols_free(s);
	maps_free(mp);
}

/*
 * Not PIE (ET_EXEC): named where it runs; mapped anywhere else, as a dump
 * of another binary by the same path would say, it is refused.
 */
static void
test_program_not_pie(void **state)
{
	uint64_t g, st;
	pid_t pid;
	int in;
	struct maps *mp = run_prog("prog_nopie", &pid, &in, &g, &st);
	struct symbols *s = open_maps(mp, NULL);
	struct heap_mapping moved = *maps_at(mp, g);

	(void)state;
	end_prog(pid, in);
	assert_named(s, g, "symfix_prog_global");
	assert_named(s, st, "symfix_prog_static");
	symbols_free(s);
	moved.start += 0x10000000;
	moved.end += 0x10000000;
	s = symbols_open(&moved, 1, NULL);
	assert_non_null(s);
	assert_unnamed(s, &(struct maps){ .m = { moved }, .n = 1 },
	    g + 0x10000001, "prog_nopie");
	assert_int_equal(symbols_unreadable(s), 1);
	symbols_free(s);
	maps_free(mp);
}

/* Stripped: a PIE executable exports nothing; counted as unreadable. */
static void
test_stripped_program(void **state)
{
	uint64_t g, st;
	pid_t pid;
	int in;
	struct maps *mp = run_prog("prog_stripped", &pid, &in, &g, &st);
	struct symbols *s = open_maps(mp, NULL);

	(void)state;
	end_prog(pid, in);
	assert_unnamed(s, mp, g + 1, "prog_stripped");
	assert_unnamed(s, mp, st + 1, "prog_stripped");
	assert_int_equal(symbols_unreadable(s), 1);
	symbols_free(s);
	maps_free(mp);
}

/*
 * Many pcs, then the same again: the cache, grown many times over, gives
 * back what each pc was first named.
 */
static void
test_cache(void **state)
{
	struct maps *mp = maps_read(0, NULL);
	struct symbols *s = open_maps(mp, NULL);
	uint64_t base = (uint64_t)(uintptr_t)printf;
	enum { N = 20000 };
	const char **first = calloc(N, sizeof(*first));
	struct symbol sym;

	(void)state;
	assert_non_null(first);
	for (size_t i = 0; i < N; i++) {
		symbols_lookup(s, base + i * 7, &sym);
		first[i] = sym.name;
	}
	for (size_t i = N; i-- > 0;) {
		symbols_lookup(s, base + i * 7, &sym);
		assert_ptr_equal(sym.name, first[i]);
	}
	symbols_lookup(s, base + 1, &sym);
	assert_true(sym.named);
	free(first);
	symbols_free(s);
	maps_free(mp);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_own_functions),
		cmocka_unit_test(test_library),
		cmocka_unit_test(test_stripped_library),
		cmocka_unit_test(test_version_dropped),
		cmocka_unit_test(test_debug_file_under_root),
		cmocka_unit_test(test_no_file),
		cmocka_unit_test(test_cut_short),
		cmocka_unit_test(test_program),
		cmocka_unit_test(test_program_not_pie),
		cmocka_unit_test(test_stripped_program),
		cmocka_unit_test(test_cache),
	};

	/* A child that ends early must not kill the test with SIGPIPE. */
	signal(SIGPIPE, SIG_IGN);
	return cmocka_run_group_tests(tests, NULL, NULL);
}
