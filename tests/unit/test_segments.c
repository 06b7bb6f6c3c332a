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
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <setjmp.h>
#include <cmocka.h>

#include "dirlist.h"
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

/*
 * The syncs of the segment written, counted: synced_ms is set before the
 * sync, so only the call says one was made, and of which file.
 */
static struct {
	int calls;
	int fd;
} synced;

static int
sync_counted(int fd)
{
	synced.calls++;
	synced.fd = fd;
	return fdatasync(fd);
}

/* calls syncs in all so far, the last of the segment written now. */
static void
assert_synced(const struct segments *g, int calls)
{
	assert_int_equal(synced.calls, calls);
	if (calls > 0)
		assert_int_equal(synced.fd, g->fd);
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
	synced.calls = 0;
	synced.fd = -1;
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
	char disk[128];
	int rc;

	/* test_full_disk's, when it failed before its end. */
	snprintf(disk, sizeof(disk), "%.100s/disk", d->path);
	(void)umount2(disk, MNT_DETACH);
	rc = nftw(d->path, remove_one, 16, FTW_DEPTH | FTW_PHYS);

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
	dirlist_free(paths, n);
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
	dirlist_free(paths, n);
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
	dirlist_free(paths, n);
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
	g.sync = sync_counted;
	assert_int_equal(turn(&g, T0, 64), 1);
	assert_int_equal(g.synced_ms, T0);
	put(&g, T0 + SEGMENTS_SYNC_MS - 1, 64);
	assert_int_equal(g.synced_ms, T0);
	assert_synced(&g, 0);
	put(&g, T0 + SEGMENTS_SYNC_MS, 64);
	assert_int_equal(g.synced_ms, T0 + SEGMENTS_SYNC_MS);
	assert_synced(&g, 1);
	assert_int_equal(g.bytes, 128);
	snprintf(path, sizeof(path), "%s/segments/%s", d->rec, g.name);
	assert_int_equal(size_of(path), 128);
	close_ok(&g);
}

/*
 * The wall clock steps two days forward and back while recording: the
 * ages are the record's clock's, so nothing within --record-age goes, and
 * syncing and turning by age go on.
 */
static void
test_wall_steps_prune_nothing(void **state)
{
	struct dir *d = *state;
	struct segments g;
	char names[64][64];
	int64_t t = T0;
	size_t n = 0;

	/* 8 hours in segments of at most an hour; size no bound. */
	open_ok(&g, d->rec, 1024 * MIB, 8 * HOUR);
	g.sync = sync_counted;
	for (int i = 0; i < 12; i++, t += 20 * MIN) {
		if (i == 4)
			step(2 * DAY);
		if (i == 8)
			step(-2 * DAY);
		g.bytes = g.segment_bytes;
		assert_int_equal(turn(&g, t + fake.step_ms, 64), 1);
		/* The segment left was synced; none is due in the new one. */
		assert_int_equal(synced.calls, i);
		put(&g, t + fake.step_ms, 64);
		put(&g, t + fake.step_ms + 1, 64);
		assert_int_equal(g.synced_ms, g.opened_ms);
		assert_int_equal(synced.calls, i);
		/* Every segment begun is still there: 4 hours in all. */
		assert_int_equal(listed(d->rec, names, 64, NULL), ++n);
	}
	/* After the step back, the sync is due 3 s on, as ever. */
	put(&g, t - 20 * MIN + SEGMENTS_SYNC_MS - 1, 64);
	assert_synced(&g, 11);
	put(&g, t - 20 * MIN + SEGMENTS_SYNC_MS, 64);
	assert_synced(&g, 12);
	assert_int_equal(g.synced_ms, segments_now(&g));
	/* And a segment turns by age an hour on the record's clock. */
	assert_int_equal(turn(&g, t - 20 * MIN + HOUR - 1, 64), 0);
	assert_int_equal(turn(&g, t - 20 * MIN + HOUR, 64), 1);
	close_ok(&g);
}

/* A step does not stop the age bound: it holds on the record's clock. */
static void
test_age_after_a_step_back(void **state)
{
	struct dir *d = *state;
	struct segments g;
	char names[32][64];

	open_ok(&g, d->rec, 1024 * MIB, 8 * HOUR);
	for (int i = 0; i < 4; i++) {
		g.bytes = g.segment_bytes;
		assert_int_equal(turn(&g, T0 + i * HOUR, 64), 1);
	}
	step(-2 * DAY);
	/* 10.5 hours on: the first two ended more than 8 hours ago. */
	g.bytes = g.segment_bytes;
	assert_int_equal(turn(&g, T0 + 10 * HOUR + 30 * MIN - 2 * DAY, 64),
	    1);
	assert_int_equal(listed(d->rec, names, 32, NULL), 3);
	close_ok(&g);
}

