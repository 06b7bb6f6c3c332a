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
static int
add_maps_now(struct obuf *b, const char *maps_now)
{
	static const char tag[] = "\nMAPPED_LIBRARIES:\n";

	if (maps_now[0] == '\0' ||
	    memmem(b->p, b->len, tag, sizeof(tag) - 1) != NULL)
		return 0;
	obuf_puts(b, tag);
	return read_into(maps_now, b, NULL);
}

/* One dump read and parsed; 0, or -1 having said why. */
static int
load_dump(const char *path, const char *option, const char *maps_now,
    struct heap_dump *d, int64_t *mtime_ns)
{
	struct obuf b = { 0 };
	char err[512];

	if (read_into(path, &b, mtime_ns) != 0 ||
	    add_maps_now(&b, maps_now) != 0) {
		diag_say("%s%s: cannot read it: %s", option, path,
		    strerror(errno));
		obuf_free(&b);
		return -1;
	}
	if (heap_dump_parse(b.p != NULL ? b.p : "", b.len, d, err,
	    sizeof(err)) != 0) {
		diag_say("%s%s: %s; give a whole jemalloc heap dump (one "
		    "still being written reads as cut short: read it again)",
		    option, path, err);
		obuf_free(&b);
		return -1;
	}
	obuf_free(&b);
	return 0;
}

/* The dump, or its growth since the base, into *d. */
static int
load_profile(const struct heap_pick *pick, struct heap_dump *d,
    int64_t *time_ns)
{
	struct heap_dump newer, base;
	int64_t base_ns;
	int rc;

	if (load_dump(pick->dump, "", pick->maps_now, &newer, time_ns) != 0)
		return -1;
	if (pick->base[0] == '\0') {
		*d = newer;
		return 0;
	}
	if (load_dump(pick->base, "--heap-base ", pick->maps_now, &base,
	    &base_ns) != 0) {
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

	/* Maps read from here name files as this machine sees them. */
	sym = symbols_open(d->maps, d->nmaps,
	    pick->root[0] != '\0' && pick->maps_now[0] == '\0' ?
	    pick->root : NULL);
	if (sym == NULL || heap_profile_build(d, name_pc, sym, &p) != 0) {
		diag_say("out of memory naming the dump's frames");
		symbols_free(sym);
		return EXIT_RUNTIME;
	}
	if (symbols_unreadable(sym) > 0)
		diag_note(env->diag, "%d of the files the process mapped have "
		    "no symbols to read: their frames keep file and offset "
		    "(install their debug files to name them)",
		    symbols_unreadable(sym));
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
		    "jemalloc wrote no maps into the dumps: %s read now "
		    "stands in", pick.maps_now);
	if (pick.folder_note[0] != '\0')
		diag_note(env->diag, "%s", pick.folder_note);
	if (load_profile(&pick, &d, &time_ns) != 0)
		return EXIT_RUNTIME;
	rc = name_and_write(env, &pick, &d, time_ns);
	heap_dump_free(&d);
	return rc;
}
