/*
 * One capture, from the target to the summary. Its state lives in struct
 * capture, the context of the callbacks the sampler calls with each sample
 * and on each early wake-up.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "capture.h"
#include "exitcode.h"
#include "filter.h"
#include "finished.h"
#include "guard.h"
#include "pfs.h"
#include "procfs.h"
#include "reconnect.h"
#include "recorder.h"
#include "resident.h"
#include "runstats.h"
#include "sampler.h"
#include "summary.h"
#include "threads.h"
#include "units.h"

/*
 * When the queries take this share of one core, in percent, at the
 * --frequency asked for, a note says so (once): see --max-load.
 */
#define DUTY_NOTE_PCT 5
/* Samples whose cost is averaged before the first look at it. */
#define DUTY_NOTE_AFTER 5

/* The ring may not take more than this: a typo should not eat the host. */
#define RING_LIMIT_BYTES ((size_t)1 << 30)

struct capture {
	const struct capture_env *env;
	struct pfs_reader *reader;
	const struct options *opts;
	const struct stmt_match *found; /* --wait-for's statement, or NULL */
	uint64_t number;                /* its capture number */
	struct follow follow;           /* following found */
	struct recorder rec;            /* --trigger-bytes; every sample goes through it */
	struct event_filter filter;     /* --events, --exclude */
	char grain[600];                /* "user:app" and such, for --global and --for-* */
	const struct sampler_stats *stats; /* the run's counts so far */
	bool duty_noted;                /* the note on the queries' cost is said */
	struct runstats *run;           /* the whole run, every sample folded in */
	int64_t limit_bytes;            /* connection_memory_limit; 0: none */
};

bool
capture_ring_fits(const struct options *o, size_t instruments)
{
	size_t events = sampler_max_events(o->top, instruments);
	size_t per_sample = RING_LIMIT_BYTES / o->window;

	if (per_sample >= sizeof(struct sample) && events <= (per_sample -
	    sizeof(struct sample)) / sizeof(struct event_stat))
		return true;
	diag_say("--window %zu with %zu events per sample needs more than "
	    "%zu MiB; lower --window or --top", o->window, events,
	    RING_LIMIT_BYTES >> 20);
	return false;
}

/*
 * A check before the first sample failed: an error, unless a stop cut the
 * query short, when the run ends as a count would, with nothing sampled.
 */
static int
failed_start(const struct capture *c, const char *err)
{
	if (c->env->sig->stop)
		return EXIT_DONE;
	diag_say("%s", err);
	return EXIT_RUNTIME;
}

/* Finds the thread to sample; returns 0 or an exit status. */
static int
resolve_target(struct capture *c, uint64_t *thread_id,
    uint64_t *connection_id)
{
	const struct options *o = c->opts;
	struct session *s = c->env->session;
	char err[1024];
	enum pfs_status st;

	/* Waiting found it, and left out our own thread. */
	if (c->found != NULL) {
		*thread_id = c->found->thread_id;
		*connection_id = c->found->connection_id;
		return 0;
	}
	st = s->ops->find_thread(s->conn, o->target == TARGET_CONNECTION ?
	    PFS_BY_CONNECTION : PFS_BY_THREAD, o->target_id, thread_id,
	    connection_id, err, sizeof(err));
	if (st != PFS_OK)
		return failed_start(c, err);
	if (*thread_id == s->own_thread) {
		diag_say("thread %" PRIu64 " is mysqlmemprof's own connection; "
		    "give the thread of another session (see --list)",
		    *thread_id);
		return EXIT_USAGE;
	}
	return 0;
}

static struct ring *
make_ring(const struct capture *c)
{
	size_t events = sampler_max_events(c->opts->top,
	    c->env->session->instruments);
	struct ring *r;

	if ((r = ring_create(c->opts->window, events > 0 ? events : 1)) ==
	    NULL)
		diag_say("out of memory for a window of %zu samples",
		    c->opts->window);
	return r;
}

/*
 * The format's header, once per output (outfile.c). Before each capture of
 * --wait-for, text gets a heading that says which statement follows; CSV
 * and JSON rows tell captures apart by thread_id and sample.
 */
