/* SPDX-License-Identifier: GPL-2.0 */
/*
 * svg-line.h - line charts of the report: one or more series of (x, y) points on shared
 * linear axes, drawn as a self-contained <svg>. Hover values without script: the plot is
 * cut into SVG_HOVER_COLS columns, each a transparent rect whose <title> holds every
 * line's value at that column's x (the last point at or before it).
 */
#ifndef FT_REPORT_SVG_LINE_H
#define FT_REPORT_SVG_LINE_H

#include <stddef.h>

#include "lib/strbuf.h"
#include "report/svg.h"

#define SVG_HOVER_COLS 120	/* hover targets per line chart */

struct svg_line {
	const char *name;	/* legend text */
	const char *color;	/* CSS color */
	int dashed;		/* 1: drawn dashed (the other side of a comparison) */
	const double *x;	/* n increasing values, in the x axis' unit */
	const double *y;	/* n values >= 0 */
	size_t n;
};

/*
 * svg_lines - the chart id titled title: every line on x from 0 to the largest x and y
 * from 0 to the largest y; fx and fy format the axis ticks and hover values. The <svg>
 * carries data-lines (how many lines) and data-points (points of the longest) for tests.
 */
void svg_lines(struct strbuf *sb, const char *id, const char *title, const struct svg_line *l,
	       size_t nr, svg_fmt fx, svg_fmt fy);

#endif /* FT_REPORT_SVG_LINE_H */
