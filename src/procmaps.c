/*
 * The text of /proc/PID/maps, smaps and status, parsed into layers (see
 * procmaps.h). The regions are walked a line at a time: a region's header
 * ("start-end perms offset dev inode path"), then, in smaps, its fields
 * ("Rss:   468 kB"), which the walk adds to the region before the next
 * header closes it.
 */
#include <ctype.h>
#include <stdio.h>
#include <string.h>

#include "procmaps.h"
#include "procmem.h"

/* A number in base 16 (lower case) or 10 at *p, that fits, then stop. */
static bool
number(const char **p, const char *end, int base, char stop, uint64_t *v)
{
	const char *q = *p;
	uint64_t n = 0;
	int digits = 0;

	for (; q < end && *q != stop; q++, digits++) {
		int d;

		if (isdigit((unsigned char)*q))
			d = *q - '0';
		else if (base == 16 && *q >= 'a' && *q <= 'f')
			d = *q - 'a' + 10;
		else
			return false;
		if (n > (UINT64_MAX - (uint64_t)d) / (uint64_t)base)
			return false;
		n = n * (uint64_t)base + (uint64_t)d;
	}
	if (digits == 0 || q == end)
		return false;
	*p = q + 1;
	*v = n;
	return true;
}

/*
 * A region's header into *vma, its path (not NUL-ended, may be empty) into
 * *path and *plen. False when the line is not a header, as smaps' fields.
 */
static bool
header(const char *line, const char *end, struct procmaps_vma *vma,
    const char **path, size_t *plen)
{
	const char *p = line;
	uint64_t start, stop, skip;

	if (!number(&p, end, 16, '-', &start) ||
	    !number(&p, end, 16, ' ', &stop) || stop <= start ||
	    end - p < 5 || p[4] != ' ')
		return false;
	if ((p[0] != 'r' && p[0] != '-') || (p[1] != 'w' && p[1] != '-') ||
	    (p[2] != 'x' && p[2] != '-') || (p[3] != 'p' && p[3] != 's'))
		return false;
	*vma = (struct procmaps_vma){
		.start = start, .end = stop, .rss = 0,
		.rw = memcmp(p, "rw-p", 4) == 0,
		.none = memcmp(p, "---p", 4) == 0,
	};
	p += 5;
	/* offset, major:minor, inode */
	if (!number(&p, end, 16, ' ', &skip) ||
	    !number(&p, end, 16, ':', &skip) ||
	    !number(&p, end, 16, ' ', &skip))
		return false;
	if (p == end || !isdigit((unsigned char)*p))
		return false;
	while (p < end && isdigit((unsigned char)*p))
		p++;
	while (p < end && *p == ' ')
		p++;
	*path = p;
	*plen = (size_t)(end - p);
	/*
	 * glibc 2.41's tunable glibc.mem.decorate_maps names its regions
	 * ("[anon: glibc: malloc arena]"); they are anonymous all the same.
	 */
	vma->anon = *plen == 0 || (*plen >= 6 && memcmp(p, "[anon:", 6) == 0);
	return true;
}

/* Whether the last part of path (plen bytes) starts with the name. */
static bool
base_is(const char *path, size_t plen, const char *name)
{
	const char *base = path + plen;
	size_t nlen = strlen(name);

	while (base > path && base[-1] != '/')
		base--;
	return (size_t)(path + plen - base) >= nlen &&
	    memcmp(base, name, nlen) == 0;
}

/*
 * The malloc libraries a mapped file is: jemalloc, tcmalloc (any of its
 * builds: minimal, debug, and_profiler), and the C library, which every
 * dynamically linked process maps.
 */
