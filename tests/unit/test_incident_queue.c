/*
 * The incidents' thread (incident_queue.c): incidents handed over one
 * after another, the next while the first is written, are all written,
 * each whole, by the time incident_queue_finish() returns; after a stop,
 * only the one being written is, the others named in one note; a queue
 * that could not start is no queue to finish.
 */
#include <dirent.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <setjmp.h>
#include <cmocka.h>

#include "fixtures.h"
#include "incident_queue.h"
#include "notes.h"

#define T0 ((int64_t)1795748700 * 1000) /* 2026-11-27T03:05:00.000Z */

static char dir[64];

static int
setup(void **state)
{
	char path[128];
	FILE *fp;

	(void)state;
	snprintf(dir, sizeof(dir), "/tmp/mmp-test-queue-XXXXXX");
	if (mkdtemp(dir) == NULL)
		return -1;
	snprintf(path, sizeof(path), "%s/segments", dir);
	mkdir(path, 0700);
	snprintf(path, sizeof(path), "%s/incidents", dir);
	mkdir(path, 0700);
	snprintf(path, sizeof(path), "%s/segments/20261127T030500.000Z.jsonl",
	    dir);
	if ((fp = fopen(path, "w")) == NULL)
		return -1;
	fputs("{\"type\":\"record\",\"version\":1,\"timestamp\":"
	    "\"2026-11-27T03:05:00.000Z\",\"server_version\":\"10.11\","
	    "\"server_pid\":7,\"server_started\":1795630870,"
	    "\"interval_ms\":1000}\n"
	    "{\"type\":\"connections\",\"timestamp\":"
	    "\"2026-11-27T03:05:01.000Z\",\"full\":true,\"rows\":[{\"id\":4,"
	    "\"bytes\":1048576}],\"gone\":[]}\n", fp);
	return fclose(fp);
}

static int
teardown(void **state)
{
	(void)state;
	return fixture_remove_tree(dir);
}

/* The recorder's descriptors of DIR/segments and DIR/incidents. */
struct fds {
	int seg, inc;
};

static struct incident_queue *
start(struct fds *fd, volatile sig_atomic_t *stop)
{
	struct incident_queue *q;

	fd->seg = fixture_folder_fd(dir, "segments");
	fd->inc = fixture_folder_fd(dir, "incidents");
	q = incident_queue_start(dir, fd->seg, fd->inc, 60 * 1000, stop);
	assert_non_null(q);
	return q;
}

static void
close_fds(const struct fds *fd)
{
	close(fd->seg);
	close(fd->inc);
}

/* Three restarts, each while the one before may still be written. */
static void
post_three(struct incident_queue *q)
{
	struct incident in = { .kind = INCIDENT_RESTARTED };

	for (int i = 0; i < 3; i++) {
		in.at_ms = T0 + 5000 + i;
		snprintf(in.what, sizeof(in.what), "restart %d", i);
		assert_int_equal(incident_queue_post(q, &in), 0);
	}
}

/* The files in DIR/incidents ending so. */
static int
count(const char *suffix)
{
	char path[128];
	struct dirent *e;
	DIR *d;
	int n = 0;

	snprintf(path, sizeof(path), "%s/incidents", dir);
	d = opendir(path);
	assert_non_null(d);
	while ((e = readdir(d)) != NULL) {
		size_t len = strlen(e->d_name);

		if (len > strlen(suffix) && strcmp(e->d_name + len -
		    strlen(suffix), suffix) == 0)
			n++;
	}
	closedir(d);
	return n;
}

static void
test_all_handed_over_are_written(void **state)
{
	volatile sig_atomic_t stop = 0;
	struct fds fd;
	struct incident_queue *q = start(&fd, &stop);

	(void)state;
	post_three(q);
	incident_queue_finish(q);
	close_fds(&fd);
	assert_int_equal(count(".html"), 3);
	assert_int_equal(count(".jsonl"), 3);
	assert_int_equal(count(".tmp"), 0);
}

/*
 * A stop while they wait: the one being written, if any, is finished
 * (its page is counted whole once there), the others are not begun, and
 * one note names them.
 */
static void
test_stop_writes_only_the_one_begun(void **state)
{
	volatile sig_atomic_t stop = 0;
	struct fds fd;
	struct incident_queue *q = start(&fd, &stop);
	int before, written;
	char want[128];

	(void)state;
	notes_start();
	post_three(q);
	before = count(".html");
	stop = 1;
	incident_queue_finish(q);
	notes_read();
	close_fds(&fd);
	written = count(".html");
	assert_true(written <= before + 1);
	assert_int_equal(count(".jsonl"), written);
	assert_int_equal(count(".tmp"), 0);
	if (written == 3)
		return; /* all begun before the stop: nothing to drop */
	snprintf(want, sizeof(want), "--record: stopping; %d incident%s not "
	    "written", 3 - written, 3 - written == 1 ? "" : "s");
	assert_said(want);
	/* The last one handed over is among those named, in one note. */
	assert_said("restarted at 2026-11-27T03:05:05.002Z");
	assert_null(strstr(strstr(notes, "stopping") + 1, "stopping"));
}

/*
 * A stop before any was begun: none is written, each is named (in a note
 * each, or together, as the thread woke to them).
 */
static void
test_stop_before_any_begun(void **state)
{
	volatile sig_atomic_t stop = 1;
	struct fds fd;
	struct incident_queue *q = start(&fd, &stop);

	(void)state;
	notes_start();
	post_three(q);
	incident_queue_finish(q);
	notes_read();
	close_fds(&fd);
	assert_int_equal(count(".html"), 0);
	assert_int_equal(count(".jsonl"), 0);
	assert_said("--record: stopping; ");
	assert_said("not written (");
	assert_said("in the record): restarted at 2026-11-27T03:05:05.000Z");
	assert_said("restarted at 2026-11-27T03:05:05.001Z");
	assert_said("restarted at 2026-11-27T03:05:05.002Z");
	assert_null(strstr(notes, "written to"));
}

static void
test_finish_nothing(void **state)
{
	struct fds fd;
	struct incident_queue *q = start(&fd, NULL);

	(void)state;
	incident_queue_finish(q);
	incident_queue_finish(NULL);
	close_fds(&fd);
	assert_int_equal(count(".html"), 0);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_all_handed_over_are_written,
		    setup, teardown),
		cmocka_unit_test_setup_teardown(
		    test_stop_writes_only_the_one_begun, setup, teardown),
		cmocka_unit_test_setup_teardown(test_stop_before_any_begun,
		    setup, teardown),
		cmocka_unit_test_setup_teardown(test_finish_nothing, setup,
		    teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
