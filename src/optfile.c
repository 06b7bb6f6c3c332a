/*
 * A reader for MySQL option files. It follows what the MySQL and MariaDB
 * clients accept: "[group]" headers, "key", "key = value" with optional
 * quotes and backslash escapes, comments after '#' or ';', and the
 * "!include FILE" and "!includedir DIR" directives. The login path file
 * of mysql_config_editor holds the same lines, each one encrypted.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <openssl/evp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#include "optfile.h"

/* Deeper nesting than this is an include loop. */
#define MAX_INCLUDE_DEPTH 10

struct reader {
	const char *const *groups;
	bool *seen;        /* seen[i]: a header of groups[i] was read; or NULL */
	bool login;        /* the login path file: no directives */
	struct optfile_list *out;
	char *warn;
	size_t warnlen;
	char *err;
	size_t errlen;
};

static int read_file(struct reader *rd, const char *path, int must_exist,
    int depth);
static int read_lines(struct reader *rd, FILE *fp, const char *path,
    int depth);
static int grow(struct optfile_list *l);
static void free_wiped(char *s);

static void
add_warning(struct reader *rd, const char *fmt, const char *a, const char *b)
{
	size_t used;

	if (rd->warn == NULL || rd->warnlen == 0)
		return;
	used = strlen(rd->warn);
	if (used > 0 && used + 1 < rd->warnlen)
		rd->warn[used++] = '\n';
	snprintf(rd->warn + used, rd->warnlen - used, fmt, a, b);
}

static char *
trim(char *s)
{
	char *e;

	while (*s == ' ' || *s == '\t')
		s++;
	e = s + strlen(s);
	while (e > s && (e[-1] == ' ' || e[-1] == '\t' || e[-1] == '\r' ||
	    e[-1] == '\n'))
		*--e = '\0';
	return s;
}

static int
group_wanted(const struct reader *rd, const char *group)
{
	for (const char *const *g = rd->groups; *g != NULL; g++)
		if (strcasecmp(*g, group) == 0)
			return 1;
	return 0;
}

static void
note_group(struct reader *rd, const char *group)
{
	for (size_t i = 0; rd->seen != NULL && rd->groups[i] != NULL; i++)
		if (strcasecmp(rd->groups[i], group) == 0)
			rd->seen[i] = true;
}

/*
 * Decodes a value in place: strips an unquoted trailing comment, the quotes
 * around a quoted value, and the escapes \b \t \n \r \\ \s.
 */
static int
decode_value(char *v)
{
	char quote = 0, *r = v, *w = v;
	int closed = 0;

	if (*v == '\'' || *v == '"')
		quote = *r++;
	for (; *r != '\0'; r++) {
		if (quote != 0 && *r == quote) {
			closed = 1;
			break; /* what follows the closing quote is a comment */
		}
		if (quote == 0 && *r == '#')
			break;
		if (*r == '\\' && r[1] != '\0') {
			r++;
			switch (*r) {
			case 'b': *w++ = '\b'; break;
			case 't': *w++ = '\t'; break;
			case 'n': *w++ = '\n'; break;
			case 'r': *w++ = '\r'; break;
			case 's': *w++ = ' '; break;
			case '\\': *w++ = '\\'; break;
			default: *w++ = '\\'; *w++ = *r; break;
			}
			continue;
		}
		*w++ = *r;
	}
	if (quote != 0 && !closed)
		return -1;
	*w = '\0';
	if (quote == 0) {
		/* Unquoted values lose the spaces before a comment. */
		while (w > v && (w[-1] == ' ' || w[-1] == '\t'))
			*--w = '\0';
	}
	return 0;
}

