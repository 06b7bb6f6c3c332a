/*
 * bench/incident_delay DIR CONNECTIONS [CHANGING]: how long writing an
 * incident holds up --record's sampling, at CONNECTIONS connections.
 *
 * Writes into DIR (made, empty) a record as the recorder writes one: 12
 * minutes of a sample a second (--format json's line, with the server's
 * process) and, beside each, the connections line of CHANGING connections
 * (a tenth by default) whose memory moved, every connection at each
 * segment's start, segments turned at 16 MiB as by the default
 * --record-size. Then it ticks as the recorder's sampling thread does,
 * every 1000 ms on absolute deadlines of the monotonic clock, and at the
 * third tick writes an incident of the last 10 minutes (the defaults)
 * the way src/record.c does: to the incidents' thread (incident_queue.h)
 * where the tree has one, else incident_write() there and then. It
 * prints the latest a tick began after that, until the incident's page
 * was there (delay_ms), how long the ticking thread took to hand it over
 * (held_ms), how long one takes to write whole, timed alone (written_ms),
 * and its size:
 *
 *   delay_ms=N held_ms=N written_ms=N jsonl_bytes=N connections=N
 *   changing=N
 *
 * Built against build/libcore.a by bench/record_cost.py (the Makefile's
 * $(BUILD)/incident_delay).
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "conns_lines.h"
#include "incident.h"
/*
 * The tree's incident_write(): since the reader of segments came
 * (reader.h), it takes where to say what it passed over.
 */
#if __has_include("reader.h")
#define write_incident(dir, in, path, pathlen, err, errlen) \
	incident_write(dir, in, WINDOW_MS, NULL, path, pathlen, err, errlen)
#else
#define write_incident(dir, in, path, pathlen, err, errlen) \
	incident_write(dir, in, WINDOW_MS, path, pathlen, err, errlen)
#endif
#if __has_include("incident_queue.h")
#include "incident_queue.h"
#endif
#include "obuf.h"
#include "output.h"
#include "output_table.h"
#include "utc.h"

#define TICK_MS 1000
#define WINDOW_MS (10 * 60000)
#define RECORDED_S (12 * 60)
#define SEGMENT_BYTES ((size_t)16 << 20)
#define EVENTS 24
#define MIB ((int64_t)1 << 20)
/* Ticks waited at most for the incident's page. */
#define MAX_TICKS 900

/* The figures printed. */
struct result {
	int64_t delay_ms;    /* the latest a tick began, after the hand-over */
	int64_t held_ms;     /* the sampling thread's time on the incident */
	int64_t written_ms;  /* an incident written whole, timed alone */
};

struct writer {
	const char *dir;
	FILE *seg;
	size_t seg_bytes;
	struct conns_book book;
	struct output json;
	struct obuf sample; /* the json format's line, from fopencookie */
	struct obuf line;
};

/* fopencookie's writer, as record.c's: the json format's bytes. */
static ssize_t
sample_write(void *ctx, const char *buf, size_t n)
{
	struct writer *w = ctx;

	obuf_write(&w->sample, buf, n);
	return obuf_status(&w->sample) == 0 ? (ssize_t)n : -1;
}

static int64_t
wall_ms(void)
{
	struct timespec t;

	clock_gettime(CLOCK_REALTIME, &t);
	return (int64_t)t.tv_sec * 1000 + t.tv_nsec / 1000000;
}

static int64_t
mono_ms(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (int64_t)t.tv_sec * 1000 + t.tv_nsec / 1000000;
}

static void
put(struct writer *w, const char *p, size_t n)
{
	if (fwrite(p, 1, n, w->seg) != n) {
		perror("incident_delay: write");
		exit(1);
	}
	w->seg_bytes += n;
}

/* A new segment named by ms, its record line first, as segments.c does. */
static void
turn(struct writer *w, int64_t ms)
{
	char t[64], path[4200], line[512];

	if (w->seg != NULL && fclose(w->seg) != 0) {
		perror("incident_delay: close");
		exit(1);
	}
	utc_format(t, sizeof(t), ms, UTC_STAMP);
	snprintf(path, sizeof(path), "%s/segments/%.4s%.2s%.2sT%.2s%.2s%.2s."
	    "%.3sZ.jsonl", w->dir, t, t + 5, t + 8, t + 11, t + 14, t + 17,
	    t + 20);
	if ((w->seg = fopen(path, "we")) == NULL) {
		perror(path);
		exit(1);
	}
	w->seg_bytes = 0;
	snprintf(line, sizeof(line), "{\"type\":\"record\",\"version\":1,"
	    "\"timestamp\":\"%s\",\"server_version\":\"10.11.6-MariaDB\","
	    "\"server_pid\":2902,\"server_started\":1795630870,"
	    "\"interval_ms\":1000}\n", t);
	put(w, line, strlen(line));
	output_new_file(&w->json);
}

