#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "capture.h"
#include "cgroup.h"
#include "conns.h"
#include "conns_lines.h"
#include "exitcode.h"
#include "explain_out.h"
#include "gap.h"
#include "incident_line.h"
#include "incident_queue.h"
#include "kmsg.h"
#include "procfs.h"
#include "obuf.h"
#include "output.h"
#include "output_format.h"
#include "output_table.h"
#include "reconnect.h"
#include "record.h"
#include "segments.h"
#include "utc.h"

/* The record's own lines say their shape with this. */
#define RECORD_VERSION 1
/*
 * The whole server's events, and its own count, are read this often; each
 * sample between keeps them (beat.h): on MariaDB a read of the global
 * table at a thousand connections costs more than the rest of a second's
 * queries (bench/RESULTS.md).
 */
#define RECORD_EVENTS_EVERY_NS (10 * 1000000000ull)
/*
 * The server's heap dumps kept take at most this part of --record-size
 * (1/4), and the segments the rest: the segments' bound is lowered by
 * the bytes of the dumps kept.
 */
#define RECORD_HEAP_SHARE 4

struct record {
	const struct capture_env *env;
	struct clock clk;
	struct segments seg;
	/* The samples, as --format json writes them, into tick. */
	struct output json;
	/* The lines of one sample, written into the segment in one write. */
	struct obuf tick;
	size_t last_tick;      /* bytes of the last: room asked of the next */
	char version[128];     /* the server's */
	struct pfs_server_id run; /* the run of the server recorded */
	bool has_run;
	bool header_due;       /* the next lines begin a segment or a capture */
	/*
	 * The next sample begins a segment or a capture: a reader may start
	 * there, so its line carries its events, kept or not, and the
	 * connections whole. An incident's lines do not take it.
	 */
	bool start_due;
	int64_t capture_ms;    /* when the capture began, UTC */
	/* Every connection, read beside each sample (conns.h). */
	struct conns conns;
	uint64_t conns_seen;   /* conns.reads when last written */
	/* The gap in layers, read every --layers-every (gap.h), as a line. */
	struct gap gap;
	uint64_t gap_seen;     /* gap.reads when last written */
	/* The server's newest heap dumps, in DIR/heap (heapkeep.h). */
	struct heap_keep heap;
	struct conns_book book; /* the connections as the lines say */
	uint64_t samples;      /* of the run of the program */
	uint64_t capture_samples;
	enum sampler_end end;  /* how the last capture ended */
	char why[1024];        /* and why, when by an error */
	/* What the incidents compare with: the last sample's process. */
	struct process_memory last;
	bool has_last;
	/*
	 * The last cgroup figures read (a sample taken as the process died
	 * has none), the baseline of its OOM-kill count.
	 */
	struct process_memory cg;
	bool has_cg;
	bool over_share;       /* above --incident-share: said, until below */
	/*
	 * The server's memory cgroup, found while its process lives, so
	 * that its counters can be read once it is killed.
	 */
	char cgroup_dir[4096];
	uint64_t cgroup_pid;   /* the process it was found for */
	bool failed;           /* DIR could not be written: the run ends */
	uint64_t lost;         /* samples lost to a full disk, until written */
	/* The incidents' files are written by a thread of their own. */
	struct incident_queue *incidents;
};

/* fopencookie's writer: the json format's bytes go into the tick. */
static ssize_t
tick_write(void *ctx, const char *buf, size_t n)
{
	struct record *r = ctx;

	obuf_write(&r->tick, buf, n);
	if (obuf_status(&r->tick) != 0) {
		errno = ENOMEM;
		return -1;
	}
	return (ssize_t)n;
}

static void
put_stamp(struct obuf *b, int64_t ms)
{
	char t[64];

	utc_format(t, sizeof(t), ms, UTC_STAMP);
	obuf_puts(b, t);
}

