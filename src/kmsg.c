/*
 * The kernel's log read for an OOM kill (see kmsg.h). Each read() of
 * /dev/kmsg gives one record; opened O_NONBLOCK, the reads end with
 * EAGAIN at the newest record instead of waiting for the next. A regular
 * file (a test's) gives many records a read: they are split at the
 * newlines that do not start a continuation line (" KEY=value").
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "kmsg.h"

/* A record is at most 8 KiB (the kernel's CONSOLE_EXT_LOG_MAX). */
#define KMSG_RECORD_MAX 8192

/* The decimal number at p is pid, and ends there (not 12 in 123). */
static bool
is_pid(const char *p, const char *end, uint64_t pid)
{
	char want[32];
	size_t n = (size_t)snprintf(want, sizeof(want), "%" PRIu64, pid);

	return (size_t)(end - p) >= n && memcmp(p, want, n) == 0 &&
	    (p + n == end || p[n] < '0' || p[n] > '9');
}

/* The first place of needle in the len bytes at hay, or NULL. */
static const char *
find(const char *hay, const char *end, const char *needle)
{
	return memmem(hay, (size_t)(end - hay), needle, strlen(needle));
}

bool
kmsg_parse_oom(const char *record, size_t len, uint64_t pid,
    struct kmsg_oom *out)
{
	const char *end = record + len, *msg, *nl, *p, *at;
	uint64_t usec = 0;
	bool killed;
	int field;

	if ((nl = memchr(record, '\n', len)) != NULL)
		end = nl;
	if ((msg = memchr(record, ';', (size_t)(end - record))) == NULL)
		return false;
	/* The prefix: priority, sequence, time, flags. */
	for (p = record, field = 0; p < msg && field < 2; p++)
		if (*p == ',')
			field++;
	if (field == 2 && p < msg && *p >= '0' && *p <= '9')
		usec = strtoull(p, NULL, 10);
	msg++;
	if ((at = find(msg, end, "Killed process ")) != NULL &&
	    is_pid(at + 15, end, pid))
		killed = true;
	else if (end - msg > 9 && memcmp(msg, "oom-kill:", 9) == 0 &&
	    (at = find(msg, end, ",pid=")) != NULL && is_pid(at + 5, end, pid))
		killed = false;
	else
		return false;
	out->usec = usec;
	out->killed = killed;
	snprintf(out->line, sizeof(out->line), "%.*s", (int)(end - msg), msg);
	return true;
}

/* Each record of the n bytes at buf looked at; *found set by the best. */
static void
scan(const char *buf, size_t n, uint64_t pid, struct kmsg_oom *out,
    int *found)
{
	const char *p = buf, *end = buf + n, *nl;
	struct kmsg_oom one;

	while (p < end) {
		/* A continuation line starts with a space: it is the record's. */
		for (nl = p; (nl = memchr(nl, '\n', (size_t)(end - nl))) != NULL &&
		    nl + 1 < end && nl[1] == ' '; nl++)
			;
		if (nl == NULL)
			nl = end;
		if (kmsg_parse_oom(p, (size_t)(nl - p), pid, &one) &&
		    (one.killed || *found == 0 || !out->killed)) {
			*out = one;
			*found = 1;
		}
		p = nl + 1;
	}
}

int
kmsg_find_oom(const char *path, uint64_t pid, struct kmsg_oom *out)
{
	char *buf = malloc(KMSG_RECORD_MAX);
	int fd, found = 0, saved;
	ssize_t got;

	if (buf == NULL)
		return -1;
	if ((fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC)) < 0) {
		saved = errno;
		free(buf);
		errno = saved;
		return -1;
	}
	while ((got = read(fd, buf, KMSG_RECORD_MAX)) != 0) {
		if (got < 0) {
			/* EPIPE: records overwritten under us; read on. */
			if (errno == EINTR || errno == EPIPE)
				continue;
			if (errno == EAGAIN)
				break;
			saved = errno;
			close(fd);
			free(buf);
			errno = saved;
			return -1;
		}
		scan(buf, (size_t)got, pid, out, &found);
	}
	close(fd);
	free(buf);
	return found;
}
