/*
 * The certificate of the first connection over TLS, kept for the ones
 * after it (conn_pin.h). Where the peer's certificate is read differs
 * between the two libraries; the rest is theirs in common.
 */
#include "conn_pin.h"

#include <errmsg.h>
#include <openssl/crypto.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/pem.h>
#include <openssl/ssl.h>
#include <openssl/x509.h>
#include <stdio.h>
#include <string.h>

#ifdef MARIADB_PACKAGE_VERSION
#include <ma_pvio.h>
#endif

struct conn_pin *
conn_pin_of(const struct conn_params *p)
{
	if (p->pin == NULL || !conn_over_tcp(p) || p->ssl_mode >= TLS_VERIFY_CA)
		return NULL;
	return p->pin;
}

/* Into pin: the certificate's SHA-256, and SHA-1 (conn_pin_ask_library()). */
static bool
digest(X509 *cert, struct conn_pin *pin)
{
	unsigned int n = 0, n1 = 0;

	return cert != NULL &&
	    X509_digest(cert, EVP_sha256(), pin->sha256, &n) == 1 && n == 32 &&
	    X509_digest(cert, EVP_sha1(), pin->sha1, &n1) == 1 && n1 == 20;
}

#ifdef MARIADB_PACKAGE_VERSION
/*
 * Connector/C keeps OpenSSL's SSL in the TLS layer of its connection,
 * there from the handshake on, before the authentication's first answer
 * is read. The layer's struct (MARIADB_TLS, <ma_tls.h>) begins so in 3.3
 * and 3.4, but 3.4's header needs one it does not install (ma_hash.h):
 * <ma_pvio.h> is read without it, where the layer is a void pointer.
 */
struct tls_head {
	void *data;
	MARIADB_PVIO *pvio;
	void *ssl;
};

/*
 * Whether the library's TLS is this program's OpenSSL: the layer's ssl is
 * a gnutls_session_t under a GnuTLS build (older Debian and Ubuntu), and
 * an SSL of another OpenSSL under a library linked with one, and handing
 * either to SSL_get1_peer_certificate() reads at random. The library says
 * OpenSSL_version() less its date.
 */
static bool
same_openssl(void)
{
	const char *lib = NULL, *ours = OpenSSL_version(OPENSSL_VERSION);
	size_t n;

	if (mariadb_get_infov(NULL, MARIADB_TLS_LIBRARY, &lib) != 0 ||
	    lib == NULL || strncmp(lib, "OpenSSL ", 8) != 0)
		return false;
	n = strlen(lib);
	return strncmp(lib, ours, n) == 0 && (ours[n] == '\0' ||
	    ours[n] == ' ');
}

static bool
peer_digests(MYSQL *m, struct conn_pin *out)
{
	MARIADB_PVIO *pvio = m->net.pvio;
	const struct tls_head *tls;
	X509 *cert;
	bool ok;

	if (pvio == NULL || (tls = pvio->ctls) == NULL || tls->ssl == NULL ||
	    !same_openssl())
		return false;
	cert = SSL_get1_peer_certificate(tls->ssl);
	ok = digest(cert, out);
	X509_free(cert);
	return ok;
}
#define NO_PEER "the library shows no certificate, or its TLS is not " \
	"this program's OpenSSL"
#else
/*
 * Oracle's library shows the session only, as PEM, and only once it can
 * be resumed: under TLS 1.3, once the server's session ticket came, which
 * MySQL sends right after the handshake unless ssl_session_cache_mode is
 * OFF. Without it the certificate cannot be read here.
 */
static bool
peer_digests(MYSQL *m, struct conn_pin *out)
{
	unsigned int len = 0;
	void *pem = mysql_get_ssl_session_data(m, 0, &len);
	SSL_SESSION *sess = NULL;
	BIO *bio;
	bool ok = false;

	if (pem == NULL)
		return false;
	if ((bio = BIO_new_mem_buf(pem, (int)len)) != NULL)
		sess = PEM_read_bio_SSL_SESSION(bio, NULL, NULL, NULL);
	if (sess != NULL)
		ok = digest(SSL_SESSION_get0_peer(sess), out);
	SSL_SESSION_free(sess);
	BIO_free(bio);
	mysql_free_ssl_session_data(m, pem);
	ERR_clear_error();
	return ok;
}
#define NO_PEER "Oracle's library shows it only with a session ticket, " \
	"which this server does not send"
