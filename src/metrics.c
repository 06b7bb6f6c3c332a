/*
 * The Prometheus and OpenMetrics text of one view. Each metric family is
 * one row of a table (name, type, help, and how to write its samples), so
 * the two formats differ only where their specifications do: OpenMetrics
 * names a counter family without _total and an info family without
 * _info, and ends with "# EOF".
 */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "metrics.h"
#include "scrub.h"

#define PREFIX "mysqlmemprof_"

/* INFO: a gauge of 1 whose labels are the point, ending in _info. */
enum family_type { GAUGE, COUNTER, INFO };

struct family;

/* Writes the samples of family f. */
typedef void family_fn(FILE *fp, const struct family *f,
    const struct metrics_view *v);

struct family {
	const char *name; /* without the prefix; a counter's ends in _total */
	enum family_type type;
	const char *help;
	family_fn *write;
	int event_field;  /* for the per-event families: which counter */
};

enum metrics_format
metrics_format_for(const char *accept)
{
	/* Prometheus asks for both, OpenMetrics first, when it can read it. */
	if (accept != NULL && strstr(accept, "application/openmetrics-text") !=
	    NULL)
		return METRICS_OPENMETRICS;
	return METRICS_PROMETHEUS;
}

const char *
metrics_content_type(enum metrics_format f)
{
	return f == METRICS_OPENMETRICS ?
	    "application/openmetrics-text; version=1.0.0; charset=utf-8" :
	    "text/plain; version=0.0.4; charset=utf-8";
}

void
metrics_label_value(FILE *fp, const char *s)
{
	size_t n = strlen(s);
	uint32_t cp;

	putc('"', fp);
	while (n > 0) {
		size_t len = scrub_utf8(s, n, &cp);

		if (len == 0) {
			fputs("\xef\xbf\xbd", fp); /* U+FFFD */
			len = 1;
		} else if (*s == '\\') {
			fputs("\\\\", fp);
		} else if (*s == '"') {
			fputs("\\\"", fp);
		} else if (*s == '\n') {
			fputs("\\n", fp);
		} else {
			fwrite(s, 1, len, fp);
		}
		s += len;
		n -= len;
	}
	putc('"', fp);
}

/* Milliseconds as seconds with three decimals, without the locale. */
static void
write_seconds(FILE *fp, uint64_t ms)
{
	fprintf(fp, "%" PRIu64 ".%03u", ms / 1000, (unsigned)(ms % 1000));
}

static void
write_up(FILE *fp, const struct family *f, const struct metrics_view *v)
{
	fprintf(fp, PREFIX "%s %d\n", f->name, v->up ? 1 : 0);
}

static void
write_info(FILE *fp, const struct family *f, const struct metrics_view *v)
{
	fprintf(fp, PREFIX "%s{target=", f->name);
	metrics_label_value(fp, v->target != NULL ? v->target : "");
	fputs(",server_version=", fp);
	metrics_label_value(fp, v->server_version != NULL ?
	    v->server_version : "");
	fputs("} 1\n", fp);
}

static void
write_samples(FILE *fp, const struct family *f, const struct metrics_view *v)
{
	uint64_t n = strcmp(f->name, "samples_total") == 0 ? v->samples :
	    strcmp(f->name, "samples_skipped_total") == 0 ? v->skipped :
	    v->lost;

	fprintf(fp, PREFIX "%s %" PRIu64 "\n", f->name, n);
}

static void
write_age(FILE *fp, const struct family *f, const struct metrics_view *v)
{
	if (v->sample == NULL)
		return;
	fprintf(fp, PREFIX "%s ", f->name);
	write_seconds(fp, v->sample_age_ms);
	putc('\n', fp);
}

static void
write_query(FILE *fp, const struct family *f, const struct metrics_view *v)
{
	if (v->sample == NULL)
		return;
	fprintf(fp, PREFIX "%s ", f->name);
	/* query_us in milliseconds, rounded up so that a query shows. */
	write_seconds(fp, (v->sample->query_us + 999) / 1000);
	putc('\n', fp);
}