/* What a reader needs to begin here: which server, at what beat. */
static void
put_header(struct record *r, int64_t now_ms)
{
	char n[128];

	obuf_puts(&r->tick, "{\"type\":\"record\",\"version\":");
	snprintf(n, sizeof(n), "%d,\"timestamp\":\"", RECORD_VERSION);
	obuf_puts(&r->tick, n);
	put_stamp(&r->tick, now_ms);
	obuf_puts(&r->tick, "\",\"server_version\":");
	output_json_put_string(&r->tick, r->version, strlen(r->version));
	snprintf(n, sizeof(n), ",\"server_pid\":%" PRIu64 ",\"server_started\":%"
	    PRId64 ",\"interval_ms\":%" PRIu64 "}\n", r->run.pid,
	    r->run.boot_s, r->env->opts->frequency_ms);
	obuf_puts(&r->tick, n);
}

/*
 * A full disk loses samples, not the run: said once when it begins, and
 * once when the lines go in again.
 */
static int
lost(struct record *r, const char *err)
{
	if (r->lost++ == 0)
		diag_say("--record: %s; the samples are dropped until there is "
		    "room, and the recording goes on by itself", err);
	obuf_clear(&r->tick);
	return 1;
}

static void
resumed(struct record *r)
{
	if (r->lost == 0)
		return;
	diag_say("--record: writing into %s again: %" PRIu64 " samples were "
	    "lost while its disk was full", r->seg.dir, r->lost);
	r->lost = 0;
}

/*
 * The tick's lines into the segment: 0, 1 when the disk is full (they
 * are lost), -1 when the run ends.
 */
static int
flush_tick(struct record *r)
{
	char err[512];
	int rc = -1;

	if (obuf_status(&r->tick) == 0 && (rc = segments_write(&r->seg,
	    r->tick.p, r->tick.len, err, sizeof(err))) == 0) {
		r->last_tick = r->tick.len;
		obuf_clear(&r->tick);
		resumed(r);
		return 0;
	}
	if (rc == SEGMENTS_FULL)
		return lost(r, err);
	if (obuf_status(&r->tick) != 0)
		snprintf(err, sizeof(err), "out of memory");
	diag_say("--record: %s; the recording stops", err);
	obuf_clear(&r->tick);
	r->failed = true;
	return -1;
}

/*
 * Begins a segment when due; its first lines say where it starts. 0, 1
 * when the disk is full, -1 when the run ends.
 */
static int
turn(struct record *r, int64_t wall_ms)
{
	char err[512];
	int got = segments_turn(&r->seg, wall_ms, r->last_tick, err,
	    sizeof(err));

	if (got == SEGMENTS_FULL)
		return lost(r, err);
	if (got < 0) {
		diag_say("--record: %s; the recording stops", err);
		r->failed = true;
		return -1;
	}
	if (got == 1) {
		r->header_due = true;
		r->start_due = true;
		/* The json format says again what a new file needs. */
		output_new_file(&r->json);
	}
	return 0;
}

/*
 * The server's cgroup read now, into p (the last sample's process, its
 * cgroup's figures replaced): after a kill the counters have moved.
 */
static bool
cgroup_now(const struct record *r, struct process_memory *p)
{
	if (r->has_last)
		*p = r->last;
	return r->cgroup_dir[0] != '\0' && cgroup_read(r->cgroup_dir, p) == 0;
}

/*
 * The kernel's line on killing the server's process, when it says so of
 * this capture's time: an old line of a reused pid is not this kill.
 */
static bool
kill_line(const struct record *r, char *buf, size_t len)
{
	struct kmsg_oom k;
	struct timespec mono;
	int64_t at_ms;

	if (r->cgroup_pid == 0 || kmsg_find_oom(KMSG_PATH, r->cgroup_pid,
	    &k) != 1 || clock_gettime(CLOCK_MONOTONIC, &mono) != 0)
		return false;
	/* The log's time is the monotonic clock's, in microseconds. */
	at_ms = r->clk.wall_ms(r->clk.ctx) - ((int64_t)mono.tv_sec * 1000 +
	    mono.tv_nsec / 1000000 - (int64_t)(k.usec / 1000));
	if (at_ms < r->capture_ms - 2000)
		return false;
	snprintf(buf, len, "%s", k.line);
	return true;
}

/*
 * The incident's line into the segment begun, synced: the man page
 * promises it on disk at once. 0, 1 when a full disk lost it, -1 when
 * the run ends.
 */
