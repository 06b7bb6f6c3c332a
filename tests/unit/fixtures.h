/*
 * Helpers the unit tests share: building samples in a ring, and comparing
 * an output with its golden file (rewritten instead when UPDATE_GOLDEN=1).
 * Everything is static inline so a test that uses only part of it builds
 * without warnings.
 */
#ifndef MYSQLMEMPROF_FIXTURES_H
#define MYSQLMEMPROF_FIXTURES_H

#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <sys/stat.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <setjmp.h>
#include <cmocka.h>

#include "ring.h"
#include "sample.h"

/* How many times needle stands in hay, overlapping ones too. */
static inline size_t
count_in(const char *hay, const char *needle)
{
	size_t n = 0;

	for (const char *p = hay; (p = strstr(p, needle)) != NULL; p++)
		n++;
	return n;
}

/* An event with only a name and current bytes; the rest derive from them. */
static inline struct event_stat
ev(const char *name, int64_t current)
{
	struct event_stat e = {
		.current_bytes = current,
		.current_count = current / 512,
		.high_bytes = current > INT64_MAX - 4096 ? current :
		    current + 4096,
		.alloc_bytes = (uint64_t)(current < 0 ? 0 : current) + 8192,
		.free_bytes = 8192,
		.alloc_count = 7,
		.free_count = 5,
	};

	assert_true(strlen(name) <= EVENT_NAME_MAX);
	memcpy(e.name, name, strlen(name) + 1);
	return e;
}

/* Pushes a sample with the n events of ev[] into the ring. */
static inline struct sample *
push(struct ring *r, const struct sample *proto, const struct event_stat *e,
    size_t n)
{
	struct sample *s = ring_slot(r);
	struct event_stat *storage = s->events;

	assert_true(n <= ring_max_events(r));
	*s = *proto;
	s->events = storage;
	s->n_events = n;
	if (n > 0)
		memcpy(s->events, e, n * sizeof(*e));
	ring_commit(r);
	return s;
}

static inline char *
golden_path(const char *name)
{
	const char *dir = getenv("GOLDEN_DIR");
	char *path;

	if (dir == NULL || *dir == '\0')
		dir = "tests/golden";
	assert_true(asprintf(&path, "%s/%s", dir, name) > 0);
	return path;
}

/* The whole of a file, or NULL when it cannot be read. */
static inline char *
slurp(const char *path, size_t *len)
{
	FILE *fp = fopen(path, "rb");
	char *buf = NULL;
	size_t cap = 0;

	*len = 0;
	if (fp == NULL)
		return NULL;
	for (;;) {
		if (*len == cap) {
			cap = cap ? cap * 2 : 4096;
			assert_non_null(buf = realloc(buf, cap + 1));
		}
		size_t got = fread(buf + *len, 1, cap - *len, fp);
		*len += got;
		if (got == 0)
			break;
	}
	assert_false(ferror(fp));
	fclose(fp);
	buf[*len] = '\0';
	return buf;
}

/*
 * Compares buf with the golden file byte for byte and, when they differ,
 * says at which line; with UPDATE_GOLDEN=1 it writes the file instead.
 */
static inline void
golden_check(const char *name, const char *buf, size_t len)
{
	char *path = golden_path(name);
	const char *update = getenv("UPDATE_GOLDEN");
	char *want;
	size_t want_len, i, line = 1;

	if (update != NULL && strcmp(update, "1") == 0) {
		FILE *fp = fopen(path, "wb");

		assert_non_null(fp);
		assert_int_equal(fwrite(buf, 1, len, fp), len);
		assert_int_equal(fclose(fp), 0);
		free(path);
		return;
	}
	want = slurp(path, &want_len);
	if (want == NULL)
		fail_msg("%s: %s (UPDATE_GOLDEN=1 writes it)", path,
		    strerror(errno));
	for (i = 0; i < len && i < want_len && buf[i] == want[i]; i++)
		if (buf[i] == '\n')
			line++;
	if (i < len || i < want_len)
		fail_msg("%s: differs at byte %zu, line %zu", path, i, line);
	free(want);
	free(path);
}

static inline int
fixture_remove_one(const char *path, const struct stat *st, int flag,
    struct FTW *w)
{
	(void)st;
	(void)flag;
	(void)w;
	return remove(path);
}

/* A folder a test made, and all it holds; 0 or -1 as nftw() returns. */
static inline int
fixture_remove_tree(const char *dir)
{
	return nftw(dir, fixture_remove_one, 16, FTW_DEPTH | FTW_PHYS);
}

/* DIR/name opened as the recorder holds it (segments.h's segfd, incfd). */
static inline int
fixture_folder_fd(const char *dir, const char *name)
{
	char path[4200];
	int fd;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	fd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	assert_true(fd >= 0);
	return fd;
}

#endif
