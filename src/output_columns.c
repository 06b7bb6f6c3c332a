/*
 * The output columns, each described once: CSV's headers and rows, JSON's
 * keys and values and the --list table of every format come from these
 * lists. A new column is a getter and a row here, and its count in
 * output_format.h; the golden files then show it in every format.
 *
 * The getters say when a value is null, so every format agrees on it.
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "names.h"
#include "output.h"
#include "output_format.h"

/* A string the server may not have given, or an empty one that says unknown. */
static bool
text_or_null(const char *s, union column_value *v)
{
	v->s = s;
	v->len = s != NULL ? strlen(s) : 0;
	return s != NULL;
}

static bool
known_text(const char *s, union column_value *v)
{
	v->s = s;
	v->len = strlen(s);
	return s[0] != '\0';
}

/* The sample's columns. */

static bool
sample_seq(const struct sample_row *r, union column_value *v)
{
	v->u = r->s->seq;
	return true;
}

static bool
sample_elapsed_ms(const struct sample_row *r, union column_value *v)
{
	v->u = r->s->elapsed_us / 1000;
	return true;
}

static bool
sample_timestamp(const struct sample_row *r, union column_value *v)
{
	/* utc_format()'s digits and separators need no escape. */
	v->plain = true;
	return text_or_null(r->timestamp, v);
}

/* A grain other than a thread has no thread id: the grain names it. */
static bool
sample_thread_id(const struct sample_row *r, union column_value *v)
{
	v->u = r->s->thread_id;
	return r->o->grain == NULL;
}

static bool
sample_total_bytes(const struct sample_row *r, union column_value *v)
{
	v->i = r->s->total_bytes;
	return true;
}

static bool
sample_late_us(const struct sample_row *r, union column_value *v)
{
	v->u = r->s->late_us;
	return true;
}

static bool
sample_query_us(const struct sample_row *r, union column_value *v)
{
	v->u = r->s->query_us;
	return true;
}

static bool
sample_gap_ms(const struct sample_row *r, union column_value *v)
{
	v->u = r->s->gap_ms;
	return true;
}

static bool
sample_statement_id(const struct sample_row *r, union column_value *v)
{
	v->u = r->s->statement.id;
	return r->s->statement.has_id;
}

static bool
sample_digest(const struct sample_row *r, union column_value *v)
{
	return known_text(r->s->statement.digest, v);
}

static bool
sample_statement(const struct sample_row *r, union column_value *v)
{
	/* Whole, NUL bytes too: each format escapes them its own way. */
	v->s = r->s->statement.text;
	v->len = statement_text_len(&r->s->statement);
	return v->len > 0;
}

static bool
sample_grain(const struct sample_row *r, union column_value *v)
{
	return text_or_null(r->o->grain, v);
}

/* Without --events or --exclude, no filtered total is known. */
static bool
sample_filtered_total(const struct sample_row *r, union column_value *v)
{
	v->i = r->s->filtered_total_bytes;
	return r->o->filtered;
}

/* "memory_instruments,thread_instrumented": what was switched off. */
static bool
sample_setup_off(const struct sample_row *r, union column_value *v)
{
	static const char *const names[8] = {
		NULL,
		"memory_instruments",
		"statements_consumer",
		"memory_instruments,statements_consumer",
		"thread_instrumented",
		"memory_instruments,thread_instrumented",
		"statements_consumer,thread_instrumented",
		"memory_instruments,statements_consumer,thread_instrumented",
	};

	return text_or_null(names[r->s->setup_off & 7], v);
}

/* 1 for a reading taken while waiting, before the capture began. */
static bool
sample_waiting(const struct sample_row *r, union column_value *v)
{
	v->u = r->s->waiting ? 1 : 0;
	return true;
}

/* 1: the events are an earlier sample's, not read again (beat.h). */
static bool
sample_events_kept(const struct sample_row *r, union column_value *v)
{
	v->u = r->s->events_kept ? 1 : 0;
	return true;
}

/*
 * The server's own count of the thread's memory this tick (total.h): null
 * where none was read (a grain, --rows-every 0, a server without one).
 */
static bool
sample_connection_bytes(const struct sample_row *r, union column_value *v)
{
	v->i = r->s->connection_bytes;
	return r->s->has_connection_bytes;
}

/*
 * The server's process beside the sample (--global on the server's
 * machine): null when it was not read, never a guess.
 */
static bool
sample_process_resident(const struct sample_row *r, union column_value *v)
{
	v->i = r->s->process.resident_bytes;
	return r->s->process.known;
}

static bool
sample_process_anon(const struct sample_row *r, union column_value *v)
{
	v->i = r->s->process.anon_bytes;
	return r->s->process.known;
}

