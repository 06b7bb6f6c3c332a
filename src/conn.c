/*
 * The connection to the server over libmysqlclient or MariaDB
 * Connector/C. The two libraries share the calls used here; where they
 * differ, the difference is behind #if. Waiting on the server is in
 * conn_io.c, prepared statements in conn_stmt.c, how the password is sent
 * in conn_auth.c.
 */
#include <errmsg.h>
#include <mysqld_error.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "conn_auth.h"
#include "conn_impl.h"
#include "conn_pin.h"


enum conn_status
conn_classify(unsigned e)
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
	case ER_QUERY_INTERRUPTED:
#ifdef ER_STATEMENT_TIMEOUT
	case ER_STATEMENT_TIMEOUT:   /* MariaDB's max_statement_time */
#endif
#ifdef ER_QUERY_TIMEOUT
	case ER_QUERY_TIMEOUT:       /* MySQL's max_execution_time */
#endif
	case ER_OUT_OF_RESOURCES:
	case ER_OUTOFMEMORY:
		return CONN_INTERRUPTED;
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
 * Maps --ssl-mode onto the library. Oracle's has MYSQL_OPT_SSL_MODE, whose
 * default, PREFERRED, is TLS whenever the server offers it. MariaDB
 * Connector/C 3.3 has "use TLS" (MYSQL_OPT_SSL_ENFORCE, which falls back to
 * plain text when the server has none) and "verify the certificate", so
 * PREFERRED is the first, over TCP; REQUIRED and up are also checked
 * after connecting (conn_open()). Over the socket, TLS would guard
 * nothing, so only a mode that asks for it turns it on there.
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
		if (p->ssl_crl != NULL)
			mysql_options(m, MYSQL_OPT_SSL_CRL, p->ssl_crl);
		if (p->ssl_crlpath != NULL)
			mysql_options(m, MYSQL_OPT_SSL_CRLPATH, p->ssl_crlpath);
		if (p->tls_version != NULL)
			mysql_options(m, MYSQL_OPT_TLS_VERSION, p->tls_version);
	}
#ifdef MARIADB_PACKAGE_VERSION
	my_bool yes = 1;
	if (p->ssl_mode >= TLS_REQUIRED ||
	    (p->ssl_mode != TLS_DISABLED && conn_over_tcp(p)))
		mysql_options(m, MYSQL_OPT_SSL_ENFORCE, &yes);
	/* With a CA given, Connector/C checks the chain; this adds the host. */
	if (p->ssl_mode == TLS_VERIFY_IDENTITY)
		mysql_options(m, MYSQL_OPT_SSL_VERIFY_SERVER_CERT, &yes);
	conn_pin_ask_library(m, conn_pin_of(p));
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

/* --protocol: TCP even to localhost, or the socket. */
static void
set_protocol(MYSQL *m, const struct conn_params *p)
{
	unsigned proto = p->protocol == PROTOCOL_TCP ? MYSQL_PROTOCOL_TCP :
	    MYSQL_PROTOCOL_SOCKET;

	if (p->protocol != PROTOCOL_DEFAULT)
		mysql_options(m, MYSQL_OPT_PROTOCOL, &proto);
}

