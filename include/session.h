/*
 * The session with the server: the connection, what it was opened with,
 * and what the program learnt when it connected. The top level owns it;
 * reconnecting (reconnect.h) refreshes it in place, so whatever holds a
 * pointer to it reads through the new connection.
 *
 * What reconnect.c, watch.c and guard.c ask the server goes through a
 * small table of operations, so that unit tests drive them with a fake
 * server; capture.c and app.c, tested against a real server, call pfs_*
 * directly.
 */
#ifndef MYSQLMEMPROF_SESSION_H
#define MYSQLMEMPROF_SESSION_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "conn.h"
#include "match.h"
#include "pfs.h"

struct session_ops {
	enum conn_status (*open)(struct conn **out,
	    const struct conn_params *p, char *err, size_t errlen);
	void (*close)(struct conn *c);
	/* pfs_preflight() */
	enum pfs_status (*preflight)(struct conn *c, struct pfs_preflight *out,
	    char *err, size_t errlen);
	/* Whether a thread exists; its connection id (0: a background thread). */
	enum pfs_status (*check_thread)(struct conn *c, uint64_t thread_id,
	    uint64_t *connection_id, char *err, size_t errlen);
	/* pfs_setup(), pfs_find_statements(), pfs_thread_statement() */
	enum pfs_status (*setup)(struct conn *c, uint64_t thread_id,
	    struct pfs_setup *out, char *err, size_t errlen);
	enum pfs_status (*find_statements)(struct conn *c,
	    const struct server_kind *kind, const struct match_filter *f,
	    uint64_t own_thread, struct match_list *out, char *err,
	    size_t errlen);
	enum pfs_status (*thread_statement)(struct conn *c, uint64_t thread_id,
	    bool *running, struct stmt_match *now, char *err, size_t errlen);
	/* pfs_threads_memory(), for the history kept while waiting; may be NULL. */
	enum pfs_status (*threads_memory)(struct conn *c, const uint64_t *ids,
	    size_t n, bool statements, pfs_thread_memory_fn fn, void *ctx,
	    char *err, size_t errlen);
};

/* Whether events_statements_current records statements, once asked. */
enum session_statements {
	STATEMENTS_UNKNOWN,
	STATEMENTS_ON,
	STATEMENTS_OFF, /* samples carry only the text, from threads */
};

struct session {
	const struct session_ops *ops;
	struct conn_params params; /* its strings are borrowed */
	struct conn *conn;         /* owned; NULL while not connected */
	struct pfs_server_id server; /* a thread id means one thread while it holds */
	/* Which server and version: learnt at connect, again at a reconnect. */
	struct server_kind kind;
	uint64_t own_thread;       /* our own thread: never a target */
	size_t instruments;        /* memory instruments the server knows */
	enum session_statements statements;
};

/* The operations of a real server, through conn.h and pfs.h. */
extern const struct session_ops session_server;

/*
 * Connects with s->params through s->ops, checks that performance_schema
 * can be sampled and learns the rest of *s. Returns 0, or -1 with err.
 */
int session_open(struct session *s, char *err, size_t errlen);
void session_close(struct session *s);

#endif