/*
 * Resident memory performance_schema does not count; may be below 0. A
 * total beyond any process (a hand-made capture) gives null.
 */
static bool
sample_untracked_row(const struct sample_row *r, union column_value *v)
{
	return sample_untracked(r->s, &v->i);
}

static bool
sample_status_memory(const struct sample_row *r, union column_value *v)
{
	v->i = r->s->process.status_bytes;
	return r->s->process.has_status;
}

/*
 * The server's memory cgroup (cgroup.h): null without one; its limit null
 * when none is set, its OOM kills null where the kernel counts none.
 */
static bool
sample_cgroup_usage(const struct sample_row *r, union column_value *v)
{
	v->i = r->s->process.cgroup_usage_bytes;
	return r->s->process.has_cgroup;
}

/* A figure of the cgroup: null without one, or below 0 (none, not counted). */
static bool
cgroup_figure(const struct sample_row *r, int64_t n, union column_value *v)
{
	v->i = n;
	return r->s->process.has_cgroup && n >= 0;
}

static bool
sample_cgroup_limit(const struct sample_row *r, union column_value *v)
{
	return cgroup_figure(r, r->s->process.cgroup_limit_bytes, v);
}

static bool
sample_cgroup_oom_kills(const struct sample_row *r, union column_value *v)
{
	return cgroup_figure(r, r->s->process.cgroup_oom_kills, v);
}

/* v2's memory.high and its events, memory.pressure's avg10: null on v1. */
static bool
sample_cgroup_high(const struct sample_row *r, union column_value *v)
{
	return cgroup_figure(r, r->s->process.cgroup_high_bytes, v);
}

static bool
sample_cgroup_high_events(const struct sample_row *r, union column_value *v)
{
	return cgroup_figure(r, r->s->process.cgroup_high_events, v);
}

static bool
sample_cgroup_pressure_some(const struct sample_row *r,
    union column_value *v)
{
	return cgroup_figure(r, r->s->process.cgroup_pressure_some, v);
}

static bool
sample_cgroup_pressure_full(const struct sample_row *r,
    union column_value *v)
{
	return cgroup_figure(r, r->s->process.cgroup_pressure_full, v);
}

/* An event's columns: r->e is never NULL here (see sample_column_get). */

static bool
event_name(const struct sample_row *r, union column_value *v)
{
	const struct event_name *n = r->e->interned;

	v->s = r->e->name;
	v->len = n != NULL ? n->len : strlen(r->e->name);
	v->plain = n != NULL && n->plain;
	return true;
}

static bool
event_current_bytes(const struct sample_row *r, union column_value *v)
{
	v->i = r->e->current_bytes;
	return true;
}

static bool
event_current_count(const struct sample_row *r, union column_value *v)
{
	v->i = r->e->current_count;
	return true;
}

static bool
event_high_bytes(const struct sample_row *r, union column_value *v)
{
	v->i = r->e->high_bytes;
	return true;
}

static bool
event_alloc_bytes(const struct sample_row *r, union column_value *v)
{
	v->u = r->e->alloc_bytes;
	return true;
}

static bool
event_free_bytes(const struct sample_row *r, union column_value *v)
{
	v->u = r->e->free_bytes;
	return true;
}

static bool
event_alloc_count(const struct sample_row *r, union column_value *v)
{
	v->u = r->e->alloc_count;
	return true;
}

static bool
event_free_count(const struct sample_row *r, union column_value *v)
{
	v->u = r->e->free_count;
	return true;
}

/* The first sample has nothing to compare with: its deltas are null, not 0. */

static bool
event_alloc_delta_bytes(const struct sample_row *r, union column_value *v)
{
	v->u = r->e->delta.alloc_bytes;
	return r->s->has_deltas;
}

static bool
event_free_delta_bytes(const struct sample_row *r, union column_value *v)
{
	v->u = r->e->delta.free_bytes;
	return r->s->has_deltas;
}

static bool
event_alloc_delta_count(const struct sample_row *r, union column_value *v)
{
	v->u = r->e->delta.alloc_count;
	return r->s->has_deltas;
}

static bool
event_free_delta_count(const struct sample_row *r, union column_value *v)
{
	v->u = r->e->delta.free_count;
	return r->s->has_deltas;
}

/* The high-water mark, when no sample saw it; null otherwise. */
static bool
event_unseen_peak(const struct sample_row *r, union column_value *v)
{
	v->i = r->e->high_bytes;
	return r->s->has_deltas && r->e->delta.unseen_peak;
}

