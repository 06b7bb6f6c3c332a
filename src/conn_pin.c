/*
 * The certificate of the first connection over TLS, kept for the ones
 * after it (conn_pin.h). Where the peer's certificate is read differs
 * between the two libraries; the rest is theirs in common.
 */
#include "conn_pin.h"

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

static bool
digest(X509 *cert, unsigned char sha256[32])
{
	unsigned int n = 0;

	return cert != NULL && X509_digest(cert, EVP_sha256(), sha256, &n) == 1 &&
	    n == 32;
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

static bool
peer_sha256(MYSQL *m, unsigned char sha256[32])
{
	MARIADB_PVIO *pvio = m->net.pvio;
	const struct tls_head *tls;
	X509 *cert;
	bool ok;

	if (pvio == NULL || (tls = pvio->ctls) == NULL || tls->ssl == NULL)
		return false;
	cert = SSL_get1_peer_certificate(tls->ssl);
	ok = digest(cert, sha256);
	X509_free(cert);
	return ok;
}
#define NO_PEER "the library shows no certificate"
#else
/*
 * Oracle's library shows the session only, as PEM, and only once it can
 * be resumed: under TLS 1.3, once the server's session ticket came, which
 * MySQL sends right after the handshake unless ssl_session_cache_mode is
 * OFF. Without it the certificate cannot be read here.
 */
static bool
peer_sha256(MYSQL *m, unsigned char sha256[32])
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
		ok = digest(SSL_SESSION_get0_peer(sess), sha256);
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

bool
conn_pin_lets(MYSQL *m, const struct conn_pin *pin, char *why, size_t whylen)
{
	unsigned char now[32];
	char was[17], is[17];

	if (pin == NULL || !pin->tls)
		return true;
	if (mysql_get_ssl_cipher(m) == NULL) {
		snprintf(why, whylen, "the server offers no TLS now, where the "
		    "first connection had it; the password was not sent; "
		    HOW_TO_ALLOW);
		return false;
	}
	if (!pin->known || !peer_sha256(m, now)) {
		snprintf(why, whylen, "the server's TLS certificate cannot be "
		    "compared with the first connection's (" NO_PEER "); the "
		    "password was not sent; verify the certificate with "
		    "--ssl-ca and --ssl-mode=VERIFY_CA");
		return false;
	}
	if (memcmp(now, pin->sha256, sizeof(now)) == 0)
		return true;
	short_hex(pin->sha256, was);
	short_hex(now, is);
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
	pin->known = peer_sha256(m, pin->sha256);
}
