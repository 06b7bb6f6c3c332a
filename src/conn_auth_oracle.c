/*
 * The guarded authentication plugins with Oracle's libmysqlclient
 * (conn_auth.h): its plugins are built in, so the guards are swapped into
 * its own plugins' entries and call them when the rules allow. The build
 * against Connector/C compiles conn_auth_connector.c instead.
 */
#include "conn_auth.h"
#include "conn_pin.h"

#include <errmsg.h>
#include <errno.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/pem.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#ifdef MARIADB_PACKAGE_VERSION
#include <stdarg.h>
#endif

#ifndef MARIADB_PACKAGE_VERSION
/* <mysql.h> includes <mysql/client_plugin.h>: its struct auth_plugin_t. */


/*
 * Oracle's library has its plugins built in, and registering another of
 * a name it has fails: the guards go in its own plugins' place instead,
 * each keeping a pointer to the library's function, which it calls when
 * the rule lets it. Nothing of the handle can carry a pointer of ours, so
 * the connect under way on this thread is found here.
 */
static _Thread_local struct conn_auth *auth_now;

typedef struct auth_plugin_t oracle_plugin;
typedef int (*auth_fn)(MYSQL_PLUGIN_VIO *, MYSQL *);
typedef enum net_async_status (*auth_nb_fn)(MYSQL_PLUGIN_VIO *, MYSQL *,
    int *);

static auth_fn sha256_own, clear_own, sha2_own;
static auth_nb_fn sha256_own_nb, clear_own_nb, sha2_own_nb;

/*
 * Whether the server may be sent the password, or anything it could be
 * read from: on a reconnect, only the server of the first connection's
 * certificate (conn_pin.h). Oracle's library has TLS up before the first
 * plugin runs.
 */
static bool
pin_lets(struct conn_auth *a)
{
	char why[sizeof(a->refused)];

	if (a == NULL || conn_pin_lets(a->m, a->pin, why, sizeof(why)))
		return true;
	a->untrusted = true;
	snprintf(a->refused, sizeof(a->refused), "%s", why);
	return false;
}

/*
 * sha256_password asks the server for its RSA key unasked over plain TCP
 * (MYSQL_OPT_GET_SERVER_PUBLIC_KEY is caching_sha2_password's only): let
 * only with a key the user chose, as Connector/C's guard.
 */
static bool
sha256_lets(MYSQL_PLUGIN_VIO *vio, MYSQL *m)
{
	struct conn_auth *a = auth_now;

	if (m->passwd == NULL || *m->passwd == '\0')
		return true;
	/* Its first packet may be the password: the pin first. */
	if (!pin_lets(a))
		return false;
	if (conn_auth_transport_secure(vio, m) ||
	    (a != NULL && (a->key_path != NULL || a->get_key)))
		return true;
	if (a != NULL)
		snprintf(a->refused, sizeof(a->refused),
		    CONN_AUTH_NOT_ENCRYPTED, "sha256_password");
	return false;
}

/* Why mysql_clear_password is not let send, into a->refused. */
static void
clear_refused(struct conn_auth *a)
{
	snprintf(a->refused, sizeof(a->refused), a->cleartext ?
	    CONN_AUTH_CLEARTEXT_WHERE : CONN_AUTH_CLEARTEXT_OFF,
	    "mysql_clear_password");
}

/*
 * The library lets its mysql_clear_password run only when told to
 * (MYSQL_ENABLE_CLEARTEXT_PLUGIN) or when LIBMYSQL_ENABLE_CLEARTEXT_PLUGIN
 * is set, which this rule wins over.
 */
static bool
clear_lets(void)
{
	struct conn_auth *a = auth_now;

	if (a != NULL && a->cleartext_ok)
		return true;
	if (a != NULL)
		clear_refused(a);
	return false;
}

static int
sha256_guard(MYSQL_PLUGIN_VIO *vio, MYSQL *m)
{
	return sha256_lets(vio, m) ? sha256_own(vio, m) : CR_ERROR;
}

