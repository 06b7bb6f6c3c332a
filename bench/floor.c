/*
 * The floor of the benchmark: one thread's memory rows read back to back
 * from C, with no formatting and no sleep, through the same client library
 * as mysqlmemprof. It also tries other ways of asking (filters, ORDER BY,
 * prepared statements, the binary protocol) so their cost can be compared.
 *
 *   floor -S SOCKET -u USER --thread ID [--query NAME | --sql TEXT]
 *         [--proto PROTO] [--count N | --seconds S] [--interval MS]
 *         [--handshake] [--write N]
 *
 * --sql sends that statement as it is (text protocol): the bench captures
 * the one mysqlmemprof sends and hands it over, so the floor follows
 * src/pfs_read.c as it changes.
 * --interval spaces the queries on absolute deadlines, as mysqlmemprof
 * does, still without formatting: what any interval sampler must pay.
 * --write N writes N bytes (a line of 'x') to standard output after each
 * query and flushes it, one write(2) a sample as mysqlmemprof writes a
 * sample to its -o: the floor of a sampler that keeps what it reads, so
 * the kernel's part of that write is set apart from the formatting's.
 * The password comes from $MYSQL_PWD. With --handshake it connects, runs
 * one query, prints "ready rows=R" and waits for a line on standard input
 * before the timed loop, so the caller can read the server's CPU time just
 * around the loop. At the end it prints one line of key=value pairs,
 * query_ns being the time spent in the queries alone. SIGTERM or SIGINT
 * ends the loop the way --seconds does, result line included, so the
 * bench can run it for as long as a workload runs.
 */
#include <err.h>
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <mysql.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>

/* Oracle's libmysqlclient 8 dropped my_bool for bool. */
#if !defined(MARIADB_BASE_VERSION) && MYSQL_VERSION_ID >= 80000
typedef bool my_bool;
#endif

#define TABLE "performance_schema.memory_summary_by_thread_by_event_name"
#define COLS8 "EVENT_NAME, CURRENT_NUMBER_OF_BYTES_USED, " \
    "CURRENT_COUNT_USED, HIGH_NUMBER_OF_BYTES_USED, " \
    "SUM_NUMBER_OF_BYTES_ALLOC, SUM_NUMBER_OF_BYTES_FREE, " \
    "COUNT_ALLOC, COUNT_FREE"
#define NONZERO " AND (COUNT_ALLOC > 0 OR COUNT_FREE > 0)"
#define ORDER " ORDER BY CURRENT_NUMBER_OF_BYTES_USED DESC"

/*
 * The queries tried. Each ends where the thread id goes, so the text
 * protocol pastes the number and a prepared statement puts a '?'; the tail
 * follows it.
 */
static const struct query {
	const char *name;
	const char *head;
	const char *tail;
} queries[] = {
	/* Every row of the thread: the floor proper. */
	{ "all", "SELECT " COLS8 " FROM " TABLE " WHERE THREAD_ID = ", "" },
	/* What mysqlmemprof 0.1.0 asks (src/pfs_read.c). */
	{ "nonzero", "SELECT " COLS8 " FROM " TABLE " WHERE THREAD_ID = ",
	    NONZERO },
	{ "all-order", "SELECT " COLS8 " FROM " TABLE " WHERE THREAD_ID = ",
	    ORDER },
	{ "nonzero-order", "SELECT " COLS8 " FROM " TABLE
	    " WHERE THREAD_ID = ", NONZERO ORDER },
	/* The Python sampler's query, verbatim. */
	{ "top4", "SELECT event_name, current_number_of_bytes_used FROM "
	    TABLE " WHERE thread_id = ",
	    " ORDER BY current_number_of_bytes_used DESC LIMIT 4" },
};

enum proto {
	PROTO_TEXT,    /* COM_QUERY with the id in the text */
	PROTO_SQLPREP, /* PREPARE once, EXECUTE ... USING @id: text results */
	PROTO_BINARY,  /* mysql_stmt_*: COM_STMT_EXECUTE, binary results */
};

static const char *const proto_names[] = { "text", "sqlprep", "binary" };

static volatile sig_atomic_t stop;

static void
on_stop(int sig)
{
	(void)sig;
	stop = 1;
}

