/*
 * The layers of --explain and the advice on them, from one reading: see
 * explain_model.h. Every figure says where it comes from; a layer whose
 * size cannot be had from outside the process is named by what it holds
 * and its evidence, never given a made-up size.
 */
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "explain_model.h"
#include "units.h"

/* A byte count in words, for a sentence: "1.20 GiB". */
struct words {
	char s[32];
};

static struct words
b(int64_t v)
{
	struct words w;

	units_bytes(v, w.s, sizeof(w.s));
	return w;
}

static void
add_layer(struct explain *e, const char *key, int depth, int64_t bytes,
    const char *from, const char *fmt, ...)
{
	struct explain_layer *l;
	va_list ap;

	if (e->layers == EXPLAIN_LAYERS)
		return;
	l = &e->layer[e->layers++];
	l->key = key;
	l->depth = depth;
	l->bytes = bytes;
	snprintf(l->from, sizeof(l->from), "%s", from);
	va_start(ap, fmt);
	vsnprintf(l->name, sizeof(l->name), fmt, ap);
	va_end(ap);
}

static void
add_line(char lines[][EXPLAIN_LINE], size_t *n, const char *fmt, ...)
{
	va_list ap;

	if (*n == EXPLAIN_LINES)
		return;
	va_start(ap, fmt);
	vsnprintf(lines[(*n)++], EXPLAIN_LINE, fmt, ap);
	va_end(ap);
}

#define ADVICE(e, ...) add_line((e)->advice, &(e)->advices, __VA_ARGS__)
#define NOTE(e, ...) add_line((e)->notes, &(e)->notes_n, __VA_ARGS__)

/* a as a whole percentage of b (b > 0), kept to a printable size. */
static int
pct(int64_t a, int64_t b)
{
	double v = b > 0 ? 100.0 * (double)a / (double)b : 0;

	return v < 0 ? 0 : v > 99999 ? 99999 : (int)(v + 0.5);
}

/* a + b, or -1 when either is not known. */
static int64_t
sum2(int64_t a, int64_t b)
{
	return a < 0 || b < 0 ? -1 : a + b;
}

/* What performance_schema counts, by family, at depth d. */
static void
counted_layers(const struct explain_reading *r, struct explain *e, int d)
{
	const struct counted_layers *c = &r->counted;

	add_layer(e, "counted", d, c->total,
	    "performance_schema.memory_summary_global_by_event_name",
	    "counted by performance_schema");
	add_layer(e, "buffer_pool", d + 1, c->buffer_pool,
	    "memory/innodb/buf_buf_pool", "the InnoDB buffer pool");
	add_layer(e, "innodb", d + 1, c->innodb_rest,
	    "memory/innodb/% less the buffer pool", "the rest of InnoDB");
	add_layer(e, "performance_schema", d + 1, c->pfs_own,
	    "memory/performance_schema/%", "performance_schema's own tables");
	add_layer(e, "temporary_tables", d + 1, c->temp_tables,
	    "memory/temptable/%, memory/memory/%", "temporary tables");
	add_layer(e, "counted_rest", d + 1, c->rest,
	    "every other memory/% event", "the rest");
}

/*
 * The anonymous memory no instrument counts, named by its cause: the
 * instruments switched off when some are, else what no instrument
 * covers. Its size is the difference; what the allocator holds free
 * inside it cannot be told from outside the process.
 */
static void
not_counted(const struct explain_reading *r, struct explain *e,
    int64_t gap)
{
	const struct counted_layers *c = &r->counted;

	if (c->instruments_off > 0)
		add_layer(e, "not_counted", 2, gap, "RssAnon less counted",
		    "not counted: %zu of %zu memory instruments switched off "
		    "(%s), and what no instrument covers", c->instruments_off,
		    c->instruments, c->off_families[0] != '\0' ?
		    c->off_families : "?");
	else
		add_layer(e, "not_counted", 2, gap, "RssAnon less counted",
		    "not counted: what no instrument covers, the allocator's "
		    "free memory and fragmentation");
}

