/*
 * libFuzzer harness for the incident writer's input (incident.h): the
 * bytes as the text of up to four segments (a form feed begins the next)
 * in a folder of mkdtemp(), from which incident_write() gathers the lines
 * of its window, rebuilds the connections from their lines and draws the
 * page. Any text must give both files or a message, never a crash, a hang
 * or an overflow; a note names what it passed over.
 */
#include <dirent.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "incident.h"

#define T0 ((int64_t)1795748400 * 1000) /* 2026-11-27T03:00:00.000Z */
#define MIN ((int64_t)60 * 1000)
#define SEGMENTS 4

static char dir[64];

static void
note(void *ctx, const char *msg)
{
	(void)ctx;
	if (msg[0] == '\0')
		abort();
}

/* DIR/sub, there and empty. */
static void
empty(const char *sub)
{
	char path[128];
	struct dirent *e;
	DIR *d;

	snprintf(path, sizeof(path), "%s/%s", dir, sub);
	(void)mkdir(path, 0700);
	if ((d = opendir(path)) == NULL)
		abort();
	while ((e = readdir(d)) != NULL)
		if (e->d_name[0] != '.' && unlinkat(dirfd(d), e->d_name, 0) != 0)
			abort();
	closedir(d);
}

/* The folder goes with the fuzzer. */
static void
remove_dir(void)
{
	char path[128];

	empty("segments");
	empty("incidents");
	snprintf(path, sizeof(path), "%s/segments", dir);
	rmdir(path);
	snprintf(path, sizeof(path), "%s/incidents", dir);
	rmdir(path);
	rmdir(dir);
}

static void
put_segments(const uint8_t *data, size_t size)
{
	char path[128];

	for (int i = 0; i < SEGMENTS && size > 0; i++) {
		const uint8_t *ff = memchr(data, '\f', size);
		size_t n = ff != NULL && i + 1 < SEGMENTS ?
		    (size_t)(ff - data) : size;
		FILE *f;

		/* 20261127T030000.000Z.jsonl, 030500, 031000, 031500 */
		snprintf(path, sizeof(path), "%s/segments/20261127T03%02d00.000Z"
		    ".jsonl", dir, i * 5);
		if ((f = fopen(path, "w")) == NULL ||
		    fwrite(data, 1, n, f) != n || fclose(f) != 0)
			abort();
		data += n + (n < size);
		size -= n + (n < size);
	}
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct incident in = { .kind = INCIDENT_OOM_KILL, .at_ms = T0 +
	    15 * MIN };
	struct incident_notes notes = { note, NULL };
	char path[4300], err[512] = "";

	if (dir[0] == '\0') {
		/* In memory where there is /dev/shm: the writer syncs. */
		snprintf(dir, sizeof(dir), "%s/mmp-fuzz-incident-XXXXXX",
		    access("/dev/shm", W_OK) == 0 ? "/dev/shm" : "/tmp");
		if (mkdtemp(dir) == NULL)
			abort();
		atexit(remove_dir);
	}
	empty("segments");
	empty("incidents");
	snprintf(in.what, sizeof(in.what), "the kernel killed mariadbd");
	put_segments(data, size);
	if (incident_write(dir, &in, 10 * MIN, &notes, path, sizeof(path),
	    err, sizeof(err)) != 0 && err[0] == '\0')
		abort(); /* failed without a word */
	return 0;
}
