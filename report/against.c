// SPDX-License-Identifier: GPL-2.0
/*
 * against.c - one trace's runs against another's; see against.h. A policy is matched by
 * its canonical spec; one run on one side only is shown with "-" on the other.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "db/traces.h"
#include "lib/error.h"
#include "lib/fmt.h"
#include "lib/xalloc.h"
#include "report/against.h"
#include "report/report-int.h"
#include "report/svg.h"
#include "report/timeline.h"

static const char *const side[2] = { "A", "B" };

static void header_row(struct strbuf *sb, const char *k, const char *a, const char *b)
{
	strbuf_addf(sb, "<tr><th>%s</th><td>", k);
	html_esc(sb, a && *a ? a : "unknown");
	strbuf_addstr(sb, "</td><td>");
	html_esc(sb, b && *b ? b : "unknown");
	strbuf_addstr(sb, "</td></tr>\n");
}

static int headers(struct strbuf *sb, sqlite3 *const *db, const struct rp_run_set *rs,
		   const char *const *names)
{
	struct ftdb_trace t[2];
	char id[2][32], ev[2][32];
	int k;

	for (k = 0; k < 2; k++) {
		if (ftdb_trace_get(db[k], rs[k].trace_id, &t[k])) {
			if (k)
				ftdb_trace_release(&t[0]);
			return -1;
		}
		snprintf(id[k], sizeof(id[k]), "%lld", (long long)rs[k].trace_id);
		snprintf(ev[k], sizeof(ev[k]), "%lld", (long long)t[k].events);
	}
	strbuf_addstr(sb, "<table class=\"m\" id=\"against-header\"><tr><th></th><th>A</th>"
		      "<th>B</th></tr>\n");
	header_row(sb, "database", names[0], names[1]);
	header_row(sb, "trace", id[0], id[1]);
	header_row(sb, "workload", t[0].workload, t[1].workload);
	header_row(sb, "kernel", t[0].kernel, t[1].kernel);
	header_row(sb, "arch", t[0].arch, t[1].arch);
	header_row(sb, "recorded under policy", t[0].policy, t[1].policy);
	header_row(sb, "events", ev[0], ev[1]);
	header_row(sb, "runs read (frag)", rs[0].frag, rs[1].frag);
	strbuf_addstr(sb, "</table>\n");
	for (k = 0; k < 2; k++)
		ftdb_trace_release(&t[k]);
	return 0;
}

static void fmt_b(char *buf, size_t len, double v)
{
	fmt_bytes(buf, len, (uint64_t)v);
}

static void fmt_n(char *buf, size_t len, double v)
{
	snprintf(buf, len, "%.0f", v);
}

struct cmp {
	const char **pol;		/* every policy of A, then B's others */
	int (*at)[2];			/* by policy: its run index per side, -1 none */
	size_t n;
};

static void metric_cells(struct strbuf *sb, const struct rp_run_set *rs, const int *at,
			 enum rp_metric m, const char *pol)
{
	uint64_t v[2] = { 0, 0 };
	char buf[32];
	int k;

	for (k = 0; k < 2; k++) {
		if (at[k] < 0) {
			strbuf_addstr(sb, "<td>-</td>");
			continue;
		}
		v[k] = rs[k].run[at[k]].c.v[m];
		if (rp_metric_info(m)->show & RP_SHOW_BYTES)
			fmt_bytes(buf, sizeof(buf), v[k]);
		else
			snprintf(buf, sizeof(buf), "%llu", (unsigned long long)v[k]);
		strbuf_addf(sb, "<td data-side=\"%s\" data-metric=\"%s\" data-policy=\"", side[k],
			    rp_metric_name(m));
		html_esc(sb, pol);
		strbuf_addf(sb, "\" data-v=\"%llu\">%s</td>", (unsigned long long)v[k], buf);
	}
	if (at[0] < 0 || at[1] < 0) {
		strbuf_addstr(sb, "<td>-</td>");
		return;
	}
	fmt_delta(buf, sizeof(buf), v[1], v[0]);
	strbuf_addf(sb, "<td>%s</td>", buf);
}

static void table(struct strbuf *sb, const struct rp_run_set *rs, const struct cmp *c)
{
	static const enum rp_metric ms[] = { RP_M_FAULTS, RP_M_PEAK_RSS, RP_M_BLOAT };
	size_t i, j;

	strbuf_addstr(sb, "<h2>Per policy, A against B</h2>\n<table class=\"m\" "
		      "id=\"against\"><tr><th>policy</th>");
	for (j = 0; j < sizeof(ms) / sizeof(ms[0]); j++)
		strbuf_addf(sb, "<th>%s A</th><th>B</th><th>B vs A</th>", rp_metric_name(ms[j]));
	strbuf_addstr(sb, "</tr>\n");
	for (i = 0; i < c->n; i++) {
		strbuf_addstr(sb, "<tr><td>");
		html_esc(sb, c->pol[i]);
		strbuf_addstr(sb, "</td>");
		for (j = 0; j < sizeof(ms) / sizeof(ms[0]); j++)
			metric_cells(sb, rs, c->at[i], ms[j], c->pol[i]);
		strbuf_addstr(sb, "</tr>\n");
	}
	strbuf_addstr(sb, "</table>\n<p class=\"note\">Latest simulator run of each policy on "
		      "each side; a policy run on one side only shows - on the other.</p>\n");
}

