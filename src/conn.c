/*
 * The connection to the server over libmysqlclient or MariaDB
 * Connector/C. The two libraries share the calls used here; where they
 * differ, the difference is behind #if. Waiting on the server is in
 * conn_io.c, prepared statements in conn_stmt.c.
 */
#include <errmsg.h>
#include <mysqld_error.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "conn_impl.h"

#include <errno.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/pem.h>
#include <pthread.h>
#ifdef MARIADB_PACKAGE_VERSION
#include <mysql/plugin_auth.h>
#include <stdarg.h>
#endif


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
 * Wipes the library's copy of the password (MYSQL's passwd, in both
 * libraries), which it would free as it is. Nothing here authenticates
 * twice on a handle (no change of user, no reconnect by the library), so
 * once connected it is not needed.
 */
static void
forget_password(MYSQL *m)
{
	if (m != NULL && m->passwd != NULL)
		explicit_bzero(m->passwd, strlen(m->passwd));
}

/* Whether the library connects over TCP, not the unix socket. */
static bool
over_tcp(const struct conn_params *p)
{
	if (p->protocol != PROTOCOL_DEFAULT)
		return p->protocol == PROTOCOL_TCP;
	/* As the client library decides: "localhost" means the unix socket. */
	return p->host != NULL && strcmp(p->host, "localhost") != 0;
}

/*
 * The public key in the PEM file path (--server-public-key-path), or NULL
 * with why saying what is wrong, before the library is given it: Oracle's
 * would print a warning of its own and go on.
 */
static EVP_PKEY *
key_read(const char *path, char *why, size_t whylen)
{
	EVP_PKEY *key = NULL;
	FILE *fp = fopen(path, "r");

	if (fp == NULL) {
		snprintf(why, whylen, "cannot read --server-public-key-path "
		    "%s: %s; give the server's public key (its "
		    "public_key.pem)", path, strerror(errno));
		return NULL;
	}
	key = PEM_read_PUBKEY(fp, NULL, NULL, NULL);
	fclose(fp);
	ERR_clear_error();
	if (key == NULL)
		snprintf(why, whylen, "--server-public-key-path %s holds no "
		    "PEM public key; give the server's (its public_key.pem)",
		    path);
	return key;
}

#ifdef MARIADB_PACKAGE_VERSION
/*
 * caching_sha2_password, in place of Connector/C's own. Over plain TCP,
 * its full authentication must send the password encrypted with the
 * server's RSA key, and Connector/C 3.3 asks the server for that key
 * unasked: whoever sits between can hand it a key of their own and read
 * the password. Worse, it takes TLS asked for (MYSQL_OPT_SSL_ENFORCE) for
 * TLS had, so a server without TLS is sent the password in the clear.
 * This one looks at the connection itself, and over plain TCP uses only
 * a key the user gave (--server-public-key-path) or asked the server for
 * (--get-server-public-key), as Oracle's mysql(1) does.
 */

/*
 * An authentication plugin as the library takes it: the layout of struct
 * st_mysql_client_plugin_AUTHENTICATION, interface 0x0100. Debian 12's
 * <mysql/client_plugin.h> includes a header its package lacks.
 */
struct auth_plugin {
	int type;
	unsigned int interface_version;
	const char *name, *author, *desc;
	unsigned int version[3];
	const char *license;
	void *mysql_api;
	int (*init)(char *, size_t, int, va_list);
	int (*deinit)(void);
	int (*options)(const char *option, const void *);
	int (*authenticate_user)(MYSQL_PLUGIN_VIO *vio, MYSQL *mysql);
};
#define AUTH_PLUGIN_TYPE 2          /* MYSQL_CLIENT_AUTHENTICATION_PLUGIN */
#define AUTH_PLUGIN_INTERFACE 0x0100