static void
library(struct procmaps_scan *s, const char *path, size_t plen)
{
	char *into = NULL;

	if (plen == 0 || path[0] != '/')
		return;
	if (base_is(path, plen, "libjemalloc.so") ||
	    base_is(path, plen, "libjemalloc_")) {
		into = s->jemalloc;
	} else if (base_is(path, plen, "libtcmalloc")) {
		into = s->tcmalloc;
	} else if (s->libc[0] == '\0' && (base_is(path, plen, "libc.so.") ||
	    base_is(path, plen, "libc-2."))) {
		into = s->libc;
	}
	/*
	 * The first region of each file; of two builds of one allocator
	 * (tcmalloc_minimal preloaded over the tcmalloc MySQL links), the
	 * later in maps, at the higher address: the one loaded first.
	 */
	if (into != NULL && (strlen(into) != plen ||
	    memcmp(into, path, plen) != 0)) {
		snprintf(into, 256, "%.*s", (int)plen, path);
		if (into == s->jemalloc)
			s->jemalloc_at = s->cur.start;
		else if (into == s->tcmalloc)
			s->tcmalloc_at = s->cur.start;
	}
}

/*
 * Which allocator serves malloc. A replacement, preloaded or linked, takes
 * it over from the C library: glibc is only what is left when none is
 * mapped (one linked in statically maps nothing of its own and is not
 * seen). With both mapped (Debian's MySQL links tcmalloc; jemalloc
 * preloaded over it) the first loaded wins, and the loader maps
 * LD_PRELOAD's before the needed ones, top-down: at the higher address.
 */
static enum allocator
allocator_of(const struct procmaps_scan *s, const char **lib)
{
	bool je = s->jemalloc[0] != '\0', tc = s->tcmalloc[0] != '\0';

	if (je && (!tc || s->jemalloc_at > s->tcmalloc_at)) {
		*lib = s->jemalloc;
		return ALLOC_JEMALLOC;
	}
	if (tc) {
		*lib = s->tcmalloc;
		return ALLOC_TCMALLOC;
	}
	*lib = s->libc;
	return s->libc[0] != '\0' ? ALLOC_GLIBC : ALLOC_UNKNOWN;
}

/* *sum += v, or the walk marked bad where that would overflow. */
static void
add(struct procmaps_scan *s, int64_t *sum, int64_t v)
{
	if (v > INT64_MAX - *sum)
		s->bad = true;
	else
		*sum += v;
}

/*
 * Whether prev, then cur (closed: its fields read), are one heap of a
 * non-main glibc arena: prev read-write from a 64 MiB boundary, cur the
 * reserved rest, right after it and up to the next boundary at least (a
 * thread's guard page after it may have been merged in). A heap grown to
 * the whole 64 MiB is one rw-p region of exactly that, counted alone;
 * larger rw-p regions are not taken (a buffer pool mmapped at a boundary
 * would count as heaps), nor full heaps the kernel merged with the next.
 */
static void
close_region(struct procmaps_scan *s)
{
	const struct procmaps_vma *p = &s->prev, *c = &s->cur;

	if (s->regions >= 2 && p->rw && p->anon &&
	    p->start % PROCMAPS_HEAP_MAX == 0 &&
	    p->end - p->start < PROCMAPS_HEAP_MAX &&
	    c->none && c->anon && c->start == p->end &&
	    c->end >= p->start + PROCMAPS_HEAP_MAX) {
		s->heaps++;
		add(s, &s->heap_rss, p->rss);
	}
	if (s->regions >= 1 && c->rw && c->anon &&
	    c->start % PROCMAPS_HEAP_MAX == 0 &&
	    c->end - c->start == PROCMAPS_HEAP_MAX) {
		s->heaps++;
		add(s, &s->heap_rss, c->rss);
	}
	s->prev = s->cur;
}

void
procmaps_scan_begin(struct procmaps_scan *s)
{
	memset(s, 0, sizeof(*s));
}

/* "Key:   N kB" at line (len bytes), in bytes, into *v. */
static bool
field_kb(const char *line, size_t len, size_t klen, int64_t *v)
{
	const char *p = line + klen, *end = line + len;
	uint64_t kb;

	while (p < end && *p == ' ')
		p++;
	if (!number(&p, end, 10, ' ', &kb) || end - p < 2 ||
	    memcmp(p, "kB", 2) != 0 || kb > (uint64_t)INT64_MAX / 1024)
		return false;
	*v = (int64_t)kb * 1024;
	return true;
}

