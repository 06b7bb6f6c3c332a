/*
 * Waiting on the server. Every call that waits goes through the library's
 * non-blocking API and poll(), in slices of 100 ms, so that a wait looks
 * at the stop flag: SIGTERM ends a connect to a silent server or a query
 * to a frozen one at once, not after --connect-timeout or --read-timeout.
 *
 * Connector/C's _start/_cont pairs say what they wait for (to read, to
 * write, their own timeout) and are given what came; Oracle's _nonblocking
 * calls only say "not ready" and are called again the same way. That
 * difference is named once below (WAIT_*, lib_timeout_ms(), RETRY_QUIET),
 * the socket in conn_socket(), and each call has its few lines (Oracle's
 * connect also refusal_lost()); DRIVE() and wait_io() are the same for
 * both. CONN_BLOCKING builds the blocking calls instead, which wait until
 * their timeout (see the man page).
 */
#include <errmsg.h>
#include <errno.h>
#include <poll.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>

#include "conn_io.h"

/* How often a wait looks at the stop flag, and how long a stop lets the
 * operation in flight finish, so that a quick query still ends cleanly. */
#define SLICE_MS 100
#define STOP_GRACE_MS 300

#if defined(NONBLOCKING_CONNECTOR_C)
#define WAIT_READ MYSQL_WAIT_READ
#define WAIT_WRITE MYSQL_WAIT_WRITE
#define WAIT_EXCEPT MYSQL_WAIT_EXCEPT
/* What the library asks when it keeps a timeout of its own. */
#define WAIT_TIMEOUT MYSQL_WAIT_TIMEOUT
#define lib_timeout_ms(m) mysql_get_timeout_value_ms(m)
/* A call is given only what came: a quiet slice is waited through. */
#define RETRY_QUIET 0
#elif defined(NONBLOCKING_ORACLE)
/*
 * Oracle's calls do not say what they wait for. Mostly it is to read; but
 * until the TCP handshake is done the library has no socket to give
 * (conn_socket()) and peeks at it itself, a full send buffer waits to
 * write, and its caching_sha2_password says "not ready" between two of
 * its steps with nothing to wait for. So a wait looks for something to
 * read, and the call is made again after each quiet slice (RETRY_QUIET),
 * the first one short (PEEK_MS), and all of them while there is no
 * socket: with nothing to do, a call only says "not ready" again.
 */
#define WAIT_READ 1
#define WAIT_WRITE 2
#define WAIT_EXCEPT 4
#define WAIT_TIMEOUT 8 /* never asked */
#define lib_timeout_ms(m) ((void)(m), 0u)
#define RETRY_QUIET 1
#define PEEK_MS 5
/* Oracle's call as Connector/C's: what to wait for, 0 when it ended. */
#define AGAIN(s, call) (((s) = (call)) == NET_ASYNC_NOT_READY ? WAIT_READ : 0)
#endif

/* The connection's socket, or -1 before it has one. */
static int
conn_socket(MYSQL *m)
{
#ifdef MARIADB_PACKAGE_VERSION
	return (int)mysql_get_socket(m);
#else
	/*
	 * Oracle's library has no call for it: net.fd is set by
	 * my_net_init(), which allocates net.buff once the TCP handshake is
	 * done, and is stale once end_server() has freed it (net.vio NULL).
	 */
	return m->net.vio != NULL && m->net.buff != NULL ? (int)m->net.fd : -1;
#endif
}

#ifdef NONBLOCKING
static uint64_t
now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000u + (uint64_t)ts.tv_nsec / 1000000u;
}

/* One operation's waits (DRIVE()): when it times out, when a stop ends it. */
struct wait {
	uint64_t deadline; /* c->timeout_s after the server last showed life */
	uint64_t grace;    /* UINT64_MAX until a stop is seen */
	unsigned quiet;    /* slices in a row that nothing came (RETRY_QUIET) */
};

static void
wait_begin(struct conn *c, struct wait *w)
{
	w->deadline = c->timeout_s != 0 ?
	    now_ms() + c->timeout_s * 1000ull : UINT64_MAX;
	w->grace = UINT64_MAX;
	w->quiet = 0;
}

