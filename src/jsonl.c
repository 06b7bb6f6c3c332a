/*
 * A line of --format json back into a struct sample (see jsonl.h). The keys
 * are the columns of output_columns.c: what a getter writes as null comes
 * back as the state that made it null (no deltas in the first sample, no
 * statement id, no grain). The sample-level keys a sample always has are
 * required, so that another program's JSON is told apart at once.
 */
#include <inttypes.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "delta.h"
#include "jsonl.h"
#include "statement.h"
#include "utc.h"

struct ctx {
	char *err;
	size_t errlen;
};

static int
fail(struct ctx *c, const char *what, const char *key)
{
	snprintf(c->err, c->errlen, "not a mysqlmemprof sample: %s \"%s\"; "
	    "--read takes what --format json wrote", what, key);
	return -1;
}

/*
 * An integer key; null allowed only when known is not NULL. A counter of
 * what was ever done (get_uint()) may be as large as JSON's integers; a
 * figure of what is held now, not beyond JSONL_MAX_HELD.
 */
static int
get_number(struct ctx *c, json_t *o, const char *key, int64_t *v,
    bool *known)
{
	json_t *x = json_object_get(o, key);

	if (x == NULL)
		return fail(c, "no key", key);
	if (json_is_null(x) && known != NULL) {
		*known = false;
		*v = 0;
		return 0;
	}
	if (!json_is_integer(x))
		return fail(c, "not an integer:", key);
	*v = (int64_t)json_integer_value(x);
	if (known != NULL)
		*known = true;
	return 0;
}

static int
get_int(struct ctx *c, json_t *o, const char *key, int64_t *v, bool *known)
{
	if (get_number(c, o, key, v, known) != 0)
		return -1;
	if (*v > JSONL_MAX_HELD || *v < -JSONL_MAX_HELD)
		return fail(c, "a figure beyond 1 PiB, which no server reports, "
		    "at", key);
	return 0;
}

/*
 * A key later versions added: a capture written before it has none, read
 * as null.
 */
static int
get_int_added(struct ctx *c, json_t *o, const char *key, int64_t *v,
    bool *known)
{
	if (json_object_get(o, key) == NULL) {
		*known = false;
		*v = 0;
		return 0;
	}
	return get_int(c, o, key, v, known);
}

static int
get_uint(struct ctx *c, json_t *o, const char *key, uint64_t *v, bool *known)
{
	int64_t i;

	if (get_number(c, o, key, &i, known) != 0)
		return -1;
	if (i < 0)
		return fail(c, "a negative count:", key);
	*v = (uint64_t)i;
	return 0;
}

/* A string key or null: *s NULL for null. */
static int
get_text(struct ctx *c, json_t *o, const char *key, const char **s,
    size_t *len)
{
	json_t *x = json_object_get(o, key);

	if (x == NULL)
		return fail(c, "no key", key);
	if (json_is_null(x)) {
		*s = NULL;
		*len = 0;
		return 0;
	}
	if (!json_is_string(x))
		return fail(c, "not a string:", key);
	*s = json_string_value(x);
	*len = json_string_length(x);
	return 0;
}

/*
 * "2026-11-21T23:49:56.123Z", as utc_format() writes it; before 2262,
 * whose nanoseconds since 1970 (pprof's) would not fit in int64_t.
 */
static int
parse_timestamp(struct ctx *c, const char *t, int64_t *wall_ms)
{
	/* 2262-01-01T00:00:00.000Z */
	static const int64_t pprof_end_ms = 9214646400000;
	int64_t ms;

	if (t == NULL || utc_scan(t, UTC_STAMP, &ms, NULL) != 0 || ms < 0 ||
	    ms >= pprof_end_ms)
		return fail(c, "not a timestamp like 2026-01-31T12:00:00.000Z:",
		    "timestamp");
	*wall_ms = ms;
	return 0;
}

