// SPDX-License-Identifier: GPL-2.0
/*
 * svg.c - inline SVG bar charts for the HTML report; see svg.h. Geometry in CSS pixels:
 * a label column, a plot area, a legend row on top.
 */
#include <stdio.h>
#include <string.h>

#include "report/svg.h"

#define LABEL_W	170	/* px, row label column */
#define PLOT_W	520	/* px, plot area */
#define NOTE_W	150	/* px, value labels right of the longest bar */
#define BAR_H	14	/* px per bar */
#define GAP	10	/* px between groups */
#define TOP	34	/* px, title and legend */

void html_esc(struct strbuf *sb, const char *s)
{
	for (; s && *s; s++) {
		switch (*s) {
		case '&':
			strbuf_addstr(sb, "&amp;");
			break;
		case '<':
			strbuf_addstr(sb, "&lt;");
			break;
		case '>':
			strbuf_addstr(sb, "&gt;");
			break;
		case '"':
			strbuf_addstr(sb, "&quot;");
			break;
		default:
			strbuf_addch(sb, *s);
		}
	}
}

/* px a legend item takes: its swatch, its text at about 7 px a character, a gap */
static int legend_w(const char *name)
{
	return 14 + 7 * (int)strlen(name) + 16;
}

int svg_legend_rows(const struct svg_series *s, size_t nr, int x, int w)
{
	int x0 = x, rows = 1;
	size_t k;

	for (k = 0; k < nr; k++) {
		if (x > x0 && x + legend_w(s[k].name) > w) {
			rows++;
			x = x0;
		}
		x += legend_w(s[k].name);
	}
	return rows;
}

void svg_header(struct strbuf *sb, const char *id, const char *title, int w, int h,
		const struct svg_series *s, size_t nr, int x)
{
	int x0 = x, y = 20;
	size_t k;

	strbuf_addf(sb, "<svg id=\"%s\" class=\"chart\" xmlns=\"http://www.w3.org/2000/svg\" "
		    "width=\"%d\" height=\"%d\" viewBox=\"0 0 %d %d\" role=\"img\">\n", id, w, h,
		    w, h);
	strbuf_addstr(sb, "<title>");
	html_esc(sb, title);
	strbuf_addstr(sb, "</title>\n<text x=\"0\" y=\"14\" class=\"ct\">");
	html_esc(sb, title);
	strbuf_addstr(sb, "</text>\n");
	for (k = 0; k < nr; k++) {
		if (x > x0 && x + legend_w(s[k].name) > w) {	/* as svg_legend_rows() */
			x = x0;
			y += SVG_LEGEND_ROW;
		}
		strbuf_addf(sb, "<rect x=\"%d\" y=\"%d\" width=\"10\" height=\"10\" fill=\"%s\"/>"
			    "<text x=\"%d\" y=\"%d\" class=\"lg\">", x, y, s[k].color, x + 14, y + 9);
		html_esc(sb, s[k].name);
		strbuf_addstr(sb, "</text>\n");
		x += legend_w(s[k].name);
	}
}

void svg_hbars(struct strbuf *sb, const char *id, const char *title, const char *const *rows,
	       const char *const *note, size_t nr_rows, const struct svg_series *s, size_t nr,
	       svg_fmt fmt)
{
	int group = (int)nr * BAR_H + GAP;
	int h = TOP + (int)nr_rows * group + 4, y;
	double max = 0;
	size_t i, k;
	char buf[64];

	for (i = 0; i < nr_rows; i++)
		for (k = 0; k < nr; k++)
			if (s[k].v[i] > max)
				max = s[k].v[i];
	svg_header(sb, id, title, LABEL_W + PLOT_W + NOTE_W, h, s, nr, LABEL_W);
	for (i = 0; i < nr_rows; i++) {
		y = TOP + (int)i * group;
		strbuf_addf(sb, "<text x=\"%d\" y=\"%d\" class=\"rl\" text-anchor=\"end\">",
			    LABEL_W - 6, y + (int)nr * BAR_H / 2 + 4);
		html_esc(sb, rows[i]);
		strbuf_addstr(sb, "</text>\n");
		for (k = 0; k < nr; k++) {
			double v = s[k].v[i];
			int w = max > 0 ? (int)(v / max * PLOT_W + 0.5) : 0;
			int by = y + (int)k * BAR_H;

			if (v > 0 && w < 1)
				w = 1;
			fmt(buf, sizeof(buf), v);
			strbuf_addf(sb, "<rect class=\"bar\" x=\"%d\" y=\"%d\" width=\"%d\" "
				    "height=\"%d\" fill=\"%s\"><title>", LABEL_W, by, w, BAR_H - 2,
				    s[k].color);
			html_esc(sb, rows[i]);
			strbuf_addstr(sb, ", ");
			html_esc(sb, s[k].name);
			strbuf_addf(sb, ": %s (%.0f)</title></rect>", buf, v);
			strbuf_addf(sb, "<text x=\"%d\" y=\"%d\" class=\"vl\">%s", LABEL_W + w + 4,
				    by + BAR_H - 4, buf);
			if (k == 0 && note && note[i]) {
				strbuf_addstr(sb, " ");
				html_esc(sb, note[i]);
			}
			strbuf_addstr(sb, "</text>\n");
		}
	}
	strbuf_addstr(sb, "</svg>\n");
}

void svg_stacked(struct strbuf *sb, const char *id, const char *title,
		 const char *const *rows, size_t nr_rows, const struct svg_series *s, size_t nr,
		 svg_fmt fmt)
{
	int h = TOP + (int)nr_rows * (BAR_H + GAP) + 4, y;
	size_t i, k;
	char buf[64];

	svg_header(sb, id, title, LABEL_W + PLOT_W + NOTE_W, h, s, nr, LABEL_W);
	for (i = 0; i < nr_rows; i++) {
		double sum = 0, x = LABEL_W;

		y = TOP + (int)i * (BAR_H + GAP);
		for (k = 0; k < nr; k++)
			sum += s[k].v[i];
		strbuf_addf(sb, "<text x=\"%d\" y=\"%d\" class=\"rl\" text-anchor=\"end\">",
			    LABEL_W - 6, y + BAR_H - 3);
		html_esc(sb, rows[i]);
		strbuf_addstr(sb, "</text>\n");
		if (sum <= 0) {
			strbuf_addf(sb, "<text x=\"%d\" y=\"%d\" class=\"vl\">none</text>\n",
				    LABEL_W + 4, y + BAR_H - 3);
			continue;
		}
		for (k = 0; k < nr; k++) {
			double w = s[k].v[i] / sum * PLOT_W;

			if (s[k].v[i] <= 0)
				continue;
			fmt(buf, sizeof(buf), s[k].v[i]);
			strbuf_addf(sb, "<rect class=\"bar\" x=\"%.1f\" y=\"%d\" width=\"%.1f\" "
				    "height=\"%d\" fill=\"%s\"><title>", x, y, w < 0.5 ? 0.5 : w,
				    BAR_H, s[k].color);
			html_esc(sb, rows[i]);
			strbuf_addstr(sb, ", ");
			html_esc(sb, s[k].name);
			strbuf_addf(sb, ": %s (%.1f%%)</title></rect>\n", buf,
				    s[k].v[i] * 100.0 / sum);
			x += w;
		}
		fmt(buf, sizeof(buf), sum);
		strbuf_addf(sb, "<text x=\"%d\" y=\"%d\" class=\"vl\">%s</text>\n",
			    LABEL_W + PLOT_W + 4, y + BAR_H - 3, buf);
	}
	strbuf_addstr(sb, "</svg>\n");
}
