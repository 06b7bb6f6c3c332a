/*
 * An incident written from segments written by hand (incident.c and its
 * page), in a folder of mkdtemp() removed afterwards: the record line,
 * samples as --format json writes them (output_sample()'s own lines),
 * connections lines and a last line torn by a kill. The .jsonl holds
 * the window's lines exactly, after one full connections line (the
 * connections at the window's start); the page is a whole document that
 * names the largest holder and its statement, markup escaped.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <unistd.h>

#include <setjmp.h>
#include <cmocka.h>

#include <jansson.h>

#include "conns_lines.h"
#include "fixtures.h"
#include "incident.h"
#include "obuf.h"
#include "output.h"
#include "output_table.h"
#include "reader.h"
#include "utc.h"

#define T0 ((int64_t)1795748700 * 1000) /* 2026-11-27T03:05:00.000Z */
#define MIN ((int64_t)60 * 1000)
#define MIB ((int64_t)1 << 20)

/* Connection 3's statement: the page must show it, markup escaped. */
#define BIG_TEXT "SELECT '<b>big</b>' & \"more\" FROM t ORDER BY 1"
#define BIG_SHOWN "SELECT &#39;&lt;b&gt;big&lt;/b&gt;&#39; &amp; " \
	"&quot;more&quot; FROM t ORDER BY 1"

/* One line of a segment, and when it is stamped. */
struct line {
	int64_t ms;
	char *text; /* with its newline */
};

struct fix {
	char dir[64];
	char path[256];
	/* The segments' lines, in the order written. */
	struct line lines[512];
	size_t n;
	/* The connections as the lines say, as the writer keeps them. */
	struct conns_book book;
	struct conn_row conns[3];
};

static int
setup(void **state)
{
	struct fix *f = calloc(1, sizeof(*f));
	char path[128];

	if (f == NULL)
		return -1;
	snprintf(f->dir, sizeof(f->dir), "/tmp/mmp-test-incident-XXXXXX");
	if (mkdtemp(f->dir) == NULL) {
		free(f);
		return -1;
	}
	snprintf(path, sizeof(path), "%s/segments", f->dir);
	mkdir(path, 0700);
	snprintf(path, sizeof(path), "%s/incidents", f->dir);
	mkdir(path, 0700);
	*state = f;
	return 0;
}

static int
teardown(void **state)
{
	struct fix *f = *state;
	char inc[128];
	int rc;

	/* test_full_disk's, when it failed before its end. */
	snprintf(inc, sizeof(inc), "%.100s/incidents", f->dir);
	(void)umount2(inc, MNT_DETACH);
	rc = fixture_remove_tree(f->dir);

	for (size_t i = 0; i < f->n; i++)
		free(f->lines[i].text);
	conns_book_free(&f->book);
	free(f);
	return rc;
}

static void
add(struct fix *f, int64_t ms, const char *text, size_t len)
{
	assert_true(f->n < sizeof(f->lines) / sizeof(f->lines[0]));
	f->lines[f->n].ms = ms;
	f->lines[f->n].text = strndup(text, len);
	assert_non_null(f->lines[f->n].text);
	f->n++;
}

static void
add_record(struct fix *f, int64_t ms)
{
	char t[64], line[256];

	utc_format(t, sizeof(t), ms, UTC_STAMP);
	snprintf(line, sizeof(line), "{\"type\":\"record\",\"version\":1,"
	    "\"timestamp\":\"%s\",\"server_version\":\"11.4.2-MariaDB\","
	    "\"server_pid\":2902,\"server_started\":1795630870,"
	    "\"interval_ms\":1000}\n", t);
	add(f, ms, line, strlen(line));
}

/* A --global sample as --format json writes it. */
static void
add_sample(struct fix *f, int64_t ms, uint64_t seq, int64_t resident)
{
	struct event_stat e[2] = { ev("memory/sql/THD::main_mem_root",
	    resident / 4), ev("memory/innodb/buf_buf_pool", resident / 2) };
	struct sample s = {
		.seq = seq, .elapsed_us = seq * 1000000, .wall_ms = ms,
		.has_deltas = seq > 1, .total_bytes = resident * 3 / 4,
		.n_events = 2, .events = e,
		.process = { .known = true, .resident_bytes = resident,
		    .anon_bytes = resident - 4096, .file_bytes = 4096 },
	};
	struct output o = {
		.fmt = output_table_find("json"), .grain = "global",
	};
	char *buf = NULL;
	size_t len = 0;

	o.fp = open_memstream(&buf, &len);
	assert_non_null(o.fp);
	assert_int_equal(output_sample(&o, &s), 0);
	output_release(&o);
	fclose(o.fp);
	/* One line: the format's, as the record writes it. */
	assert_true(len > 0 && buf[len - 1] == '\n');
	assert_null(memchr(buf, '\n', len - 1));
	assert_non_null(strstr(buf, "\"process_resident_bytes\":"));
	add(f, ms, buf, len);
	free(buf);
}