/* Room for one row of the binary protocol. */
#define MAXCOLS 12
struct binrow {
	MYSQL_BIND bind[MAXCOLS];
	char str[MAXCOLS][512];
	long long num[MAXCOLS];
	unsigned long len[MAXCOLS];
	my_bool isnull[MAXCOLS];
};

static uint64_t
now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static uint64_t
tv_us(struct timeval tv)
{
	return (uint64_t)tv.tv_sec * 1000000u + (uint64_t)tv.tv_usec;
}

static void
usage(void)
{
	fprintf(stderr, "usage: floor -S SOCKET -u USER --thread ID "
	    "[--query all|nonzero|all-order|nonzero-order|top4 | --sql TEXT]\n"
	    "             [--proto text|sqlprep|binary] [--count N | "
	    "--seconds S] [--interval MS] [--handshake]\n"
	    "             [--write N]\n");
	exit(2);
}

static uint64_t
number(const char *opt, const char *s, uint64_t min, uint64_t max)
{
	char *end;
	unsigned long long v;

	errno = 0;
	v = strtoull(s, &end, 10);
	if (errno != 0 || end == s || *end != '\0' || *s == '-' || v < min ||
	    v > max)
		errx(2, "%s %s: not a number in [%" PRIu64 ", %" PRIu64 "]",
		    opt, s, min, max);
	return v;
}

static void
sql(MYSQL *m, const char *q)
{
	if (mysql_query(m, q) != 0)
		errx(1, "%s: %s", q, mysql_error(m));
}

/* One text-protocol query, all rows fetched and dropped; returns the rows. */
static unsigned
run_text(MYSQL *m, const char *q, size_t qlen)
{
	MYSQL_RES *res;
	unsigned rows = 0;

	if (mysql_real_query(m, q, qlen) != 0)
		errx(1, "query: %s", mysql_error(m));
	/* A statement of no result (DO 0, --record's ping) has no rows. */
	if ((res = mysql_store_result(m)) == NULL) {
		if (mysql_field_count(m) != 0)
			errx(1, "query: %s", mysql_error(m));
		return 0;
	}
	for (;;) {
		while (mysql_fetch_row(res) != NULL)
			rows++;
		mysql_free_result(res);
		if (mysql_next_result(m) != 0)
			break;
		if ((res = mysql_store_result(m)) == NULL)
			errx(1, "query: %s", mysql_error(m));
	}
	return rows;
}

/* Binds each column of the statement's result to native C storage. */
static void
bind_result(MYSQL_STMT *st, struct binrow *r)
{
	MYSQL_RES *meta = mysql_stmt_result_metadata(st);
	unsigned n;

	if (meta == NULL)
		errx(1, "result metadata: %s", mysql_stmt_error(st));
	n = mysql_num_fields(meta);
	if (n > MAXCOLS)
		errx(1, "%u columns; at most %d", n, MAXCOLS);
	memset(r->bind, 0, sizeof(r->bind));
	for (unsigned i = 0; i < n; i++) {
		MYSQL_FIELD *f = mysql_fetch_field_direct(meta, i);
		MYSQL_BIND *b = &r->bind[i];

		if (f->type == MYSQL_TYPE_VAR_STRING ||
		    f->type == MYSQL_TYPE_STRING ||
		    f->type == MYSQL_TYPE_VARCHAR ||
		    f->type == MYSQL_TYPE_BLOB || f->type == MYSQL_TYPE_NULL) {
			b->buffer_type = MYSQL_TYPE_STRING;
			b->buffer = r->str[i];
			b->buffer_length = sizeof(r->str[i]);
		} else {
			b->buffer_type = MYSQL_TYPE_LONGLONG;
			b->buffer = &r->num[i];
		}
		b->length = &r->len[i];
		b->is_null = &r->isnull[i];
	}
	mysql_free_result(meta);
	if (mysql_stmt_bind_result(st, r->bind) != 0)
		errx(1, "bind result: %s", mysql_stmt_error(st));
}