static void
process_layers(const struct explain_reading *r, struct explain *e)
{
	const struct process_layers *p = &r->proc;
	char from[200];

	snprintf(from, sizeof(from), "/proc/%" PRIu64 "/status VmRSS", r->pid);
	add_layer(e, "resident", 0, p->rss, from, "resident");
	add_layer(e, "file_shared", 1, sum2(p->file, p->shmem),
	    "RssFile + RssShmem", "file-backed and shared pages");
	add_layer(e, "anonymous", 1, p->anon, "RssAnon", "anonymous pages");
	if (r->has_counted) {
		int64_t gap = p->anon < 0 ? -1 : p->anon - r->counted.total;

		counted_layers(r, e, 2);
		if (gap < 0 && p->anon >= 0) {
			NOTE(e, "performance_schema counts %s more than the "
			    "anonymous resident memory: memory reserved and "
			    "counted but not touched (MariaDB counts a MEMORY "
			    "table's blocks as it reserves them), or swapped out",
			    b(-gap).s);
			gap = 0;
		}
		not_counted(r, e, gap);
	}
	if (p->anon_huge >= 0)
		add_layer(e, "huge_pages", 2, p->anon_huge,
		    "smaps AnonHugePages", "of the anonymous, in transparent "
		    "huge pages");
	add_layer(e, "swap", 0, p->swap, "VmSwap", "swapped out (not resident)");
}

static void
allocator(const struct explain_reading *r, struct explain *e)
{
	const struct process_layers *p = &r->proc;
	int64_t heaps = sum2(p->arena_resident, p->brk_heap_resident);

	e->arenas = p->known && p->allocator == ALLOC_GLIBC ? p->arenas : -1;
	if (!p->known) {
		snprintf(e->allocator, sizeof(e->allocator), "not known: its "
		    "maps were not read (%.400s)", p->why);
		return;
	}
	switch (p->allocator) {
	case ALLOC_GLIBC:
		if (heaps >= 0)
			snprintf(e->allocator, sizeof(e->allocator), "glibc "
			    "malloc, %d arenas; their heaps hold %s resident "
			    "(smaps: [heap] and the arenas' heaps)", p->arenas,
			    b(heaps).s);
		else
			snprintf(e->allocator, sizeof(e->allocator), "glibc "
			    "malloc, %d arenas (maps; smaps unread: their "
			    "resident memory unknown)", p->arenas);
		break;
	case ALLOC_JEMALLOC:
		snprintf(e->allocator, sizeof(e->allocator), "jemalloc (%s); "
		    "its caches are not visible from outside the process",
		    p->allocator_lib);
		break;
	case ALLOC_TCMALLOC:
		snprintf(e->allocator, sizeof(e->allocator), "tcmalloc (%s); "
		    "its caches are not visible from outside the process",
		    p->allocator_lib);
		break;
	default:
		snprintf(e->allocator, sizeof(e->allocator), "not known: "
		    "no malloc library mapped (linked statically?)");
	}
}

static void
cgroup(const struct explain_reading *r, struct explain *e)
{
	const struct process_memory *m = &r->cg;
	char kills[40] = "";

	if (!m->has_cgroup) {
		snprintf(e->cgroup, sizeof(e->cgroup), "%s", r->cgroup_dir[0] ?
		    "its usage could not be read" : "none found");
		return;
	}
	/* v1 before Linux 4.13 counts no kills: left out, not -1. */
	if (m->cgroup_oom_kills >= 0)
		snprintf(kills, sizeof(kills), ", %" PRId64 " OOM kills",
		    m->cgroup_oom_kills);
	if (m->cgroup_limit_bytes < 0)
		snprintf(e->cgroup, sizeof(e->cgroup), "v%d %s: usage %s, no "
		    "limit set%s", m->cgroup_version, r->cgroup_dir,
		    b(m->cgroup_usage_bytes).s, kills);
	else
		snprintf(e->cgroup, sizeof(e->cgroup), "v%d %s: usage %s of "
		    "its limit %s (%d%%)%s", m->cgroup_version, r->cgroup_dir,
		    b(m->cgroup_usage_bytes).s, b(m->cgroup_limit_bytes).s,
		    pct(m->cgroup_usage_bytes, m->cgroup_limit_bytes), kills);
}