static int
append(struct reader *rd, const char *key, const char *value,
    const char *group, const char *path, unsigned line)
{
	struct optfile_list *l = rd->out;
	struct optfile_entry *e;
	int n;

	if (grow(l) != 0)
		goto oom;
	e = &l->v[l->n];
	memset(e, 0, sizeof(*e));
	e->key = strdup(key);
	e->value = value != NULL ? strdup(value) : NULL;
	e->group = strdup(group);
	n = snprintf(NULL, 0, "%s:%u", path, line);
	e->origin = malloc((size_t)n + 1);
	if (e->key == NULL || (value != NULL && e->value == NULL) ||
	    e->group == NULL || e->origin == NULL) {
		free(e->key);
		free_wiped(e->value);
		free(e->group);
		free(e->origin);
		goto oom;
	}
	snprintf(e->origin, (size_t)n + 1, "%s:%u", path, line);
	for (char *p = e->key; *p != '\0'; p++)
		if (*p == '_')
			*p = '-';
	l->n++;
	return 0;
oom:
	snprintf(rd->err, rd->errlen, "out of memory reading %s", path);
	return -1;
}

static int
cnf_name(const struct dirent *d)
{
	size_t n = strlen(d->d_name);

	return n > 4 && strcmp(d->d_name + n - 4, ".cnf") == 0;
}

static int
read_dir(struct reader *rd, const char *dir, int depth)
{
	struct dirent **names;
	int n, rc = 0;

	/* A missing !includedir is not an error for the MySQL clients either. */
	if ((n = scandir(dir, &names, cnf_name, alphasort)) < 0)
		return 0;
	for (int i = 0; i < n; i++) {
		char path[4096];

		if (rc == 0) {
			snprintf(path, sizeof(path), "%s/%s", dir,
			    names[i]->d_name);
			rc = read_file(rd, path, 0, depth + 1);
		}
		free(names[i]);
	}
	free(names);
	return rc;
}

static int
parse_line(struct reader *rd, char *s, const char *path, unsigned line,
    char *group, size_t grouplen, int depth)
{
	char *eq;

	s = trim(s);
	if (*s == '\0' || *s == '#' || *s == ';')
		return 0;
	/* mysql_config_editor writes none: one in its file was put there. */
	if (*s == '!' && rd->login) {
		snprintf(rd->err, rd->errlen, "%s:%u: a directive in the login "
		    "path file; make it again with mysql_config_editor", path,
		    line);
		return -1;
	}
	if (strncmp(s, "!includedir", 11) == 0 && (s[11] == ' ' || s[11] == '\t'))
		return read_dir(rd, trim(s + 11), depth);
	if (strncmp(s, "!include", 8) == 0 && (s[8] == ' ' || s[8] == '\t'))
		return read_file(rd, trim(s + 8), 1, depth + 1);
	if (*s == '[') {
		char *end = strchr(s, ']');
		if (end == NULL) {
			snprintf(rd->err, rd->errlen, "%s:%u: '[' without ']'; "
			    "fix the group header", path, line);
			return -1;
		}
		*end = '\0';
		snprintf(group, grouplen, "%s", trim(s + 1));
		note_group(rd, group);
		return 0;
	}
	if (group[0] == '\0' || !group_wanted(rd, group))
		return 0;
	if ((eq = strchr(s, '=')) == NULL) {
		char *hash = strchr(s, '#');
		if (hash != NULL)
			*hash = '\0';
		return append(rd, trim(s), NULL, group, path, line);
	}
	*eq = '\0';
	char *value = trim(eq + 1);
	if (decode_value(value) != 0) {
		snprintf(rd->err, rd->errlen, "%s:%u: unterminated quote in "
		    "the value of '%s'; close the quote", path, line, trim(s));
		return -1;
	}
	return append(rd, trim(s), value, group, path, line);
}

/* What open_file() found. */
enum open_result {
	OPEN_OK,       /* a regular file, open */
	OPEN_EMPTY,    /* the null device: read as an empty file */
	OPEN_FAILED,   /* errno says why */
	OPEN_NOT_FILE, /* a FIFO, a directory, a device: refused */
};