/* What the plugins need of one connect, found through the handle. */
struct conn_auth {
	const char *key_path;  /* --server-public-key-path; NULL: none */
	bool get_key;          /* --get-server-public-key */
	bool cleartext;        /* --enable-cleartext-plugin */
	bool tls_verified;     /* --ssl-mode VERIFY_CA or VERIFY_IDENTITY */
	bool spent;            /* shared, read only: refused is not written */
	bool tls;              /* the connection was encrypted when asked */
	char refused[256];     /* why the password was not sent; "": it was */
};

/*
 * What the handle points at once connected, in place of the struct on
 * conn_open()'s stack, should the library ever authenticate again.
 */
static struct conn_auth auth_spent = { .spent = true };

#define AUTH_KEY "mysqlmemprof.auth"
/* One-byte packets of the exchange, after the \1 read_packet() strips. */
#define SHA2_REQUEST_KEY 2 /* ours: send me your RSA key */
#define SHA2_FAST_OK 3     /* the server's: the scramble matched its cache */
#define SHA2_FULL_AUTH 4   /* the server's: not cached, send the password */
#define SHA256_REQUEST_KEY 1 /* sha256_password's: send me your RSA key */

/*
 * Says why the password was kept back, once, for conn_open(). The
 * connect fails then, and Connector/C frees its copy unwiped on the way:
 * wiped here first.
 */
static void __attribute__((format(printf, 3, 4)))
refuse(MYSQL *m, struct conn_auth *a, const char *fmt, ...)
{
	va_list ap;

	forget_password(m);
	if (a == NULL || a->spent)
		return;
	va_start(ap, fmt);
	vsnprintf(a->refused, sizeof(a->refused), fmt, ap);
	va_end(ap);
}

/* The password and its NUL, as it is: over TLS or the socket only. */
static int
send_plain(MYSQL_PLUGIN_VIO *vio, const char *pw)
{
	return vio->write_packet(vio, (const unsigned char *)pw,
	    (int)strlen(pw) + 1) == 0 ? CR_OK : CR_ERROR;
}

static struct conn_auth *
auth_of(MYSQL *m)
{
	struct conn_auth *a = NULL;

	mysql_get_optionv(m, MARIADB_OPT_USERDATA, (void *)AUTH_KEY, &a);
	if (a != NULL && !a->spent)
		a->tls = mysql_get_ssl_cipher(m) != NULL;
	return a;
}

/* TLS, or the unix socket: the server takes the password as it is there. */
static bool
transport_secure(MYSQL_PLUGIN_VIO *vio, MYSQL *m)
{
	MYSQL_PLUGIN_VIO_INFO info;

	if (mysql_get_ssl_cipher(m) != NULL)
		return true;
	vio->info(vio, &info);
	return info.protocol == MYSQL_VIO_SOCKET;
}

/* SHA256(pw) XOR SHA256(SHA256(SHA256(pw)), scramble): the fast reply. */
static int
sha2_scramble(const char *pw, const unsigned char *scramble,
    unsigned char out[32])
{
	unsigned char d1[32], d2[32], d3[32];
	EVP_MD_CTX *ctx = EVP_MD_CTX_new();
	int ok = ctx != NULL &&
	    EVP_Digest(pw, strlen(pw), d1, NULL, EVP_sha256(), NULL) &&
	    EVP_Digest(d1, sizeof(d1), d2, NULL, EVP_sha256(), NULL) &&
	    EVP_DigestInit_ex(ctx, EVP_sha256(), NULL) &&
	    EVP_DigestUpdate(ctx, d2, sizeof(d2)) &&
	    EVP_DigestUpdate(ctx, scramble, SCRAMBLE_LENGTH) &&
	    EVP_DigestFinal_ex(ctx, d3, NULL);

	EVP_MD_CTX_free(ctx);
	for (int i = 0; i < 32; i++)
		out[i] = d1[i] ^ d3[i];
	OPENSSL_cleanse(d1, sizeof(d1));
	return ok ? 0 : -1;
}

