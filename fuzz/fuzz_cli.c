/*
 * libFuzzer harness for the command line, the number parser and the
 * option-file reader: no input may crash them, leak, read out of bounds,
 * or give CLI_OK without a target. (Messages may quote a newline from the
 * input; diag.c prints every message on one line.)
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "cli.h"
#include "cli_table.h"

#define MAX_ARGS 24

/* The input, split at NUL bytes, is a command line. */
static void
fuzz_command_line(const uint8_t *data, size_t size)
{
	static const char *const no_files[] = { NULL };
	struct cli_env env = { .system_files = no_files };
	char *copy = malloc(size + 1), *argv[MAX_ARGS + 2], warn[512], err[512];
	struct options o;
	int argc = 0;

	if (copy == NULL)
		return;
	memcpy(copy, data, size);
	copy[size] = '\0';
	argv[argc++] = (char *)"mysqlmemprof";
	for (char *p = copy; p < copy + size && argc <= MAX_ARGS;
	    p += strlen(p) + 1)
		argv[argc++] = p;
	argv[argc] = NULL;
	err[0] = '\0';
	enum cli_status st = cli_parse(argc, argv, &env, &o, warn,
	    sizeof(warn), err, sizeof(err));
	if (st == CLI_USAGE && err[0] == '\0')
		abort(); /* every usage error says what is wrong */
	if (st == CLI_OK && o.target == TARGET_NONE)
		abort();
	cli_free(&o);
	free(copy);
}

static void
fuzz_number(const uint8_t *data, size_t size)
{
	char buf[64];
	const char *errstr;
	uint64_t v;

	if (size >= sizeof(buf))
		size = sizeof(buf) - 1;
	memcpy(buf, data, size);
	buf[size] = '\0';
	if (cli_number(buf, 1, 3600000, &v, &errstr) == 0 &&
	    (v < 1 || v > 3600000))
		abort();
}

/* The input is an option file, read through --defaults-file. */
static void
fuzz_option_file(const uint8_t *data, size_t size)
{
	static const char *const no_files[] = { NULL };
	struct cli_env env = { .system_files = no_files };
	char path[64], arg[80], warn[512], err[512];
	struct options o;
	int fd = memfd_create("my.cnf", 0);

	if (fd < 0)
		return;
	if (write(fd, data, size) == (ssize_t)size) {
		snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
		snprintf(arg, sizeof(arg), "--defaults-file=%s", path);
		char *argv[] = { (char *)"mysqlmemprof", arg, (char *)"--list",
		    NULL };
		err[0] = '\0';
		if (cli_parse(3, argv, &env, &o, warn, sizeof(warn), err,
		    sizeof(err)) == CLI_USAGE && err[0] == '\0')
			abort();
		cli_free(&o);
	}
	close(fd);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size == 0)
		return 0;
	/* The first byte picks the target, so one corpus covers all three. */
	switch (data[0] % 3) {
	case 0:
		fuzz_command_line(data + 1, size - 1);
		break;
	case 1:
		fuzz_number(data + 1, size - 1);
		break;
	default:
		fuzz_option_file(data + 1, size - 1);
		break;
	}
	return 0;
}
