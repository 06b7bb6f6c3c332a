/*
 * A fake server behind the session's table of operations, and a fake
 * clock, for the modules that talk to the server only through the session
 * (capture.c, wait.c, reconnect.c, watch.c, guard.c). Time moves only when
 * a module sleeps; the server is up, down, or restarted at times the test
 * sets. It answers as pfs.h documents the real one does.
 */
#ifndef MYSQLMEMPROF_FAKE_SERVER_H
#define MYSQLMEMPROF_FAKE_SERVER_H

#include <errno.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <setjmp.h>
#include <cmocka.h>

#include "clock.h"
#include "session.h"

#define MS 1000000ull
#define SEC 1000000000ull

/* The connection a fake open() hands out: which one, and whether it is open. */
struct conn {
	int id;
	int open;
};

struct fake_server {
	uint64_t now;            /* the fake monotonic clock */
	volatile sig_atomic_t stop;
	int stop_on_sleep;       /* this sleep (1-based) is cut by SIGTERM */
	size_t sleeps;

	uint64_t down_until;     /* open() fails with CONN_LOST before this */
	int refuse;              /* open() fails with CONN_DENIED */
	int untrusted;           /* open() fails with CONN_UNTRUSTED */
	int64_t boot_s;          /* the server's run, as preflight() says */
	uint64_t pid;
	enum pfs_status preflight; /* what preflight() says */
	uint64_t target_connection; /* the connection of the target thread */
	uint64_t target;         /* the one thread find_thread() knows; 0: none */
	uint64_t next_own;       /* our thread on the next connection */
	uint64_t opens_at[64];   /* when each open() was tried */
	size_t opens;
	struct conn conns[64];
	int closed;              /* close() calls */

	/* find_statements(): the list of each look, in turn; the last repeats. */
	const struct stmt_match *looks[16];
	size_t look_n[16];
	size_t n_looks, looks_done;
	uint64_t looks_at[64];
	int lose_at_look;        /* this look (1-based) loses the connection */
	uint64_t own_seen;       /* own_thread as find_statements() was given it */
	int peaks;               /* the server keeps the sessions' peaks */
	int64_t peak_asked;      /* match_filter.peak_bytes of the latest look */
	int64_t idle_asked;      /* match_filter.idle_bytes of the latest look */
	/*
	 * finished_over(): at look i (as looks[]; the last repeats), the
	 * statements that ended past the size, as the test wrote them; none
	 * asked when no_statement_peaks (MariaDB, MySQL before 8.0.31).
	 */
	const struct stmt_match *ended[16];
	size_t ended_n[16];
	int no_statement_peaks;
	size_t ended_asks;
	int lose_at_ended;       /* this ask (1-based) loses the connection */

	/* memory_limits(): MySQL's connection_memory_limit and kin. */
	struct pfs_memory_limits limits;
	size_t limit_reads;

	/* setup(): what performance_schema's setup is now. */
	struct pfs_setup setup;
	enum pfs_status setup_status;
	size_t setup_looks;
	uint64_t setup_thread;

	/* thread_statement(): what the followed thread runs now. */
	int thread_gone;
	int running;
	struct stmt_match now_running;
	size_t statement_looks;

	/*
	 * threads_memory(): each thread asked for has one event holding the
	 * bytes the latest look gave it, and statement id 1.
	 */
	size_t memory_reads;
	size_t memory_threads; /* asked for in the latest read */

	/* thread_statement(): look i's statements end at ends_at[i] (0: never). */
	uint64_t ends_at[16];

	/* The checks of a capture, and the whole server's total. */
	enum pfs_status grain_status; /* check_grain(): PFS_NOT_FOUND, no rows */
	int statements_off;      /* check_statements(): the consumer is off */
	int partial_instruments; /* check_memory_instruments(): some are off */
	size_t checks;           /* check_*() calls */
	int64_t global_bytes;    /* global_total() */
	size_t global_reads;
	/* server_memory(): the server's own count, when known. */
	int64_t status_bytes;
	bool status_known;
	size_t status_reads;
	/* ping (--record's beat): how many, and what they answer. */
	size_t pings;
	enum pfs_status ping_status;

