/*
 * Parsing one jemalloc heap_v2 dump, and the growth between two. The text
 * is walked once, a line at a time; the stacks' and maps' arrays grow by
 * doubling, so tens of thousands of stacks of a hundred frames each parse
 * in time linear in the dump's size. Anything jemalloc's prof_dump does
 * not write is an error naming its line: a dump cut short must never pass
 * for a smaller profile. (Only a cut right after a whole line of the maps
 * cannot be told: the stacks are whole then, and a mapping is missing.)
 */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "heapdump.h"
#include "strhash.h"

#define HEADER "heap_v2/"
#define MAPPED "MAPPED_LIBRARIES:"

struct line {
	const char *s;
	size_t n;               /* without its '\n' */
	size_t no;              /* 1-based */
};

struct parser {
	const char *p, *end;
	size_t no;              /* lines read */
	struct heap_dump *d;
	size_t stacks_cap, maps_cap;
	uint64_t *frames;       /* the stack being read */
	size_t frames_cap;
	char *err;
	size_t errlen;
};

static int
fail(struct parser *ps, size_t no, const char *fmt, ...)
{
	char what[200];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(what, sizeof(what), fmt, ap);
	va_end(ap);
	if (no == 0)
		snprintf(ps->err, ps->errlen, "%s", what);
	else
		snprintf(ps->err, ps->errlen, "line %zu: %s", no, what);
	return -1;
}

/*
 * The next line into *l: 1, 0 at the end of the text, -1 (err set) for a
 * last line without its newline, which only a dump cut short has.
 */
static int
next_line(struct parser *ps, struct line *l)
{
	const char *nl;

	if (ps->p >= ps->end)
		return 0;
	l->no = ++ps->no;
	nl = memchr(ps->p, '\n', (size_t)(ps->end - ps->p));
	if (nl == NULL)
		return fail(ps, l->no, "cut short (no newline at the end)");
	l->s = ps->p;
	l->n = (size_t)(nl - ps->p);
	ps->p = nl + 1;
	return 1;
}

static void
skip_spaces(const char **s, const char *end)
{
	while (*s < end && (**s == ' ' || **s == '\t'))
		(*s)++;
}

/* A decimal number without sign; -1 on no digits or overflow. */
static int
parse_dec(const char **s, const char *end, uint64_t *v)
{
	const char *p = *s;

	*v = 0;
	for (; p < end && *p >= '0' && *p <= '9'; p++) {
		if (*v > (UINT64_MAX - (uint64_t)(*p - '0')) / 10)
			return -1;
		*v = *v * 10 + (uint64_t)(*p - '0');
	}
	if (p == *s)
		return -1;
	*s = p;
	return 0;
}

/* A hexadecimal number, "0x" optional (jemalloc's %#x writes 0 bare). */
static int
parse_hex(const char **s, const char *end, uint64_t *v)
{
	const char *p = *s, *digits;
	int d;

	if (end - p >= 2 && p[0] == '0' && (p[1] == 'x' || p[1] == 'X'))
		p += 2;
	*v = 0;
	for (digits = p; p < end; p++) {
		if (*p >= '0' && *p <= '9')
			d = *p - '0';
		else if (*p >= 'a' && *p <= 'f')
			d = *p - 'a' + 10;
		else if (*p >= 'A' && *p <= 'F')
			d = *p - 'A' + 10;
		else
			break;
		if (*v >> 60 != 0)
			return -1;
		*v = *v << 4 | (uint64_t)d;
	}
	if (p == digits)
		return -1;
	*s = p;
	return 0;
}

static int
expect(const char **s, const char *end, const char *lit)
{
	size_t n = strlen(lit);

	if ((size_t)(end - *s) < n || memcmp(*s, lit, n) != 0)
		return -1;
	*s += n;
	return 0;
}

/* "COUNT: BYTES" with the spaces jeprof's pattern allows. */
static int
parse_pair(const char **s, const char *end, uint64_t *count,
    uint64_t *bytes)
{
	const char *before;

	if (parse_dec(s, end, count) != 0 || expect(s, end, ":") != 0)
		return -1;
	before = *s;
	skip_spaces(s, end);
	if (*s == before)
		return -1;
	return parse_dec(s, end, bytes);
}

