/* SPDX-License-Identifier: GPL-2.0 */
/*
 * svg.h - the few inline SVG charts of `foliotrace report`: grouped horizontal bars and
 * 100% stacked horizontal bars, drawn into a strbuf as self-contained <svg> elements (no
 * script, no external resource; <title> children give the exact value on hover).
 */
#ifndef FT_REPORT_SVG_H
#define FT_REPORT_SVG_H

#include <stddef.h>

#include "lib/strbuf.h"

struct svg_series {
	const char *name;	/* legend text */
	const char *color;	/* CSS color */
	const double *v;	/* one value per row */
};

/* Formats a value for a bar label ("12.3M", "-70%"...) into buf. */
typedef void (*svg_fmt)(char *buf, size_t len, double v);

/*
 * Grouped horizontal bars: one group per row label, one bar per series, all on one linear
 * scale from 0 to the largest value. note[i] (may be NULL) is printed after row i's bars.
 */
void svg_hbars(struct strbuf *sb, const char *id, const char *title, const char *const *rows,
	       const char *const *note, size_t nr_rows, const struct svg_series *s, size_t nr,
	       svg_fmt fmt);

/* One bar per row split into the series' shares of the row's sum (100% stacked). */
void svg_stacked(struct strbuf *sb, const char *id, const char *title,
		 const char *const *rows, size_t nr_rows, const struct svg_series *s, size_t nr,
		 svg_fmt fmt);

#define SVG_LEGEND_ROW 14	/* px per legend row */

/*
 * The opening <svg id class="chart"> of a w x h px chart, its <title> and title text, and
 * the legend of the nr series from x px at y 20, wrapped to svg_legend_rows() rows of
 * SVG_LEGEND_ROW px where it would pass w.
 */
int svg_legend_rows(const struct svg_series *s, size_t nr, int x, int w);
void svg_header(struct strbuf *sb, const char *id, const char *title, int w, int h,
		const struct svg_series *s, size_t nr, int x);

/* Append s with &, <, >, " escaped. */
void html_esc(struct strbuf *sb, const char *s);

#endif /* FT_REPORT_SVG_H */