	/* top_threads(): these, largest first; or top_status, a failure. */
	struct thread_total tops[4];
	size_t n_tops, top_reads;
	enum pfs_status top_status;

	/*
	 * connections(): these rows, each of elapsed_ms[i] into its command,
	 * and a row of our own connection, left out as CONNECTION_ID() is;
	 * the first read of a connection asks for PROCESS, which no_process
	 * denies (the dear way: MariaDB without it); conns_status: a failure.
	 */
	struct conn_row conn_rows[4];
	int64_t elapsed_ms[4];
	size_t n_conn_rows, conn_reads, process_checks;
	int no_process;
	enum pfs_status conns_status;
	int64_t conns_now_ms;    /* now_ms of the latest read */
	uint64_t conn_reads_at[64];

	/*
	 * The layers of --explain: counted_layers() gives layers; estimate()
	 * sums the variables of vars ("name", "value" pairs, NULL-ended) as
	 * the server's rows; measured_connections() gives measured, without
	 * peaks when the way is the dear one (no_process, as connections());
	 * layers_status: a failure of each; estimate_status: of estimate()
	 * alone.
	 */
	struct counted_layers layers;
	const char *vars[2 * ESTIMATE_VARS + 1];
	struct measured_connections measured;
	enum pfs_status layers_status, estimate_status;
	size_t layers_reads, estimate_reads, measured_reads;
	uint64_t layers_ns;      /* how long counted_layers takes (now moves) */

	/* list_threads(): the target, and our own thread. */
	size_t lists;

	/*
	 * The reader of a capture: reading i holds one event of
	 * reader_bytes[i] bytes (the last repeats) and runs statement
	 * reader_stmt[i] (0: none); the target is gone from reading
	 * gone_after + 1 on (0: never), and reading lose_at_read (1-based)
	 * loses the connection.
	 */
	int64_t reader_bytes[16];
	size_t n_reader_bytes;
	uint64_t reader_stmt[16];
	bool reader_ended[16];   /* reading i's statement has ended */
	/*
	 * thread_history(): a server that keeps statements' peaks when
	 * history_peaks is set (MySQL 8.0.31+), its consumer on unless
	 * history_off; the top-level statements its history holds, oldest
	 * first, each given when its id is at least the one asked from;
	 * the oldest id the history holds, of any level (0: the first
	 * row's). history_lose: the next read fails, the connection lost.
	 */
	int history_peaks;
	int history_off;
	struct finished_statement history[8];
	size_t n_history;
	uint64_t history_oldest;
	int history_lose;
	size_t history_reads;
	size_t history_probes;   /* asked only whether peaks are kept */
	uint64_t history_from;   /* the id the latest read asked from */
	size_t gone_after;
	size_t lose_at_read;
	size_t reads, readers, readers_freed, readers_without;
	struct read_target read_target; /* the latest asked for */
};

/* The operations have no context: the test's server is this one. */
static struct fake_server *fake;

static uint64_t
fake_now(void *ctx)
{
	(void)ctx;
	return fake->now;
}

static int64_t
fake_wall(void *ctx)
{
	(void)ctx;
	return 1700000000000 + (int64_t)(fake->now / MS);
}

static int
fake_sleep(void *ctx, uint64_t deadline)
{
	(void)ctx;
	if ((int)++fake->sleeps == fake->stop_on_sleep) {
		fake->stop = 1;
		return EINTR;
	}
	if (fake->now < deadline)
		fake->now = deadline;
	return 0;
}

