/*
 * A reader for MySQL option files. It follows what the MySQL and MariaDB
 * clients accept: "[group]" headers, "key", "key = value" with optional
 * quotes and backslash escapes, comments after '#' or ';', and the
 * "!include FILE" and "!includedir DIR" directives.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
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
	struct optfile_list *out;
	char *warn;
	size_t warnlen;
	char *err;
	size_t errlen;
};

static int read_file(struct reader *rd, const char *path, int must_exist,
    int depth);

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

	if (l->n == l->cap) {
		size_t cap = l->cap ? l->cap * 2 : 16;
		struct optfile_entry *v = realloc(l->v, cap * sizeof(*v));
		if (v == NULL)
			goto oom;
		l->v = v;
		l->cap = cap;
	}
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
		free(e->value);
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
	char group[256] = "";
	char *buf = NULL;
	size_t cap = 0;
	unsigned line = 0;
	struct stat st;
	FILE *fp;
	int rc = 0;

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
	free(buf);
	fclose(fp);
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

void
optfile_list_free(struct optfile_list *l)
{
	for (size_t i = 0; i < l->n; i++) {
		free(l->v[i].key);
		free(l->v[i].value);
		free(l->v[i].group);
		free(l->v[i].origin);
	}
	free(l->v);
	memset(l, 0, sizeof(*l));
}