static void
write_total(FILE *fp, const struct family *f, const struct metrics_view *v)
{
	if (v->sample != NULL)
		fprintf(fp, PREFIX "%s %" PRId64 "\n", f->name,
		    v->sample->total_bytes);
}

/* The server's own count of the thread, where it was read (total.h). */
static void
write_connection(FILE *fp, const struct family *f,
    const struct metrics_view *v)
{
	if (v->sample != NULL && v->sample->has_connection_bytes)
		fprintf(fp, PREFIX "%s %" PRId64 "\n", f->name,
		    v->sample->connection_bytes);
}

static void
write_events_age(FILE *fp, const struct family *f,
    const struct metrics_view *v)
{
	if (v->sample == NULL || !v->has_events_age)
		return;
	fprintf(fp, PREFIX "%s ", f->name);
	write_seconds(fp, v->events_age_ms);
	putc('\n', fp);
}

/* connection_memory_limit and the share of it in use: only where set. */
static void
write_limit(FILE *fp, const struct family *f, const struct metrics_view *v)
{
	if (v->limit_bytes <= 0)
		return;
	if (strcmp(f->name, "connection_memory_limit_bytes") == 0)
		fprintf(fp, PREFIX "%s %" PRId64 "\n", f->name, v->limit_bytes);
	else if (v->sample != NULL && v->sample->total_bytes >= 0) {
		/* Four decimals, without the locale. */
		uint64_t r = (uint64_t)((double)v->sample->total_bytes * 10000 /
		    (double)v->limit_bytes + 0.5);

		fprintf(fp, PREFIX "%s %" PRIu64 ".%04u\n", f->name, r / 10000,
		    (unsigned)(r % 10000));
	}
}

/*
 * The server's process beside the sample (--global on its machine); no
 * sample of the family when not read, never a guess.
 */
static void
write_process(FILE *fp, const struct family *f, const struct metrics_view *v)
{
	const struct process_memory *p;
	int64_t n;

	if (v->sample == NULL)
		return;
	p = &v->sample->process;
	if (strcmp(f->name, "status_memory_bytes") == 0) {
		if (!p->has_status)
			return;
		n = p->status_bytes;
	} else if (!p->known)
		return;
	else if (strcmp(f->name, "process_resident_bytes") == 0)
		n = p->resident_bytes;
	else if (strcmp(f->name, "process_anon_bytes") == 0)
		n = p->anon_bytes;
	else if (__builtin_sub_overflow(p->resident_bytes,
	    v->sample->total_bytes, &n))
		return;
	fprintf(fp, PREFIX "%s %" PRId64 "\n", f->name, n);
}

/*
 * The server's memory cgroup beside the sample: no sample of the family
 * without one; no limit is +Inf (a fact: usage over it is 0), kills not
 * counted by the kernel (v1 before Linux 4.13) no sample.
 */
static void
write_cgroup(FILE *fp, const struct family *f, const struct metrics_view *v)
{
	const struct process_memory *p;
	int64_t n;

	if (v->sample == NULL || !v->sample->process.has_cgroup)
		return;
	p = &v->sample->process;
	if (strncmp(f->name, "cgroup_pressure_", 16) == 0) {
		/* avg10 in hundredths of a percent, as a ratio. */
		n = f->name[16] == 's' ? p->cgroup_pressure_some :
		    p->cgroup_pressure_full;
		if (n >= 0)
			fprintf(fp, PREFIX "%s %" PRId64 ".%04" PRId64 "\n",
			    f->name, n / 10000, n % 10000);
		return;
	}
	if (strcmp(f->name, "cgroup_usage_bytes") == 0)
		n = p->cgroup_usage_bytes;
	else if (strcmp(f->name, "cgroup_oom_kills_total") == 0)
		n = p->cgroup_oom_kills;
	else if (strcmp(f->name, "cgroup_high_bytes") == 0)
		n = p->cgroup_high_bytes;
	else if (strcmp(f->name, "cgroup_high_events_total") == 0)
		n = p->cgroup_high_events;
	else if ((n = p->cgroup_limit_bytes) < 0) {
		fprintf(fp, PREFIX "%s +Inf\n", f->name);
		return;
	}
	if (n >= 0)
		fprintf(fp, PREFIX "%s %" PRId64 "\n", f->name, n);
}