static int
put_incident_line(struct record *r, const struct incident *in,
    int64_t at_ms)
{
	char err[512];
	int rc;

	if (r->header_due) {
		put_header(r, at_ms);
		r->header_due = false;
	}
	incident_put_line(&r->tick, in);
	if ((rc = flush_tick(r)) != 0)
		return rc;
	if ((rc = segments_sync(&r->seg, err, sizeof(err))) == SEGMENTS_FULL)
		return lost(r, err);
	if (rc != 0) {
		diag_say("--record: %s; the recording stops", err);
		r->failed = true;
		return -1;
	}
	return 0;
}

/* The last heap dump kept before the incident, and the one before. */
static void
heap_of(const struct record *r, struct incident *in)
{
	const struct heap_kept *base, *d = heap_keep_before(&r->heap,
	    in->at_ms, &base);

	in->heapfd = r->heap.fd;
	if (d == NULL)
		return;
	snprintf(in->heap_dump, sizeof(in->heap_dump), "%s", d->name);
	in->heap_bytes = d->total_bytes;
	if (base != NULL)
		snprintf(in->heap_base, sizeof(in->heap_base), "%s", base->name);
}

/*
 * An incident: its line in the record, then its files, at once but not
 * by the sampling thread: reading and drawing a window of thousands of
 * connections takes longer than a tick.
 */
static void
incident(struct record *r, enum incident_kind kind, int64_t at_ms,
    const char *what)
{
	struct incident in = { .kind = kind, .at_ms = at_ms };

	snprintf(in.what, sizeof(in.what), "%s", what);
	/* The evidence: the cgroup's counters now, the kernel's own line. */
	cgroup_now(r, &in.process);
	snprintf(in.cgroup_dir, sizeof(in.cgroup_dir), "%s", r->cgroup_dir);
	/* A dump newer than the last look: reading one is cheap. */
	heap_keep_again(&r->heap);
	heap_of(r, &in);
	if (kind == INCIDENT_GONE || kind == INCIDENT_OOM_KILL)
		kill_line(r, in.kmsg, sizeof(in.kmsg));
	/*
	 * A full disk loses the incident's line; its files are tried still.
	 * No segment was begun then (turn() is 1): nothing is written to it.
	 */
	switch (turn(r, at_ms)) {
	case 0:
		if (put_incident_line(r, &in, at_ms) < 0)
			return;
		break;
	case 1:
		break;
	default:
		return;
	}
	if (incident_queue_post(r->incidents, &in) != 0)
		diag_say("--record: the incident of %s was not written: %d "
		    "others wait to be written (its line is in the record)",
		    incident_kind_name(kind), INCIDENT_QUEUE_WAITING);
}

/*
 * What a sample says against the one before (prev; NULL: none): an OOM
 * kill, the limit near. r->last is the sample's already, so that the
 * incident's figures are the sample's.
 */
static void
watch(struct record *r, const struct sample *s,
    const struct process_memory *prev)
{
	const struct process_memory *p = &s->process;
	char what[512];

	if (prev != NULL && p->has_cgroup && prev->has_cgroup &&
	    p->cgroup_oom_kills > prev->cgroup_oom_kills) {
		snprintf(what, sizeof(what), "the kernel killed a process of "
		    "the server's memory cgroup for memory (its OOM-kill count "
		    "went from %" PRId64 " to %" PRId64 ")",
		    prev->cgroup_oom_kills, p->cgroup_oom_kills);
		incident(r, INCIDENT_OOM_KILL, s->wall_ms, what);
	}
	if (p->known && p->has_cgroup && p->cgroup_limit_bytes > 0) {
		int64_t share = p->cgroup_limit_bytes / 100 *
		    (int64_t)r->env->opts->incident_share_pct;
		/* Said once a crossing: again only after it fell well below. */
		int64_t rearm = share - p->cgroup_limit_bytes / 20;

		if (!r->over_share && p->resident_bytes >= share) {
			r->over_share = true;
			snprintf(what, sizeof(what), "the server's resident "
			    "memory, %" PRId64 " MiB, passed %u%% of its "
			    "cgroup's limit of %" PRId64 " MiB",
			    p->resident_bytes >> 20,
			    r->env->opts->incident_share_pct,
			    p->cgroup_limit_bytes >> 20);
			incident(r, INCIDENT_LIMIT_SHARE, s->wall_ms, what);
		} else if (r->over_share && p->resident_bytes < rearm) {
			r->over_share = false;
		}
	}
}

