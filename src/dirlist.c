#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "dirlist.h"

/*
 * strcmp()'s order, but for a dot, which comes before any other
 * character: a name's stem sorts as the stem alone would, so an
 * incident's X.html comes before its second's X-2.html.
 */
static int
by_name(const void *a, const void *b)
{
	const unsigned char *x = *(const unsigned char *const *)a;
	const unsigned char *y = *(const unsigned char *const *)b;

	for (; *x == *y && *x != '\0'; x++, y++)
		continue;
	if (*x == '.' && *y != '\0' && *y != '.')
		return -1;
	if (*y == '.' && *x != '\0' && *x != '.')
		return 1;
	return *x - *y;
}

/* fd's own descriptor as a DIR (closed with it): NULL with errno set. */
static DIR *
open_list(int fd)
{
	int own = openat(fd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	DIR *d = own >= 0 ? fdopendir(own) : NULL;

	if (d == NULL && own >= 0) {
		int e = errno;

		close(own);
		errno = e;
	}
	return d;
}

/* name appended to v: 0, or -1 out of memory. */
static int
append(char ***v, size_t *n, size_t *cap, const char *name)
{
	if (*n == *cap) {
		size_t c = *cap ? *cap * 2 : 16;
		char **nv = realloc(*v, c * sizeof(*nv));

		if (nv == NULL)
			return -1;
		*v = nv;
		*cap = c;
	}
	if (((*v)[*n] = strdup(name)) == NULL)
		return -1;
	(*n)++;
	return 0;
}

int
dirlist_at(int fd, dirlist_keep_fn keep, void *ctx, char ***names,
    size_t *n)
{
	DIR *d = open_list(fd);
	struct dirent *e;
	char **v = NULL;
	size_t len = 0, cap = 0;

	*names = NULL;
	*n = 0;
	if (d == NULL)
		return -1;
	while ((e = readdir(d)) != NULL) {
		if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0 ||
		    (keep != NULL && !keep(e->d_name, ctx)))
			continue;
		if (append(&v, &len, &cap, e->d_name) != 0) {
			closedir(d);
			dirlist_free(v, len);
			errno = ENOMEM;
			return -1;
		}
	}
	closedir(d);
	if (len > 1)
		qsort(v, len, sizeof(*v), by_name);
	*names = v;
	*n = len;
	return 0;
}

void
dirlist_free(char **names, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(names[i]);
	free(names);
}
