/*
 * One reading of a thread's memory: the events performance_schema reports
 * for it, with the time the reading was taken.
 */
#ifndef MYSQLMEMPROF_SAMPLE_H
#define MYSQLMEMPROF_SAMPLE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* An interned name (names.h): a sample keeps only its address. */
struct event_name;
#include "statement.h"

/*
 * EVENT_NAME is VARCHAR(128) in utf8: up to 384 bytes. Longer names (never
 * seen in practice) are cut; the formatters cope with a cut UTF-8 sequence.
 */
#define EVENT_NAME_MAX 384

/*
 * What an event did since the previous sample: the sampler fills it in (see
 * delta.h). The byte and count deltas show every allocation made in
 * between, even those freed before the sample; a counter that went
 * backwards gives 0.
 */
struct event_delta {
	uint64_t alloc_bytes;
	uint64_t free_bytes;
	uint64_t alloc_count;
	uint64_t free_count;
	/*
	 * high_bytes rose and is above the current bytes of both samples: the
	 * event peaked at high_bytes between them, unseen by either.
	 */
	bool unseen_peak;
	/*
	 * The bytes freed beyond what the previous reading held were
	 * allocated after it, and the bytes allocated beyond what this reading
	 * holds were freed before it: memory neither reading shows. The
	 * largest of those allocations is at least their bytes over the
	 * allocations made, and the event held it whole at some moment, so
	 * that is a lower bound of a peak between the readings. spike_bytes is
	 * that bound when it is above what both readings show (a peak the
	 * delta proves, on its own, even when the high-water mark, a lifetime
	 * mark, does not rise); 0 otherwise. It assumes the event's bytes
	 * stay >= 0, as they do unless another thread frees them.
	 */
	int64_t spike_bytes;
};

/*
 * The counters of one memory instrument. The CURRENT_ and LOW_ columns are
 * signed on the server (a free counted without its allocation, when an
 * instrument was enabled late, makes them negative); the SUM_ and COUNT_
 * columns are unsigned.
 */
struct event_stat {
	char name[EVENT_NAME_MAX + 1];
	/*
	 * The name's entry in the process's table (names.h), set by the
	 * reader; NULL in an event made elsewhere (a replayed line, a test),
	 * which then goes by its name. Whoever changes name sets it again.
	 */
	const struct event_name *interned;
	int64_t current_bytes;
	int64_t current_count;
	int64_t high_bytes;
	uint64_t alloc_bytes;
	uint64_t free_bytes;
	uint64_t alloc_count;
	uint64_t free_count;
	/* Not the source's: valid in a sample whose has_deltas is set. */
	struct event_delta delta;
};

/*
 * What was switched off while sampling (guard.h), so that a reader of the
 * output knows the totals leave something out from that sample on.
 */
enum {
	SETUP_OFF_MEMORY = 1,     /* memory instruments */
	SETUP_OFF_STATEMENTS = 2, /* a statements consumer */
	SETUP_OFF_THREAD = 4,     /* the thread's INSTRUMENTED */
};

/*
 * The server's process as the kernel counts its pages, beside what
 * performance_schema counts (resident.h): read with each sample of
 * --global when the server runs on this machine. And the server's own
 * count of what it allocated, from its status (MariaDB's Memory_used,
 * MySQL's Global_connection_memory while it tracks it), from anywhere.
 */
struct process_memory {
	bool known;             /* the process's pages were read */
	int64_t resident_bytes; /* Rss */
	int64_t anon_bytes;     /* of it, anonymous pages (heaps, stacks) */
	int64_t file_bytes;     /* of it, file pages (the binary, libraries) */
	bool has_status;        /* the server gave its own count */
	int64_t status_bytes;
	/* The process id read (trusted: the server's here); 0: none. */
	uint64_t pid;
	/*
	 * The memory cgroup the process is in (cgroup.h), whose limit is the
	 * one the kernel's OOM killer acts on: read beside the process.
	 */
	bool has_cgroup;
	int cgroup_version;          /* 1 or 2 */
	int64_t cgroup_usage_bytes;  /* memory.current; v1: usage_in_bytes */
	int64_t cgroup_limit_bytes;  /* the lowest max on its way up; -1: no limit */
	int64_t cgroup_high_bytes;   /* v2's lowest memory.high; -1: none, or v1 */
	int64_t cgroup_high_events;  /* v2's times over memory.high, throttled; -1: v1 */
	int64_t cgroup_oom_kills;    /* processes the OOM killer killed in it */
	/*
	 * v2's memory.pressure, its avg10 in hundredths of a percent: the
	 * share of the last 10 s some (or all) of its tasks waited for memory;
	 * -1 where the kernel has no PSI, or v1.
	 */
	int64_t cgroup_pressure_some;
	int64_t cgroup_pressure_full;
};

