/*
 * The connection to the server over libmysqlclient or MariaDB
 * Connector/C. The two libraries share the calls used here; where they
 * differ, the difference is behind #if.
 *
 * With Connector/C every call that waits on the server goes through its
 * non-blocking API (the _start/_cont pairs), so that a wait looks at the
 * stop flag every 100 ms: SIGTERM ends a connect to a silent server or a
 * query to a frozen one at once, not after --connect-timeout or
 * --read-timeout. Oracle's libmysqlclient has no such API; there the
 * calls block until their timeout, as documented in the man page.
 */
#include <mysql.h>
#include <errmsg.h>
#include <mysqld_error.h>
#include <errno.h>
#include <poll.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>

#include "conn.h"

/*
 * The non-blocking API is Connector/C's. CONN_BLOCKING builds the
 * blocking calls instead, as with Oracle's library, to test that path.
 */
#if defined(MARIADB_PACKAGE_VERSION) && !defined(CONN_BLOCKING)
#define NONBLOCKING 1
#endif

struct conn {
	MYSQL *mysql;                 /* NULL once a stop dropped it */
	volatile sig_atomic_t *stop;  /* borrowed from conn_params */
	unsigned timeout_s;           /* the wait the library may not time */
	bool abandoned;               /* a stop or timeout ended a wait */
	bool timed_out;               /* and it was timeout_s */
	char where[300]; /* "via socket /x" or "on host:port", for messages */
};

static enum conn_status
classify(unsigned e)
{
	switch (e) {
	case CR_SERVER_GONE_ERROR:
	case CR_SERVER_LOST:
	case CR_CONNECTION_ERROR:
	case CR_CONN_HOST_ERROR:
	case CR_UNKNOWN_HOST:
#ifdef ER_CONNECTION_KILLED
	case ER_CONNECTION_KILLED:
#endif
	case ER_SERVER_SHUTDOWN:
	/*
	 * Over TLS, Connector/C reports a connection reset, closed or timed
	 * out under the TLS layer as this, not as CR_SERVER_LOST. A first
	 * connect whose certificate fails verification gives it too, but
	 * conn_open() never reports a loss.
	 */
	case CR_SSL_CONNECTION_ERROR:
		return CONN_LOST;
	case ER_ACCESS_DENIED_ERROR:
	case ER_DBACCESS_DENIED_ERROR:
	case ER_TABLEACCESS_DENIED_ERROR:
	case ER_SPECIFIC_ACCESS_DENIED_ERROR:
		return CONN_DENIED;
	default:
		return CONN_FAILED;
	}
}

/*
 * Maps --ssl-mode onto the library. Oracle's has MYSQL_OPT_SSL_MODE;
 * MariaDB Connector/C has only "enforce" and "verify the certificate", so
 * REQUIRED and up are also checked after connecting (conn_open()).
 */
static void
set_tls(MYSQL *m, const struct conn_params *p)
{
	if (p->ssl_mode != TLS_DISABLED) {
		if (p->ssl_ca != NULL)
			mysql_options(m, MYSQL_OPT_SSL_CA, p->ssl_ca);
		if (p->ssl_cert != NULL)
			mysql_options(m, MYSQL_OPT_SSL_CERT, p->ssl_cert);
		if (p->ssl_key != NULL)
			mysql_options(m, MYSQL_OPT_SSL_KEY, p->ssl_key);
	}
#ifdef MARIADB_PACKAGE_VERSION
	my_bool yes = 1;
	if (p->ssl_mode >= TLS_REQUIRED)
		mysql_options(m, MYSQL_OPT_SSL_ENFORCE, &yes);
	/* With a CA given, Connector/C checks the chain; this adds the host. */
	if (p->ssl_mode == TLS_VERIFY_IDENTITY)
		mysql_options(m, MYSQL_OPT_SSL_VERIFY_SERVER_CERT, &yes);
#else
	unsigned mode;
	switch (p->ssl_mode) {
	case TLS_DISABLED: mode = SSL_MODE_DISABLED; break;
	case TLS_REQUIRED: mode = SSL_MODE_REQUIRED; break;
	case TLS_VERIFY_CA: mode = SSL_MODE_VERIFY_CA; break;
	case TLS_VERIFY_IDENTITY: mode = SSL_MODE_VERIFY_IDENTITY; break;
	default: mode = SSL_MODE_PREFERRED; break;
	}
	mysql_options(m, MYSQL_OPT_SSL_MODE, &mode);
#endif
}

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
static enum conn_status
drop(struct conn *c, char *err, size_t errlen)
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

static MYSQL *
do_connect(struct conn *c, const struct conn_params *p)
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

static int
do_query(struct conn *c, const char *sql)
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

static MYSQL_RES *
do_store(struct conn *c)
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