/*
 * The lower bound of a peak between samples that the deltas prove even
 * when the high-water mark does not rise (sample.h); null otherwise.
 */
static bool
event_spike_lower(const struct sample_row *r, union column_value *v)
{
	v->i = r->e->delta.spike_bytes;
	return r->s->has_deltas && r->e->delta.spike_bytes > 0;
}

#define S COLUMN_SAMPLE
#define E COLUMN_EVENT
/* An event column that is a field of struct event_stat (output_format.h). */
#define AT(field) .at = offsetof(struct event_stat, field) + 1
#define DELTA(field) AT(delta.field), .deltas = true
/* One the getter computes, or a sample column. */
#define GETTER .at = 0

const struct sample_column sample_columns[] = {
	{ "sample",            S, COLUMN_UINT, sample_seq, GETTER },
	{ "elapsed_ms",        S, COLUMN_UINT, sample_elapsed_ms, GETTER },
	{ "timestamp",         S, COLUMN_NAME, sample_timestamp, GETTER },
	{ "thread_id",         S, COLUMN_UINT, sample_thread_id, GETTER },
	{ "event_name",        E, COLUMN_NAME, event_name, GETTER },
	{ "current_bytes",     E, COLUMN_INT,  event_current_bytes,
	    AT(current_bytes) },
	{ "current_count",     E, COLUMN_INT,  event_current_count,
	    AT(current_count) },
	{ "high_bytes",        E, COLUMN_INT,  event_high_bytes,
	    AT(high_bytes) },
	{ "alloc_bytes",       E, COLUMN_UINT, event_alloc_bytes,
	    AT(alloc_bytes) },
	{ "free_bytes",        E, COLUMN_UINT, event_free_bytes,
	    AT(free_bytes) },
	{ "alloc_count",       E, COLUMN_UINT, event_alloc_count,
	    AT(alloc_count) },
	{ "free_count",        E, COLUMN_UINT, event_free_count,
	    AT(free_count) },
	{ "total_bytes",       S, COLUMN_INT,  sample_total_bytes, GETTER },
	{ "late_us",           S, COLUMN_UINT, sample_late_us, GETTER },
	{ "query_us",          S, COLUMN_UINT, sample_query_us, GETTER },
	{ "gap_ms",            S, COLUMN_UINT, sample_gap_ms, GETTER },
	{ "alloc_delta_bytes", E, COLUMN_UINT, event_alloc_delta_bytes,
	    DELTA(alloc_bytes) },
	{ "free_delta_bytes",  E, COLUMN_UINT, event_free_delta_bytes,
	    DELTA(free_bytes) },
	{ "alloc_delta_count", E, COLUMN_UINT, event_alloc_delta_count,
	    DELTA(alloc_count) },
	{ "free_delta_count",  E, COLUMN_UINT, event_free_delta_count,
	    DELTA(free_count) },
	{ "unseen_peak_bytes", E, COLUMN_INT,  event_unseen_peak, GETTER },
	{ "spike_lower_bytes", E, COLUMN_INT,  event_spike_lower, GETTER },
	{ "statement_id",      S, COLUMN_UINT, sample_statement_id, GETTER },
	{ "digest",            S, COLUMN_TEXT, sample_digest, GETTER },
	{ "statement",         S, COLUMN_TEXT, sample_statement, GETTER },
	{ "grain",             S, COLUMN_TEXT, sample_grain, GETTER },
	{ "filtered_total_bytes", S, COLUMN_INT, sample_filtered_total,
	    GETTER },
	{ "setup_off",         S, COLUMN_TEXT, sample_setup_off, GETTER },
	{ "waiting",           S, COLUMN_UINT, sample_waiting, GETTER },
	{ "events_kept",       S, COLUMN_UINT, sample_events_kept, GETTER },
	{ "connection_bytes",  S, COLUMN_INT,  sample_connection_bytes,
	    GETTER },
	{ "process_resident_bytes", S, COLUMN_INT, sample_process_resident,
	    GETTER },
	{ "process_anon_bytes", S, COLUMN_INT, sample_process_anon, GETTER },
	{ "untracked_bytes",   S, COLUMN_INT,  sample_untracked_row, GETTER },
	{ "status_memory_bytes", S, COLUMN_INT, sample_status_memory, GETTER },
	{ "cgroup_usage_bytes", S, COLUMN_INT, sample_cgroup_usage, GETTER },
	{ "cgroup_limit_bytes", S, COLUMN_INT, sample_cgroup_limit, GETTER },
	{ "cgroup_oom_kills",  S, COLUMN_INT,  sample_cgroup_oom_kills, GETTER },
	{ "cgroup_high_bytes", S, COLUMN_INT,  sample_cgroup_high, GETTER },
	{ "cgroup_high_events", S, COLUMN_INT, sample_cgroup_high_events,
	    GETTER },
	{ "cgroup_pressure_some_bp", S, COLUMN_INT,
	    sample_cgroup_pressure_some, GETTER },
	{ "cgroup_pressure_full_bp", S, COLUMN_INT,
	    sample_cgroup_pressure_full, GETTER },
};
_Static_assert(sizeof(struct event_stat) < 65535, "an offset fits in at");
_Static_assert(sizeof(sample_columns) / sizeof(sample_columns[0]) ==
    SAMPLE_COLUMNS, "SAMPLE_COLUMNS is the number of rows of sample_columns");

