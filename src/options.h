/*
 * struct options: what the command line and option files ask of the run,
 * filled by cli_parse() (cli.h) and read by the modes. Each field is set
 * by one row of the option table (src/cli_options.c).
 */
#ifndef MYSQLMEMPROF_OPTIONS_H
#define MYSQLMEMPROF_OPTIONS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "conn_types.h"
#include "profile.h"

struct format; /* output.h */

enum target_kind {
	TARGET_NONE,
	TARGET_THREAD,     /* --thread: a performance_schema THREAD_ID */
	TARGET_CONNECTION, /* --connection: a PROCESSLIST id */
	TARGET_LIST,       /* --list */
	TARGET_WAIT,       /* --wait-for, --longer-than: a statement to come */
	TARGET_GLOBAL,     /* --global: the whole server */
	TARGET_USER,       /* --for-user: every session of an account name */
	TARGET_HOST,       /* --for-host: every session from a host */
	TARGET_ACCOUNT,    /* --for-account: every session of USER@HOST */
	TARGET_READ,       /* --read: a capture replayed, no server */
};

/* When notes on standard error carry a timestamp (--timestamps). */
enum stamp_when {
	STAMP_AUTO, /* when standard error is not a terminal: a log */
	STAMP_ON,
	STAMP_OFF,
};

struct options {
	/* Connection; strings owned by the options. */
	char *host;
	char *user;
	char *password;
	char *socket;
	unsigned port;
	bool password_prompt; /* -p without a value */
	unsigned connect_timeout_s;
	unsigned read_timeout_s;
	uint64_t reconnect_timeout_s; /* 0: do not reconnect */
	enum conn_protocol protocol; /* --protocol */
	enum conn_tls_mode ssl_mode;
	char *ssl_ca;
	char *ssl_cert;
	char *ssl_key;
	char *ssl_crl;
	char *ssl_crlpath;
	char *tls_version;    /* checked: "TLSv1.2", "TLSv1.3" or both */
	char *server_public_key_path;
	bool get_server_public_key;
	bool enable_cleartext_plugin;

	enum target_kind target;
	uint64_t target_id;

	/* TARGET_WAIT; strings owned by the options, NULL: any. */
	char *wait_pattern;      /* --wait-for: SQL LIKE on the statement text */
	uint64_t longer_than_s;  /* --longer-than */
	uint64_t bigger_than_bytes; /* --bigger-than; 0: any size */
	/*
	 * --bigger-than N%: N percent of the server's connection_memory_limit,
	 * which the hunt turns into bigger_than_bytes once connected; 0: none.
	 */
	unsigned bigger_than_pct;
	bool running_only;       /* --running-only: no idle holders */
	char *match_user;
	char *match_db;
	uint64_t poll_ms;        /* --poll */
	uint64_t wait_timeout_s; /* --wait-timeout; 0: wait for ever */
	bool repeat;

	/* TARGET_USER, TARGET_HOST, TARGET_ACCOUNT; owned by the options. */
	char *grain_user;
	char *grain_host;

	/* --events, --exclude: SQL LIKE patterns, each list owned. */
	char **include_events;
	size_t n_include_events;
	char **exclude_events;
	size_t n_exclude_events;

	uint64_t frequency_ms;
	uint64_t count;       /* 0: no limit */
	uint64_t duration_s;  /* 0: no limit */
	unsigned max_load_pct; /* --max-load; 0: no bound */
	/*
	 * A thread's rows beside its own count each tick (total.h): read again
	 * when the count moved by rows_moved_bytes, at most rows_every_s
	 * apart (0: each tick, and no own count).
	 */
	unsigned rows_every_s;
	uint64_t rows_moved_bytes;
	size_t window;
	size_t top;           /* 0: all */
	uint64_t trigger_bytes;  /* --trigger-bytes; 0: write every sample */
	uint64_t trigger_hold_s; /* --trigger-hold */

	const struct format *format;
	char *output;         /* NULL: standard output */
	char *read_path;      /* --read: a --format json capture; "-": stdin */
	bool exact_bytes;
	bool quiet;
	char *statements_file; /* --statements: the ranked statements; NULL: none */
	enum stamp_when timestamps; /* --timestamps: ISO 8601 times on notes */
	bool live;            /* --live: the full-screen view */
	/* --explain: the server's memory in layers, once (explain.h). */
	bool explain;
	bool password_on_command_line; /* for the warning mysql gives too */

	/* --format folded or pprof */
	enum profile_at profile_at;     /* --profile-at */
	enum profile_root profile_root; /* --profile-root */
	/* --listen: the exporter (exporter.h); port 0: not an exporter. */
	char *listen_addr;    /* owned; NULL: 127.0.0.1 */
	unsigned listen_port;
	uint64_t max_series;  /* --max-series: labelled series per scrape */
	/* --layers-every: the gap in layers beside --global's samples; 0: never. */
	unsigned layers_every_s;
	/* --record: the black box (record.h); NULL: not recording. */
	char *record_dir;
	uint64_t record_size;        /* --record-size: what DIR may hold, bytes */
	unsigned record_age_h;       /* --record-age: hours kept */
	unsigned incident_minutes;   /* --incident-minutes: an incident's past */
	unsigned incident_share_pct; /* --incident-share: of the cgroup's limit */
	/*
	 * --heap: the server's jemalloc heap profile (heap.h); --heap-file:
	 * one dump, no server. Strings owned; NULL: not given.
	 */
	bool heap;
	char *heap_dir;       /* --heap-dir: a folder, or a prefix of dumps */
	char *heap_base;      /* --heap-base: a dump, or "first" */
	char *heap_file;      /* --heap-file */
	/* --read DIR's window, UTC ms; has_*: given (utc.h). */
	bool has_since, has_until;
	int64_t since_ms, until_ms;
};

/*
 * What reading the options ends with: the answer of cli_parse(), and what
 * the rows of --help and --version end it with.
 */
enum cli_status {
	CLI_OK,
	CLI_HELP,    /* --help: print cli_usage() and exit 0 */
	CLI_VERSION, /* --version */
	CLI_USAGE,   /* bad command line or option file: exit 2 */
};

#endif