static int
do_prepare(struct conn *c, MYSQL_STMT *st, const char *sql)
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

static int
do_execute(struct conn *c, MYSQL_STMT *st)
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

static int
do_stmt_store(struct conn *c, MYSQL_STMT *st)
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

static void
describe_target(struct conn *c, const struct conn_params *p)
{
	const char *host = p->host != NULL ? p->host : "localhost";

	/* As the client library decides: "localhost" means the unix socket. */
	if (strcmp(host, "localhost") == 0)
		snprintf(c->where, sizeof(c->where), "via socket %s",
		    p->socket != NULL ? p->socket : "(the default socket)");
	else if (p->port != 0)
		snprintf(c->where, sizeof(c->where), "on %s port %u", host,
		    p->port);
	else
		snprintf(c->where, sizeof(c->where), "on %s", host);
}

/* What to check after "cannot connect ...: <the library's message>". */
static const char *
connect_hint(unsigned e, const char *msg)
{
	switch (e) {
	case ER_ACCESS_DENIED_ERROR:
	case ER_DBACCESS_DENIED_ERROR:
		return "check --user and --password";
	case ER_CON_COUNT_ERROR:
		return "the server has no connection to spare; try again "
		    "later, or raise max_connections";
	case ER_TOO_MANY_USER_CONNECTIONS:
	case ER_USER_LIMIT_REACHED:
		return "the account has used up its connections; try again "
		    "later, or raise its limit (max_user_connections)";
	case CR_SSL_CONNECTION_ERROR:
		if (strstr(msg, "certificate") != NULL ||
		    strstr(msg, "verif") != NULL)
			return "the server's certificate did not pass "
			    "--ssl-mode's check; check --ssl-ca, the host "
			    "name, or lower --ssl-mode";
		return "check that the server accepts TLS, or lower --ssl-mode";
	default:
		return "check that the server runs and --host, --port or "
		    "--socket";
	}
}

enum conn_status
conn_open(struct conn **out, const struct conn_params *p, char *err,
    size_t errlen)
{
	struct conn *c;
	unsigned e;
	enum conn_status st;

	*out = NULL;
	if ((c = calloc(1, sizeof(*c))) == NULL ||
	    (c->mysql = mysql_init(NULL)) == NULL) {
		free(c);
		snprintf(err, errlen, "out of memory");
		return CONN_FAILED;
	}
	c->stop = p->stop;
	c->timeout_s = p->connect_timeout_s;
	describe_target(c, p);
	/*
	 * No MYSQL_READ_DEFAULT_FILE: cli.c reads the option files itself,
	 * the same way whichever library the build uses.
	 */
	mysql_options(c->mysql, MYSQL_OPT_CONNECT_TIMEOUT, &p->connect_timeout_s);
	mysql_options(c->mysql, MYSQL_OPT_READ_TIMEOUT, &p->read_timeout_s);
	mysql_options(c->mysql, MYSQL_OPT_WRITE_TIMEOUT, &p->read_timeout_s);
	/* So the session can be told apart in performance_schema. */
	mysql_options4(c->mysql, MYSQL_OPT_CONNECT_ATTR_ADD, "program_name",
	    "mysqlmemprof");
	set_tls(c->mysql, p);
#ifdef NONBLOCKING
	/* The TLS handshake runs on this stack: more than the 60 KB default. */
	size_t stack = 256 * 1024;
	mysql_options(c->mysql, MYSQL_OPT_NONBLOCK, &stack);
#endif

	if (do_connect(c, p) != NULL) {
		/*
		 * Never trust a library default to have refused plain text;
		 * reconnecting comes through here too.
		 */
		if (p->ssl_mode >= TLS_REQUIRED &&
		    mysql_get_ssl_cipher(c->mysql) == NULL) {
			snprintf(err, errlen, "connected %s without TLS, but "
			    "--ssl-mode requires it; enable TLS on the server "
			    "or lower --ssl-mode", c->where);
			conn_close(c);
			return CONN_FAILED;
		}
		c->timeout_s = p->read_timeout_s;
		*out = c;
		return CONN_OK;
	}
	if (c->abandoned) {
		bool timed_out = c->timed_out;

		st = drop(c, err, errlen);
		if (timed_out)
			snprintf(err, errlen, "cannot connect %s: no answer "
			    "within --connect-timeout %u s; check that the "
			    "server runs and --host, --port or --socket",
			    c->where, p->connect_timeout_s);
		conn_close(c);
		return timed_out ? CONN_FAILED : st;
	}
	e = mysql_errno(c->mysql);
	snprintf(err, errlen, "cannot connect %s: %s; %s", c->where,
	    mysql_error(c->mysql), connect_hint(e, mysql_error(c->mysql)));
	st = classify(e);
	if (st == CONN_LOST)
		st = CONN_FAILED; /* a first connect that fails is no loss */
	conn_close(c);
	return st;
}

