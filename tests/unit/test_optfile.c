/*
 * Option files as the reader gives them to cli.c: which groups are read,
 * keys and values with their comments, quotes and escapes taken off, line
 * ends of either kind, !include and !includedir, include loops, and the
 * files it skips or refuses; and the login path file of
 * mysql_config_editor. Every test works in a folder of its own, made with
 * mkdtemp() and removed afterwards.
 */
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <setjmp.h>
#include <cmocka.h>
#include <openssl/evp.h>

#include "optfile.h"

static const char *const groups[] = { "client", "mysqlmemprof", NULL };

/* The test's own folder. */
struct dir {
	char path[64];
};

/* The path of name in the test's folder; valid for the next 3 calls. */
static const char *
at(const struct dir *d, const char *name)
{
	static char buf[4][512];
	static size_t next;
	char *p = buf[next++ % 4];

	snprintf(p, sizeof(buf[0]), "%s/%s", d->path, name);
	return p;
}

/* Writes len bytes of text to name, with exactly that mode. */
static void
write_bytes(struct dir *d, const char *name, const char *text, size_t len,
    mode_t mode)
{
	const char *path = at(d, name);
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600);

	assert_true(fd >= 0);
	assert_int_equal(write(fd, text, len), (ssize_t)len);
	assert_int_equal(fchmod(fd, mode), 0);
	assert_int_equal(close(fd), 0);
}

static void
write_file(struct dir *d, const char *name, const char *text)
{
	write_bytes(d, name, text, strlen(text), 0644);
}

/* A string literal that may hold a NUL byte, with that mode. */
#define WRITE_LITERAL(d, name, lit, mode) \
	write_bytes((d), (name), (lit), sizeof(lit) - 1, (mode))

/* A file that holds "!include PATH" for the file named target. */
static void
write_include(struct dir *d, const char *name, const char *before,
    const char *directive, const char *target, const char *after)
{
	char text[1024];

	snprintf(text, sizeof(text), "%s!%s %s\n%s", before, directive,
	    at(d, target), after);
	write_file(d, name, text);
}

struct read {
	struct optfile_list list;
	int rc;
	char warn[1024];
	char err[1024];
};

static void
read_path(struct read *r, const char *path, bool must_exist)
{
	r->warn[0] = r->err[0] = '\0';
	r->rc = optfile_read(path, groups, must_exist, &r->list, r->warn,
	    sizeof(r->warn), r->err, sizeof(r->err));
}

/* Reads name of the folder into a fresh list, as --defaults-file does. */
static void
read_ok(struct dir *d, struct read *r, const char *name)
{
	memset(&r->list, 0, sizeof(r->list));
	read_path(r, at(d, name), true);
	if (r->rc != 0)
		fail_msg("%s: %s", name, r->err);
	assert_string_equal(r->err, "");
}

static void
read_fails(struct dir *d, struct read *r, const char *name)
{
	memset(&r->list, 0, sizeof(r->list));
	read_path(r, at(d, name), true);
	assert_int_equal(r->rc, -1);
	assert_string_not_equal(r->err, "");
}

/*
 * Entry i is key = value (NULL: a key without '='), from group, read at
 * line of the file named file.
 */
static void
entry_is(struct dir *d, const struct read *r, size_t i, const char *key,
    const char *value, const char *group, const char *file, unsigned line)
{
	const struct optfile_entry *e;
	char origin[600];

	if (i >= r->list.n)
		fail_msg("entry %zu of %zu: want %s", i, r->list.n, key);
	e = &r->list.v[i];
	assert_string_equal(e->key, key);
	if (value == NULL)
		assert_null(e->value);
	else {
		assert_non_null(e->value);
		assert_string_equal(e->value, value);
	}
	assert_string_equal(e->group, group);
	snprintf(origin, sizeof(origin), "%s:%u", at(d, file), line);
	assert_string_equal(e->origin, origin);
}

static void
contains(const char *s, const char *want)
{
	if (strstr(s, want) == NULL)
		fail_msg("\"%s\" does not hold \"%s\"", s, want);
}

static int
setup(void **state)
{
	struct dir *d = calloc(1, sizeof(*d));

	if (d == NULL)
		return -1;
	snprintf(d->path, sizeof(d->path), "/tmp/mmp-test-optfile-XXXXXX");
	if (mkdtemp(d->path) == NULL) {
		free(d);
		return -1;
	}
	*state = d;
	return 0;
}

static int
remove_one(const char *path, const struct stat *st, int flag, struct FTW *f)
{
	(void)st;
	(void)flag;
	(void)f;
	return remove(path);
}

static int
teardown(void **state)
{
	struct dir *d = *state;
	int rc = nftw(d->path, remove_one, 16, FTW_DEPTH | FTW_PHYS);

	free(d);
	return rc;
}

/*
 * [client] and [mysqlmemprof] are read, in any case and with spaces inside
 * the brackets; other groups and lines before the first group are not.
 */