/*
 * The size bound after a step back: the oldest in time go first, an
 * earlier run's before this run's, whatever the names say.
 */
static void
test_size_after_a_step_back(void **state)
{
	struct dir *d = *state;
	struct segments g;
	char names[32][64], path[256];
	int fd;

	/* 64 KiB segments, 512 KiB in all. */
	open_ok(&g, d->rec, 512 * KIB, 24 * HOUR);
	/* An earlier run's, named after this run's (its clock was ahead). */
	snprintf(path, sizeof(path), "%s/segments/20261128T030500.000Z.jsonl",
	    d->rec);
	assert_true((fd = open(path, O_WRONLY | O_CREAT, 0600)) >= 0);
	close(fd);
	for (int i = 0; i < 4; i++) {
		assert_int_equal(turn(&g, T0 + i * 1000, 64), 1);
		put(&g, T0 + i * 1000, 64 * KIB);
	}
	step(-HOUR);
	for (int i = 4; i < 10; i++) {
		assert_int_equal(turn(&g, T0 - HOUR + i * 1000, 64), 1);
		put(&g, T0 - HOUR + i * 1000, 64 * KIB);
	}
	/*
	 * 7 kept beside the one written: the earlier run's went first, then
	 * the 2 first of this run, named after those begun since.
	 */
	assert_int_equal(listed(d->rec, names, 32, NULL), 8);
	assert_string_equal(names[0], "20261127T020504.000Z.jsonl");
	assert_string_equal(names[5], g.name);
	assert_string_equal(names[6], "20261127T030502.000Z.jsonl");
	assert_string_equal(names[7], "20261127T030503.000Z.jsonl");
	close_ok(&g);
}

/* Segments of earlier runs are judged by their names. */
static void
test_earlier_runs_by_their_names(void **state)
{
	static const char *const earlier[] = {
		"20261126T150500.000Z.jsonl", /* T0 - 12 h */
		"20261126T170500.000Z.jsonl", /* T0 - 10 h: ended at the next */
		"20261126T220500.000Z.jsonl", /* T0 - 5 h */
	};
	struct dir *d = *state;
	struct segments g;
	char names[8][64], path[256];

	open_ok(&g, d->rec, 1024 * MIB, 8 * HOUR);
	for (size_t i = 0; i < 3; i++) {
		int fd;

		snprintf(path, sizeof(path), "%s/segments/%s", d->rec,
		    earlier[i]);
		assert_true((fd = open(path, O_WRONLY | O_CREAT, 0600)) >= 0);
		close(fd);
	}
	assert_int_equal(turn(&g, T0, 64), 1);
	assert_int_equal(listed(d->rec, names, 8, NULL), 3);
	assert_string_equal(names[0], earlier[1]);
	assert_string_equal(names[1], earlier[2]);
	close_ok(&g);
}

/* Files planted outside DIR, named as segments; whether all are there. */
static void
plant_outside(const struct dir *d, char *out, size_t len)
{
	char path[256];

	snprintf(out, len, "%s/outside", d->path);
	assert_int_equal(mkdir(out, 0700), 0);
	for (int i = 0; i < 4; i++) {
		int fd;

		snprintf(path, sizeof(path), "%s/20261127T03000%d.000Z.jsonl",
		    out, i);
		assert_true((fd = open(path, O_WRONLY | O_CREAT, 0600)) >= 0);
		assert_int_equal(write(fd, "{}\n", 3), 3);
		close(fd);
	}
}

static int
count_outside(const char *out)
{
	char path[256];
	int n = 0;

	for (int i = 0; i < 4; i++) {
		snprintf(path, sizeof(path), "%s/20261127T03000%d.000Z.jsonl",
		    out, i);
		n += size_of(path) == 3;
	}
	return n;
}