/* Both bounds of the connections' memory, and which is the better. */
static void
bounds(const struct explain_reading *r, struct explain *e)
{
	const struct estimate *est = &r->est;
	const struct measured_connections *m = &r->meas;
	int64_t each = m->largest_peak;
	double ratio;

	/*
	 * Only a peak bounds: what a connection holds now says nothing of
	 * what it took (older MySQL, MariaDB without PROCESS keep none).
	 */
	e->measured_bound = -1;
	if (!r->has_estimate || !r->has_measured || each <= 0 ||
	    est->max_connections == 0)
		return;
	e->measured_bound = est->global_buffers +
	    (int64_t)est->max_connections * each;
	if (e->measured_bound <= 0 || est->total <= 0)
		return;
	if (e->measured_bound <= est->total) {
		ratio = (double)est->total / (double)e->measured_bound;
		snprintf(e->bounds, sizeof(e->bounds), "the measured bound is "
		    "the tighter, %.1fx below the estimate: the estimate "
		    "counts every per-connection buffer (%s) as taken at "
		    "once by all %" PRIu64 " connections, and the largest "
		    "here peaked at %s", ratio, b(est->per_connection).s,
		    est->max_connections, b(each).s);
	} else {
		ratio = (double)e->measured_bound / (double)est->total;
		snprintf(e->bounds, sizeof(e->bounds), "the measured bound is "
		    "%.1fx above the estimate: a connection here took %s, "
		    "more than the %s of buffers the estimate allows it "
		    "(temporary tables, user variables, prepared statements "
		    "are not in it): the estimate is no bound on this server",
		    ratio, b(each).s, b(est->per_connection).s);
	}
}

/* Whether the part not counted is past its threshold. */
static bool
large_gap(const struct explain_reading *r, const struct explain_layer *gap)
{
	return gap != NULL && r->proc.anon > 0 &&
	    gap->bytes >= EXPLAIN_GAP_BYTES &&
	    gap->bytes * 100 >= r->proc.anon * EXPLAIN_GAP_SHARE;
}

/*
 * The profile's instrumented part beside what performance_schema counts
 * outside the buffer pool, which the server maps itself and jemalloc's
 * profile never holds. The stacks do not hold the calls' instruments, so
 * only a surplus says something: instrumented code counted nowhere.
 */
static void
heap_against_counted(const struct explain_reading *r, struct explain *e)
{
	const struct heap_summary *h = &r->heap;
	int64_t counted = r->counted.total - r->counted.buffer_pool;
	int n;

	if (h->state != HEAP_READ || !r->has_counted || counted < 0)
		return;
	n = snprintf(e->heap, sizeof(e->heap), "performance_schema counts %s "
	    "outside the buffer pool (which the server maps itself, outside "
	    "the profile); the stacks through the instrumented calls hold %s",
	    b(counted).s, b(h->instrumented_bytes).s);
	if (h->instrumented_bytes - counted > counted / 10 && n > 0 &&
	    (size_t)n < sizeof(e->heap))
		snprintf(e->heap + n, sizeof(e->heap) - (size_t)n, ", %s more: "
		    "instrumented code that no instrument counts (switched off, "
		    "or called without one; the stacks do not say which)",
		    b(h->instrumented_bytes - counted).s);
}