#endif

/* The first 8 bytes of a digest, in hex: enough to tell two apart. */
static void
short_hex(const unsigned char *d, char out[17])
{
	for (int i = 0; i < 8; i++)
		snprintf(out + 2 * i, 3, "%02x", d[i]);
}

#define HOW_TO_ALLOW "check the server; to go on, verify its certificate " \
	"with --ssl-ca and --ssl-mode=VERIFY_CA, or start mysqlmemprof again " \
	"to take the new one"

#define NO_TLS_NOW "the server offers no TLS now, where the first " \
	"connection had it; the password was not sent; " HOW_TO_ALLOW

bool
conn_pin_lets(MYSQL *m, const struct conn_pin *pin, char *why, size_t whylen)
{
	struct conn_pin now;
	char was[17], is[17];

	if (pin == NULL || !pin->tls)
		return true;
	if (mysql_get_ssl_cipher(m) == NULL) {
		snprintf(why, whylen, NO_TLS_NOW);
		return false;
	}
	if (!pin->known || !peer_digests(m, &now)) {
		snprintf(why, whylen, "the server's TLS certificate cannot be "
		    "compared with the first connection's (" NO_PEER "); the "
		    "password was not sent; verify the certificate with "
		    "--ssl-ca and --ssl-mode=VERIFY_CA");
		return false;
	}
	if (memcmp(now.sha256, pin->sha256, sizeof(now.sha256)) == 0)
		return true;
	short_hex(pin->sha256, was);
	short_hex(now.sha256, is);
	snprintf(why, whylen, "the server shows a TLS certificate other than "
	    "the first connection's (SHA-256 %s..., was %s...); the password "
	    "was not sent; " HOW_TO_ALLOW, is, was);
	return false;
}

void
conn_pin_keep(MYSQL *m, struct conn_pin *pin)
{
	if (pin == NULL || pin->tls || mysql_get_ssl_cipher(m) == NULL)
		return;
	pin->tls = true;
	pin->known = peer_digests(m, pin);
}

#ifdef MARIADB_PACKAGE_VERSION
/*
 * Connector/C 3.3 takes a SHA-1 fingerprint only, 3.4 a SHA-256 one and
 * no SHA-1 ("Unknown or invalid fingerprint hash size"): which one is the
 * library loaded, not the headers built with, since both are libmariadb.so.3
 * (a build on Debian 12 runs with MariaDB's own 3.4 packages). SHA-1 serves
 * here only to keep back the proof of the password, which tells no one the
 * password: what sends the password is compared by SHA-256
 * (conn_pin_lets()), and that check does not rest on this one.
 */
void
conn_pin_ask_library(MYSQL *m, const struct conn_pin *pin)
{
	const unsigned char *d;
	size_t n;
	char hex[2 * 32 + 1];

	if (pin == NULL || !pin->known)
		return;
	if (mysql_get_client_version() >= 30400) {
		d = pin->sha256;
		n = sizeof(pin->sha256);
	} else {
		d = pin->sha1;
		n = sizeof(pin->sha1);
	}
	for (size_t i = 0; i < n; i++)
		snprintf(hex + 2 * i, 3, "%02x", d[i]);
	mysql_optionsv(m, MARIADB_OPT_TLS_PEER_FP, hex);
}

/*
 * With a fingerprint to check, the library refuses a server that offers
 * no TLS as well, before anything of the authentication.
 */
bool
conn_pin_refused_by_library(MYSQL *m, const struct conn_pin *pin, char *why,
    size_t whylen)
{
	if (pin == NULL || !pin->known ||
	    mysql_errno(m) != CR_SSL_CONNECTION_ERROR)
		return false;
	if (strstr(mysql_error(m), "ingerprint") != NULL)
		snprintf(why, whylen, "the server shows a TLS certificate other "
		    "than the first connection's (the library's check: %s); "
		    "the password was not sent; " HOW_TO_ALLOW, mysql_error(m));
	else if ((m->server_capabilities & CLIENT_SSL) == 0)
		snprintf(why, whylen, NO_TLS_NOW);
	else
		return false;
	return true;
}
#endif