static void
test_groups(void **state)
{
	struct dir *d = *state;
	struct read r;

	write_file(d, "my.cnf",
	    "user = nobody-before-a-group\n"       /* 1 */
	    "[client]\n"                           /* 2 */
	    "user = a\n"                           /* 3 */
	    "[mysqld]\n"                           /* 4 */
	    "user = mysql\n"                       /* 5 */
	    "[mysqlmemprof-extra]\n"               /* 6 */
	    "top = 1\n"                            /* 7 */
	    "[ MySQLMemProf ]\n"                   /* 8 */
	    "top = 7\n"                            /* 9 */
	    "[mysql]\n"                            /* 10 */
	    "pager = less\n"                       /* 11 */
	    "[CLIENT]\n"                           /* 12 */
	    "port = 3307\n");                      /* 13 */
	read_ok(d, &r, "my.cnf");
	assert_int_equal(r.list.n, 3);
	entry_is(d, &r, 0, "user", "a", "client", "my.cnf", 3);
	entry_is(d, &r, 1, "top", "7", "MySQLMemProf", "my.cnf", 9);
	entry_is(d, &r, 2, "port", "3307", "CLIENT", "my.cnf", 13);
	assert_string_equal(r.warn, "");
	optfile_list_free(&r.list);
	assert_null(r.list.v);
	assert_int_equal(r.list.n, 0);
}

/*
 * Keys with and without values, '_' read as '-' in keys only, white space
 * around both, comments on lines of their own and after a value.
 */
static void
test_keys_values_and_comments(void **state)
{
	struct dir *d = *state;
	struct read r;

	write_file(d, "my.cnf",
	    "# a comment\n"                         /* 1 */
	    "; another\n"                           /* 2 */
	    "\n"                                    /* 3 */
	    "[client]\n"                            /* 4 */
	    "   # indented comment\n"               /* 5 */
	    "\t; and another\n"                     /* 6 */
	    "compress\n"                            /* 7 */
	    "  ssl_verify_server_cert  \t\n"        /* 8 */
	    "quiet # no value, a comment\n"         /* 9 */
	    "\t host\t=\t db_1.example  \n"         /* 10 */
	    "user=\n"                               /* 11 */
	    "socket = /run/a b.sock   # the socket\n" /* 12 */
	    "init = a = b ; c\n"                    /* 13 */
	    "password=x#y\n");                      /* 14 */
	read_ok(d, &r, "my.cnf");
	assert_int_equal(r.list.n, 8);
	entry_is(d, &r, 0, "compress", NULL, "client", "my.cnf", 7);
	entry_is(d, &r, 1, "ssl-verify-server-cert", NULL, "client", "my.cnf",
	    8);
	entry_is(d, &r, 2, "quiet", NULL, "client", "my.cnf", 9);
	entry_is(d, &r, 3, "host", "db_1.example", "client", "my.cnf", 10);
	entry_is(d, &r, 4, "user", "", "client", "my.cnf", 11);
	entry_is(d, &r, 5, "socket", "/run/a b.sock", "client", "my.cnf", 12);
	entry_is(d, &r, 6, "init", "a = b ; c", "client", "my.cnf", 13);
	entry_is(d, &r, 7, "password", "x", "client", "my.cnf", 14);
	optfile_list_free(&r.list);
}

/*
 * "loose-" is cli.c's to strip: the reader keeps it, and spelled with '_'
 * it comes out with '-' like any key, so both spellings reach cli.c alike.
 */
static void
test_loose_prefix(void **state)
{
	struct dir *d = *state;
	struct read r;

	write_file(d, "my.cnf", "[mysqlmemprof]\n"
	    "loose-some-option = 1\n"
	    "loose_other_option\n"
	    "loose-top = 5\n");
	read_ok(d, &r, "my.cnf");
	assert_int_equal(r.list.n, 3);
	entry_is(d, &r, 0, "loose-some-option", "1", "mysqlmemprof", "my.cnf",
	    2);
	entry_is(d, &r, 1, "loose-other-option", NULL, "mysqlmemprof",
	    "my.cnf", 3);
	entry_is(d, &r, 2, "loose-top", "5", "mysqlmemprof", "my.cnf", 4);
	optfile_list_free(&r.list);
}

/*
 * Quotes: taken off, '#' and spaces kept inside them, what follows the
 * closing quote ignored. Escapes \b \t \n \r \s \\ are decoded, quoted or
 * not; any other keeps its backslash.
 */
