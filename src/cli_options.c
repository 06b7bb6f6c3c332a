/*
 * The option table: every option of mysqlmemprof, one row each, in the
 * order of --help. Adding an option is adding its row here and its entry
 * in man/mysqlmemprof.1; nothing else names it. What each field of a row
 * means is said in cli_table.h.
 */
#include <stddef.h>
#include <stdint.h>

#include "cli_table.h"

#define FIELD(f) .field = offsetof(struct options, f), \
	.size = sizeof(((struct options *)0)->f)
#define FILES(f) .field = offsetof(struct file_choice, f), \
	.size = sizeof(((struct file_choice *)0)->f)
#define HEADING(text) { .kind = KIND_HEADING, .help = (text) }
#define NOTE(text) { .kind = KIND_NOTE, .help = (text) }

const char cli_usage_head[] =
"Usage: mysqlmemprof [OPTIONS] --thread ID | --connection ID | --list\n"
"       mysqlmemprof [OPTIONS] --wait-for PATTERN | --longer-than SECONDS |\n"
"                    --bigger-than SIZE\n"
"       mysqlmemprof [OPTIONS] --global | --for-user NAME | --for-host HOST |\n"
"                    --for-account USER@HOST\n"
"       mysqlmemprof [OPTIONS] --explain [--count N | --duration SECONDS]\n"
"       mysqlmemprof [OPTIONS] --heap [--heap-dir DIR] [--heap-base FILE|first]\n"
"       mysqlmemprof [OPTIONS] --heap-file FILE [--heap-base FILE]\n"
"       mysqlmemprof [OPTIONS] --record DIR\n"
"       mysqlmemprof [OPTIONS] --read FILE | DIR [--since TIME] [--until TIME]\n"
"Samples the memory of a MySQL or MariaDB thread, account or server from\n"
"performance_schema.\n";

