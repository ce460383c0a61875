// SPDX-License-Identifier: GPL-2.0
/*
 * timeline.c - memory and fault rate against trace time; see timeline.h. Each run's
 * series has RP_SERIES_POINTS points whatever the trace's length (replay/series.h), so
 * the charts cost the same for a kbuild trace as for a fixture.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "db/series.h"
#include "lib/error.h"
#include "lib/fmt.h"
#include "lib/xalloc.h"
#include "replay/series.h"
#include "report/svg-line.h"
#include "report/timeline.h"

const char *report_policy_color(unsigned int i)
{
	static const char *const c[] = { "#1f77b4", "#d62728", "#2ca02c", "#ff7f0e",
					 "#9467bd", "#8c564b", "#e377c2", "#17becf",
					 "#7f7f7f", "#bcbd22" };

	return c[i % (sizeof(c) / sizeof(c[0]))];
}

static void fmt_ms(char *buf, size_t len, double ms)
{
	if (ms >= 1000)
		snprintf(buf, len, "%.2f s", ms / 1000);
	else
		snprintf(buf, len, "%.1f ms", ms);
}

static void fmt_b(char *buf, size_t len, double v)
{
	fmt_bytes(buf, len, (uint64_t)v);
}

static void fmt_rate(char *buf, size_t len, double v)
{
	if (v >= 1e6)
		snprintf(buf, len, "%.2fM/s", v / 1e6);
	else if (v >= 1e3)
		snprintf(buf, len, "%.1fk/s", v / 1e3);
	else
		snprintf(buf, len, "%.0f/s", v);
}

struct tl_line {
	char name[96];
	double *x, *rss, *rate;		/* ms; bytes (the most inside each interval); /s */
	size_t n;
};

/*
 * A run's series as chart points: x the interval's end in ms, rss its largest RSS (a
 * peak between two ends is drawn), rate its faults over its width.
 */
static int load_line(sqlite3 *db, int64_t run_id, struct tl_line *l)
{
	struct ftdb_series_point *pt;
	size_t i, n;
	uint64_t prev = 0;

	if (ftdb_run_series(db, run_id, &pt, &n))
		return -1;
	l->n = n;
	l->x = xcalloc(n + 1, sizeof(double));
	l->rss = xcalloc(n + 1, sizeof(double));
	l->rate = xcalloc(n + 1, sizeof(double));
	for (i = 0; i < n; i++) {
		uint64_t w = pt[i].t_ns > prev ? pt[i].t_ns - prev : 1;

		l->x[i] = (double)pt[i].t_ns / 1e6;
		l->rss[i] = (double)pt[i].rss_max;
		l->rate[i] = (double)pt[i].faults * 1e9 / (double)w;
		prev = pt[i].t_ns;
	}
	free(pt);
	return 0;
}

/* A policy's color: its place among the distinct policies of the sets, first seen first. */
static const char *color_of(const struct rp_run_set *rs, unsigned int s, unsigned int r)
{
	unsigned int k, i, j, n = 0, total = 0;
	const char **seen, *color = NULL;

	for (k = 0; k <= s; k++)
		total += rs[k].nr;
	seen = xcalloc(total + 1, sizeof(*seen));
	for (k = 0; k <= s && !color; k++)
		for (i = 0; i < rs[k].nr && !color; i++) {
			for (j = 0; j < n && strcmp(seen[j], rs[k].run[i].policy); j++)
				;
			if (k == s && i == r)
				color = report_policy_color(j);
			if (j == n)
				seen[n++] = rs[k].run[i].policy;
		}
	free(seen);
	return color;
}

int report_timeline(struct strbuf *sb, sqlite3 *const *db, const struct rp_run_set *rs,
		    const char *const *label, unsigned int nr, const char *prefix)
{
	struct tl_line *tl;
	struct svg_line *mem, *rate;
	size_t total = 0, k = 0, i;
	unsigned int s, r;
	char id[96];
	int ret = -1, missing = 0;

	for (s = 0; s < nr; s++)
		total += rs[s].nr;
	tl = xcalloc(total + 1, sizeof(*tl));
	mem = xcalloc(total + 1, sizeof(*mem));
	rate = xcalloc(total + 1, sizeof(*rate));
	strbuf_addstr(sb, "<h2>Memory and faults over time</h2>\n");
	for (s = 0; s < nr; s++)
		for (r = 0; r < rs[s].nr; r++) {
			struct tl_line *l = &tl[k];

			if (load_line(db[s], rs[s].run[r].run_id, l))
				goto out;
			if (!l->n) {
				missing++;
				free(l->x);
				free(l->rss);
				free(l->rate);
				memset(l, 0, sizeof(*l));
				continue;
			}
			snprintf(l->name, sizeof(l->name), "%s%s%s", rs[s].run[r].policy,
				 label ? " " : "", label ? label[s] : "");
			/* a policy keeps its color on both sides of a comparison */
			mem[k] = (struct svg_line){ l->name, color_of(rs, s, r), s > 0, l->x,
						    l->rss, l->n };
			rate[k] = mem[k];
			rate[k].y = l->rate;
			k++;
		}
	if (missing)
		strbuf_addf(sb, "<p class=\"note\">%d run%s stored before schema 8 ha%s no "
			    "series: replay %s again to draw %s.</p>\n", missing,
			    missing > 1 ? "s" : "", missing > 1 ? "ve" : "s",
			    missing > 1 ? "them" : "it", missing > 1 ? "them" : "it");
	if (k) {
		snprintf(id, sizeof(id), "%srss-time", prefix);
		svg_lines(sb, id, "Anonymous RSS against trace time (the most in each interval)",
			  mem, k, fmt_ms, fmt_b);
		snprintf(id, sizeof(id), "%sfault-rate", prefix);
		svg_lines(sb, id, "Fault rate against trace time (faults per second of trace "
			  "time)", rate, k, fmt_ms, fmt_rate);
		strbuf_addf(sb, "<p class=\"note\">From the simulator: each run's trace time "
			      "is cut into %d equal intervals; RSS is the most resident in each, "
			      "the rate its faults over its length. Hover for the values.</p>\n",
			    RP_SERIES_POINTS);
	}
	ret = 0;
out:
	for (i = 0; i < total; i++) {
		free(tl[i].x);
		free(tl[i].rss);
		free(tl[i].rate);
	}
	free(tl);
	free(mem);
	free(rate);
	return ret;
}