static int
begin_capture(struct capture *c, const struct clock *clk)
{
	struct outfile *f = c->env->out;
	const struct stmt_match *m = c->found;

	if (outfile_begin_capture(f) != 0)
		return -1;
	if (m == NULL)
		return 0;
	return output_capture(&f->out, &(struct output_capture){
		.number = c->number, .started_s = clk->wall_ms(clk->ctx) / 1000,
		.connection_id = m->connection_id, .thread_id = m->thread_id,
		.running_s = m->time_s, .text = m->text, .idle = m->idle,
		.bytes = m->current_bytes,
		.size_bytes = (int64_t)c->opts->bigger_than_bytes,
		.between_looks = m->between_looks, .peak_bytes = m->peak_bytes,
	});
}

/* Says why a capture of --wait-for ended. */
static void
note_capture_end(const struct capture *c, const struct sampler_stats *stats)
{
	const char *why;
	char held[128];

	switch (stats->end) {
	case SAMPLER_END_GONE:
		why = c->follow.end == FOLLOW_FINISHED ?
		    "the statement finished" : "the connection closed";
		if (c->follow.end == FOLLOW_RELEASED) {
			char size[32];

			units_bytes((int64_t)c->opts->bigger_than_bytes, size,
			    sizeof(size));
			snprintf(held, sizeof(held), "it held less than %s for "
			    "--trigger-hold %" PRIu64 " s", size,
			    c->opts->trigger_hold_s);
			why = held;
		}
		break;
	case SAMPLER_END_COUNT:
		why = "--count reached";
		break;
	case SAMPLER_END_DURATION:
		why = "--duration reached";
		break;
	case SAMPLER_END_STOPPED:
		why = "interrupted";
		break;
	default:
		return; /* an error, said already */
	}
	diag_note(c->env->diag, "capture %" PRIu64 " ended (%s): connection "
	    "%" PRIu64 ", %" PRIu64 " samples", c->number, why,
	    c->found->connection_id, stats->taken);
}

/* SIGUSR1: writes the samples held, at once. */
static int
answer_dump(void *ctx)
{
	struct capture *c = ctx;
	size_t n;

	if (!c->env->sig->dump)
		return 0;
	c->env->sig->dump = 0;
	if (recorder_dump(&c->rec, &n) != 0)
		return -1;
	if (c->opts->trigger_bytes > 0)
		diag_note(c->env->diag, "SIGUSR1: %zu held sample%s written", n,
		    n == 1 ? "" : "s");
	return 0;
}

/*
 * The share of one core the queries take at the asked --frequency, in
 * percent: their mean time over the interval.
 */
static double
duty_pct(const struct sampler_stats *st, uint64_t frequency_ms)
{
	uint64_t queries = st->taken + st->lost;

	if (queries == 0)
		return 0;
	return (double)st->query_ns / (double)queries /
	    ((double)frequency_ms * 1e6) * 100;
}

/*
 * Says once, as soon as a few samples tell, that the queries cost the
 * server a noticeable share of a core at this --frequency.
 */
static void
note_duty(struct capture *c)
{
	const struct sampler_stats *st = c->stats;
	double pct;

	if (c->duty_noted || st->taken < DUTY_NOTE_AFTER)
		return;
	if ((pct = duty_pct(st, c->opts->frequency_ms)) < DUTY_NOTE_PCT)
		return;
	c->duty_noted = true;
	diag_note(c->env->diag, "each sample costs the server about %.1f ms"
	    "%s; at --frequency %" PRIu64
	    " that is %.0f%% of a core%s; see --frequency or --max-load",
	    (double)st->query_ns / (double)(st->taken + st->lost) / 1e6,
	    c->env->session->sample_scans_threads ?
	    " (it grows with the threads connected)" : "",
	    c->opts->frequency_ms, pct, c->opts->max_load_pct != 0 &&
	    pct > c->opts->max_load_pct ? ", so --max-load skips ticks" : "");
}

