/*
 * A folder's entries in order (dirlist.c), on a folder of its own under
 * /tmp: the names sorted as time (and a stem before its second's),
 * filtered by the caller, "." and ".." never, none at all, and a
 * descriptor that is no folder refused.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <setjmp.h>
#include <cmocka.h>

#include "dirlist.h"

struct fixture {
	char dir[64];
	int fd;
};

static void
touch(struct fixture *f, const char *name)
{
	int fd = openat(f->fd, name, O_WRONLY | O_CREAT | O_CLOEXEC, 0600);

	assert_true(fd >= 0);
	close(fd);
}

static int
setup(void **state)
{
	struct fixture *f = calloc(1, sizeof(*f));

	if (f == NULL)
		return -1;
	snprintf(f->dir, sizeof(f->dir), "/tmp/test_dirlist.XXXXXX");
	if (mkdtemp(f->dir) == NULL)
		return -1;
	f->fd = open(f->dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	*state = f;
	return f->fd < 0 ? -1 : 0;
}

static int
teardown(void **state)
{
	struct fixture *f = *state;
	char **names;
	size_t n;

	if (dirlist_at(f->fd, NULL, NULL, &names, &n) == 0) {
		for (size_t i = 0; i < n; i++)
			unlinkat(f->fd, names[i], 0);
		dirlist_free(names, n);
	}
	close(f->fd);
	rmdir(f->dir);
	free(f);
	return 0;
}

static void
assert_names(char **names, size_t n, const char *const *want, size_t m)
{
	assert_int_equal(n, m);
	for (size_t i = 0; i < m; i++)
		assert_string_equal(names[i], want[i]);
}

static void
test_sorted(void **state)
{
	static const char *const made[] = {
		"20261127T031200.123Z.jsonl", "20251231T235959.999Z.jsonl",
		"20261127T031200.122Z.jsonl", "lock", "20261127T031205Z-oom.html",
		"20261127T031205Z-oom-2.html", "20261127T031204Z-oom.html",
	};
	static const char *const want[] = {
		"20251231T235959.999Z.jsonl", "20261127T031200.122Z.jsonl",
		"20261127T031200.123Z.jsonl", "20261127T031204Z-oom.html",
		/* The first of a second before its second. */
		"20261127T031205Z-oom.html", "20261127T031205Z-oom-2.html",
		"lock",
	};
	struct fixture *f = *state;
	char **names;
	size_t n;

	for (size_t i = 0; i < sizeof(made) / sizeof(made[0]); i++)
		touch(f, made[i]);
	assert_int_equal(dirlist_at(f->fd, NULL, NULL, &names, &n), 0);
	assert_names(names, n, want, sizeof(want) / sizeof(want[0]));
	dirlist_free(names, n);
}

static bool
jsonl_only(const char *name, void *ctx)
{
	size_t len = strlen(name);

	(*(int *)ctx)++;
	return len > 6 && strcmp(name + len - 6, ".jsonl") == 0;
}

static void
test_filtered(void **state)
{
	static const char *const want[] = { "a.jsonl", "b.jsonl" };
	struct fixture *f = *state;
	char **names;
	size_t n;
	int asked = 0;

	touch(f, "b.jsonl");
	touch(f, "a.jsonl");
	touch(f, "a.jsonl.tmp");
	assert_int_equal(mkdirat(f->fd, "sub", 0700), 0);
	assert_int_equal(dirlist_at(f->fd, jsonl_only, &asked, &names, &n), 0);
	assert_names(names, n, want, 2);
	/* Asked of every entry but "." and "..". */
	assert_int_equal(asked, 4);
	dirlist_free(names, n);
	unlinkat(f->fd, "sub", AT_REMOVEDIR);
}

static void
test_empty_and_refused(void **state)
{
	struct fixture *f = *state;
	char **names = (char **)1;
	size_t n = 7;
	int fd;

	assert_int_equal(dirlist_at(f->fd, NULL, NULL, &names, &n), 0);
	assert_null(names);
	assert_int_equal(n, 0);
	touch(f, "file");
	fd = openat(f->fd, "file", O_RDONLY | O_CLOEXEC);
	assert_true(fd >= 0);
	errno = 0;
	assert_int_equal(dirlist_at(fd, NULL, NULL, &names, &n), -1);
	assert_int_equal(errno, ENOTDIR);
	assert_null(names);
	close(fd);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_sorted, setup, teardown),
		cmocka_unit_test_setup_teardown(test_filtered, setup, teardown),
		cmocka_unit_test_setup_teardown(test_empty_and_refused, setup,
		    teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