struct sample {
	uint64_t seq;        /* 1, 2, ... in the order taken */
	uint64_t elapsed_us; /* monotonic time since the first sample was due */
	int64_t wall_ms;     /* UTC wall clock, milliseconds since the epoch */
	uint64_t late_us;    /* how long after its due time the query started */
	uint64_t query_us;   /* how long the query took */
	uint64_t gap_ms;     /* time without samples just before this one (reconnect) */
	bool has_deltas;     /* false for the first sample: nothing to compare with */
	uint64_t thread_id;
	int64_t total_bytes; /* current bytes summed over all the thread's events */
	int64_t filtered_total_bytes; /* over the events --events/--exclude keep */
	size_t n_events;     /* kept events, largest current bytes first */
	struct event_stat *events; /* storage owned by the ring */
	struct statement statement; /* what the thread was running */
	unsigned setup_off;  /* SETUP_OFF_*: switched off while sampling, at the last look */
	/*
	 * Over every event read, not only the kept ones: the bytes allocated
	 * since the previous sample (0 without deltas), and the thread total
	 * at the largest peak between the two samples, estimated as this
	 * sample's total with that one event at its peak (the unseen
	 * high-water mark, or the delta's lower bound); 0 when no event
	 * peaked between them.
	 */
	uint64_t alloc_delta_bytes;
	int64_t between_peak_total;
	/*
	 * Over every event read: how many were below 0 bytes, and their sum
	 * (memory that moved between threads; see runstats.h).
	 */
	size_t negative_events;
	int64_t negative_bytes;
	/*
	 * Taken while waiting, before the thread was found (history.h): one
	 * every --poll, not every --frequency, at its own time.
	 */
	bool waiting;
	/*
	 * The events are those of an earlier sample, read again at a slower
	 * beat than the samples (--record: beat.h); the totals too. Written
	 * without its events, which a reader takes from the sample before.
	 */
	bool events_kept;
	/*
	 * The server's own count of the thread's memory at this tick, read
	 * each tick where it is cheap (total.h): MySQL 8.0.31+'s
	 * threads.TOTAL_MEMORY (the sum of the thread's rows, to the byte) or
	 * MariaDB's PROCESSLIST.MEMORY_USED (its own accounting). A sample
	 * with it and events_kept carries the total only: its rows are an
	 * earlier tick's, and total_bytes is their sum moved by what this
	 * count moved since they were read.
	 */
	bool has_connection_bytes;
	int64_t connection_bytes;
	/* The server's process beside the sample; --global only. */
	struct process_memory process;
	/*
	 * The statements the thread finished since the previous sample, as
	 * the server recorded them (finished.h), oldest first: those too
	 * short for any sample to see as well. Storage owned by the ring.
	 */
	const struct finished_statement *finished;
	size_t n_finished;
};

/*
 * The process's resident memory performance_schema does not count, into
 * *bytes: below 0 when counted pages are not yet touched. False when the
 * process was not read, or the total is beyond any process (a hand-made
 * capture). The one rule of every output, the summary and --read.
 */
static inline bool
sample_untracked(const struct sample *s, int64_t *bytes)
{
	return s->process.known && !__builtin_sub_overflow(
	    s->process.resident_bytes, s->total_bytes, bytes);
}

/*
 * The largest bytes the event is known to have held between the previous
 * sample and this one, unseen by both: its risen high-water mark, else the
 * delta's lower bound; 0 when neither proves a peak.
 */
static inline int64_t
event_between_peak(const struct event_stat *e)
{
	int64_t p = e->delta.unseen_peak ? e->high_bytes : 0;

	return e->delta.spike_bytes > p ? e->delta.spike_bytes : p;
}

#endif
