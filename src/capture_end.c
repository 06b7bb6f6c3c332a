/*
 * The end of one capture: what the sampler's end means for the exit
 * status, the notes on the run, the summary and the --statements file.
 */
#include <inttypes.h>
#include <stdio.h>

#include "capture_end.h"
#include "exitcode.h"
#include "runstats.h"
#include "summary.h"
#include "units.h"

double
capture_duty_pct(const struct sampler_stats *st, uint64_t frequency_ms)
{
	uint64_t queries = st->taken + st->lost;

	if (queries == 0)
		return 0;
	return (double)st->query_ns / (double)queries /
	    ((double)frequency_ms * 1e6) * 100;
}

int64_t
capture_limit_of(const struct capture_state *c)
{
	return c->grain[0] == '\0' ? c->limit_bytes : 0;
}

/* Says why a capture of --wait-for ended. */
static void
note_capture_end(const struct capture_state *c, const struct sampler_stats *stats)
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
note_run(const struct capture_state *c, const struct summary *sum,
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
write_statements(const struct capture_state *c, const struct summary *sum)
{
	if (c->opts->statements_file == NULL)
		return 0;
	return outfile_write_statements(c->opts->statements_file,
	    c->opts->format, c->opts->exact_bytes, c->number > 1, sum);
}

/* What the sampler's end means for the exit status, said on stderr. */
int
capture_finish(struct capture_state *c, struct ring *ring, const struct sampler_stats *stats,
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
		if (c->observer_failed)
			return EXIT_RUNTIME; /* it said why */
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
		    capture_duty_pct(stats, o->frequency_ms), o->frequency_ms);
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
	sum.limit_bytes = capture_limit_of(c);
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
