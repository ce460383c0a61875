// SPDX-License-Identifier: GPL-2.0
/*
 * svg-line.c - line charts; see svg-line.h. Geometry in CSS pixels: a y-axis label
 * column, the plot, an x-axis label row, a legend row on top (svg.c's header).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/xalloc.h"
#include "report/svg-line.h"

#define AXIS_W	70	/* px, y tick labels */
#define PLOT_W	760	/* px */
#define PLOT_H	220	/* px */
#define TOP	36	/* px, title and legend */
#define BOTTOM	24	/* px, x tick labels */
#define TICKS	4	/* intervals between ticks, per axis */

/* Index of the last point of l at or before x, or -1 when its first point is after x. */
static long at_or_before(const struct svg_line *l, double x)
{
	size_t lo = 0, hi = l->n;

	while (lo < hi) {	/* first point with l->x > x */
		size_t mid = (lo + hi) / 2;

		if (l->x[mid] <= x)
			lo = mid + 1;
		else
			hi = mid;
	}
	return (long)lo - 1;
}

void svg_lines(struct strbuf *sb, const char *id, const char *title, const struct svg_line *l,
	       size_t nr, svg_fmt fx, svg_fmt fy)
{
	int w = AXIS_W + PLOT_W + 20, top, h;
	double xmax = 0, ymax = 0;
	size_t k, i, longest = 0;
	struct svg_series *leg = xcalloc(nr ? nr : 1, sizeof(*leg));
	char buf[64];
	int c;

	for (k = 0; k < nr; k++) {
		for (i = 0; i < l[k].n; i++) {
			if (l[k].x[i] > xmax)
				xmax = l[k].x[i];
			if (l[k].y[i] > ymax)
				ymax = l[k].y[i];
		}
		if (l[k].n > longest)
			longest = l[k].n;
		leg[k].name = l[k].name;
		leg[k].color = l[k].color;
	}
	/* a legend of many lines wraps: the plot starts below its last row */
	top = TOP + (svg_legend_rows(leg, nr, AXIS_W, w) - 1) * SVG_LEGEND_ROW;
	h = top + PLOT_H + BOTTOM;
	if (xmax <= 0)
		xmax = 1;
	if (ymax <= 0)
		ymax = 1;
	svg_header(sb, id, title, w, h, leg, nr, AXIS_W);
	strbuf_addf(sb, "<g data-lines=\"%zu\" data-points=\"%zu\"></g>\n", nr, longest);
	/* axes and ticks */
	strbuf_addf(sb, "<rect x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\" fill=\"none\" "
		    "stroke=\"#ccc\"/>\n", AXIS_W, top, PLOT_W, PLOT_H);
	for (c = 0; c <= TICKS; c++) {
		int ty = top + PLOT_H - PLOT_H * c / TICKS, tx = AXIS_W + PLOT_W * c / TICKS;

		fy(buf, sizeof(buf), ymax * c / TICKS);
		strbuf_addf(sb, "<text x=\"%d\" y=\"%d\" class=\"vl\" text-anchor=\"end\">%s"
			    "</text>", AXIS_W - 4, ty + 4, buf);
		fx(buf, sizeof(buf), xmax * c / TICKS);
		strbuf_addf(sb, "<text x=\"%d\" y=\"%d\" class=\"vl\" text-anchor=\"%s\">%s"
			    "</text>\n", tx, top + PLOT_H + 16,
			    c == 0 ? "start" : c == TICKS ? "end" : "middle", buf);
	}
	for (k = 0; k < nr; k++) {
		strbuf_addf(sb, "<polyline class=\"line\" fill=\"none\" stroke=\"%s\" "
			    "stroke-width=\"1.5\"%s points=\"", l[k].color,
			    l[k].dashed ? " stroke-dasharray=\"5,3\"" : "");
		for (i = 0; i < l[k].n; i++)
			strbuf_addf(sb, "%.1f,%.1f ", AXIS_W + l[k].x[i] / xmax * PLOT_W,
				    top + PLOT_H - l[k].y[i] / ymax * PLOT_H);
		strbuf_addstr(sb, "\"/>\n");
	}
	/* hover columns: each line's value at the column's right edge */
	for (c = 0; c < SVG_HOVER_COLS; c++) {
		double x = xmax * (c + 1) / SVG_HOVER_COLS;

		strbuf_addf(sb, "<rect class=\"hover\" x=\"%.1f\" y=\"%d\" width=\"%.1f\" "
			    "height=\"%d\" fill=\"transparent\"><title>",
			    AXIS_W + (double)PLOT_W * c / SVG_HOVER_COLS, top,
			    (double)PLOT_W / SVG_HOVER_COLS, PLOT_H);
		fx(buf, sizeof(buf), x);
		strbuf_addf(sb, "at %s", buf);
		for (k = 0; k < nr; k++) {
			long j = at_or_before(&l[k], x);

			strbuf_addstr(sb, "\n");
			html_esc(sb, l[k].name);
			if (j < 0) {
				strbuf_addstr(sb, ": -");
				continue;
			}
			fy(buf, sizeof(buf), l[k].y[j]);
			strbuf_addf(sb, ": %s", buf);
		}
		strbuf_addstr(sb, "</title></rect>\n");
	}
	strbuf_addstr(sb, "</svg>\n");
	free(leg);
}