/* The connections line of f->conns as they are now. */
static void
add_conns(struct fix *f, int64_t ms, bool full)
{
	struct obuf b = { 0 };
	int rc = conns_line_put(&b, &f->book, f->conns, 3, full, ms);

	assert_true(rc >= 0);
	if (rc == 1)
		add(f, ms, b.p, b.len);
	obuf_free(&b);
}

static void
add_incident(struct fix *f, const struct incident *in)
{
	struct obuf b = { 0 };

	incident_put_line(&b, in);
	assert_int_equal(obuf_status(&b), 0);
	add(f, in->at_ms, b.p, b.len);
	obuf_free(&b);
}

/* Lines [from, to) of f into the segment named for its first line's time. */
static void
write_segment(struct fix *f, size_t from, size_t to, const char *torn)
{
	char t[64], name[64], path[256];
	FILE *fp;

	utc_format(t, sizeof(t), f->lines[from].ms, UTC_STAMP);
	/* 2026-11-27T03:05:00.000Z -> 20261127T030500.000Z.jsonl */
	snprintf(name, sizeof(name), "%.4s%.2s%.2sT%.2s%.2s%.2s.%.3sZ.jsonl",
	    t, t + 5, t + 8, t + 11, t + 14, t + 17, t + 20);
	snprintf(path, sizeof(path), "%s/segments/%s", f->dir, name);
	fp = fopen(path, "w");
	assert_non_null(fp);
	for (size_t i = from; i < to; i++)
		fputs(f->lines[i].text, fp);
	if (torn != NULL)
		fputs(torn, fp);
	assert_int_equal(fclose(fp), 0);
}

static struct conn_row
conn(uint64_t id, int64_t bytes, const char *command, const char *text)
{
	struct conn_row r = {
		.connection_id = id, .thread_id = id + 40,
		.since_ms = T0 - 3 * MIN, .bytes = bytes, .peak_bytes = bytes,
		.running = text[0] != '\0',
	};

	snprintf(r.user, sizeof(r.user), "app");
	snprintf(r.host, sizeof(r.host), "10.0.0.%" PRIu64, id);
	snprintf(r.db, sizeof(r.db), "shop");
	snprintf(r.command, sizeof(r.command), "%s", command);
	snprintf(r.text, sizeof(r.text), "%s", text);
	return r;
}

/*
 * Two segments: the first begun at T0, the second 6 minutes on; a
 * sample every 20 s with a connections line after it; connection 3's
 * statement grows from 10 MiB to 500 MiB from T0 + 3 min; an OOM kill at
 * T0 + 10 min; a sample after it (not the window's) and a torn line.
 */
static void
record(struct fix *f, struct incident *in)
{
	size_t second = 0;
	uint64_t seq = 1;