static void
test_quotes_and_escapes(void **state)
{
	struct dir *d = *state;
	struct read r;

	write_file(d, "my.cnf", "[client]\n"
	    "a = \"p#w d\"\n"                    /* 2 */
	    "b = 'it''s' # a comment\n"           /* 3 */
	    "c = \"  padded  \"\n"                /* 4 */
	    "d = \"\"\n"                          /* 5 */
	    "e = \"x\\ty\\nz\\r\\b\\s\\\\\"\n"    /* 6 */
	    "f = x\\sy\\\\z\n"                    /* 7 */
	    "g = C:\\dir\\q\n"                    /* 8 */
	    "h = 'a\"b'\n"                        /* 9 */
	    "i = \"end\\\\\"\n"                   /* 10 */
	    "j = trailing\\\n");                  /* 11 */
	read_ok(d, &r, "my.cnf");
	assert_int_equal(r.list.n, 10);
	entry_is(d, &r, 0, "a", "p#w d", "client", "my.cnf", 2);
	entry_is(d, &r, 1, "b", "it", "client", "my.cnf", 3);
	entry_is(d, &r, 2, "c", "  padded  ", "client", "my.cnf", 4);
	entry_is(d, &r, 3, "d", "", "client", "my.cnf", 5);
	entry_is(d, &r, 4, "e", "x\ty\nz\r\b \\", "client", "my.cnf", 6);
	entry_is(d, &r, 5, "f", "x y\\z", "client", "my.cnf", 7);
	entry_is(d, &r, 6, "g", "C:\\dir\\q", "client", "my.cnf", 8);
	entry_is(d, &r, 7, "h", "a\"b", "client", "my.cnf", 9);
	entry_is(d, &r, 8, "i", "end\\", "client", "my.cnf", 10);
	entry_is(d, &r, 9, "j", "trailing\\", "client", "my.cnf", 11);
	optfile_list_free(&r.list);
}

/* An unclosed quote is an error naming the file, the line and the key. */
static void
test_unterminated_quote(void **state)
{
	struct dir *d = *state;
	char want[600];
	struct read r;

	write_file(d, "my.cnf", "[client]\nuser = ok\npassword = \"open\n");
	read_fails(d, &r, "my.cnf");
	snprintf(want, sizeof(want), "%s:3: unterminated quote in the value "
	    "of 'password'", at(d, "my.cnf"));
	contains(r.err, want);
	optfile_list_free(&r.list);

	/* A quote escaped away does not close it either. */
	write_file(d, "my.cnf", "[client]\npassword = 'open\\'\n");
	read_fails(d, &r, "my.cnf");
	contains(r.err, "my.cnf:2: unterminated quote");
	optfile_list_free(&r.list);
}

/* The same file with CRLF line ends reads the same, to the byte. */
static void
test_crlf(void **state)
{
	struct dir *d = *state;
	static const char *const lines[] = {
		"# written on Windows",
		"[client]",
		"user = a",
		"compress",
		"password = \"p w\"",
		"host = h # comment",
		"!include INC",
		"[mysqlmemprof]",
		"top=3",
	};
	char lf[512] = "", crlf[512] = "";
	struct read r;

	write_file(d, "inc.cnf", "[client]\r\nport = 3307\r\n");
	for (size_t i = 0; i < sizeof(lines) / sizeof(lines[0]); i++) {
		const char *l = strcmp(lines[i], "!include INC") == 0 ?
		    NULL : lines[i];
		char inc[600];

		if (l == NULL) {
			snprintf(inc, sizeof(inc), "!include %s",
			    at(d, "inc.cnf"));
			l = inc;
		}
		strcat(lf, l);
		strcat(lf, "\n");
		strcat(crlf, l);
		strcat(crlf, "\r\n");
	}
	write_file(d, "lf.cnf", lf);
	write_file(d, "crlf.cnf", crlf);
	for (int k = 0; k < 2; k++) {
		const char *name = k == 0 ? "lf.cnf" : "crlf.cnf";

		read_ok(d, &r, name);
		assert_int_equal(r.list.n, 6);
		entry_is(d, &r, 0, "user", "a", "client", name, 3);
		entry_is(d, &r, 1, "compress", NULL, "client", name, 4);
		entry_is(d, &r, 2, "password", "p w", "client", name, 5);
		entry_is(d, &r, 3, "host", "h", "client", name, 6);
		entry_is(d, &r, 4, "port", "3307", "client", "inc.cnf", 2);
		entry_is(d, &r, 5, "top", "3", "mysqlmemprof", name, 9);
		optfile_list_free(&r.list);
	}
}

/* The last line counts without its line end, whatever it holds. */
static void
test_no_final_newline(void **state)
{
	struct dir *d = *state;
	struct read r;

	write_file(d, "a.cnf", "[client]\nuser = a\nport = 3307");
	read_ok(d, &r, "a.cnf");
	assert_int_equal(r.list.n, 2);
	entry_is(d, &r, 1, "port", "3307", "client", "a.cnf", 3);
	optfile_list_free(&r.list);

	write_file(d, "b.cnf", "[client]\r\npassword = 'x y'");
	read_ok(d, &r, "b.cnf");
	assert_int_equal(r.list.n, 1);
	entry_is(d, &r, 0, "password", "x y", "client", "b.cnf", 2);
	optfile_list_free(&r.list);

	write_file(d, "c.cnf", "[client]\ncompress");
	read_ok(d, &r, "c.cnf");
	assert_int_equal(r.list.n, 1);
	entry_is(d, &r, 0, "compress", NULL, "client", "c.cnf", 2);
	optfile_list_free(&r.list);

	/* The file ends with the path of the include. */
	{
		char text[600];

		snprintf(text, sizeof(text), "!include %s", at(d, "a.cnf"));
		write_file(d, "d.cnf", text);
	}
	read_ok(d, &r, "d.cnf");
	assert_int_equal(r.list.n, 2);
	entry_is(d, &r, 0, "user", "a", "client", "a.cnf", 2);
	optfile_list_free(&r.list);
}

