/*
 * A fake server behind the session's table of operations, and a fake
 * clock, for the modules that talk to the server only through the session
 * (reconnect.c, watch.c). Time moves only when a module sleeps; the server
 * is up, down, or restarted at times the test sets.
 */
#ifndef MYSQLMEMPROF_FAKE_SERVER_H
#define MYSQLMEMPROF_FAKE_SERVER_H

#include <errno.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
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
	/* Another thread of the latest look runs what that look saw. */
	if (thread_id != now->thread_id && fake->n_looks > 0) {
		size_t i = fake->looks_done == 0 ? 0 : fake->looks_done - 1;

		if (i >= fake->n_looks)
			i = fake->n_looks - 1;
		for (size_t k = 0; k < fake->look_n[i]; k++)
			if (fake->looks[i][k].thread_id == thread_id)
				*now = fake->looks[i][k];
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

static const struct session_ops fake_ops = {
	.open = fake_open,
	.close = fake_close,
	.preflight = fake_preflight,
	.find_thread = fake_find_thread,
	.setup = fake_setup,
	.find_statements = fake_find,
	.thread_statement = fake_thread_statement,
	.threads_memory = fake_threads_memory,
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
	/* opens_at[0] is this first connect; reconnects follow it. */
}

#endif