static enum net_async_status
sha256_guard_nb(MYSQL_PLUGIN_VIO *vio, MYSQL *m, int *result)
{
	if (sha256_lets(vio, m))
		return sha256_own_nb(vio, m, result);
	*result = CR_ERROR;
	return NET_ASYNC_COMPLETE;
}

static int
clear_guard(MYSQL_PLUGIN_VIO *vio, MYSQL *m)
{
	return clear_lets() ? clear_own(vio, m) : CR_ERROR;
}

static enum net_async_status
clear_guard_nb(MYSQL_PLUGIN_VIO *vio, MYSQL *m, int *result)
{
	if (clear_lets())
		return clear_own_nb(vio, m, result);
	*result = CR_ERROR;
	return NET_ASYNC_COMPLETE;
}

/*
 * caching_sha2_password is the library's own from end to end; what it
 * writes goes through the handle's packet writers, which the guard
 * replaces with these for the connect. The first packet is the proof of
 * the scramble, which tells no one the password; any after it (the
 * password of the full authentication, the request for a key) goes only
 * to the server of the pin. The session, and so the certificate, can be
 * read by then: the server's answer to the first came with its ticket.
 */
typedef int (*write_fn)(MYSQL_PLUGIN_VIO *, const unsigned char *, int);
typedef enum net_async_status (*write_nb_fn)(MYSQL_PLUGIN_VIO *,
    const unsigned char *, int, int *);
static write_fn vio_write;
static write_nb_fn vio_write_nb;

static int
sha2_write(MYSQL_PLUGIN_VIO *vio, const unsigned char *pkt, int len)
{
	struct conn_auth *a = auth_now;

	if (a != NULL && a->sha2_wrote && !pin_lets(a))
		return -1;
	if (a != NULL)
		a->sha2_wrote = true;
	return vio_write(vio, pkt, len);
}

static enum net_async_status
sha2_write_nb(MYSQL_PLUGIN_VIO *vio, const unsigned char *pkt, int len,
    int *result)
{
	struct conn_auth *a = auth_now;
	enum net_async_status st;

	if (a != NULL && a->sha2_wrote && !pin_lets(a)) {
		*result = -1;
		return NET_ASYNC_COMPLETE;
	}
	/* Written only once complete: a packet may take several calls. */
	st = vio_write_nb(vio, pkt, len, result);
	if (st == NET_ASYNC_COMPLETE && a != NULL)
		a->sha2_wrote = true;
	return st;
}

/* The handle's writers replaced with the two above, the library's kept. */
static void
sha2_hook(MYSQL_PLUGIN_VIO *vio)
{
	if (vio->write_packet != sha2_write) {
		vio_write = vio->write_packet;
		vio->write_packet = sha2_write;
	}
	if (vio->write_packet_nonblocking != NULL &&
	    vio->write_packet_nonblocking != sha2_write_nb) {
		vio_write_nb = vio->write_packet_nonblocking;
		vio->write_packet_nonblocking = sha2_write_nb;
	}
}

/*
 * No TLS where the first connection had it is seen before the plugin
 * writes anything: the library's TLS is up before the first plugin runs.
 */
static bool
tls_kept(struct conn_auth *a, MYSQL *m)
{
	return a == NULL || a->pin == NULL || !a->pin->tls ||
	    mysql_get_ssl_cipher(m) != NULL || pin_lets(a);
}

static int
sha2_guard(MYSQL_PLUGIN_VIO *vio, MYSQL *m)
{
	if (!tls_kept(auth_now, m))
		return CR_ERROR;
	sha2_hook(vio);
	return sha2_own(vio, m);
}

static enum net_async_status
sha2_guard_nb(MYSQL_PLUGIN_VIO *vio, MYSQL *m, int *result)
{
	if (!tls_kept(auth_now, m)) {
		*result = CR_ERROR;
		return NET_ASYNC_COMPLETE;
	}
	sha2_hook(vio);
	return sha2_own_nb(vio, m, result);
}