/* DIR/segments a link planted to elsewhere: refused, nothing removed. */
static void
test_planted_link_refused(void **state)
{
	struct dir *d = *state;
	struct segments g;
	char out[128], path[256], err[512] = "";

	plant_outside(d, out, sizeof(out));
	assert_int_equal(mkdir(d->rec, 0700), 0);
	snprintf(path, sizeof(path), "%s/segments", d->rec);
	assert_int_equal(symlink(out, path), 0);
	assert_int_equal(segments_open(&g, d->rec, MIB, HOUR, &fake_clock,
	    err, sizeof(err)), -1);
	if (strstr(err, "segments is a link") == NULL)
		fail_msg("%s", err);
	assert_non_null(strstr(err, "remove it"));
	assert_int_equal(g.lockfd, -1);
	assert_int_equal(count_outside(out), 4);
}

/* Links in DIR/segments named as segments are not the pruning's. */
static void
test_prune_leaves_links(void **state)
{
	struct dir *d = *state;
	struct segments g;
	char out[128], path[256], target[256];

	plant_outside(d, out, sizeof(out));
	open_ok(&g, d->rec, 512 * KIB, HOUR);
	for (int i = 0; i < 4; i++) {
		snprintf(path, sizeof(path), "%s/segments/20261127T00000%d.000Z"
		    ".jsonl", d->rec, i);
		snprintf(target, sizeof(target), "%s/20261127T03000%d.000Z"
		    ".jsonl", out, i);
		assert_int_equal(symlink(target, path), 0);
	}
	/* Far past the age and the size: all but the newest go, not those. */
	for (int i = 0; i < 20; i++) {
		assert_int_equal(turn(&g, T0 + i * HOUR, 64), 1);
		put(&g, T0 + i * HOUR, 64 * KIB);
	}
	assert_int_equal(count_outside(out), 4);
	/* Nor the links themselves: the pruning is of its own files. */
	for (int i = 0; i < 4; i++) {
		struct stat st;

		snprintf(path, sizeof(path), "%s/segments/20261127T00000%d.000Z"
		    ".jsonl", d->rec, i);
		assert_int_equal(lstat(path, &st), 0);
	}
	close_ok(&g);
}

/* A folder another account owns or may write is refused, with the fix. */
static void
test_open_refuses_open_folders(void **state)
{
	static const struct {
		const char *sub; /* "": DIR itself */
		mode_t mode;
		bool other_owner;
		const char *says;
	} cases[] = {
		{ "", 0770, false, "chmod 700 " },
		{ "", 0702, false, "chmod 700 " },
		{ "segments", 0777, false, "chmod 700 " },
		{ "incidents", 0730, false, "chmod 700 " },
		{ "", 0700, true, "chown " },
		{ "segments", 0700, true, "chown " },
	};
	struct dir *d = *state;

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct segments g;
		char path[256], err[512] = "";

		open_ok(&g, d->rec, MIB, HOUR);
		close_ok(&g);
		snprintf(path, sizeof(path), "%s%s%s", d->rec,
		    cases[i].sub[0] ? "/" : "", cases[i].sub);
		assert_int_equal(chmod(path, cases[i].mode), 0);
		if (cases[i].other_owner && (geteuid() != 0 ||
		    chown(path, 65534, (gid_t)-1) != 0)) {
			assert_int_equal(chmod(path, 0700), 0);
			continue; /* only root may give a folder away */
		}
		assert_int_equal(segments_open(&g, d->rec, MIB, HOUR,
		    &fake_clock, err, sizeof(err)), -1);
		assert_non_null(strstr(err, path));
		assert_non_null(strstr(err, cases[i].says));
		assert_int_equal(g.lockfd, -1);
		if (cases[i].other_owner)
			assert_int_equal(chown(path, geteuid(), (gid_t)-1), 0);
		assert_int_equal(chmod(path, 0700), 0);
	}
}

static void
test_sync_at_will(void **state)
{
	struct dir *d = *state;
	struct segments g;
	char err[512] = "";

	open_ok(&g, d->rec, MIB, 2 * HOUR);
	g.sync = sync_counted;
	assert_int_equal(turn(&g, T0, 64), 1);
	put(&g, T0 + 1, 64);
	assert_int_equal(g.synced_ms, T0);
	assert_synced(&g, 0);
	at(T0 + 2);
	assert_int_equal(segments_sync(&g, err, sizeof(err)), 0);
	assert_int_equal(g.synced_ms, T0 + 2);
	assert_synced(&g, 1);
	close_ok(&g);
}

/* A disk full at the sync alone: no tmpfs says so, XFS or NFS may. */
static int
sync_full(int fd)
{
	(void)fd;
	errno = ENOSPC;
	return -1;
}