/* Whether st is the null device, which --defaults-file=/dev/null means. */
static bool
is_null_device(const struct stat *st)
{
	struct stat null;

	return S_ISCHR(st->st_mode) && stat("/dev/null", &null) == 0 &&
	    S_ISCHR(null.st_mode) && st->st_rdev == null.st_rdev;
}

/*
 * Opens an option file. Only regular files are read, as the MySQL clients
 * read them: a FIFO would block the start until someone writes to it, deaf
 * to signals, and a device may never end. Its kind is checked before
 * opening, then opened without blocking, and checked again on what was
 * opened, in case it was swapped in between. The null device reads as an
 * empty file.
 */
static enum open_result
open_file(const char *path, FILE **fp, struct stat *st)
{
	int fd;

	if (stat(path, st) != 0)
		return OPEN_FAILED;
	if (is_null_device(st))
		return OPEN_EMPTY;
	if (!S_ISREG(st->st_mode))
		return OPEN_NOT_FILE;
	if ((fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC)) < 0)
		return OPEN_FAILED;
	if (fstat(fd, st) != 0 || !S_ISREG(st->st_mode)) {
		close(fd);
		return OPEN_NOT_FILE;
	}
	fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK);
	if ((*fp = fdopen(fd, "r")) == NULL) {
		int e = errno;

		close(fd);
		errno = e;
		return OPEN_FAILED;
	}
	return OPEN_OK;
}

static int
read_file(struct reader *rd, const char *path, int must_exist, int depth)
{
	struct stat st;
	FILE *fp;
	int rc;

	if (depth > MAX_INCLUDE_DEPTH) {
		snprintf(rd->err, rd->errlen, "%s: !include nested too deep "
		    "(a loop?); fix the option files", path);
		return -1;
	}
	switch (open_file(path, &fp, &st)) {
	case OPEN_OK:
		break;
	case OPEN_EMPTY:
		return 0;
	case OPEN_FAILED:
		if (!must_exist && errno == ENOENT)
			return 0;
		if (!must_exist) {
			add_warning(rd, "ignoring option file %s: %s", path,
			    strerror(errno));
			return 0;
		}
		snprintf(rd->err, rd->errlen, "cannot read option file %s: %s; "
		    "check the path", path, strerror(errno));
		return -1;
	case OPEN_NOT_FILE:
		/* A folder among the defaults or in an !includedir is no file. */
		if (!must_exist && S_ISDIR(st.st_mode))
			return 0;
		if (!must_exist) {
			add_warning(rd, "ignoring option file %s: %s", path,
			    "not a regular file");
			return 0;
		}
		snprintf(rd->err, rd->errlen, "option file %s is not a regular "
		    "file; give the path of a file", path);
		return -1;
	}
	if (st.st_mode & S_IWOTH) {
		fclose(fp);
		add_warning(rd, "world-writable option file %s is ignored%s",
		    path, "; chmod o-w it");
		return 0;
	}
	rc = read_lines(rd, fp, path, depth);
	fclose(fp);
	return rc;
}

/* The lines of an open option file, through parse_line(). */
static int
read_lines(struct reader *rd, FILE *fp, const char *path, int depth)
{
	char group[256] = "";
	char *buf = NULL;
	size_t cap = 0;
	unsigned line = 0;
	int rc = 0;
	ssize_t n;

	while (rc == 0 && (n = getline(&buf, &cap, fp)) != -1) {
		line++;
		if (strlen(buf) != (size_t)n) {
			snprintf(rd->err, rd->errlen, "%s:%u: a NUL byte; an "
			    "option file must be text", path, line);
			rc = -1;
			break;
		}
		rc = parse_line(rd, buf, path, line, group, sizeof(group),
		    depth);
	}
	if (rc == 0 && ferror(fp)) {
		snprintf(rd->err, rd->errlen, "cannot read option file %s: %s",
		    path, strerror(errno));
		rc = -1;
	}
	if (buf != NULL)
		explicit_bzero(buf, cap); /* a line may have held a password */
	free(buf);
	return rc;
}