/*
 * Waits for what the call asked (status, WAIT_* bits) and returns what
 * happened, for the next call. Returns 0 when a stop or c->timeout_s ended
 * the wait: the operation is abandoned and the connection with it.
 */
static int
wait_io(struct conn *c, struct wait *w, int status)
{
	int fd = conn_socket(c->mysql);
	struct pollfd pfd = { .fd = fd };
	uint64_t now = now_ms(), until = w->deadline;
	int slice = SLICE_MS;

	/*
	 * Over TLS, Connector/C's non-blocking reads ask for no timeout, so
	 * --read-timeout is kept here when the library does not keep it.
	 */
	if (status & WAIT_TIMEOUT)
		until = now + lib_timeout_ms(c->mysql);
	if (status & WAIT_READ)
		pfd.events |= POLLIN;
	if (status & WAIT_WRITE)
		pfd.events |= POLLOUT;
	if (status & WAIT_EXCEPT)
		pfd.events |= POLLPRI;
#ifdef PEEK_MS
	if (fd < 0 || w->quiet == 0)
		slice = PEEK_MS; /* with no socket, poll() only sleeps */
#endif
	for (;;) {
		if (c->stop != NULL && *c->stop && w->grace == UINT64_MAX)
			w->grace = now + STOP_GRACE_MS;
		if (now >= w->grace) {
			c->abandoned = true;
			return 0;
		}
		if (now >= until && !(status & WAIT_TIMEOUT)) {
			c->abandoned = c->timed_out = true;
			return 0;
		}
		if (now >= until)
			return WAIT_TIMEOUT;
		uint64_t end = until < w->grace ? until : w->grace;
		int ms = end - now < (uint64_t)slice ? (int)(end - now) : slice;
		int r = poll(&pfd, 1, ms);
		if (r > 0) {
			int ev = 0;

			if (pfd.revents & (POLLIN | POLLHUP | POLLERR))
				ev |= WAIT_READ;
			if (pfd.revents & (POLLOUT | POLLHUP | POLLERR))
				ev |= WAIT_WRITE;
			if (pfd.revents & POLLPRI)
				ev |= WAIT_EXCEPT;
			if (c->timeout_s != 0)
				w->deadline = now_ms() + c->timeout_s * 1000ull;
			w->quiet = 0;
			/* Only what was asked; the library finds the error. */
			ev &= status;
			return ev != 0 ? ev : status & ~WAIT_TIMEOUT;
		}
		if (r < 0 && errno != EINTR)
			return status & ~WAIT_TIMEOUT;
		if (RETRY_QUIET && r == 0) {
			w->quiet++;
			return status;
		}
		now = now_ms();
	}
}

/*
 * Runs one call of the non-blocking API to its end: start is the first
 * call, cont the next ones, which are given what came as `ev`; each
 * returns what it waits for, 0 once it ended. The result is left where
 * the calls put it; c->abandoned says a stop or a timeout won.
 */
#define DRIVE(c, start, cont) do { \
	struct wait w_; \
	wait_begin((c), &w_); \
	int ev = (start); \
	while (ev != 0 && (ev = wait_io((c), &w_, ev)) != 0) \
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
	if (c->mysql != NULL) {
		int fd = conn_socket(c->mysql);

		if (fd >= 0)
			shutdown(fd, SHUT_RDWR);
		mysql_close(c->mysql);
		c->mysql = NULL;
	}
	if (c->timed_out) {
		snprintf(err, errlen, "no answer from the server within %u s "
		    "(--read-timeout)", c->timeout_s);
		return CONN_LOST;
	}
	snprintf(err, errlen, "stopped by a signal");
	return CONN_STOPPED;
}

#ifdef NONBLOCKING_ORACLE
/*
 * A server that refuses a login (a wrong password, an account at its
 * limit) sends its error and closes. Oracle's non-blocking writer then
 * at times fails on an empty send of its own before it reads that error,
 * and says CR_UNKNOWN_ERROR, or CR_SERVER_LOST "sending authentication
 * information", in its place. Asked again with the blocking call, which
 * reads it, the server answers at once, as it just did: the one wait that
 * does not look at the stop flag, and only after an answer.
 */