static int
sink_sample(void *ctx, const struct sample *s)
{
	struct capture *c = ctx;
	const struct capture_observer *w = c->env->observer;

	note_duty(c);
	/* Before --trigger-bytes can hold it back: the run is every sample. */
	runstats_add(c->run, s);
	if (w != NULL && w->sample != NULL && w->sample(w->ctx, s, c->stats) !=
	    0)
		return -1;
	if (outfile_reopen_if_asked(c->env->out) != 0)
		return -1;
	if (recorder_sample(&c->rec, s) != 0)
		return -1;
	return answer_dump(c);
}

/* Says once a run when samples will have no statement ids, and how to fix it. */
static void
check_statements(const struct capture *c)
{
	struct session *s = c->env->session;
	char msg[1024];

	if (s->statements != STATEMENTS_UNKNOWN)
		return;
	switch (s->ops->check_statements(s->conn, msg, sizeof(msg))) {
	case PFS_OK:
		s->statements = STATEMENTS_ON;
		return;
	case PFS_DISABLED:
		s->statements = STATEMENTS_OFF;
		break;
	default:
		/* A failed check: the reader will say what is wrong. */
		s->statements = STATEMENTS_ON;
		if (c->env->sig->stop)
			return;
		break;
	}
	diag_note(c->env->diag, "%s", msg);
}

/* With --trigger-bytes, what is held and how to have it written. */
static void
note_trigger(const struct capture *c, const struct sampler_stats *stats)
{
	const struct options *o = c->opts;

	if (o->trigger_bytes == 0)
		return;
	if (stats == NULL)
		diag_note(c->env->diag, "writing nothing until the thread total "
		    "reaches %" PRIu64 " bytes (--trigger-bytes), then the "
		    "last %zu samples up to that one; kill -USR1 %ld writes the "
		    "samples held", o->trigger_bytes, o->window,
		    (long)getpid());
	else if (c->rec.crossings == 0)
		diag_note(c->env->diag, "the thread total never reached "
		    "--trigger-bytes %" PRIu64 " in %" PRIu64 " samples; %"
		    PRIu64 " written on SIGUSR1", o->trigger_bytes, stats->taken,
		    c->rec.written);
}

/* The guard saw the statements consumer switched off. */
static void
statements_off(void *ctx)
{
	struct capture *c = ctx;

	c->env->session->statements = STATEMENTS_OFF;
	c->env->session->ops->reader_without_statements(c->reader);
}

/* The grain of --global and --for-*; false for a thread. */
static bool
target_grain(const struct options *o, enum pfs_grain *g)
{
	switch (o->target) {
	case TARGET_GLOBAL: *g = GRAIN_GLOBAL; return true;
	case TARGET_USER: *g = GRAIN_USER; return true;
	case TARGET_HOST: *g = GRAIN_HOST; return true;
	case TARGET_ACCOUNT: *g = GRAIN_ACCOUNT; return true;
	default: return false;
	}
}

/*
 * Checks that the grain has rows and names it for the output ("global",
 * "user:app", "host:localhost", "account:app@localhost").
 */
static int
check_grain(struct capture *c, enum pfs_grain g)
{
	const struct options *o = c->opts;
	struct session *s = c->env->session;
	char err[1024];

	if (s->ops->check_grain(s->conn, g, o->grain_user, o->grain_host, err,
	    sizeof(err)) != PFS_OK)
		return failed_start(c, err);
	if (g == GRAIN_GLOBAL)
		snprintf(c->grain, sizeof(c->grain), "global");
	else if (g == GRAIN_USER)
		snprintf(c->grain, sizeof(c->grain), "user:%s", o->grain_user);
	else if (g == GRAIN_HOST)
		snprintf(c->grain, sizeof(c->grain), "host:%s", o->grain_host);
	else
		snprintf(c->grain, sizeof(c->grain), "account:%s@%s",
		    o->grain_user, o->grain_host);
	return 0;
}

/* "sampling thread 42 (connection 7) every 250 ms on 10.11.6-MariaDB ...". */
static void
note_start(const struct capture *c, uint64_t thread_id,
    uint64_t connection_id)
{
	struct session *s = c->env->session;
	const char *cipher = s->ops->cipher(s->conn);
	char what[700], own[64] = "";

	if (c->grain[0] != '\0')
		snprintf(what, sizeof(what), "%s", c->grain);
	else
		thread_label(what, sizeof(what), thread_id, connection_id);
	/* While waiting for statements, the waiting note said it already. */
	if (c->found == NULL)
		snprintf(own, sizeof(own), "; our own thread is %" PRIu64,
		    s->own_thread);
	diag_note(c->env->diag, "sampling %s every %" PRIu64 " ms on %s%s%s%s",
	    what, c->opts->frequency_ms, s->ops->server_version(s->conn),
	    cipher != NULL ? " over TLS " : "", cipher != NULL ? cipher : "",
	    own);
}