int
optfile_read(const char *path, const char *const *groups, bool must_exist,
    struct optfile_list *out, char *warn, size_t warnlen, char *err,
    size_t errlen)
{
	struct reader rd = {
		.groups = groups, .out = out, .warn = warn, .warnlen = warnlen,
		.err = err, .errlen = errlen,
	};

	return read_file(&rd, path, must_exist, 0);
}

/*
 * The login path file, as mysql_config_editor writes it (MySQL's
 * mysys/my_default.cc reads it): 4 unused bytes, a key of 20, then each
 * line as a 4-byte little-endian length and that many bytes of
 * AES-128-ECB with PKCS padding.
 */
#define LOGIN_KEY_AT 4
#define LOGIN_KEY_LEN 20
#define LOGIN_MAX_LINE 4096       /* mysql's buffer for one line */
#define LOGIN_MAX_FILE (1 << 20)  /* far more than any list of logins */

/* The 20-byte key folded into AES-128's 16, as mysql's my_aes_create_key(). */
static void
login_key(const unsigned char *raw, unsigned char key[16])
{
	memset(key, 0, 16);
	for (size_t i = 0; i < LOGIN_KEY_LEN; i++)
		key[i % 16] ^= raw[i];
}

/*
 * The lines of data (n bytes of a login path file), decrypted into text,
 * each ending in a newline; NULL with err set when it is damaged.
 */
static char *
login_text(const unsigned char *data, size_t n, size_t *len,
    const char *path, char *err, size_t errlen)
{
	unsigned char key[16];
	size_t pos = LOGIN_KEY_AT + LOGIN_KEY_LEN, used = 0;
	unsigned line = 0;
	EVP_CIPHER_CTX *ctx = NULL;
	char *text = NULL;

	if (n < pos)
		goto damaged;
	login_key(data + LOGIN_KEY_AT, key);
	/* Room for a block of slack and a newline a line may lack. */
	if ((text = malloc(n + n / 16 + 32)) == NULL ||
	    (ctx = EVP_CIPHER_CTX_new()) == NULL) {
		snprintf(err, errlen, "out of memory reading %s", path);
		goto fail;
	}
	while (pos < n) {
		uint32_t clen;
		int out, last;

		line++;
		if (n - pos < 4)
			goto damaged;
		clen = (uint32_t)data[pos] | (uint32_t)data[pos + 1] << 8 |
		    (uint32_t)data[pos + 2] << 16 | (uint32_t)data[pos + 3] << 24;
		pos += 4;
		if (clen == 0 || clen > LOGIN_MAX_LINE || clen % 16 != 0 ||
		    clen > n - pos)
			goto damaged;
		if (!EVP_DecryptInit_ex(ctx, EVP_aes_128_ecb(), NULL, key, NULL) ||
		    !EVP_DecryptUpdate(ctx, (unsigned char *)text + used, &out,
		    data + pos, (int)clen) ||
		    !EVP_DecryptFinal_ex(ctx, (unsigned char *)text + used + out,
		    &last))
			goto damaged;
		used += (size_t)out + (size_t)last;
		pos += clen;
		if (used == 0 || text[used - 1] != '\n')
			text[used++] = '\n';
	}
	text[used] = '\0';
	*len = used;
	EVP_CIPHER_CTX_free(ctx);
	explicit_bzero(key, sizeof(key));
	return text;
damaged:
	if (line == 0)
		snprintf(err, errlen, "login path file %s is too short to be "
		    "one; make it again with mysql_config_editor", path);
	else
		snprintf(err, errlen, "login path file %s is damaged at line "
		    "%u; make it again with mysql_config_editor", path, line);
fail:
	if (text != NULL)
		explicit_bzero(text, n + n / 16 + 32);
	free(text);
	EVP_CIPHER_CTX_free(ctx);
	explicit_bzero(key, sizeof(key));
	return NULL;
}

