/*
 * The flame graph of a heap profile built by hand: well-formed XML
 * (xmllint), each frame as wide as its bytes, the root as wide as the
 * drawing, names escaped in labels and tooltips, labels cut to fit,
 * colors the same for a name in two drawings.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <setjmp.h>
#include <cmocka.h>

#include "heap_flame.h"
#include "heap_profile.h"

#define MIB (INT64_C(1) << 20)

static const struct {
	uint64_t start, end;
	const char *name;
} syms[] = {
	{ 0x1000, 0x1100, "main" },
	{ 0x1100, 0x1200, "big_holder" },
	{ 0x1200, 0x1300, "small<&\"odd\">" },
	{ 0x1300, 0x1400, "my_malloc" },
	{ 0x1400, 0x1500, "a_very_long_function_name_that_cannot_fit_in_"
	    "a_narrow_frame_of_the_drawing_at_all(int, char const*)" },
};

static void
fake_name(void *ctx, uint64_t pc, struct symbol *out)
{
	(void)ctx;
	for (size_t i = 0; i < sizeof(syms) / sizeof(syms[0]); i++)
		if (pc >= syms[i].start && pc < syms[i].end) {
			*out = (struct symbol){ .name = syms[i].name,
			    .named = true, .func_start = syms[i].start };
			return;
		}
	*out = (struct symbol){ .name = "0xdead" };
}

/* Innermost first, as a dump has them. */
static uint64_t pcs1[] = { 0x1310, 0x1110, 0x1010 };
static uint64_t pcs2[] = { 0x1210, 0x1010 };
static uint64_t pcs3[] = { 0x1410, 0x1010 };

static struct heap_stack stacks[] = {
	{ pcs1, 3, 9, 3 * MIB },
	{ pcs2, 2, 1, 1 * MIB },
	{ pcs3, 2, 1, 512 << 10 },
};

static char *
draw(size_t *len)
{
	struct heap_dump d = { .stacks = stacks, .nstacks = 3 };
	struct heap_profile p;
	char *svg = NULL;
	FILE *fp;

	assert_int_equal(heap_profile_build(&d, fake_name, NULL, &p), 0);
	assert_non_null(fp = open_memstream(&svg, len));
	assert_int_equal(heap_flame_svg(fp, &p, "dump <1>"), 0);
	assert_int_equal(fclose(fp), 0);
	heap_profile_free(&p);
	return svg;
}

/* The width of the rectangle after the tooltip that begins with name. */
static double
width_of(const char *svg, const char *name)
{
	char key[256];
	const char *at;

	snprintf(key, sizeof(key), "<title>%s (", name);
	at = strstr(svg, key);
	assert_non_null(at);
	at = strstr(at, "width=\"");
	assert_non_null(at);
	return strtod(at + 7, NULL);
}

static void
test_well_formed(void **state)
{
	char path[] = "/tmp/test_heap_flame.XXXXXX", cmd[128];
	size_t len;
	char *svg = draw(&len);
	int fd = mkstemp(path);

	(void)state;
	assert_true(fd >= 0);
	assert_int_equal(write(fd, svg, len), (ssize_t)len);
	close(fd);
	if (access("/usr/bin/xmllint", X_OK) == 0) {
		snprintf(cmd, sizeof(cmd), "xmllint --noout %s", path);
		assert_int_equal(system(cmd), 0);
	}
	unlink(path);
	assert_null(strstr(svg, "<script"));
	free(svg);
}

static void
test_widths(void **state)
{
	size_t len;
	char *svg = draw(&len);
	double all = width_of(svg, "all"), main_w = width_of(svg, "main");
	double big = width_of(svg, "big_holder"), mall = width_of(svg,
	    "my_malloc");
	double small = width_of(svg, "small&lt;&amp;&quot;odd&quot;&gt;");
	double total = 3 * MIB + 1 * MIB + (512 << 10);

	(void)state;
	assert_true(all == HEAP_FLAME_WIDTH);
	assert_true(main_w == HEAP_FLAME_WIDTH);
	assert_true(big > HEAP_FLAME_WIDTH * 3 * MIB / total - 0.2 &&
	    big < HEAP_FLAME_WIDTH * 3 * MIB / total + 0.2);
	assert_true(small > HEAP_FLAME_WIDTH * MIB / total - 0.2 &&
	    small < HEAP_FLAME_WIDTH * MIB / total + 0.2);
	assert_true(mall == big);
	free(svg);
}

static void
test_escaped_and_cut(void **state)
{
	size_t len;
	char *svg = draw(&len);

	(void)state;
	assert_null(strstr(svg, "small<&"));
	assert_non_null(strstr(svg, "dump &lt;1&gt;"));
	/* The long name whole in its tooltip, cut in its narrow label. */
	assert_non_null(strstr(svg, "<title>a_very_long_function_name_that_"
	    "cannot_fit_in_a_narrow_frame_of_the_drawing_at_all(int, char "
	    "const*) ("));
	assert_non_null(strstr(svg, "...</text>"));
	free(svg);
}

static void
test_colors_by_name(void **state)
{
	size_t l1, l2;
	char *a = draw(&l1), *b = draw(&l2);

	(void)state;
	assert_int_equal(l1, l2);
	assert_memory_equal(a, b, l1);
	/* Two names, two colors. */
	assert_memory_not_equal(strstr(strstr(a, "<title>main ("), "fill="),
	    strstr(strstr(a, "<title>big_holder ("), "fill="), 20);
	free(a);
	free(b);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_well_formed),
		cmocka_unit_test(test_widths),
		cmocka_unit_test(test_escaped_and_cut),
		cmocka_unit_test(test_colors_by_name),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