enum line_kind { L_TOTAL, L_THREAD, L_STACK, L_BLANK, L_MAPPED, L_OTHER };

static enum line_kind
kind_of(const struct line *l)
{
	const char *s = l->s, *end = l->s + l->n;

	skip_spaces(&s, end);
	if (s == end)
		return L_BLANK;
	if (*s == '@')
		return L_STACK;
	if (end - s >= 2 && s[0] == 't' && s[1] == '*')
		return L_TOTAL;
	if (end - s >= 2 && s[0] == 't' && s[1] >= '0' && s[1] <= '9')
		return L_THREAD;
	if (l->s[0] != ' ' && l->n == strlen(MAPPED) &&
	    memcmp(l->s, MAPPED, l->n) == 0)
		return L_MAPPED;
	return L_OTHER;
}

/*
 * "  t*: COUNT: BYTES [COUNT: BYTES]" or "  tN: ...": the live objects
 * and bytes (the bracketed pair, accumulated ones, is 0 unless prof_accum).
 */
static int
parse_counts(struct parser *ps, const struct line *l, uint64_t *count,
    uint64_t *bytes)
{
	const char *s = l->s, *end = l->s + l->n, *before;
	uint64_t tid, acount, abytes;

	skip_spaces(&s, end);
	if (expect(&s, end, "t*") != 0 && (expect(&s, end, "t") != 0 ||
	    parse_dec(&s, end, &tid) != 0))
		goto bad;
	if (expect(&s, end, ":") != 0)
		goto bad;
	before = s;
	skip_spaces(&s, end);
	if (s == before || parse_pair(&s, end, count, bytes) != 0)
		goto bad;
	before = s;
	skip_spaces(&s, end);
	if (s == before || expect(&s, end, "[") != 0)
		goto bad;
	skip_spaces(&s, end);
	if (parse_pair(&s, end, &acount, &abytes) != 0 ||
	    expect(&s, end, "]") != 0)
		goto bad;
	skip_spaces(&s, end);
	if (s != end)
		goto bad;
	if (*count > INT64_MAX || *bytes > INT64_MAX)
		return fail(ps, l->no, "count out of range");
	if (*bytes < *count || (*count == 0 && *bytes != 0))
		return fail(ps, l->no, "fewer bytes than objects, or bytes "
		    "without objects");
	return 0;
bad:
	return fail(ps, l->no, "not a \"t*: COUNT: BYTES [COUNT: BYTES]\" "
	    "line");
}

/*
 * Objects and bytes of a stack unbiased as jeprof's AdjustSamples does for
 * heap_v2: a sample of size X is taken with probability 1 - exp(-X/RATE),
 * X the stack's mean size. RATE 0 is not scaled (jeprof's test); RATE 1
 * (lg_prof_sample:0, every allocation) is scaled as jeprof does, by less
 * than 1.0004 since no object is below 8 bytes.
 */
static int
unbias(struct parser *ps, size_t no, uint64_t count, uint64_t bytes,
    struct heap_stack *st)
{
	double scale = 1, o, b;

	if (ps->d->rate != 0 && count != 0)
		scale = 1 / -expm1(-((double)bytes / (double)count) /
		    (double)ps->d->rate);
	o = (double)count * scale;
	b = (double)bytes * scale;
	if (!(b < 0x1p62) || !(o < 0x1p62))
		return fail(ps, no, "bytes out of range once unbiased");
	st->objects = llround(o);
	st->bytes = llround(b);
	if (__builtin_add_overflow(ps->d->total_bytes, st->bytes,
	    &ps->d->total_bytes) ||
	    __builtin_add_overflow(ps->d->total_objects, st->objects,
	    &ps->d->total_objects))
		return fail(ps, no, "the total is out of range");
	return 0;
}

