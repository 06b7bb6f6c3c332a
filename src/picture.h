/*
 * Drawing a chart (chart.h) as SVG, for the svg and html formats, and the
 * escaping of text from the server into XML. Private to the output family.
 */
#ifndef MYSQLMEMPROF_PICTURE_H
#define MYSQLMEMPROF_PICTURE_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "chart.h"

/* Events with a band of their own in the picture; the rest is "other". */
#define PICTURE_BANDS 8

/*
 * Writes the n bytes at s as XML character data or an attribute value, on
 * one line: markup characters escaped, each run of white space one space,
 * and what scrub.h keeps from terminals (controls, bidi controls, bytes
 * that are not UTF-8, NULs) shown as '?', so a statement renders as text
 * whatever it holds. With max > 0, at most max characters, "..." ending a
 * cut one. Returns the characters written.
 */
size_t picture_text(FILE *fp, const char *s, size_t n, size_t max);

/*
 * Writes the chart as one <svg> element: the stackplot of the top events
 * and "other", the thread total, statement bands with their text, unseen
 * peaks, gaps, axes in binary units and UTC wall-clock time, a legend.
 * what names the target ("thread 42", "global") and total its total's line
 * ("thread total", "global total"); both are escaped.
 */
void picture_svg(FILE *fp, const struct chart *c, const char *what,
    const char *total);

#endif
