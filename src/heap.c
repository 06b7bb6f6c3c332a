/*
 * --heap: the dumps picked (heap_pick.c), read whole and parsed
 * (heapdump.h), the growth since the base worked out, the frames named
 * from the files the dump's process mapped (symbols.h), and the profile
 * written whole to the output: a dump cut short or unreadable is one line
 * and no output, never part of a profile.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "exitcode.h"
#include "heap.h"
#include "heap_out.h"
#include "heap_pick.h"
#include "heap_pprof.h"
#include "heap_profile.h"
#include "heap_summary.h"
#include "obuf.h"
#include "symbols.h"

/* The largest dump read: a server's are megabytes, tens at most. */
#define HEAP_DUMP_MAX ((size_t)1 << 30)

/*
 * The file at path appended to b, read to its end (a file of /proc has
 * no size); its mtime when mtime_ns is not NULL. 0, or -1 with errno.
 */
static int
read_into(const char *path, struct obuf *b, int64_t *mtime_ns)
{
	struct stat st;
	ssize_t r = 1;
	int fd;

	if ((fd = open(path, O_RDONLY | O_CLOEXEC)) == -1)
		return -1;
	if (mtime_ns != NULL && fstat(fd, &st) == 0)
		*mtime_ns = (int64_t)st.st_mtim.tv_sec * 1000000000 +
		    st.st_mtim.tv_nsec;
	while (r != 0) {
		if (b->len > HEAP_DUMP_MAX) {
			errno = EFBIG;
			break;
		}
		if (!obuf_grow(b, 65536))
			break;
		r = read(fd, b->p + b->len, b->cap - b->len);
		if (r < 0 && errno != EINTR)
			break;
		b->len += r > 0 ? (size_t)r : 0;
	}
	close(fd);
	return r == 0 ? 0 : -1;
}

/*
 * jemalloc copies the maps from /proc, which a chroot may not have: then
 * its dumps end without them, and the process's maps now stand in.
 */
#define MAPPED_TAG "MAPPED_LIBRARIES:"

static int
add_maps_now(struct obuf *b, const char *maps_now)
{
	static const char tag[] = "\n" MAPPED_TAG "\n";

	/* A last line cut short stays so, for the parser to say. */
	if (maps_now[0] == '\0' || b->len == 0 || b->p[b->len - 1] != '\n' ||
	    memmem(b->p, b->len, tag, sizeof(tag) - 1) != NULL)
		return 0;
	obuf_puts(b, tag);
	return read_into(maps_now, b, NULL);
}

/* What a dump's path failed at, for the line that says so. */
enum dump_fault {
	DUMP_OK, DUMP_UNREADABLE, DUMP_CUT_SHORT, DUMP_NO_MAPS, DUMP_NOT_A_DUMP
};

/* One dump read and parsed into *d, or the fault with why in err. */
static enum dump_fault
read_dump(const struct heap_pick *pick, const char *path,
    struct heap_dump *d, int64_t *mtime_ns, char *err, size_t errlen)
{
	struct obuf b = { 0 };
	enum dump_fault f = DUMP_OK;

	/* With no maps to end it, only this tells a dump unfinished. */
	if (pick->maps_now[0] != '\0' && heap_pick_being_written(pick, path)) {
		snprintf(err, errlen, "cut short: the server still holds it "
		    "open");
		return DUMP_CUT_SHORT;
	}
	if (read_into(path, &b, mtime_ns) != 0 ||
	    add_maps_now(&b, pick->maps_now) != 0) {
		snprintf(err, errlen, "cannot read it: %s", strerror(errno));
		f = DUMP_UNREADABLE;
	} else if (heap_dump_parse(b.p != NULL ? b.p : "", b.len, d, err,
	    errlen) != 0)
		/*
		 * A server's dump had its maps, or they stood in: only a file
		 * given alone may be a chroot's without them.
		 */
		f = strstr(err, "cut short") == NULL ? DUMP_NOT_A_DUMP :
		    strstr(err, MAPPED_TAG) != NULL && pick->fds[0] == '\0' ?
		    DUMP_NO_MAPS : DUMP_CUT_SHORT;
	obuf_free(&b);
	return f;
}