static int
parse_setup_off(struct ctx *c, const char *v, unsigned *off)
{
	static const struct { const char *name; unsigned bit; } names[] = {
		{ "memory_instruments", SETUP_OFF_MEMORY },
		{ "statements_consumer", SETUP_OFF_STATEMENTS },
		{ "thread_instrumented", SETUP_OFF_THREAD },
	};

	*off = 0;
	while (v != NULL && *v != '\0') {
		size_t n = strcspn(v, ","), i;

		for (i = 0; i < 3; i++)
			if (strlen(names[i].name) == n &&
			    strncmp(v, names[i].name, n) == 0)
				break;
		if (i == 3)
			return fail(c, "an unknown name in", "setup_off");
		*off |= names[i].bit;
		v += n + (v[n] == ',');
	}
	return 0;
}

static int
parse_event(struct ctx *c, json_t *o, struct event_stat *e, bool *deltas)
{
	const char *name;
	size_t len;
	bool known[6];
	int64_t peak;

	if (!json_is_object(o))
		return fail(c, "an event that is not an object in", "events");
	if (get_text(c, o, "event_name", &name, &len) != 0 ||
	    get_int(c, o, "current_bytes", &e->current_bytes, NULL) != 0 ||
	    get_int(c, o, "current_count", &e->current_count, NULL) != 0 ||
	    get_int(c, o, "high_bytes", &e->high_bytes, NULL) != 0 ||
	    get_uint(c, o, "alloc_bytes", &e->alloc_bytes, NULL) != 0 ||
	    get_uint(c, o, "free_bytes", &e->free_bytes, NULL) != 0 ||
	    get_uint(c, o, "alloc_count", &e->alloc_count, NULL) != 0 ||
	    get_uint(c, o, "free_count", &e->free_count, NULL) != 0 ||
	    get_uint(c, o, "alloc_delta_bytes", &e->delta.alloc_bytes,
	    &known[0]) != 0 ||
	    get_uint(c, o, "free_delta_bytes", &e->delta.free_bytes,
	    &known[1]) != 0 ||
	    get_uint(c, o, "alloc_delta_count", &e->delta.alloc_count,
	    &known[2]) != 0 ||
	    get_uint(c, o, "free_delta_count", &e->delta.free_count,
	    &known[3]) != 0 ||
	    get_int(c, o, "unseen_peak_bytes", &peak, &known[4]) != 0 ||
	    get_int_added(c, o, "spike_lower_bytes", &e->delta.spike_bytes,
	    &known[5]) != 0)
		return -1;
	statement_copy(e->name, EVENT_NAME_MAX, name, name != NULL ? len : 0);
	e->delta.unseen_peak = known[4];
	*deltas = known[0];
	return 0;
}

static int
parse_events(struct ctx *c, json_t *root, struct sample *s, size_t max)
{
	json_t *a = json_object_get(root, "events");
	bool deltas = s->seq > 1;

	if (a == NULL)
		return fail(c, "no key", "events");
	if (!json_is_array(a))
		return fail(c, "not an array:", "events");
	if (json_array_size(a) > max) {
		snprintf(c->err, c->errlen, "%zu events in one sample, more "
		    "than the %zu --read takes", json_array_size(a), max);
		return -1;
	}
	s->n_events = json_array_size(a);
	for (size_t i = 0; i < s->n_events; i++) {
		memset(&s->events[i], 0, sizeof(s->events[i]));
		if (parse_event(c, json_array_get(a, i), &s->events[i],
		    &deltas) != 0)
			return -1;
	}
	s->has_deltas = deltas;
	return 0;
}

static int
parse_statement(struct ctx *c, json_t *root, struct sample *s)
{
	const char *digest, *text;
	size_t dlen, tlen;
	bool has_id;

	if (get_uint(c, root, "statement_id", &s->statement.id, &has_id) != 0 ||
	    get_text(c, root, "digest", &digest, &dlen) != 0 ||
	    get_text(c, root, "statement", &text, &tlen) != 0)
		return -1;
	s->statement.has_id = has_id;
	s->statement.thread_id = s->thread_id;
	statement_copy(s->statement.digest, STATEMENT_DIGEST_MAX, digest, dlen);
	statement_set_text(&s->statement, text, tlen);
	return 0;
}