	f->conns[0] = conn(1, 1 * MIB, "Sleep", "");
	f->conns[1] = conn(2, 2 * MIB, "Query", "SELECT 1");
	f->conns[2] = conn(3, 0, "Sleep", "");
	for (int64_t ms = T0; ms <= T0 + 10 * MIN; ms += 20 * 1000) {
		bool begin = ms == T0 || ms == T0 + 6 * MIN;

		if (ms == T0 + 6 * MIN)
			second = f->n;
		if (begin)
			add_record(f, ms);
		add_sample(f, ms, seq++, 400 * MIB + (ms - T0) / 1000 * MIB);
		if (ms == T0 + 3 * MIN) {
			f->conns[2] = conn(3, 10 * MIB, "Query", BIG_TEXT);
			f->conns[2].since_ms = ms;
		} else if (ms > T0 + 3 * MIN) {
			f->conns[2].bytes = 10 * MIB + (ms - T0 - 3 * MIN) /
			    1000 * MIB * 7 / 6;
			f->conns[2].peak_bytes = f->conns[2].bytes;
		}
		/* Connection 1 goes before the window, 2 in it. */
		if (ms == T0 + 2 * MIN)
			f->conns[0].connection_id = 4;
		if (ms == T0 + 8 * MIN)
			f->conns[1].connection_id = 5;
		add_conns(f, ms, begin);
	}
	*in = (struct incident){ .kind = INCIDENT_OOM_KILL,
	    .at_ms = T0 + 10 * MIN };
	snprintf(in->what, sizeof(in->what), "the kernel killed <mysqld>");
	in->process.known = true;
	in->process.resident_bytes = 600 * MIB;
	/* In a cgroup v2 throttled over its memory.high. */
	in->process.has_cgroup = true;
	in->process.cgroup_usage_bytes = 700 * MIB;
	in->process.cgroup_limit_bytes = -1;
	in->process.cgroup_oom_kills = 1;
	in->process.cgroup_high_bytes = 640 * MIB;
	in->process.cgroup_high_events = 4821;
	in->process.cgroup_pressure_some = 4207;
	in->process.cgroup_pressure_full = 1903;
	add_incident(f, in);
	add_sample(f, T0 + 10 * MIN + 500, seq, 1 * MIB);
	write_segment(f, 0, second, NULL);
	/* Stamped within the window, cut short before its end. */
	write_segment(f, second, f->n,
	    "{\"sample\":99,\"elapsed_ms\":99000,\"timestamp\":"
	    "\"2026-11-27T03:14:59.000Z\",\"process_resident_by");
}

/* The incident's files are these two, and no other (no .tmp left). */
static void
only_files(const struct fix *f, const char *stem)
{
	char path[128], jsonl[256], html[256];
	struct dirent *e;
	DIR *d;
	int seen = 0;

	snprintf(path, sizeof(path), "%s/incidents", f->dir);
	snprintf(jsonl, sizeof(jsonl), "%s.jsonl", stem);
	snprintf(html, sizeof(html), "%s.html", stem);
	d = opendir(path);
	assert_non_null(d);
	while ((e = readdir(d)) != NULL) {
		if (e->d_name[0] == '.')
			continue;
		if (strcmp(e->d_name, jsonl) != 0 && strcmp(e->d_name, html) != 0)
			fail_msg("incidents/ holds %s", e->d_name);
		seen++;
	}
	closedir(d);
	assert_int_equal(seen, 2);
}

/* The book at the window's start, as the writer had it then. */
static void
book_at(const struct fix *f, int64_t from, struct conns_book *book)
{
	for (size_t i = 0; i < f->n && f->lines[i].ms < from; i++)
		conns_line_apply(book, f->lines[i].text,
		    strlen(f->lines[i].text) - 1);
}

static void
check_window(const struct fix *f, const char *got, size_t len, int64_t from,
    int64_t to)
{
	const char *nl = memchr(got, '\n', len);
	struct conns_book want = { 0 }, first = { 0 };
	json_t *root;
	size_t at, in_window = 0, first_in = f->n;

	/* The first line: the connections whole at the window's start. */
	assert_non_null(nl);
	root = json_loadb(got, (size_t)(nl - got), 0, NULL);
	assert_non_null(root);
	assert_string_equal(json_string_value(json_object_get(root, "type")),
	    "connections");
	assert_true(json_is_true(json_object_get(root, "full")));
	json_decref(root);
	assert_int_equal(conns_line_apply(&first, got, (size_t)(nl - got)), 0);
	book_at(f, from, &want);
	assert_true(want.n > 0);
	assert_int_equal(first.n, want.n);
	for (size_t i = 0; i < want.n; i++) {
		assert_int_equal(first.v[i].connection_id,
		    want.v[i].connection_id);
		assert_int_equal(first.v[i].bytes, want.v[i].bytes);
		assert_string_equal(first.v[i].text, want.v[i].text);
	}
	/* Stamped as the window's first line. */
	for (size_t i = 0; i < f->n; i++)
		if (f->lines[i].ms >= from && f->lines[i].ms <= to) {
			first_in = i;
			break;
		}
	assert_true(first_in < f->n);
	{
		char t[64], key[96];

		utc_format(t, sizeof(t), f->lines[first_in].ms, UTC_STAMP);
		snprintf(key, sizeof(key), "\"timestamp\":\"%s\"", t);
		assert_non_null(memmem(got, (size_t)(nl - got), key,
		    strlen(key)));
	}
	/* Then exactly the window's lines, in order, byte for byte. */
	at = (size_t)(nl - got) + 1;
	for (size_t i = 0; i < f->n; i++) {
		size_t n = strlen(f->lines[i].text);

		if (f->lines[i].ms < from || f->lines[i].ms > to)
			continue;
		if (at + n > len || memcmp(got + at, f->lines[i].text, n) != 0)
			fail_msg("line %zu of the window is not the segment's "
			    "line %zu: %.*s", in_window + 2, i,
			    (int)(n - 1), f->lines[i].text);
		at += n;
		in_window++;
	}
	assert_int_equal(at, len);
	assert_true(in_window > 10);
	conns_book_free(&want);
	conns_book_free(&first);
}