/* The key of --server-public-key-path, or NULL with a->refused saying why. */
static EVP_PKEY *
key_from_file(MYSQL *m, struct conn_auth *a)
{
	char why[256];
	EVP_PKEY *key = key_read(a->key_path, why, sizeof(why));

	if (key == NULL)
		refuse(m, a, "%s", why);
	return key;
}

/* The password and its NUL, XORed with the scramble, RSA-OAEP encrypted. */
static int
send_encrypted(MYSQL_PLUGIN_VIO *vio, EVP_PKEY *key, const char *pw,
    const unsigned char *scramble)
{
	unsigned char plain[512], sealed[1024];
	size_t n = strlen(pw) + 1, len = sizeof(sealed);
	EVP_PKEY_CTX *ctx;
	int rc = CR_ERROR;

	if (n > sizeof(plain))
		return CR_ERROR;
	for (size_t i = 0; i < n; i++)
		plain[i] = (unsigned char)pw[i] ^ scramble[i % SCRAMBLE_LENGTH];
	if ((ctx = EVP_PKEY_CTX_new(key, NULL)) != NULL &&
	    EVP_PKEY_encrypt_init(ctx) > 0 &&
	    EVP_PKEY_CTX_set_rsa_padding(ctx, RSA_PKCS1_OAEP_PADDING) > 0 &&
	    EVP_PKEY_encrypt(ctx, sealed, &len, plain, n) > 0 &&
	    vio->write_packet(vio, sealed, (int)len) == 0)
		rc = CR_OK;
	EVP_PKEY_CTX_free(ctx);
	OPENSSL_cleanse(plain, sizeof(plain));
	ERR_clear_error();
	return rc;
}

/*
 * The password over plain TCP, for caching_sha2_password's full
 * authentication and for sha256_password: encrypted with a key the user
 * chose, from a file or asked of the server with the plugin's request.
 */
static int
send_with_key(MYSQL_PLUGIN_VIO *vio, MYSQL *m, const char *plugin,
    unsigned char request, const char *pw, const unsigned char *scramble)
{
	struct conn_auth *a = auth_of(m);
	EVP_PKEY *key = NULL;
	unsigned char *pkt;
	int n, rc;

	if (a != NULL && a->key_path != NULL) {
		if ((key = key_from_file(m, a)) == NULL)
			return CR_ERROR;
	} else if (a != NULL && a->get_key) {
		if (vio->write_packet(vio, &request, 1) != 0 ||
		    (n = vio->read_packet(vio, &pkt)) < 0)
			return CR_ERROR;
		BIO *bio = BIO_new_mem_buf(pkt, n);
		key = bio != NULL ? PEM_read_bio_PUBKEY(bio, NULL, NULL, NULL) :
		    NULL;
		BIO_free(bio);
		ERR_clear_error();
		if (key == NULL)
			return CR_ERROR;
	} else {
		refuse(m, a, "the account's %s must send the password, and the "
		    "connection is not encrypted; use TLS, "
		    "--get-server-public-key or --server-public-key-path=FILE",
		    plugin);
		return CR_ERROR;
	}
	rc = send_encrypted(vio, key, pw, scramble);
	EVP_PKEY_free(key);
	return rc;
}