/*
 * The server's memory cgroup (added keys): its other figures only beside a
 * usage; null, -1 as cgroup.h has it (none, not counted).
 */
static int
parse_cgroup(struct ctx *c, json_t *root, struct process_memory *p)
{
	static const char *const keys[] = { "cgroup_limit_bytes",
	    "cgroup_high_bytes", "cgroup_high_events", "cgroup_oom_kills",
	    "cgroup_pressure_some_bp", "cgroup_pressure_full_bp" };
	int64_t *v[] = { &p->cgroup_limit_bytes, &p->cgroup_high_bytes,
	    &p->cgroup_high_events, &p->cgroup_oom_kills,
	    &p->cgroup_pressure_some, &p->cgroup_pressure_full };
	bool known;

	if (get_int_added(c, root, "cgroup_usage_bytes", &p->cgroup_usage_bytes,
	    &p->has_cgroup) != 0)
		return -1;
	if (p->cgroup_usage_bytes < 0)
		return fail(c, "cgroup figures that disagree, at",
		    "cgroup_usage_bytes");
	for (size_t i = 0; i < sizeof(keys) / sizeof(keys[0]); i++) {
		if (get_int_added(c, root, keys[i], v[i], &known) != 0)
			return -1;
		if ((known && !p->has_cgroup) || *v[i] < 0)
			return fail(c, "cgroup figures that disagree, at",
			    keys[i]);
		if (!known && p->has_cgroup)
			*v[i] = -1;
	}
	return 0;
}

/*
 * The server's process (added keys): untracked_bytes is resident less
 * total_bytes, so it is read to check, not kept.
 */
static int
parse_process(struct ctx *c, json_t *root, struct sample *s,
    int64_t *untracked)
{
	struct process_memory *p = &s->process;
	bool anon, gap, overflow;
	int64_t diff = 0;

	if (get_int_added(c, root, "process_resident_bytes",
	    &p->resident_bytes, &p->known) != 0 ||
	    get_int_added(c, root, "process_anon_bytes", &p->anon_bytes,
	    &anon) != 0 ||
	    get_int_added(c, root, "untracked_bytes", untracked, &gap) != 0 ||
	    get_int_added(c, root, "status_memory_bytes", &p->status_bytes,
	    &p->has_status) != 0)
		return -1;
	overflow = p->known && !sample_untracked(s, &diff);

	/* What output_columns.c writes: null for a total beyond any process. */
	if (p->known != anon || gap != (p->known && !overflow) || (gap &&
	    *untracked != diff) || (p->known && (p->anon_bytes < 0 ||
	    p->anon_bytes > p->resident_bytes)))
		return fail(c, "process figures that disagree, at",
		    "process_resident_bytes");
	p->file_bytes = p->known ? p->resident_bytes - p->anon_bytes : 0;
	return parse_cgroup(c, root, p);
}

/* One of "finished", as output_json.c writes it. */
static int
parse_one_finished(struct ctx *c, json_t *o, uint64_t thread_id,
    struct finished_statement *f)
{
	const char *digest, *text;
	size_t dlen, tlen;
	bool has_peak;