/*
 * Only some memory instruments on: every total undercounts. Said once at
 * the start, with how to switch the rest on; a failed look says nothing,
 * since the checks before sampling passed.
 */
static void
note_partial_instruments(const struct capture *c)
{
	struct session *s = c->env->session;
	char note[1024];

	if (s->ops->check_memory_instruments(s->conn, note, sizeof(note)) ==
	    PFS_DISABLED)
		diag_note(c->env->diag, "%s", note);
}

const struct pfs_memory_limits *
capture_memory_limits(struct session *s, char *err, size_t errlen)
{
	char why[256];

	if (!s->limits_read && s->conn != NULL) {
		if (s->ops->memory_limits(s->conn, &s->kind, &s->limits, why,
		    sizeof(why)) != PFS_OK) {
			s->limits = (struct pfs_memory_limits){ 0 };
			if (err != NULL)
				snprintf(err, errlen, "%s", why);
			return NULL;
		}
		s->limits_read = true;
	}
	return &s->limits;
}

/* connection_memory_limit, which applies to a thread, not a grain; 0: none. */
static int64_t
limit_of(const struct capture *c)
{
	return c->grain[0] == '\0' ? c->limit_bytes : 0;
}

/* The event that went lowest in the run, for the note on negative events. */
static const struct run_event *
lowest_event(const struct summary *sum)
{
	const struct run_event *low = NULL;

	for (size_t i = 0; i < sum->n_run_events; i++)
		if (sum->run_events[i].min_bytes < 0 && (low == NULL ||
		    sum->run_events[i].min_bytes < low->min_bytes))
			low = &sum->run_events[i];
	return low;
}

/*
 * What the numbers of the run may not mean at face value: memory that
 * moved between threads (negative events, a total above the server's),
 * and what the caps of the whole-run statistics left out. The server's
 * total is read once here, at the end, never per sample.
 */
static void
note_run(const struct capture *c, const struct summary *sum,
    const struct sampler_stats *stats)
{
	const struct diag *d = c->env->diag;
	struct session *s = c->env->session;
	const struct run_event *low = lowest_event(sum);
	const char *what = c->grain[0] != '\0' ? c->grain : "the thread";
	char err[256];
	int64_t global;

	if (sum->run.most_negative_events > 0)
		diag_note(d, "%zu event%s of %s went below 0 bytes (%" PRId64
		    " bytes in all%s%s): memory one thread allocated and another "
		    "freed; its totals are not what it holds (see MEMORY THAT "
		    "MOVES in mysqlmemprof(1))", sum->run.most_negative_events,
		    sum->run.most_negative_events == 1 ? "" : "s", what,
		    sum->run.lowest_negative_bytes, low != NULL ? "; the lowest "
		    "kept: " : "", low != NULL ? low->name : "");
	if (c->opts->target != TARGET_GLOBAL && sum->run.samples > 0 &&
	    stats->end != SAMPLER_END_GONE &&
	    stats->end != SAMPLER_END_SOURCE_ERROR && !c->env->sig->stop &&
	    s->ops->global_total(s->conn, &global, err, sizeof(err)) ==
	    PFS_OK && sum->run.last_total > global)
		diag_note(d, "the total of %s, %" PRId64 " bytes, exceeds the "
		    "whole server's, %" PRId64 " bytes: it counts memory other "
		    "threads allocated and it freed, or the reverse (see MEMORY "
		    "THAT MOVES in mysqlmemprof(1))", what, sum->run.last_total,
		    global);
	if (sum->limit_bytes > 0) {
		char most[32], limit[32];

		units_bytes(summary_most_held(sum), most, sizeof(most));
		units_bytes(sum->limit_bytes, limit, sizeof(limit));
		diag_note(d, "the most %s held, %s, is %.0f%% of "
		    "connection_memory_limit %s", what, most,
		    (double)summary_most_held(sum) * 100 /
		    (double)sum->limit_bytes, limit);
	}
	if (sum->run.events_left_out > 0)
		diag_note(d, "more than %d events in the run: %" PRIu64
		    " readings of the others are left out of the summary's "
		    "events", RUNSTATS_MAX_EVENTS, sum->run.events_left_out);
	if (sum->run.statements_dropped > 0)
		diag_note(d, "more than %d statements in the run: the %" PRIu64
		    " with the least growth are left out of the ranking",
		    RUNSTATS_MAX_STATEMENTS, sum->run.statements_dropped);
	if (sum->run.statements_lost > 0)
		diag_note(d, "at least %" PRIu64 " statement%s of %s ended unseen, "
		    "pushed out of its events_statements_history before a sample "
		    "read it: the server keeps a thread's last "
		    "performance_schema_events_statements_history_size statements "
		    "(10 by default); raise it at the server's start, sample more "
		    "often (--frequency), or find them in "
		    "events_statements_history_long, once UPDATE "
		    "performance_schema.setup_consumers SET ENABLED = 'YES' WHERE "
		    "NAME = 'events_statements_history_long' switches it on",
		    sum->run.statements_lost, sum->run.statements_lost == 1 ?
		    "" : "s", what);
}