/*
 * !include reads the file where the directive stands, in any group: its
 * groups are its own, and the including file goes on in the group it was
 * in. A file that is not there is an error.
 */
static void
test_include(void **state)
{
	struct dir *d = *state;
	struct read r;

	write_file(d, "inc.cnf", "user = no-group-yet\n"
	    "[mysqld]\nport = 1\n[mysqlmemprof]\ntop = 2\n");
	write_include(d, "main.cnf", "[client]\nuser = before\n[mysqld]\n",
	    "include", "inc.cnf", "port = 5\n[client]\nuser = after\n");
	/* Same, but the directive in a group that is read. */
	write_include(d, "in-client.cnf", "[client]\n", "include", "inc.cnf",
	    "host = h\n");
	read_ok(d, &r, "main.cnf");
	assert_int_equal(r.list.n, 3);
	entry_is(d, &r, 0, "user", "before", "client", "main.cnf", 2);
	entry_is(d, &r, 1, "top", "2", "mysqlmemprof", "inc.cnf", 5);
	entry_is(d, &r, 2, "user", "after", "client", "main.cnf", 7);
	optfile_list_free(&r.list);

	read_ok(d, &r, "in-client.cnf");
	assert_int_equal(r.list.n, 2);
	entry_is(d, &r, 0, "top", "2", "mysqlmemprof", "inc.cnf", 5);
	entry_is(d, &r, 1, "host", "h", "client", "in-client.cnf", 3);
	optfile_list_free(&r.list);

	/* Tabs and spaces around the path do too. */
	{
		char text[700];

		snprintf(text, sizeof(text), "[client]\n!include\t  %s \t\n",
		    at(d, "inc.cnf"));
		write_file(d, "tab.cnf", text);
	}
	read_ok(d, &r, "tab.cnf");
	assert_int_equal(r.list.n, 1);
	entry_is(d, &r, 0, "top", "2", "mysqlmemprof", "inc.cnf", 5);
	optfile_list_free(&r.list);

	write_include(d, "missing.cnf", "[client]\n", "include", "nowhere.cnf",
	    "");
	read_fails(d, &r, "missing.cnf");
	contains(r.err, "cannot read option file ");
	contains(r.err, "nowhere.cnf: No such file or directory");
	optfile_list_free(&r.list);
}

/*
 * !includedir reads the files of the folder whose names end in ".cnf",
 * and only those, in byte order of their names; a folder that is not
 * there is no error.
 */
static void
test_includedir(void **state)
{
	struct dir *d = *state;
	struct read r;

	assert_int_equal(mkdir(at(d, "conf.d"), 0755), 0);
	assert_int_equal(mkdir(at(d, "conf.d/sub.cnf"), 0755), 0);
	write_file(d, "conf.d/b.cnf", "[client]\nuser = b\n");
	write_file(d, "conf.d/a.cnf", "[client]\nuser = a\n");
	write_file(d, "conf.d/2.cnf", "[client]\nuser = 2\n");
	write_file(d, "conf.d/10.cnf", "[client]\nuser = 10\n");
	write_file(d, "conf.d/Z.cnf", "[client]\nuser = Z\n");
	write_file(d, "conf.d/c.txt", "[client]\nuser = txt\n");
	write_file(d, "conf.d/d.cnf.bak", "[client]\nuser = bak\n");
	write_file(d, "conf.d/e.CNF", "[client]\nuser = upper\n");
	write_file(d, "conf.d/.cnf", "[client]\nuser = dot\n");
	write_file(d, "conf.d/fcnf", "[client]\nuser = nodot\n");
	write_include(d, "main.cnf", "[client]\nuser = first\n", "includedir",
	    "conf.d", "user = last\n");
	read_ok(d, &r, "main.cnf");
	assert_int_equal(r.list.n, 7);
	entry_is(d, &r, 0, "user", "first", "client", "main.cnf", 2);
	entry_is(d, &r, 1, "user", "10", "client", "conf.d/10.cnf", 2);
	entry_is(d, &r, 2, "user", "2", "client", "conf.d/2.cnf", 2);
	entry_is(d, &r, 3, "user", "Z", "client", "conf.d/Z.cnf", 2);
	entry_is(d, &r, 4, "user", "a", "client", "conf.d/a.cnf", 2);
	entry_is(d, &r, 5, "user", "b", "client", "conf.d/b.cnf", 2);
	entry_is(d, &r, 6, "user", "last", "client", "main.cnf", 4);
	assert_string_equal(r.warn, "");
	optfile_list_free(&r.list);

	write_include(d, "gone.cnf", "[client]\n", "includedir", "no-such.d",
	    "user = still\n");
	read_ok(d, &r, "gone.cnf");
	assert_int_equal(r.list.n, 1);
	entry_is(d, &r, 0, "user", "still", "client", "gone.cnf", 3);
	optfile_list_free(&r.list);
}