static void
test_incident_files(void **state)
{
	struct fix *f = *state;
	struct incident in;
	char path[256], err[512] = "", stem[128];
	char *got;
	size_t len;

	record(f, &in);
	if (incident_write(f->dir, &in, 5 * MIN, NULL, path, sizeof(path), err,
	    sizeof(err)) != 0)
		fail_msg("incident_write: %s", err);
	snprintf(stem, sizeof(stem), "20261127T031500Z-oom-kill");
	snprintf(f->path, sizeof(f->path), "%s/incidents/%s.html", f->dir,
	    stem);
	assert_string_equal(path, f->path);
	only_files(f, stem);

	/* The records: the window's, from the first segment into the second. */
	snprintf(path, sizeof(path), "%s/incidents/%s.jsonl", f->dir, stem);
	assert_non_null(got = slurp(path, &len));
	check_window(f, got, len, T0 + 5 * MIN, T0 + 10 * MIN);
	/* Its last line is the incident's. */
	assert_non_null(strstr(got, "{\"type\":\"incident\""));
	assert_null(strstr(got, "\"sample\":99"));
	free(got);

	/* The page: whole, the largest holder and its statement, escaped. */
	assert_non_null(got = slurp(f->path, &len));
	assert_true(len > 20);
	assert_int_equal(strncmp(got, "<!DOCTYPE html>", 15), 0);
	assert_string_equal(got + len - strlen("</html>\n"), "</html>\n");
	assert_non_null(strstr(got, "oom-kill"));
	assert_non_null(strstr(got, "the kernel killed &lt;mysqld&gt;"));
	assert_null(strstr(got, "<mysqld>"));
	assert_non_null(strstr(got, BIG_SHOWN));
	assert_null(strstr(got, "<b>big"));
	{
		/* The holders' table: connection 3 first, with its text. */
		const char *t = strstr(got, "<table class=\"holders\">");
		const char *row3, *row4, *row5;

		assert_non_null(t);
		row3 = strstr(t, "<tr><td>3</td>");
		row5 = strstr(t, "<tr><td>5</td>");
		row4 = strstr(t, "<tr><td>4</td>");
		assert_non_null(row3);
		assert_non_null(row4);
		assert_non_null(row5);
		/* By memory: 500 MiB, 2 MiB, 1 MiB. */
		assert_true(row3 < row5);
		assert_true(row5 < row4);
		assert_true(strstr(row3, BIG_SHOWN) < strstr(row3, "</tr>"));
		/* Connection 2 went before the incident: not among them. */
		row5 = strstr(t, "</table>");
		assert_non_null(row5);
		assert_true(strstr(t, "<tr><td>2</td>") == NULL ||
		    strstr(t, "<tr><td>2</td>") > row5);
	}
	/*
	 * The fastest grower over the window: from 126.67 MiB at its start
	 * (the line of T0 + 4:40) to 500 MiB, in the 300 s from the
	 * window's first connections line to its last.
	 */
	assert_non_null(strstr(got, "Connection 3 grew fastest: 373 MiB in "
	    "300 s."));
	/* A chart of the window's samples. */
	assert_non_null(strstr(got, "<svg"));
	/* The cgroup's throttling, cgroup v2's. */
	assert_non_null(strstr(got, "<th class=\"text\">memory.high</th>"
	    "<td>640.00 MiB</td>"));
	assert_non_null(strstr(got, "<td>4821 times</td>"));
	assert_non_null(strstr(got, "<td>some 42.07%, all 19.03%</td>"));
	free(got);
}

static void
test_window_in_the_last_segment(void **state)
{
	struct fix *f = *state;
	struct incident in;
	char path[256], err[512] = "";
	char *got;
	size_t len;

	record(f, &in);
	/*
	 * The window begins after the second segment did, between two
	 * lines: its connections line is stamped as the first after.
	 */
	if (incident_write(f->dir, &in, 3 * MIN + 10000, NULL, path,
	    sizeof(path), err, sizeof(err)) != 0)
		fail_msg("incident_write: %s", err);
	snprintf(path, sizeof(path), "%s/incidents/20261127T031500Z-oom-kill"
	    ".jsonl", f->dir);
	assert_non_null(got = slurp(path, &len));
	check_window(f, got, len, T0 + 7 * MIN - 10000, T0 + 10 * MIN);
	free(got);
}