/*
 * --statements: the run's statements ranked by growth, in --format, to a
 * file of their own. The first capture of a run starts the file; those
 * --repeat makes after it add theirs (each row names its thread).
 * Returns 0, or -1 having said why.
 */
static int
write_statements(const struct capture *c, const struct summary *sum)
{
	if (c->opts->statements_file == NULL)
		return 0;
	return outfile_write_statements(c->opts->statements_file,
	    c->opts->format, c->opts->exact_bytes, c->number > 1, sum);
}

/*
 * --statements is written at the end: a file that cannot be made is said
 * now, before the run, not after it. The first capture starts the file.
 */
static bool
statements_file_ok(const struct capture *c)
{
	char err[1024];
	FILE *fp;

	if (c->opts->statements_file == NULL || c->number > 1)
		return true;
	if ((fp = outfile_open_extra(c->opts->statements_file,
	    "--statements", false, err, sizeof(err))) == NULL) {
		diag_say("%s", err);
		return false;
	}
	fclose(fp);
	return true;
}

/* What the sampler's end means for the exit status, said on stderr. */
static int
finish(struct capture *c, struct ring *ring, const struct sampler_stats *stats,
    uint64_t thread_id, const char *err)
{
	const struct options *o = c->opts;
	const struct diag *d = c->env->diag;
	struct outfile *f = c->env->out;
	struct summary sum;
	uint64_t missed;
	int rc = EXIT_DONE;

	switch (stats->end) {
	case SAMPLER_END_SINK_ERROR:
		return outfile_failed(f);
	case SAMPLER_END_SOURCE_ERROR:
		if (stats->taken == 0)
			diag_say("%s; no sample was taken", err);
		else
			diag_say("%s; the %" PRIu64 " sample%s taken %s written",
			    err, stats->taken, stats->taken == 1 ? "" : "s",
			    stats->taken == 1 ? "is" : "are");
		rc = EXIT_RUNTIME;
		break;
	case SAMPLER_END_GONE:
		if (c->found == NULL)
			diag_note(d, "thread %" PRIu64 " ended after %" PRIu64
			    " samples", thread_id, stats->taken);
		break;
	default:
		break;
	}
	if (c->found != NULL)
		note_capture_end(c, stats);
	missed = stats->skipped - stats->lost - stats->load_skipped;
	if (missed > 0)
		diag_note(d, "%" PRIu64 " tick%s skipped: a sample, or a "
		    "reconnect, took longer than --frequency %" PRIu64 " ms",
		    missed, missed == 1 ? "" : "s", o->frequency_ms);
	if (stats->load_skipped > 0)
		diag_note(d, "%" PRIu64 " tick%s skipped to keep the queries "
		    "under --max-load %u%% of a core (the slowest took %.1f ms; "
		    "%.0f%% at --frequency %" PRIu64 ")", stats->load_skipped,
		    stats->load_skipped == 1 ? "" : "s", o->max_load_pct,
		    (double)stats->slowest_query_ns / 1e6,
		    duty_pct(stats, o->frequency_ms), o->frequency_ms);
	if (stats->lost > 0)
		diag_note(d, "%" PRIu64 " sample%s lost, the run going on (the "
		    "last: %s)", stats->lost, stats->lost == 1 ? "" : "s",
		    stats->lost_why);
	if (summary_build(ring, stats->skipped, &sum) != 0 ||
	    summary_add_run(&sum, c->run) != 0) {
		summary_free(&sum);
		diag_say("out of memory building the summary");
		return EXIT_RUNTIME;
	}
	sum.thread_id = thread_id;
	sum.limit_bytes = limit_of(c);
	note_run(c, &sum, stats);
	if (c->env->observer != NULL && c->env->observer->end != NULL)
		c->env->observer->end(c->env->observer->ctx, &sum, stats,
		    stats->end == SAMPLER_END_SOURCE_ERROR ? err : NULL);
	if (output_end(&f->out, &sum) != 0 && rc == EXIT_DONE)
		rc = outfile_failed(f);
	if (write_statements(c, &sum) != 0 && rc == EXIT_DONE)
		rc = EXIT_RUNTIME;
	summary_free(&sum);
	return rc;
}