void
conn_close(struct conn *c)
{
	if (c == NULL)
		return;
	if (c->mysql != NULL)
		mysql_close(c->mysql);
	free(c);
}

enum conn_status
conn_query(struct conn *c, const char *sql, conn_row_fn fn, void *ctx,
    unsigned *server_errno, char *err, size_t errlen)
{
	MYSQL_RES *res;
	MYSQL_ROW row;
	unsigned e;

	if (server_errno != NULL)
		*server_errno = 0;
	if (errlen > 0)
		err[0] = '\0';
	if (c->mysql == NULL)
		return drop(c, err, errlen);
	if (do_query(c, sql) != 0)
		goto fail;
	/* Whole results are small (a few hundred rows), so store them. */
	if ((res = do_store(c)) == NULL) {
		if (c->abandoned)
			goto fail;
		if (mysql_field_count(c->mysql) == 0)
			return CONN_OK; /* a statement without a result */
		goto fail;
	}
	unsigned ncols = mysql_num_fields(res);
	while ((row = mysql_fetch_row(res)) != NULL) {
		const unsigned long *lengths = mysql_fetch_lengths(res);
		if (fn != NULL && fn(ctx, ncols, row, lengths) != 0) {
			mysql_free_result(res);
			if (err[0] == '\0')
				snprintf(err, errlen, "unexpected result");
			return CONN_FAILED;
		}
	}
	mysql_free_result(res);
	return CONN_OK;
fail:
	if (c->abandoned)
		return drop(c, err, errlen);
	e = mysql_errno(c->mysql);
	if (server_errno != NULL)
		*server_errno = e;
	snprintf(err, errlen, "%s", mysql_error(c->mysql));
	return classify(e);
}

/* The most parameters and result columns conn_query_params() takes. */
#define MAX_PARAMS 16
#define MAX_COLUMNS 32

/* MYSQL_BIND's flags: my_bool in Connector/C and MySQL 5.7, bool in 8.0. */
#if defined(MARIADB_PACKAGE_VERSION) || MYSQL_VERSION_ID < 80000
typedef my_bool bind_flag;
#else
typedef bool bind_flag;
#endif

/* The columns of a prepared statement's result, fetched as strings. */
struct columns {
	unsigned n;
	MYSQL_BIND bind[MAX_COLUMNS];
	char *buf[MAX_COLUMNS];
	size_t cap[MAX_COLUMNS]; /* bytes of buf, one kept for the NUL */
	unsigned long len[MAX_COLUMNS];
	bind_flag null[MAX_COLUMNS];
	bind_flag error[MAX_COLUMNS];
};

static void
columns_free(struct columns *cols)
{
	for (unsigned i = 0; i < cols->n; i++)
		free(cols->buf[i]);
}

static int
columns_bind(MYSQL_STMT *st, struct columns *cols)
{
	for (unsigned i = 0; i < cols->n; i++) {
		MYSQL_BIND *b = &cols->bind[i];

		if (cols->buf[i] == NULL) {
			cols->cap[i] = 256;
			if ((cols->buf[i] = malloc(cols->cap[i])) == NULL)
				return -1;
		}
		memset(b, 0, sizeof(*b));
		b->buffer_type = MYSQL_TYPE_STRING;
		b->buffer = cols->buf[i];
		b->buffer_length = cols->cap[i] - 1;
		b->length = &cols->len[i];
		b->is_null = &cols->null[i];
		b->error = &cols->error[i];
	}
	return mysql_stmt_bind_result(st, cols->bind) != 0 ? -1 : 0;
}

/* Fetches in full the columns a row did not fit, growing their buffers. */
static int
columns_refetch(MYSQL_STMT *st, struct columns *cols)
{
	int grown = 0;

	for (unsigned i = 0; i < cols->n; i++) {
		MYSQL_BIND b;
		char *p;

		if (cols->null[i] || cols->len[i] < cols->cap[i])
			continue;
		if ((p = realloc(cols->buf[i], cols->len[i] + 1)) == NULL)
			return -1;
		cols->buf[i] = p;
		cols->cap[i] = cols->len[i] + 1;
		b = cols->bind[i];
		b.buffer = p;
		b.buffer_length = cols->len[i];
		if (mysql_stmt_fetch_column(st, &b, i, 0) != 0)
			return -1;
		grown = 1;
	}
	/* The next rows go into the grown buffers. */
	return grown ? columns_bind(st, cols) : 0;
}

