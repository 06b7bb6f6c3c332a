/*
 * What the profile formats share (profile.c) and the folded format: the
 * sample --profile-at keeps, the frames of a name, the cleaning of odd
 * bytes, and folded lines read back.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <setjmp.h>
#include <cmocka.h>

#include "fixtures.h"
#include "output.h"
#include "output_table.h"
#include "profile.h"

static struct sample
sample_of(uint64_t seq, int64_t total, struct event_stat *e, size_t n)
{
	return (struct sample){ .seq = seq, .total_bytes = total,
	    .filtered_total_bytes = -total, .thread_id = 42, .n_events = n,
	    .events = e };
}

static void
test_keep_last_and_peak(void **state)
{
	struct event_stat a[] = { ev("memory/a", 10) };
	struct event_stat b[] = { ev("memory/b", 30), ev("memory/c", 5) };
	struct event_stat c[] = { ev("memory/c", 20) };
	struct sample s1 = sample_of(1, 100, a, 1);
	struct sample s2 = sample_of(2, 300, b, 2);
	struct sample s3 = sample_of(3, 300, c, 1);
	struct sample s4 = sample_of(4, 200, c, 1);
	struct profile_keep last = { .at = PROFILE_AT_LAST };
	struct profile_keep peak = { .at = PROFILE_AT_PEAK };
	struct profile_keep fpeak = { .at = PROFILE_AT_PEAK,
	    .peak_of_filtered = true };
	const struct sample *all[] = { &s1, &s2, &s3, &s4 };

	(void)state;
	for (size_t i = 0; i < 4; i++) {
		assert_int_equal(profile_keep_offer(&last, all[i]), 0);
		assert_int_equal(profile_keep_offer(&peak, all[i]), 0);
		assert_int_equal(profile_keep_offer(&fpeak, all[i]), 0);
	}
	assert_true(last.has);
	assert_int_equal(last.s.seq, 4);
	/* The first of equal peaks: when the peak was reached. */
	assert_int_equal(peak.s.seq, 2);
	assert_int_equal(peak.s.n_events, 2);
	/* A copy: the caller's storage (the ring) may change. */
	assert_ptr_not_equal(peak.s.events, b);
	b[0].current_bytes = 1;
	assert_string_equal(peak.s.events[0].name, "memory/b");
	assert_int_equal(peak.s.events[0].current_bytes, 30);
	/* With --events, the peak of the filtered total (here -total). */
	assert_int_equal(fpeak.s.seq, 1);
	profile_keep_reset(&last);
	assert_false(last.has);
	profile_keep_free(&last);
	profile_keep_free(&peak);
	profile_keep_free(&fpeak);
}

static void
test_frames(void **state)
{
	(void)state;
	assert_int_equal(profile_frames("memory/innodb/row0sel"), 3);
	assert_int_equal(profile_prefix("memory/innodb/row0sel", 1), 6);
	assert_int_equal(profile_prefix("memory/innodb/row0sel", 2), 13);
	assert_int_equal(profile_prefix("memory/innodb/row0sel", 3), 21);
	assert_int_equal(profile_frames("a//b"), 3);
	assert_int_equal(profile_frames("plain"), 1);
}

static void
test_clean(void **state)
{
	char buf[64];

	(void)state;
	assert_int_equal(profile_clean(buf, sizeof(buf), "a\tb\nc\x7f", 6), 6);
	assert_string_equal(buf, "a b c ");
	profile_clean(buf, sizeof(buf), "caf\xc3\xa9 \xff!", 8);
	assert_string_equal(buf, "caf\xc3\xa9 \xef\xbf\xbd!");
	/* Cut at a character, never inside one. */
	profile_clean(buf, 6, "ab\xc3\xa9\xc3\xa9", 6);
	assert_string_equal(buf, "ab\xc3\xa9");
}

static char *
folded(struct sample *s, enum profile_root root, const char *grain)
{
	struct output o = {
		.fmt = output_table_find("folded"), .grain = grain,
		.settings.profile_root = root,
	};
	struct summary sum = { 0 };
	char *buf = NULL;
	size_t len = 0;

	assert_non_null(o.fmt);
	assert_non_null(o.fp = open_memstream(&buf, &len));
	assert_int_equal(output_begin(&o), 0);
	assert_int_equal(output_sample(&o, s), 0);
	assert_int_equal(output_end(&o, &sum), 0);
	output_release(&o);
	assert_int_equal(fclose(o.fp), 0);
	return buf;
}