#undef S
#undef E
#undef AT
#undef DELTA
#undef GETTER

/* The columns of --list. */

static bool
thread_id(const struct thread_info *t, union column_value *v)
{
	v->u = t->thread_id;
	return true;
}

/* Background threads have no connection. */
static bool
thread_conn(const struct thread_info *t, union column_value *v)
{
	v->u = t->connection_id;
	return t->has_connection;
}

static bool
thread_type(const struct thread_info *t, union column_value *v)
{
	return text_or_null(t->type, v);
}

static bool
thread_name(const struct thread_info *t, union column_value *v)
{
	return text_or_null(t->name, v);
}

static bool
thread_user(const struct thread_info *t, union column_value *v)
{
	return text_or_null(t->user, v);
}

static bool
thread_host(const struct thread_info *t, union column_value *v)
{
	return text_or_null(t->host, v);
}

static bool
thread_command(const struct thread_info *t, union column_value *v)
{
	return text_or_null(t->command, v);
}

static bool
thread_time(const struct thread_info *t, union column_value *v)
{
	v->i = t->time_s;
	return t->has_time;
}

static bool
thread_state(const struct thread_info *t, union column_value *v)
{
	return text_or_null(t->state, v);
}

static bool
thread_bytes(const struct thread_info *t, union column_value *v)
{
	v->i = t->current_bytes;
	return true;
}

static bool
thread_statement(const struct thread_info *t, union column_value *v)
{
	if (!text_or_null(t->statement, v))
		return false;
	/* A list made by hand (tests) may leave the length 0: up to the NUL. */
	if (t->statement_len > 0)
		v->len = t->statement_len;
	return true;
}

/* Text's heads are the ones users of the Python scripts know. */
const struct thread_column thread_columns[] = {
	{ "thread_id",     COLUMN_UINT, thread_id,        .head = "thread" },
	{ "connection_id", COLUMN_UINT, thread_conn,      .head = "conn" },
	{ "type",          COLUMN_TEXT, thread_type,      .head = NULL },
	{ "name",          COLUMN_TEXT, thread_name,      .head = "name",
	    .prefix = "thread/" },
	{ "user",          COLUMN_TEXT, thread_user,      .head = "user" },
	{ "host",          COLUMN_TEXT, thread_host,      .head = "host" },
	{ "command",       COLUMN_TEXT, thread_command,   .head = "command" },
	{ "time",          COLUMN_INT,  thread_time,      .head = "time" },
	{ "state",         COLUMN_TEXT, thread_state,     .head = "state" },
	{ "current_bytes", COLUMN_INT,  thread_bytes,     .head = "memory",
	    .bytes = true },
	{ "statement",     COLUMN_TEXT, thread_statement, .head = "statement" },
};
_Static_assert(sizeof(thread_columns) / sizeof(thread_columns[0]) ==
    THREAD_COLUMNS, "THREAD_COLUMNS is the number of rows of thread_columns");

/* The columns of --statements: one row per statement of the run. */

static bool
stmt_rank(const struct statement_row *r, union column_value *v)
{
	v->u = r->rank;
	return true;
}

static bool
stmt_thread_id(const struct statement_row *r, union column_value *v)
{
	v->u = r->thread_id;
	return true;
}

static bool
stmt_id(const struct statement_row *r, union column_value *v)
{
	v->u = r->st->statement.id;
	return r->st->statement.has_id;
}

static bool
stmt_digest(const struct statement_row *r, union column_value *v)
{
	return known_text(r->st->statement.digest, v);
}

static bool
stmt_text(const struct statement_row *r, union column_value *v)
{
	v->s = r->st->statement.text;
	v->len = statement_text_len(&r->st->statement);
	return v->len > 0;
}

static bool
stmt_first_sample(const struct statement_row *r, union column_value *v)
{
	v->u = r->st->first_seq;
	return true;
}