void
procmaps_scan_line(struct procmaps_scan *s, const char *line, size_t len)
{
	const char *end, *path;
	struct procmaps_vma vma;
	size_t plen;
	int64_t v;

	if (len > 0 && line[len - 1] == '\n')
		len--;
	end = line + len;
	if (header(line, end, &vma, &path, &plen)) {
		if (s->regions > 0)
			close_region(s);
		s->cur = vma;
		s->regions++;
		library(s, path, plen);
		s->cur_brk = plen == 6 && memcmp(path, "[heap]", 6) == 0;
		return;
	}
	if (s->regions == 0)
		return;
	if (len >= 4 && memcmp(line, "Rss:", 4) == 0) {
		if (!field_kb(line, len, 4, &v)) {
			s->bad = true;
			return;
		}
		s->has_rss = true;
		add(s, &s->cur.rss, v);
		if (s->cur_brk)
			add(s, &s->brk_rss, v);
	} else if (len >= 14 && memcmp(line, "AnonHugePages:", 14) == 0) {
		if (!field_kb(line, len, 14, &v))
			s->bad = true;
		else
			add(s, &s->anon_huge, v);
	}
}

int
procmaps_scan_end(struct procmaps_scan *s, struct process_layers *out)
{
	const char *lib;

	if (s->regions == 0 || s->bad)
		return -1;
	close_region(s);
	out->allocator = allocator_of(s, &lib);
	snprintf(out->allocator_lib, sizeof(out->allocator_lib), "%s", lib);
	out->arenas = out->allocator == ALLOC_GLIBC ? s->heaps + 1 : 0;
	if (s->has_rss) {
		out->arena_resident = out->allocator == ALLOC_GLIBC ?
		    s->heap_rss : 0;
		out->brk_heap_resident = s->brk_rss;
		out->anon_huge = s->anon_huge;
	} else {
		out->arena_resident = -1;
		out->brk_heap_resident = -1;
		out->anon_huge = -1;
	}
	return 0;
}

/*
 * The whole text, a line at a time; smaps' (need_rss) must hold the Rss
 * lines maps' has not.
 */
static int
parse(const char *text, bool need_rss, struct process_layers *out)
{
	struct procmaps_scan s;
	const char *p = text, *nl;

	procmaps_scan_begin(&s);
	while (*p != '\0') {
		nl = strchr(p, '\n');
		if (nl == NULL)
			nl = p + strlen(p);
		procmaps_scan_line(&s, p, (size_t)(nl - p));
		p = *nl != '\0' ? nl + 1 : nl;
	}
	if (need_rss && !s.has_rss)
		return -1;
	return procmaps_scan_end(&s, out);
}

int
procmaps_parse_maps(const char *maps_text, struct process_layers *out)
{
	return parse(maps_text, false, out);
}

int
procmaps_parse_smaps(const char *smaps_text, struct process_layers *out)
{
	return parse(smaps_text, true, out);
}

int
procmaps_parse_status(const char *status_text, struct process_layers *out)
{
	int64_t rss, anon, file;

	if (procmem_parse_kb(status_text, "VmRSS", &rss) != 0 ||
	    procmem_parse_kb(status_text, "RssAnon", &anon) != 0 ||
	    procmem_parse_kb(status_text, "RssFile", &file) != 0)
		return -1;
	out->rss = rss;
	out->anon = anon;
	out->file = file;
	if (procmem_parse_kb(status_text, "RssShmem", &out->shmem) != 0)
		out->shmem = -1;
	if (procmem_parse_kb(status_text, "VmSwap", &out->swap) != 0)
		out->swap = -1;
	return 0;
}

const char *
procmaps_allocator_name(enum allocator a)
{
	switch (a) {
	case ALLOC_GLIBC:
		return "glibc malloc";
	case ALLOC_JEMALLOC:
		return "jemalloc";
	case ALLOC_TCMALLOC:
		return "tcmalloc";
	case ALLOC_UNKNOWN:
		break;
	}
	return "unknown";
}
