/*
 * The connection to the server: the only module that includes <mysql.h>.
 * It hides which client library the build uses (MariaDB Connector/C or
 * Oracle's libmysqlclient) and sorts its errors into classes.
 */
#ifndef MYSQLMEMPROF_CONN_H
#define MYSQLMEMPROF_CONN_H

#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct conn;

/* --ssl-mode, with the meaning MySQL gives it. */
enum conn_tls_mode {
	TLS_DEFAULT,         /* as PREFERRED */
	TLS_DISABLED,
	TLS_PREFERRED,       /* TLS over TCP when the server offers it */
	TLS_REQUIRED,        /* encrypted, certificate not checked */
	TLS_VERIFY_CA,       /* and the certificate is signed by --ssl-ca */
	TLS_VERIFY_IDENTITY, /* and it was issued to the host */
};

/* --protocol, with the meaning MySQL gives it. */
enum conn_protocol {
	PROTOCOL_DEFAULT, /* the socket for localhost, else TCP */
	PROTOCOL_TCP,     /* TCP even for localhost */
	PROTOCOL_SOCKET,  /* the unix socket; the host must be localhost */
};

struct conn_params {
	const char *host;     /* NULL: the library's default (localhost) */
	const char *user;     /* NULL: the login name */
	const char *password; /* NULL: none */
	const char *socket;   /* NULL: the library's default */
	unsigned port;        /* 0: the library's default */
	enum conn_protocol protocol;
	unsigned connect_timeout_s;
	unsigned read_timeout_s;
	enum conn_tls_mode ssl_mode;
	const char *ssl_ca;   /* NULL: none */
	const char *ssl_cert;
	const char *ssl_key;
	const char *ssl_crl;     /* NULL: none */
	const char *ssl_crlpath; /* NULL: none */
	const char *tls_version; /* "TLSv1.2,TLSv1.3"; NULL: the library's */
	/*
	 * How caching_sha2_password may send the password over plain TCP,
	 * where it must be encrypted with the server's RSA key: with the key
	 * in this PEM file, or with one asked of the server. Neither: it is
	 * never sent, and connecting fails saying so.
	 */
	const char *server_public_key_path;
	bool get_server_public_key;
	/*
	 * Whether mysql_clear_password and dialog (PAM accounts) may send the
	 * password as it is, over the unix socket or TLS whose certificate
	 * is checked (VERIFY_CA and up) only. Not set: never.
	 */
	bool enable_cleartext_plugin;
	/*
	 * Set by SIGINT/SIGTERM (NULL: never). Connecting and queries look at
	 * it every 100 ms and give up, whatever the timeouts say.
	 */
	volatile sig_atomic_t *stop;
};

enum conn_status {
	CONN_OK = 0,
	CONN_LOST,   /* the server went away or cannot be reached */
	CONN_DENIED, /* access denied: bad credentials or missing privilege */
	/*
	 * The statement was stopped (KILL QUERY, a statement time limit, the
	 * server short of memory for it); the connection is fine.
	 */
	CONN_INTERRUPTED,
	CONN_FAILED, /* any other error */
	CONN_STOPPED, /* *stop was set while waiting; the connection is dropped */
};

/*
 * Connects; on failure *out is NULL and err holds one line naming where it
 * tried to connect and the server's message. The caller owns *out.
 * A stop gives CONN_STOPPED; any other failure CONN_DENIED or CONN_FAILED.
 */
enum conn_status conn_open(struct conn **out, const struct conn_params *p,
    char *err, size_t errlen);
void conn_close(struct conn *c);

/*
 * Called for each row of a result. values[i] is NULL for SQL NULL and
 * otherwise NUL-terminated, with lengths[i] bytes. Return 0 to go on.
 */
typedef int (*conn_row_fn)(void *ctx, unsigned ncols, char **values,
    const unsigned long *lengths);

/*
 * Runs one statement and hands each row to fn (NULL: rows ignored). On
 * failure err holds the server's message and *server_errno (if not NULL)
 * its error number. A non-zero return of fn stops and gives CONN_FAILED.
 * After CONN_STOPPED every later query gives CONN_STOPPED at once.
 */
enum conn_status conn_query(struct conn *c, const char *sql, conn_row_fn fn,
    void *ctx, unsigned *server_errno, char *err, size_t errlen);

/* A parameter of conn_query_params(): a string or an integer. */
struct conn_param {
	const char *s; /* NULL: the integer i */
	int64_t i;
};

/*
 * As conn_query(), but sql holds a `?` for each of the n params, which are
 * sent apart from the text (a prepared statement): no quote, backslash or
 * sql_mode can make a parameter part of the SQL.
 */
enum conn_status conn_query_params(struct conn *c, const char *sql,
    const struct conn_param *params, unsigned n, conn_row_fn fn, void *ctx,
    unsigned *server_errno, char *err, size_t errlen);

/*
 * A column of a row of conn_query_kept(). An integer column comes as an
 * integer, not as text to be parsed again: a sample has some 150 of them.
 */
struct conn_value {
	bool null;        /* then nothing else but is_int means anything */
	bool is_int;      /* i or u holds it; s is NULL */
	bool is_unsigned; /* u, not i */
	union {
		int64_t i;
		uint64_t u;
	};
	const char *s;    /* any other column: len bytes, no NUL after them */
	unsigned long len;
};
typedef int (*conn_value_fn)(void *ctx, unsigned ncols,
    const struct conn_value *values);
/*
 * As conn_query_params(), but the statement stays prepared on the
 * connection (a few are kept, the oldest closed first) and the next call
 * with the same sql only executes it: for the query of every sample. A
 * failed call closes it, so the next one prepares it again. Rows come
 * as typed values.
 */
enum conn_status conn_query_kept(struct conn *c, const char *sql,
    const struct conn_param *params, unsigned n, conn_value_fn fn, void *ctx,
    unsigned *server_errno, char *err, size_t errlen);
/* The TLS cipher of the session, or NULL when it is not encrypted. */
const char *conn_cipher(struct conn *c);
/* The server's version string, e.g. "10.11.6-MariaDB-0+deb12u1". */
const char *conn_server_version(struct conn *c);

#endif