/* The whole of an open file of at most max bytes; NULL with err set. */
static unsigned char *
slurp(FILE *fp, size_t max, size_t *n, const char *path, char *err,
    size_t errlen)
{
	unsigned char *data = malloc(max + 1);

	if (data == NULL) {
		snprintf(err, errlen, "out of memory reading %s", path);
		return NULL;
	}
	*n = fread(data, 1, max + 1, fp);
	if (ferror(fp) || *n > max) {
		snprintf(err, errlen, "cannot read login path file %s: %s", path,
		    ferror(fp) ? strerror(errno) : "too large to be one");
		explicit_bzero(data, *n < max + 1 ? *n : max + 1);
		free(data);
		return NULL;
	}
	return data;
}

int
optfile_read_login(const char *path, const char *const *groups, bool *seen,
    bool *found, struct optfile_list *out, char *warn, size_t warnlen,
    char *err, size_t errlen)
{
	struct reader rd = {
		.groups = groups, .seen = seen, .login = true, .out = out,
		.warn = warn, .warnlen = warnlen, .err = err, .errlen = errlen,
	};
	unsigned char *data;
	size_t n, len;
	struct stat st;
	char *text;
	FILE *fp;
	int rc;

	*found = false;
	switch (open_file(path, &fp, &st)) {
	case OPEN_OK:
		break;
	case OPEN_EMPTY:
		return 0;
	case OPEN_FAILED:
		if (errno != ENOENT)
			add_warning(&rd, "ignoring login path file %s: %s", path,
			    strerror(errno));
		return 0;
	case OPEN_NOT_FILE:
		add_warning(&rd, "ignoring login path file %s: %s", path,
		    "not a regular file");
		return 0;
	}
	/* As mysql: a file anyone else may read holds no secret. */
	if (st.st_mode & (S_IXUSR | S_IRWXG | S_IRWXO)) {
		fclose(fp);
		add_warning(&rd, "login path file %s is ignored: others may "
		    "read it%s", path, "; chmod 600 it");
		return 0;
	}
	data = slurp(fp, LOGIN_MAX_FILE, &n, path, err, errlen);
	fclose(fp);
	if (data == NULL)
		return -1;
	text = login_text(data, n, &len, path, err, errlen);
	explicit_bzero(data, n);
	free(data);
	if (text == NULL)
		return -1;
	*found = true;
	if ((fp = fmemopen(text, len, "r")) == NULL) {
		snprintf(err, errlen, "out of memory reading %s", path);
		rc = -1;
	} else {
		rc = read_lines(&rd, fp, path, 0);
		fclose(fp);
	}
	explicit_bzero(text, len);
	free(text);
	return rc;
}

/* Room for one more entry at the end of l. */
static int
grow(struct optfile_list *l)
{
	if (l->n == l->cap) {
		size_t cap = l->cap ? l->cap * 2 : 16;
		struct optfile_entry *v = realloc(l->v, cap * sizeof(*v));

		if (v == NULL)
			return -1;
		l->v = v;
		l->cap = cap;
	}
	return 0;
}

int
optfile_list_take(struct optfile_list *l, struct optfile_entry *e)
{
	if (grow(l) != 0)
		return -1;
	l->v[l->n++] = *e;
	memset(e, 0, sizeof(*e));
	return 0;
}

/* Frees s, wiped first: it may be a password. */
static void
free_wiped(char *s)
{
	if (s != NULL)
		explicit_bzero(s, strlen(s));
	free(s);
}

void
optfile_list_free(struct optfile_list *l)
{
	for (size_t i = 0; i < l->n; i++) {
		free(l->v[i].key);
		free_wiped(l->v[i].value);
		free(l->v[i].group);
		free(l->v[i].origin);
	}
	free(l->v);
	memset(l, 0, sizeof(*l));
}
