#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <unistd.h>

#include "dirfile.h"

int
dirfile_write_whole(int fd, const char *name, const void *p, size_t n)
{
	char tmp[300];
	int out, e;
	ssize_t w = 0;

	snprintf(tmp, sizeof(tmp), "%s.tmp", name);
	(void)unlinkat(fd, tmp, 0);
	out = openat(fd, tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC |
	    O_NOFOLLOW, 0600);
	if (out < 0)
		return -1;
	for (size_t done = 0; done < n; done += (size_t)w)
		if ((w = write(out, (const char *)p + done, n - done)) < 0 &&
		    errno != EINTR)
			break;
		else if (w < 0)
			w = 0;
	if (w >= 0 && fsync(out) == 0) {
		w = close(out);
		out = -1;
		if (w == 0 && renameat(fd, tmp, fd, name) == 0)
			return 0;
	}
	e = errno;
	if (out >= 0)
		close(out);
	unlinkat(fd, tmp, 0);
	errno = e;
	return -1;
}
