/*
 * The session with the server: the connection, what it was opened with,
 * and what the program learnt when it connected. The top level owns it;
 * reconnecting (reconnect.h) refreshes it in place, so whatever holds a
 * pointer to it reads through the new connection.
 *
 * Every query of the program above this level goes through one table of
 * operations, struct session_ops: the server's (session_server, binding
 * conn.h and pfs_*.c) or a fake, so that unit tests drive capture, wait,
 * reconnect, watch, guard and top_threads without a server. A new query
 * is a new operation here, and in the fake.
 */
#ifndef MYSQLMEMPROF_SESSION_H
#define MYSQLMEMPROF_SESSION_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "conn.h"
#include "match.h"
#include "pfs.h"
#include "source.h"

struct pfs_reader;
struct session;

/* What a capture reads its samples from: one thread, or a grain. */
struct read_target {
	bool is_grain;
	uint64_t thread_id;     /* without a grain */
	enum pfs_grain grain;   /* with one; user and host are borrowed */
	const char *user, *host;
};

struct session_ops {
	enum conn_status (*open)(struct conn **out,
	    const struct conn_params *p, char *err, size_t errlen);
	void (*close)(struct conn *c);
	/* conn_server_version(), conn_cipher(): of the connection open now. */
	const char *(*server_version)(struct conn *c);
	const char *(*cipher)(struct conn *c);
	/* pfs_preflight() */
	enum pfs_status (*preflight)(struct conn *c, struct pfs_preflight *out,
	    char *err, size_t errlen);
	/* pfs_find_thread(): the thread or connection id of a target. */
	enum pfs_status (*find_thread)(struct conn *c, enum pfs_thread_key key,
	    uint64_t id, uint64_t *thread_id, uint64_t *connection_id,
	    char *err, size_t errlen);
	/* pfs_check_grain(), pfs_check_statements(), pfs_check_memory_instruments() */
	enum pfs_status (*check_grain)(struct conn *c, enum pfs_grain grain,
	    const char *user, const char *host, char *err, size_t errlen);
	enum pfs_status (*check_statements)(struct conn *c, char *note,
	    size_t notelen);
	enum pfs_status (*check_memory_instruments)(struct conn *c, char *note,
	    size_t notelen);
	/* pfs_global_total(), pfs_top_threads(), pfs_list_threads() */
	enum pfs_status (*global_total)(struct conn *c, int64_t *bytes,
	    char *err, size_t errlen);
	/* pfs_server_memory(): the server's own count, from its status. */
	/* pfs_own_count(): a thread's own count, each tick (total.h). */
	enum pfs_status (*own_count)(struct conn *c,
	    const struct server_kind *kind, const struct pfs_thread_ids *t,
	    struct pfs_own_count *out, char *err, size_t errlen);
	/* pfs_ping(): whether the server still answers, for --record. */
	enum pfs_status (*ping)(struct conn *c, char *err, size_t errlen);
	enum pfs_status (*server_memory)(struct conn *c,
	    const struct server_kind *kind, int64_t *bytes, bool *known,
	    char *err, size_t errlen);
	enum pfs_status (*top_threads)(struct conn *c, size_t max,
	    struct thread_total *out, size_t *n, char *err, size_t errlen);
	enum pfs_status (*list_threads)(struct conn *c,
	    const struct server_kind *kind, struct thread_list *out, char *err,
	    size_t errlen);
	/*
	 * pfs_memory_limits(): MySQL 8.0.28+'s, read at most once a
	 * connection, by the first that needs them (capture_memory_limits()).
	 */
	enum pfs_status (*memory_limits)(struct conn *c,
	    const struct server_kind *kind, struct pfs_memory_limits *out,
	    char *err, size_t errlen);
	/*
	 * pfs_connections(): every client connection but ours; *way is the
	 * session's conns_way, which the first read of a connection fills.
	 */
	enum pfs_status (*connections)(struct conn *c,
	    const struct server_kind *kind, int64_t now_ms,
	    enum conns_way *way, struct conn_list *out, char *err,
	    size_t errlen);
	/*
	 * The layers of --explain (layers.h): pfs_counted_layers(),
	 * pfs_estimate(), pfs_measured_connections() (its *way is the
	 * session's conns_way, as connections' is).
	 */
	enum pfs_status (*counted_layers)(struct conn *c,
	    struct counted_layers *out, char *err, size_t errlen);
	enum pfs_status (*estimate)(struct conn *c,
	    const struct server_kind *kind, struct estimate *out, char *err,
	    size_t errlen);
	enum pfs_status (*measured_connections)(struct conn *c,
	    const struct server_kind *kind, enum conns_way *way,
	    struct measured_connections *out, char *err, size_t errlen);
	/* pfs_setup(), pfs_find_statements(), pfs_thread_statement() */
	enum pfs_status (*setup)(struct conn *c, uint64_t thread_id,
	    struct pfs_setup *out, char *err, size_t errlen);
	enum pfs_status (*find_statements)(struct conn *c,
	    const struct server_kind *kind, const struct match_filter *f,
	    uint64_t own_thread, struct match_list *out, char *err,
	    size_t errlen);
	enum pfs_status (*thread_statement)(struct conn *c, uint64_t thread_id,
	    bool *running, struct stmt_match *now, char *err, size_t errlen);
	/*
	 * pfs_finished_over(): the statements that ended past a size, by
	 * their own peak, where the server's kind keeps it (out->peaks).
	 */
	enum pfs_status (*finished_over)(struct conn *c,
	    const struct server_kind *kind, const struct match_filter *f,
	    uint64_t own_thread, struct match_list *out, char *err,
	    size_t errlen);
	/* pfs_threads_memory(), for the history kept while waiting; may be NULL. */
	enum pfs_status (*threads_memory)(struct conn *c, const uint64_t *ids,
	    size_t n, bool statements, pfs_thread_memory_fn fn, void *ctx,
	    char *err, size_t errlen);
	/*
	 * pfs_thread_history(): the statements a thread finished, with the
	 * server's peak of each, where its kind keeps them (out->peaks).
	 */
	enum pfs_status (*thread_history)(struct conn *c,
	    const struct server_kind *kind, uint64_t thread_id,
	    uint64_t from_id, struct pfs_history *out, char *err,
	    size_t errlen);
	/*
	 * The reader of a capture (pfs_read.h): a source reading t through
	 * the session's connection of the moment, so a reconnect needs no
	 * word to it. NULL when out of memory; reader_free() frees it.
	 */
	struct pfs_reader *(*reader_create)(struct session *s,
	    const struct read_target *t);
	struct source (*reader_source)(struct pfs_reader *r);
	/* Reads no statement from now on, only the running text. */
	void (*reader_without_statements)(struct pfs_reader *r);
	void (*reader_free)(struct pfs_reader *r);
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
	struct conn_pin pin;       /* params.pin: the run's first certificate */
	struct conn *conn;         /* owned; NULL while not connected */
	struct pfs_server_id server; /* a thread id means one thread while it holds */
	/* Which server and version: learnt at connect, again at a reconnect. */
	struct server_kind kind;
	/*
	 * What the kind means to the modules above, which never look at it:
	 * a sample's read scans every thread's rows (MariaDB), so its cost
	 * grows with them. Learnt with the kind.
	 */
	bool sample_scans_threads;
	/*
	 * Set by a mode that reads the server whatever its instruments
	 * (--explain, which says what being off costs): the preflight then
	 * lets a server with every memory instrument off through.
	 */
	bool instruments_may_be_off;
	uint64_t own_thread;       /* our own thread: never a target */
	size_t instruments;        /* memory instruments the server knows */
	/*
	 * connection_memory_limit and its kin, once limits_read: asked at
	 * most once a connection (a reconnect clears limits_read).
	 */
	struct pfs_memory_limits limits;
	bool limits_read;
	enum session_statements statements;
	/*
	 * How every connection is read (conns.h): learnt by the first read
	 * on a connection (MariaDB's asks for PROCESS); a reconnect clears it.
	 */
	enum conns_way conns_way;
	/*
	 * A read of a thread's finished statements found that the server
	 * keeps no statement's peak (finished.h), and said so: once a run.
	 */
	bool no_statement_peaks;
	/*
	 * How the last connection's open ended, by session_open() or a
	 * reconnect's try: CONN_DENIED is the account's; CONN_UNTRUSTED,
	 * another server, ends the run with EXIT_CERT_CHANGED (app.c).
	 */
	enum conn_status opened;
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