/* Room for one more of an array of size bytes each, doubling. */
static int
grow(void **arr, size_t *cap, size_t n, size_t size)
{
	size_t ncap;
	void *p;

	if (n < *cap)
		return 0;
	ncap = *cap == 0 ? 64 : *cap * 2;
	if (ncap > SIZE_MAX / size)
		return -1;
	if ((p = realloc(*arr, ncap * size)) == NULL)
		return -1;
	*arr = p;
	*cap = ncap;
	return 0;
}

/* "@ 0xADDR 0xADDR ..." into a new stack of d, its counts not yet read. */
static int
parse_stack(struct parser *ps, const struct line *l)
{
	const char *s = l->s, *end = l->s + l->n, *before;
	struct heap_dump *d = ps->d;
	struct heap_stack *st;
	size_t depth = 0;

	skip_spaces(&s, end);
	s++; /* '@' */
	for (;;) {
		before = s;
		skip_spaces(&s, end);
		if (s == end)
			break;
		if (grow((void **)&ps->frames, &ps->frames_cap, depth,
		    sizeof(*ps->frames)) != 0)
			return fail(ps, l->no, "out of memory");
		if (s == before || parse_hex(&s, end, &ps->frames[depth]) != 0 ||
		    (s < end && *s != ' ' && *s != '\t'))
			return fail(ps, l->no, "not an address");
		depth++;
	}
	if (grow((void **)&d->stacks, &ps->stacks_cap, d->nstacks,
	    sizeof(*d->stacks)) != 0)
		return fail(ps, l->no, "out of memory");
	st = &d->stacks[d->nstacks];
	memset(st, 0, sizeof(*st));
	if (depth > 0) {
		if ((st->pcs = malloc(depth * sizeof(*st->pcs))) == NULL)
			return fail(ps, l->no, "out of memory");
		memcpy(st->pcs, ps->frames, depth * sizeof(*st->pcs));
	}
	st->depth = depth;
	d->nstacks++;
	return 0;
}

/* "heap_v2/RATE", then the header's totals and its per-thread lines. */
static int
parse_header(struct parser *ps, struct line *l)
{
	const char *s, *end;
	uint64_t count, bytes;
	int rc;

	if ((rc = next_line(ps, l)) <= 0)
		return rc < 0 ? -1 : fail(ps, 0, "empty, not a jemalloc "
		    "heap_v2 dump");
	s = l->s;
	end = l->s + l->n;
	if (expect(&s, end, HEADER) != 0)
		return fail(ps, 0, "not a jemalloc heap_v2 dump (line 1 is "
		    "not \"heap_v2/RATE\")");
	if (parse_dec(&s, end, &ps->d->rate) != 0 || s != end)
		return fail(ps, l->no, "the rate of \"heap_v2/RATE\" is not "
		    "a number");
	if ((rc = next_line(ps, l)) < 0)
		return -1;
	if (rc == 0 || kind_of(l) != L_TOTAL)
		return fail(ps, ps->no + (rc == 0), "cut short: no \"t*\" "
		    "line of totals after the header");
	return parse_counts(ps, l, &count, &bytes);
}

/*
 * The stacks, each "@ ..." then its "t*" line and its threads' lines, up
 * to the blank line before MAPPED_LIBRARIES:.
 */
static int
parse_stacks(struct parser *ps, struct line *l)
{
	uint64_t count, bytes;
	int rc, counted = 1;
	enum line_kind k;

	while ((rc = next_line(ps, l)) > 0) {
		k = kind_of(l);
		if (k != L_TOTAL && !counted)
			return fail(ps, l->no, "a stack without its \"t*\" "
			    "line");
		if (k == L_BLANK)
			return 0;
		if (k == L_STACK) {
			if (parse_stack(ps, l) != 0)
				return -1;
			counted = 0;
		} else if (k == L_TOTAL) {
			if (counted)
				return fail(ps, l->no, "a \"t*\" line without "
				    "its stack");
			if (parse_counts(ps, l, &count, &bytes) != 0 ||
			    unbias(ps, l->no, count, bytes,
			    &ps->d->stacks[ps->d->nstacks - 1]) != 0)
				return -1;
			counted = 1;
		} else if (k == L_THREAD) {
			if (parse_counts(ps, l, &count, &bytes) != 0)
				return -1;
		} else
			return fail(ps, l->no, "not a line of a heap_v2 dump");
	}
	if (rc < 0)
		return -1;
	return fail(ps, ps->no + 1, "cut short: the dump ends before "
	    "MAPPED_LIBRARIES:");
}

