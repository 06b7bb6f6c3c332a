/*
 * How the password goes to the server: guarded replacements of the
 * client library's authentication plugins, which send it, or anything
 * the other end can read it from, only where the user allowed it
 * (--enable-cleartext-plugin, --server-public-key-path,
 * --get-server-public-key) over a transport that keeps it (the unix
 * socket, TLS; for clear text, TLS whose certificate is checked), and on
 * a reconnect only to the server of the first connection's certificate
 * (conn_pin.h). Only conn*.c include it, and <mysql.h> with it.
 */
#ifndef MYSQLMEMPROF_CONN_AUTH_H
#define MYSQLMEMPROF_CONN_AUTH_H

#include <mysql.h>
#ifdef MARIADB_PACKAGE_VERSION
/* After <mysql.h>, whose types it uses without including it. */
#include <mysql/plugin_auth.h>
#endif
#include <openssl/evp.h>
#include <stdbool.h>
#include <stddef.h>

#include "conn_types.h"

#ifdef MARIADB_PACKAGE_VERSION
/* What the plugins need of one connect, found through the handle. */
struct conn_auth {
	const char *key_path;  /* --server-public-key-path; NULL: none */
	bool get_key;          /* --get-server-public-key */
	bool cleartext;        /* --enable-cleartext-plugin */
	bool tls_verified;     /* --ssl-mode VERIFY_CA or VERIFY_IDENTITY */
	bool spent;            /* shared, read only: refused is not written */
	bool tls;              /* the connection was encrypted when asked */
	const struct conn_pin *pin; /* conn_pin_of() the params; NULL: none */
	bool untrusted;        /* refused: not the server of the pin */
	char refused[512];     /* why the password was not sent; "": it was */
};
#else
struct conn_auth {
	const char *key_path;  /* --server-public-key-path; NULL: none */
	bool get_key;          /* --get-server-public-key */
	bool cleartext;        /* --enable-cleartext-plugin */
	bool cleartext_ok;     /* and over the socket or TLS VERIFY_CA and up */
	bool tls;              /* encrypted: REQUIRED and up, which it enforces */
	const struct conn_pin *pin; /* conn_pin_of() the params; NULL: none */
	MYSQL *m;              /* the handle being connected */
	bool sha2_wrote;       /* caching_sha2_password wrote its first packet */
	bool untrusted;        /* refused: not the server of the pin */
	char refused[512];     /* why the password was not sent; "": it was */
};
#endif

/*
 * Before connecting: the guards in place (once a process), a's rules from
 * p; a->refused says why connecting must not go on ("": it may). a must
 * live until conn_auth_done().
 */
void conn_auth_set(MYSQL *m, struct conn_auth *a, const struct conn_params *p);
/* Connected: the handle no longer points at the a of conn_auth_set(). */
void conn_auth_done(MYSQL *m);
/*
 * Connecting failed: where the library refused the password itself, before
 * a guard could, a->refused says why as a guard would.
 */
void conn_auth_failed(MYSQL *m, struct conn_auth *a);
/* Wipes the library's copy of the password, which it would free as it is. */
void conn_auth_forget_password(MYSQL *m);

/*
 * For the two libraries' files: the public key in the PEM file path
 * (--server-public-key-path), or NULL with why saying what is wrong.
 */
EVP_PKEY *conn_auth_key_read(const char *path, char *why, size_t whylen);
/*
 * For both: why a guard refused, with the plugin's name for %s: no key
 * for the password over plain TCP; clear text not allowed, or allowed
 * but not over this transport.
 */
#define CONN_AUTH_NOT_ENCRYPTED "the account's %s must send the password, " \
    "and the connection is not encrypted; use TLS, " \
    "--get-server-public-key or --server-public-key-path=FILE"
#define CONN_AUTH_CLEARTEXT_OFF "the server asks for the password in " \
    "clear text (%s); give --enable-cleartext-plugin if the account needs it"
#define CONN_AUTH_CLEARTEXT_WHERE "the server asks for the password in " \
    "clear text (%s), which --enable-cleartext-plugin sends only over the " \
    "unix socket or TLS with --ssl-mode=VERIFY_CA or VERIFY_IDENTITY"
/* For both: whether the connection is over the unix socket. */
bool conn_auth_over_socket(MYSQL_PLUGIN_VIO *vio);
/*
 * For both: whether the password may go as it is, where no one but the
 * server reads it: TLS, or the unix socket.
 */
bool conn_auth_transport_secure(MYSQL_PLUGIN_VIO *vio, MYSQL *m);

#endif