/* A full disk at the sync: said so, of the segment named, and left. */
static void
assert_left_full(const struct segments *g, int rc, const char *err,
    const char *name)
{
	char want[128];

	assert_int_equal(rc, SEGMENTS_FULL);
	snprintf(want, sizeof(want), "is full (%s) at the sync of "
	    "segments/%s", strerror(ENOSPC), name);
	if (strstr(err, want) == NULL)
		fail_msg("not said: %s\nsaid: %s", want, err);
	assert_non_null(strstr(err, "free space on it"));
	assert_int_equal(g->fd, -1);
}

/*
 * A disk that says it is full at the sync of a segment (XFS, btrfs, NFS,
 * quotas) is a full disk, not the end of the run: at the sync due in a
 * write, the incident's, and the one of a turn, SEGMENTS_FULL comes
 * back, the segment is left, and the next turn begins a new segment
 * that the next write goes into; an older segment makes room for it.
 */
static void
test_full_at_the_sync(void **state)
{
	struct dir *d = *state;
	struct segments g;
	char err[512] = "", was[64], names[8][64];
	int64_t t = T0;

	open_ok(&g, d->rec, MIB, 2 * HOUR);
	assert_int_equal(turn(&g, t, 64), 1);
	put(&g, t + 1, 64);
	/* The sync due in a write. */
	snprintf(was, sizeof(was), "%s", g.name);
	g.sync = sync_full;
	at(t += SEGMENTS_SYNC_MS);
	assert_left_full(&g, segments_write(&g, "x\n", 2, err, sizeof(err)),
	    err, was);
	g.sync = fdatasync;
	assert_int_equal(turn(&g, ++t, 64), 1);
	assert_string_not_equal(g.name, was);
	put(&g, ++t, 64);
	assert_int_equal(listed(d->rec, names, 8, NULL), 2);
	assert_string_equal(names[0], was);
	assert_string_equal(names[1], g.name);
	/* The incident's: the oldest goes for room. */
	snprintf(was, sizeof(was), "%s", g.name);
	g.sync = sync_full;
	assert_left_full(&g, segments_sync(&g, err, sizeof(err)), err, was);
	g.sync = fdatasync;
	assert_int_equal(turn(&g, ++t, 64), 1);
	put(&g, ++t, 64);
	assert_int_equal(listed(d->rec, names, 8, NULL), 2);
	assert_string_equal(names[0], was);
	/* The turn's, as the segment is left for a full one. */
	snprintf(was, sizeof(was), "%s", g.name);
	g.sync = sync_full;
	at(++t);
	assert_left_full(&g, segments_turn(&g, t, g.segment_bytes, err,
	    sizeof(err)), err, was);
	g.sync = fdatasync;
	assert_int_equal(turn(&g, ++t, 64), 1);
	put(&g, ++t, 64);
	assert_string_not_equal(g.name, was);
	/*
	 * And the last, at the close: said, the folders let go, and no
	 * segment removed, as none follows.
	 */
	snprintf(was, sizeof(was), "%s", g.name);
	g.sync = sync_full;
	assert_int_equal(listed(d->rec, names, 8, NULL), 2);
	assert_int_equal(segments_close(&g, err, sizeof(err)), SEGMENTS_FULL);
	assert_non_null(strstr(err, was));
	assert_int_equal(g.segfd, -1);
	assert_int_equal(g.lockfd, -1);
	assert_int_equal(listed(d->rec, names, 8, NULL), 2);
}

/* n bytes of lines of 100 written; segments_write()'s status. */
static int
put_rc(struct segments *g, size_t n)
{
	char *p = malloc(n), err[512] = "";
	int rc;

	assert_non_null(p);
	/* Lines of 100: a write cut at a page's end leaves a torn one. */
	for (size_t i = 0; i < n; i++)
		p[i] = i % 100 == 99 ? '\n' : 'x';
	rc = segments_write(g, p, n, err, sizeof(err));
	if (rc == SEGMENTS_FULL) {
		assert_non_null(strstr(err, "is full"));
		assert_non_null(strstr(err, "free space on it"));
	} else if (rc != 0) {
		fail_msg("segments_write: %s", err);
	}
	free(p);
	return rc;
}

