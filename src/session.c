/*
 * The session over a real server: the table of operations that binds the
 * middle of the program to conn.c and pfs_*.c, and the first connect.
 */
#include "session.h"

static enum pfs_status
check_thread(struct conn *c, uint64_t thread_id, uint64_t *connection_id,
    char *err, size_t errlen)
{
	return pfs_find_thread(c, PFS_BY_THREAD, thread_id, NULL,
	    connection_id, err, errlen);
}

const struct session_ops session_server = {
	.open = conn_open,
	.close = conn_close,
	.preflight = pfs_preflight,
	.check_thread = check_thread,
	.setup = pfs_setup,
	.find_statements = pfs_find_statements,
	.thread_statement = pfs_thread_statement,
	.threads_memory = pfs_threads_memory,
};

int
session_open(struct session *s, char *err, size_t errlen)
{
	struct pfs_preflight pf;

	if (s->ops->open(&s->conn, &s->params, err, errlen) != CONN_OK)
		return -1;
	if (s->ops->preflight(s->conn, &pf, err, errlen) != PFS_OK)
		return -1;
	s->instruments = pf.total;
	s->own_thread = pf.own_thread;
	s->server = pf.server;
	s->kind = pf.kind;
	return 0;
}

void
session_close(struct session *s)
{
	if (s->conn != NULL)
		s->ops->close(s->conn);
	s->conn = NULL;
}
