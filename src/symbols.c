/*
 * Names for a process's return addresses (symbols.h). Each executable
 * mapping of a file is reported to libdwfl at the load bias its mapping
 * implies, so that a PIE executable and a shared library are read alike;
 * libdwfl picks .symtab, the debug file found by build id, or .dynsym.
 * Results are cached by pc: a dump repeats its pcs thousands of times.
 */
#include <sys/stat.h>

#include <elf.h>
#include <elfutils/libdwfl.h>
#include <endian.h>
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "strhash.h"
#include "symbols.h"

/*
 * libstdc++'s demangler, declared here since <cxxabi.h> is C++. Chosen over
 * libiberty's cplus_demangle (a static library with no stable interface)
 * and elfutils (which exports no demangler: its tools call this one): every
 * host that runs a C++ server has libstdc++, and it reads the names the
 * same compiler wrote.
 */
char *__cxa_demangle(const char *mangled, char *buf, size_t *len,
    int *status);

/* The largest page size a kernel maps a segment at. */
#define MAX_PAGE ((uint64_t)64 << 10)

/* One file mapped executable, at one load bias. */
struct module {
	const char *path;       /* the mapping's, as given */
	uint64_t bias;
	Dwfl_Module *mod;       /* NULL: not readable */
	int has_symbols;        /* a defined function in some table */
};

/* One cached answer. */
struct cached {
	uint64_t pc;
	struct symbol sym;
	int used;
};

struct symbols {
	struct heap_mapping *maps;      /* sorted by start; paths owned */
	size_t nmaps;
	struct module **mapmod;         /* per mapping: its module, or NULL */
	struct module *mods;
	size_t nmods;
	Dwfl *dwfl;
	Dwfl_Callbacks cb;
	char *debug_path;               /* ROOT/usr/lib/debug, for libdwfl */
	char *root;
	char **names;                   /* interned strings, open addressing */
	size_t names_cap, names_n;
	struct cached *cache;
	size_t cache_cap, cache_n;
	int unreadable;
};

/*
 * Only the build-id lookup: libdwfl's standard callback would also ask
 * the debuginfod servers of DEBUGINFOD_URLS (set system-wide by Debian's
 * libdebuginfod-common), and a profiler must not wait on the network.
 */
static int
find_debuginfo(Dwfl_Module *mod, void **userdata, const char *modname,
    Dwarf_Addr base, const char *file_name, const char *debuglink,
    GElf_Word crc, char **debug_name)
{
	return dwfl_build_id_find_debuginfo(mod, userdata, modname, base,
	    file_name, debuglink, crc, debug_name);
}

/* Every module's ELF is given to libdwfl when reported: none is looked up. */
static int
find_elf(Dwfl_Module *mod, void **userdata, const char *modname,
    Dwarf_Addr base, char **file_name, Elf **elfp)
{
	(void)mod, (void)userdata, (void)modname, (void)base;
	*file_name = NULL;
	*elfp = NULL;
	return -1;
}

/* The string s, kept once for the symbols' life; NULL when out of memory. */
static const char *
intern(struct symbols *s, const char *str)
{
	size_t len = strlen(str), i;

	if (s->names_n * 2 >= s->names_cap) {
		size_t cap = s->names_cap ? s->names_cap * 2 : 1024;
		char **n = calloc(cap, sizeof(*n));

		if (n == NULL)
			return NULL;
		for (size_t j = 0; j < s->names_cap; j++) {
			if (s->names[j] == NULL)
				continue;
			i = strhash(s->names[j], strlen(s->names[j])) & (cap - 1);
			while (n[i] != NULL)
				i = (i + 1) & (cap - 1);
			n[i] = s->names[j];
		}
		free(s->names);
		s->names = n;
		s->names_cap = cap;
	}
	i = strhash(str, len) & (s->names_cap - 1);
	while (s->names[i] != NULL) {
		if (strcmp(s->names[i], str) == 0)
			return s->names[i];
		i = (i + 1) & (s->names_cap - 1);
	}
	if ((s->names[i] = strdup(str)) == NULL)
		return NULL;
	s->names_n++;
	return s->names[i];
}

static int
mapping_cmp(const void *a, const void *b)
{
	const struct heap_mapping *x = a, *y = b;

	return x->start < y->start ? -1 : x->start > y->start;
}

