/*
 * The guarded authentication plugins (conn_auth.h), one file for each
 * client library: with Connector/C (conn_auth_connector.c), replacements
 * registered under the library's own names; with Oracle's libmysqlclient
 * (conn_auth_oracle.c), whose plugins are built in, guards swapped into
 * its own plugins' entries that call them when the rules allow. Here,
 * what the two share.
 */
#include "conn_auth.h"

#include <errno.h>
#include <openssl/err.h>
#include <openssl/pem.h>
#include <stdio.h>
#include <string.h>

/*
 * Wipes the library's copy of the password (MYSQL's passwd, in both
 * libraries), which it would free as it is. Nothing here authenticates
 * twice on a handle (no change of user, no reconnect by the library), so
 * once connected it is not needed.
 */
void
conn_auth_forget_password(MYSQL *m)
{
	if (m != NULL && m->passwd != NULL)
		explicit_bzero(m->passwd, strlen(m->passwd));
}

/*
 * The public key in the PEM file path (--server-public-key-path), or NULL
 * with why saying what is wrong, before the library is given it: Oracle's
 * would print a warning of its own and go on.
 */
EVP_PKEY *
conn_auth_key_read(const char *path, char *why, size_t whylen)
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

/* The two libraries name the struct of vio->info() apart. */
#ifdef MARIADB_PACKAGE_VERSION
typedef MYSQL_PLUGIN_VIO_INFO vio_info;
#else
typedef struct MYSQL_PLUGIN_VIO_INFO vio_info;
#endif

bool
conn_auth_over_socket(MYSQL_PLUGIN_VIO *vio)
{
	vio_info info;

	vio->info(vio, &info);
	return info.protocol == MYSQL_VIO_SOCKET;
}

bool
conn_auth_transport_secure(MYSQL_PLUGIN_VIO *vio, MYSQL *m)
{
	return mysql_get_ssl_cipher(m) != NULL || conn_auth_over_socket(vio);
}
