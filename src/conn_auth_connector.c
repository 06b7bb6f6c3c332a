/*
 * The guarded authentication plugins with MariaDB Connector/C
 * (conn_auth.h): replacements registered under the library's own names.
 * The build against Oracle's library compiles conn_auth_oracle.c instead.
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

	conn_auth_forget_password(m);
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

/*
 * Whether the server may be sent the password, or anything it could be
 * read from: on a reconnect, only the server of the first connection's
 * certificate (conn_pin.h). TLS is up here: the first packet written
 * started it.
 */
static bool
pin_lets(MYSQL *m)
{
	struct conn_auth *a = auth_of(m);
	char why[sizeof(a->refused)];

	if (a == NULL || a->spent || conn_pin_lets(m, a->pin, why, sizeof(why)))
		return true;
	a->untrusted = true;
	refuse(m, a, "%s", why);
	return false;
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
	EVP_PKEY *key = conn_auth_key_read(a->key_path, why, sizeof(why));

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
 * The scramble and a NUL, from the greeting or a switch of plugin, into
 * scramble; false with *rc the plugin's answer when it cannot be had.
 */
static bool
read_scramble(MYSQL_PLUGIN_VIO *vio, unsigned char *scramble, int *rc)
{
	unsigned char *pkt;
	int n = vio->read_packet(vio, &pkt);

	if (n < 0 || n != SCRAMBLE_LENGTH + 1) {
		*rc = n < 0 ? CR_ERROR : CR_SERVER_HANDSHAKE_ERR;
		return false;
	}
	memcpy(scramble, pkt, SCRAMBLE_LENGTH);
	return true;
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
		/* A key of whoever answers: only the server of the pin's. */
		if (key == NULL || !pin_lets(m)) {
			EVP_PKEY_free(key);
			return CR_ERROR;
		}
	} else {
		refuse(m, a, CONN_AUTH_NOT_ENCRYPTED, plugin);
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

	if (!read_scramble(vio, scramble, &n))
		return n;
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
	if (!pin_lets(m))
		return CR_ERROR;
	if (conn_auth_transport_secure(vio, m))
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
	unsigned char scramble[SCRAMBLE_LENGTH];
	int n;

	if (!read_scramble(vio, scramble, &n))
		return n;
	if (*pw == '\0')
		return vio->write_packet(vio, NULL, 0) == 0 ? CR_OK : CR_ERROR;
	/*
	 * TLS up here means a switch of plugin after the first packet. As
	 * the server's first plugin, TLS starts with the first packet, and
	 * only a key the user gave, which no one else reads, goes in it.
	 */
	if (conn_auth_transport_secure(vio, m))
		return pin_lets(m) ? send_plain(vio, pw) : CR_ERROR;
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

	if (a == NULL || !a->cleartext) {
		refuse(m, a, CONN_AUTH_CLEARTEXT_OFF, plugin);
		return false;
	}
	if (conn_auth_over_socket(vio) ||
	    (a->tls_verified && mysql_get_ssl_cipher(m) != NULL))
		return true;
	refuse(m, a, CONN_AUTH_CLEARTEXT_WHERE, plugin);
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

void
conn_auth_set(MYSQL *m, struct conn_auth *a, const struct conn_params *p)
{
	static pthread_once_t once = PTHREAD_ONCE_INIT;

	pthread_once(&once, register_guards);
	*a = (struct conn_auth){ .key_path = p->server_public_key_path,
	    .get_key = p->get_server_public_key,
	    .cleartext = p->enable_cleartext_plugin,
	    .tls_verified = p->ssl_mode >= TLS_VERIFY_CA,
	    .pin = conn_pin_of(p) };
	if (guards_failed[0] != '\0') {
		snprintf(a->refused, sizeof(a->refused), "%s", guards_failed);
		return;
	}
	mysql_optionsv(m, MARIADB_OPT_USERDATA, (void *)AUTH_KEY, (void *)a);
#if MARIADB_PACKAGE_VERSION_ID >= 30300
	mysql_optionsv(m, MARIADB_OPT_RESTRICTED_AUTH, AUTH_ALLOWED);
#endif
}

/* Its refusals (MARIADB_OPT_RESTRICTED_AUTH) are conn.c's to word. */
void
conn_auth_failed(MYSQL *m, struct conn_auth *a)
{
	(void)m;
	(void)a;
}

void
conn_auth_done(MYSQL *m)
{
	mysql_optionsv(m, MARIADB_OPT_USERDATA, (void *)AUTH_KEY,
	    (void *)&auth_spent);
}
#endif