/* The notes incident_write() gave, one a line. */
static void
keep_note(void *ctx, const char *msg)
{
	struct obuf *notes = ctx;

	obuf_write(notes, msg, strlen(msg));
	obuf_write(notes, "\n", 1);
}

/*
 * Named like segments of the window, among the real ones: a FIFO (read,
 * it would wait for a writer for ever), a folder, a link to /dev/zero
 * (read, it never ends) and a regular file of one line over the bound.
 * Each is passed over, the first three with a note, and the window is
 * the same as without them.
 */
static void
test_planted_files_passed_over(void **state)
{
	struct fix *f = *state;
	struct incident in;
	struct obuf notes = { 0 };
	char path[256], err[512] = "", *got;
	size_t len;
	FILE *fp;

	record(f, &in);
	snprintf(path, sizeof(path), "%s/segments/20261127T031000.500Z.jsonl",
	    f->dir);
	assert_int_equal(mkfifo(path, 0600), 0);
	path[strlen(path) - 10] = '6';
	assert_int_equal(mkdir(path, 0700), 0);
	path[strlen(path) - 10] = '7';
	assert_int_equal(symlink("/dev/zero", path), 0);
	path[strlen(path) - 10] = '8';
	assert_non_null(fp = fopen(path, "w"));
	for (size_t i = 0; i <= (READER_MAX_LINE >> 20); i++)
		for (size_t j = 0; j < 1024; j++)
			fprintf(fp, "%01023d", 0);
	fprintf(fp, "\n");
	assert_int_equal(fclose(fp), 0);

	if (incident_write(f->dir, &in, 5 * MIN, &(struct incident_notes){
	    keep_note, &notes }, path, sizeof(path), err, sizeof(err)) != 0)
		fail_msg("incident_write: %s", err);
	obuf_write(&notes, "", 1);
	assert_non_null(strstr(notes.p, "031000.500Z.jsonl passed over: a "
	    "FIFO"));
	assert_non_null(strstr(notes.p, "031000.600Z.jsonl passed over: a "
	    "folder"));
	assert_non_null(strstr(notes.p, "031000.700Z.jsonl passed over: a "
	    "symbolic link"));
	assert_null(strstr(notes.p, "031000.800Z"));
	snprintf(path, sizeof(path), "%s/incidents/20261127T031500Z-oom-kill"
	    ".jsonl", f->dir);
	assert_non_null(got = slurp(path, &len));
	check_window(f, got, len, T0 + 5 * MIN, T0 + 10 * MIN);
	free(got);
	obuf_free(&notes);
}

/*
 * DIR swapped for a link, after the recorder opened it, by one who may
 * write DIR's parent: the link leads to a folder whose segment of the
 * window holds planted lines. The incident is the record's own lines,
 * read through the recorder's descriptors, and written beside them.
 */
static void
test_dir_swapped_for_a_link(void **state)
{
	struct fix *f = *state;
	struct incident in;
	char moved[128], other[128], path[256], err[512] = "", *got;
	int segfd, incfd, rc;
	size_t len;
	FILE *fp;

	record(f, &in);
	segfd = fixture_folder_fd(f->dir, "segments");
	incfd = fixture_folder_fd(f->dir, "incidents");
	snprintf(moved, sizeof(moved), "%s.moved", f->dir);
	snprintf(other, sizeof(other), "%s.other", f->dir);
	assert_int_equal(mkdir(other, 0700), 0);
	snprintf(path, sizeof(path), "%s/segments", other);
	assert_int_equal(mkdir(path, 0700), 0);
	snprintf(path, sizeof(path), "%s/incidents", other);
	assert_int_equal(mkdir(path, 0700), 0);
	snprintf(path, sizeof(path), "%s/segments/20261127T031000.000Z.jsonl",
	    other);
	assert_non_null(fp = fopen(path, "w"));
	fputs("{\"type\":\"connections\",\"timestamp\":"
	    "\"2026-11-27T03:12:00.000Z\",\"full\":true,\"rows\":[{\"id\":66,"
	    "\"bytes\":1,\"text\":\"planted\"}],\"gone\":[]}\n", fp);
	assert_int_equal(fclose(fp), 0);
	assert_int_equal(rename(f->dir, moved), 0);
	assert_int_equal(symlink(other, f->dir), 0);

	rc = incident_write_at(f->dir, segfd, incfd, &in, 5 * MIN, NULL, path,
	    sizeof(path), err, sizeof(err));
	/* DIR as it was, before anything can fail, for the teardown. */
	close(segfd);
	close(incfd);
	assert_int_equal(unlink(f->dir), 0);
	assert_int_equal(rename(moved, f->dir), 0);
	assert_int_equal(fixture_remove_tree(other), 0);
	if (rc != 0)
		fail_msg("incident_write_at: %s", err);
	snprintf(path, sizeof(path), "%s/incidents/20261127T031500Z-oom-kill"
	    ".jsonl", f->dir);
	assert_non_null(got = slurp(path, &len));
	assert_null(memmem(got, len, "planted", 7));
	check_window(f, got, len, T0 + 5 * MIN, T0 + 10 * MIN);
	free(got);
}