/*
 * A world-writable file in the folder is skipped with a warning, as the
 * mysql clients do, and the others are read; each warning is a line.
 */
static void
test_includedir_world_writable(void **state)
{
	struct dir *d = *state;
	struct read r;

	assert_int_equal(mkdir(at(d, "conf.d"), 0755), 0);
	WRITE_LITERAL(d, "conf.d/a.cnf", "[client]\nuser = evil\n", 0666);
	write_file(d, "conf.d/b.cnf", "[client]\nuser = b\n");
	WRITE_LITERAL(d, "conf.d/c.cnf", "[client]\nuser = evil\n", 0602);
	write_include(d, "main.cnf", "", "includedir", "conf.d", "");
	read_ok(d, &r, "main.cnf");
	assert_int_equal(r.list.n, 1);
	entry_is(d, &r, 0, "user", "b", "client", "conf.d/b.cnf", 2);
	contains(r.warn, "world-writable option file ");
	contains(r.warn, "conf.d/a.cnf is ignored; chmod o-w it\n");
	contains(r.warn, "conf.d/c.cnf is ignored; chmod o-w it");
	assert_null(strchr(strchr(r.warn, '\n') + 1, '\n'));
	optfile_list_free(&r.list);
}

/*
 * A loop of includes ends in an error that names it, whether a file
 * includes itself, two include each other or a folder includes itself;
 * what was read before stays in the list, for the caller to free.
 */
static void
test_include_loops(void **state)
{
	struct dir *d = *state;
	struct read r;

	write_include(d, "self.cnf", "[client]\nuser = a\n", "include",
	    "self.cnf", "");
	read_fails(d, &r, "self.cnf");
	contains(r.err, "self.cnf: !include nested too deep (a loop?); fix "
	    "the option files");
	assert_true(r.list.n >= 1);
	entry_is(d, &r, 0, "user", "a", "client", "self.cnf", 2);
	optfile_list_free(&r.list);

	write_include(d, "ping.cnf", "", "include", "pong.cnf", "");
	write_include(d, "pong.cnf", "", "include", "ping.cnf", "");
	read_fails(d, &r, "ping.cnf");
	contains(r.err, "nested too deep (a loop?)");
	optfile_list_free(&r.list);

	assert_int_equal(mkdir(at(d, "loop.d"), 0755), 0);
	write_include(d, "loop.d/x.cnf", "", "includedir", "loop.d", "");
	write_include(d, "dir.cnf", "", "includedir", "loop.d", "");
	read_fails(d, &r, "dir.cnf");
	contains(r.err, "nested too deep (a loop?)");
	optfile_list_free(&r.list);
}

/*
 * Ten files deep is allowed, eleven is a loop: a chain of includes from
 * f0.cnf to fN.cnf, each file with one entry.
 */
static void
test_include_depth(void **state)
{
	struct dir *d = *state;
	struct read r;
	char name[32], next[32];

	for (int depth = 10; depth <= 11; depth++) {
		snprintf(name, sizeof(name), "f%d.cnf", depth);
		write_file(d, name, "[client]\nuser = deepest\n");
		for (int i = depth - 1; i >= 0; i--) {
			snprintf(name, sizeof(name), "f%d.cnf", i);
			snprintf(next, sizeof(next), "f%d.cnf", i + 1);
			write_include(d, name, "[client]\nport = 1\n", "include",
			    next, "");
		}
		if (depth == 10) {
			read_ok(d, &r, "f0.cnf");
			assert_int_equal(r.list.n, 11);
			entry_is(d, &r, 10, "user", "deepest", "client",
			    "f10.cnf", 2);
		} else {
			read_fails(d, &r, "f0.cnf");
			contains(r.err, "f11.cnf: !include nested too deep");
			assert_int_equal(r.list.n, 11);
		}
		optfile_list_free(&r.list);
	}
}

/*
 * A missing file is skipped unless it must exist; a folder is no file; a
 * world-writable file is skipped with a warning even when named; a NUL
 * byte and a '[' without ']' are errors naming the line.
 */
static void
test_files_skipped_or_refused(void **state)
{
	struct dir *d = *state;
	struct read r;

	memset(&r.list, 0, sizeof(r.list));
	read_path(&r, at(d, "none.cnf"), false);
	assert_int_equal(r.rc, 0);
	assert_int_equal(r.list.n, 0);
	assert_string_equal(r.warn, "");
	read_fails(d, &r, "none.cnf");
	contains(r.err, "cannot read option file ");
	contains(r.err, "none.cnf: No such file or directory; check the path");

	assert_int_equal(mkdir(at(d, "folder"), 0755), 0);
	read_path(&r, at(d, "folder"), false);
	assert_int_equal(r.rc, 0);
	read_fails(d, &r, "folder");
	contains(r.err, "folder is not a regular file");

	WRITE_LITERAL(d, "open.cnf", "[client]\nuser = evil\n", 0646);
	read_ok(d, &r, "open.cnf");
	assert_int_equal(r.list.n, 0);
	contains(r.warn, "world-writable option file ");
	contains(r.warn, "open.cnf is ignored");
	/* Without room for warnings, still skipped. */
	memset(&r.list, 0, sizeof(r.list));
	assert_int_equal(optfile_read(at(d, "open.cnf"), groups, true,
	    &r.list, NULL, 0, r.err, sizeof(r.err)), 0);
	assert_int_equal(r.list.n, 0);

	WRITE_LITERAL(d, "nul.cnf", "[client]\nuser = a\nuser = b\0c\n", 0644);
	read_fails(d, &r, "nul.cnf");
	contains(r.err, "nul.cnf:3: a NUL byte");
	optfile_list_free(&r.list);

	write_file(d, "bracket.cnf", "[client]\nuser = a\n[client\nuser = b\n");
	read_fails(d, &r, "bracket.cnf");
	contains(r.err, "bracket.cnf:3: '[' without ']'");
	optfile_list_free(&r.list);
}