/* "START-END PERMS OFFSET DEV INODE [PATH]", /proc/PID/maps' line. */
static int
parse_map(struct parser *ps, const struct line *l)
{
	const char *s = l->s, *end = l->s + l->n, *perms;
	struct heap_dump *d = ps->d;
	struct heap_mapping m;
	uint64_t dev, inode;

	memset(&m, 0, sizeof(m));
	if (parse_hex(&s, end, &m.start) != 0 || expect(&s, end, "-") != 0 ||
	    parse_hex(&s, end, &m.end) != 0 || expect(&s, end, " ") != 0 ||
	    end - s < 5 || s[4] != ' ')
		goto bad;
	perms = s;
	s += 5;
	if (parse_hex(&s, end, &m.offset) != 0 || expect(&s, end, " ") != 0 ||
	    parse_hex(&s, end, &dev) != 0 || expect(&s, end, ":") != 0 ||
	    parse_hex(&s, end, &dev) != 0 || expect(&s, end, " ") != 0 ||
	    parse_dec(&s, end, &inode) != 0 || m.end < m.start)
		goto bad;
	if (s < end && *s != ' ')
		goto bad;
	skip_spaces(&s, end);
	m.executable = perms[2] == 'x';
	if (grow((void **)&d->maps, &ps->maps_cap, d->nmaps,
	    sizeof(*d->maps)) != 0 ||
	    (s < end && (m.path = strndup(s, (size_t)(end - s))) == NULL))
		return fail(ps, l->no, "out of memory");
	d->maps[d->nmaps++] = m;
	return 0;
bad:
	return fail(ps, l->no, "not a line of /proc/PID/maps");
}

static int
parse_maps(struct parser *ps, struct line *l)
{
	int rc;

	if ((rc = next_line(ps, l)) < 0)
		return -1;
	if (rc == 0 || kind_of(l) != L_MAPPED)
		return fail(ps, ps->no + (rc == 0), "cut short: no "
		    "MAPPED_LIBRARIES: after the blank line");
	while ((rc = next_line(ps, l)) > 0)
		if (parse_map(ps, l) != 0)
			return -1;
	return rc;
}

int
heap_dump_parse(const char *text, size_t len, struct heap_dump *d,
    char *err, size_t errlen)
{
	struct parser ps = {
		.p = text, .end = text + len, .d = d, .err = err,
		.errlen = errlen,
	};
	struct line l;
	int rc;

	memset(d, 0, sizeof(*d));
	rc = parse_header(&ps, &l);
	if (rc == 0)
		rc = parse_stacks(&ps, &l);
	if (rc == 0)
		rc = parse_maps(&ps, &l);
	free(ps.frames);
	if (rc != 0)
		heap_dump_free(d);
	return rc;
}

void
heap_dump_free(struct heap_dump *d)
{
	for (size_t i = 0; i < d->nstacks; i++)
		free(d->stacks[i].pcs);
	for (size_t i = 0; i < d->nmaps; i++)
		free(d->maps[i].path);
	free(d->stacks);
	free(d->maps);
	memset(d, 0, sizeof(*d));
}

/* The table of diff_stacks(): a stack's slot holds its index + 1. */
struct stack_table {
	size_t *slots;
	size_t mask;
	struct heap_stack *stacks;
	size_t n;
};

static int
same_stack(const struct heap_stack *a, const struct heap_stack *b)
{
	return a->depth == b->depth && (a->depth == 0 ||
	    memcmp(a->pcs, b->pcs, a->depth * sizeof(*a->pcs)) == 0);
}