/* Runs the sampler over the source; the ring and reader are made. */
static int
sample(struct capture *c, struct sampler_config *cfg, struct source src,
    struct ring *ring, const struct clock *clk, uint64_t connection_id)
{
	const struct capture_observer *w = c->env->observer;
	struct outfile *f = c->env->out;
	struct sampler_stats stats = { 0 };
	char err[1024] = "";

	if (outfile_open(f) != 0)
		return EXIT_RUNTIME;
	note_start(c, cfg->thread_id, connection_id);
	if (w != NULL && w->begin != NULL)
		w->begin(w->ctx, &(struct capture_target){
			.thread_id = cfg->thread_id,
			.connection_id = connection_id,
			.grain = c->grain[0] != '\0' ? c->grain : NULL,
			.found = c->found,
			.server_version = c->env->session->ops->server_version(
			    c->env->session->conn),
			.interval_ms = c->opts->frequency_ms,
			.limit_bytes = limit_of(c),
		});
	c->stats = &stats;
	if (begin_capture(c, clk) != 0)
		return outfile_failed(f);
	note_trigger(c, NULL);
	sampler_run(cfg, &src, clk, ring, sink_sample, c, &c->env->sig->stop,
	    &stats, err, sizeof(err));
	note_trigger(c, &stats);
	return finish(c, ring, &stats, cfg->thread_id, err);
}

int
capture_run(const struct capture_env *env, const struct stmt_match *found,
    uint64_t number, enum follow_end *end)
{
	return capture_run_from(env, found, NULL, 0, number, end);
}