static enum conn_status
fake_open(struct conn **out, const struct conn_params *p, char *err,
    size_t errlen)
{
	(void)p;
	assert_true(fake->opens < 64);
	fake->opens_at[fake->opens++] = fake->now;
	*out = NULL;
	if (fake->refuse) {
		snprintf(err, errlen, "access denied");
		return CONN_DENIED;
	}
	if (fake->untrusted) {
		snprintf(err, errlen, "another certificate");
		return CONN_UNTRUSTED;
	}
	if (fake->now < fake->down_until) {
		snprintf(err, errlen, "cannot connect: the server is down");
		return CONN_LOST;
	}
	*out = &fake->conns[fake->opens - 1];
	**out = (struct conn){ .id = (int)fake->opens, .open = 1 };
	return CONN_OK;
}

static void
fake_close(struct conn *c)
{
	if (c == NULL)
		return;
	assert_true(c->open);
	c->open = 0;
	fake->closed++;
}

static enum pfs_status
fake_preflight(struct conn *c, struct pfs_preflight *out, char *err,
    size_t errlen)
{
	assert_true(c->open);
	if (fake->preflight != PFS_OK) {
		snprintf(err, errlen, "performance_schema is off");
		return fake->preflight;
	}
	*out = (struct pfs_preflight){
		.enabled = 100, .total = 100, .own_thread = fake->next_own++,
		.server = { .boot_s = fake->boot_s, .pid = fake->pid },
	};
	return PFS_OK;
}

/* pfs_find_thread(): the one target, by its thread or its connection id. */
static enum pfs_status
fake_find_thread(struct conn *c, enum pfs_thread_key key, uint64_t id,
    uint64_t *thread_id, uint64_t *connection_id, char *err, size_t errlen)
{
	assert_true(c->open);
	if (fake->target == 0 || id != (key == PFS_BY_THREAD ? fake->target :
	    fake->target_connection)) {
		snprintf(err, errlen, "no %s %llu", key == PFS_BY_THREAD ?
		    "thread" : "connection", (unsigned long long)id);
		return PFS_NOT_FOUND;
	}
	if (thread_id != NULL)
		*thread_id = fake->target;
	if (connection_id != NULL)
		*connection_id = fake->target_connection;
	return PFS_OK;
}

static enum pfs_status
fake_find(struct conn *c, const struct server_kind *kind,
    const struct match_filter *f, uint64_t own_thread,
    struct match_list *out, char *err, size_t errlen)
{
	(void)kind;
	size_t i = fake->looks_done < fake->n_looks ? fake->looks_done :
	    fake->n_looks - 1;

	assert_true(c->open);
	assert_true(fake->looks_done < 64);
	fake->looks_at[fake->looks_done++] = fake->now;
	fake->own_seen = own_thread;
	fake->peak_asked = f->peak_bytes;
	fake->idle_asked = f->idle_bytes;
	memset(out, 0, sizeof(*out));
	/* A look's rows carry peaks, and peak_only rows, as the test wrote them. */
	out->peaks = fake->peaks && f->peak_bytes > 0;
	if ((int)fake->looks_done == fake->lose_at_look) {
		snprintf(err, errlen, "lost the connection while looking");
		return PFS_LOST;
	}
	for (size_t k = 0; fake->n_looks > 0 && k < fake->look_n[i]; k++)
		assert_int_equal(match_list_add(out, &fake->looks[i][k]), 0);
	return PFS_OK;
}

static enum pfs_status
fake_finished_over(struct conn *c, const struct server_kind *kind,
    const struct match_filter *f, uint64_t own_thread,
    struct match_list *out, char *err, size_t errlen)
{
	size_t i = fake->looks_done == 0 ? 0 : fake->looks_done - 1;

	(void)kind;
	(void)own_thread;
	assert_true(c->open);
	assert_true(f->min_bytes > 0);
	memset(out, 0, sizeof(*out));
	if (fake->no_statement_peaks)
		return PFS_OK;
	out->peaks = true;
	if ((int)++fake->ended_asks == fake->lose_at_ended) {
		snprintf(err, errlen, "lost the connection");
		return PFS_LOST;
	}
	if (fake->n_looks > 0 && i >= fake->n_looks)
		i = fake->n_looks - 1;
	for (size_t k = 0; k < fake->ended_n[i]; k++)
		assert_int_equal(match_list_add(out, &fake->ended[i][k]), 0);
	return PFS_OK;
}

