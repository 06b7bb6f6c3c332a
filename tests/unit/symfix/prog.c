/*
 * test_symbols' PIE executable: prints where its exported and its static
 * function are, then waits for its stdin to close, so that the test reads
 * its /proc/PID/maps while it runs.
 */
#include <stdio.h>
#include <unistd.h>

int symfix_prog_global(int x);

int
symfix_prog_global(int x)
{
	return x + 7;
}

static int
symfix_prog_static(int x)
{
	return symfix_prog_global(x) * 2;
}

int
main(void)
{
	char c;

	printf("%p %p\n", (void *)symfix_prog_global,
	    (void *)symfix_prog_static);
	fflush(stdout);
	while (read(0, &c, 1) > 0)
		;
	return symfix_prog_static(0) == 14 ? 0 : 1;
}
