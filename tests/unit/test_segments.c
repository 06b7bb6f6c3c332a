/*
 * The black box's folder (segments.c), in a folder of mkdtemp() removed
 * afterwards: what segments_open() makes and locks, when a segment is
 * begun, what is pruned (never the segment written), and the list read
 * back oldest first. The moments are handed in, so no test waits.
 */
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <setjmp.h>
#include <cmocka.h>

#include "segments.h"

#define T0 ((int64_t)1795748700 * 1000) /* 2026-11-27T03:05:00.000Z */
#define MIN ((int64_t)60 * 1000)
#define HOUR (60 * MIN)
#define KIB ((uint64_t)1024)
#define MIB (1024 * KIB)
#define DAY (24 * HOUR)

/*
 * The test's clocks: the monotonic one, in ms, and the wall clock, that
 * much plus the steps the test made.
 */
static struct {
	int64_t mono_ms;
	int64_t step_ms;
} fake;

static uint64_t
fake_now(void *ctx)
{
	(void)ctx;
	return (uint64_t)fake.mono_ms * 1000000u;
}

static int64_t
fake_wall(void *ctx)
{
	(void)ctx;
	return fake.mono_ms + fake.step_ms;
}

static const struct clock fake_clock = { NULL, fake_now, fake_wall, NULL };

/* Both clocks on to the wall time ms; the monotonic one never goes back. */
static void
at(int64_t ms)
{
	assert_true(ms - fake.step_ms >= fake.mono_ms);
	fake.mono_ms = ms - fake.step_ms;
}

/* The wall clock alone steps by d. */
static void
step(int64_t d)
{
	fake.step_ms += d;
}

struct dir {
	char path[64];
	char rec[128]; /* DIR: a folder segments_open() is to make */
};

