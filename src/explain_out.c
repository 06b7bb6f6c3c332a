/*
 * --explain's answer as text or JSON (explain_out.h). The words are the
 * model's; this only lays them out. What the server gave (its version, a
 * statement's text, the families' names) goes through clean.h in text and
 * JSON's escaping in JSON, as every other format's does.
 */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "clean.h"
#include "explain_out.h"
#include "output_format.h"
#include "units.h"
#include "utc.h"

/* The column of sizes: wide enough for "1023.99 GiB" and a whole int64. */
#define EXPLAIN_SIZE_WIDTH 20

static void
put_size(struct obuf *b, int64_t v, bool exact)
{
	char s[32];

	if (v < 0)
		snprintf(s, sizeof(s), "-");
	else if (exact)
		snprintf(s, sizeof(s), "%" PRId64, v);
	else
		units_bytes(v, s, sizeof(s));
	obuf_printf(b, " %*s  ", exact ? EXPLAIN_SIZE_WIDTH : 11, s);
}

/* A sentence, one line, after a heading word. */
static void
put_line(struct obuf *b, const char *head, const char *s)
{
	obuf_printf(b, " %s: ", head);
	clean_put(b, s, (size_t)-1, true);
	obuf_putc(b, '\n');
}

static void
text_layers(struct obuf *b, const struct explain *e, bool exact)
{
	for (size_t i = 0; i < e->layers; i++) {
		const struct explain_layer *l = &e->layer[i];

		put_size(b, l->bytes, exact);
		obuf_fill(b, ' ', 2 * (size_t)l->depth);
		clean_put(b, l->name, (size_t)-1, true);
		obuf_puts(b, "  (");
		clean_put(b, l->from, (size_t)-1, true);
		obuf_puts(b, ")\n");
	}
}

static void
text_connections(struct obuf *b, const struct explain_reading *r,
    const struct explain *e, bool exact)
{
	const struct estimate *est = &r->est;
	const struct measured_connections *m = &r->meas;
	char a[32], c[32];

	if (!r->has_estimate && !r->has_measured)
		return;
	obuf_puts(b, "## The connections: estimated and measured ##\n");
	if (r->has_estimate) {
		units_bytes(est->global_buffers, a, sizeof(a));
		units_bytes(est->per_connection, c, sizeof(c));
		put_size(b, est->total, exact);
		obuf_printf(b, "MySQLTuner's estimate: global buffers %s + "
		    "max_connections %" PRIu64 " x %s a connection\n", a,
		    est->max_connections, c);
	}
	if (r->has_measured) {
		units_bytes(m->largest_bytes, a, sizeof(a));
		put_size(b, m->sum_bytes, exact);
		obuf_printf(b, "measured now: %" PRIu64 " connections, the "
		    "largest %s%s\n", m->connections, a, m->no_process ?
		    " (summed by performance_schema; GRANT PROCESS gives "
		    "MariaDB's own, with peaks)" : "");
		units_bytes(m->largest_peak, a, sizeof(a));
		put_size(b, m->sum_peaks, exact);
		if (m->sum_peaks >= 0)
			obuf_printf(b, "their peaks since they connected, the "
			    "largest %s\n", a);
		else
			obuf_puts(b, "their peaks: not kept by this server, or "
			    "not ours to read\n");
		put_size(b, m->largest_statement_peak, exact);
		if (m->largest_statement_peak >= 0) {
			obuf_puts(b, "the largest statement's peak: ");
			clean_cut(b, m->largest_statement, 80);
			obuf_putc(b, '\n');
		} else
			obuf_puts(b, "the largest statement's peak: not kept "
			    "by this server (MySQL 8.0.31+ keeps it)\n");
	}
	if (e->measured_bound >= 0) {
		put_size(b, e->measured_bound, exact);
		obuf_puts(b, "the measured bound: global buffers + "
		    "max_connections x the largest peak\n");
	}
	if (e->bounds[0] != '\0')
		put_line(b, "so", e->bounds);
}

/* A stack's frames on one line, innermost first, each called by the next. */
static void
text_frames(struct obuf *b, const struct heap_summary_stack *s)
{
	for (size_t i = 0; i < s->nframes; i++) {
		if (i > 0)
			obuf_puts(b, " < ");
		clean_put(b, s->frames[i], (size_t)-1, true);
	}
	obuf_putc(b, '\n');
}

