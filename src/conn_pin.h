/*
 * The server's certificate kept from the first connection over TLS of a
 * run (struct conn_pin), and the check of the connections after it: a
 * recorder reconnects for months, and under --ssl-mode PREFERRED or
 * REQUIRED nothing else tells the server it first reached from whoever
 * answers later. Only conn*.c include it, and <mysql.h> with it.
 */
#ifndef MYSQLMEMPROF_CONN_PIN_H
#define MYSQLMEMPROF_CONN_PIN_H

#include <mysql.h>
#include <stdbool.h>
#include <stddef.h>

#include "conn_types.h"

/*
 * The pin a connect with p checks and keeps, or NULL where there is none
 * to keep: over the socket, or with the certificate checked (VERIFY_CA
 * and up), which proves the server on every connect.
 */
struct conn_pin *conn_pin_of(const struct conn_params *p);
/*
 * Whether the other end of m, once TLS is up, may be sent the password:
 * yes before any connection of the run had TLS, else only over TLS with
 * the certificate kept. why says what changed and how to allow it.
 */
bool conn_pin_lets(MYSQL *m, const struct conn_pin *pin, char *why,
    size_t whylen);
/* Connected: the first certificate over TLS is kept in pin. */
void conn_pin_keep(MYSQL *m, struct conn_pin *pin);
#ifdef MARIADB_PACKAGE_VERSION
/*
 * Before connecting: Connector/C checks the kept certificate itself
 * (MARIADB_OPT_TLS_PEER_FP) right after the TLS handshake, before it
 * sends anything of the authentication, even a proof of the password.
 */
void conn_pin_ask_library(MYSQL *m, const struct conn_pin *pin);
/* Whether a failed connect is that check's refusal; why says it then. */
bool conn_pin_refused_by_library(MYSQL *m, const struct conn_pin *pin,
    char *why, size_t whylen);
#endif

#endif