static int
setup(void **state)
{
	struct dir *d = calloc(1, sizeof(*d));

	if (d == NULL)
		return -1;
	snprintf(d->path, sizeof(d->path), "/tmp/mmp-test-segments-XXXXXX");
	if (mkdtemp(d->path) == NULL) {
		free(d);
		return -1;
	}
	snprintf(d->rec, sizeof(d->rec), "%s/rec", d->path);
	fake.mono_ms = T0 - DAY;
	fake.step_ms = 0;
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

static void
open_ok(struct segments *g, const char *dir, uint64_t max_bytes,
    int64_t max_age_ms)
{
	char err[512] = "";

	if (segments_open(g, dir, max_bytes, max_age_ms, &fake_clock, err,
	    sizeof(err)) != 0)
		fail_msg("segments_open(%s): %s", dir, err);
}

static void
close_ok(struct segments *g)
{
	char err[512] = "";

	if (segments_close(g, err, sizeof(err)) != 0)
		fail_msg("segments_close: %s", err);
}

/* A turn at the wall time now_ms, the clocks moved there. */
static int
turn(struct segments *g, int64_t now_ms, size_t n)
{
	char err[512] = "";
	int rc;

	at(now_ms);
	rc = segments_turn(g, now_ms, n, err, sizeof(err));

	if (rc < 0)
		fail_msg("segments_turn: %s", err);
	return rc;
}

/* n bytes of lines of 64 ("x...x\n"). */
static void
put(struct segments *g, int64_t now_ms, size_t n)
{
	char *p = malloc(n), err[512] = "";

	assert_non_null(p);
	for (size_t i = 0; i < n; i++)
		p[i] = i % 64 == 63 ? '\n' : 'x';
	at(now_ms);
	if (segments_write(g, p, n, err, sizeof(err)) != 0)
		fail_msg("segments_write: %s", err);
	free(p);
}

static off_t
size_of(const char *path)
{
	struct stat st;

	return stat(path, &st) == 0 ? st.st_size : -1;
}

/* The segments' names under DIR/segments, oldest first, and their sum. */
static size_t
listed(const char *dir, char names[][64], size_t max, uint64_t *total)
{
	char **paths;
	size_t n;

	assert_int_equal(segments_list(dir, &paths, &n), 0);
	assert_true(n <= max);
	if (total != NULL)
		*total = 0;
	for (size_t i = 0; i < n; i++) {
		snprintf(names[i], 64, "%s", strrchr(paths[i], '/') + 1);
		if (total != NULL)
			*total += (uint64_t)size_of(paths[i]);
	}
	segments_list_free(paths, n);
	return n;
}

static bool
written_is_listed(const struct segments *g, char names[][64], size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (strcmp(names[i], g->name) == 0)
			return true;
	return false;
}

static void
test_open_makes_the_folders(void **state)
{
	struct dir *d = *state;
	struct segments g;
	struct stat st;
	char path[256];

	open_ok(&g, d->rec, 256 * MIB, 24 * HOUR);
	assert_int_equal(lstat(d->rec, &st), 0);
	assert_true(S_ISDIR(st.st_mode));
	/* The records hold statements: the owner's only. */
	assert_int_equal(st.st_mode & 07777, 0700);
	snprintf(path, sizeof(path), "%s/segments", d->rec);
	assert_int_equal(lstat(path, &st), 0);
	assert_true(S_ISDIR(st.st_mode));
	assert_int_equal(st.st_mode & 077, 0);
	snprintf(path, sizeof(path), "%s/incidents", d->rec);
	assert_int_equal(lstat(path, &st), 0);
	assert_true(S_ISDIR(st.st_mode));
	snprintf(path, sizeof(path), "%s/lock", d->rec);
	assert_int_equal(lstat(path, &st), 0);
	assert_true(S_ISREG(st.st_mode));
	/* No segment before the first record. */
	assert_int_equal(g.fd, -1);
	close_ok(&g);
	/* Opened again, what is there is taken as it is. */
	open_ok(&g, d->rec, 256 * MIB, 24 * HOUR);
	close_ok(&g);
}

static void
test_open_refuses_a_file(void **state)
{
	struct dir *d = *state;
	struct segments g;
	char err[512] = "";
	int fd = open(d->rec, O_WRONLY | O_CREAT, 0600);

	assert_true(fd >= 0);
	close(fd);
	assert_int_equal(segments_open(&g, d->rec, MIB, HOUR,
	    &fake_clock, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "is not a folder"));
	assert_int_equal(g.lockfd, -1);
}

/* Whether a process other than this one may take DIR/lock now. */
static bool
child_may_lock(const char *dir)
{
	char path[256];
	pid_t pid;
	int status;

	snprintf(path, sizeof(path), "%s/lock", dir);
	if ((pid = fork()) == 0) {
		int fd = open(path, O_RDWR);

		_exit(fd >= 0 && flock(fd, LOCK_EX | LOCK_NB) == 0 ? 0 : 1);
	}
	assert_true(pid > 0);
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFEXITED(status));
	return WEXITSTATUS(status) == 0;
}

static void
test_one_recorder_a_folder(void **state)
{
	struct dir *d = *state;
	struct segments g, h;
	char err[512] = "";

	open_ok(&g, d->rec, MIB, HOUR);
	/* flock() locks an open file: a second open() conflicts in-process. */
	assert_int_equal(segments_open(&h, d->rec, MIB, HOUR,
	    &fake_clock, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "another mysqlmemprof records into"));
	assert_non_null(strstr(err, d->rec));
	assert_int_equal(h.lockfd, -1);
	assert_int_equal(h.segfd, -1);
	/* And another process is refused as well. */
	assert_false(child_may_lock(d->rec));
	/* The refused opener did not take the first one's lock away. */
	assert_false(child_may_lock(d->rec));
	close_ok(&g);
	assert_true(child_may_lock(d->rec));
	open_ok(&h, d->rec, MIB, HOUR);
	close_ok(&h);
}

static void
test_bounds_of_a_segment(void **state)
{
	struct dir *d = *state;
	static const struct {
		uint64_t max_bytes;
		int64_t max_age_ms;
		uint64_t segment_bytes;
		int64_t segment_ms;
	} cases[] = {
		{ 256 * MIB, 24 * HOUR, 16 * MIB, HOUR },
		{ 1024 * MIB, 8 * HOUR, 16 * MIB, HOUR },
		{ 16 * MIB, 4 * HOUR, MIB, 30 * MIN },
		{ MIB, 2 * HOUR, 64 * KIB, 15 * MIN },
		{ 100 * KIB, 8 * MIN, 64 * KIB, MIN },
		{ 512 * MIB, 1 * HOUR, 16 * MIB, HOUR / 8 },
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct segments g;

		open_ok(&g, d->rec, cases[i].max_bytes, cases[i].max_age_ms);
		assert_int_equal(g.segment_bytes, cases[i].segment_bytes);
		assert_int_equal(g.segment_ms, cases[i].segment_ms);
		close_ok(&g);
	}
}

