/*
 * What a connection is opened with and what its calls return: the words
 * the connection's callers and its waits (conn_io.c) share, with no
 * <mysql.h> in them. The options hold --ssl-mode and --protocol in them.
 */
#ifndef MYSQLMEMPROF_CONN_TYPES_H
#define MYSQLMEMPROF_CONN_TYPES_H

#include <signal.h>
#include <stdbool.h>
#include <string.h>

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

/*
 * The server's certificate as the first connection over TLS of a run saw
 * it: a connection after it sends the password, or anything it can be
 * read from, only to a server that shows the same (conn_open()), unless
 * --ssl-mode checks the certificate. The session owns it; all zero:
 * nothing seen yet.
 */
struct conn_pin {
	bool tls;                 /* a connection of the run had TLS */
	bool known;               /* and the digests are its certificate's */
	unsigned char sha256[32]; /* of the certificate's DER */
	unsigned char sha1[20];   /* the same, for Connector/C 3.3's own check */
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
	/* Kept and checked by every connect with it; NULL: none. */
	struct conn_pin *pin;
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
	/*
	 * The server is not the one of the pin (conn_params): another
	 * certificate, or no TLS where there was. The password was not sent
	 * to it; trying again would not change the server.
	 */
	CONN_UNTRUSTED,
};

/* Whether the library connects over TCP, not the unix socket. */
static inline bool
conn_over_tcp(const struct conn_params *p)
{
	if (p->protocol != PROTOCOL_DEFAULT)
		return p->protocol == PROTOCOL_TCP;
	/* As the client library decides: "localhost" means the unix socket. */
	return p->host != NULL && strcmp(p->host, "localhost") != 0;
}

#endif