/* Each read appends to the list: files read in turn keep their order. */
static void
test_reads_append(void **state)
{
	struct dir *d = *state;
	struct read r;

	write_file(d, "a.cnf", "[client]\nuser = a\n");
	write_file(d, "b.cnf", "[client]\nuser = b\nport = 2\n");
	read_ok(d, &r, "a.cnf");
	read_path(&r, at(d, "b.cnf"), false);
	assert_int_equal(r.rc, 0);
	read_path(&r, at(d, "a.cnf"), false);
	assert_int_equal(r.rc, 0);
	assert_int_equal(r.list.n, 4);
	entry_is(d, &r, 0, "user", "a", "client", "a.cnf", 2);
	entry_is(d, &r, 1, "user", "b", "client", "b.cnf", 2);
	entry_is(d, &r, 2, "port", "2", "client", "b.cnf", 3);
	entry_is(d, &r, 3, "user", "a", "client", "a.cnf", 2);
	optfile_list_free(&r.list);
	optfile_list_free(&r.list);
}

/*
 * Only regular files are read: a FIFO is refused at once, never opened to
 * wait for a writer, whether named (--defaults-file), included or found
 * where the defaults are looked for (~/.my.cnf: a warning). The null
 * device is an empty file. alarm() turns a blocking open into a failure.
 */
static void
test_fifo_refused_dev_null_read(void **state)
{
	struct dir *d = *state;
	struct read r;

	assert_int_equal(mkfifo(at(d, "fifo.cnf"), 0600), 0);
	alarm(5);
	read_fails(d, &r, "fifo.cnf");
	contains(r.err, "fifo.cnf is not a regular file");

	write_include(d, "inc.cnf", "[client]\nuser = a\n", "include",
	    "fifo.cnf", "");
	read_fails(d, &r, "inc.cnf");
	contains(r.err, "fifo.cnf is not a regular file");
	optfile_list_free(&r.list);

	memset(&r.list, 0, sizeof(r.list));
	read_path(&r, at(d, "fifo.cnf"), false);
	assert_int_equal(r.rc, 0);
	assert_int_equal(r.list.n, 0);
	contains(r.warn, "fifo.cnf: not a regular file");
	alarm(0);

	memset(&r.list, 0, sizeof(r.list));
	read_path(&r, "/dev/null", true);
	assert_int_equal(r.rc, 0);
	assert_int_equal(r.list.n, 0);
	assert_string_equal(r.warn, "");
	write_include(d, "null.cnf", "[client]\nuser = a\n", "include",
	    "null", "port = 3\n");
	assert_int_equal(symlink("/dev/null", at(d, "null")), 0);
	read_ok(d, &r, "null.cnf");
	assert_int_equal(r.list.n, 2);
	optfile_list_free(&r.list);

	/* Other devices are not what anyone means: /dev/zero never ends. */
	read_path(&r, "/dev/zero", true);
	assert_int_equal(r.rc, -1);
	contains(r.err, "/dev/zero is not a regular file");
}

/*
 * A login path file as MySQL 9.7.4's mysql_config_editor wrote it, in the
 * sid root of tests/root.sh:
 *   HOME=/tmp/x mysql_config_editor set --login-path=fixture \
 *       --host=db1.example --port=3307 --user=prof \
 *       --socket=/run/mysqld/x.sock
 */