static void
test_turn_by_size_and_age(void **state)
{
	struct dir *d = *state;
	struct segments g;
	char names[8][64], first[64];
	char path[256];
	size_t n;

	/* 64 KiB segments of at most 15 minutes. */
	open_ok(&g, d->rec, MIB, 2 * HOUR);
	assert_int_equal(turn(&g, T0, 100), 1);
	assert_true(g.fd >= 0);
	assert_string_equal(g.name, "20261127T030500.000Z.jsonl");
	snprintf(first, sizeof(first), "%s", g.name);
	snprintf(path, sizeof(path), "%s/segments/%s", d->rec, g.name);
	assert_int_equal(size_of(path), 0);
	put(&g, T0, 100);
	assert_int_equal(size_of(path), 100);
	/* Room for it: the same segment. */
	assert_int_equal(turn(&g, T0 + 1000, 64 * KIB - 100), 0);
	put(&g, T0 + 1000, 64 * KIB - 200);
	assert_int_equal(turn(&g, T0 + 2000, 100), 0);
	put(&g, T0 + 2000, 100);
	assert_int_equal(g.bytes, 64 * KIB);
	/* Full: one byte more begins the next. */
	assert_int_equal(turn(&g, T0 + 3000, 1), 1);
	assert_string_equal(g.name, "20261127T030503.000Z.jsonl");
	assert_int_equal(g.bytes, 0);
	assert_int_equal(size_of(path), 64 * KIB);
	put(&g, T0 + 3000, 64);
	/* Not yet a quarter of an hour old, then a quarter of an hour. */
	assert_int_equal(turn(&g, T0 + 3000 + 15 * MIN - 1, 64), 0);
	put(&g, T0 + 3000 + 15 * MIN - 1, 64);
	assert_int_equal(turn(&g, T0 + 3000 + 15 * MIN, 64), 1);
	assert_string_equal(g.name, "20261127T032003.000Z.jsonl");
	n = listed(d->rec, names, 8, NULL);
	assert_int_equal(n, 3);
	assert_string_equal(names[0], first);
	assert_string_equal(names[1], "20261127T030503.000Z.jsonl");
	assert_string_equal(names[2], g.name);
	close_ok(&g);
	assert_int_equal(g.fd, -1);
}

static void
test_two_turns_in_one_millisecond(void **state)
{
	struct dir *d = *state;
	struct segments g;
	char names[8][64];

	open_ok(&g, d->rec, MIB, 2 * HOUR);
	assert_int_equal(turn(&g, T0 + 5, 64), 1);
	put(&g, T0 + 5, 64 * KIB);
	assert_int_equal(turn(&g, T0 + 5, 64), 1);
	put(&g, T0 + 5, 64 * KIB);
	assert_int_equal(turn(&g, T0 + 5, 64), 1);
	put(&g, T0 + 5, 64);
	assert_int_equal(listed(d->rec, names, 8, NULL), 3);
	/* Each later in name than the one before, the last the one written. */
	assert_string_equal(names[0], "20261127T030500.005Z.jsonl");
	assert_true(strcmp(names[0], names[1]) < 0);
	assert_true(strcmp(names[1], names[2]) < 0);
	assert_string_equal(names[2], g.name);
	/* The names stay within the second they were begun in. */
	assert_int_equal(strncmp(names[2], "20261127T030500.", 16), 0);
	close_ok(&g);
}