/* The slot of stack st: its own, or the empty one where it would go. */
static size_t *
slot_of(struct stack_table *t, const struct heap_stack *st)
{
	size_t i = strhash((const char *)st->pcs,
	    st->depth * sizeof(*st->pcs)) & t->mask;

	while (t->slots[i] != 0 && !same_stack(&t->stacks[t->slots[i] - 1],
	    st))
		i = (i + 1) & t->mask;
	return &t->slots[i];
}

/* newer's stacks into t, the same stack twice summed. */
static int
table_fill(struct stack_table *t, const struct heap_dump *newer)
{
	const struct heap_stack *st;
	struct heap_stack *to;
	size_t *slot;

	for (size_t i = 0; i < newer->nstacks; i++) {
		st = &newer->stacks[i];
		slot = slot_of(t, st);
		if (*slot != 0) {
			to = &t->stacks[*slot - 1];
			if (__builtin_add_overflow(to->bytes, st->bytes,
			    &to->bytes) || __builtin_add_overflow(to->objects,
			    st->objects, &to->objects))
				return errno = ERANGE, -1;
			continue;
		}
		to = &t->stacks[t->n];
		*to = *st;
		to->pcs = NULL;
		if (st->depth > 0 && (to->pcs = malloc(st->depth *
		    sizeof(*st->pcs))) == NULL)
			return -1;
		if (st->depth > 0)
			memcpy(to->pcs, st->pcs, st->depth * sizeof(*st->pcs));
		*slot = ++t->n;
	}
	return 0;
}

/* base's stacks taken from those of t that newer has too. */
static void
table_subtract(struct stack_table *t, const struct heap_dump *base)
{
	const struct heap_stack *st;
	size_t *slot;

	for (size_t i = 0; i < base->nstacks; i++) {
		st = &base->stacks[i];
		if (*(slot = slot_of(t, st)) == 0)
			continue;
		/* Both at most 2^62 (unbias()): no overflow. */
		t->stacks[*slot - 1].bytes -= st->bytes;
		t->stacks[*slot - 1].objects -= st->objects;
	}
}

static int
copy_maps(const struct heap_dump *from, struct heap_dump *to)
{
	if (from->nmaps == 0)
		return 0;
	if ((to->maps = calloc(from->nmaps, sizeof(*to->maps))) == NULL)
		return -1;
	for (size_t i = 0; i < from->nmaps; i++, to->nmaps++) {
		to->maps[i] = from->maps[i];
		if (from->maps[i].path != NULL &&
		    (to->maps[i].path = strdup(from->maps[i].path)) == NULL)
			return -1;
	}
	return 0;
}

/* The stacks of t that grew into out, the others freed. */
static void
keep_grown(struct stack_table *t, struct heap_dump *out)
{
	size_t kept = 0;

	for (size_t i = 0; i < t->n; i++) {
		if (t->stacks[i].bytes <= 0) {
			free(t->stacks[i].pcs);
			continue;
		}
		t->stacks[kept++] = t->stacks[i];
		out->total_bytes += t->stacks[i].bytes;
		out->total_objects += t->stacks[i].objects;
	}
	out->stacks = t->stacks;
	out->nstacks = kept;
	t->stacks = NULL;
	t->n = 0;
}

int
heap_dump_diff(const struct heap_dump *newer, const struct heap_dump *base,
    struct heap_dump *out)
{
	struct stack_table t = { 0 };
	size_t cap = 16;
	int rc = -1;

	memset(out, 0, sizeof(*out));
	out->rate = newer->rate;
	while (cap < newer->nstacks * 2)
		cap *= 2;
	t.mask = cap - 1;
	if ((t.slots = calloc(cap, sizeof(*t.slots))) == NULL ||
	    (t.stacks = calloc(newer->nstacks + 1, sizeof(*t.stacks))) == NULL)
		goto out;
	if (table_fill(&t, newer) != 0)
		goto out;
	table_subtract(&t, base);
	keep_grown(&t, out);
	rc = copy_maps(newer, out);
out:
	for (size_t i = 0; i < t.n; i++)
		free(t.stacks[i].pcs);
	free(t.stacks);
	free(t.slots);
	if (rc != 0)
		heap_dump_free(out);
	return rc;
}