static unsigned
run_binary(MYSQL_STMT *st)
{
	unsigned rows = 0;
	int rc;

	if (mysql_stmt_execute(st) != 0 || mysql_stmt_store_result(st) != 0)
		errx(1, "execute: %s", mysql_stmt_error(st));
	while ((rc = mysql_stmt_fetch(st)) == 0 || rc == MYSQL_DATA_TRUNCATED)
		rows++;
	if (rc != MYSQL_NO_DATA)
		errx(1, "fetch: %s", mysql_stmt_error(st));
	mysql_stmt_free_result(st);
	return rows;
}

int
main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "socket", required_argument, NULL, 'S' },
		{ "user", required_argument, NULL, 'u' },
		{ "thread", required_argument, NULL, 't' },
		{ "query", required_argument, NULL, 'Q' },
		{ "sql", required_argument, NULL, 'q' },
		{ "proto", required_argument, NULL, 'P' },
		{ "count", required_argument, NULL, 'n' },
		{ "seconds", required_argument, NULL, 's' },
		{ "interval", required_argument, NULL, 'i' },
		{ "handshake", no_argument, NULL, 'H' },
		{ "write", required_argument, NULL, 'w' },
		{ NULL, 0, NULL, 0 },
	};
	const char *socket = NULL, *user = NULL;
	const struct query *q = &queries[0];
	const struct query custom = { "sql", NULL, NULL };
	const char *sqltext = NULL;
	enum proto proto = PROTO_TEXT;
	uint64_t thread = 0, count = 0, seconds = 0, interval_ns = 0;
	size_t write_n = 0;
	char *wbuf = NULL;
	bool handshake = false, found;
	int ch;

	while ((ch = getopt_long(argc, argv, "S:u:", longopts, NULL)) != -1) {
		switch (ch) {
		case 'S': socket = optarg; break;
		case 'u': user = optarg; break;
		case 't': thread = number("--thread", optarg, 1, UINT64_MAX); break;
		case 'n': count = number("--count", optarg, 1, UINT64_MAX); break;
		case 's': seconds = number("--seconds", optarg, 1, 3600); break;
		case 'i':
			interval_ns = number("--interval", optarg, 1, 3600000) *
			    1000000u;
			break;
		case 'H': handshake = true; break;
		case 'w':
			write_n = number("--write", optarg, 1, 1u << 20);
			break;
		case 'q': sqltext = optarg; break;
		case 'Q':
			found = false;
			for (size_t i = 0; i < sizeof(queries) / sizeof(queries[0]); i++)
				if (strcmp(optarg, queries[i].name) == 0) {
					q = &queries[i];
					found = true;
				}
			if (!found)
				errx(2, "--query %s: no such query", optarg);
			break;
		case 'P':
			found = false;
			for (int i = 0; i <= PROTO_BINARY; i++)
				if (strcmp(optarg, proto_names[i]) == 0) {
					proto = (enum proto)i;
					found = true;
				}
			if (!found)
				errx(2, "--proto %s: text, sqlprep or binary", optarg);
			break;
		default:
			usage();
		}
	}
	if (optind != argc || thread == 0 || (count == 0) == (seconds == 0))
		usage();
	if (sqltext != NULL) {
		if (proto == PROTO_SQLPREP)
			errx(2, "--sql takes --proto text or binary");
		q = &custom;
	}

	if (write_n != 0) {
		if ((wbuf = malloc(write_n)) == NULL)
			errx(1, "out of memory");
		memset(wbuf, 'x', write_n - 1);
		wbuf[write_n - 1] = '\n';
	}

	MYSQL *m = mysql_init(NULL);
	if (m == NULL)
		errx(1, "out of memory");
	mysql_options4(m, MYSQL_OPT_CONNECT_ATTR_ADD, "program_name", "floor");
	if (mysql_real_connect(m, NULL, user, getenv("MYSQL_PWD"), NULL, 0,
	    socket, sqltext != NULL && strchr(sqltext, ';') != NULL ?
	    CLIENT_MULTI_STATEMENTS : 0) == NULL)
		errx(1, "connect: %s", mysql_error(m));

	char text[4096], prep[4096];
	size_t textlen;
	MYSQL_STMT *st = NULL;
	MYSQL_BIND param[MAXCOLS]; /* each one the thread id */
	unsigned long long id = thread;
	struct binrow row;

	if (sqltext != NULL) {
		if (strlen(sqltext) >= sizeof(text))
			errx(2, "--sql: longer than %zu bytes", sizeof(text) - 1);
		textlen = (size_t)snprintf(text, sizeof(text), "%s", sqltext);
		snprintf(prep, sizeof(prep), "%s", sqltext);
	} else {
		textlen = (size_t)snprintf(text, sizeof(text), "%s%" PRIu64
		    "%s", q->head, thread, q->tail);
		snprintf(prep, sizeof(prep), "%s?%s", q->head, q->tail);
	}
	if (proto == PROTO_SQLPREP) {
		char s[4200];
		snprintf(s, sizeof(s), "PREPARE floor_stmt FROM '%s'", prep);
		sql(m, s);
		snprintf(s, sizeof(s), "SET @floor_thread = %" PRIu64, thread);
		sql(m, s);
		textlen = (size_t)snprintf(text, sizeof(text),
		    "EXECUTE floor_stmt USING @floor_thread");
	} else if (proto == PROTO_BINARY) {
		if ((st = mysql_stmt_init(m)) == NULL)
			errx(1, "out of memory");
		if (mysql_stmt_prepare(st, prep, strlen(prep)) != 0)
			errx(1, "prepare: %s", mysql_stmt_error(st));
		memset(param, 0, sizeof(param));
		for (unsigned i = 0; i < MAXCOLS; i++) {
			param[i].buffer_type = MYSQL_TYPE_LONGLONG;
			param[i].buffer = &id;
			param[i].is_unsigned = 1;
		}
		if (mysql_stmt_param_count(st) > MAXCOLS)
			errx(2, "--sql: more than %d parameters", MAXCOLS);
		if (mysql_stmt_bind_param(st, param) != 0)
			errx(1, "bind param: %s", mysql_stmt_error(st));
		bind_result(st, &row);
	}

	/* One query first: it warms the caches and says how many rows come. */
	unsigned rows = st != NULL ? run_binary(st) : run_text(m, text, textlen);
	if (handshake) {
		char line[16];
		printf("ready rows=%u\n", rows);
		fflush(stdout);
		if (fgets(line, sizeof(line), stdin) == NULL)
			errx(1, "standard input closed before the start");
	}

	struct rusage ru0, ru1;
	struct sigaction sa;
	uint64_t t0, t1, deadline, n = 0, total_rows = 0, query_ns = 0;

	/* No SA_RESTART: the sleep below returns at once with EINTR. */
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_stop;
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGINT, &sa, NULL);
	getrusage(RUSAGE_SELF, &ru0);
	t0 = now_ns();
	deadline = t0 + seconds * 1000000000u;
	for (uint64_t due = t0; !stop;) {
		if (interval_ns != 0 && n > 0) {
			uint64_t now = now_ns();
			struct timespec ts;

			/* The next tick not yet past, as mysqlmemprof skips. */
			do
				due += interval_ns;
			while (due <= now);
			ts.tv_sec = (time_t)(due / 1000000000u);
			ts.tv_nsec = (long)(due % 1000000000u);
			while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts,
			    NULL) == EINTR && !stop)
				continue;
			if (stop)
				break;
		}
		uint64_t q0 = now_ns();
		total_rows += st != NULL ? run_binary(st) :
		    run_text(m, text, textlen);
		query_ns += now_ns() - q0;
		if (wbuf != NULL && (fwrite(wbuf, 1, write_n, stdout) !=
		    write_n || fflush(stdout) == EOF))
			err(1, "--write");
		n++;
		if (count != 0 ? n >= count : now_ns() >= deadline)
			break;
	}
	t1 = now_ns();
	getrusage(RUSAGE_SELF, &ru1);

	printf("done query=%s proto=%s n=%" PRIu64 " rows=%" PRIu64
	    " wall_ns=%" PRIu64 " user_us=%" PRIu64 " sys_us=%" PRIu64
	    " query_ns=%" PRIu64 "\n",
	    q->name, proto_names[proto], n, n ? total_rows / n : 0, t1 - t0,
	    tv_us(ru1.ru_utime) - tv_us(ru0.ru_utime),
	    tv_us(ru1.ru_stime) - tv_us(ru0.ru_stime), query_ns);
	fflush(stdout);
	if (st != NULL)
		mysql_stmt_close(st);
	mysql_close(m);
	free(wbuf);
	return 0;
}