static void
test_prune_to_the_size(void **state)
{
	struct dir *d = *state;
	struct segments g;
	char names[32][64];
	uint64_t total;
	size_t n;

	/* 64 KiB segments, 512 KiB in all: never more than 8 at once. */
	open_ok(&g, d->rec, 512 * KIB, 24 * HOUR);
	for (int i = 0; i < 20; i++) {
		int64_t now = T0 + i * 1000;

		assert_int_equal(turn(&g, now, 64), 1);
		n = listed(d->rec, names, 32, &total);
		assert_true(written_is_listed(&g, names, n));
		/* Room left for the one written to fill. */
		assert_true(total + g.segment_bytes <= g.max_bytes);
		put(&g, now, 64 * KIB);
		n = listed(d->rec, names, 32, &total);
		assert_true(total <= g.max_bytes);
	}
	/* The oldest went: the newest are kept, all of them. */
	n = listed(d->rec, names, 32, &total);
	assert_int_equal(n, 8);
	assert_int_equal(total, 512 * KIB);
	assert_string_equal(names[0], "20261127T030512.000Z.jsonl");
	assert_string_equal(names[7], g.name);
	close_ok(&g);
}

static void
test_prune_by_age(void **state)
{
	struct dir *d = *state;
	struct segments g;
	char names[32][64];
	size_t n;

	/* 8 hours kept, in segments of at most an hour; size no bound. */
	open_ok(&g, d->rec, 1024 * MIB, 8 * HOUR);
	for (int i = 0; i < 4; i++) {
		assert_int_equal(turn(&g, T0 + i * HOUR, 64), 1);
		put(&g, T0 + i * HOUR, 64);
	}
	/*
	 * A segment's records end where the next begins: the first's are
	 * all older than 8 hours once the second began 8 hours ago.
	 */
	assert_int_equal(turn(&g, T0 + 9 * HOUR - 1, 64), 1);
	put(&g, T0 + 9 * HOUR - 1, 64);
	n = listed(d->rec, names, 32, NULL);
	assert_int_equal(n, 5);
	assert_int_equal(turn(&g, T0 + 9 * HOUR + 1, 64), 0);
	/* The first's records are older than the age now: it goes. */
	g.bytes = g.segment_bytes;
	assert_int_equal(turn(&g, T0 + 9 * HOUR + 1, 64), 1);
	n = listed(d->rec, names, 32, NULL);
	assert_int_equal(n, 5);
	assert_string_equal(names[0], "20261127T040500.000Z.jsonl");
	/*
	 * Long after: all go but the one written and the one before it,
	 * whose records may have gone on until it was begun.
	 */
	g.bytes = g.segment_bytes;
	assert_int_equal(turn(&g, T0 + 30 * HOUR, 64), 1);
	n = listed(d->rec, names, 32, NULL);
	assert_int_equal(n, 2);
	assert_string_equal(names[0], "20261127T120500.001Z.jsonl");
	assert_string_equal(names[1], g.name);
	close_ok(&g);
}

/* The wall clock stepped back: the segment begun sorts before the others. */
static void
test_prune_never_the_one_written(void **state)
{
	struct dir *d = *state;
	struct segments g;
	char names[32][64];
	uint64_t total;
	size_t n;

	open_ok(&g, d->rec, 512 * KIB, 24 * HOUR);
	for (int i = 0; i < 8; i++) {
		assert_int_equal(turn(&g, T0 + i * 1000, 64), 1);
		put(&g, T0 + i * 1000, 64 * KIB);
	}
	step(-HOUR - 7000);
	assert_int_equal(turn(&g, T0 - HOUR, 64), 1);
	n = listed(d->rec, names, 32, &total);
	assert_true(written_is_listed(&g, names, n));
	assert_string_equal(names[0], g.name);
	assert_true(total + g.segment_bytes <= g.max_bytes);
	put(&g, T0 - HOUR, 64);
	close_ok(&g);
}