/* A line of cause and what to try for each layer that is large. */
static void
advise(const struct explain_reading *r, struct explain *e)
{
	const struct process_layers *p = &r->proc;
	const struct counted_layers *c = &r->counted;
	const struct explain_layer *gap = explain_find(e, "not_counted");
	int64_t heaps = sum2(p->arena_resident, p->brk_heap_resident);
	bool arenas = false;

	if (r->has_counted && c->instruments_off > 0)
		ADVICE(e, "memory instruments are off (%zu of %zu: %s): the "
		    "counted figure is not the server's; switch them on with "
		    "UPDATE performance_schema.setup_instruments SET ENABLED = "
		    "'YES' WHERE NAME LIKE 'memory/%%' (memory allocated before "
		    "stays uncounted), and keep them on with "
		    "performance-schema-instrument='memory/%%=ON' under "
		    "[mysqld]", c->instruments_off, c->instruments,
		    c->off_families);
	if (r->has_process && p->allocator == ALLOC_GLIBC &&
	    p->arenas >= EXPLAIN_ARENAS && heaps >= EXPLAIN_ARENA_BYTES) {
		arenas = true;
		ADVICE(e, "glibc malloc with %d arenas holds %s resident in its "
		    "heaps%s%s%s: try MALLOC_ARENA_MAX=4 in the server's "
		    "environment, or jemalloc (LD_PRELOAD, or mysqld_safe's "
		    "--malloc-lib)", p->arenas, b(heaps).s,
		    gap != NULL && gap->bytes > 0 ? ", and " : "",
		    gap != NULL && gap->bytes > 0 ? b(gap->bytes).s : "",
		    gap != NULL && gap->bytes > 0 ? " of the anonymous memory "
		    "is counted by no instrument" : "");
	}
	if (!arenas && r->has_process && p->allocator == ALLOC_GLIBC &&
	    c->instruments_off == 0 && large_gap(r, gap))
		ADVICE(e, "%s (%d%% of the anonymous memory) is counted by no "
		    "instrument, with every memory instrument on: glibc "
		    "malloc's free memory and fragmentation are the usual "
		    "cause; try jemalloc (LD_PRELOAD, or mysqld_safe's "
		    "--malloc-lib)", b(gap->bytes).s, pct(gap->bytes, p->anon));
	if (r->heap.state == HEAP_NOT_PROFILED && large_gap(r, gap))
		ADVICE(e, "%s (%d%% of the anonymous memory) is counted by no "
		    "instrument, and no heap profile shows where it went: %s; "
		    "then --explain shows the stacks that hold the most",
		    b(gap->bytes).s, pct(gap->bytes, p->anon), r->heap.why);
	if (r->has_counted && c->pfs_own >= EXPLAIN_PFS_BYTES &&
	    r->has_process && p->rss > 0 &&
	    c->pfs_own * 100 >= p->rss * EXPLAIN_PFS_SHARE)
		ADVICE(e, "performance_schema's own tables hold %s (%d%% of "
		    "the resident memory): size them with the "
		    "performance_schema_max_* variables (-1 sizes them from "
		    "max_connections and table_open_cache), or give less to "
		    "performance_schema_digests_size and the history tables",
		    b(c->pfs_own).s, pct(c->pfs_own, p->rss));
	if (r->has_process && p->anon_huge >= EXPLAIN_THP_BYTES)
		ADVICE(e, "transparent huge pages back %s of the anonymous "
		    "memory, and a page freed inside one stays resident: set "
		    "/sys/kernel/mm/transparent_hugepage/enabled to madvise or "
		    "never", b(p->anon_huge).s);
	if (r->has_process && p->swap >= EXPLAIN_THP_BYTES)
		ADVICE(e, "%s of the server is swapped out: a page it touches "
		    "comes back from disk; lower innodb_buffer_pool_size, or "
		    "give the machine memory", b(p->swap).s);
	if (r->cg.has_cgroup && r->cg.cgroup_limit_bytes > 0 &&
	    r->cg.cgroup_usage_bytes * 100 >=
	    r->cg.cgroup_limit_bytes * EXPLAIN_LIMIT_SHARE)
		ADVICE(e, "the cgroup's usage %s is %d%% of its limit %s, and "
		    "the kernel kills the server at the limit: raise it "
		    "(systemd's MemoryMax=, a pod's memory limit), or lower "
		    "innodb_buffer_pool_size", b(r->cg.cgroup_usage_bytes).s,
		    pct(r->cg.cgroup_usage_bytes, r->cg.cgroup_limit_bytes),
		    b(r->cg.cgroup_limit_bytes).s);
}

void
explain_work(const struct explain_reading *r, struct explain *e)
{
	memset(e, 0, sizeof(*e));
	e->arenas = -1;
	if (r->has_process)
		process_layers(r, e);
	else {
		NOTE(e, "the process's figures are missing: %s; only what "
		    "performance_schema counts is shown", r->process_why);
		if (r->has_counted)
			counted_layers(r, e, 0);
	}
	if (!r->has_counted)
		NOTE(e, "performance_schema's figures are missing: the "
		    "layers it counts are not shown");
	if (r->has_process) {
		allocator(r, e);
		cgroup(r, e);
	}
	bounds(r, e);
	heap_against_counted(r, e);
	advise(r, e);
}

const struct explain_layer *
explain_find(const struct explain *e, const char *key)
{
	for (size_t i = 0; i < e->layers; i++)
		if (strcmp(e->layer[i].key, key) == 0)
			return &e->layer[i];
	return NULL;
}