static bool
refusal_lost(struct conn *c)
{
	unsigned e = mysql_errno(c->mysql);

	return (e == CR_UNKNOWN_ERROR || e == CR_SERVER_LOST) &&
	    (c->stop == NULL || !*c->stop);
}
#endif

MYSQL *
conn_io_connect(struct conn *c, const struct conn_params *p)
{
	MYSQL *m = c->mysql;
#if defined(NONBLOCKING_CONNECTOR_C)
	MYSQL *ret = NULL;

	DRIVE(c, mysql_real_connect_start(&ret, m, p->host, p->user,
	    p->password, NULL, p->port, p->socket, 0),
	    mysql_real_connect_cont(&ret, m, ev));
	return ret;
#elif defined(NONBLOCKING_ORACLE)
	/* A failed call keeps the handle's options, for refusal_lost(). */
	const unsigned long flags = CLIENT_REMEMBER_OPTIONS;
	enum net_async_status s;

	/* The same arguments every time: the first call keeps them. */
	DRIVE(c, AGAIN(s, mysql_real_connect_nonblocking(m, p->host, p->user,
	    p->password, NULL, p->port, p->socket, flags)),
	    AGAIN(s, mysql_real_connect_nonblocking(m, p->host, p->user,
	    p->password, NULL, p->port, p->socket, flags)));
	if (s != NET_ASYNC_ERROR || !refusal_lost(c))
		return s == NET_ASYNC_COMPLETE ? m : NULL;
	return mysql_real_connect(m, p->host, p->user, p->password, NULL,
	    p->port, p->socket, flags);
#else
	return mysql_real_connect(m, p->host, p->user, p->password, NULL,
	    p->port, p->socket, 0);
#endif
}

int
conn_io_query(struct conn *c, const char *sql)
{
	unsigned long len = strlen(sql);
#if defined(NONBLOCKING_CONNECTOR_C)
	int ret = 1;

	DRIVE(c, mysql_real_query_start(&ret, c->mysql, sql, len),
	    mysql_real_query_cont(&ret, c->mysql, ev));
	return ret;
#elif defined(NONBLOCKING_ORACLE)
	enum net_async_status s;

	DRIVE(c, AGAIN(s, mysql_real_query_nonblocking(c->mysql, sql, len)),
	    AGAIN(s, mysql_real_query_nonblocking(c->mysql, sql, len)));
	return s != NET_ASYNC_COMPLETE;
#else
	return mysql_real_query(c->mysql, sql, len);
#endif
}

MYSQL_RES *
conn_io_store(struct conn *c)
{
#if defined(NONBLOCKING_CONNECTOR_C)
	MYSQL_RES *ret = NULL;

	DRIVE(c, mysql_store_result_start(&ret, c->mysql),
	    mysql_store_result_cont(&ret, c->mysql, ev));
	return ret;
#elif defined(NONBLOCKING_ORACLE)
	MYSQL_RES *ret = NULL;
	enum net_async_status s;

	DRIVE(c, AGAIN(s, mysql_store_result_nonblocking(c->mysql, &ret)),
	    AGAIN(s, mysql_store_result_nonblocking(c->mysql, &ret)));
	return s == NET_ASYNC_COMPLETE ? ret : NULL;
#else
	return mysql_store_result(c->mysql);
#endif
}

int
conn_io_prepare(struct conn *c, MYSQL_STMT *st, const char *sql)
{
#ifdef NONBLOCKING_CONNECTOR_C
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
#ifdef NONBLOCKING_CONNECTOR_C
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
#ifdef NONBLOCKING_CONNECTOR_C
	int ret = 1;

	DRIVE(c, mysql_stmt_store_result_start(&ret, st),
	    mysql_stmt_store_result_cont(&ret, st, ev));
	return ret;
#else
	(void)c;
	return mysql_stmt_store_result(st);
#endif
}