static void
sample(struct writer *w, uint64_t seq, int64_t ms, int64_t resident)
{
	struct event_stat e[EVENTS];
	struct sample s = {
		.seq = seq, .elapsed_us = seq * 1000000, .wall_ms = ms,
		.has_deltas = seq > 1, .total_bytes = resident / 2,
		.n_events = EVENTS, .events = e,
		.process = { .known = true, .resident_bytes = resident,
		    .anon_bytes = resident - 4096, .file_bytes = 4096 },
	};

	memset(e, 0, sizeof(e));
	for (size_t i = 0; i < EVENTS; i++) {
		snprintf(e[i].name, sizeof(e[i].name), "memory/sql/event_%zu",
		    i);
		e[i].current_bytes = resident / 64 / (int64_t)(i + 1);
		e[i].high_bytes = e[i].current_bytes + 4096;
		e[i].alloc_bytes = (uint64_t)e[i].current_bytes + 8192;
		e[i].free_bytes = 8192;
	}
	obuf_clear(&w->sample);
	if (output_sample(&w->json, &s) != 0 || fflush(w->json.fp) != 0 ||
	    obuf_status(&w->sample) != 0) {
		fputs("incident_delay: out of memory\n", stderr);
		exit(1);
	}
	put(w, w->sample.p, w->sample.len);
}

/* The connections now: each of the changing ones moves every second. */
static void
connections(struct writer *w, struct conn_row *c, size_t n, size_t changing,
    uint64_t seq, int64_t ms, bool full)
{
	for (size_t i = 0; i < changing && i < n; i++) {
		size_t k = (seq * changing + i) % n;

		c[k].bytes = (int64_t)(k % 97 + 1) * 65536 +
		    (int64_t)(seq % 50) * 4096 * (int64_t)(k % 7 + 1);
		c[k].peak_bytes = c[k].bytes > c[k].peak_bytes ? c[k].bytes :
		    c[k].peak_bytes;
	}
	obuf_clear(&w->line);
	if (conns_line_put(&w->line, &w->book, c, n, full, ms) < 0 ||
	    obuf_status(&w->line) != 0) {
		fputs("incident_delay: out of memory\n", stderr);
		exit(1);
	}
	put(w, w->line.p, w->line.len);
}

static struct conn_row *
make_connections(size_t n, int64_t t0)
{
	struct conn_row *c = calloc(n, sizeof(*c));

	if (c == NULL) {
		fputs("incident_delay: out of memory\n", stderr);
		exit(1);
	}
	for (size_t i = 0; i < n; i++) {
		c[i].connection_id = 100 + i;
		c[i].thread_id = 140 + i;
		snprintf(c[i].user, sizeof(c[i].user), "app%zu", i % 8);
		snprintf(c[i].host, sizeof(c[i].host), "10.0.%zu.%zu:%zu",
		    i / 250 % 256, i % 250, 40000 + i % 20000);
		snprintf(c[i].db, sizeof(c[i].db), "shop");
		snprintf(c[i].command, sizeof(c[i].command), "Sleep");
		c[i].since_ms = t0 - (int64_t)(i % 600) * 1000;
		c[i].bytes = (int64_t)(i % 97 + 1) * 65536;
		c[i].peak_bytes = c[i].bytes;
		if (i % 10 == 0) {
			snprintf(c[i].command, sizeof(c[i].command), "Query");
			c[i].running = true;
			snprintf(c[i].text, sizeof(c[i].text), "SELECT o.id, "
			    "o.total FROM orders o JOIN items i ON i.order_id"
			    " = o.id WHERE o.customer = %zu ORDER BY o.at", i);
		}
	}
	return c;
}

/* The record of RECORDED_S seconds before `end`, then its incident line. */
static void
record(struct writer *w, size_t n, size_t changing, int64_t end,
    struct incident *in)
{
	int64_t t0 = end - (int64_t)RECORDED_S * 1000;
	struct conn_row *c = make_connections(n, t0);
	struct obuf b = { 0 };

	for (uint64_t s = 1; s <= RECORDED_S; s++) {
		int64_t ms = t0 + (int64_t)s * 1000;
		bool full = w->seg == NULL || w->seg_bytes >= SEGMENT_BYTES;

		if (full)
			turn(w, ms);
		sample(w, s, ms, 4096 * MIB + (int64_t)s * MIB);
		connections(w, c, n, changing, s, ms, full);
	}
	in->kind = INCIDENT_LIMIT_SHARE;
	in->at_ms = end;
	snprintf(in->what, sizeof(in->what), "the server's resident memory "
	    "passed 90%% of its cgroup's limit (bench/incident_delay)");
	in->process.known = true;
	in->process.resident_bytes = 4096 * MIB + RECORDED_S * MIB;
	incident_put_line(&b, in);
	put(w, b.p, b.len);
	obuf_free(&b);
	free(c);
	if (fclose(w->seg) != 0) {
		perror("incident_delay: close");
		exit(1);
	}
}