/*
 * No line in the window (segments empty): both files all the same, the
 * page of no lines (make SANITIZE=1: no offset added to a NULL buffer).
 */
static void
test_empty_window(void **state)
{
	struct fix *f = *state;
	struct incident in = { .kind = INCIDENT_GONE, .at_ms = T0 };
	char path[256], err[512] = "";

	if (incident_write(f->dir, &in, MIN, NULL, path, sizeof(path), err,
	    sizeof(err)) != 0)
		fail_msg("incident_write: %s", err);
	only_files(f, "20261127T030500Z-server-gone");
}

static void
test_no_folder(void **state)
{
	struct fix *f = *state;
	struct incident in = { .kind = INCIDENT_GONE, .at_ms = T0 };
	char path[256], err[512] = "", dir[128];

	snprintf(dir, sizeof(dir), "%s/none", f->dir);
	assert_int_equal(incident_write(dir, &in, MIN, NULL, path, sizeof(path),
	    err, sizeof(err)), -1);
	assert_non_null(strstr(err, dir));
	assert_non_null(strstr(err, strerror(ENOENT)));
}

/* The oldest incidents beyond INCIDENTS_KEPT go, both files of each. */
static void
test_oldest_incidents_removed(void **state)
{
	struct fix *f = *state;
	char path[256], err[512] = "";
	struct stat st;

	record(f, &(struct incident){ 0 });
	for (int i = 0; i < INCIDENTS_KEPT + 2; i++) {
		struct incident in = { .kind = INCIDENT_GONE,
		    .at_ms = T0 + 10 * MIN + (int64_t)i * 1000 };

		if (incident_write(f->dir, &in, MIN, NULL, path, sizeof(path), err,
		    sizeof(err)) != 0)
			fail_msg("incident_write: %s", err);
	}
	/* The first two (03:15:00, 03:15:01) are gone, the third kept. */
	snprintf(path, sizeof(path), "%s/incidents/20261127T031500Z-"
	    "server-gone.html", f->dir);
	assert_int_equal(stat(path, &st), -1);
	snprintf(path, sizeof(path), "%s/incidents/20261127T031501Z-"
	    "server-gone.jsonl", f->dir);
	assert_int_equal(stat(path, &st), -1);
	snprintf(path, sizeof(path), "%s/incidents/20261127T031502Z-"
	    "server-gone.html", f->dir);
	assert_int_equal(stat(path, &st), 0);
	snprintf(path, sizeof(path), "%s/incidents/20261127T031502Z-"
	    "server-gone.jsonl", f->dir);
	assert_int_equal(stat(path, &st), 0);
}

/* The descriptors this process has open. */
static int
open_fds(void)
{
	DIR *d = opendir("/proc/self/fd");
	int n = 0;

	assert_non_null(d);
	while (readdir(d) != NULL)
		n++;
	closedir(d);
	return n;
}

/*
 * DIR/incidents on a full disk (a tmpfs, when root may mount one): the
 * write fails with the reason, leaves no file, and no descriptor open.
 */
