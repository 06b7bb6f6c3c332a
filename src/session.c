/*
 * The session over a real server: the table of operations that binds the
 * middle of the program to conn.c and pfs_*.c, and the first connect.
 * Nothing above this file calls pfs_* or sends a query of its own.
 */
#include "pfs_read.h"
#include "session.h"

static struct pfs_reader *
reader_create(struct session *s, const struct read_target *t)
{
	if (t->is_grain)
		return pfs_reader_create_grain(&s->conn, t->grain, t->user,
		    t->host);
	return pfs_reader_create(&s->conn, t->thread_id);
}

const struct session_ops session_server = {
	.open = conn_open,
	.close = conn_close,
	.server_version = conn_server_version,
	.cipher = conn_cipher,
	.preflight = pfs_preflight,
	.find_thread = pfs_find_thread,
	.check_grain = pfs_check_grain,
	.check_statements = pfs_check_statements,
	.check_memory_instruments = pfs_check_memory_instruments,
	.global_total = pfs_global_total,
	.ping = pfs_ping,
	.server_memory = pfs_server_memory,
	.own_count = pfs_own_count,
	.top_threads = pfs_top_threads,
	.list_threads = pfs_list_threads,
	.connections = pfs_connections,
	.counted_layers = pfs_counted_layers,
	.estimate = pfs_estimate,
	.measured_connections = pfs_measured_connections,
	.setup = pfs_setup,
	.memory_limits = pfs_memory_limits,
	.find_statements = pfs_find_statements,
	.thread_statement = pfs_thread_statement,
	.finished_over = pfs_finished_over,
	.threads_memory = pfs_threads_memory,
	.thread_history = pfs_thread_history,
	.reader_create = reader_create,
	.reader_source = pfs_reader_source,
	.reader_without_statements = pfs_reader_without_statements,
	.reader_free = pfs_reader_free,
};

int
session_open(struct session *s, char *err, size_t errlen)
{
	struct pfs_preflight pf;
	enum pfs_status ps;

	if ((s->opened = s->ops->open(&s->conn, &s->params, err, errlen)) !=
	    CONN_OK)
		return -1;
	ps = s->ops->preflight(s->conn, &pf, err, errlen);
	if (ps != PFS_OK && !(ps == PFS_NO_INSTRUMENTS &&
	    s->instruments_may_be_off))
		return -1;
	*err = '\0';
	s->instruments = pf.total;
	s->own_thread = pf.own_thread;
	s->server = pf.server;
	s->kind = pf.kind;
	s->sample_scans_threads = pf.sample_scans_threads;
	/* Asked by the first capture or hunt that needs them: not by --list. */
	s->limits_read = false;
	s->conns_way = CONNS_UNKNOWN;
	return 0;
}

void
session_close(struct session *s)
{
	if (s->conn != NULL)
		s->ops->close(s->conn);
	s->conn = NULL;
}
