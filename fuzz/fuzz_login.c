/*
 * libFuzzer harness for the reader of the login path file (optfile.h),
 * ~/.mylogin.cnf: a file anyone who could write there may have made. The
 * first byte chooses what the rest is: the file's bytes as they are (its
 * framing: the key, the lengths, the AES blocks), or lines of text that
 * the harness encrypts as mysql_config_editor does, one a line, so that
 * the parser of the lines behind the decryption is reached too. Either
 * must be read or refused with one line, and what is read must be whole.
 */
#include <openssl/evp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#include "optfile.h"

static char path[64];
static int fd = -1;

/* The 20-byte key folded into AES-128's 16, as optfile.c does. */
static const unsigned char raw_key[20] = "mysqlmemprof-fuzzkey";

static void
fold(unsigned char key[16])
{
	memset(key, 0, 16);
	for (size_t i = 0; i < sizeof(raw_key); i++)
		key[i % 16] ^= raw_key[i];
}

/* Appends len bytes to the file. */
static void
put(const void *p, size_t len)
{
	if (len > 0 && write(fd, p, len) != (ssize_t)len)
		abort();
}

/* text, cut into lines, each encrypted and framed. */
static void
write_encrypted(const uint8_t *text, size_t len)
{
	unsigned char key[16], out[4096 + 32], zero[4] = { 0 };
	EVP_CIPHER_CTX *ctx = EVP_CIPHER_CTX_new();
	size_t at = 0;

	if (ctx == NULL)
		abort();
	fold(key);
	put(zero, 4);
	put(raw_key, sizeof(raw_key));
	while (at < len) {
		const uint8_t *nl = memchr(text + at, '\n', len - at);
		size_t n = nl != NULL ? (size_t)(nl - (text + at)) + 1 : len - at;
		int o1 = 0, o2 = 0;

		if (n > 4000)
			n = 4000;
		if (!EVP_EncryptInit_ex(ctx, EVP_aes_128_ecb(), NULL, key, NULL) ||
		    !EVP_EncryptUpdate(ctx, out, &o1, text + at, (int)n) ||
		    !EVP_EncryptFinal_ex(ctx, out + o1, &o2))
			abort();
		uint32_t clen = (uint32_t)(o1 + o2);
		unsigned char le[4] = { clen & 0xff, clen >> 8 & 0xff,
		    clen >> 16 & 0xff, clen >> 24 };
		put(le, 4);
		put(out, clen);
		at += n;
	}
	EVP_CIPHER_CTX_free(ctx);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *groups[] = { "client", "mysqlmemprof", "prod", NULL };
	struct optfile_list l = { 0 };
	char warn[512] = "", err[512] = "";
	bool seen[3] = { false }, found = false;
	int rc;

	if (fd < 0) {
		snprintf(path, sizeof(path), "/tmp/fuzz-login-XXXXXX");
		if ((fd = mkstemp(path)) < 0 || fchmod(fd, 0600) != 0)
			abort();
	}
	if (ftruncate(fd, 0) != 0 || lseek(fd, 0, SEEK_SET) != 0)
		abort();
	if (size > 0 && data[0] & 1)
		write_encrypted(data + 1, size - 1);
	else if (size > 0)
		put(data + 1, size - 1);
	rc = optfile_read_login(path, groups, seen, &found, &l, warn,
	    sizeof(warn), err, sizeof(err));
	if (rc != 0 && (err[0] == '\0' || strchr(err, '\n') != NULL))
		abort(); /* refused without a word, or with more than a line */
	if (rc == 0 && err[0] != '\0')
		abort();
	for (size_t i = 0; i < l.n; i++) {
		const struct optfile_entry *e = &l.v[i];

		if (e->key == NULL || e->group == NULL || e->origin == NULL ||
		    strchr(e->key, '_') != NULL)
			abort();
		/* Only the groups asked for, and only from a file read. */
		if (!found || (strcasecmp(e->group, "client") != 0 &&
		    strcasecmp(e->group, "mysqlmemprof") != 0 &&
		    strcasecmp(e->group, "prod") != 0))
			abort();
	}
	optfile_list_free(&l);
	return 0;
}
