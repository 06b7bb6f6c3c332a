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
#include "capture_chain.h"
#include "capture_end.h"
#include "exitcode.h"
#include "filter.h"
#include "pfs.h"
#include "recorder.h"
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
failed_start(const struct capture_state *c, const char *err)
{
	if (c->env->sig->stop)
		return EXIT_DONE;
	diag_say("%s", err);
	return EXIT_RUNTIME;
}

/* Finds the thread to sample; returns 0 or an exit status. */
static int
resolve_target(struct capture_state *c, uint64_t *thread_id,
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
make_ring(const struct capture_state *c)
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
begin_capture(struct capture_state *c, const struct clock *clk)
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
		.ended = m->ended, .duration_ms = m->duration_ms,
		.bytes = m->current_bytes,
		.size_bytes = (int64_t)c->opts->bigger_than_bytes,
		.between_looks = m->between_looks, .peak_bytes = m->peak_bytes,
	});
}

/* SIGUSR1: writes the samples held, at once. */
static int
answer_dump(void *ctx)
{
	struct capture_state *c = ctx;
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
 * Says once, as soon as a few samples tell, that the queries cost the
 * server a noticeable share of a core at this --frequency.
 */
static void
note_duty(struct capture_state *c, const struct sample *s)
{
	const struct sampler_stats *st = c->stats;
	bool counts = c->total != NULL && !c->total->off;
	double mean_ms, pct;

	/* A thread's own count: the ticks that read only it are the rule. */
	if (counts && s->events_kept) {
		c->count_query_us += s->query_us;
		c->counts++;
	}
	if (c->duty_noted || (counts ? c->counts : st->taken) <
	    DUTY_NOTE_AFTER)
		return;
	mean_ms = counts ? (double)c->count_query_us / (double)c->counts /
	    1e3 : (double)st->query_ns / (double)(st->taken + st->lost) / 1e6;
	if ((pct = mean_ms / (double)c->opts->frequency_ms * 100) <
	    DUTY_NOTE_PCT)
		return;
	c->duty_noted = true;
	diag_note(c->env->diag, "each %s costs the server about %.1f ms"
	    "%s; at --frequency %" PRIu64
	    " that is %.0f%% of a core%s; see --frequency or --max-load",
	    counts ? "tick's count of the thread" : "sample", mean_ms,
	    c->env->session->sample_scans_threads ?
	    " (it grows with the threads connected)" : "",
	    c->opts->frequency_ms, pct, c->opts->max_load_pct != 0 &&
	    pct > c->opts->max_load_pct ? ", so --max-load skips ticks" : "");
}

static int
sink_sample(void *ctx, const struct sample *s)
{
	struct capture_state *c = ctx;
	const struct capture_observer *w = c->env->observer;

	note_duty(c, s);
	/* Before --trigger-bytes can hold it back: the run is every sample. */
	runstats_add(c->run, s);
	if (w != NULL && w->sample != NULL && w->sample(w->ctx, s, c->stats) !=
	    0) {
		c->observer_failed = true;
		return -1;
	}
	if (outfile_reopen_if_asked(c->env->out) != 0)
		return -1;
	if (recorder_sample(&c->rec, s) != 0)
		return -1;
	return answer_dump(c);
}

/* Says once a run when samples will have no statement ids, and how to fix it. */
static void
check_statements(const struct capture_state *c)
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
note_trigger(const struct capture_state *c, const struct sampler_stats *stats)
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
check_grain(struct capture_state *c, enum pfs_grain g)
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
note_start(const struct capture_state *c, uint64_t thread_id,
    uint64_t connection_id)
{
	struct session *s = c->env->session;
	const char *cipher = s->ops->cipher(s->conn);
	char what[700], own[64] = "";

	/* A statement the hunt found ended is written, never sampled. */
	if (c->found != NULL && c->found->ended)
		return;
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
note_partial_instruments(const struct capture_state *c)
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

/*
 * --statements is written at the end: a file that cannot be made is said
 * now, before the run, not after it. The first capture starts the file.
 */
static bool
statements_file_ok(const struct capture_state *c)
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

/* Runs the sampler over the source; the ring and reader are made. */
static int
run_sampler(struct capture_state *c, struct sampler_config *cfg, struct source src,
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
			.limit_bytes = capture_limit_of(c),
		});
	c->stats = &stats;
	if (begin_capture(c, clk) != 0)
		return outfile_failed(f);
	note_trigger(c, NULL);
	sampler_run(cfg, &src, clk, ring, sink_sample, c, &c->env->sig->stop,
	    &stats, err, sizeof(err));
	note_trigger(c, &stats);
	return capture_finish(c, ring, &stats, cfg->thread_id, err);
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
	struct capture_state c = {
		.env = env, .opts = o, .found = found, .number = number,
		.filter = {
			.include = o->include_events,
			.n_include = o->n_include_events,
			.exclude = o->exclude_events,
			.n_exclude = o->n_exclude_events,
		},
	};
	int64_t afford = INT64_MAX;
	struct sampler_config cfg = {
		.afford_ns = &afford,
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
	struct capture_chain ch = { 0 };
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
	c.reader = reader;
	src = capture_chain_build(&c, &ch, s->ops->reader_source(reader), &cfg, &clk,
	    is_grain ? &grain : NULL, connection_id);
	env->out->out.grain = is_grain ? c.grain : NULL;
	env->out->out.filtered = filter_active(&c.filter);
	rc = run_sampler(&c, &cfg, src, ring, &clk, connection_id);
	env->out->out.grain = NULL;
	if (end != NULL)
		*end = c.follow.end;
	s->ops->reader_free(reader);
	total_free(&ch.tot);
	beat_free(&ch.bt);
	runstats_free(c.run);
	ring_free(ring);
	return rc;
}
