/*
 * Runs a command and writes what it used: the benchmark's /usr/bin/time.
 *
 *   rusage FILE COMMAND [ARG]...
 *
 * Writes "user_us=U sys_us=S maxrss_kb=M" for COMMAND and the children it
 * waited for to FILE and exits with COMMAND's status. The command is
 * forked from this small process rather than from the Python runner, so
 * its peak RSS does not start at the runner's size (Linux carries the
 * high-water mark of the memory a process had before exec into ru_maxrss).
 */
#include <err.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

static uint64_t
tv_us(struct timeval tv)
{
	return (uint64_t)tv.tv_sec * 1000000u + (uint64_t)tv.tv_usec;
}

int
main(int argc, char **argv)
{
	struct rusage ru;
	pid_t pid;
	int status;
	FILE *fp;

	if (argc < 3) {
		fprintf(stderr, "usage: rusage FILE COMMAND [ARG]...\n");
		return 2;
	}
	if ((pid = fork()) == -1)
		err(1, "fork");
	if (pid == 0) {
		execvp(argv[2], argv + 2);
		err(127, "%s", argv[2]);
	}
	if (wait4(pid, &status, 0, &ru) == -1)
		err(1, "wait4");
	if ((fp = fopen(argv[1], "w")) == NULL)
		err(1, "%s", argv[1]);
	fprintf(fp, "user_us=%llu sys_us=%llu maxrss_kb=%ld\n",
	    (unsigned long long)tv_us(ru.ru_utime),
	    (unsigned long long)tv_us(ru.ru_stime), ru.ru_maxrss);
	if (fclose(fp) != 0)
		err(1, "%s", argv[1]);
	if (WIFEXITED(status))
		return WEXITSTATUS(status);
	return 128 + WTERMSIG(status);
}