/* Grouped bars of metric m: a group per policy, a bar per side. */
static void bars(struct strbuf *sb, const struct rp_run_set *rs, const struct cmp *c,
		 enum rp_metric m, const char *id, const char *title, svg_fmt fmt)
{
	double *v = xcalloc(2 * c->n + 1, sizeof(*v));
	struct svg_series s[2] = { { "A", "#4080bf", v }, { "B", "#ff7f0e", v + c->n } };
	size_t i;
	int k;

	for (i = 0; i < c->n; i++)
		for (k = 0; k < 2; k++)
			if (c->at[i][k] >= 0)
				v[k * c->n + i] = (double)rs[k].run[c->at[i][k]].c.v[m];
	svg_hbars(sb, id, title, c->pol, NULL, c->n, s, 2, fmt);
	free(v);
}

int report_against(sqlite3 *da, const struct rp_run_query *qa, sqlite3 *db_b,
		   const struct rp_run_query *qb, const char *const *names, struct strbuf *sb,
		   struct report_info *info)
{
	sqlite3 *db[2] = { da, db_b };
	const struct rp_run_query *q[2] = { qa, qb };
	const char *labels[2] = { "(A)", "(B)" };
	struct rp_run_set rs[2];
	struct cmp c = { 0 };
	unsigned int i;
	char what[96];
	int k, loaded = 0, ret = -1;

	memset(info, 0, sizeof(*info));
	memset(rs, 0, sizeof(rs));
	for (k = 0; k < 2; k++) {
		int64_t id;

		if (ftdb_pick_trace(db[k], q[k]->want, &id) ||
		    rp_run_set_read(db[k], id, q[k], &rs[k])) {
			fail("side %s (%s)", side[k], names[k]);
			goto out;
		}
		loaded = k + 1;
		if (rs[k].base < 0) {
			fail("side %s (%s): no replay run of baseline '%s' for trace %lld: run "
			     "foliotrace replay DB --trace %lld --policy ... first", side[k],
			     names[k], q[k]->base, (long long)id, (long long)id);
			goto out;
		}
	}
	if (da == db_b && rs[0].trace_id == rs[1].trace_id) {
		fail("trace %lld against itself: give another trace (--against ID) or database",
		     (long long)rs[0].trace_id);
		goto out;
	}
	c.pol = xcalloc(rs[0].nr + rs[1].nr + 1, sizeof(*c.pol));
	c.at = xcalloc(rs[0].nr + rs[1].nr + 1, sizeof(*c.at));
	for (k = 0; k < 2; k++)
		for (i = 0; i < rs[k].nr; i++) {
			const char *p = rs[k].run[i].policy;

			if (k && report_run_index(&rs[0], p) >= 0)
				continue;
			c.pol[c.n] = p;
			c.at[c.n][0] = report_run_index(&rs[0], p);
			c.at[c.n][1] = report_run_index(&rs[1], p);
			if (c.at[c.n][0] >= 0 && c.at[c.n][1] >= 0)
				info->policies++;
			c.n++;
		}
	snprintf(what, sizeof(what), "trace %lld (A) against trace %lld (B)",
		 (long long)rs[0].trace_id, (long long)rs[1].trace_id);
	report_page_start(sb, what);
	if (headers(sb, db, rs, names))
		goto out;
	table(sb, rs, &c);
	strbuf_addstr(sb, "<h2>Faults, peak RSS and bloat per policy</h2>\n");
	bars(sb, rs, &c, RP_M_FAULTS, "against-faults", "Page faults, A and B", fmt_n);
	bars(sb, rs, &c, RP_M_PEAK_RSS, "against-peak", "Peak anonymous RSS, A and B", fmt_b);
	bars(sb, rs, &c, RP_M_BLOAT, "against-bloat", "Bloat (never touched), A and B", fmt_b);
	strbuf_addstr(sb, "<p class=\"note\">A policy one side did not run has no bar on that "
		      "side (drawn as 0).</p>\n");
	if (report_timeline(sb, db, rs, labels, 2, "against-"))
		goto out;
	strbuf_addstr(sb, "<p class=\"note\">Each side's time starts at its own first event; "
		      "B's lines are dashed, a policy has one color on both sides. The "
		      "one-trace pages (<code>foliotrace report DB --trace ID</code>) have the "
		      "rest.</p>\n");
	report_page_end(sb);
	info->trace_id = rs[0].trace_id;
	info->against_id = rs[1].trace_id;
	ret = 0;
out:
	for (k = 0; k < loaded; k++)
		rp_run_set_release(&rs[k]);
	free(c.pol);
	free(c.at);
	return ret;
}