static void
test_full_disk(void **state)
{
	struct fix *f = *state;
	struct incident in = { .kind = INCIDENT_GONE, .at_ms = T0 + 10 * MIN };
	char inc[128], path[256], err[512] = "", buf[4096] = { 0 };
	struct dirent *e;
	DIR *d;
	int fd, before, n = 0;

	record(f, &(struct incident){ 0 });
	snprintf(inc, sizeof(inc), "%.100s/incidents", f->dir);
	if (mount("tmpfs", inc, "tmpfs", 0, "size=64k,mode=0700") != 0)
		skip(); /* not root */
	snprintf(path, sizeof(path), "%s/filler", inc);
	assert_true((fd = open(path, O_WRONLY | O_CREAT, 0600)) >= 0);
	while (write(fd, buf, sizeof(buf)) > 0)
		;
	close(fd);
	before = open_fds();
	assert_int_equal(incident_write(f->dir, &in, 10 * MIN, NULL, path,
	    sizeof(path), err, sizeof(err)), -1);
	assert_non_null(strstr(err, strerror(ENOSPC)));
	assert_int_equal(open_fds(), before);
	assert_non_null(d = opendir(inc));
	while ((e = readdir(d)) != NULL)
		n += e->d_name[0] != '.';
	closedir(d);
	assert_int_equal(n, 1); /* the filler alone */
	assert_int_equal(umount2(inc, MNT_DETACH), 0);
}

/*
 * Forty connections over 90 s, a line each second: some grow, some come
 * between others (ids lower than the last), some go (the fastest grower
 * among them), the segment turns
 * (every connection again) in the window, and two lines written by hand
 * say a connection twice and one come and gone at once. The incident's
 * files are the golden ones, written by the tree before the book was
 * kept sorted by merging (5e71237): the same bytes.
 */
static void
many(struct fix *f, struct incident *in)
{
	struct conn_row c[48];
	size_t n = 40, second = 0;
	uint64_t seq = 1;
	static const char twice[] = "{\"type\":\"connections\",\"timestamp\":"
	    "\"2026-11-27T03:05:50.500Z\",\"full\":false,\"rows\":["
	    "{\"id\":1010,\"thread\":9,\"bytes\":5,\"peak_bytes\":5},"
	    "{\"id\":7,\"thread\":8,\"bytes\":6,\"peak_bytes\":null},"
	    "{\"id\":1010,\"thread\":9,\"bytes\":99999999,"
	    "\"peak_bytes\":99999999,\"running\":true,\"text\":\"twice\"}],"
	    "\"gone\":[7]}\n";

	for (size_t i = 0; i < n; i++)
		c[i] = conn(1000 + i * 3, (int64_t)(i % 7 + 1) * MIB, i % 4 ?
		    "Sleep" : "Query", i % 4 ? "" : "SELECT * FROM t");
	for (int64_t s = 0; s <= 90; s++) {
		int64_t ms = T0 + s * 1000;
		bool begin = s == 0 || s == 45;

		if (s == 45)
			second = f->n;
		if (begin)
			add_record(f, ms);
		add_sample(f, ms, seq++, 400 * MIB + s * MIB);
		for (size_t i = s % 5; i < n; i += 5)
			c[i].bytes += (int64_t)((i * 7 + (size_t)s) % 13) *
			    MIB / 4 - MIB;
		/* Newcomers between the others; leavers from the middle. */
		if (s % 10 == 5 && n < 48)
			c[n++] = conn(1000 + (uint64_t)s * 3 + 1, MIB, "Query",
			    "INSERT INTO t VALUES (1)");
		/* The fastest grower comes in the window and goes before its end. */
		if (s == 32 && n < 48)
			c[n++] = conn(1002, 2 * MIB, "Query", "SELECT grow()");
		for (size_t i = 0; i < n; i++)
			if (c[i].connection_id == 1002 && s % 3 == 0)
				c[i].bytes += 3 * MIB;
		if (s == 75)
			for (size_t i = 0; i < n; i++)
				if (c[i].connection_id == 1002)
					c[i] = c[--n];
		if (s % 15 == 7) {
			memmove(&c[s % 30], &c[s % 30 + 1], (n - s % 30 - 1) *
			    sizeof(c[0]));
			n--;
		}
		{
			struct obuf b = { 0 };

			assert_true(conns_line_put(&b, &f->book, c, n, begin,
			    ms) >= 0);
			if (b.len > 0)
				add(f, ms, b.p, b.len);
			obuf_free(&b);
		}
		if (s == 50)
			add(f, ms + 500, twice, sizeof(twice) - 1);
	}
	*in = (struct incident){ .kind = INCIDENT_LIMIT_SHARE,
	    .at_ms = T0 + 90 * 1000 };
	snprintf(in->what, sizeof(in->what), "many connections");
	in->process.known = true;
	in->process.resident_bytes = 490 * MIB;
	add_incident(f, in);
	write_segment(f, 0, second, NULL);
	write_segment(f, second, f->n, NULL);
}