/* conn_server_version(): what the handshake said. */
static const char *
fake_server_version(struct conn *c)
{
	assert_true(c->open);
	return "10.11.6-MariaDB-fake";
}

/* conn_cipher(): the fake speaks no TLS. */
static const char *
fake_cipher(struct conn *c)
{
	assert_true(c->open);
	return NULL;
}

static enum pfs_status
fake_check_grain(struct conn *c, enum pfs_grain grain, const char *user,
    const char *host, char *err, size_t errlen)
{
	(void)grain, (void)user, (void)host;
	assert_true(c->open);
	fake->checks++;
	if (fake->grain_status != PFS_OK)
		snprintf(err, errlen, "no rows for that grain");
	return fake->grain_status;
}

static enum pfs_status
fake_check_statements(struct conn *c, char *note, size_t notelen)
{
	assert_true(c->open);
	fake->checks++;
	if (!fake->statements_off)
		return PFS_OK;
	snprintf(note, notelen, "events_statements_current is off");
	return PFS_DISABLED;
}

static enum pfs_status
fake_check_memory_instruments(struct conn *c, char *note, size_t notelen)
{
	assert_true(c->open);
	fake->checks++;
	if (!fake->partial_instruments)
		return PFS_OK;
	snprintf(note, notelen, "only 90 of 100 memory instruments are on");
	return PFS_DISABLED;
}

static enum pfs_status
fake_global_total(struct conn *c, int64_t *bytes, char *err, size_t errlen)
{
	(void)err, (void)errlen;
	assert_true(c->open);
	fake->global_reads++;
	*bytes = fake->global_bytes;
	return PFS_OK;
}

static enum pfs_status
fake_server_memory(struct conn *c, const struct server_kind *k,
    int64_t *bytes, bool *known, char *err, size_t errlen)
{
	(void)k, (void)err, (void)errlen;
	assert_true(c->open);
	fake->status_reads++;
	*bytes = fake->status_known ? fake->status_bytes : 0;
	*known = fake->status_known;
	return PFS_OK;
}

static enum pfs_status
fake_ping(struct conn *c, char *err, size_t errlen)
{
	assert_true(c->open);
	fake->pings++;
	if (fake->ping_status != PFS_OK) {
		snprintf(err, errlen, "lost");
		return fake->ping_status;
	}
	return PFS_OK;
}

static enum pfs_status
fake_top_threads(struct conn *c, size_t max, struct thread_total *out,
    size_t *n, char *err, size_t errlen)
{
	assert_true(c->open);
	fake->top_reads++;
	if (fake->top_status != PFS_OK) {
		snprintf(err, errlen, "lost");
		return fake->top_status;
	}
	*n = fake->n_tops < max ? fake->n_tops : max;
	memcpy(out, fake->tops, *n * sizeof(*out));
	return PFS_OK;
}

/* Every connection but ours, as pfs_connections() reads them. */
static enum pfs_status
fake_connections(struct conn *c, const struct server_kind *kind,
    int64_t now_ms, enum conns_way *way, struct conn_list *out, char *err,
    size_t errlen)
{
	(void)kind;
	assert_true(c->open);
	out->n = 0;
	if (*way == CONNS_UNKNOWN) {
		fake->process_checks++;
		*way = fake->no_process ? CONNS_NO_PROCESS : CONNS_PROCESSLIST;
	}
	if (fake->conn_reads < 64)
		fake->conn_reads_at[fake->conn_reads] = fake->now;
	fake->conn_reads++;
	fake->conns_now_ms = now_ms;
	if (fake->conns_status != PFS_OK) {
		snprintf(err, errlen, "lost");
		return fake->conns_status;
	}
	/* Our own connection is one more, which the server leaves out. */
	assert_int_equal(conn_list_reserve(out, fake->n_conn_rows + 1), 0);
	for (size_t i = 0; i < fake->n_conn_rows; i++) {
		out->v[out->n] = fake->conn_rows[i];
		out->v[out->n].since_ms = now_ms - fake->elapsed_ms[i];
		if (*way == CONNS_NO_PROCESS)
			out->v[out->n].peak_bytes = -1;
		out->n++;
	}
	return PFS_OK;
}