/* Whether each segment of dir is whole lines: no torn line stays. */
static void
assert_whole(const char *dir)
{
	char **paths;
	size_t n;

	assert_int_equal(segments_list(dir, &paths, &n), 0);
	for (size_t i = 0; i < n; i++) {
		FILE *f = fopen(paths[i], "r");
		int c, last = '\n';

		assert_non_null(f);
		while ((c = getc(f)) != EOF)
			last = c;
		fclose(f);
		if (last != '\n')
			fail_msg("%s ends in a torn line", paths[i]);
	}
	dirlist_free(paths, n);
}

/*
 * A real full disk (a tmpfs of 1 MiB, when root may mount one) under a
 * --record-size larger than it: the one segment fills it, its torn line
 * is taken back, the next begins and the oldest goes; from then on the
 * oldest goes at each fill and nothing new is lost; a disk filled by
 * another file loses lines until there is room again.
 */
static void
test_full_disk(void **state)
{
	struct dir *d = *state;
	struct segments g;
	char disk[128], path[256], names[64][64];
	uint64_t total;
	int fd, rc = 0;
	size_t i;

	snprintf(disk, sizeof(disk), "%s/disk", d->path);
	assert_int_equal(mkdir(disk, 0700), 0);
	if (mount("tmpfs", disk, "tmpfs", 0, "size=1m,mode=0700") != 0)
		skip(); /* not root, or no tmpfs: the integration test's */
	snprintf(d->rec, sizeof(d->rec), "%.100s/rec", disk);
	open_ok(&g, d->rec, 256 * MIB, 24 * HOUR);
	assert_int_equal(turn(&g, T0, 4096), 1);
	for (i = 0; i < 1000 && (rc = put_rc(&g, 4000)) == 0; i++)
		;
	assert_int_equal(rc, SEGMENTS_FULL);
	assert_whole(d->rec);
	/* Smaller segments from now on: an eighth of what the disk held. */
	assert_true(g.segment_bytes < MIB / 4);
	assert_int_equal(turn(&g, T0 + 1000, 4096), 1);
	for (i = 0; i < 2000; i++) {
		assert_true(turn(&g, T0 + 2000 + (int64_t)i, 4096) >= 0);
		assert_int_equal(put_rc(&g, 4000), 0);
	}
	assert_whole(d->rec);
	assert_true(listed(d->rec, names, 64, &total) >= 4);
	assert_true(total <= MIB);
	/* Another's file takes the disk: lines are lost, the run is not. */
	snprintf(path, sizeof(path), "%s/filler", disk);
	assert_true((fd = open(path, O_WRONLY | O_CREAT, 0600)) >= 0);
	{
		char buf[4096] = { 0 };

		while (write(fd, buf, sizeof(buf)) > 0)
			;
	}
	for (i = 0; i < 1000; i++) {
		assert_true(turn(&g, T0 + 5000, 4096) >= 0);
		if ((rc = put_rc(&g, 4000)) != 0)
			break;
	}
	assert_int_equal(rc, SEGMENTS_FULL);
	assert_whole(d->rec);
	close(fd);
	assert_int_equal(unlink(path), 0);
	/*
	 * The segment had room for the line lost: the lines begin again in
	 * it, as at a segment's start, and go in once there is room.
	 */
	snprintf(path, sizeof(path), "%s", g.name);
	assert_int_equal(turn(&g, T0 + 9000, 4096), 1);
	assert_string_equal(g.name, path);
	assert_int_equal(put_rc(&g, 4000), 0);
	close_ok(&g);
	assert_int_equal(umount(disk), 0);
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
		cmocka_unit_test_setup_teardown(test_wall_steps_prune_nothing,
		    setup, teardown),
		cmocka_unit_test_setup_teardown(test_age_after_a_step_back,
		    setup, teardown),
		cmocka_unit_test_setup_teardown(test_size_after_a_step_back,
		    setup, teardown),
		cmocka_unit_test_setup_teardown(test_earlier_runs_by_their_names,
		    setup, teardown),
		cmocka_unit_test_setup_teardown(test_planted_link_refused,
		    setup, teardown),
		cmocka_unit_test_setup_teardown(test_prune_leaves_links,
		    setup, teardown),
		cmocka_unit_test_setup_teardown(test_open_refuses_open_folders,
		    setup, teardown),
		cmocka_unit_test_setup_teardown(test_sync_at_will, setup,
		    teardown),
		cmocka_unit_test_setup_teardown(test_full_at_the_sync, setup,
		    teardown),
		cmocka_unit_test_setup_teardown(test_full_disk, setup,
		    teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