/*
 * The server went away: killed for memory, when its cgroup's OOM-kill
 * count rose since the last sample, or gone for another reason.
 */
static void
went_away(struct record *r)
{
	struct process_memory now;
	char what[1400], line[512], why[256];
	bool counted = cgroup_now(r, &now), by_count;
	size_t cut = strcspn(r->why, ";");

	/*
	 * The connection went, the server did not (a KILL of our session, a
	 * read timeout): no incident, only the note.
	 */
	if (r->run.pid != 0 && procfs_check(r->env->proc != NULL ?
	    r->env->proc : PROCFS_ROOT, r->run.pid, r->run.boot_s, why,
	    sizeof(why)) == PROCMEM_TRUSTED) {
		diag_note(r->env->diag, "the server still runs as process %"
		    PRIu64 ": only the connection was lost; connecting again",
		    r->run.pid);
		return;
	}
	by_count = counted && r->has_cg &&
	    now.cgroup_oom_kills > r->cg.cgroup_oom_kills;
	if (by_count) {
		snprintf(what, sizeof(what), "the server went away: the kernel "
		    "killed it for memory in its cgroup (the OOM-kill count "
		    "went from %" PRId64 " to %" PRId64 ")",
		    r->cg.cgroup_oom_kills, now.cgroup_oom_kills);
	} else if (kill_line(r, line, sizeof(line))) {
		/* No count to rise (a global OOM, a cgroup gone): its log. */
		snprintf(what, sizeof(what), "the server went away: the "
		    "kernel's OOM killer killed it (its log says so)");
	} else {
		/* The capture's words up to its advice, which is not ours. */
		snprintf(what, sizeof(what), "the server went away%s%.*s",
		    r->why[0] != '\0' ? ": " : "", (int)cut, r->why);
		incident(r, INCIDENT_GONE, r->clk.wall_ms(r->clk.ctx), what);
		return;
	}
	incident(r, INCIDENT_OOM_KILL, r->clk.wall_ms(r->clk.ctx), what);
	/* The count seen is the baseline from now on, the next run's too. */
	if (counted) {
		r->cg = now;
		r->has_cg = true;
	}
}

/* --- The observer of each capture. --- */

static void
observe_begin(void *ctx, const struct capture_target *t)
{
	struct record *r = ctx;
	const struct pfs_server_id *run = &r->env->session->server;
	int64_t now = r->clk.wall_ms(r->clk.ctx);
	char what[512];

	snprintf(r->version, sizeof(r->version), "%s",
	    t->server_version != NULL ? t->server_version : "");
	r->header_due = true;
	r->start_due = true;
	r->capture_ms = now;
	r->capture_samples = 0;
	/* Another run of the server than the one recorded last. */
	if (r->has_run && (run->pid != r->run.pid ||
	    run->boot_s > r->run.boot_s + 2)) {
		r->run = *run;
		char at[64];

		utc_format(at, sizeof(at), run->boot_s * 1000, UTC_STAMP);
		snprintf(what, sizeof(what), "the server was restarted: it "
		    "runs again as process %" PRIu64 ", started at %.19sZ",
		    run->pid, at);
		incident(r, INCIDENT_RESTARTED, now, what);
	}
	r->run = *run;
	r->has_run = true;
}

/*
 * The sample's lines into the segment. 0 also when a full disk lost them:
 * what follows (the cgroup, the incidents) goes on without them.
 */