static enum pfs_status
fake_counted_layers(struct conn *c, struct counted_layers *out, char *err,
    size_t errlen)
{
	assert_true(c->open);
	fake->layers_reads++;
	fake->now += fake->layers_ns;
	memset(out, 0, sizeof(*out));
	if (fake->layers_status != PFS_OK) {
		snprintf(err, errlen, "lost");
		return fake->layers_status;
	}
	*out = fake->layers;
	return PFS_OK;
}

static enum pfs_status
fake_estimate(struct conn *c, const struct server_kind *kind,
    struct estimate *out, char *err, size_t errlen)
{
	(void)kind;
	assert_true(c->open);
	fake->estimate_reads++;
	estimate_clear(out);
	if (fake->estimate_status != PFS_OK) {
		snprintf(err, errlen, "reading the variables: denied");
		return fake->estimate_status;
	}
	if (fake->layers_status != PFS_OK) {
		snprintf(err, errlen, "lost");
		return fake->layers_status;
	}
	for (size_t i = 0; fake->vars[i] != NULL; i += 2)
		(void)estimate_set(out, fake->vars[i], fake->vars[i + 1]);
	estimate_sum(out);
	return PFS_OK;
}

static enum pfs_status
fake_measured_connections(struct conn *c, const struct server_kind *kind,
    enum conns_way *way, struct measured_connections *out, char *err,
    size_t errlen)
{
	(void)kind;
	assert_true(c->open);
	fake->measured_reads++;
	*out = (struct measured_connections){ .sum_peaks = -1,
	    .largest_peak = -1, .largest_statement_peak = -1 };
	if (*way == CONNS_UNKNOWN) {
		fake->process_checks++;
		*way = fake->no_process ? CONNS_NO_PROCESS : CONNS_PROCESSLIST;
	}
	if (fake->layers_status != PFS_OK) {
		snprintf(err, errlen, "lost");
		return fake->layers_status;
	}
	*out = fake->measured;
	if (*way == CONNS_NO_PROCESS) {
		out->no_process = true;
		out->sum_peaks = out->largest_peak = -1;
	}
	return PFS_OK;
}

/* The target, then our own thread, as the list the caller frees. */
static enum pfs_status
fake_list_threads(struct conn *c, const struct server_kind *kind,
    struct thread_list *out, char *err, size_t errlen)
{
	(void)kind, (void)err, (void)errlen;
	assert_true(c->open);
	fake->lists++;
	out->n = 0;
	assert_non_null(out->v = calloc(2, sizeof(*out->v)));
	if (fake->target != 0)
		out->v[out->n++] = (struct thread_info){
			.thread_id = fake->target, .has_connection = true,
			.connection_id = fake->target_connection,
			.type = strdup("FOREGROUND"), .current_bytes = 4096 };
	out->v[out->n++] = (struct thread_info){
		.thread_id = fake->next_own - 1, .type = strdup("FOREGROUND") };
	return PFS_OK;
}

/* The reader a capture makes through the session (pfs_read.h). */
struct pfs_reader {
	struct session *s;
	struct read_target t;
	bool without_statements;
	struct event_stat ev;
	struct statement st;
};