/*
 * How many of the sample's events fit --max-series, the events taking
 * their series first, largest first: the same for each event family.
 */
static size_t
events_kept(const struct metrics_view *v)
{
	size_t n = v->sample != NULL ? v->sample->n_events : 0;
	size_t fit = v->max_series / METRICS_SERIES_PER_EVENT;

	return n < fit ? n : fit;
}

enum { EV_USED, EV_HIGH, EV_COUNT, EV_ALLOC, EV_FREE, EV_ALLOCS, EV_FREES };

static void
write_event(FILE *fp, const struct family *f, const struct metrics_view *v)
{
	size_t n = events_kept(v);

	for (size_t i = 0; i < n; i++) {
		const struct event_stat *e = &v->sample->events[i];

		fprintf(fp, PREFIX "%s{event=", f->name);
		metrics_label_value(fp, e->name);
		fputs("} ", fp);
		switch (f->event_field) {
		case EV_USED: fprintf(fp, "%" PRId64, e->current_bytes); break;
		case EV_HIGH: fprintf(fp, "%" PRId64, e->high_bytes); break;
		case EV_COUNT: fprintf(fp, "%" PRId64, e->current_count); break;
		case EV_ALLOC: fprintf(fp, "%" PRIu64, e->alloc_bytes); break;
		case EV_FREE: fprintf(fp, "%" PRIu64, e->free_bytes); break;
		case EV_ALLOCS: fprintf(fp, "%" PRIu64, e->alloc_count); break;
		default: fprintf(fp, "%" PRIu64, e->free_count); break;
		}
		putc('\n', fp);
	}
}

/* The threads take what the events left of --max-series. */
static size_t
threads_kept(const struct metrics_view *v)
{
	size_t used = events_kept(v) * METRICS_SERIES_PER_EVENT;
	size_t left = v->max_series > used ? v->max_series - used : 0;

	return v->n_threads < left ? v->n_threads : left;
}

static void
write_threads(FILE *fp, const struct family *f, const struct metrics_view *v)
{
	size_t n = threads_kept(v);

	for (size_t i = 0; i < n; i++) {
		const struct thread_total *t = &v->threads[i];

		fprintf(fp, PREFIX "%s{thread_id=\"%" PRIu64 "\",name=",
		    f->name, t->thread_id);
		metrics_label_value(fp, t->name);
		fputs(",user=", fp);
		metrics_label_value(fp, t->user);
		fputs(",host=", fp);
		metrics_label_value(fp, t->host);
		fputs(",digest=", fp);
		metrics_label_value(fp, t->digest);
		fprintf(fp, "} %" PRId64 "\n", t->current_bytes);
	}
}

/* The layers of --explain, one series each whose size is known. */
static void
write_layers(FILE *fp, const struct family *f, const struct metrics_view *v)
{
	if (v->layers == NULL)
		return;
	for (size_t i = 0; i < v->layers->layers; i++) {
		const struct explain_layer *l = &v->layers->layer[i];

		if (l->bytes >= 0)
			fprintf(fp, PREFIX "%s{layer=\"%s\"} %" PRId64 "\n",
			    f->name, l->key, l->bytes);
	}
}

