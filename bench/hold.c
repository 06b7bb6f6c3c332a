/*
 * Holds N idle connections open for the benchmark: the target thread the
 * samplers watch, and the crowds of threads that make each sample dearer
 * (on MariaDB every query scans all threads' rows).
 *
 *   hold -S SOCKET -u USER [-D DATABASE] [-e STATEMENT]... [-a K] N
 *
 * The password comes from $MYSQL_PWD. Each connection first runs the -e
 * statements (a target that has done some work holds memory of several
 * kinds, as a real one does). Prints the connection ids on one line once
 * all are open, then keeps them until standard input closes. With -a, the
 * first K connections change their memory once a second meanwhile (a user
 * variable set to a string of another length each time), so that a
 * record of every connection has K changed rows a second to write.
 */
#include <err.h>
#include <errno.h>
#include <mysql.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

/* Runs one statement and drops its result. */
static void
run(MYSQL *m, const char *sql)
{
	MYSQL_RES *res;

	if (mysql_query(m, sql) != 0)
		errx(1, "%s: %s", sql, mysql_error(m));
	if ((res = mysql_store_result(m)) != NULL)
		mysql_free_result(res);
	else if (mysql_field_count(m) != 0)
		errx(1, "%s: %s", sql, mysql_error(m));
}

int
main(int argc, char **argv)
{
	const char *socket = NULL, *user = NULL, *db = NULL;
	const char *stmts[32];
	size_t nstmts = 0;
	char *end, buf[64];
	long n, active = 0;
	int ch;

	while ((ch = getopt(argc, argv, "S:u:D:e:a:")) != -1) {
		switch (ch) {
		case 'S': socket = optarg; break;
		case 'u': user = optarg; break;
		case 'D': db = optarg; break;
		case 'a':
			errno = 0;
			active = strtol(optarg, &end, 10);
			if (errno != 0 || *end != '\0' || active < 0 ||
			    active > 10000)
				errx(2, "-a %s: give a number of connections in "
				    "[0, 10000]", optarg);
			break;
		case 'e':
			if (nstmts == sizeof(stmts) / sizeof(stmts[0]))
				errx(2, "too many -e");
			stmts[nstmts++] = optarg;
			break;
		default: goto usage;
		}
	}
	if (optind != argc - 1)
		goto usage;
	errno = 0;
	n = strtol(argv[optind], &end, 10);
	if (errno != 0 || *end != '\0' || n < 1 || n > 10000)
		errx(2, "%s: give a number of connections in [1, 10000]",
		    argv[optind]);
	if (active > n)
		errx(2, "-a %ld: more than the %ld connections", active, n);

	MYSQL **conns = calloc((size_t)n, sizeof(*conns));
	if (conns == NULL)
		err(1, "calloc");
	for (long i = 0; i < n; i++) {
		if ((conns[i] = mysql_init(NULL)) == NULL)
			errx(1, "out of memory");
		mysql_options4(conns[i], MYSQL_OPT_CONNECT_ATTR_ADD,
		    "program_name", "hold");
		if (mysql_real_connect(conns[i], NULL, user, getenv("MYSQL_PWD"),
		    db, 0, socket, 0) == NULL)
			errx(1, "connection %ld: %s", i + 1,
			    mysql_error(conns[i]));
		for (size_t j = 0; j < nstmts; j++)
			run(conns[i], stmts[j]);
	}
	for (long i = 0; i < n; i++)
		printf("%s%lu", i ? " " : "", mysql_thread_id(conns[i]));
	printf("\n");
	fflush(stdout);

	/*
	 * Idle until the caller closes our standard input; the active ones
	 * set their variable each second meanwhile, to a length that differs
	 * from the last (between 1 and 64 KiB, spread over the connections).
	 */
	struct pollfd pfd = { .fd = STDIN_FILENO, .events = POLLIN };
	for (unsigned long tick = 0;; tick++) {
		int r = poll(&pfd, 1, active > 0 ? 1000 : -1);

		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0)
			err(1, "poll");
		if (r > 0 && read(STDIN_FILENO, buf, sizeof(buf)) <= 0)
			break;
		for (long i = 0; r == 0 && i < active; i++) {
			char stmt[64];

			snprintf(stmt, sizeof(stmt), "SET @hold_v = REPEAT('x', "
			    "%lu)", 1 + (tick * 7919 + (unsigned long)i * 104729)
			    % 65536);
			run(conns[i], stmt);
		}
	}
	for (long i = 0; i < n; i++)
		mysql_close(conns[i]);
	free(conns);
	return 0;
usage:
	fprintf(stderr, "usage: hold -S SOCKET -u USER [-D DATABASE] "
	    "[-e STATEMENT]... [-a K] N\n");
	return 2;
}