/* The mapping holding pc, or NULL. */
static const struct heap_mapping *
mapping_find(const struct symbols *s, uint64_t pc, size_t *idx)
{
	size_t lo = 0, hi = s->nmaps;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (pc < s->maps[mid].start)
			hi = mid;
		else if (pc >= s->maps[mid].end)
			lo = mid + 1;
		else {
			*idx = mid;
			return &s->maps[mid];
		}
	}
	return NULL;
}

/*
 * The load bias of the file elf mapped by m: m's start less the virtual
 * address its file offset has in the PT_LOAD that holds it, which must be
 * executable, and 0 for an ET_EXEC (else the file on disk is not the one
 * that was mapped). 0, or -1.
 */
static int
load_bias(Elf *elf, const struct heap_mapping *m, uint64_t *bias)
{
	GElf_Ehdr eh;
	size_t phnum;

	if (elf_kind(elf) != ELF_K_ELF || gelf_getehdr(elf, &eh) == NULL ||
	    (eh.e_type != ET_DYN && eh.e_type != ET_EXEC) ||
	    elf_getphdrnum(elf, &phnum) != 0)
		return -1;
	for (size_t i = 0; i < phnum; i++) {
		GElf_Phdr ph;

		if (gelf_getphdr(elf, (int)i, &ph) == NULL)
			return -1;
		if (ph.p_type != PT_LOAD || !(ph.p_flags & PF_X))
			continue;
		/* The kernel maps a segment from its offset rounded down
		 * to a page: 4 KiB, up to 64 KiB on some arm64 kernels. */
		if (m->offset + MAX_PAGE <= ph.p_offset ||
		    m->offset >= ph.p_offset + ph.p_filesz)
			continue;
		*bias = m->start - (ph.p_vaddr + (m->offset - ph.p_offset));
		return eh.e_type == ET_EXEC && *bias != 0 ? -1 : 0;
	}
	return -1;
}

/* Whether off + n * size lies within len bytes, without overflow. */
static int
fits(uint64_t off, uint64_t n, uint64_t size, uint64_t len)
{
	return off <= len && (size == 0 || n <= (len - off) / size);
}

/* Whether one section header of a file of len bytes and shnum sections
 * points inside the file, and a symbol table at a string table. */
static int
section_sane(const Elf64_Shdr *sh, const Elf64_Shdr *all, size_t shnum,
    uint64_t len)
{
	if (sh->sh_type != SHT_NOBITS && !fits(sh->sh_offset, 1, sh->sh_size,
	    len))
		return 0;
	if (sh->sh_link >= shnum)
		return 0;
	if (sh->sh_type == SHT_SYMTAB || sh->sh_type == SHT_DYNSYM)
		return sh->sh_entsize == sizeof(Elf64_Sym) &&
		    all[sh->sh_link].sh_type == SHT_STRTAB;
	if (sh->sh_flags & SHF_COMPRESSED)
		return sh->sh_size >= sizeof(Elf64_Chdr);
	return 1;
}

/* Whether every program header of eh points inside the file. */
static int
phdrs_sane(int fd, const Elf64_Ehdr *eh, uint64_t len)
{
	Elf64_Phdr ph;

	for (size_t i = 0; i < eh->e_phnum; i++)
		if (pread(fd, &ph, sizeof(ph), (off_t)(eh->e_phoff +
		    i * sizeof(ph))) != (ssize_t)sizeof(ph) ||
		    !fits(ph.p_offset, 1, ph.p_filesz, len))
			return 0;
	return 1;
}

/* Whether every section header of eh is sane (section_sane). */
static int
shdrs_sane(int fd, const Elf64_Ehdr *eh, uint64_t len)
{
	size_t n = eh->e_shnum;
	Elf64_Shdr *sh;
	int ok = 1;

	if (n == 0)             /* none, or more than 65,279: refused */
		return eh->e_shoff == 0;
	if (eh->e_shentsize != sizeof(Elf64_Shdr) || eh->e_shstrndx >= n ||
	    !fits(eh->e_shoff, n, sizeof(Elf64_Shdr), len))
		return 0;
	if ((sh = calloc(n, sizeof(*sh))) == NULL)
		return 0;
	if (pread(fd, sh, n * sizeof(*sh), (off_t)eh->e_shoff) !=
	    (ssize_t)(n * sizeof(*sh)))
		ok = 0;
	for (size_t i = 0; ok && i < n; i++)
		ok = section_sane(&sh[i], sh, n, len);
	free(sh);
	return ok;
}

