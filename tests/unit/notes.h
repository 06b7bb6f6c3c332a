/*
 * What the program says on stderr (diag.h), caught in a file for a test
 * to read: notes_start() before the code under test, notes_read() after.
 */
#ifndef MYSQLMEMPROF_NOTES_H
#define MYSQLMEMPROF_NOTES_H

#include <stdio.h>
#include <string.h>
#include <unistd.h>

static int notes_saved_fd = -1;
static FILE *notes_fp;
static char notes[16384];

static inline void
notes_start(void)
{
	fflush(stderr);
	notes_saved_fd = dup(2);
	notes_fp = tmpfile();
	dup2(fileno(notes_fp), 2);
}

/* Stops catching; notes then holds what was said. */
static inline const char *
notes_read(void)
{
	size_t n;

	fflush(stderr);
	dup2(notes_saved_fd, 2);
	close(notes_saved_fd);
	rewind(notes_fp);
	n = fread(notes, 1, sizeof(notes) - 1, notes_fp);
	notes[n] = '\0';
	fclose(notes_fp);
	return notes;
}

/* Whether what was said holds s. */
#define assert_said(s) \
	do { \
		if (strstr(notes, (s)) == NULL) \
			fail_msg("not said: %s\nsaid:\n%s", (s), notes); \
	} while (0)

#endif