static int
sha2_authenticate(MYSQL_PLUGIN_VIO *vio, MYSQL *m)
{
	unsigned char scramble[SCRAMBLE_LENGTH], reply[32], *pkt;
	const char *pw = m->passwd != NULL ? m->passwd : "";
	int n;

	/* The scramble and a NUL, from the greeting or a switch of plugin. */
	if ((n = vio->read_packet(vio, &pkt)) < 0)
		return CR_ERROR;
	if (n != SCRAMBLE_LENGTH + 1)
		return CR_SERVER_HANDSHAKE_ERR;
	memcpy(scramble, pkt, SCRAMBLE_LENGTH);
	if (*pw == '\0')
		return vio->write_packet(vio, NULL, 0) == 0 ? CR_OK : CR_ERROR;
	/* The fast path, which the server takes when it has the account cached. */
	if (sha2_scramble(pw, scramble, reply) != 0 ||
	    vio->write_packet(vio, reply, sizeof(reply)) != 0 ||
	    (n = vio->read_packet(vio, &pkt)) < 0)
		return CR_ERROR;
	if (n == 1 && pkt[0] == SHA2_FAST_OK)
		return CR_OK;
	if (n != 1 || pkt[0] != SHA2_FULL_AUTH)
		return CR_SERVER_HANDSHAKE_ERR;
	if (transport_secure(vio, m))
		return send_plain(vio, pw);
	return send_with_key(vio, m, "caching_sha2_password", SHA2_REQUEST_KEY,
	    pw, scramble);
}

/*
 * sha256_password: the password itself, encrypted with the server's RSA
 * key over plain TCP. Connector/C's asks the server for that key unasked,
 * so whoever answers can hand it a key of their own: here, as for
 * caching_sha2_password, only a key the user chose.
 */
static int
sha256_authenticate(MYSQL_PLUGIN_VIO *vio, MYSQL *m)
{
	const char *pw = m->passwd != NULL ? m->passwd : "";
	unsigned char scramble[SCRAMBLE_LENGTH], *pkt;
	int n;

	if ((n = vio->read_packet(vio, &pkt)) < 0)
		return CR_ERROR;
	if (n != SCRAMBLE_LENGTH + 1)
		return CR_SERVER_HANDSHAKE_ERR;
	memcpy(scramble, pkt, SCRAMBLE_LENGTH);
	if (*pw == '\0')
		return vio->write_packet(vio, NULL, 0) == 0 ? CR_OK : CR_ERROR;
	if (transport_secure(vio, m))
		return send_plain(vio, pw);
	return send_with_key(vio, m, "sha256_password",
	    SHA256_REQUEST_KEY, pw, scramble);
}

/*
 * Whether a plugin that sends the password as it is may: only with
 * --enable-cleartext-plugin, and only where no one but the server reads
 * it, the unix socket or TLS whose certificate was checked (an unchecked
 * one may be anyone's). Says why not.
 */
static bool
cleartext_allowed(MYSQL_PLUGIN_VIO *vio, MYSQL *m, const char *plugin)
{
	struct conn_auth *a = auth_of(m);
	MYSQL_PLUGIN_VIO_INFO info;

	if (a == NULL || !a->cleartext) {
		refuse(m, a, "the server asks for the password in clear text "
		    "(%s); give --enable-cleartext-plugin if the account "
		    "needs it", plugin);
		return false;
	}
	vio->info(vio, &info);
	if (info.protocol == MYSQL_VIO_SOCKET ||
	    (a->tls_verified && mysql_get_ssl_cipher(m) != NULL))
		return true;
	refuse(m, a, "the server asks for the password in clear text (%s), "
	    "which --enable-cleartext-plugin sends only over the unix socket "
	    "or TLS with --ssl-mode=VERIFY_CA or VERIFY_IDENTITY", plugin);
	return false;
}

/* mysql_clear_password: the password as it is, where allowed. */
static int
clear_authenticate(MYSQL_PLUGIN_VIO *vio, MYSQL *m)
{
	if (!cleartext_allowed(vio, m, "mysql_clear_password"))
		return CR_ERROR;
	return send_plain(vio, m->passwd != NULL ? m->passwd : "");
}

/* dialog's questions: the type byte, then the prompt. */
#define DIALOG_LAST 1      /* the last question */
#define DIALOG_PASSWORD 4  /* a question whose answer is not echoed */

/*
 * dialog (PAM accounts): questions from the server, each answered in
 * clear text. The first, when it asks for a password, gets the
 * password; any other question is one no one is here to answer.
 */