/*
 * Whether fd holds a whole 64-bit ELF file of this machine's byte order
 * whose headers and sections lie inside it. libelf 0.188 reads a file cut
 * short (a binary being replaced, a partial copy) out of bounds, so what
 * it is handed is checked first; a file refused keeps its offsets.
 */
static int
elf_sane(int fd)
{
	Elf64_Ehdr eh;
	struct stat st;
	uint64_t len;

	if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) ||
	    pread(fd, &eh, sizeof(eh), 0) != (ssize_t)sizeof(eh))
		return 0;
	len = (uint64_t)st.st_size;
	if (memcmp(eh.e_ident, ELFMAG, SELFMAG) != 0 ||
	    eh.e_ident[EI_CLASS] != ELFCLASS64 ||
	    eh.e_ident[EI_DATA] != (BYTE_ORDER == LITTLE_ENDIAN ?
	    ELFDATA2LSB : ELFDATA2MSB) ||
	    eh.e_phentsize != sizeof(Elf64_Phdr) || eh.e_phnum == PN_XNUM ||
	    !fits(eh.e_phoff, eh.e_phnum, sizeof(Elf64_Phdr), len))
		return 0;
	return phdrs_sane(fd, &eh, len) && shdrs_sane(fd, &eh, len);
}

/* fd's bias for mapping m, read with libelf (fd stays open). */
static int
file_bias(int fd, const struct heap_mapping *m, uint64_t *bias)
{
	Elf *elf = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	int rc;

	if (elf == NULL)
		return -1;
	rc = load_bias(elf, m, bias);
	elf_end(elf);
	return rc;
}

/* Whether mod's tables hold at least one defined function. */
static int
module_has_functions(Dwfl_Module *mod)
{
	int n = dwfl_module_getsymtab(mod);

	for (int i = 1; i < n; i++) {
		GElf_Sym sym;
		GElf_Addr addr;
		GElf_Word shndx;

		if (dwfl_module_getsym_info(mod, i, &sym, &addr, &shndx, NULL,
		    NULL) == NULL)
			continue;
		if ((GELF_ST_TYPE(sym.st_info) == STT_FUNC ||
		    GELF_ST_TYPE(sym.st_info) == STT_GNU_IFUNC) &&
		    shndx != SHN_UNDEF)
			return 1;
	}
	return 0;
}

/* The module of m's file at m's bias, reported if new; NULL when the
 * file cannot be read as the ELF that was mapped. */
static struct module *
report(struct symbols *s, const struct heap_mapping *m)
{
	char path[8192];
	uint64_t bias;
	int fd;

	if (snprintf(path, sizeof(path), "%s%s", s->root ? s->root : "",
	    m->path) >= (int)sizeof(path))
		return NULL;
	/* O_NONBLOCK: a FIFO by that name now must not hold us up. */
	if ((fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK)) < 0)
		return NULL;
	if (!elf_sane(fd) || file_bias(fd, m, &bias) != 0) {
		close(fd);
		return NULL;
	}
	/* Reported again, libdwfl would drop the module it has (DWFL_E_OVERLAP
	 * marks it for collection): one module per file and bias. */
	for (size_t i = 0; i < s->nmods; i++)
		if (s->mods[i].bias == bias &&
		    strcmp(s->mods[i].path, m->path) == 0) {
			close(fd);
			return &s->mods[i];
		}
	/* On success libdwfl owns fd. ET_DYN at bias; ET_EXEC at its own. */
	Dwfl_Module *mod = dwfl_report_elf(s->dwfl, m->path, path, fd, bias,
	    true);
	if (mod == NULL) {
		close(fd);
		return NULL;
	}
	struct module *md = &s->mods[s->nmods++];
	md->path = m->path;
	md->bias = bias;
	md->mod = mod;
	return md;
}

/* Whether path names a file (not [vdso], [heap], nor anonymous). */
static int
is_file(const char *path)
{
	return path != NULL && path[0] == '/';
}

/*
 * Whether mapping i is of a file with no function to name, and the first
 * mapping of that file (one count a file, however many mappings it has).
 */