static void
test_many_connections_as_before(void **state)
{
	struct fix *f = *state;
	struct incident in;
	char path[512], err[256], *got;
	size_t len;

	many(f, &in);
	assert_int_equal(incident_write(f->dir, &in, 60 * 1000, NULL, path,
	    sizeof(path), err, sizeof(err)), 0);
	got = slurp(path, &len);
	assert_non_null(got);
	golden_check("incident_many.html", got, len);
	free(got);
	snprintf(path + strlen(path) - 5, 7, ".jsonl");
	got = slurp(path, &len);
	assert_non_null(got);
	golden_check("incident_many.jsonl", got, len);
	free(got);
}

/* A golden dump into the folder fd as name, cut to len when not 0. */
static void
put_dump(int fd, const char *golden, const char *name, size_t cut)
{
	char *path = golden_path(golden), *text;
	size_t len;
	int out;

	assert_non_null(text = slurp(path, &len));
	assert_true((out = openat(fd, name, O_WRONLY | O_CREAT, 0600)) >= 0);
	assert_int_equal(write(out, text, cut ? cut : len),
	    (ssize_t)(cut ? cut : len));
	close(out);
	free(text);
	free(path);
}

/*
 * The heap dumps the record kept (heapkeep.h): the page's section with
 * the flame graph, the largest stacks and the growth since the one
 * before; a dump that does not parse is said, not drawn.
 */
static void
test_heap_section(void **state)
{
	struct fix *f = *state;
	struct incident in;
	char path[256], err[512] = "", *page;
	size_t len;
	int fd;

	record(f, &in);
	snprintf(path, sizeof(path), "%s/heap", f->dir);
	assert_int_equal(mkdir(path, 0700), 0);
	assert_true((fd = open(path, O_RDONLY | O_DIRECTORY)) >= 0);
	put_dump(fd, "heap/mariadb.17563.1.i1.heap", "a.heap", 0);
	put_dump(fd, "heap/mariadb.17563.5.i5.heap", "b.heap", 0);
	put_dump(fd, "heap/mariadb.17563.5.i5.heap", "cut.heap", 5000);
	in.heapfd = fd;
	snprintf(in.heap_dump, sizeof(in.heap_dump), "b.heap");
	snprintf(in.heap_base, sizeof(in.heap_base), "a.heap");
	if (incident_write(f->dir, &in, 5 * MIN, NULL, path, sizeof(path), err,
	    sizeof(err)) != 0)
		fail_msg("incident_write: %s", err);
	assert_non_null(page = slurp(path, &len));
	assert_non_null(strstr(page, "<h2>Heap profile</h2>"));
	assert_non_null(strstr(page, "(heap/b.heap)"));
	assert_non_null(strstr(page, "Live heap by stack"));
	assert_non_null(strstr(page, "<h2>The largest stacks</h2>"));
	assert_non_null(strstr(page, "than heap/a.heap held"));
	assert_null(strstr(page, "<script"));
	free(page);

	/* Cut short: one note, no drawing. */
	in.at_ms += 1000;
	snprintf(in.heap_dump, sizeof(in.heap_dump), "cut.heap");
	in.heap_base[0] = '\0';
	if (incident_write(f->dir, &in, 5 * MIN, NULL, path, sizeof(path), err,
	    sizeof(err)) != 0)
		fail_msg("incident_write: %s", err);
	assert_non_null(page = slurp(path, &len));
	assert_non_null(strstr(page, "could not be drawn: heap/cut.heap: "));
	assert_null(strstr(page, "Live heap by stack"));
	free(page);
	close(fd);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_heap_section, setup,
		    teardown),
		cmocka_unit_test_setup_teardown(test_incident_files, setup,
		    teardown),
		cmocka_unit_test_setup_teardown(test_window_in_the_last_segment,
		    setup, teardown),
		cmocka_unit_test_setup_teardown(test_planted_files_passed_over,
		    setup, teardown),
		cmocka_unit_test_setup_teardown(test_dir_swapped_for_a_link,
		    setup, teardown),
		cmocka_unit_test_setup_teardown(test_empty_window, setup,
		    teardown),
		cmocka_unit_test_setup_teardown(test_no_folder, setup,
		    teardown),
		cmocka_unit_test_setup_teardown(test_full_disk, setup,
		    teardown),
		cmocka_unit_test_setup_teardown(test_many_connections_as_before,
		    setup, teardown),
		cmocka_unit_test_setup_teardown(test_oldest_incidents_removed,
		    setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
