/*
 * What a process's memory is made of, in layers the kernel can tell apart:
 * anonymous, file-backed and shared pages and swap (/proc/PID/status),
 * transparent huge pages, the allocator the process runs (the library it
 * maps) and, for glibc malloc, its arenas: the heaps it mmaps for them and
 * what they hold resident (/proc/PID/maps, /proc/PID/smaps). Pure parsers
 * of the files' text; procfs_layers() (procfs.h) opens them.
 */
#ifndef MYSQLMEMPROF_PROCMAPS_H
#define MYSQLMEMPROF_PROCMAPS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/*
 * glibc's HEAP_MAX_SIZE on 64-bit (2 * DEFAULT_MMAP_THRESHOLD_MAX, malloc/
 * arena.c): each heap of a non-main arena is mmapped this large, aligned to
 * its size, PROT_NONE and without reserve, and made read-write from its
 * start as it grows. Its maps: a rw-p part at a 64 MiB boundary, then a
 * ---p part to the next one (or rw-p the whole 64 MiB, once full).
 */
#define PROCMAPS_HEAP_MAX ((uint64_t)64 << 20)

enum allocator { ALLOC_UNKNOWN, ALLOC_GLIBC, ALLOC_JEMALLOC, ALLOC_TCMALLOC };

/* The layers of one process. Sizes in bytes; -1 where not read. */
struct process_layers {
	bool known;                 /* its maps (or smaps) were read */
	char why[256];              /* when not, or smaps not: which file,
	                               which error, in words */
	int64_t rss, anon, file, shmem;   /* status: VmRSS, RssAnon, RssFile,
	                                     RssShmem */
	int64_t anon_huge;          /* smaps: AnonHugePages, summed */
	int64_t swap;               /* status: VmSwap */
	enum allocator allocator;   /* from the libraries mapped */
	char allocator_lib[256];    /* its path, as maps gives it */
	int arenas;                 /* glibc: its heaps for non-main arenas,
	                               + 1 for the main arena; 0 otherwise.
	                               An arena whose heap is full takes
	                               another: at least the arenas it made */
	int64_t arena_resident;     /* smaps: the Rss of those heaps */
	int64_t brk_heap_resident;  /* smaps: the Rss of [heap]: glibc's main
	                               arena, or what tcmalloc took by sbrk */
};

/*
 * A walk over the lines of maps or smaps, fed one line at a time, so a
 * reader streams a large smaps (thousands of regions for a big server)
 * instead of holding it whole. Its fields are the walk's own.
 */
struct procmaps_vma {
	uint64_t start, end;
	bool rw, none, anon;        /* rw-p; ---p; no file (or [anon:...]) */
	int64_t rss;
};

struct procmaps_scan {
	struct procmaps_vma prev, cur;
	int regions;                /* headers seen */
	bool bad;                   /* a field that is not a number */
	bool has_rss;               /* an Rss line seen: smaps, not maps */
	bool cur_brk;               /* cur is [heap] */
	int heaps;
	int64_t heap_rss, brk_rss, anon_huge;
	char jemalloc[256], tcmalloc[256], libc[256];   /* paths mapped */
	uint64_t jemalloc_at, tcmalloc_at;              /* where */
};

void procmaps_scan_begin(struct procmaps_scan *s);

/* One line, without or with its newline (len bytes; no NUL needed). */
void procmaps_scan_line(struct procmaps_scan *s, const char *line,
    size_t len);

/*
 * The walk's findings into out: the allocator, the arenas and, when the
 * lines were smaps', the resident figures (else -1). The status fields
 * are not touched. 0, or -1 when no region was seen or a field was junk.
 */
int procmaps_scan_end(struct procmaps_scan *s, struct process_layers *out);

/* The whole text of /proc/PID/maps, through the walk above. */
int procmaps_parse_maps(const char *maps_text, struct process_layers *out);

/* The whole text of /proc/PID/smaps, the same with the resident figures. */
int procmaps_parse_smaps(const char *smaps_text, struct process_layers *out);

/*
 * /proc/PID/status: VmRSS, RssAnon and RssFile (-1 returned without them,
 * as before Linux 4.5), RssShmem and VmSwap (-1 when missing).
 */
int procmaps_parse_status(const char *status_text,
    struct process_layers *out);

/* "glibc malloc", "jemalloc", "tcmalloc" or "unknown", for people. */
const char *procmaps_allocator_name(enum allocator a);

#endif