int
capture_run_from(const struct capture_env *env,
    const struct stmt_match *found, const struct sampler_before *before,
    size_t n_before, uint64_t number, enum follow_end *end)
{
	const struct options *o = env->opts;
	struct session *s = env->session;
	struct capture c = {
		.env = env, .opts = o, .found = found, .number = number,
		.filter = {
			.include = o->include_events,
			.n_include = o->n_include_events,
			.exclude = o->exclude_events,
			.n_exclude = o->n_exclude_events,
		},
	};
	struct sampler_config cfg = {
		.interval_ns = o->frequency_ms * 1000000u,
		.count = o->count,
		.duration_ns = o->duration_s * 1000000000u,
		.top = o->top,
		.max_load_pct = o->max_load_pct,
		.filter = &c.filter,
		.wake = answer_dump,
		.before = before, .n_before = n_before,
	};
	struct clock clk = env->clk != NULL ? *env->clk : clock_system();
	struct pfs_reader *reader;
	struct reconnect recon;
	struct resident res;
	struct finished fin;
	struct guard guard;
	struct source src;
	struct ring *ring;
	uint64_t connection_id = 0;
	enum pfs_grain grain = GRAIN_GLOBAL;
	bool is_grain = target_grain(o, &grain);
	int rc;

	if (end != NULL)
		*end = FOLLOW_RUNNING;
	rc = is_grain ? check_grain(&c, grain) :
	    resolve_target(&c, &cfg.thread_id, &connection_id);
	if (rc != 0)
		return rc;
	if (!capture_ring_fits(o, s->instruments))
		return EXIT_USAGE;
	if (!statements_file_ok(&c))
		return EXIT_RUNTIME;
	if ((ring = make_ring(&c)) == NULL)
		return EXIT_RUNTIME;
	if (!is_grain) {
		check_statements(&c);
		const struct pfs_memory_limits *l =
		    capture_memory_limits(s, NULL, 0);

		/* Unread, the summary says no limit rather than a wrong one. */
		c.limit_bytes = l != NULL ? l->connection : 0;
	}
	note_partial_instruments(&c);
	if ((c.run = runstats_create()) == NULL) {
		diag_say("out of memory");
		ring_free(ring);
		return EXIT_RUNTIME;
	}
	recorder_init(&c.rec, &env->out->out, ring, (int64_t)o->trigger_bytes,
	    o->trigger_hold_s * 1000000u);
	env->sig->dump = 0;
	reader = s->ops->reader_create(s, &(struct read_target){
		.is_grain = is_grain, .thread_id = cfg.thread_id,
		.grain = grain, .user = o->grain_user, .host = o->grain_host,
	});
	if (reader == NULL) {
		diag_say("out of memory");
		runstats_free(c.run);
		ring_free(ring);
		return EXIT_RUNTIME;
	}
	if (s->statements == STATEMENTS_OFF)
		s->ops->reader_without_statements(reader);
	recon = (struct reconnect){
		.session = s, .inner = s->ops->reader_source(reader),
		.thread_id = cfg.thread_id, .connection_id = connection_id,
		.timeout_ns = o->reconnect_timeout_s * 1000000000u,
		.clk = &clk, .stop = &env->sig->stop,
		.notify = diag_note_cb, .notify_ctx = (void *)env->diag,
	};
	src = reconnect_source(&recon);
	c.reader = reader;
	/* The whole server's process is beside the whole server's count. */
	if (is_grain && grain == GRAIN_GLOBAL) {
		res = (struct resident){
			.inner = src, .session = s, .clk = &clk,
			.proc = env->proc != NULL ? env->proc : PROCFS_ROOT,
			.notify = diag_note_cb, .notify_ctx = (void *)env->diag,
		};
		src = resident_source(&res);
	}
	/* A thread's statements, each as the server recorded it once ended. */
	if (!is_grain) {
		fin = (struct finished){
			.inner = src, .session = s, .thread_id = cfg.thread_id,
			.notify = diag_note_cb, .notify_ctx = (void *)env->diag,
		};
		src = finished_source(&fin);
	}
	if (env->top_threads != NULL) {
		struct top_threads *t = env->top_threads;

		t->inner = src;
		t->session = s;
		t->clk = &clk;
		t->next_ns = 0;
		src = top_threads_source(t);
	}
	guard = (struct guard){
		.inner = src, .session = s, .thread_id = cfg.thread_id,
		.clk = &clk, .notify = diag_warn_cb,
		.statements_off = statements_off, .statements_off_ctx = &c,
	};
	src = guard_source(&guard);
	if (found != NULL) {
		c.follow = (struct follow){
			.inner = src, .session = s, .stmt = *found,
			.poll_ns = o->poll_ms * 1000000u, .clk = &clk,
			.hold_bytes = (int64_t)o->bigger_than_bytes,
			.hold_ns = o->trigger_hold_s * 1000000000u,
		};
		src = follow_source(&c.follow);
	}
	env->out->out.grain = is_grain ? c.grain : NULL;
	env->out->out.filtered = filter_active(&c.filter);
	rc = sample(&c, &cfg, src, ring, &clk, connection_id);
	env->out->out.grain = NULL;
	if (end != NULL)
		*end = c.follow.end;
	s->ops->reader_free(reader);
	runstats_free(c.run);
	ring_free(ring);
	return rc;
}