static int
first_unreadable(const struct symbols *s, size_t i)
{
	const struct heap_mapping *m = &s->maps[i];

	if (!m->executable || !is_file(m->path) ||
	    (s->mapmod[i] != NULL && s->mapmod[i]->has_symbols))
		return 0;
	for (size_t j = 0; j < i; j++)
		if (s->maps[j].executable && s->maps[j].path &&
		    strcmp(s->maps[j].path, m->path) == 0)
			return 0;
	return 1;
}

/*
 * Reports every executable mapping's file, then counts the files with no
 * function to name: unreadable, or stripped of every table.
 */
static int
report_all(struct symbols *s)
{
	if ((s->mods = calloc(s->nmaps ? s->nmaps : 1, sizeof(*s->mods))) ==
	    NULL || (s->mapmod = calloc(s->nmaps ? s->nmaps : 1,
	    sizeof(*s->mapmod))) == NULL)
		return -1;
	dwfl_report_begin(s->dwfl);
	for (size_t i = 0; i < s->nmaps; i++)
		if (s->maps[i].executable && is_file(s->maps[i].path))
			s->mapmod[i] = report(s, &s->maps[i]);
	dwfl_report_end(s->dwfl, NULL, NULL);
	for (size_t i = 0; i < s->nmods; i++)
		s->mods[i].has_symbols = module_has_functions(s->mods[i].mod);
	for (size_t i = 0; i < s->nmaps; i++)
		s->unreadable += first_unreadable(s, i);
	return 0;
}


static int
copy_maps(struct symbols *s, const struct heap_mapping *maps, size_t n)
{
	if ((s->maps = calloc(n ? n : 1, sizeof(*s->maps))) == NULL)
		return -1;
	for (size_t i = 0; i < n; i++) {
		s->maps[i] = maps[i];
		s->maps[i].path = NULL;
		if (maps[i].path && (s->maps[i].path = strdup(maps[i].path)) ==
		    NULL)
			return -1;
		s->nmaps++;
	}
	qsort(s->maps, s->nmaps, sizeof(*s->maps), mapping_cmp);
	return 0;
}

struct symbols *
symbols_open(const struct heap_mapping *maps, size_t n, const char *root)
{
	struct symbols *s = calloc(1, sizeof(*s));

	if (s == NULL)
		return NULL;
	if (root != NULL && root[0] != '\0' &&
	    (s->root = strdup(root)) == NULL)
		goto fail;
	if (asprintf(&s->debug_path, "%s/usr/lib/debug",
	    s->root ? s->root : "") < 0) {
		s->debug_path = NULL;
		goto fail;
	}
	if (copy_maps(s, maps, n) != 0)
		goto fail;
	elf_version(EV_CURRENT);
	s->cb.find_elf = find_elf;
	s->cb.find_debuginfo = find_debuginfo;
	s->cb.debuginfo_path = &s->debug_path;
	if ((s->dwfl = dwfl_begin(&s->cb)) == NULL) {
		errno = ENOMEM;
		goto fail;
	}
	if (report_all(s) != 0)
		goto fail;
	return s;
fail:
	symbols_free(s);
	errno = ENOMEM;
	return NULL;
}

static const char *
basename_of(const char *path)
{
	const char *slash = strrchr(path, '/');

	return slash ? slash + 1 : path;
}

/*
 * name without its symbol version ("__libc_start_main@@GLIBC_2.34"): the
 * same function is one name, whichever table named it. Interned.
 */
static const char *
unversioned(struct symbols *s, const char *name)
{
	const char *at = strchr(name, '@');
	const char *kept;
	char *plain;

	if (at == NULL || at == name)
		return intern(s, name);
	if ((plain = strndup(name, (size_t)(at - name))) == NULL)
		return NULL;
	kept = intern(s, plain);
	free(plain);
	return kept;
}

/* The demangled name of a C++ symbol, else name itself, interned. */
static const char *
function_name(struct symbols *s, const char *name)
{
	const char *kept;
	char *plain;
	int status;

	if (strncmp(name, "_Z", 2) != 0)
		return unversioned(s, name);
	if ((plain = __cxa_demangle(name, NULL, NULL, &status)) == NULL ||
	    status != 0) {
		free(plain);
		return unversioned(s, name);
	}
	kept = intern(s, plain);
	free(plain);
	return kept;
}

