/*
 * Waiting on the server. With Connector/C every call that waits goes
 * through its non-blocking API (the _start/_cont pairs) and poll(), in
 * slices of 100 ms, so that a wait looks at the stop flag: SIGTERM ends a
 * connect to a silent server or a query to a frozen one at once, not after
 * --connect-timeout or --read-timeout. Oracle's libmysqlclient has no
 * such API; there the calls block until their timeout (see the man page).
 */
#include <errno.h>
#include <poll.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>

#include "conn_impl.h"

/* How often a wait looks at the stop flag, and how long a stop lets the
 * operation in flight finish, so that a quick query still ends cleanly. */
#define SLICE_MS 100
#define STOP_GRACE_MS 300

#ifdef NONBLOCKING
static uint64_t
now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000u + (uint64_t)ts.tv_nsec / 1000000u;
}

/*
 * Waits for what a _start() or _cont() call asked for (status) and
 * returns what happened, for the next _cont(). Returns 0 when a stop ended
 * the wait: the operation is abandoned and the connection with it.
 */
static int
wait_io(struct conn *c, int status)
{
	struct pollfd pfd = { .fd = mysql_get_socket(c->mysql) };
	uint64_t now = now_ms(), grace = UINT64_MAX, deadline = UINT64_MAX;

	/*
	 * Over TLS, Connector/C's non-blocking reads ask for no timeout, so
	 * --read-timeout is kept here when the library does not keep it.
	 */
	if (status & MYSQL_WAIT_TIMEOUT)
		deadline = now + mysql_get_timeout_value_ms(c->mysql);
	else if (c->timeout_s != 0)
		deadline = now + c->timeout_s * 1000ull;
	if (status & MYSQL_WAIT_READ)
		pfd.events |= POLLIN;
	if (status & MYSQL_WAIT_WRITE)
		pfd.events |= POLLOUT;
	if (status & MYSQL_WAIT_EXCEPT)
		pfd.events |= POLLPRI;
	for (;;) {
		if (c->stop != NULL && *c->stop && grace == UINT64_MAX)
			grace = now + STOP_GRACE_MS;
		if (now >= grace) {
			c->abandoned = true;
			return 0;
		}
		if (now >= deadline && !(status & MYSQL_WAIT_TIMEOUT)) {
			c->abandoned = c->timed_out = true;
			return 0;
		}
		if (now >= deadline)
			return MYSQL_WAIT_TIMEOUT;
		uint64_t until = deadline < grace ? deadline : grace;
		int ms = until - now < SLICE_MS ? (int)(until - now) : SLICE_MS;
		int r = poll(&pfd, 1, ms);
		if (r > 0) {
			int ev = 0;

			if (pfd.revents & (POLLIN | POLLHUP | POLLERR))
				ev |= MYSQL_WAIT_READ;
			if (pfd.revents & (POLLOUT | POLLHUP | POLLERR))
				ev |= MYSQL_WAIT_WRITE;
			if (pfd.revents & POLLPRI)
				ev |= MYSQL_WAIT_EXCEPT;
			/* Only what was asked; the library finds the error. */
			ev &= status;
			return ev != 0 ? ev : status & ~MYSQL_WAIT_TIMEOUT;
		}
		if (r < 0 && errno != EINTR)
			return status & ~MYSQL_WAIT_TIMEOUT;
		now = now_ms();
	}
}

/*
 * Runs one call of the non-blocking API to its end: start is the _start()
 * call, cont the _cont() call, which is given the events as `ev`. The
 * result is left where the calls put it; c->abandoned says a stop won.
 */
#define DRIVE(c, start, cont) do { \
	int ev = (start); \
	while (ev != 0 && (ev = wait_io((c), ev)) != 0) \
		ev = (cont); \
} while (0)
#endif

/*
 * Drops a connection whose operation a stop or a timeout abandoned. The
 * socket is shut down first, so that closing sends nothing that could
 * wait. The connection then answers every query as it ended.
 */
enum conn_status
conn_drop(struct conn *c, char *err, size_t errlen)
{
	if (c->timed_out) {
		snprintf(err, errlen, "no answer from the server within %u s "
		    "(--read-timeout)", c->timeout_s);
		if (c->mysql != NULL) {
			int fd = (int)mysql_get_socket(c->mysql);

			if (fd >= 0)
				shutdown(fd, SHUT_RDWR);
			mysql_close(c->mysql);
			c->mysql = NULL;
		}
		return CONN_LOST;
	}
	if (c->mysql != NULL) {
		int fd = (int)mysql_get_socket(c->mysql);

		if (fd >= 0)
			shutdown(fd, SHUT_RDWR);
		mysql_close(c->mysql);
		c->mysql = NULL;
	}
	snprintf(err, errlen, "stopped by a signal");
	return CONN_STOPPED;
}

MYSQL *
conn_io_connect(struct conn *c, const struct conn_params *p)
{
#ifdef NONBLOCKING
	MYSQL *m = c->mysql, *ret = NULL;

	DRIVE(c, mysql_real_connect_start(&ret, m, p->host, p->user,
	    p->password, NULL, p->port, p->socket, 0),
	    mysql_real_connect_cont(&ret, m, ev));
	return ret;
#else
	return mysql_real_connect(c->mysql, p->host, p->user, p->password,
	    NULL, p->port, p->socket, 0);
#endif
}

int
conn_io_query(struct conn *c, const char *sql)
{
#ifdef NONBLOCKING
	int ret = 1;

	DRIVE(c, mysql_real_query_start(&ret, c->mysql, sql, strlen(sql)),
	    mysql_real_query_cont(&ret, c->mysql, ev));
	return ret;
#else
	return mysql_real_query(c->mysql, sql, strlen(sql));
#endif
}

MYSQL_RES *
conn_io_store(struct conn *c)
{
#ifdef NONBLOCKING
	MYSQL_RES *ret = NULL;

	DRIVE(c, mysql_store_result_start(&ret, c->mysql),
	    mysql_store_result_cont(&ret, c->mysql, ev));
	return ret;
#else
	return mysql_store_result(c->mysql);
#endif
}

int
conn_io_prepare(struct conn *c, MYSQL_STMT *st, const char *sql)
{
#ifdef NONBLOCKING
	int ret = 1;

	DRIVE(c, mysql_stmt_prepare_start(&ret, st, sql, strlen(sql)),
	    mysql_stmt_prepare_cont(&ret, st, ev));
	return ret;
#else
	(void)c;
	return mysql_stmt_prepare(st, sql, strlen(sql));
#endif
}

int
conn_io_execute(struct conn *c, MYSQL_STMT *st)
{
#ifdef NONBLOCKING
	int ret = 1;

	DRIVE(c, mysql_stmt_execute_start(&ret, st),
	    mysql_stmt_execute_cont(&ret, st, ev));
	return ret;
#else
	(void)c;
	return mysql_stmt_execute(st);
#endif
}

int
conn_io_stmt_store(struct conn *c, MYSQL_STMT *st)
{
#ifdef NONBLOCKING
	int ret = 1;

	DRIVE(c, mysql_stmt_store_result_start(&ret, st),
	    mysql_stmt_store_result_cont(&ret, st, ev));
	return ret;
#else
	(void)c;
	return mysql_stmt_store_result(st);
#endif
}