static void
describe_target(struct conn *c, const struct conn_params *p)
{
	const char *host = p->host != NULL ? p->host : "localhost";

	if (!conn_over_tcp(p))
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
	case CR_AUTH_PLUGIN_ERR:
		/* libmysqlclient's caching_sha2_password over plain TCP. */
		if (strstr(msg, "secure connection") != NULL)
			return "the connection is not encrypted; use TLS, "
			    "--get-server-public-key or "
			    "--server-public-key-path=FILE";
		return "check --user and --password";
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

#ifdef MARIADB_PACKAGE_VERSION
/*
 * A plugin not in AUTH_ALLOWED, named as the library's message quotes
 * it when that is a name: Connector/C 3.3 quotes stray bytes of the
 * packet instead after a switch of plugin.
 */
static void
refused_plugin(struct conn *c, const char *msg, char *err, size_t errlen)
{
	const char *q = strchr(msg, '\'');
	size_t n = q != NULL ? strspn(q + 1, "abcdefghijklmnopqrstuvwxyz"
	    "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_") : 0;
	char what[120] = "an authentication plugin mysqlmemprof does not "
	    "use (the library does not say which)";

	if (n > 0 && n <= 64 && q[n + 1] == '\'')
		snprintf(what, sizeof(what), "the authentication plugin '%.*s', "
		    "which mysqlmemprof does not use", (int)n, q + 1);
	snprintf(err, errlen, "cannot connect %s: the server asks for %s; "
	    "connect as an account of mysql_native_password, "
	    "caching_sha2_password, sha256_password or ed25519 (or of "
	    "mysql_clear_password or dialog, with --enable-cleartext-plugin)",
	    c->where, what);
}
#endif

/*
 * Connected: the server is the one of the first connection over TLS of
 * the run, or this is it and its certificate is kept. The guards have
 * kept the password back from any other; a plugin that sends only a
 * proof of it (mysql_native_password, client_ed25519) has sent that,
 * and the connection is not used.
 */
static enum conn_status
check_pin(struct conn *c, const struct conn_params *p, char *err,
    size_t errlen)
{
	struct conn_pin *pin = conn_pin_of(p);
	char why[512];

	if (!conn_pin_lets(c->mysql, pin, why, sizeof(why))) {
		snprintf(err, errlen, "cannot connect %s: %s", c->where, why);
		conn_close(c);
		return CONN_UNTRUSTED;
	}
	conn_pin_keep(c->mysql, pin);
	return CONN_OK;
}

/*
 * A handle for p: its options, TLS and the guards of the password on auth,
 * which must live until conn_auth_done(). Returns CONN_OK with *out, or
 * an error with err.
 */
static enum conn_status
conn_prepare(struct conn **out, const struct conn_params *p,
    struct conn_auth *auth, char *err, size_t errlen)
{
	struct conn *c;

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
	set_protocol(c->mysql, p);
	set_tls(c->mysql, p);
	conn_auth_set(c->mysql, auth, p);
	if (auth->refused[0] != '\0') {
		snprintf(err, errlen, "cannot connect %s: %s", c->where,
		    auth->refused);
		conn_close(c);
		return CONN_DENIED;
	}
#ifdef NONBLOCKING_CONNECTOR_C
	/* The TLS handshake runs on this stack: more than the 60 KB default. */
	size_t stack = 256 * 1024;
	mysql_options(c->mysql, MYSQL_OPT_NONBLOCK, &stack);
#endif
	*out = c;
	return CONN_OK;
}

/* Connected: kept when TLS is as --ssl-mode asks and the pin lets it. */
static enum conn_status
conn_connected(struct conn *c, const struct conn_params *p, char *err,
    size_t errlen)
{
	enum conn_status st;

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
	conn_auth_forget_password(c->mysql);
	if ((st = check_pin(c, p, err, errlen)) != CONN_OK)
		return st;
	c->timeout_s = p->read_timeout_s;
	return CONN_OK;
}

/*
 * What refused the connect before the server could, when it was this
 * program or the library on its behalf: a guard that kept the password
 * back (or a key file that could not serve), Connector/C's check of the
 * pin, a plugin not allowed. Returns that status with err, or CONN_OK
 * when it was none of them.
 */
static enum conn_status
refused_here(struct conn *c, const struct conn_params *p,
    const struct conn_auth *auth, unsigned e, char *err, size_t errlen)
{
	if (auth->refused[0] != '\0') {
		if (!auth->untrusted && p->ssl_mode >= TLS_REQUIRED &&
		    !auth->tls)
			snprintf(err, errlen, "cannot connect %s: the server "
			    "offers no TLS, but --ssl-mode requires it; enable "
			    "TLS on the server or lower --ssl-mode", c->where);
		else
			snprintf(err, errlen, "cannot connect %s: %s", c->where,
			    auth->refused);
		return auth->untrusted ? CONN_UNTRUSTED : CONN_DENIED;
	}
#ifdef MARIADB_PACKAGE_VERSION
	char why[512];

	if (conn_pin_refused_by_library(c->mysql, conn_pin_of(p), why,
	    sizeof(why))) {
		snprintf(err, errlen, "cannot connect %s: %s", c->where, why);
		return CONN_UNTRUSTED;
	}
	if (e == CR_PLUGIN_NOT_ALLOWED) {
		refused_plugin(c, mysql_error(c->mysql), err, errlen);
		return CONN_DENIED;
	}
#else
	(void)e; /* Oracle's library has neither check */
#endif
	return CONN_OK;
}

/* The connect failed: err says why; c is closed. Returns its kind. */
static enum conn_status
conn_failed(struct conn *c, const struct conn_params *p,
    struct conn_auth *auth, char *err, size_t errlen)
{
	enum conn_status st;
	unsigned e;

	if (c->abandoned) {
		bool timed_out = c->timed_out;

		st = conn_drop(c, err, errlen);
		if (timed_out)
			snprintf(err, errlen, "cannot connect %s: no answer "
			    "within --connect-timeout %u s; check that the "
			    "server runs and --host, --port or --socket",
			    c->where, p->connect_timeout_s);
		conn_close(c);
		return timed_out ? CONN_FAILED : st;
	}
	e = mysql_errno(c->mysql);
	conn_auth_failed(c->mysql, auth);
	if ((st = refused_here(c, p, auth, e, err, errlen)) == CONN_OK) {
		snprintf(err, errlen, "cannot connect %s: %s; %s", c->where,
		    mysql_error(c->mysql), connect_hint(e,
		    mysql_error(c->mysql)));
		st = conn_classify(e);
		if (st == CONN_LOST)
			st = CONN_FAILED; /* a first connect that fails is no loss */
	}
	conn_close(c);
	return st;
}

enum conn_status
conn_open(struct conn **out, const struct conn_params *p, char *err,
    size_t errlen)
{
	struct conn_auth auth;
	struct conn *c;
	enum conn_status st;
	bool connected;

	*out = NULL;
	if ((st = conn_prepare(&c, p, &auth, err, errlen)) != CONN_OK)
		return st;
	connected = conn_io_connect(c, p) != NULL;
	if (c->mysql != NULL)
		conn_auth_done(c->mysql);
	if (!connected)
		return conn_failed(c, p, &auth, err, errlen);
	if ((st = conn_connected(c, p, err, errlen)) == CONN_OK)
		*out = c;
	return st;
}

void
conn_close(struct conn *c)
{
	if (c == NULL)
		return;
	conn_auth_forget_password(c->mysql);
	if (c->mysql != NULL)
		mysql_close(c->mysql);
	if (c->forget_kept != NULL)
		c->forget_kept(c);
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
		return conn_drop(c, err, errlen);
	if (conn_io_query(c, sql) != 0)
		goto fail;
	/* Whole results are small (a few hundred rows), so store them. */
	if ((res = conn_io_store(c)) == NULL) {
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
		return conn_drop(c, err, errlen);
	e = mysql_errno(c->mysql);
	if (server_errno != NULL)
		*server_errno = e;
	snprintf(err, errlen, "%s", mysql_error(c->mysql));
	return conn_classify(e);
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
