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

/* The file at path, whole, into a malloc'd buffer; its mtime. 0 or -1. */
static int
read_whole(const char *path, char **text, size_t *len, int64_t *mtime_ns)
{
	struct stat st;
	size_t n = 0;
	ssize_t r;
	char *buf;
	int fd;

	if ((fd = open(path, O_RDONLY | O_CLOEXEC)) == -1)
		return -1;
	if (fstat(fd, &st) != 0 || (st.st_size > (off_t)HEAP_DUMP_MAX &&
	    (errno = EFBIG)) || (buf = malloc((size_t)st.st_size + 1)) ==
	    NULL) {
		close(fd);
		return -1;
	}
	while (n < (size_t)st.st_size &&
	    (r = read(fd, buf + n, (size_t)st.st_size - n)) != 0) {
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0) {
			free(buf);
			close(fd);
			return -1;
		}
		n += (size_t)r;
	}
	close(fd);
	buf[n] = '\0';
	*text = buf;
	*len = n;
	*mtime_ns = (int64_t)st.st_mtim.tv_sec * 1000000000 +
	    st.st_mtim.tv_nsec;
	return 0;
}

/* One dump read and parsed; 0, or -1 having said why. */
static int
load_dump(const char *path, const char *option, struct heap_dump *d,
    int64_t *mtime_ns)
{
	char *text, err[512];
	size_t len;

	if (read_whole(path, &text, &len, mtime_ns) != 0) {
		diag_say("%s%s: cannot read it: %s", option, path,
		    strerror(errno));
		return -1;
	}
	if (heap_dump_parse(text, len, d, err, sizeof(err)) != 0) {
		diag_say("%s%s: %s; give a whole jemalloc heap dump (one "
		    "still being written reads as cut short: read it again)",
		    option, path, err);
		free(text);
		return -1;
	}
	free(text);
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

	if (load_dump(pick->dump, "", &newer, time_ns) != 0)
		return -1;
	if (pick->base[0] == '\0') {
		*d = newer;
		return 0;
	}
	if (load_dump(pick->base, "--heap-base ", &base, &base_ns) != 0) {
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

	sym = symbols_open(d->maps, d->nmaps,
	    pick->root[0] != '\0' ? pick->root : NULL);
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
	if (load_profile(&pick, &d, &time_ns) != 0)
		return EXIT_RUNTIME;
	rc = name_and_write(env, &pick, &d, time_ns);
	heap_dump_free(&d);
	return rc;
}