/* The fix for each fault, after the dump's path and what is wrong. */
static const char *const dump_fix[] = {
	[DUMP_UNREADABLE] = "run as the server's user or root, or copy the "
	    "dump where you may read it",
	[DUMP_CUT_SHORT] = "jemalloc may still be writing it: run again in "
	    "a moment, or give a whole one",
	[DUMP_NO_MAPS] = "jemalloc may still be writing it, or wrote it "
	    "where the server's root had no /proc (a chroot), which leaves "
	    "out the maps: run again in a moment, or run --heap against the "
	    "server itself, which reads its maps",
	[DUMP_NOT_A_DUMP] = "give a dump jemalloc wrote "
	    "(PREFIX.PID.SEQ.KIND.heap, of a server run with "
	    "MALLOC_CONF=prof:true)",
};

/* One dump read and parsed; 0, or -1 having said why and what to do. */
static int
load_dump(const struct heap_pick *pick, const char *path,
    const char *option, struct heap_dump *d, int64_t *mtime_ns)
{
	enum dump_fault f;
	char err[512];

	if ((f = read_dump(pick, path, d, mtime_ns, err,
	    sizeof(err))) == DUMP_OK)
		return 0;
	diag_say("%s%s: %s; %s", option, path, err, dump_fix[f]);
	return -1;
}

/*
 * The server's newest dump; when jemalloc is still writing it (it reads
 * as cut short), the one before, saying so, rather than no profile: then
 * pick->dump names the one read.
 */
static int
load_newest(const struct capture_env *env, struct heap_pick *pick,
    struct heap_dump *d, int64_t *time_ns)
{
	enum dump_fault f;
	char err[512];

	f = read_dump(pick, pick->dump, d, time_ns, err, sizeof(err));
	if (f == DUMP_OK)
		return 0;
	if (f != DUMP_CUT_SHORT || pick->prev[0] == '\0') {
		diag_say("%s: %s; %s", pick->dump, err, dump_fix[f]);
		return -1;
	}
	diag_note(env->diag, "%s: %s (jemalloc may still be writing it): "
	    "reading the one before, %s", pick->dump, err, pick->prev);
	memcpy(pick->dump, pick->prev, sizeof(pick->dump));
	return load_dump(pick, pick->dump, "", d, time_ns);
}

/* The dump, or its growth since the base, into *d. */
static int
load_profile(const struct capture_env *env, struct heap_pick *pick,
    struct heap_dump *d, int64_t *time_ns)
{
	struct heap_dump newer, base;
	int64_t base_ns;
	int rc;

	if (load_newest(env, pick, &newer, time_ns) != 0)
		return -1;
	if (pick->base[0] == '\0') {
		*d = newer;
		return 0;
	}
	if (load_dump(pick, pick->base, "--heap-base ", &base, &base_ns) !=
	    0) {
		heap_dump_free(&newer);
		return -1;
	}
	if ((rc = heap_dump_diff(&newer, &base, d)) != 0)
		diag_say("out of memory working out the growth");
	heap_dump_free(&newer);
	heap_dump_free(&base);
	return rc;
}

static void
name_pc(void *ctx, uint64_t pc, struct symbol *out)
{
	symbols_lookup(ctx, pc, out);
}

/* The profile in --format into b, or, for pprof, into *bin. */
static int
write_format(const struct options *o, const struct heap_profile *p,
    const struct heap_pick *pick, int64_t time_ns, struct obuf *b,
    unsigned char **bin, size_t *binlen)
{
	const struct heap_meta m = {
		.pid = pick->pid, .dump = pick->dump,
		.base = pick->base[0] != '\0' ? pick->base : NULL,
		.top = o->top, .exact = o->exact_bytes,
	};

	if (strcmp(o->format->name, "pprof") == 0)
		return heap_pprof_encode(p, time_ns, bin, binlen);
	if (strcmp(o->format->name, "folded") == 0)
		heap_out_folded(b, p);
	else
		heap_out_text(b, p, &m);
	return obuf_status(b);
}

/* The bytes written whole to the output. */
static int
put_output(struct outfile *f, const void *p, size_t n)
{
	if (outfile_open(f) != 0)
		return EXIT_RUNTIME;
	if (fwrite(p, 1, n, f->out.fp) != n || output_status(f->out.fp) != 0)
		return outfile_failed(f);
	return EXIT_DONE;
}