static void
test_folded_lines(void **state)
{
	struct event_stat e[] = {
		ev("memory/innodb/row0sel", 25830),
		ev("memory/sql/odd name;50%", 100),
		ev("memory/sql/caf\xc3\xa9\xff\n", 7),
		ev("memory/sql/freed_elsewhere", -300),
	};
	struct sample s = sample_of(1, 0, e, 4);
	char *out;

	(void)state;
	out = folded(&s, PROFILE_ROOT_NONE, NULL);
	assert_string_equal(out,
	    "memory;innodb;row0sel 25830\n"
	    "memory;sql;odd name%3B50%25 100\n"
	    "memory;sql;caf\xc3\xa9\xef\xbf\xbd  7\n"
	    "memory;sql;freed_elsewhere 0\n");
	free(out);
	out = folded(&s, PROFILE_ROOT_THREAD, NULL);
	assert_non_null(strstr(out, "thread 42;memory;innodb;row0sel 25830\n"));
	free(out);
	out = folded(&s, PROFILE_ROOT_THREAD, "user:app");
	assert_non_null(strstr(out, "user:app;memory;innodb;row0sel 25830\n"));
	free(out);
	statement_set_text(&s.statement, "SELECT a;\nb", 11);
	out = folded(&s, PROFILE_ROOT_STATEMENT, NULL);
	assert_non_null(strstr(out, "SELECT a%3B b;memory;innodb;row0sel "
	    "25830\n"));
	free(out);
}

/*
 * The format's settings reach its state: with --profile-at peak the
 * profile is of the largest sample, of the filtered total under
 * --events; with each, every sample is written as it comes.
 */
static char *
folded_at(const struct output_settings *set, const struct sample *const *all,
    size_t n, size_t *written_early)
{
	struct output o = { .fmt = output_table_find("folded"), .settings = *set };
	struct summary sum = { 0 };
	char *buf = NULL;
	size_t len = 0;

	assert_non_null(o.fp = open_memstream(&buf, &len));
	for (size_t i = 0; i < n; i++)
		assert_int_equal(output_sample(&o, all[i]), 0);
	*written_early = len;
	assert_int_equal(output_end(&o, &sum), 0);
	output_release(&o);
	assert_int_equal(fclose(o.fp), 0);
	return buf;
}

static void
test_folded_profile_at(void **state)
{
	struct event_stat a[] = { ev("memory/a", 10) };
	struct event_stat b[] = { ev("memory/b", 30) };
	struct event_stat c[] = { ev("memory/c", 20) };
	struct sample s1 = sample_of(1, 100, a, 1);
	struct sample s2 = sample_of(2, 300, b, 1);
	struct sample s3 = sample_of(3, 200, c, 1);
	const struct sample *all[] = { &s1, &s2, &s3 };
	struct output_settings set = { .profile_at = PROFILE_AT_LAST };
	size_t early;
	char *out;

	(void)state;
	out = folded_at(&set, all, 3, &early);
	assert_string_equal(out, "memory;c 20\n");
	assert_int_equal(early, 0);
	free(out);
	set.profile_at = PROFILE_AT_PEAK;
	out = folded_at(&set, all, 3, &early);
	assert_string_equal(out, "memory;b 30\n");
	free(out);
	/* The filtered totals are -100, -300, -200: the first is largest. */
	set.peak_of_filtered = true;
	out = folded_at(&set, all, 3, &early);
	assert_string_equal(out, "memory;a 10\n");
	free(out);
	set = (struct output_settings){ .profile_at = PROFILE_AT_EACH };
	out = folded_at(&set, all, 3, &early);
	assert_string_equal(out, "memory;a 10\nmemory;b 30\nmemory;c 20\n");
	assert_int_equal(early, strlen(out));
	free(out);
}

/* Nothing sampled: no line at all. */
static void
test_folded_nothing(void **state)
{
	struct output o = { .fmt = output_table_find("folded") };
	struct summary sum = { 0 };
	char *buf = NULL;
	size_t len = 0;

	(void)state;
	assert_non_null(o.fp = open_memstream(&buf, &len));
	assert_int_equal(output_end(&o, &sum), 0);
	output_release(&o);
	assert_int_equal(fclose(o.fp), 0);
	assert_int_equal(len, 0);
	free(buf);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_keep_last_and_peak),
		cmocka_unit_test(test_frames),
		cmocka_unit_test(test_clean),
		cmocka_unit_test(test_folded_lines),
		cmocka_unit_test(test_folded_nothing),
		cmocka_unit_test(test_folded_profile_at),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
