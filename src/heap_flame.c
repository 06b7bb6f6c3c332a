#include <errno.h>
#include <inttypes.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "heap_flame.h"
#include "picture.h"
#include "units.h"

/* A frame's row, and the room a character takes in its label. */
#define ROW_PX 17
#define CHAR_PX 7.0
#define TOP_PX 24

/*
 * One node of the tree the stacks make, outermost frame at the root: a
 * function reached by one path of calls, with the bytes of the stacks
 * through it. Children are a linked list, merged by function.
 */
struct node {
	size_t func;
	int64_t bytes;
	struct node *child, *next;
};

static struct node *
child_of(struct node *n, size_t func)
{
	struct node *c;

	for (c = n->child; c != NULL; c = c->next)
		if (c->func == func)
			return c;
	if ((c = calloc(1, sizeof(*c))) == NULL)
		return NULL;
	c->func = func;
	c->next = n->child;
	n->child = c;
	return c;
}

/* Every stack into the tree under root; -1 when out of memory. */
static int
grow(struct node *root, const struct heap_profile *p)
{
	for (size_t i = 0; i < p->nstacks; i++) {
		const struct heap_pstack *s = &p->stacks[i];
		struct node *n = root;

		root->bytes += s->bytes;
		/* Innermost first in the stack: walked from its end. */
		for (size_t d = s->depth; d-- > 0;) {
			if ((n = child_of(n, p->locs[s->locs[d]].func)) == NULL)
				return -1;
			n->bytes += s->bytes;
		}
	}
	return 0;
}

static void
prune(struct node *n)
{
	struct node *c, *next;

	for (c = n->child; c != NULL; c = next) {
		next = c->next;
		prune(c);
		free(c);
	}
}

static int
depth_of(const struct node *n)
{
	int most = 0, d;

	for (const struct node *c = n->child; c != NULL; c = c->next)
		if ((d = depth_of(c)) > most)
			most = d;
	return most + 1;
}

/*
 * A color from the name alone (FNV-1a), so that a function has the same
 * in every drawing: warm hues, as flame graphs have them.
 */
static void
color_of(const char *name, char *out, size_t len)
{
	uint32_t h = 2166136261u;

	for (const unsigned char *c = (const unsigned char *)name; *c; c++)
		h = (h ^ *c) * 16777619u;
	snprintf(out, len, "rgb(%u,%u,%u)", 205 + h % 50, 80 + (h >> 8) % 130,
	    40 + (h >> 16) % 50);
}

struct draw {
	FILE *fp;
	const struct heap_profile *p;
	double px_per_byte;
	int rows;
};

static void
frame(const struct draw *dr, const char *name, int64_t bytes, double x,
    double w, int row)
{
	char color[32], b[32];
	double y = TOP_PX + (dr->rows - 1 - row) * ROW_PX;
	size_t fits = w > 2 * CHAR_PX ? (size_t)((w - 6) / CHAR_PX) : 0;

	units_bytes(bytes, b, sizeof(b));
	color_of(name, color, sizeof(color));
	fprintf(dr->fp, "<g><title>");
	picture_text(dr->fp, name, strlen(name), 0);
	fprintf(dr->fp, " (%s, %.1f%%)</title><rect x=\"%.1f\" y=\"%.0f\" "
	    "width=\"%.1f\" height=\"%d\" fill=\"%s\" rx=\"2\"/>", b,
	    dr->p->total_bytes > 0 ? 100.0 * (double)bytes /
	    (double)dr->p->total_bytes : 0.0, x, y, w, ROW_PX - 1, color);
	if (fits >= 6) {
		fprintf(dr->fp, "<text x=\"%.1f\" y=\"%.0f\">", x + 3,
		    y + ROW_PX - 5);
		picture_text(dr->fp, name, strlen(name), fits);
		fputs("</text>", dr->fp);
	}
	fputs("</g>\n", dr->fp);
}

/* n's children side by side from x, a row above n's. */
static void
draw_children(const struct draw *dr, const struct node *n, double x, int row)
{
	for (const struct node *c = n->child; c != NULL; c = c->next) {
		double w = (double)c->bytes * dr->px_per_byte;

		if (w < HEAP_FLAME_MIN_PX)
			continue;
		frame(dr, dr->p->funcs[c->func].name, c->bytes, x, w, row);
		draw_children(dr, c, x, row + 1);
		x += w;
	}
}

int
heap_flame_svg(FILE *fp, const struct heap_profile *p, const char *title)
{
	struct node root = { 0 };
	struct draw dr = { .fp = fp, .p = p };
	char b[32];
	int height;

	if (grow(&root, p) != 0) {
		prune(&root);
		errno = ENOMEM;
		return -1;
	}
	dr.rows = depth_of(&root);
	dr.px_per_byte = root.bytes > 0 ? HEAP_FLAME_WIDTH /
	    (double)root.bytes : 0;
	height = TOP_PX + dr.rows * ROW_PX + 4;
	units_bytes(root.bytes, b, sizeof(b));
	fprintf(fp, "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" "
	    "height=\"%d\" viewBox=\"0 0 %d %d\" font-family=\"DejaVu Sans "
	    "Mono,monospace\" font-size=\"11\">\n<text x=\"0\" y=\"15\" "
	    "font-size=\"13\">", HEAP_FLAME_WIDTH, height, HEAP_FLAME_WIDTH,
	    height);
	picture_text(fp, title, strlen(title), 0);
	fprintf(fp, " (%s; hover a frame for its name and bytes)</text>\n", b);
	frame(&dr, "all", root.bytes, 0, root.bytes > 0 ? HEAP_FLAME_WIDTH :
	    0, 0);
	draw_children(&dr, &root, 0, 1);
	fputs("</svg>\n", fp);
	prune(&root);
	return 0;
}
