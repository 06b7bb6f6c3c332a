/*
 * A heap profile (heap_profile.h) drawn as a flame graph: one <svg>
 * element, the outermost frames at the bottom, each frame a rectangle as
 * wide as the bytes of the stacks through it, its label cut to fit, a
 * <title> with its whole name and bytes (the tooltip), its color from its
 * name. No script: the page shows it as it is. Pure: into a FILE.
 */
#ifndef MYSQLMEMPROF_HEAP_FLAME_H
#define MYSQLMEMPROF_HEAP_FLAME_H

#include <stdio.h>

#include "heap_profile.h"

/* The drawing's width in pixels; frames narrower than this are left out. */
#define HEAP_FLAME_WIDTH 1160
#define HEAP_FLAME_MIN_PX 0.5

/*
 * Writes p as an <svg> element headed by title (escaped). Returns 0, or -1
 * with errno (out of memory; nothing written then).
 */
int heap_flame_svg(FILE *fp, const struct heap_profile *p, const char *title);

#endif
