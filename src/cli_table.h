/*
 * The option table, shared by the files of the command line (cli.c,
 * cli_apply.c, cli_check.c, cli_options.c, cli_usage.c), its unit test and
 * its fuzzer, and nothing else. One row
 * describes one option completely: getopt_long(), the option-file keys,
 * the defaults, the range checks, the hints of error messages and --help
 * are all made from the rows.
 */
#ifndef MYSQLMEMPROF_CLI_TABLE_H
#define MYSQLMEMPROF_CLI_TABLE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "options.h"

/* What the value of an option is, and so how it is checked and stored. */
enum cli_kind {
	KIND_HEADING, /* --help only: a blank line, then the text if any */
	KIND_NOTE,    /* --help only: the text as it stands */
	KIND_STRING,  /* char *, a copy; with a hint, it must not be empty */
	KIND_NUMBER,  /* an unsigned integer of .size bytes, in [min, max] */
	KIND_BYTES,   /* uint64_t: bytes with K, M or G, in [min, max] */
	KIND_FLAG,    /* bool set to true; an option file may set it false */
	KIND_LIST,    /* char **, one more each time; its count at .count */
	KIND_SPECIAL, /* the row's own handler, .set */
	KIND_FILES,   /* which option files to read: a field of file_choice */
	KIND_EXIT,    /* --help, --version: parsing ends with .status */
};

/*
 * Options that only make sense with another one. Given on the command line
 * without it, they are an error; from an option file they are left alone,
 * as the file may serve other runs too.
 */
enum cli_needs {
	NEEDS_NOTHING,
	NEEDS_WAIT,          /* --wait-for or --longer-than */
	NEEDS_TRIGGER_BYTES, /* --trigger-bytes or --bigger-than */
	NEEDS_PROFILE,       /* --format folded or pprof */
	NEEDS_LISTEN,        /* --listen */
	NEEDS_SERVER,        /* a server: anything but --read */
	NEEDS_RECORD,        /* --record */
	NEEDS_READ,          /* --read */
	NEEDS_HEAP,          /* --heap or --heap-file */
	N_NEEDS,
};

/* The options read before any option file: which files to read. */
struct file_choice {
	bool no_defaults;
	const char *defaults_file; /* in argv */
	const char *extra_file;    /* in argv */
	const char *login_path;    /* in argv; NULL: [client] alone */
};

/* The state of one cli_parse(), as the handlers of rows see it. */
struct cli_parse {
	struct options *o;
	char *err;
	size_t errlen;
	const char *where;     /* "" or " in FILE:LINE", for messages */
	/* --login-path's group, shared by every client as [client] is. */
	const char *login_group;
	bool target_from_file; /* the target so far came from an option file */
	enum target_kind implied; /* a row's .implies, taken if none is named */
	/* The first option of each group of cli_needs on the command line. */
	const char *needs[N_NEEDS];
};

struct cli_row;

/*
 * The handler of a KIND_SPECIAL row. arg is NULL when none was given;
 * returns 0, or -1 with ps->err set.
 */
typedef int cli_set_fn(struct cli_parse *ps, const struct cli_row *r,
    const char *arg, bool from_file);

struct cli_row {
	const char *name; /* long option, option-file key; NULL: help only */
	char short_name;  /* -h, ...; 0: none */
	enum cli_kind kind;
	/*
	 * Where the value goes: an offset into struct options (into struct
	 * file_choice for KIND_FILES) and the size of that field; size 0: no
	 * field, as for --list, which only names a target.
	 */
	size_t field, size;
	size_t count;     /* KIND_LIST: the offset of the count */
	cli_set_fn *set;  /* KIND_SPECIAL */
	const char *def;  /* the default, applied as if given before all else */
	uint64_t min, max;   /* KIND_NUMBER, KIND_BYTES */
	const char *hint;    /* the fix, for error messages */
	enum target_kind target; /* the target the option names, if any */
	/* The target it implies when no option names one (--listen: global). */
	enum target_kind implies;
	enum cli_needs needs;
	bool command_line_only;  /* an option file may not hold it */
	bool secret;         /* overwritten in argv once copied */
	enum cli_status status;  /* KIND_EXIT */
	/*
	 * --help: "--name=ARG" (arg NULL: the option takes no value; with
	 * optional_arg, "--name[=ARG]"), then the text; each '\n' in it starts
	 * a line at the column of the text. For headings and notes, the text.
	 */
	const char *arg;
	bool optional_arg;
	const char *help;
	/* The text starts with the names of the output formats, from their table. */
	bool help_formats;
};

/* The rows, in the order of --help, and the text around them. */
extern const struct cli_row cli_rows[];
extern const size_t cli_n_rows;
extern const char cli_usage_head[];
extern const char cli_usage_tail[];

/* The most rows: cli.c builds the arrays of getopt_long() on its stack. */
#define CLI_MAX_ROWS 96

/*
 * Applies one value of row r to ps->o: checks it, notes what it needs, sets
 * the target it names, stores it. arg is NULL when none was given. Returns
 * 0, or -1 with ps->err set.
 */
int cli_apply(struct cli_parse *ps, const struct cli_row *r, const char *arg,
    bool from_file);
/*
 * "name=off" in an option file: a flag's field is set false. A flag with
 * no field, such as --list, which only names a target, is left as it was.
 */
void cli_apply_off(struct cli_parse *ps, const struct cli_row *r);
/*
 * Frees the string or list a KIND_STRING or KIND_LIST row stores in o, and
 * clears it, so that a field two rows share is freed once.
 */
void cli_free_field(struct options *o, const struct cli_row *r);

/*
 * The values of KIND_NUMBER and KIND_BYTES rows (cli_apply.c). Parses a
 * decimal integer in [min, max] with no junk; errstr on failure.
 */
int cli_number(const char *s, uint64_t min, uint64_t max, uint64_t *out,
    const char **errstr);
/*
 * Parses a byte count: a decimal integer with an optional K, M or G (1K is
 * 1024 bytes), in [min, max] once multiplied; errstr on failure.
 */
int cli_bytes(const char *s, uint64_t min, uint64_t max, uint64_t *out,
    const char **errstr);

/*
 * Options that need another, given on the command line without it, and
 * what the profile formats and --output patterns ask (cli_check.c).
 * Returns 0, or -1 with ps->err set.
 */
int cli_check_needs(struct cli_parse *ps);

/* The handlers of the rows that need one, in cli_apply.c. */
cli_set_fn cli_set_password;
cli_set_fn cli_set_ssl_mode;
cli_set_fn cli_set_protocol;
cli_set_fn cli_set_tls_version;
cli_set_fn cli_set_account;
cli_set_fn cli_set_format;
cli_set_fn cli_set_output;
cli_set_fn cli_set_profile_at;
cli_set_fn cli_set_profile_root;
cli_set_fn cli_set_timestamps;
cli_set_fn cli_set_listen;
cli_set_fn cli_set_when;
cli_set_fn cli_set_bigger_than;

#endif