/* A stack's mark in the text; in JSON true, false, null. */
static const char *const marks[] = {
	[HEAP_MARK_NOT] = "not instrumented",
	[HEAP_MARK_INSTRUMENTED] = "instrumented",
	[HEAP_MARK_UNNAMED] = "unnamed call",
};

/* The heap profile beside the layers: its parts, its largest stacks. */
static void
text_heap(struct obuf *b, const struct explain_reading *r,
    const struct explain *e, bool exact)
{
	const struct heap_summary *h = &r->heap;

	if (h->state != HEAP_READ)
		return;
	obuf_puts(b, "## Where the anonymous pages went: the heap profile ##\n");
	put_size(b, h->total_bytes, exact);
	obuf_printf(b, "heap profile (jemalloc, dump %" PRId64 " s old): live",
	    h->age_s);
	if (r->has_process && r->proc.anon > 0)
		obuf_printf(b, ", %.0f%% of the anonymous pages", 100.0 *
		    (double)h->total_bytes / (double)r->proc.anon);
	obuf_puts(b, "  (");
	clean_put(b, h->dump, (size_t)-1, true);
	obuf_puts(b, ")\n");
	put_size(b, h->instrumented_bytes, exact);
	obuf_puts(b, "  through the instrumented calls (my_malloc and kin): "
	    "counted while their instrument is on\n");
	put_size(b, h->other_bytes, exact);
	obuf_puts(b, "  around them (malloc, new, libraries): counted by no "
	    "instrument\n");
	if (h->unnamed_bytes > 0) {
		put_size(b, h->unnamed_bytes, exact);
		obuf_puts(b, "  allocated by a call with no name (a static "
		    "function): either\n");
	}
	obuf_printf(b, " the largest stacks, %zu of %zu, innermost frame "
	    "first:\n", h->ntop, h->nstacks);
	for (size_t i = 0; i < h->ntop; i++) {
		put_size(b, h->top[i].bytes, exact);
		obuf_printf(b, "%-17s ", marks[h->top[i].mark]);
		text_frames(b, &h->top[i]);
	}
	if (e->heap[0] != '\0')
		put_line(b, "so", e->heap);
}

void
explain_text(struct obuf *b, const struct explain_reading *r,
    const struct explain *e, bool exact)
{
	char when[40];

	utc_format(when, sizeof(when), r->wall_ms, UTC_STAMP);
	obuf_puts(b, "## The server's memory in layers: ");
	clean_put(b, r->server_version, 60, true);
	if (r->pid != 0)
		obuf_printf(b, ", pid %" PRIu64, r->pid);
	obuf_printf(b, ", at %s ##\n", when);
	text_layers(b, e, exact);
	if (e->allocator[0] != '\0')
		put_line(b, "allocator", e->allocator);
	if (e->cgroup[0] != '\0')
		put_line(b, "cgroup", e->cgroup);
	text_heap(b, r, e, exact);
	text_connections(b, r, e, exact);
	obuf_puts(b, "## Advice ##\n");
	if (e->advices == 0)
		obuf_puts(b, " none: no layer is past its threshold\n");
	for (size_t i = 0; i < e->advices; i++) {
		obuf_puts(b, " - ");
		clean_put(b, e->advice[i], (size_t)-1, true);
		obuf_putc(b, '\n');
	}
}

/* JSON's pieces: a key, a string, a number or null. */
static void
key(struct obuf *b, bool *first, const char *k)
{
	obuf_printf(b, "%s\"%s\":", *first ? "" : ",", k);
	*first = false;
}

static void
jstr(struct obuf *b, bool *first, const char *k, const char *s)
{
	key(b, first, k);
	if (s == NULL)
		obuf_puts(b, "null");
	else
		output_json_put_string(b, s, strlen(s));
}

static void
jint(struct obuf *b, bool *first, const char *k, int64_t v, bool known)
{
	key(b, first, k);
	if (known)
		obuf_int(b, v);
	else
		obuf_puts(b, "null");
}

/* A byte count, null when not known (-1). */
static void
jbytes(struct obuf *b, bool *first, const char *k, int64_t v)
{
	jint(b, first, k, v, v >= 0);
}