static int
put_sample(struct record *r, const struct sample *s)
{
	struct sample bare;
	bool full;

	switch (turn(r, s->wall_ms)) {
	case 0:
		break;
	case 1:
		return 0;
	default:
		return -1;
	}
	full = r->start_due;
	r->start_due = false;
	if (r->header_due) {
		put_header(r, s->wall_ms);
		r->header_due = false;
	}
	/*
	 * Kept events are the last written: a reader takes them from there,
	 * unless it may begin here.
	 */
	bare = *s;
	if (bare.events_kept && !full)
		bare.n_events = 0;
	if (output_sample(&r->json, &bare) != 0) {
		diag_say("--record: out of memory");
		r->failed = true;
		return -1;
	}
	/* The connections that changed; all of them where a reader begins. */
	if ((full || r->conns.reads != r->conns_seen) &&
	    conns_line_put(&r->tick, &r->book, r->conns.v, r->conns.n, full,
	    s->wall_ms) < 0) {
		diag_say("--record: out of memory");
		r->failed = true;
		return -1;
	}
	r->conns_seen = r->conns.reads;
	/* The gap in layers, each reading: an incident's page shows the last. */
	if (r->gap.reads != r->gap_seen) {
		explain_json(&r->tick, &r->gap.r, &r->gap.e);
		r->gap_seen = r->gap.reads;
	}
	return flush_tick(r) < 0 ? -1 : 0;
}

static int
observe_sample(void *ctx, const struct sample *s,
    const struct sampler_stats *so_far)
{
	struct record *r = ctx;
	struct process_memory prev;
	bool had;

	(void)so_far;
	if (put_sample(r, s) != 0)
		return -1;
	/*
	 * Found once a process: where its cgroup's counters will be. Another
	 * process (a restart) has another baseline, perhaps another cgroup.
	 */
	if (s->process.known && s->process.pid != r->cgroup_pid) {
		r->cgroup_pid = s->process.pid;
		r->has_cg = false;
		if (cgroup_find(r->env->proc != NULL ? r->env->proc :
		    PROCFS_ROOT, r->env->sys != NULL ? r->env->sys :
		    CGROUP_SYS_ROOT, r->cgroup_pid, r->cgroup_dir,
		    sizeof(r->cgroup_dir)) != 0)
			r->cgroup_dir[0] = '\0';
	}
	r->samples++;
	r->capture_samples++;
	/* The segments take what the heap dumps kept leave of the bound. */
	r->seg.max_bytes = r->env->opts->record_size - r->heap.bytes;
	prev = r->cg;
	had = r->has_cg;
	if (s->process.has_cgroup) {
		r->cg = s->process;
		r->has_cg = true;
	}
	r->last = s->process;
	r->has_last = true;
	watch(r, s, had ? &prev : NULL);
	return r->failed ? -1 : 0;
}

static void
observe_end(void *ctx, const struct summary *sum,
    const struct sampler_stats *stats, const char *why)
{
	struct record *r = ctx;

	(void)sum;
	r->end = stats->end;
	snprintf(r->why, sizeof(r->why), "%s", why != NULL ? why : "");
}

/* --- The captures, one a run of the server. --- */

