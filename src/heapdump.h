/*
 * jemalloc's heap profiles (issue 34): one dump parsed, and the dumps of a
 * server found. Pure parser; heap_find_* read /proc and list a folder.
 *
 * A dump (prof.c's prof_dump) is "heap_v2/RATE", a line of totals over
 * live threads, then per stack "@ 0xADDR 0xADDR ..." (return addresses,
 * jemalloc's own frames first) followed by "  t*: COUNT: BYTES [...]" and
 * per-thread lines, and at its end "MAPPED_LIBRARIES:" with the maps of
 * the process at the time of the dump. Counts are of sampled objects:
 * bytes are unbiased as jeprof does, by 1 / (1 - exp(-(bytes/count)/RATE)).
 * Dumps are named PREFIX.PID.SEQ.KINDITER.heap (KIND one of i u m f); SEQ
 * is shared across kinds, so the newest dump of a pid has the highest SEQ.
 */
#ifndef MYSQLMEMPROF_HEAPDUMP_H
#define MYSQLMEMPROF_HEAPDUMP_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

/* One stack of a dump: the live objects allocated there. */
struct heap_stack {
	uint64_t *pcs;          /* return addresses, innermost first */
	size_t depth;
	int64_t objects;        /* unbiased, rounded */
	int64_t bytes;          /* unbiased, rounded */
};

/* One line of MAPPED_LIBRARIES (the /proc/PID/maps format). */
struct heap_mapping {
	uint64_t start, end;    /* [start, end) */
	uint64_t offset;        /* file offset of start */
	char *path;             /* NULL for an anonymous mapping; as maps
	                           has it ("[stack]", " (deleted)") */
	int executable;         /* x in its permissions (r-xp) */
};

struct heap_dump {
	uint64_t rate;          /* RATE of heap_v2/RATE: mean bytes between
	                           samples (2^lg_prof_sample); 0: every
	                           allocation sampled, no unbiasing */
	struct heap_stack *stacks;
	size_t nstacks;
	struct heap_mapping *maps;
	size_t nmaps;
	int64_t total_bytes;    /* the sum of the stacks' bytes */
	int64_t total_objects;
};

/*
 * Parses the len bytes of a dump into *d (owned; heap_dump_free). Returns
 * 0, or -1 with one line in err naming the line and what is wrong ("not a
 * jemalloc heap_v2 dump", "line 12: cut short"): a dump cut short, or
 * another format, is an error, never a partial profile.
 */
int heap_dump_parse(const char *text, size_t len, struct heap_dump *d,
    char *err, size_t errlen);
void heap_dump_free(struct heap_dump *d);

/*
 * The growth from base to newer, like jeprof --base: for each stack of
 * newer, its bytes and objects less the same stack's in base (a stack is
 * its list of addresses); stacks whose bytes did not grow are left out
 * (a stack's objects may be fewer). The totals are of the stacks kept,
 * the maps newer's. 0, or -1 with errno (out of memory).
 */
int heap_dump_diff(const struct heap_dump *newer,
    const struct heap_dump *base, struct heap_dump *out);

/* One dump file of a folder. */
struct heap_file {
	char *path;
	pid_t pid;
	uint64_t seq;
	char kind;              /* 'i' interval, 'u' gdump (a new high),
	                           'm' mallctl's prof.dump, 'f' final */
	uint64_t iter;          /* 0 for 'f', which has none */
};

/* Where a process's jemalloc writes its dumps, and whether it profiles. */
struct heap_source {
	int jemalloc;           /* libjemalloc mapped, or linked in */
	int profiling;          /* MALLOC_CONF has prof:true */
	char prefix[4096];      /* prof_prefix as this process opens it:
	                           made absolute against the process's cwd,
	                           under its chroot; "jeprof" in its cwd
	                           when not set; "" when set empty (jemalloc
	                           then writes no dump) */
	char conf[1024];        /* MALLOC_CONF as the process has it */
};

/*
 * What process pid's environment and maps say (/proc/PID/environ, cwd,
 * maps). Returns 0, or -1 with one line in err (the process is not
 * readable: another user's, gone).
 */
int heap_find_source(pid_t pid, struct heap_source *src, char *err,
    size_t errlen);
/* The same, under a /proc of fixtures (the unit tests). */
int heap_find_source_in(const char *root, pid_t pid, struct heap_source *src,
    char *err, size_t errlen);

/*
 * The dumps of pid (all pids when pid is 0) named PREFIX.PID.SEQ.KINDITER.heap
 * under prefix's folder, sorted by pid then seq, into *files (owned;
 * heap_files_free). prefix may be a folder ("DIR/") to take any prefix.
 * 0, or -1 with one line in err.
 */
int heap_find_files(const char *prefix, pid_t pid, struct heap_file **files,
    size_t *n, char *err, size_t errlen);
void heap_files_free(struct heap_file *files, size_t n);

/*
 * The dumps of every process under prefix and their bytes: the folder
 * jemalloc fills and nothing prunes. 0, or -1 when it cannot be listed.
 */
int heap_folder_usage(const char *prefix, size_t *files, uint64_t *bytes);

#endif