/*
 * The program's own file: the first file of the dump's maps, which the
 * kernel lists by address, the executable's (0x55.. for a PIE, 0x400000
 * otherwise) below every library's (0x7f..). Not the outermost frame of a
 * stack: a connection's thread starts in libc (start_thread, clone3).
 * NULL when not known.
 */
static const char *
program_file(const struct heap_profile *p)
{
	for (size_t m = 0; m < p->nmaps; m++)
		if (p->maps[m].path != NULL && p->maps[m].path[0] == '/')
			return p->maps[m].path;
	return NULL;
}

/* How to get the names a file's symbols lack. */
static const char debug_hint[] = "install its debug symbols (the -dbgsym "
    "package of its package from Debian's debug archive, "
    "mariadb-server-core-dbgsym for MariaDB; or its debug file under "
    "/usr/lib/debug/.build-id/)";

/*
 * The file in which the most bytes were allocated by code no symbol names
 * (a static function of a binary with no .symtab), into *bytes; NULL
 * when none (or out of memory: the note is only a hint).
 */
static const char *
most_unnamed(struct symbols *sym, const struct heap_profile *p,
    int64_t *bytes)
{
	int64_t *per_map = calloc(p->nmaps + 1, sizeof(*per_map));
	const char *top = NULL;

	*bytes = 0;
	if (per_map == NULL)
		return NULL;
	for (size_t i = 0; i < p->nstacks; i++) {
		const struct heap_location *l;
		struct symbol s;

		if (p->stacks[i].depth == 0)
			continue;
		l = &p->locs[p->stacks[i].locs[0]];
		symbols_lookup(sym, l->pc, &s);
		if (!s.named && l->map < p->nmaps)
			per_map[l->map] += p->stacks[i].bytes;
	}
	for (size_t m = 0; m < p->nmaps; m++)
		if (per_map[m] > *bytes && p->maps[m].path != NULL) {
			*bytes = per_map[m];
			top = p->maps[m].path;
		}
	free(per_map);
	return top;
}

/* Which files could not be named, and how to name them. */
static void
note_unnamed(const struct capture_env *env, struct symbols *sym,
    const struct heap_profile *p)
{
	const char *prog = program_file(p), *f;
	int n = symbols_unreadable(sym);
	int64_t bytes;

	for (int i = 0; prog != NULL && (f = symbols_unreadable_file(sym,
	    i)) != NULL; i++)
		if (strcmp(f, prog) == 0) {
			diag_note(env->diag, "the server's binary %s has no "
			    "symbols to read%s: its frames keep file and "
			    "offset; %s", prog, n > 1 ? ", nor do other "
			    "files it mapped" : "", debug_hint);
			return;
		}
	if (n > 0)
		diag_note(env->diag, "%s%s has no symbols to read: its frames "
		    "keep file and offset (install its debug file to name "
		    "them)", symbols_unreadable_file(sym, 0), n > 1 ?
		    " and other files the process mapped" : "");
	f = most_unnamed(sym, p, &bytes);
	if (f != NULL && p->total_bytes > 0 && bytes * 4 >= p->total_bytes)
		diag_note(env->diag, "%.0f%% of the bytes were allocated in "
		    "code of %s that its symbols do not name (static "
		    "functions, kept as file+offset); %s",
		    100.0 * (double)bytes / (double)p->total_bytes, f,
		    debug_hint);
}

/*
 * The dump's frames named into *p, with the reader *sym that named them
 * (both the caller's to free). 0, or -1 out of memory, nothing to free.
 */
static int
name_dump(const struct heap_pick *pick, const struct heap_dump *d,
    struct symbols **sym, struct heap_profile *p)
{
	/* Maps read from here name files as this machine sees them. */
	*sym = symbols_open(d->maps, d->nmaps,
	    pick->root[0] != '\0' && pick->maps_now[0] == '\0' ?
	    pick->root : NULL);
	if (*sym == NULL || heap_profile_build(d, name_pc, *sym, p) != 0) {
		symbols_free(*sym);
		*sym = NULL;
		return -1;
	}
	return 0;
}