static int
dialog_authenticate(MYSQL_PLUGIN_VIO *vio, MYSQL *m)
{
	const char *pw = m->passwd != NULL ? m->passwd : "";
	unsigned char *pkt, type = 0;
	bool first = true;
	int n;

	if (!cleartext_allowed(vio, m, "dialog"))
		return CR_ERROR;
	do {
		if ((n = vio->read_packet(vio, &pkt)) < 0)
			return CR_ERROR;
		if (n > 0) {
			type = pkt[0];
			if (type == 0 || type == 254)
				return CR_OK_HANDSHAKE_COMPLETE;
			if (!first || (type & ~DIALOG_LAST) != DIALOG_PASSWORD) {
				refuse(m, auth_of(m), "the account's %s asks more "
				    "than the password, which mysqlmemprof cannot "
				    "answer; connect as an account that needs only "
				    "its password", "dialog");
				return CR_ERROR;
			}
		}
		/* No question (a first packet of ours): the password too. */
		if (send_plain(vio, pw) != CR_OK)
			return CR_ERROR;
		first = false;
	} while ((type & DIALOG_LAST) == 0);
	return CR_OK;
}

#define GUARD(plugin, what, fn) { AUTH_PLUGIN_TYPE, AUTH_PLUGIN_INTERFACE, \
	plugin, "mysqlmemprof", what, { 1, 0, 0 }, \
	"the license of mysqlmemprof", NULL, NULL, NULL, NULL, fn }

/*
 * The plugins that would send the password, or what the other end can
 * read of it: each in place of Connector/C's own. mysql_native_password
 * (built in) and client_ed25519 send only a hash or a signature of the
 * server's one-time scramble, which proves the password to the server
 * without telling it: a server that is not the one can only try to
 * guess the password from it offline, as from any challenge.
 */
static struct auth_plugin guards[] = {
	GUARD("caching_sha2_password",
	    "caching_sha2_password, sending no password to a key not chosen",
	    sha2_authenticate),
	GUARD("sha256_password",
	    "sha256_password, sending no password to a key not chosen",
	    sha256_authenticate),
	GUARD("mysql_clear_password",
	    "mysql_clear_password, only if asked to and only where safe",
	    clear_authenticate),
	GUARD("dialog", "dialog, only if asked to and only where safe",
	    dialog_authenticate),
};

#if MARIADB_PACKAGE_VERSION_ID >= 30300
/*
 * The plugins the library may use at all; any other the server asks for
 * is refused (CR_PLUGIN_NOT_ALLOWED), before the library would load it
 * from its plugin folder: auth_gssapi_client, for one, would get a
 * Kerberos ticket for whatever service the other end names.
 */
#define AUTH_ALLOWED "mysql_native_password,caching_sha2_password," \
	"sha256_password,mysql_clear_password,dialog,client_ed25519"
#endif

/* Why registering the guards failed; "": it did not. */
static char guards_failed[200];

/*
 * Once per process, before the library would load its own from the
 * plugin folder: the first plugin of a name is the one it uses. One it
 * has already (LIBMYSQL_PLUGINS loads some when it starts) would be used
 * in place of the guard, so that fails every connect.
 */
static void
register_guards(void)
{
	MYSQL *m = mysql_init(NULL);

	if (m == NULL) {
		snprintf(guards_failed, sizeof(guards_failed), "out of memory");
		return;
	}
	for (size_t i = 0; i < sizeof(guards) / sizeof(guards[0]); i++) {
		struct st_mysql_client_plugin *g =
		    (struct st_mysql_client_plugin *)&guards[i];

		/* Connector/C 3.3 answers one it has with that one, no error. */
		if (mysql_client_register_plugin(m, g) != g) {
			snprintf(guards_failed, sizeof(guards_failed),
			    "cannot put mysqlmemprof's %s in place of the "
			    "library's: %s; unset LIBMYSQL_PLUGINS",
			    guards[i].name, *mysql_error(m) != '\0' ?
			    mysql_error(m) : "it has loaded its own already");
			break;
		}
	}
	mysql_close(m);
}