static void
test_list(void **state)
{
	struct dir *d = *state;
	static const char *const others[] = {
		"lock", "notes.jsonl", "20261127T031200Z.jsonl",
		"20261127T031200.000Z.jsonl.tmp", "20261127T031200.000Z.json",
		".20261127T031200.000Z.jsonl",
	};
	struct segments g;
	char names[8][64], path[256];
	char **paths;
	size_t n;

	/* No folder: an error; an empty one: none. */
	assert_int_equal(segments_list(d->rec, &paths, &n), -1);
	assert_int_equal(errno, ENOENT);
	open_ok(&g, d->rec, MIB, 2 * HOUR);
	assert_int_equal(segments_list(d->rec, &paths, &n), 0);
	assert_int_equal(n, 0);
	segments_list_free(paths, n);
	for (size_t i = 0; i < sizeof(others) / sizeof(others[0]); i++) {
		int fd;

		snprintf(path, sizeof(path), "%s/segments/%s", d->rec,
		    others[i]);
		fd = open(path, O_WRONLY | O_CREAT, 0600);
		assert_true(fd >= 0);
		close(fd);
	}
	/* Begun out of order in time: listed in order of time. */
	assert_int_equal(turn(&g, T0 + 2 * HOUR, 64), 1);
	g.bytes = g.segment_bytes;
	step(-26 * HOUR);
	assert_int_equal(turn(&g, T0 - 24 * HOUR, 64), 1);
	g.bytes = g.segment_bytes;
	step(24 * HOUR);
	assert_int_equal(turn(&g, T0, 64), 1);
	assert_int_equal(listed(d->rec, names, 8, NULL), 3);
	assert_string_equal(names[0], "20261126T030500.000Z.jsonl");
	assert_string_equal(names[1], "20261127T030500.000Z.jsonl");
	assert_string_equal(names[2], "20261127T050500.000Z.jsonl");
	/* Whole paths. */
	assert_int_equal(segments_list(d->rec, &paths, &n), 0);
	snprintf(path, sizeof(path), "%s/segments/%s", d->rec, names[0]);
	assert_string_equal(paths[0], path);
	segments_list_free(paths, n);
	close_ok(&g);
}

static void
test_is_name(void **state)
{
	(void)state;
	assert_true(segments_is_name("20261127T031200.123Z.jsonl"));
	assert_true(segments_is_name("19700101T000000.000Z.jsonl"));
	assert_false(segments_is_name(""));
	assert_false(segments_is_name("20261127T031200.123Z"));
	assert_false(segments_is_name("20261127T031200.123Z.jsonl.tmp"));
	assert_false(segments_is_name("20261127T031200.123Z.json"));
	assert_false(segments_is_name("20261127T031200Z.jsonl"));
	assert_false(segments_is_name("20261127T031200.12Z.jsonl"));
	assert_false(segments_is_name("20261127-031200.123Z.jsonl"));
	assert_false(segments_is_name("2026112xT031200.123Z.jsonl"));
	assert_false(segments_is_name("20261127T031200.123X.jsonl"));
	assert_false(segments_is_name("x20261127T031200.123Z.jsonl"));
	assert_false(segments_is_name("lock"));
}

static void
test_write_syncs_when_due(void **state)
{
	struct dir *d = *state;
	struct segments g;
	char path[256];

	open_ok(&g, d->rec, MIB, 2 * HOUR);
	assert_int_equal(turn(&g, T0, 64), 1);
	assert_int_equal(g.synced_ms, T0);
	put(&g, T0 + SEGMENTS_SYNC_MS - 1, 64);
	assert_int_equal(g.synced_ms, T0);
	put(&g, T0 + SEGMENTS_SYNC_MS, 64);
	assert_int_equal(g.synced_ms, T0 + SEGMENTS_SYNC_MS);
	assert_int_equal(g.bytes, 128);
	snprintf(path, sizeof(path), "%s/segments/%s", d->rec, g.name);
	assert_int_equal(size_of(path), 128);
	close_ok(&g);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_open_makes_the_folders,
		    setup, teardown),
		cmocka_unit_test_setup_teardown(test_open_refuses_a_file,
		    setup, teardown),
		cmocka_unit_test_setup_teardown(test_one_recorder_a_folder,
		    setup, teardown),
		cmocka_unit_test_setup_teardown(test_bounds_of_a_segment,
		    setup, teardown),
		cmocka_unit_test_setup_teardown(test_turn_by_size_and_age,
		    setup, teardown),
		cmocka_unit_test_setup_teardown(test_two_turns_in_one_millisecond,
		    setup, teardown),
		cmocka_unit_test_setup_teardown(test_prune_to_the_size,
		    setup, teardown),
		cmocka_unit_test_setup_teardown(test_prune_by_age,
		    setup, teardown),
		cmocka_unit_test_setup_teardown(test_prune_never_the_one_written,
		    setup, teardown),
		cmocka_unit_test_setup_teardown(test_list, setup, teardown),
		cmocka_unit_test(test_is_name),
		cmocka_unit_test_setup_teardown(test_write_syncs_when_due,
		    setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