static enum source_status
fake_reader_read(void *ctx, uint64_t deadline_ns, struct reading *out,
    char *err, size_t errlen)
{
	struct pfs_reader *r = ctx;
	size_t i = fake->reads++;
	size_t k = fake->n_reader_bytes == 0 ? 0 :
	    i < fake->n_reader_bytes ? i : fake->n_reader_bytes - 1;
	uint64_t id = fake->reader_stmt[i < 16 ? i : 15];

	(void)deadline_ns;
	/* Through the session's connection of the moment, as pfs_read does. */
	assert_true(r->s->conn != NULL && r->s->conn->open);
	if (fake->lose_at_read == i + 1) {
		snprintf(err, errlen, "lost the connection while reading");
		return SOURCE_LOST;
	}
	if (fake->gone_after != 0 && i >= fake->gone_after)
		return SOURCE_GONE;
	r->ev = (struct event_stat){ .name = "memory/sql/fake",
	    .current_bytes = fake->n_reader_bytes > 0 ?
	    fake->reader_bytes[k] : 0 };
	r->st = (struct statement){ .thread_id = r->t.thread_id };
	if (id != 0 && !r->without_statements) {
		r->st.has_id = true;
		r->st.id = id;
		r->st.ended = fake->reader_ended[i < 16 ? i : 15];
	}
	if (id != 0)
		snprintf(r->st.text, sizeof(r->st.text), "SELECT %llu",
		    (unsigned long long)id);
	*out = (struct reading){ .events = &r->ev, .n = 1,
	    .statement = r->t.is_grain ? NULL : &r->st };
	return SOURCE_OK;
}

static struct pfs_reader *
fake_reader_create(struct session *s, const struct read_target *t)
{
	struct pfs_reader *r = calloc(1, sizeof(*r));

	assert_non_null(r);
	r->s = s;
	r->t = *t;
	fake->read_target = *t;
	fake->readers++;
	return r;
}

static struct source
fake_reader_source(struct pfs_reader *r)
{
	return (struct source){ .ctx = r, .read = fake_reader_read };
}

static void
fake_reader_without_statements(struct pfs_reader *r)
{
	r->without_statements = true;
	fake->readers_without++;
}

static void
fake_reader_free(struct pfs_reader *r)
{
	if (r != NULL)
		fake->readers_freed++;
	free(r);
}

/* As pfs_memory_limits(): the test's limits, known when any is set. */
static enum pfs_status
fake_memory_limits(struct conn *c, const struct server_kind *kind,
    struct pfs_memory_limits *out, char *err, size_t errlen)
{
	(void)kind, (void)err, (void)errlen;
	assert_true(c->open);
	fake->limit_reads++;
	*out = fake->limits;
	return PFS_OK;
}

static enum pfs_status
fake_setup(struct conn *c, uint64_t thread_id, struct pfs_setup *out,
    char *err, size_t errlen)
{
	assert_true(c->open);
	fake->setup_looks++;
	fake->setup_thread = thread_id;
	if (fake->setup_status != PFS_OK) {
		snprintf(err, errlen, "lost");
		return fake->setup_status;
	}
	*out = fake->setup;
	return PFS_OK;
}

static enum pfs_status
fake_thread_statement(struct conn *c, uint64_t thread_id, bool *running,
    struct stmt_match *now, char *err, size_t errlen)
{
	assert_true(c->open);
	fake->statement_looks++;
	if (fake->thread_gone) {
		snprintf(err, errlen, "gone");
		return PFS_NOT_FOUND;
	}
	*running = fake->running;
	*now = fake->now_running;
	/*
	 * Another thread of the latest look runs what that look saw, until
	 * the look's statements end: then it runs nothing.
	 */
	if (thread_id != now->thread_id && fake->n_looks > 0) {
		size_t i = fake->looks_done == 0 ? 0 : fake->looks_done - 1;

		if (i >= fake->n_looks)
			i = fake->n_looks - 1;
		for (size_t k = 0; k < fake->look_n[i]; k++)
			if (fake->looks[i][k].thread_id == thread_id)
				*now = fake->looks[i][k];
		if (i < 16 && fake->ends_at[i] != 0 && fake->now >=
		    fake->ends_at[i])
			*running = false;
	}
	return PFS_OK;
}