/* Whether the incident's page is in DIR/incidents yet; its path then. */
static bool
written(const char *dir, char *path, size_t pathlen)
{
	char folder[4096];
	struct dirent *e;
	DIR *d;
	bool found = false;

	if ((size_t)snprintf(folder, sizeof(folder), "%s/incidents", dir) >=
	    sizeof(folder) || (d = opendir(folder)) == NULL)
		return false;
	while (!found && (e = readdir(d)) != NULL) {
		size_t len = strlen(e->d_name);

		if (len > 5 && strcmp(e->d_name + len - 5, ".html") == 0) {
			found = (size_t)snprintf(path, pathlen, "%s/%s",
			    folder, e->d_name) < pathlen;
		}
	}
	closedir(d);
	return found;
}

/*
 * Hands the incident over as record.c does: to the incidents' thread
 * where the tree has one, else written there and then.
 */
static void
hand_over(const char *dir, const struct incident *in, void **q)
{
#if __has_include("incident_queue.h")
	char seg[4200], sub[4200];
	int segfd, fd;

	snprintf(seg, sizeof(seg), "%s/segments", dir);
	snprintf(sub, sizeof(sub), "%s/incidents", dir);
	/* The recorder's descriptors of its folders, open until the end. */
	if ((segfd = open(seg, O_RDONLY | O_DIRECTORY | O_CLOEXEC)) < 0 ||
	    (fd = open(sub, O_RDONLY | O_DIRECTORY | O_CLOEXEC)) < 0) {
		perror(dir);
		exit(1);
	}
	*q = incident_queue_start(dir, segfd, fd, WINDOW_MS, NULL);
	if (*q == NULL || incident_queue_post(*q, in) != 0) {
		fputs("incident_delay: no thread\n", stderr);
		exit(1);
	}
#else
	char path[4200], err[512];

	*q = NULL;
	if (write_incident(dir, in, path, sizeof(path), err,
	    sizeof(err)) != 0) {
		fprintf(stderr, "incident_delay: %s\n", err);
		exit(1);
	}
#endif
}

/*
 * The sampling thread's ticks: the third hands the incident over, as
 * record.c's observer does after its sample; the ticks after it, until
 * its page is written, say how late they began.
 */
static void
tick(const char *dir, const struct incident *in, struct result *res,
    char *path, size_t pathlen)
{
	struct timespec due;
	int64_t at = 0;
	void *q = NULL;
	char err[512];

	clock_gettime(CLOCK_MONOTONIC, &due);
	for (int i = 0; i < MAX_TICKS; i++) {
		int64_t late;

		due.tv_sec += TICK_MS / 1000;
		while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &due,
		    NULL) == EINTR)
			;
		late = mono_ms() - ((int64_t)due.tv_sec * 1000 +
		    due.tv_nsec / 1000000);
		if (i > 2 && late > res->delay_ms)
			res->delay_ms = late;
		if (i > 2 && written(dir, path, pathlen))
			break;
		if (i == 2) {
			at = mono_ms();
			hand_over(dir, in, &q);
			res->held_ms = mono_ms() - at;
		}
	}
#if __has_include("incident_queue.h")
	incident_queue_finish(q);
#endif
	/* The incident written again, alone, timed whole. */
	at = mono_ms();
	if (write_incident(dir, in, path, pathlen, err,
	    sizeof(err)) != 0) {
		fprintf(stderr, "incident_delay: %s\n", err);
		exit(1);
	}
	res->written_ms = mono_ms() - at;
}

int
main(int argc, char **argv)
{
	static const cookie_io_functions_t io = { .write = sample_write };
	struct writer w = { 0 };
	struct incident in = { 0 };
	char path[4200];
	struct stat st;
	struct result res = { 0 };
	size_t n, changing;

	if (argc < 3 || argc > 4) {
		fputs("usage: incident_delay DIR CONNECTIONS [CHANGING]\n",
		    stderr);
		return 2;
	}
	w.dir = argv[1];
	n = strtoul(argv[2], NULL, 10);
	changing = argc == 4 ? strtoul(argv[3], NULL, 10) : n / 10;
	snprintf(path, sizeof(path), "%s/segments", w.dir);
	if (mkdir(w.dir, 0700) != 0 || mkdir(path, 0700) != 0) {
		perror(path);
		return 1;
	}
	snprintf(path, sizeof(path), "%s/incidents", w.dir);
	if (mkdir(path, 0700) != 0) {
		perror(path);
		return 1;
	}
	w.json.fmt = output_table_find("json");
	w.json.grain = "global";
	if ((w.json.fp = fopencookie(&w, "w", io)) == NULL)
		return 1;
	record(&w, n, changing, wall_ms(), &in);
	tick(w.dir, &in, &res, path, sizeof(path));
	/* The page's path: the lines are beside it. */
	snprintf(path + strlen(path) - 5, 7, ".jsonl");
	if (stat(path, &st) != 0) {
		perror(path);
		return 1;
	}
	fprintf(stdout, "delay_ms=%" PRId64 " held_ms=%" PRId64 " written_ms=%"
	    PRId64 " jsonl_bytes=%jd connections=%zu changing=%zu\n",
	    res.delay_ms, res.held_ms, res.written_ms, (intmax_t)st.st_size,
	    n, changing);
	fclose(w.json.fp);
	output_release(&w.json);
	obuf_free(&w.sample);
	obuf_free(&w.line);
	conns_book_free(&w.book);
	return 0;
}