	if (!json_is_object(o))
		return fail(c, "not an object in", "finished");
	memset(f, 0, sizeof(*f));
	if (get_uint(c, o, "statement_id", &f->statement.id, NULL) != 0 ||
	    get_uint(c, o, "end_id", &f->end_id, NULL) != 0 ||
	    get_text(c, o, "digest", &digest, &dlen) != 0 ||
	    get_text(c, o, "statement", &text, &tlen) != 0 ||
	    get_uint(c, o, "duration_us", &f->duration_us, NULL) != 0 ||
	    get_uint(c, o, "rows_sent", &f->rows_sent, NULL) != 0 ||
	    get_uint(c, o, "rows_examined", &f->rows_examined, NULL) != 0 ||
	    get_int(c, o, "peak_bytes", &f->peak_bytes, &has_peak) != 0 ||
	    get_uint(c, o, "lost_before", &f->lost_before, NULL) != 0)
		return -1;
	f->has_peak = has_peak;
	f->statement.thread_id = thread_id;
	f->statement.has_id = true;
	f->statement.ended = true;
	statement_copy(f->statement.digest, STATEMENT_DIGEST_MAX, digest, dlen);
	statement_set_text(&f->statement, text, tlen);
	return 0;
}

/*
 * "finished", which captures before it lack: into meta's storage, grown
 * as needed; s->finished points there until the next line.
 */
static int
parse_finished(struct ctx *c, json_t *root, struct sample *s,
    struct jsonl_meta *meta)
{
	json_t *a = json_object_get(root, "finished");
	size_t n;

	if (a == NULL)
		return 0;
	if (!json_is_array(a))
		return fail(c, "not an array:", "finished");
	if ((n = json_array_size(a)) == 0)
		return 0;
	if (n > meta->finished_cap) {
		struct finished_statement *f = realloc(meta->finished,
		    n * sizeof(*f));

		if (f == NULL) {
			snprintf(c->err, c->errlen, "out of memory");
			return -1;
		}
		meta->finished = f;
		meta->finished_cap = n;
	}
	for (size_t i = 0; i < n; i++)
		if (parse_one_finished(c, json_array_get(a, i), s->thread_id,
		    &meta->finished[i]) != 0)
			return -1;
	s->finished = meta->finished;
	s->n_finished = n;
	return 0;
}

/*
 * A sample with events of its own is kept for the lines after it that
 * repeat them ("events_kept": 1, written without); such a line gets them
 * back, or none when no sample before had any.
 */
static int
keep_events(struct ctx *c, struct sample *s, size_t max,
    struct jsonl_meta *meta, bool kept)
{
	size_t n;

	if (kept && s->n_events == 0) {
		n = meta->n_kept < max ? meta->n_kept : max;
		if (n > 0) /* kept is NULL before any */
			memcpy(s->events, meta->kept, n * sizeof(*s->events));
		/* Not read again: nothing happened to them since, as seen. */
		for (size_t i = 0; i < n; i++)
			s->events[i].delta = (struct event_delta){ 0 };
		s->n_events = n;
		return 0;
	}
	if (s->n_events > meta->kept_cap) {
		struct event_stat *k = realloc(meta->kept, s->n_events *
		    sizeof(*k));

		if (k == NULL)
			return fail(c, "out of memory at", "events");
		meta->kept = k;
		meta->kept_cap = s->n_events;
	}
	if (s->n_events > 0)
		memcpy(meta->kept, s->events, s->n_events *
		    sizeof(*s->events));
	meta->n_kept = s->n_events;
	return 0;
}

void
jsonl_meta_free(struct jsonl_meta *meta)
{
	free(meta->finished);
	free(meta->kept);
	memset(meta, 0, sizeof(*meta));
}

static int
parse_sample(struct ctx *c, json_t *root, struct sample *s, size_t max,
    struct jsonl_meta *meta)
{
	const char *ts, *grain, *off;
	size_t len;
	bool known;
	uint64_t elapsed_ms;
	int64_t waiting, untracked, kept;