/* Why the guards could not be put in place; "": they were. */
static char guards_failed[200];

/* The library's plugin name, its functions kept in own, ours put instead. */
static void
guard_one(MYSQL *m, const char *name, auth_fn *own, auth_nb_fn *own_nb,
    auth_fn fn, auth_nb_fn nb)
{
	oracle_plugin *pl = (oracle_plugin *)mysql_client_find_plugin(m, name,
	    MYSQL_CLIENT_AUTHENTICATION_PLUGIN);

	if (guards_failed[0] != '\0')
		return;
	if (pl == NULL || pl->authenticate_user == NULL) {
		snprintf(guards_failed, sizeof(guards_failed), "cannot guard "
		    "the library's %s: %s", name, pl == NULL ? mysql_error(m) :
		    "it is not the plugin this build knows");
		return;
	}
	*own = pl->authenticate_user;
	pl->authenticate_user = fn;
	/* One without (mysql_clear_password) is called blocking. */
	if ((*own_nb = pl->authenticate_user_nonblocking) != NULL)
		pl->authenticate_user_nonblocking = nb;
}

static void
register_guards(void)
{
	MYSQL *m = mysql_init(NULL);

	if (m == NULL) {
		snprintf(guards_failed, sizeof(guards_failed), "out of memory");
		return;
	}
	guard_one(m, "sha256_password", &sha256_own, &sha256_own_nb,
	    sha256_guard, sha256_guard_nb);
	guard_one(m, "mysql_clear_password", &clear_own, &clear_own_nb,
	    clear_guard, clear_guard_nb);
	guard_one(m, "caching_sha2_password", &sha2_own, &sha2_own_nb,
	    sha2_guard, sha2_guard_nb);
	mysql_close(m);
}

/*
 * libmysqlclient's caching_sha2_password fetches no key unless asked: the
 * same options say so. A key file is read first, so that a bad one is
 * said as with Connector/C, before connecting.
 */
void
conn_auth_set(MYSQL *m, struct conn_auth *a, const struct conn_params *p)
{
	static pthread_once_t once = PTHREAD_ONCE_INIT;
	bool get = p->get_server_public_key, clear = true;

	pthread_once(&once, register_guards);
	*a = (struct conn_auth){ .key_path = p->server_public_key_path,
	    .get_key = p->get_server_public_key,
	    .cleartext = p->enable_cleartext_plugin,
	    .cleartext_ok = p->enable_cleartext_plugin &&
	    (!conn_over_tcp(p) || p->ssl_mode >= TLS_VERIFY_CA),
	    .tls = p->ssl_mode >= TLS_REQUIRED,
	    .pin = conn_pin_of(p), .m = m };
	if (guards_failed[0] != '\0') {
		snprintf(a->refused, sizeof(a->refused), "%s", guards_failed);
		return;
	}
	mysql_options(m, MYSQL_OPT_GET_SERVER_PUBLIC_KEY, &get);
	/* Its own check comes before the guard's: it must let it through. */
	if (a->cleartext_ok)
		mysql_options(m, MYSQL_ENABLE_CLEARTEXT_PLUGIN, &clear);
	if (p->server_public_key_path != NULL) {
		EVP_PKEY_free(conn_auth_key_read(p->server_public_key_path, a->refused,
		    sizeof(a->refused)));
		mysql_options(m, MYSQL_SERVER_PUBLIC_KEY,
		    p->server_public_key_path);
	}
	if (a->refused[0] == '\0')
		auth_now = a; /* until auth_done() */
}

/* Its own refusal of mysql_clear_password comes before the guard's. */
void
conn_auth_failed(MYSQL *m, struct conn_auth *a)
{
	if (a->refused[0] == '\0' &&
	    mysql_errno(m) == CR_AUTH_PLUGIN_CANNOT_LOAD &&
	    strstr(mysql_error(m), "'mysql_clear_password'") != NULL)
		clear_refused(a);
}

void
conn_auth_done(MYSQL *m)
{
	(void)m;
	auth_now = NULL;
}
#endif