static const unsigned char mylogin_fixture[] = {
	0x00, 0x00, 0x00, 0x00, 0x1a, 0x05, 0x1e, 0x00, 0x1b, 0x0d, 0x05, 0x13,
	0x1e, 0x09, 0x03, 0x0a, 0x07, 0x01, 0x12, 0x12, 0x1f, 0x01, 0x03, 0x16,
	0x10, 0x00, 0x00, 0x00, 0x9b, 0x35, 0xe6, 0xb4, 0x7d, 0x00, 0xf2, 0x4e,
	0xa1, 0xde, 0x77, 0x8e, 0xad, 0xf6, 0xe4, 0x5b, 0x10, 0x00, 0x00, 0x00,
	0x9c, 0x67, 0x44, 0x8c, 0x4c, 0x27, 0xf3, 0x04, 0x88, 0xf1, 0x55, 0x88,
	0x9f, 0xc0, 0x56, 0xa9, 0x20, 0x00, 0x00, 0x00, 0x1c, 0x64, 0x94, 0xd9,
	0x12, 0xc9, 0x1f, 0x99, 0x55, 0x0c, 0x5e, 0xc5, 0x6f, 0x6e, 0x69, 0x8a,
	0x02, 0x7f, 0xb1, 0x65, 0x3f, 0x25, 0xf4, 0x19, 0x7c, 0x3a, 0x75, 0xbc,
	0x64, 0xa7, 0x4f, 0x00, 0x20, 0x00, 0x00, 0x00, 0xe9, 0x19, 0x82, 0x80,
	0x71, 0xff, 0xcd, 0x6e, 0xee, 0xa2, 0x1e, 0x3b, 0x57, 0x43, 0x6d, 0xd3,
	0xe6, 0x03, 0xc0, 0xb4, 0x3c, 0xa0, 0x7d, 0x23, 0x0d, 0xdd, 0xd0, 0xfc,
	0xdd, 0x1c, 0xa2, 0xf2, 0x10, 0x00, 0x00, 0x00, 0x35, 0x43, 0xf6, 0x86,
	0x6f, 0x35, 0x76, 0x17, 0x74, 0xaf, 0x9e, 0xe6, 0x82, 0xe9, 0x30, 0x05,
};

static const char *const login_groups[] = { "client", "mysqlmemprof",
    "fixture", NULL };

struct login_read {
	struct read r;
	bool seen[3];
	bool found;
};

static void
read_login(struct dir *d, struct login_read *l, const char *name)
{
	memset(l, 0, sizeof(*l));
	l->r.rc = optfile_read_login(at(d, name), login_groups, l->seen,
	    &l->found, &l->r.list, l->r.warn, sizeof(l->r.warn), l->r.err,
	    sizeof(l->r.err));
}

/*
 * Writes a login path file as mysql_config_editor does, of the lines
 * given (each encrypted on its own), with a key longer than AES-128's so
 * that folding it matters.
 */
static void
write_login(struct dir *d, const char *name, mode_t mode, ...)
{
	static const unsigned char raw[20] = {
		0x11, 0x22, 0x33, 0x44, 0x55, 0x66, 0x77, 0x08, 0x19, 0x2a,
		0x3b, 0x4c, 0x5d, 0x6e, 0x7f, 0x01, 0x02, 0x03, 0x04, 0x05,
	};
	unsigned char key[16] = { 0 }, buf[8192];
	size_t n = 0;
	const char *line;
	va_list ap;

	/* Folded as mysys/my_aes.cc's my_aes_create_key() does. */
	for (size_t i = 0; i < sizeof(raw); i++)
		key[i % 16] ^= raw[i];
	memset(buf, 0, 4);
	memcpy(buf + 4, raw, sizeof(raw));
	n = 4 + sizeof(raw);
	va_start(ap, mode);
	while ((line = va_arg(ap, const char *)) != NULL) {
		EVP_CIPHER_CTX *ctx = EVP_CIPHER_CTX_new();
		int out = 0, last = 0;

		assert_non_null(ctx);
		assert_true(EVP_EncryptInit_ex(ctx, EVP_aes_128_ecb(), NULL, key,
		    NULL));
		assert_true(EVP_EncryptUpdate(ctx, buf + n + 4, &out,
		    (const unsigned char *)line, (int)strlen(line)));
		assert_true(EVP_EncryptFinal_ex(ctx, buf + n + 4 + out, &last));
		EVP_CIPHER_CTX_free(ctx);
		out += last;
		buf[n] = (unsigned char)out;
		buf[n + 1] = (unsigned char)(out >> 8);
		buf[n + 2] = buf[n + 3] = 0;
		n += 4 + (size_t)out;
	}
	va_end(ap);
	write_bytes(d, name, (const char *)buf, n, mode);
}

/* What the real mysql_config_editor wrote reads back as it was given. */
static void
test_login_file_of_mysql_config_editor(void **state)
{
	struct dir *d = *state;
	struct login_read l;

	write_bytes(d, "mylogin.cnf", (const char *)mylogin_fixture,
	    sizeof(mylogin_fixture), 0600);
	read_login(d, &l, "mylogin.cnf");
	if (l.r.rc != 0)
		fail_msg("%s", l.r.err);
	assert_true(l.found);
	assert_false(l.seen[0]);
	assert_false(l.seen[1]);
	assert_true(l.seen[2]);
	assert_string_equal(l.r.warn, "");
	entry_is(d, &l.r, 0, "user", "prof", "fixture", "mylogin.cnf", 2);
	entry_is(d, &l.r, 1, "host", "db1.example", "fixture", "mylogin.cnf",
	    3);
	entry_is(d, &l.r, 2, "socket", "/run/mysqld/x.sock", "fixture",
	    "mylogin.cnf", 4);
	entry_is(d, &l.r, 3, "port", "3307", "fixture", "mylogin.cnf", 5);
	assert_int_equal(l.r.list.n, 4);
	optfile_list_free(&l.r.list);
}