static bool
stmt_last_sample(const struct statement_row *r, union column_value *v)
{
	v->u = r->st->last_seq;
	return true;
}

static bool
stmt_first_timestamp(const struct statement_row *r, union column_value *v)
{
	return text_or_null(r->first_timestamp, v);
}

static bool
stmt_last_timestamp(const struct statement_row *r, union column_value *v)
{
	return text_or_null(r->last_timestamp, v);
}

/* From its first sample to its last: it ran at least this long. */
static bool
stmt_duration_ms(const struct statement_row *r, union column_value *v)
{
	v->u = (r->st->last_elapsed_us - r->st->first_elapsed_us) / 1000;
	return true;
}

static bool
stmt_samples(const struct statement_row *r, union column_value *v)
{
	v->u = r->st->samples;
	return true;
}

static bool
stmt_start_bytes(const struct statement_row *r, union column_value *v)
{
	v->i = r->st->start_bytes;
	return true;
}

/* The sampled peaks: none of a statement no sample saw. */
static bool
stmt_peak_bytes(const struct statement_row *r, union column_value *v)
{
	v->i = r->st->peak_bytes;
	return r->st->samples > 0;
}

static bool
stmt_between_peak_bytes(const struct statement_row *r, union column_value *v)
{
	v->i = r->st->between_peak_bytes;
	return r->st->samples > 0;
}

static bool
stmt_growth_bytes(const struct statement_row *r, union column_value *v)
{
	v->i = r->st->growth_bytes;
	return true;
}

static bool
stmt_alloc_bytes(const struct statement_row *r, union column_value *v)
{
	v->u = r->st->alloc_bytes;
	return true;
}

/* Whose its peak is: the server's own record ("server"), or the samples'. */
static bool
stmt_peak_source(const struct statement_row *r, union column_value *v)
{
	return text_or_null(r->st->exact ? "server" : "samples", v);
}

static bool
stmt_exact_peak_bytes(const struct statement_row *r, union column_value *v)
{
	v->i = r->st->exact_peak_bytes;
	return r->st->exact;
}

static bool
stmt_missed_bytes(const struct statement_row *r, union column_value *v)
{
	v->i = run_statement_missed(r->st);
	return v->i >= 0;
}

static bool
stmt_server_us(const struct statement_row *r, union column_value *v)
{
	v->u = r->st->server_us;
	return r->st->finished;
}

static bool
stmt_rows_sent(const struct statement_row *r, union column_value *v)
{
	v->u = r->st->rows_sent;
	return r->st->finished;
}

static bool
stmt_rows_examined(const struct statement_row *r, union column_value *v)
{
	v->u = r->st->rows_examined;
	return r->st->finished;
}

const struct statement_column statement_columns[] = {
	{ "rank",               COLUMN_UINT, stmt_rank },
	{ "thread_id",          COLUMN_UINT, stmt_thread_id },
	{ "statement_id",       COLUMN_UINT, stmt_id },
	{ "digest",             COLUMN_TEXT, stmt_digest },
	{ "statement",          COLUMN_TEXT, stmt_text },
	{ "first_sample",       COLUMN_UINT, stmt_first_sample },
	{ "last_sample",        COLUMN_UINT, stmt_last_sample },
	{ "first_timestamp",    COLUMN_TEXT, stmt_first_timestamp },
	{ "last_timestamp",     COLUMN_TEXT, stmt_last_timestamp },
	{ "duration_ms",        COLUMN_UINT, stmt_duration_ms },
	{ "samples",            COLUMN_UINT, stmt_samples },
	{ "start_bytes",        COLUMN_INT,  stmt_start_bytes },
	{ "peak_bytes",         COLUMN_INT,  stmt_peak_bytes },
	{ "between_peak_bytes", COLUMN_INT,  stmt_between_peak_bytes },
	{ "growth_bytes",       COLUMN_INT,  stmt_growth_bytes },
	{ "alloc_bytes",        COLUMN_UINT, stmt_alloc_bytes },
	{ "peak_source",        COLUMN_TEXT, stmt_peak_source },
	{ "exact_peak_bytes",   COLUMN_INT,  stmt_exact_peak_bytes },
	{ "missed_bytes",       COLUMN_INT,  stmt_missed_bytes },
	{ "server_duration_us", COLUMN_UINT, stmt_server_us },
	{ "rows_sent",          COLUMN_UINT, stmt_rows_sent },
	{ "rows_examined",      COLUMN_UINT, stmt_rows_examined },
};
_Static_assert(sizeof(statement_columns) / sizeof(statement_columns[0]) ==
    STATEMENT_COLUMNS,
    "STATEMENT_COLUMNS is the number of rows of statement_columns");
