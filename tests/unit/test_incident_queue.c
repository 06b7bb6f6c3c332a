/*
 * The incidents' thread (incident_queue.c): incidents handed over one
 * after another, the next while the first is written, are all written,
 * each whole, by the time incident_queue_finish() returns; a queue that
 * could not start is no queue to finish.
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
start(struct fds *fd)
{
	struct incident_queue *q;

	fd->seg = fixture_folder_fd(dir, "segments");
	fd->inc = fixture_folder_fd(dir, "incidents");
	q = incident_queue_start(dir, fd->seg, fd->inc, 60 * 1000);
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
	struct fds fd;
	struct incident_queue *q = start(&fd);

	(void)state;
	post_three(q);
	incident_queue_finish(q);
	close_fds(&fd);
	assert_int_equal(count(".html"), 3);
	assert_int_equal(count(".jsonl"), 3);
	assert_int_equal(count(".tmp"), 0);
}

static void
test_finish_nothing(void **state)
{
	struct fds fd;
	struct incident_queue *q = start(&fd);

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
		cmocka_unit_test_setup_teardown(test_finish_nothing, setup,
		    teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