	if (get_uint(c, root, "sample", &s->seq, NULL) != 0 ||
	    get_uint(c, root, "elapsed_ms", &elapsed_ms, NULL) != 0 ||
	    get_text(c, root, "timestamp", &ts, &len) != 0 ||
	    parse_timestamp(c, ts, &s->wall_ms) != 0 ||
	    get_uint(c, root, "thread_id", &s->thread_id, &known) != 0 ||
	    get_int(c, root, "total_bytes", &s->total_bytes, NULL) != 0 ||
	    get_uint(c, root, "late_us", &s->late_us, NULL) != 0 ||
	    get_uint(c, root, "query_us", &s->query_us, NULL) != 0 ||
	    get_uint(c, root, "gap_ms", &s->gap_ms, NULL) != 0 ||
	    parse_events(c, root, s, max) != 0 ||
	    parse_statement(c, root, s) != 0 ||
	    get_text(c, root, "grain", &grain, &len) != 0 ||
	    get_int(c, root, "filtered_total_bytes", &s->filtered_total_bytes,
	    &meta->filtered) != 0 ||
	    get_text(c, root, "setup_off", &off, &len) != 0 ||
	    parse_setup_off(c, off, &s->setup_off) != 0 ||
	    get_int_added(c, root, "waiting", &waiting, &known) != 0 ||
	    get_int_added(c, root, "events_kept", &kept, &known) != 0 ||
	    get_int_added(c, root, "connection_bytes", &s->connection_bytes,
	    &s->has_connection_bytes) != 0 ||
	    parse_process(c, root, s, &untracked) != 0 ||
	    parse_finished(c, root, s, meta) != 0 ||
	    keep_events(c, s, max, meta, kept != 0) != 0)
		return -1;
	s->waiting = waiting != 0;
	s->events_kept = kept != 0;
	if (s->seq == 0)
		return fail(c, "sample 0 in", "sample");
	/* In nanoseconds (pprof's) it must fit: 292 years. */
	if (elapsed_ms > INT64_MAX / 1000000)
		return fail(c, "a time no capture ran, at", "elapsed_ms");
	s->elapsed_us = elapsed_ms * 1000;
	/*
	 * What the sampler summed over every event read, summed again over
	 * the events the capture kept: the same when --top 0 kept them all.
	 */
	delta_sums(s, s->events, s->n_events);
	if (!meta->filtered)
		s->filtered_total_bytes = s->total_bytes;
	meta->has_grain = grain != NULL;
	snprintf(meta->grain, sizeof(meta->grain), "%s",
	    grain != NULL ? grain : "");
	return 0;
}

/*
 * The lines that are not samples but belong among them: a capture's
 * ("capture": what follows is of it), those --record writes beside its
 * samples, and --explain's answer at the end of a run. A --list line's
 * "type" (FOREGROUND) is none of them.
 */
static bool
passed_over(const char *type)
{
	static const char *const types[] = {
		"capture", "record", "connections", "incident", "explain",
	};

	for (size_t i = 0; type != NULL && i < sizeof(types) /
	    sizeof(types[0]); i++)
		if (strcmp(type, types[i]) == 0)
			return true;
	return false;
}

int
jsonl_sample(const char *line, size_t len, struct sample *s,
    size_t max_events, struct jsonl_meta *meta, char *err, size_t errlen)
{
	struct ctx c = { .err = err, .errlen = errlen };
	struct event_stat *events = s->events;
	json_error_t je;
	json_t *root;
	int rc;

	root = json_loadb(line, len, JSON_ALLOW_NUL | JSON_REJECT_DUPLICATES,
	    &je);
	if (root == NULL) {
		snprintf(err, errlen, "not JSON (%s, at character %d); --read "
		    "takes what --format json wrote", je.text, je.position);
		return -1;
	}
	memset(s, 0, sizeof(*s));
	s->events = events;
	if (!json_is_object(root)) {
		snprintf(err, errlen, "not a mysqlmemprof sample: %s, not an "
		    "object; --read takes what --format json wrote",
		    json_is_array(root) ? "an array" : "a bare value");
		rc = -1;
	} else if (passed_over(json_string_value(json_object_get(root,
	    "type")))) {
		rc = 1;
	}
	else
		rc = parse_sample(&c, root, s, max_events, meta);
	json_decref(root);
	return rc;
}