static void
jlines(struct obuf *b, bool *first, const char *k,
    const char lines[][EXPLAIN_LINE], size_t n)
{
	key(b, first, k);
	obuf_putc(b, '[');
	for (size_t i = 0; i < n; i++) {
		if (i > 0)
			obuf_putc(b, ',');
		output_json_put_string(b, lines[i], strlen(lines[i]));
	}
	obuf_putc(b, ']');
}

static void
json_layers(struct obuf *b, bool *first, const struct explain *e)
{
	key(b, first, "layers");
	obuf_putc(b, '[');
	for (size_t i = 0; i < e->layers; i++) {
		const struct explain_layer *l = &e->layer[i];
		bool f = true;

		obuf_puts(b, i > 0 ? ",{" : "{");
		jstr(b, &f, "layer", l->key);
		jint(b, &f, "depth", l->depth, true);
		jstr(b, &f, "name", l->name);
		jbytes(b, &f, "bytes", l->bytes);
		jstr(b, &f, "from", l->from);
		obuf_putc(b, '}');
	}
	obuf_putc(b, ']');
}

static const char *const allocator_names[] = {
	[ALLOC_UNKNOWN] = NULL, [ALLOC_GLIBC] = "glibc",
	[ALLOC_JEMALLOC] = "jemalloc", [ALLOC_TCMALLOC] = "tcmalloc",
};

static void
json_process(struct obuf *b, bool *first, const struct explain_reading *r,
    const struct explain *e)
{
	const struct process_layers *p = &r->proc;
	const struct process_memory *m = &r->cg;
	bool f = true;

	key(b, first, "allocator");
	if (!r->has_process)
		obuf_puts(b, "null");
	else {
		obuf_putc(b, '{');
		jstr(b, &f, "name", allocator_names[p->allocator]);
		jstr(b, &f, "library", p->allocator == ALLOC_UNKNOWN ? NULL :
		    p->allocator == ALLOC_GLIBC ? p->allocator_lib[0] ?
		    p->allocator_lib : NULL : p->allocator_lib);
		jint(b, &f, "arenas", p->arenas, p->allocator == ALLOC_GLIBC);
		jbytes(b, &f, "heaps_resident_bytes",
		    p->arena_resident < 0 || p->brk_heap_resident < 0 ? -1 :
		    p->arena_resident + p->brk_heap_resident);
		jstr(b, &f, "says", e->allocator);
		obuf_putc(b, '}');
	}
	key(b, first, "cgroup");
	if (!m->has_cgroup)
		obuf_puts(b, "null");
	else {
		f = true;
		obuf_putc(b, '{');
		jint(b, &f, "version", m->cgroup_version, true);
		jstr(b, &f, "path", r->cgroup_dir);
		jbytes(b, &f, "usage_bytes", m->cgroup_usage_bytes);
		jbytes(b, &f, "limit_bytes", m->cgroup_limit_bytes);
		jint(b, &f, "oom_kills", m->cgroup_oom_kills,
		    m->cgroup_oom_kills >= 0);
		obuf_putc(b, '}');
	}
}

static void
json_connections(struct obuf *b, bool *first, const struct explain_reading *r,
    const struct explain *e)
{
	const struct estimate *est = &r->est;
	const struct measured_connections *m = &r->meas;
	bool f = true;

	key(b, first, "estimate");
	if (!r->has_estimate)
		obuf_puts(b, "null");
	else {
		obuf_putc(b, '{');
		jbytes(b, &f, "total_bytes", est->total);
		jbytes(b, &f, "global_buffers_bytes", est->global_buffers);
		jbytes(b, &f, "per_connection_bytes", est->per_connection);
		jint(b, &f, "max_connections", (int64_t)est->max_connections,
		    true);
		jstr(b, &f, "variables", est->vars);
		jstr(b, &f, "lacks", est->lacks);
		obuf_putc(b, '}');
	}
	key(b, first, "measured");
	if (!r->has_measured)
		obuf_puts(b, "null");
	else {
		f = true;
		obuf_putc(b, '{');
		jint(b, &f, "connections", (int64_t)m->connections, true);
		jbytes(b, &f, "sum_bytes", m->sum_bytes);
		jbytes(b, &f, "largest_bytes", m->largest_bytes);
		jbytes(b, &f, "sum_peaks_bytes", m->sum_peaks);
		jbytes(b, &f, "largest_peak_bytes", m->largest_peak);
		jbytes(b, &f, "largest_statement_peak_bytes",
		    m->largest_statement_peak);
		jstr(b, &f, "largest_statement", m->largest_statement_peak >= 0 ?
		    m->largest_statement : NULL);
		key(b, &f, "no_process");
		obuf_puts(b, m->no_process ? "true" : "false");
		obuf_putc(b, '}');
	}
	jbytes(b, first, "measured_bound_bytes", e->measured_bound);
	jstr(b, first, "bounds", e->bounds[0] ? e->bounds : NULL);
}