static int
record_loop(struct record *r)
{
	const struct capture_env *env = r->env;
	struct capture_observer w = { .ctx = r, .begin = observe_begin,
	    .sample = observe_sample, .end = observe_end };
	struct options o = *env->opts;
	struct capture_env cenv = *env;
	uint64_t retry = reconnect_backoff(0);
	char err[1024], last[1024] = "";

	/* A lost server ends the capture at once: the incident is now. */
	o.reconnect_timeout_s = 0;
	cenv.opts = &o;
	cenv.observer = &w;
	cenv.conns = &r->conns;
	cenv.gap = &r->gap;
	if (r->heap.fd >= 0)
		cenv.heap_keep = &r->heap;
	if (cenv.events_every_ns == 0)
		cenv.events_every_ns = RECORD_EVENTS_EVERY_NS;
	while (!env->sig->stop && !r->failed) {
		if (session_open(env->session, err, sizeof(err)) != 0) {
			if (env->sig->stop)
				break;
			/*
			 * Refused before anything was recorded: the account's
			 * to mend, not the server's to come back from. Another
			 * server than the first (conn_types.h): the operator's
			 * to look at, whenever it comes.
			 */
			if ((r->samples == 0 && env->session->opened ==
			    CONN_DENIED) || env->session->opened ==
			    CONN_UNTRUSTED) {
				diag_say("%s", err);
				return EXIT_RUNTIME;
			}
			if (strcmp(last, err) != 0) {
				snprintf(last, sizeof(last), "%s", err);
				diag_say("%s; recording again once it answers, "
				    "trying every %llu s at most", err,
				    RECONNECT_MAX_NS / 1000000000ull);
			}
		} else {
			int rc;

			r->end = SAMPLER_END_SOURCE_ERROR;
			r->why[0] = '\0';
			rc = capture_run(&cenv, NULL, 0, NULL);
			session_close(env->session);
			if (env->sig->stop || r->failed)
				break;
			if (rc == EXIT_USAGE)
				return rc;
			/* --count, --duration: the run is over, as asked. */
			if (r->end == SAMPLER_END_COUNT ||
			    r->end == SAMPLER_END_DURATION)
				break;
			if (r->capture_samples > 0) {
				went_away(r);
				retry = reconnect_backoff(0);
				last[0] = '\0';
			}
		}
		/* Away for long, nothing is written: the age bound still holds. */
		segments_prune(&r->seg);
		if (clock_pause(&r->clk, retry, &r->env->sig->stop))
			break;
		retry = reconnect_backoff(retry);
	}
	return r->failed ? EXIT_RUNTIME : EXIT_DONE;
}

int
record_run(const struct capture_env *env)
{
	const struct options *o = env->opts;
	struct record r = { .env = env, .clk = clock_system() };
	static const cookie_io_functions_t io = { .write = tick_write };
	char err[512];
	int rc, got;

	if (env->clk != NULL)
		r.clk = *env->clk;
	if (segments_open(&r.seg, o->record_dir, o->record_size,
	    (int64_t)o->record_age_h * 3600000, &r.clk, err,
	    sizeof(err)) != 0) {
		diag_say("--record: %s", err);
		return EXIT_RUNTIME;
	}
	if (heap_keep_open(&r.heap, r.seg.dirfd, r.seg.dir, o->record_size /
	    RECORD_HEAP_SHARE, err, sizeof(err)) != 0) {
		diag_say("--record: %s", err);
		segments_close(&r.seg, NULL, 0);
		return EXIT_RUNTIME;
	}
	if ((r.incidents = incident_queue_start(r.seg.dir, r.seg.segfd,
	    r.seg.incfd, (int64_t)o->incident_minutes * 60000,
	    &env->sig->stop)) == NULL) {
		diag_say("--record: cannot start the thread that writes the "
		    "incidents: %s; raise the limit of processes (ulimit -u) "
		    "or free memory", strerror(errno));
		heap_keep_close(&r.heap);
		segments_close(&r.seg, NULL, 0);
		return EXIT_RUNTIME;
	}
	r.json.fmt = output_table_find("json");
	r.json.grain = "global";
	if ((r.json.fp = fopencookie(&r, "w", io)) == NULL) {
		diag_say("out of memory");
		incident_queue_finish(r.incidents);
		heap_keep_close(&r.heap);
		segments_close(&r.seg, NULL, 0);
		return EXIT_RUNTIME;
	}
	diag_note(env->diag, "recording the whole server every %" PRIu64
	    " ms into %s (its segments at most %" PRIu64 " MiB and %u h)",
	    o->frequency_ms, o->record_dir, o->record_size >> 20,
	    o->record_age_h);
	rc = record_loop(&r);
	/*
	 * The incidents handed over are written before DIR is let go; at a
	 * stop, only the one being written.
	 */
	incident_queue_finish(r.incidents);
	heap_keep_close(&r.heap);
	fclose(r.json.fp);
	output_release(&r.json);
	conns_free(&r.conns);
	conns_book_free(&r.book);
	obuf_free(&r.tick);
	/* A full disk is no error (the man page): said, as during the run. */
	if ((got = segments_close(&r.seg, err, sizeof(err))) != 0) {
		diag_say("--record: %s", err);
		if (got != SEGMENTS_FULL)
			rc = EXIT_RUNTIME;
	}
	return rc;
}
