/*
 * The modes' table: which options choose each, and what each takes,
 * refuses and writes. The command line's checks and app read it; nothing
 * else asks which mode runs.
 */
#include <string.h>

#include "modes.h"

/* The tests that choose a mode, one a row. */
static bool
is_read(const struct options *o)
{
	return o->target == TARGET_READ;
}

static bool
is_listen(const struct options *o)
{
	return o->listen_port != 0;
}

static bool
is_record(const struct options *o)
{
	return o->record_dir != NULL;
}

static bool
is_explain(const struct options *o)
{
	return o->explain;
}

static bool
is_heap(const struct options *o)
{
	return o->heap;
}

static bool
is_heap_file(const struct options *o)
{
	return o->heap_file != NULL;
}

static bool
is_top(const struct options *o)
{
	return o->live && o->target == TARGET_LIST;
}

static bool
is_list(const struct options *o)
{
	return o->target == TARGET_LIST;
}

static bool
is_hunt(const struct options *o)
{
	return o->target == TARGET_WAIT;
}

static bool
is_capture(const struct options *o)
{
	(void)o;
	return true; /* a thread, a connection or a grain */
}

#define SERVER (MODE_SESSION | MODE_CONNECT)
/* The beat of a capture; the black box's is slower. */
#define FREQUENCY_MS 500
#define ONE_TARGET ((1u << TARGET_GLOBAL) | (1u << TARGET_USER) | \
    (1u << TARGET_HOST) | (1u << TARGET_ACCOUNT) | (1u << TARGET_THREAD) | \
    (1u << TARGET_CONNECTION))

static const char *const text_json[] = { "text", "json", NULL };
static const char *const heap_formats[] = { "text", "folded", "pprof", NULL };
/* A list of threads: no picture of a run, no profile. */
static const char *const list_formats[] = { "text", "csv", "json", NULL };

/*
 * The live view and the exporter's HTTP server are observers of
 * captures (struct capture_observer), not rows that choose again.
 */
const struct mode modes[N_MODES] = {
	[MODE_ID_READ] = { "read", MODE_ID_READ, is_read,
	    MODE_RING | MODE_DRAWN, .option = true,
	    .no_server = "replays a file", .frequency_ms = FREQUENCY_MS },
	[MODE_ID_LISTEN] = { "listen", MODE_ID_LISTEN, is_listen,
	    MODE_RING | MODE_SESSION | MODE_OUTPUT | MODE_NAMED_OUTPUT,
	    .option = true, .takes = ONE_TARGET,
	    .takes_why = "serves one target for as long as it runs",
	    .frequency_ms = FREQUENCY_MS },
	/* Its captures write nowhere: the observer writes the folder. */
	[MODE_ID_RECORD] = { "record", MODE_ID_RECORD, is_record,
	    MODE_RING | MODE_SESSION | MODE_OUTPUT | MODE_NAMED_OUTPUT,
	    .option = true, .alone = "records the whole server and every "
	    "connection into its folder",
	    .elsewhere = "its samples are in the folder; --read DIR writes "
	    "them anywhere",
	    .frequency_ms = 1000 },
	[MODE_ID_EXPLAIN] = { "explain", MODE_ID_EXPLAIN, is_explain,
	    MODE_RING | SERVER | MODE_OUTPUT | MODE_ANY_INSTRUMENTS,
	    .option = true, .alone = "reads the whole server once",
	    .formats = text_json, .frequency_ms = FREQUENCY_MS },
	[MODE_ID_HEAP_FILE] = { "heap-file", MODE_ID_HEAP_FILE, is_heap_file,
	    MODE_OUTPUT, .option = true,
	    .alone = "reads a heap profile from a dump once",
	    .no_server = "reads a dump", .formats = heap_formats,
	    .frequency_ms = FREQUENCY_MS },
	/* The server's pid is all it asks: any instruments will do. */
	[MODE_ID_HEAP] = { "heap", MODE_ID_HEAP, is_heap,
	    SERVER | MODE_OUTPUT | MODE_ANY_INSTRUMENTS, .option = true,
	    .alone = "reads the server's heap profile once",
	    .formats = heap_formats, .frequency_ms = FREQUENCY_MS },
	/* --live --list; the list's row speaks for both. */
	[MODE_ID_TOP] = { "top", MODE_ID_TOP, is_top,
	    MODE_TERMINAL | SERVER | MODE_OUTPUT | MODE_NAMED_OUTPUT |
	    MODE_THREADS, .formats = list_formats,
	    .frequency_ms = FREQUENCY_MS },
	[MODE_ID_LIST] = { "list", MODE_ID_LIST, is_list,
	    SERVER | MODE_OUTPUT | MODE_THREADS, .option = true,
	    .formats = list_formats, .frequency_ms = FREQUENCY_MS },
	[MODE_ID_HUNT] = { "hunt", MODE_ID_HUNT, is_hunt,
	    MODE_RING | SERVER | MODE_OUTPUT | MODE_DRAWN | MODE_FILE_EACH,
	    .frequency_ms = FREQUENCY_MS },
	[MODE_ID_CAPTURE] = { "capture", MODE_ID_CAPTURE, is_capture,
	    MODE_RING | SERVER | MODE_OUTPUT | MODE_DRAWN,
	    .frequency_ms = FREQUENCY_MS },
};

const struct mode *
mode_of(const struct options *o)
{
	size_t i = 0;

	while (!modes[i].chosen(o))
		i++; /* the last row takes what is left */
	return &modes[i];
}

bool
mode_writes(const struct mode *m, const char *name)
{
	if (m->formats == NULL)
		return true;
	for (const char *const *f = m->formats; *f != NULL; f++)
		if (strcmp(*f, name) == 0)
			return true;
	return false;
}