static void
set_auth(MYSQL *m, struct conn_auth *a, const struct conn_params *p)
{
	static pthread_once_t once = PTHREAD_ONCE_INIT;

	pthread_once(&once, register_guards);
	*a = (struct conn_auth){ .key_path = p->server_public_key_path,
	    .get_key = p->get_server_public_key,
	    .cleartext = p->enable_cleartext_plugin,
	    .tls_verified = p->ssl_mode >= TLS_VERIFY_CA };
	if (guards_failed[0] != '\0') {
		snprintf(a->refused, sizeof(a->refused), "%s", guards_failed);
		return;
	}
	mysql_optionsv(m, MARIADB_OPT_USERDATA, (void *)AUTH_KEY, (void *)a);
#if MARIADB_PACKAGE_VERSION_ID >= 30300
	mysql_optionsv(m, MARIADB_OPT_RESTRICTED_AUTH, AUTH_ALLOWED);
#endif
}

static void
auth_done(MYSQL *m)
{
	mysql_optionsv(m, MARIADB_OPT_USERDATA, (void *)AUTH_KEY,
	    (void *)&auth_spent);
}
#else
/* <mysql.h> includes <mysql/client_plugin.h>: its struct auth_plugin_t. */

struct conn_auth {
	const char *key_path;  /* --server-public-key-path; NULL: none */
	bool get_key;          /* --get-server-public-key */
	bool cleartext;        /* --enable-cleartext-plugin */
	bool cleartext_ok;     /* and over the socket or TLS VERIFY_CA and up */
	bool tls;              /* encrypted: REQUIRED and up, which it enforces */
	char refused[256];     /* why the password was not sent; "": it was */
};

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

static auth_fn sha256_own, clear_own;
static auth_nb_fn sha256_own_nb, clear_own_nb;

static bool
transport_secure(MYSQL_PLUGIN_VIO *vio, MYSQL *m)
{
	struct MYSQL_PLUGIN_VIO_INFO info;

	if (mysql_get_ssl_cipher(m) != NULL)
		return true;
	vio->info(vio, &info);
	return info.protocol == MYSQL_VIO_SOCKET;
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

	if (m->passwd == NULL || *m->passwd == '\0' ||
	    transport_secure(vio, m) ||
	    (a != NULL && (a->key_path != NULL || a->get_key)))
		return true;
	if (a != NULL)
		snprintf(a->refused, sizeof(a->refused), "the account's "
		    "sha256_password must send the password, and the "
		    "connection is not encrypted; use TLS, "
		    "--get-server-public-key or --server-public-key-path=FILE");
	return false;
}

/* Why mysql_clear_password is not let send, into a->refused. */
static void
clear_refused(struct conn_auth *a)
{
	snprintf(a->refused, sizeof(a->refused), a->cleartext ?
		    "the server asks for the password in clear text "
		    "(mysql_clear_password), which --enable-cleartext-plugin "
		    "sends only over the unix socket or TLS with "
		    "--ssl-mode=VERIFY_CA or VERIFY_IDENTITY" :
		    "the server asks for the password in clear text "
		    "(mysql_clear_password); give --enable-cleartext-plugin if "
		    "the account needs it");
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
	mysql_close(m);
}

/*
 * libmysqlclient's caching_sha2_password fetches no key unless asked: the
 * same options say so. A key file is read first, so that a bad one is
 * said as with Connector/C, before connecting.
 */