static enum conn_status
stmt_failed(struct conn *c, MYSQL_STMT *st, unsigned *server_errno,
    char *err, size_t errlen)
{
	/* Closed after the connection, so that it sends nothing. */
	if (c->abandoned) {
		enum conn_status cs = drop(c, err, errlen);

		if (st != NULL)
			mysql_stmt_close(st);
		return cs;
	}
	unsigned e = st != NULL ? mysql_stmt_errno(st) : mysql_errno(c->mysql);

	if (server_errno != NULL)
		*server_errno = e;
	snprintf(err, errlen, "%s", st != NULL ? mysql_stmt_error(st) :
	    mysql_error(c->mysql));
	if (st != NULL)
		mysql_stmt_close(st);
	return e == 0 ? CONN_FAILED : classify(e);
}

enum conn_status
conn_query_params(struct conn *c, const char *sql,
    const struct conn_param *params, unsigned n, conn_row_fn fn, void *ctx,
    unsigned *server_errno, char *err, size_t errlen)
{
	MYSQL_BIND pb[MAX_PARAMS];
	unsigned long plen[MAX_PARAMS];
	long long pint[MAX_PARAMS];
	struct columns cols = { 0 };
	char *values[MAX_COLUMNS];
	MYSQL_STMT *st;
	int rc;

	if (server_errno != NULL)
		*server_errno = 0;
	if (errlen > 0)
		err[0] = '\0';
	if (n > MAX_PARAMS) {
		snprintf(err, errlen, "too many parameters");
		return CONN_FAILED;
	}
	if (c->mysql == NULL)
		return drop(c, err, errlen);
	if ((st = mysql_stmt_init(c->mysql)) == NULL)
		return stmt_failed(c, NULL, server_errno, err, errlen);
	if (do_prepare(c, st, sql) != 0)
		return stmt_failed(c, st, server_errno, err, errlen);
	if (mysql_stmt_param_count(st) != n) {
		snprintf(err, errlen, "the statement takes %lu parameters, not "
		    "%u", (unsigned long)mysql_stmt_param_count(st), n);
		mysql_stmt_close(st);
		return CONN_FAILED;
	}
	memset(pb, 0, sizeof(pb));
	for (unsigned i = 0; i < n; i++) {
		if (params[i].s != NULL) {
			plen[i] = strlen(params[i].s);
			pb[i].buffer_type = MYSQL_TYPE_STRING;
			pb[i].buffer = (void *)params[i].s;
			pb[i].buffer_length = plen[i];
			pb[i].length = &plen[i];
		} else {
			pint[i] = params[i].i;
			pb[i].buffer_type = MYSQL_TYPE_LONGLONG;
			pb[i].buffer = &pint[i];
		}
	}
	if ((n > 0 && mysql_stmt_bind_param(st, pb) != 0) ||
	    do_execute(c, st) != 0)
		return stmt_failed(c, st, server_errno, err, errlen);
	if ((cols.n = mysql_stmt_field_count(st)) == 0) {
		mysql_stmt_close(st);
		return CONN_OK;
	}
	if (cols.n > MAX_COLUMNS) {
		mysql_stmt_close(st);
		snprintf(err, errlen, "too many columns");
		return CONN_FAILED;
	}
	/* Stored, so that a long column can be fetched again in full. */
	if (columns_bind(st, &cols) != 0 || do_stmt_store(c, st) != 0)
		goto fail;
	while ((rc = mysql_stmt_fetch(st)) != MYSQL_NO_DATA) {
		if (rc == 1 || (rc == MYSQL_DATA_TRUNCATED &&
		    columns_refetch(st, &cols) != 0))
			goto fail;
		for (unsigned i = 0; i < cols.n; i++) {
			values[i] = cols.null[i] ? NULL : cols.buf[i];
			if (!cols.null[i])
				cols.buf[i][cols.len[i]] = '\0';
		}
		if (fn != NULL && fn(ctx, cols.n, values, cols.len) != 0) {
			columns_free(&cols);
			mysql_stmt_close(st);
			if (err[0] == '\0')
				snprintf(err, errlen, "unexpected result");
			return CONN_FAILED;
		}
	}
	columns_free(&cols);
	mysql_stmt_close(st);
	return CONN_OK;
fail:
	columns_free(&cols);
	if (!c->abandoned && mysql_stmt_errno(st) == 0) {
		mysql_stmt_close(st);
		snprintf(err, errlen, "out of memory");
		return CONN_FAILED;
	}
	return stmt_failed(c, st, server_errno, err, errlen);
}

const char *
conn_cipher(struct conn *c)
{
	return c->mysql != NULL ? mysql_get_ssl_cipher(c->mysql) : NULL;
}

const char *
conn_server_version(struct conn *c)
{
	return c->mysql != NULL ? mysql_get_server_info(c->mysql) : "";
}
