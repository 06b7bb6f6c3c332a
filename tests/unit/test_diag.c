/*
 * A line on stderr reaches a reader whole: one write, so that a pipe's
 * reader (a test waiting for words, a log collector) never sees half of
 * it. glibc 2.37+ wrote an unbuffered stream's printf 128 bytes at a time.
 */
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>
#include <cmocka.h>

#include "diag.h"

/*
 * The first write of diag_say(), read with stderr on a socket of
 * packets: a read returns one write, however many followed.
 */
static size_t
first_read(bool stamps, const char *msg, char *got, size_t len)
{
	int p[2], saved = dup(2);
	ssize_t n;

	assert_int_equal(socketpair(AF_UNIX, SOCK_SEQPACKET, 0, p), 0);
	assert_true(saved >= 0 && dup2(p[1], 2) == 2);
	diag_set_timestamps(stamps);
	diag_say("%s", msg);
	fflush(stderr);
	dup2(saved, 2);
	close(saved);
	close(p[1]);
	n = read(p[0], got, len - 1);
	close(p[0]);
	assert_true(n > 0);
	got[n] = '\0';
	return (size_t)n;
}

static void
a_long_line_is_one_write(bool stamps)
{
	char msg[1001], got[4096], want[1100];
	size_t n;

	memset(msg, 'x', sizeof(msg) - 1);
	msg[sizeof(msg) - 1] = '\0';
	snprintf(want, sizeof(want), "mysqlmemprof: %s\n", msg);
	n = first_read(stamps, msg, got, sizeof(got));
	assert_true(n >= strlen(want));
	assert_string_equal(got + n - strlen(want), want);
	if (stamps)
		assert_int_equal(got[24], ' ');
	else
		assert_int_equal(n, strlen(want));
}

static void
test_one_write_without_stamps(void **state)
{
	(void)state;
	a_long_line_is_one_write(false);
}

static void
test_one_write_with_stamps(void **state)
{
	(void)state;
	a_long_line_is_one_write(true);
}

/* What scrub.h refuses is shown as '?', within the one line. */
static void
test_controls_stay_on_the_line(void **state)
{
	char got[256];

	(void)state;
	first_read(false, "a\nb\x1b[2Jc", got, sizeof(got));
	assert_string_equal(got, "mysqlmemprof: a?b?[2Jc\n");
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_one_write_without_stamps),
		cmocka_unit_test(test_one_write_with_stamps),
		cmocka_unit_test(test_controls_stay_on_the_line),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