static enum pfs_status
fake_threads_memory(struct conn *c, const uint64_t *ids, size_t n,
    bool statements, pfs_thread_memory_fn fn, void *ctx, char *err,
    size_t errlen)
{
	size_t look = fake->looks_done - 1;

	(void)statements;
	(void)err;
	(void)errlen;
	assert_true(c->open);
	if (look >= fake->n_looks)
		look = fake->n_looks - 1;
	fake->memory_reads++;
	fake->memory_threads = n;
	for (size_t i = 0; i < n; i++)
		for (size_t k = 0; k < fake->look_n[look]; k++) {
			const struct stmt_match *m = &fake->looks[look][k];
			struct statement st = { .thread_id = m->thread_id,
			    .has_id = true, .id = 1 };
			struct event_stat e = { .name = "memory/sql/fake",
			    .current_bytes = m->current_bytes };

			if (m->thread_id == ids[i] && fn(ctx, ids[i], &st, &e,
			    1) != 0)
				return PFS_ERROR;
		}
	return PFS_OK;
}

static enum pfs_status
fake_thread_history(struct conn *c, const struct server_kind *kind,
    uint64_t thread_id, uint64_t from_id, struct pfs_history *out,
    char *err, size_t errlen)
{
	(void)kind;
	assert_true(c != NULL && c->open);
	*out = (struct pfs_history){ .peaks = fake->history_peaks != 0 };
	if (from_id == PFS_HISTORY_PROBE) {
		fake->history_probes++;
		return PFS_OK;
	}
	fake->history_reads++;
	fake->history_from = from_id;
	if (!out->peaks)
		return PFS_OK;
	if (fake->history_lose) {
		fake->history_lose = 0;
		snprintf(err, errlen, "lost the connection");
		return PFS_LOST;
	}
	out->consumer = !fake->history_off;
	if (!out->consumer)
		return PFS_OK;
	out->oldest = fake->history_oldest != 0 ? fake->history_oldest :
	    fake->n_history > 0 ? fake->history[0].statement.id : 0;
	for (size_t i = 0; i < fake->n_history && out->n < PFS_HISTORY_ROWS;
	    i++)
		if (fake->history[i].statement.id >= from_id) {
			out->rows[out->n] = fake->history[i];
			out->rows[out->n].statement.thread_id = thread_id;
			out->n++;
		}
	return PFS_OK;
}

static const struct session_ops fake_ops = {
	.open = fake_open,
	.close = fake_close,
	.server_version = fake_server_version,
	.cipher = fake_cipher,
	.preflight = fake_preflight,
	.find_thread = fake_find_thread,
	.check_grain = fake_check_grain,
	.check_statements = fake_check_statements,
	.check_memory_instruments = fake_check_memory_instruments,
	.global_total = fake_global_total,
	.ping = fake_ping,
	.server_memory = fake_server_memory,
	.top_threads = fake_top_threads,
	.list_threads = fake_list_threads,
	.connections = fake_connections,
	.counted_layers = fake_counted_layers,
	.estimate = fake_estimate,
	.measured_connections = fake_measured_connections,
	.setup = fake_setup,
	.memory_limits = fake_memory_limits,
	.find_statements = fake_find,
	.thread_statement = fake_thread_statement,
	.finished_over = fake_finished_over,
	.threads_memory = fake_threads_memory,
	.thread_history = fake_thread_history,
	.reader_create = fake_reader_create,
	.reader_source = fake_reader_source,
	.reader_without_statements = fake_reader_without_statements,
	.reader_free = fake_reader_free,
};

static const struct clock fake_clock = {
	NULL, fake_now, fake_wall, fake_sleep,
};

/* A session connected to the fake server, as session_open() leaves it. */
static inline void
fake_session(struct fake_server *srv, struct session *s)
{
	char err[256];

	fake = srv;
	*s = (struct session){ .ops = &fake_ops };
	assert_int_equal(fake_open(&s->conn, &s->params, err, sizeof(err)),
	    CONN_OK);
	s->own_thread = srv->next_own++;
	s->server = (struct pfs_server_id){ .boot_s = srv->boot_s,
	    .pid = srv->pid };
	/* Read by the first that needs them, as after session_open(). */
	s->limits_read = false;
	/* opens_at[0] is this first connect; reconnects follow it. */
}

#endif