static void
write_gap_figures(FILE *fp, const struct family *f,
    const struct metrics_view *v)
{
	const struct explain *e = v->layers;

	if (e == NULL)
		return;
	if (strcmp(f->name, "advice_lines") == 0)
		fprintf(fp, PREFIX "%s %zu\n", f->name, e->advices);
	else if (e->arenas >= 0)
		fprintf(fp, PREFIX "%s %d\n", f->name, e->arenas);
}

static void
write_dropped(FILE *fp, const struct family *f, const struct metrics_view *v)
{
	size_t events = v->sample != NULL ? v->sample->n_events : 0;
	size_t dropped = (events - events_kept(v)) * METRICS_SERIES_PER_EVENT +
	    (v->n_threads - threads_kept(v));

	fprintf(fp, PREFIX "%s %zu\n", f->name, dropped);
}

/* The page, in this order. */
static const struct family families[] = {
	{ "up", GAUGE, "1 while samples arrive on time, 0 while the server "
	    "is gone or too slow to answer.", write_up, 0 },
	{ "target_info", INFO, "What is sampled, and the server's version.",
	    write_info, 0 },
	{ "samples_total", COUNTER, "Samples taken since the exporter "
	    "started.", write_samples, 0 },
	{ "samples_skipped_total", COUNTER, "Ticks skipped: a sample or a "
	    "reconnect took longer than --frequency.", write_samples, 0 },
	{ "samples_lost_total", COUNTER, "Ticks whose reading the source "
	    "could not give.", write_samples, 0 },
	{ "sample_age_seconds", GAUGE, "How long ago the latest sample was "
	    "taken.", write_age, 0 },
	{ "sample_query_seconds", GAUGE, "How long the latest sample's query "
	    "took.", write_query, 0 },
	{ "memory_total_bytes", GAUGE, "Bytes in use over every event of the "
	    "target.", write_total, 0 },
	{ "connection_bytes", GAUGE, "The server's own count of the target "
	    "thread's memory, read each tick (MySQL threads.TOTAL_MEMORY, "
	    "MariaDB PROCESSLIST.MEMORY_USED; see --rows-every).",
	    write_connection, 0 },
	{ "memory_events_age_seconds", GAUGE, "How long ago the series by "
	    "event were read: older than the sample when it carries a thread's "
	    "total only, its events as last read (--rows-every).",
	    write_events_age, 0 },
	{ "process_resident_bytes", GAUGE, "Resident memory of the server's "
	    "process (VmRSS of /proc/PID/status; --global on the server's "
	    "machine only).", write_process, 0 },
	{ "process_anon_bytes", GAUGE, "Of it, anonymous memory (heaps, "
	    "stacks).", write_process, 0 },
	{ "untracked_bytes", GAUGE, "Resident memory performance_schema does "
	    "not count: process_resident_bytes less memory_total_bytes.",
	    write_process, 0 },
	{ "status_memory_bytes", GAUGE, "The server's own count of its "
	    "sessions' memory (MariaDB Memory_used, MySQL "
	    "Global_connection_memory while tracked).", write_process, 0 },
	{ "cgroup_usage_bytes", GAUGE, "Memory charged to the server's "
	    "memory cgroup (memory.current; v1 memory.usage_in_bytes).",
	    write_cgroup, 0 },
	{ "cgroup_limit_bytes", GAUGE, "The limit of that cgroup the kernel's "
	    "OOM killer acts on, the lowest on its way up; +Inf: none.",
	    write_cgroup, 0 },
	{ "cgroup_oom_kills_total", COUNTER, "Processes the OOM killer killed "
	    "in that cgroup (memory.events oom_kill; v1 memory.oom_control).",
	    write_cgroup, 0 },
	{ "cgroup_high_bytes", GAUGE, "cgroup v2: the memory.high of that "
	    "cgroup, the lowest on its way up, over which the kernel throttles "
	    "it; absent: none.", write_cgroup, 0 },
	{ "cgroup_high_events_total", COUNTER, "cgroup v2: the times it went "
	    "over memory.high and was throttled (memory.events high).",
	    write_cgroup, 0 },
	{ "cgroup_pressure_some_ratio", GAUGE, "cgroup v2: the share of the "
	    "last 10 s some of its tasks waited for memory (memory.pressure "
	    "some avg10); absent without PSI.", write_cgroup, 0 },
	{ "cgroup_pressure_full_ratio", GAUGE, "cgroup v2: the share of the "
	    "last 10 s all of its tasks waited for memory (memory.pressure "
	    "full avg10); absent without PSI.", write_cgroup, 0 },
	{ "connection_memory_limit_bytes", GAUGE, "MySQL's "
	    "connection_memory_limit, where set (a thread's target only).",
	    write_limit, 0 },
	{ "connection_memory_limit_ratio", GAUGE, "The target's total over "
	    "connection_memory_limit, where set.", write_limit, 0 },
	{ "memory_used_bytes", GAUGE, "Bytes in use by event "
	    "(CURRENT_NUMBER_OF_BYTES_USED).", write_event, EV_USED },
	{ "memory_high_bytes", GAUGE, "High-water mark of bytes in use by "
	    "event (HIGH_NUMBER_OF_BYTES_USED).", write_event, EV_HIGH },
	{ "memory_used_allocations", GAUGE, "Allocations in use by event "
	    "(CURRENT_COUNT_USED).", write_event, EV_COUNT },
	{ "memory_allocated_bytes_total", COUNTER, "Bytes allocated by event "
	    "(SUM_NUMBER_OF_BYTES_ALLOC).", write_event, EV_ALLOC },
	{ "memory_freed_bytes_total", COUNTER, "Bytes freed by event "
	    "(SUM_NUMBER_OF_BYTES_FREE).", write_event, EV_FREE },
	{ "memory_allocations_total", COUNTER, "Allocations by event "
	    "(COUNT_ALLOC).", write_event, EV_ALLOCS },
	{ "memory_frees_total", COUNTER, "Frees by event (COUNT_FREE).",
	    write_event, EV_FREES },
	{ "layer_bytes", GAUGE, "The server's memory in layers, as --explain "
	    "gives them, read every --layers-every seconds, 60 by default, "
	    "none with 0 (--global; the process's layers on the server's "
	    "machine only; a layer is part of another: see the manual).",
	    write_layers, 0 },
	{ "allocator_arenas", GAUGE, "glibc malloc's arenas in the server's "
	    "process, from its maps (glibc only).", write_gap_figures, 0 },
	{ "advice_lines", GAUGE, "Lines of advice --explain would give now: "
	    "layers past their thresholds.", write_gap_figures, 0 },
	{ "thread_memory_bytes", GAUGE, "Bytes in use by the --top threads of "
	    "the whole server (--global only).", write_threads, 0 },
	{ "series_dropped", GAUGE, "Labelled series left out by "
	    "--max-series.", write_dropped, 0 },
};

int
metrics_render(FILE *fp, const struct metrics_view *v, enum metrics_format f)
{
	for (size_t i = 0; i < sizeof(families) / sizeof(families[0]); i++) {
		const struct family *m = &families[i];
		int len = (int)strlen(m->name);

		const char *type = m->type == COUNTER ? "counter" : "gauge";

		/* OpenMetrics names the family without the sample's suffix. */
		if (f == METRICS_OPENMETRICS && m->type == COUNTER)
			len -= (int)strlen("_total");
		if (f == METRICS_OPENMETRICS && m->type == INFO) {
			len -= (int)strlen("_info");
			type = "info";
		}
		fprintf(fp, "# HELP " PREFIX "%.*s %s\n", len, m->name, m->help);
		fprintf(fp, "# TYPE " PREFIX "%.*s %s\n", len, m->name, type);
		m->write(fp, m, v);
	}
	if (f == METRICS_OPENMETRICS)
		fputs("# EOF\n", fp);
	return fflush(fp) == 0 && !ferror(fp) ? 0 : -1;
}