static const char *const heap_states[] = {
	[HEAP_UNREAD] = NULL, [HEAP_NOT_PROFILED] = "not_profiled",
	[HEAP_FAILED] = "failed", [HEAP_READ] = "read",
};

static void
json_heap_stacks(struct obuf *b, bool *first, const struct heap_summary *h)
{
	key(b, first, "stacks");
	obuf_putc(b, '[');
	for (size_t i = 0; i < h->ntop; i++) {
		const struct heap_summary_stack *s = &h->top[i];
		bool f = true;

		obuf_puts(b, i > 0 ? ",{" : "{");
		jbytes(b, &f, "bytes", s->bytes);
		key(b, &f, "instrumented");
		obuf_puts(b, s->mark == HEAP_MARK_INSTRUMENTED ? "true" :
		    s->mark == HEAP_MARK_NOT ? "false" : "null");
		key(b, &f, "frames");
		obuf_putc(b, '[');
		for (size_t j = 0; j < s->nframes; j++) {
			if (j > 0)
				obuf_putc(b, ',');
			output_json_put_string(b, s->frames[j],
			    strlen(s->frames[j]));
		}
		obuf_puts(b, "]}");
	}
	obuf_putc(b, ']');
}

/* null when not looked at (the reading once a minute). */
static void
json_heap(struct obuf *b, bool *first, const struct explain *e,
    const struct heap_summary *h)
{
	bool f = true, read = h->state == HEAP_READ;

	key(b, first, "heap");
	if (h->state == HEAP_UNREAD) {
		obuf_puts(b, "null");
		return;
	}
	obuf_putc(b, '{');
	jstr(b, &f, "state", heap_states[h->state]);
	jstr(b, &f, "why", read ? NULL : h->why);
	jstr(b, &f, "dump", read ? h->dump : NULL);
	jint(b, &f, "age_seconds", h->age_s, read);
	jint(b, &f, "total_bytes", h->total_bytes, read);
	jint(b, &f, "instrumented_bytes", h->instrumented_bytes, read);
	jint(b, &f, "not_instrumented_bytes", h->other_bytes, read);
	jint(b, &f, "unnamed_bytes", h->unnamed_bytes, read);
	jint(b, &f, "stacks_in_profile", (int64_t)h->nstacks, read);
	jstr(b, &f, "says", e->heap[0] != '\0' ? e->heap : NULL);
	json_heap_stacks(b, &f, h);
	obuf_putc(b, '}');
}

void
explain_json(struct obuf *b, const struct explain_reading *r,
    const struct explain *e)
{
	const struct counted_layers *c = &r->counted;
	char when[40];
	bool first = true;

	utc_format(when, sizeof(when), r->wall_ms, UTC_STAMP);
	obuf_putc(b, '{');
	/* Its type, as --read passes over a line of it among samples. */
	jstr(b, &first, "type", "explain");
	jstr(b, &first, "server", r->server_version);
	jint(b, &first, "pid", (int64_t)r->pid, r->pid != 0);
	jstr(b, &first, "timestamp", when);
	json_layers(b, &first, e);
	key(b, &first, "instruments");
	if (!r->has_counted)
		obuf_puts(b, "null");
	else {
		bool f = true;

		obuf_putc(b, '{');
		jint(b, &f, "memory", (int64_t)c->instruments, true);
		jint(b, &f, "off", (int64_t)c->instruments_off, true);
		jstr(b, &f, "off_families", c->off_families);
		obuf_putc(b, '}');
	}
	json_process(b, &first, r, e);
	json_heap(b, &first, e, &r->heap);
	json_connections(b, &first, r, e);
	jlines(b, &first, "advice", e->advice, e->advices);
	jlines(b, &first, "notes", e->notes, e->notes_n);
	obuf_puts(b, "}\n");
}