/* The profile named and written; the exit status. */
static int
name_and_write(const struct capture_env *env, const struct heap_pick *pick,
    const struct heap_dump *d, int64_t time_ns)
{
	struct symbols *sym;
	struct heap_profile p;
	struct obuf b = { 0 };
	unsigned char *bin = NULL;
	size_t binlen = 0;
	int rc = EXIT_RUNTIME;

	if (name_dump(pick, d, &sym, &p) != 0) {
		diag_say("out of memory naming the dump's frames");
		return EXIT_RUNTIME;
	}
	note_unnamed(env, sym, &p);
	if (write_format(env->opts, &p, pick, time_ns, &b, &bin,
	    &binlen) != 0)
		diag_say("out of memory writing the profile");
	else if (bin != NULL)
		rc = put_output(env->out, bin, binlen);
	else
		rc = put_output(env->out, b.p, b.len);
	free(bin);
	obuf_free(&b);
	heap_profile_free(&p);
	symbols_free(sym);
	return rc;
}

int
heap_run(const struct capture_env *env)
{
	const struct options *o = env->opts;
	struct heap_pick pick;
	struct heap_dump d;
	int64_t time_ns;
	char err[2048];
	int rc;

	if (o->heap_file != NULL)
		rc = heap_pick_file(o, &pick);
	else
		rc = heap_pick_server(env->session, o, env->proc, &pick, err,
		    sizeof(err));
	if (rc != 0) {
		diag_say("%s", err);
		return rc;
	}
	diag_note(env->diag, "reading %s%s%s", pick.dump, pick.base[0] ?
	    ", the growth since " : "", pick.base);
	if (pick.maps_now[0] != '\0')
		diag_note(env->diag, "the server's root has no /proc, so its "
		    "jemalloc wrote no maps into the dumps: %s stands in, "
		    "the maps of now, not of the dump's time (a library "
		    "loaded or unloaded since is misnamed), and a dump the "
		    "server no longer holds open is taken as whole",
		    pick.maps_now);
	if (pick.folder_note[0] != '\0')
		diag_note(env->diag, "%s", pick.folder_note);
	if (load_profile(env, &pick, &d, &time_ns) != 0)
		return EXIT_RUNTIME;
	rc = name_and_write(env, &pick, &d, time_ns);
	heap_dump_free(&d);
	return rc;
}

/* The dump named and summed into *out; 0, or -1 having said why. */
static int
summarise(const struct heap_pick *pick, const struct heap_dump *d,
    struct heap_summary *out)
{
	struct symbols *sym;
	struct heap_profile p;

	if (name_dump(pick, d, &sym, &p) != 0)
		return -1;
	heap_summary_make(&p, out);
	heap_profile_free(&p);
	symbols_free(sym);
	return 0;
}

int
heap_read_summary(const struct capture_env *env, int64_t now_ms,
    struct heap_summary *out)
{
	struct options o = *env->opts;
	struct heap_pick pick;
	struct heap_dump d;
	int64_t time_ns = 0;
	char why[sizeof(out->why)];
	int rc;

	/* The newest dump alone: --explain takes no --heap-dir or base. */
	o.heap_dir = o.heap_base = NULL;
	memset(out, 0, sizeof(*out));
	rc = heap_pick_server(env->session, &o, env->proc, &pick, why,
	    sizeof(why));
	if (rc == 0 && load_profile(env, &pick, &d, &time_ns) != 0) {
		rc = EXIT_RUNTIME;
		snprintf(why, sizeof(why), "%.400s could not be read (said above)",
		    pick.dump);
	} else if (rc == 0) {
		if (summarise(&pick, &d, out) != 0) {
			rc = EXIT_RUNTIME;
			snprintf(why, sizeof(why), "out of memory naming %.400s",
			    pick.dump);
		}
		heap_dump_free(&d);
	}
	if (rc != 0) {
		memset(out, 0, sizeof(*out));
		out->state = rc == EXIT_NO_PROFILE ? HEAP_NOT_PROFILED :
		    HEAP_FAILED;
		snprintf(out->why, sizeof(out->why), "%s", why);
		return rc;
	}
	snprintf(out->dump, sizeof(out->dump), "%s", pick.dump);
	out->age_s = now_ms / 1000 - time_ns / 1000000000;
	return 0;
}