const struct cli_row cli_rows[] = {
	HEADING("Target (exactly one):"),
	{ .name = "thread", .kind = KIND_NUMBER, FIELD(target_id),
	    .target = TARGET_THREAD, .min = 1, .max = UINT64_MAX,
	    .hint = "give a THREAD_ID from performance_schema.threads "
	    "(see --list)",
	    .arg = "ID", .help = "performance_schema THREAD_ID to sample" },
	{ .name = "connection", .kind = KIND_NUMBER, FIELD(target_id),
	    .target = TARGET_CONNECTION, .min = 1, .max = UINT64_MAX,
	    .hint = "give a connection id from SHOW PROCESSLIST (see --list)",
	    .arg = "ID", .help = "connection id (SHOW PROCESSLIST) to sample" },
	{ .name = "list", .kind = KIND_FLAG, .target = TARGET_LIST,
	    .help = "list the server's threads, largest memory first" },
	{ .name = "wait-for", .kind = KIND_STRING, FIELD(wait_pattern),
	    .target = TARGET_WAIT,
	    .hint = "give a SQL LIKE pattern, e.g. --wait-for '%GROUP BY%'",
	    .arg = "PATTERN",
	    .help = "wait for a statement whose text is LIKE PATTERN,\n"
	    "sample its connection until it ends" },
	{ .name = "longer-than", .kind = KIND_NUMBER, FIELD(longer_than_s),
	    .target = TARGET_WAIT, .min = 0, .max = 315360000,
	    .hint = "give seconds, e.g. --longer-than 60",
	    .arg = "SECONDS",
	    .help = "the same for a statement running this long;\n"
	    "with --wait-for, both must hold" },
	/*
	 * At most the largest total a thread can have, as --trigger-bytes;
	 * or a percentage of connection_memory_limit, at most all of it.
	 */
	{ .name = "bigger-than", .kind = KIND_SPECIAL,
	    .set = cli_set_bigger_than, FIELD(bigger_than_bytes),
	    .target = TARGET_WAIT,
	    .min = 1, .max = INT64_MAX,
	    .hint = "give bytes, with K, M or G for KiB, MiB or GiB, e.g. "
	    "--bigger-than 1G, or a percentage of connection_memory_limit, "
	    "e.g. --bigger-than 80%",
	    .arg = "SIZE",
	    .help = "the same for a connection that holds SIZE bytes\n"
	    "(K, M, G) or more, running a statement or idle;\n"
	    "or N%, of MySQL's connection_memory_limit;\n"
	    "with the two above, all must hold" },
	{ .name = "global", .kind = KIND_FLAG, .target = TARGET_GLOBAL,
	    .help = "sample the whole server's memory" },
	{ .name = "for-user", .kind = KIND_STRING, FIELD(grain_user),
	    .target = TARGET_USER,
	    .hint = "give an account name, e.g. --for-user app",
	    .arg = "NAME",
	    .help = "sample every session of account name NAME" },
	{ .name = "for-host", .kind = KIND_STRING, FIELD(grain_host),
	    .target = TARGET_HOST,
	    .hint = "give a client host, e.g. --for-host localhost",
	    .arg = "HOST",
	    .help = "sample every session from client host HOST" },
	{ .name = "for-account", .kind = KIND_SPECIAL, .set = cli_set_account,
	    .target = TARGET_ACCOUNT,
	    .arg = "USER@HOST", .help = "sample every session of USER@HOST" },
	{ .name = "read", .kind = KIND_STRING, FIELD(read_path),
	    .target = TARGET_READ,
	    .hint = "give a file written by --format json, or - for standard "
	    "input",
	    .arg = "FILE",
	    .help = "replay FILE, written by --format json (-: standard\n"
	    "input), or the folder --record DIR wrote,\n"
	    "instead of sampling a server" },
	{ .name = "since", .kind = KIND_SPECIAL, .set = cli_set_when,
	    .needs = NEEDS_READ, .arg = "TIME",
	    .help = "--read: only samples from TIME on (UTC, e.g.\n"
	    "2026-11-27T03:05Z, or -10m, -2h: before now)" },
	{ .name = "until", .kind = KIND_SPECIAL, .set = cli_set_when,
	    .needs = NEEDS_READ, .arg = "TIME",
	    .help = "--read: only samples up to TIME" },

	HEADING("Waiting (with --wait-for, --longer-than or --bigger-than):"),
	{ .name = "match-user", .kind = KIND_STRING, FIELD(match_user),
	    .needs = NEEDS_WAIT,
	    .hint = "give an account name as SHOW PROCESSLIST shows it",
	    .arg = "NAME", .help = "only statements of this account" },
	{ .name = "match-db", .kind = KIND_STRING, FIELD(match_db),
	    .needs = NEEDS_WAIT, .hint = "give a database name",
	    .arg = "NAME",
	    .help = "only statements whose default database is NAME" },
	{ .name = "poll", .kind = KIND_NUMBER, FIELD(poll_ms),
	    .needs = NEEDS_WAIT, .def = "1000", .min = 10, .max = 3600000,
	    .hint = "give milliseconds between looks, e.g. --poll 1000",
	    .arg = "MS", .help = "milliseconds between looks (default 1000)" },
	{ .name = "wait-timeout", .kind = KIND_NUMBER, FIELD(wait_timeout_s),
	    .needs = NEEDS_WAIT, .min = 1, .max = 315360000,
	    .hint = "give seconds, e.g. --wait-timeout 3600",
	    .arg = "SECONDS",
	    .help = "give up waiting after SECONDS: exit status 3" },
	{ .name = "repeat", .kind = KIND_FLAG, FIELD(repeat),
	    .needs = NEEDS_WAIT,
	    .help = "after a capture, wait for the next statement" },
	{ .name = "running-only", .kind = KIND_FLAG, FIELD(running_only),
	    .needs = NEEDS_WAIT,
	    .help = "--bigger-than takes only a connection running a\n"
	    "statement, not one that holds the size idle" },
	NOTE("  Here --output may hold %c (connection id), %t (thread id), %% "
	    "and strftime\n"
	    "  conversions such as %Y%m%d-%H%M%S: then each capture has its "
	    "own file."),

	HEADING("Sampling:"),
	/* No .def: the default is the mode's (its row in modes.c). */
	{ .name = "frequency", .kind = KIND_NUMBER, FIELD(frequency_ms),
	    .min = 1, .max = 3600000,
	    .hint = "give milliseconds between samples, e.g. --frequency 250",
	    .arg = "MS", .help = "milliseconds between samples (default 500;\n"
	    "1000 with --record)" },
	{ .name = "count", .kind = KIND_NUMBER, FIELD(count),
	    .min = 1, .max = UINT64_C(1000000000000),
	    .hint = "give a number of samples, e.g. --count 100",
	    .arg = "N", .help = "stop after N samples" },
	{ .name = "duration", .kind = KIND_NUMBER, FIELD(duration_s),
	    .min = 1, .max = 315360000,
	    .hint = "give seconds, e.g. --duration 60",
	    .arg = "SECONDS", .help = "stop after SECONDS" },
	{ .name = "max-load", .kind = KIND_NUMBER, FIELD(max_load_pct),
	    .def = "10", .min = 0, .max = 100,
	    .hint = "give a percentage of one core, or 0 for no bound, e.g. "
	    "--max-load 10",
	    .arg = "PERCENT",
	    .help = "skip ticks to keep the queries under PERCENT\n"
	    "of one core (default 10; 0: no bound)" },
	{ .name = "rows-every", .kind = KIND_NUMBER, FIELD(rows_every_s),
	    .def = "10", .min = 0, .max = 86400,
	    .hint = "give seconds, 0 for each tick, e.g. --rows-every 10",
	    .arg = "SECONDS",
	    .help = "a thread's memory rows at most SECONDS apart,\n"
	    "where the server's own count of it is read each\n"
	    "tick; 0: the rows each tick (default 10)" },
	{ .name = "rows-moved", .kind = KIND_BYTES, FIELD(rows_moved_bytes),
	    .def = "1", .min = 1, .max = UINT64_C(1) << 50,
	    .hint = "give bytes, with K, M or G, e.g. --rows-moved 1M",
	    .arg = "SIZE",
	    .help = "read a thread's rows again when its own count\n"
	    "moved by SIZE since (default 1: any change)" },
	{ .name = "window", .kind = KIND_NUMBER, FIELD(window),
	    .def = "50", .min = 1, .max = 100000,
	    .hint = "give a number of samples, e.g. --window 50",
	    .arg = "N", .help = "samples kept for the summary (default 50)" },
	{ .name = "top", .kind = KIND_NUMBER, FIELD(top),
	    .def = "10", .min = 0, .max = 10000,
	    .hint = "give a number of events, or 0 for all, e.g. --top 10",
	    .arg = "N", .help = "events kept per sample (default 10; 0: all);\n"
	    "--heap: stacks and functions shown" },
	{ .name = "events", .kind = KIND_LIST, FIELD(include_events),
	    .count = offsetof(struct options, n_include_events),
	    .arg = "PATTERN",
	    .help = "keep only events LIKE PATTERN (repeatable)" },
	{ .name = "exclude", .kind = KIND_LIST, FIELD(exclude_events),
	    .count = offsetof(struct options, n_exclude_events),
	    .arg = "PATTERN",
	    .help = "drop events LIKE PATTERN (repeatable); the total\n"
	    "still counts every event" },

	HEADING("Flight recorder:"),
	/* At most the largest total a thread can have. */
	{ .name = "trigger-bytes", .kind = KIND_BYTES, FIELD(trigger_bytes),
	    .min = 1, .max = INT64_MAX,
	    .hint = "give bytes, with K, M or G for KiB, MiB or GiB, e.g. "
	    "--trigger-bytes 512M",
	    .arg = "N",
	    .help = "write nothing until the thread total reaches N\n"
	    "bytes (K, M, G: KiB, MiB, GiB); then write the\n"
	    "last --window samples up to it, then each one;\n"
	    "SIGUSR1 writes the samples held at any time" },
	{ .name = "trigger-hold", .kind = KIND_NUMBER, FIELD(trigger_hold_s),
	    .needs = NEEDS_TRIGGER_BYTES, .def = "5", .min = 0, .max = 86400,
	    .hint = "give seconds, e.g. --trigger-hold 5",
	    .arg = "SECONDS",
	    .help = "go on writing until the total has been below N\n"
	    "this long (default 5); with --bigger-than, the\n"
	    "capture of an idle holder ends once it has held\n"
	    "less than SIZE this long" },

	HEADING("Output:"),
	{ .name = "format", .kind = KIND_SPECIAL, .set = cli_set_format,
	    .def = "text",
	    .arg = "FORMAT", .help_formats = true, .help = "\n(default text)" },
	{ .name = "output", .short_name = 'o', .kind = KIND_SPECIAL,
	    .set = cli_set_output,
	    .arg = "FILE", .help = "write to FILE instead of standard output" },
	{ .name = "bytes", .kind = KIND_FLAG, FIELD(exact_bytes),
	    .help = "text: exact byte counts instead of KiB/MiB" },
	{ .name = "quiet", .short_name = 'q', .kind = KIND_FLAG, FIELD(quiet),
	    .help = "no notes on standard error" },
	{ .name = "statements", .kind = KIND_STRING, FIELD(statements_file),
	    .hint = "give a file name, e.g. --statements ranked.csv",
	    .arg = "FILE",
	    .help = "at the end, write the run's statements ranked by\n"
	    "memory growth to FILE, in --format" },
	{ .name = "timestamps", .kind = KIND_SPECIAL,
	    .set = cli_set_timestamps, .arg = "WHEN", .optional_arg = true,
	    .help = "ISO 8601 times on notes: on, off or auto\n"
	    "(default auto: on when stderr is not a terminal)" },
	{ .name = "live", .kind = KIND_FLAG, FIELD(live),
	    .help = "a full-screen view in the terminal, redrawn at\n"
	    "each sample (keys: q p + - s b e ?); with --list,\n"
	    "the threads by memory, Enter opens one" },

	HEADING("Profiles (with --format folded or pprof):"),
	{ .name = "profile-at", .kind = KIND_SPECIAL,
	    .set = cli_set_profile_at, .def = "last", .needs = NEEDS_PROFILE,
	    .arg = "WHEN",
	    .help = "the sample a profile shows: last, peak (the\n"
	    "largest total), or each, a file per sample named\n"
	    "by --output with %N, the sample number\n"
	    "(default last)" },
	{ .name = "profile-root", .kind = KIND_SPECIAL,
	    .set = cli_set_profile_root, .def = "none",
	    .needs = NEEDS_PROFILE, .arg = "FRAME",
	    .help = "a frame above the events: thread, statement\n"
	    "or none (default none)" },

	HEADING("The gap:"),
	{ .name = "explain", .kind = KIND_FLAG, FIELD(explain),
	    .implies = TARGET_GLOBAL,
	    .help = "the server's resident memory once, in layers:\n"
	    "what performance_schema counts by family, what\n"
	    "it does not, the allocator, the connections'\n"
	    "estimate and measured peaks, and advice\n"
	    "(--format text or json); with --count or\n"
	    "--duration, at the end of a --global run" },

	{ .name = "layers-every", .kind = KIND_NUMBER, FIELD(layers_every_s),
	    .def = "60", .min = 0, .max = 86400,
	    .hint = "give seconds, 0 for never, e.g. --layers-every 60",
	    .arg = "SECONDS",
	    .help = "with --global under --record, --listen or\n"
	    "--live, the gap in layers (its walk of the\n"
	    "server's smaps) every SECONDS; 0: never\n"
	    "(default 60)" },

	HEADING("The server's heap profile (jemalloc):"),
	{ .name = "heap", .kind = KIND_FLAG, FIELD(heap),
	    .implies = TARGET_GLOBAL,
	    .help = "the newest jemalloc heap profile of the server's\n"
	    "process, its frames named: the largest stacks\n"
	    "and functions (--format text, folded or pprof)" },
	{ .name = "heap-dir", .kind = KIND_STRING, FIELD(heap_dir),
	    .needs = NEEDS_HEAP,
	    .hint = "give the folder of the dumps, or their prefix, e.g. "
	    "--heap-dir /var/lib/mysql-heap/jeprof",
	    .arg = "DIR",
	    .help = "the dumps are in DIR, or named DIR.PID.*.heap\n"
	    "(default: MALLOC_CONF's prof_prefix)" },
	{ .name = "heap-base", .kind = KIND_STRING, FIELD(heap_base),
	    .needs = NEEDS_HEAP,
	    .hint = "give a dump of the same process, or first, e.g. "
	    "--heap-base first",
	    .arg = "FILE",
	    .help = "the growth since dump FILE, or since the first\n"
	    "dump of the process (first), as jeprof's base" },
	{ .name = "heap-file", .kind = KIND_STRING, FIELD(heap_file),
	    .implies = TARGET_GLOBAL,
	    .hint = "give a dump, e.g. --heap-file jeprof.1234.7.i7.heap",
	    .arg = "FILE",
	    .help = "the same of dump FILE, no server: its frames\n"
	    "named from this machine's files" },

	HEADING("Black box:"),
	{ .name = "record", .kind = KIND_STRING, FIELD(record_dir),
	    .implies = TARGET_GLOBAL,
	    .hint = "give a folder, e.g. --record /var/lib/mysqlmemprof",
	    .arg = "DIR",
	    .help = "record the whole server and every connection\n"
	    "into DIR until stopped, with an incident for\n"
	    "each restart, OOM kill or limit passed\n"
	    "(target default --global)" },
	{ .name = "record-size", .kind = KIND_BYTES, FIELD(record_size),
	    .needs = NEEDS_RECORD, .def = "256M", .min = 1048576,
	    .max = INT64_MAX,
	    .hint = "give bytes, with K, M or G, at least 1M, e.g. "
	    "--record-size 256M",
	    .arg = "SIZE", .help = "what DIR's records may hold (default 256M)" },
	{ .name = "record-age", .kind = KIND_NUMBER, FIELD(record_age_h),
	    .needs = NEEDS_RECORD, .def = "24", .min = 1, .max = 87600,
	    .hint = "give hours, e.g. --record-age 24",
	    .arg = "HOURS", .help = "hours of records kept (default 24)" },
	{ .name = "incident-minutes", .kind = KIND_NUMBER,
	    FIELD(incident_minutes), .needs = NEEDS_RECORD, .def = "10",
	    .min = 1, .max = 1440,
	    .hint = "give minutes, e.g. --incident-minutes 10",
	    .arg = "N", .help = "minutes of records an incident shows\n"
	    "(default 10)" },
	{ .name = "incident-share", .kind = KIND_NUMBER,
	    FIELD(incident_share_pct), .needs = NEEDS_RECORD, .def = "90",
	    .min = 1, .max = 100,
	    .hint = "give a percentage of the cgroup's limit, e.g. "
	    "--incident-share 90",
	    .arg = "PERCENT",
	    .help = "an incident when the resident memory passes\n"
	    "PERCENT of the cgroup's limit (default 90)" },

	HEADING("Exporter:"),
	{ .name = "listen", .kind = KIND_SPECIAL, .set = cli_set_listen,
	    .implies = TARGET_GLOBAL, .arg = "[ADDR:]PORT",
	    .help = "serve the latest sample on ADDR:PORT/metrics\n"
	    "for Prometheus until stopped (ADDR default\n"
	    "127.0.0.1; target default --global)" },
	{ .name = "max-series", .kind = KIND_NUMBER, FIELD(max_series),
	    .needs = NEEDS_LISTEN, .def = "1000", .min = 1, .max = 1000000,
	    .hint = "give a number of series, e.g. --max-series 1000",
	    .arg = "N",
	    .help = "labelled series per scrape at most, events\n"
	    "first, then --top threads (default 1000)" },

	HEADING("Connection:"),
	{ .name = "host", .needs = NEEDS_SERVER, .short_name = 'h', .kind = KIND_STRING, FIELD(host),
	    .arg = "HOST", .help = "server host (default localhost)" },
	{ .name = "port", .needs = NEEDS_SERVER, .short_name = 'P', .kind = KIND_NUMBER, FIELD(port),
	    .min = 1, .max = 65535, .hint = "give a TCP port, e.g. --port 3306",
	    .arg = "PORT", .help = "TCP port" },
	{ .name = "socket", .needs = NEEDS_SERVER, .short_name = 'S', .kind = KIND_STRING,
	    FIELD(socket), .arg = "PATH", .help = "unix socket" },
	{ .name = "protocol", .needs = NEEDS_SERVER, .kind = KIND_SPECIAL,
	    .set = cli_set_protocol, .arg = "PROTO",
	    .help = "TCP (even to localhost) or SOCKET" },
	{ .name = "user", .needs = NEEDS_SERVER, .short_name = 'u', .kind = KIND_STRING, FIELD(user),
	    .arg = "USER", .help = "account to connect as" },
	{ .name = "password", .needs = NEEDS_SERVER, .short_name = 'p', .kind = KIND_SPECIAL,
	    .set = cli_set_password, .secret = true,
	    .arg = "PASSWORD", .optional_arg = true,
	    .help = "password; without a value, prompt for it" },
	{ .name = "connect-timeout", .needs = NEEDS_SERVER, .kind = KIND_NUMBER,
	    FIELD(connect_timeout_s), .def = "10", .min = 1, .max = 3600,
	    .hint = "give seconds, e.g. --connect-timeout 10",
	    .arg = "SECONDS", .help = "(default 10)" },
	/* Its text lines up with that of --connect-timeout, just above. */
	{ .name = "read-timeout", .needs = NEEDS_SERVER, .kind = KIND_NUMBER, FIELD(read_timeout_s),
	    .def = "30", .min = 1, .max = 3600,
	    .hint = "give seconds, e.g. --read-timeout 30",
	    .arg = "SECONDS", .help = "    (default 30)" },
	{ .name = "reconnect-timeout", .needs = NEEDS_SERVER, .kind = KIND_NUMBER,
	    FIELD(reconnect_timeout_s), .def = "30", .min = 0, .max = 86400,
	    .hint = "give seconds, or 0 not to reconnect, e.g. "
	    "--reconnect-timeout 30",
	    .arg = "SECONDS",
	    .help = "keep reconnecting this long (default 30;\n"
	    "0: do not reconnect)" },
	{ .name = "ssl-mode", .needs = NEEDS_SERVER, .kind = KIND_SPECIAL, .set = cli_set_ssl_mode,
	    .arg = "MODE",
	    .help = "DISABLED, PREFERRED, REQUIRED, VERIFY_CA or\n"
	    "VERIFY_IDENTITY (default PREFERRED: TLS over\n"
	    "TCP when the server offers it)" },
	{ .name = "ssl-ca", .needs = NEEDS_SERVER, .kind = KIND_STRING, FIELD(ssl_ca),
	    .arg = "FILE",
	    .help = "CA certificate to check the server's against" },
	{ .name = "ssl-cert", .needs = NEEDS_SERVER, .kind = KIND_STRING, FIELD(ssl_cert),
	    .arg = "FILE", .help = "client certificate" },
	{ .name = "ssl-key", .needs = NEEDS_SERVER, .kind = KIND_STRING, FIELD(ssl_key),
	    .arg = "FILE", .help = "client certificate's key" },
	{ .name = "ssl-crl", .needs = NEEDS_SERVER, .kind = KIND_STRING,
	    FIELD(ssl_crl), .hint = "give a file of revoked certificates (PEM)",
	    .arg = "FILE",
	    .help = "certificates revoked (PEM): the server's must\n"
	    "not be one" },
	{ .name = "ssl-crlpath", .needs = NEEDS_SERVER, .kind = KIND_STRING,
	    FIELD(ssl_crlpath),
	    .hint = "give a folder of revocation lists, named by hash",
	    .arg = "DIR", .help = "a folder of such lists" },
	{ .name = "tls-version", .needs = NEEDS_SERVER, .kind = KIND_SPECIAL,
	    .set = cli_set_tls_version, .arg = "LIST",
	    .help = "TLS versions to allow: TLSv1.2, TLSv1.3 or\n"
	    "TLSv1.2,TLSv1.3" },
	{ .name = "get-server-public-key", .needs = NEEDS_SERVER,
	    .kind = KIND_FLAG, FIELD(get_server_public_key),
	    .help = "over plain TCP, ask the server for the RSA key\n"
	    "that caching_sha2_password sends the password\n"
	    "with (it trusts the network)" },
	{ .name = "server-public-key-path", .needs = NEEDS_SERVER,
	    .kind = KIND_STRING, FIELD(server_public_key_path),
	    .hint = "give the server's public key, a PEM file",
	    .arg = "FILE",
	    .help = "that key, from a PEM file, instead" },
	{ .name = "enable-cleartext-plugin", .needs = NEEDS_SERVER,
	    .kind = KIND_FLAG, FIELD(enable_cleartext_plugin),
	    .help = "send the password as it is when the account's\n"
	    "plugin asks (PAM), over the socket or TLS\n"
	    "VERIFY_CA or VERIFY_IDENTITY only" },
	{ .name = "login-path", .kind = KIND_FILES, FILES(login_path),
	    .command_line_only = true, .arg = "NAME",
	    .help = "read [NAME] of ~/.mylogin.cnf too, after\n"
	    "its [client] (see mysql_config_editor)" },
	{ .name = "defaults-file", .kind = KIND_FILES, FILES(defaults_file),
	    .command_line_only = true,
	    .arg = "FILE",
	    .help = "read only this option file (and ~/.mylogin.cnf)" },
	{ .name = "defaults-extra-file", .kind = KIND_FILES, FILES(extra_file),
	    .command_line_only = true,
	    .arg = "FILE", .help = "read this option file too" },
	{ .name = "no-defaults", .kind = KIND_FILES, FILES(no_defaults),
	    .command_line_only = true,
	    .help = "read no option file but ~/.mylogin.cnf" },

	HEADING(NULL),
	/* -? is what mysql(1) takes for help; getopt_long() returns '?'. */
	{ .name = "help", .short_name = '?', .kind = KIND_EXIT,
	    .status = CLI_HELP, .command_line_only = true,
	    .help = "print this help and exit" },
	{ .name = "version", .short_name = 'V', .kind = KIND_EXIT,
	    .status = CLI_VERSION, .command_line_only = true,
	    .help = "print the version and exit" },
};

const size_t cli_n_rows = sizeof(cli_rows) / sizeof(cli_rows[0]);
_Static_assert(sizeof(cli_rows) / sizeof(cli_rows[0]) <= CLI_MAX_ROWS,
    "CLI_MAX_ROWS is too small for the option table");

const char cli_usage_tail[] =
"\n"
"Option files: groups [client] and [mysqlmemprof], then from ~/.mylogin.cnf\n"
"those and --login-path's. Exit status: 0 done, 1 runtime error, 2 usage\n"
"error, 3 nothing matched within --wait-timeout, 4 a reconnect found a TLS\n"
"certificate other than the first connection's, or none, 5 --heap found\n"
"nothing to read (the server not profiled, or no dump yet).\n"
"See mysqlmemprof(1).\n";