static void
set_auth(MYSQL *m, struct conn_auth *a, const struct conn_params *p)
{
	static pthread_once_t once = PTHREAD_ONCE_INIT;
	bool get = p->get_server_public_key, clear = true;

	pthread_once(&once, register_guards);
	*a = (struct conn_auth){ .key_path = p->server_public_key_path,
	    .get_key = p->get_server_public_key,
	    .cleartext = p->enable_cleartext_plugin,
	    .cleartext_ok = p->enable_cleartext_plugin &&
	    (!over_tcp(p) || p->ssl_mode >= TLS_VERIFY_CA),
	    .tls = p->ssl_mode >= TLS_REQUIRED };
	if (guards_failed[0] != '\0') {
		snprintf(a->refused, sizeof(a->refused), "%s", guards_failed);
		return;
	}
	mysql_options(m, MYSQL_OPT_GET_SERVER_PUBLIC_KEY, &get);
	/* Its own check comes before the guard's: it must let it through. */
	if (a->cleartext_ok)
		mysql_options(m, MYSQL_ENABLE_CLEARTEXT_PLUGIN, &clear);
	if (p->server_public_key_path != NULL) {
		EVP_PKEY_free(key_read(p->server_public_key_path, a->refused,
		    sizeof(a->refused)));
		mysql_options(m, MYSQL_SERVER_PUBLIC_KEY,
		    p->server_public_key_path);
	}
	if (a->refused[0] == '\0')
		auth_now = a; /* until auth_done() */
}

static void
auth_done(MYSQL *m)
{
	(void)m;
	auth_now = NULL;
}
#endif

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
	    (p->ssl_mode != TLS_DISABLED && over_tcp(p)))
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

	if (!over_tcp(p))
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

enum conn_status
conn_open(struct conn **out, const struct conn_params *p, char *err,
    size_t errlen)
{
	struct conn_auth auth;
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
	set_protocol(c->mysql, p);
	set_tls(c->mysql, p);
	set_auth(c->mysql, &auth, p);
	if (auth.refused[0] != '\0') {
		snprintf(err, errlen, "cannot connect %s: %s", c->where,
		    auth.refused);
		conn_close(c);
		return CONN_DENIED;
	}
#ifdef NONBLOCKING_CONNECTOR_C
	/* The TLS handshake runs on this stack: more than the 60 KB default. */
	size_t stack = 256 * 1024;
	mysql_options(c->mysql, MYSQL_OPT_NONBLOCK, &stack);
#endif

	bool connected = conn_io_connect(c, p) != NULL;

	if (c->mysql != NULL)
		auth_done(c->mysql);
	if (connected) {
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
		forget_password(c->mysql);
		c->timeout_s = p->read_timeout_s;
		*out = c;
		return CONN_OK;
	}
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
#ifndef MARIADB_PACKAGE_VERSION
	/* Its own refusal of mysql_clear_password, before the guard's. */
	if (auth.refused[0] == '\0' && e == CR_AUTH_PLUGIN_CANNOT_LOAD &&
	    strstr(mysql_error(c->mysql), "'mysql_clear_password'") != NULL)
		clear_refused(&auth);
#endif
	/* The password kept back, or a key file that could not serve. */
	if (auth.refused[0] != '\0') {
		if (p->ssl_mode >= TLS_REQUIRED && !auth.tls)
			snprintf(err, errlen, "cannot connect %s: the server "
			    "offers no TLS, but --ssl-mode requires it; enable "
			    "TLS on the server or lower --ssl-mode", c->where);
		else
			snprintf(err, errlen, "cannot connect %s: %s", c->where,
			    auth.refused);
		conn_close(c);
		return CONN_DENIED;
	}
#ifdef MARIADB_PACKAGE_VERSION
	if (e == CR_PLUGIN_NOT_ALLOWED) {
		refused_plugin(c, mysql_error(c->mysql), err, errlen);
		conn_close(c);
		return CONN_DENIED;
	}
#endif
	snprintf(err, errlen, "cannot connect %s: %s; %s", c->where,
	    mysql_error(c->mysql), connect_hint(e, mysql_error(c->mysql)));
	st = conn_classify(e);
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
	forget_password(c->mysql);
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
