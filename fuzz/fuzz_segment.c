/*
 * libFuzzer harness for the segment reader, the line-to-sample path of
 * --read DIR: the bytes as a segment (a descriptor of memfd_create()),
 * read in lines by reader.h with a small bound so that lines too long and
 * a last line cut short are met often, each line read back by jsonl.h
 * into a ring as replay.c does (the events a line keeps come from the
 * lines before), the samples through the whole run's statistics, the
 * chart, the summary and the SVG. Nothing may crash, hang or overflow.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "chart.h"
#include "jsonl.h"
#include "picture.h"
#include "reader.h"
#include "ring.h"
#include "runstats.h"
#include "summary.h"

#define MAX_EVENTS 16
#define WINDOW 8

/* One line, as replay_line() takes it: into the ring, or left out. */
static void
one_line(struct ring *ring, struct jsonl_meta *meta, struct runstats *run,
    struct chart *chart, const char *line, size_t n)
{
	struct sample *s = ring_slot(ring);
	char err[512] = "";
	int rc = jsonl_sample(line, n, s, ring_max_events(ring), meta, err,
	    sizeof(err));

	if (rc == -1 && err[0] == '\0')
		abort(); /* refused without a word */
	if (rc != 0)
		return;
	if (s->n_finished > 0) {
		struct finished_statement *f = ring_finished(ring,
		    s->n_finished);

		if (f == NULL)
			abort();
		memcpy(f, s->finished, s->n_finished * sizeof(*f));
	}
	ring_commit(ring);
	runstats_add(run, s);
	chart_add(chart, s);
}

static void
picture(const struct ring *ring, const struct runstats *run,
    const struct chart *chart)
{
	struct summary sum;
	char *buf = NULL;
	size_t len = 0;
	FILE *fp;

	if (summary_build(ring, 0, &sum) == 0 && summary_add_run(&sum, run) == 0)
		(void)summary_most_held(&sum);
	summary_free(&sum);
	if ((fp = open_memstream(&buf, &len)) == NULL)
		abort();
	picture_svg(fp, chart, "global", "global total");
	fclose(fp);
	free(buf);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct reader r = { .max_line = 2048 };
	struct jsonl_meta meta = { 0 };
	struct ring *ring = ring_create(WINDOW, MAX_EVENTS);
	struct runstats *run = runstats_create();
	struct chart *chart = chart_create();
	enum reader_got got;
	char *line;
	size_t n;
	int fd = memfd_create("segment", MFD_CLOEXEC);

	if (fd < 0 || ring == NULL || run == NULL || chart == NULL ||
	    write(fd, data, size) != (ssize_t)size || lseek(fd, 0, SEEK_SET) != 0)
		abort();
	reader_reset(&r, fd, "segment");
	while ((got = reader_next(&r, &line, &n)) != READER_END) {
		if (got == READER_ERROR)
			abort(); /* a regular file reads to its end */
		if (got == READER_LINE && memchr(line, '\n', n) != NULL)
			abort(); /* a line holds no newline */
		if (got == READER_LINE)
			one_line(ring, &meta, run, chart, line, n);
	}
	picture(ring, run, chart);
	close(fd);
	free(r.buf);
	jsonl_meta_free(&meta);
	ring_free(ring);
	runstats_free(run);
	chart_free(chart);
	return 0;
}