/*
 * The symbol holding pc - 1 (a return address follows its call), taken
 * only when it lies inside the symbol's size: libdwfl falls back to the
 * nearest symbol below, which in a binary with only .dynsym is an
 * exported function far from a static one.
 */
static int
name_in_module(struct symbols *s, Dwfl_Module *mod, uint64_t pc,
    struct symbol *out)
{
	GElf_Off off;
	GElf_Sym sym;
	const char *name;

	if (pc == 0)
		return 0;
	name = dwfl_module_addrinfo(mod, pc - 1, &off, &sym, NULL, NULL,
	    NULL);
	if (name == NULL || name[0] == '\0' || sym.st_size == 0 ||
	    off >= sym.st_size)
		return 0;
	if ((out->name = function_name(s, name)) == NULL)
		return 0;
	out->func_start = pc - 1 - off;
	out->named = true;
	return 1;
}

static void
resolve(struct symbols *s, uint64_t pc, struct symbol *out)
{
	const struct heap_mapping *m;
	char buf[8192];
	size_t i;

	memset(out, 0, sizeof(*out));
	if ((m = mapping_find(s, pc, &i)) == NULL || m->path == NULL) {
		snprintf(buf, sizeof(buf), "0x%" PRIx64, pc);
		out->name = intern(s, buf);
		return;
	}
	out->file = m->path;
	out->file_offset = pc - m->start + m->offset;
	if (s->mapmod[i] != NULL && s->mapmod[i]->has_symbols &&
	    name_in_module(s, s->mapmod[i]->mod, pc, out))
		return;
	snprintf(buf, sizeof(buf), "%s+0x%" PRIx64, basename_of(m->path),
	    out->file_offset);
	out->name = intern(s, buf);
}

/* The cache's slot for pc: its entry, or the empty slot to fill. */
static struct cached *
cache_slot(struct symbols *s, uint64_t pc)
{
	size_t i = (size_t)((pc * 0x9e3779b97f4a7c15ULL) >> 20) &
	    (s->cache_cap - 1);

	while (s->cache[i].used && s->cache[i].pc != pc)
		i = (i + 1) & (s->cache_cap - 1);
	return &s->cache[i];
}

static int
cache_grow(struct symbols *s)
{
	size_t cap = s->cache_cap ? s->cache_cap * 2 : 4096;
	struct cached *old = s->cache;
	size_t oldcap = s->cache_cap;

	if ((s->cache = calloc(cap, sizeof(*s->cache))) == NULL) {
		s->cache = old;
		return -1;
	}
	s->cache_cap = cap;
	for (size_t i = 0; i < oldcap; i++)
		if (old[i].used)
			*cache_slot(s, old[i].pc) = old[i];
	free(old);
	return 0;
}

void
symbols_lookup(struct symbols *s, uint64_t pc, struct symbol *out)
{
	struct cached *c;

	if (s->cache_n * 2 >= s->cache_cap && cache_grow(s) != 0) {
		resolve(s, pc, out);    /* answered, just not kept */
	} else if ((c = cache_slot(s, pc))->used) {
		*out = c->sym;
		return;
	} else {
		resolve(s, pc, out);
		if (out->name != NULL) {
			c->pc = pc;
			c->sym = *out;
			c->used = 1;
			s->cache_n++;
		}
	}
	if (out->name == NULL)
		out->name = "?";        /* out of memory for the name */
}

int
symbols_unreadable(const struct symbols *s)
{
	return s->unreadable;
}

const char *
symbols_unreadable_file(const struct symbols *s, int n)
{
	for (size_t i = 0; i < s->nmaps; i++)
		if (first_unreadable(s, i) && n-- == 0)
			return s->maps[i].path;
	return NULL;
}

void
symbols_free(struct symbols *s)
{
	if (s == NULL)
		return;
	if (s->dwfl != NULL)
		dwfl_end(s->dwfl);
	for (size_t i = 0; i < s->nmaps; i++)
		free(s->maps[i].path);
	for (size_t i = 0; i < s->names_cap; i++)
		free(s->names[i]);
	free(s->names);
	free(s->cache);
	free(s->maps);
	free(s->mapmod);
	free(s->mods);
	free(s->debug_path);
	free(s->root);
	free(s);
}