/*
 * Only the groups asked for are kept, in the file's order, quotes and
 * escapes taken off as in any option file; a line without its newline
 * is still a line. seen[] says which groups the file has.
 */
static void
test_login_file_groups_and_lines(void **state)
{
	struct dir *d = *state;
	struct login_read l;

	write_login(d, "mylogin.cnf", 0600,
	    "[other]\n",                    /* 1 */
	    "user = \"nobody\"\n",          /* 2 */
	    "[client]\n",                   /* 3 */
	    "user = \"a\"\n",               /* 4 */
	    "password = \"p#w\\\\\"\n",     /* 5 */
	    "[fixture]\n",                  /* 6 */
	    "port = 3307",                  /* 7 */
	    "host = \"h\"\n",               /* 8 */
	    (char *)NULL);
	read_login(d, &l, "mylogin.cnf");
	if (l.r.rc != 0)
		fail_msg("%s", l.r.err);
	assert_true(l.found && l.seen[0] && !l.seen[1] && l.seen[2]);
	entry_is(d, &l.r, 0, "user", "a", "client", "mylogin.cnf", 4);
	entry_is(d, &l.r, 1, "password", "p#w\\", "client", "mylogin.cnf", 5);
	entry_is(d, &l.r, 2, "port", "3307", "fixture", "mylogin.cnf", 7);
	entry_is(d, &l.r, 3, "host", "h", "fixture", "mylogin.cnf", 8);
	assert_int_equal(l.r.list.n, 4);
	optfile_list_free(&l.r.list);
}

/*
 * As mysql: a missing file is no error, and one that others may read is
 * ignored with a warning. A damaged one is an error that names it, and
 * so is a directive, which mysql_config_editor never writes.
 */
static void
test_login_file_skipped_or_refused(void **state)
{
	static const char short_file[] = "\0\0\0\0abcdefghij";
	struct dir *d = *state;
	struct login_read l;
	unsigned char bytes[65];
	FILE *fp;

	read_login(d, &l, "none.cnf");
	assert_int_equal(l.r.rc, 0);
	assert_false(l.found || l.seen[0]);
	assert_string_equal(l.r.warn, "");

	write_login(d, "open.cnf", 0640, "[client]\n", "user = a\n",
	    (char *)NULL);
	read_login(d, &l, "open.cnf");
	assert_int_equal(l.r.rc, 0);
	assert_false(l.found || l.seen[0]);
	assert_int_equal(l.r.list.n, 0);
	contains(l.r.warn, "open.cnf is ignored: others may read it");

	WRITE_LITERAL(d, "short.cnf", short_file, 0600);
	read_login(d, &l, "short.cnf");
	assert_int_equal(l.r.rc, -1);
	contains(l.r.err, "short.cnf is too short to be one");

	/* 24 bytes of header, then two lines of 4 + 16; cut in the second. */
	write_login(d, "cut.cnf", 0600, "[client]\n", "user = a\n",
	    (char *)NULL);
	fp = fopen(at(d, "cut.cnf"), "rb");
	assert_non_null(fp);
	assert_int_equal(fread(bytes, 1, sizeof(bytes), fp), 64);
	fclose(fp);
	write_bytes(d, "cut.cnf", (const char *)bytes, 60, 0600);
	read_login(d, &l, "cut.cnf");
	assert_int_equal(l.r.rc, -1);
	contains(l.r.err, "cut.cnf is damaged at line 2");

	/* A length that no AES block count gives. */
	bytes[44] = 15;
	write_bytes(d, "odd.cnf", (const char *)bytes, 64, 0600);
	read_login(d, &l, "odd.cnf");
	assert_int_equal(l.r.rc, -1);
	contains(l.r.err, "odd.cnf is damaged at line 2");

	write_login(d, "inc.cnf", 0600, "!include /etc/passwd\n",
	    (char *)NULL);
	read_login(d, &l, "inc.cnf");
	assert_int_equal(l.r.rc, -1);
	contains(l.r.err, "a directive in the login path file");
	optfile_list_free(&l.r.list);
}

#define TEST(f) cmocka_unit_test_setup_teardown(f, setup, teardown)

int
main(void)
{
	const struct CMUnitTest tests[] = {
		TEST(test_groups),
		TEST(test_keys_values_and_comments),
		TEST(test_loose_prefix),
		TEST(test_quotes_and_escapes),
		TEST(test_unterminated_quote),
		TEST(test_crlf),
		TEST(test_no_final_newline),
		TEST(test_include),
		TEST(test_includedir),
		TEST(test_includedir_world_writable),
		TEST(test_include_loops),
		TEST(test_include_depth),
		TEST(test_files_skipped_or_refused),
		TEST(test_reads_append),
		TEST(test_fifo_refused_dev_null_read),
		TEST(test_login_file_of_mysql_config_editor),
		TEST(test_login_file_groups_and_lines),
		TEST(test_login_file_skipped_or_refused),
	};

	return cmocka_run_group_tests_name("optfile", tests, NULL, NULL);
}
