// SPDX-License-Identifier: GPL-2.0
/*
 * report.c - the page of `foliotrace report`: one self-contained HTML page (inline CSS and SVG, a
 * one-line script, no network) with the latest replay run of each policy: faults and memory
 * per policy, memory and fault rate over time (timeline.c), where the faults land
 * (heatmap.c), the order mix, fallbacks by reason, the recorded fault latency per mapped
 * order, and every metric in a table. A trace recorded with --sites also gets its top
 * allocation call sites by faults, per policy (replay_site, docs/sites.md).
 *
 * Without --trace and with several recordings, the page covers them all: the workloads x
 * policies tables first, then a section per trace.
 * See report.h.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "db/ftdb.h"
#include "db/traces.h"
#include "lib/error.h"
#include "lib/fmt.h"
#include "lib/strbuf.h"
#include "lib/xalloc.h"
#include "replay/latency.h"
#include "replay/runs.h"
#include "replay/policy.h"
#include "replay/run.h"
#include "replay/site-runs.h"
#include "report/report.h"
#include "report/report-int.h"
#include "report/heatmap.h"
#include "report/svg.h"
#include "report/timeline.h"

/* Colors per order 0..9 (light to dark: bigger blocks are darker) and per fallback reason. */
static const char *const order_color[] = { "#d9e6f2", "#b3cde6", "#8cb3d9", "#6699cc",
					   "#4080bf", "#336699", "#264d73", "#1a334d",
					   "#0d1a26", "#e6550d" };
static const char *const fb_color[] = { "#999", "#d62728", "#ff7f0e", "#9467bd", "#8c564b",
					"#e377c2", "#7f7f7f", "#17becf" };

static const char style[] =
	"body{font:14px/1.4 system-ui,sans-serif;margin:24px;color:#222;max-width:1000px}"
	"h1{font-size:20px}h2{font-size:16px;margin-top:28px;border-bottom:1px solid #ddd}"
	".meta td{padding:1px 12px 1px 0}.warn{background:#fff3cd;padding:6px 10px}"
	"table.m{border-collapse:collapse;font-size:12px}table.m td,table.m th{padding:2px 8px;"
	"border-bottom:1px solid #eee;text-align:right}table.m td:first-child,table.m "
	"th:first-child{text-align:left}.chart text{font:11px system-ui,sans-serif}"
	".chart .ct{font-weight:bold;font-size:12px}.note{color:#666;font-size:12px}";

/*
 * Element ids of the charts: "faults" on a one-trace page, "t3-faults" for trace 3 on a
 * page of several traces, so ids stay unique.
 */
static char id_prefix[32];

static const char *chart_id(const char *name)
{
	static char buf[64];

	snprintf(buf, sizeof(buf), "%s%s", id_prefix, name);
	return buf;
}

static void fmt_b(char *buf, size_t len, double v)
{
	fmt_bytes(buf, len, (uint64_t)v);
}

static void fmt_n(char *buf, size_t len, double v)
{
	snprintf(buf, len, "%.0f", v);
}

static void fmt_ns(char *buf, size_t len, double v)
{
	if (v >= 1e6)
		snprintf(buf, len, "%.2f ms", v / 1e6);
	else if (v >= 1e3)
		snprintf(buf, len, "%.1f us", v / 1e3);
	else
		snprintf(buf, len, "%.0f ns", v);
}

static void meta_row(struct strbuf *sb, const char *k, const char *v)
{
	strbuf_addf(sb, "<tr><td>%s</td><td>", k);
	html_esc(sb, v && *v ? v : "unknown");
	strbuf_addstr(sb, "</td></tr>\n");
}

static int trace_header(sqlite3 *db, int64_t trace_id, struct strbuf *sb)
{
	struct ftdb_trace t;
	char buf[64], events[24];

	if (ftdb_trace_get(db, trace_id, &t))
		return -1;
	strbuf_addstr(sb, "<table class=\"meta\">\n");
	snprintf(buf, sizeof(buf), "%lld", (long long)trace_id);
	meta_row(sb, "trace", buf);
	meta_row(sb, "arch", t.arch);
	meta_row(sb, "kernel", t.kernel);
	meta_row(sb, "recorded under policy", t.policy);
	meta_row(sb, "workload", t.workload);
	snprintf(events, sizeof(events), "%lld", (long long)t.events);
	meta_row(sb, "events", events);
	if (t.mem_bytes)
		fmt_bytes(buf, sizeof(buf), (uint64_t)t.mem_bytes);
	meta_row(sb, "guest memory", t.mem_bytes ? buf : NULL);
	meta_row(sb, "uuid", t.uuid);
	ftdb_trace_release(&t);
	return 0;
}

static void section_faults(struct strbuf *sb, const struct rp_run_set *rs, const char **rows)
{
	double *v = xcalloc(rs->nr, sizeof(*v));
	char **note = xcalloc(rs->nr, sizeof(*note));
	const struct rp_counters *b = &rs->run[rs->base].c;
	struct svg_series s = { "faults (first touch + zero_wp)", "#4080bf", v };
	unsigned int i;
	char buf[64];

	for (i = 0; i < rs->nr; i++) {
		v[i] = (double)rs->run[i].c.v[RP_M_FAULTS];
		fmt_delta(buf, sizeof(buf), rs->run[i].c.v[RP_M_FAULTS], b->v[RP_M_FAULTS]);
		note[i] = xstrdup(buf);
	}
	strbuf_addstr(sb, "<h2>Faults per policy</h2>\n");
	svg_hbars(sb, chart_id("faults"), "Page faults, and change against the baseline", rows,
		  (const char *const *)note, rs->nr, &s, 1, fmt_n);
	for (i = 0; i < rs->nr; i++)
		free(note[i]);
	free(note);
	free(v);
}

/* The byte metrics the metric table charts (RP_SHOW_CHART), in its order, one series each. */
static void section_memory(struct strbuf *sb, const struct rp_run_set *rs, const char **rows)
{
	static const char *const colors[] = { "#4080bf", "#8cb3d9", "#d62728", "#ff7f0e",
					      "#2ca02c", "#9467bd", "#8c564b", "#e377c2" };
	const struct rp_metric_info *mt;
	struct svg_series s[RP_NR_METRICS];
	double *v = xcalloc(RP_NR_METRICS * rs->nr, sizeof(*v));
	unsigned int i, k = 0;
	size_t j, n;

	mt = rp_metric_table(&n);
	for (j = 0; j < n; j++) {
		if (mt[j].group || (mt[j].show & (RP_SHOW_CHART | RP_SHOW_BYTES)) !=
				   (RP_SHOW_CHART | RP_SHOW_BYTES))
			continue;
		s[k].name = mt[j].label ? mt[j].label : mt[j].name;
		s[k].color = colors[k % (sizeof(colors) / sizeof(colors[0]))];
		s[k].v = v + k * rs->nr;
		for (i = 0; i < rs->nr; i++)
			v[k * rs->nr + i] = (double)rs->run[i].c.v[mt[j].id];
		k++;
	}
	strbuf_addstr(sb, "<h2>Memory per policy</h2>\n");
	svg_hbars(sb, chart_id("memory"), "Anonymous memory: RSS, bloat and bytes zeroed", rows, NULL,
		  rs->nr, s, k, fmt_b);
	free(v);
}

static void section_orders(struct strbuf *sb, const struct rp_run_set *rs, const char **rows)
{
	struct svg_series s[RP_PMD_ORDER + 1];
	char names[RP_PMD_ORDER + 1][32];
	double *v = xcalloc((RP_PMD_ORDER + 1) * rs->nr, sizeof(*v));
	unsigned int i, k;

	for (k = 0; k <= RP_PMD_ORDER; k++) {
		if (k == RP_PMD_ORDER)
			snprintf(names[k], sizeof(names[k]), "2M PMD");
		else
			rp_format_size(k, names[k], sizeof(names[k]));
		s[k].name = names[k];
		s[k].color = order_color[k];
		s[k].v = v + k * rs->nr;
		for (i = 0; i < rs->nr; i++)
			v[k * rs->nr + i] = (double)(rs->run[i].c.v[RP_M_ALLOC_0 + k] << k) *
					    RP_PAGE_SIZE;
	}
	strbuf_addstr(sb, "<h2>Order histogram</h2>\n");
	svg_stacked(sb, chart_id("orders"), "Bytes allocated by faults, by block size", rows, rs->nr, s,
		    RP_PMD_ORDER + 1, fmt_b);
	strbuf_addstr(sb, "<table class=\"m\"><tr><th>allocations</th>");
	for (k = 0; k <= RP_PMD_ORDER; k++)
		strbuf_addf(sb, "<th>%s</th>", names[k]);
	strbuf_addstr(sb, "</tr>\n");
	for (i = 0; i < rs->nr; i++) {
		strbuf_addstr(sb, "<tr><td>");
		html_esc(sb, rows[i]);
		strbuf_addstr(sb, "</td>");
		for (k = 0; k <= RP_PMD_ORDER; k++)
			strbuf_addf(sb, "<td>%llu</td>",
				    (unsigned long long)rs->run[i].c.v[RP_M_ALLOC_0 + k]);
		strbuf_addstr(sb, "</tr>\n");
	}
	strbuf_addstr(sb, "</table>\n");
	free(v);
}

static void section_fallbacks(struct strbuf *sb, const struct rp_run_set *rs, const char **rows)
{
	struct svg_series s[FTDB_FB_NR - 1];
	double *v = xcalloc(FTDB_FB_NR * rs->nr, sizeof(*v));
	unsigned int i, r;

	for (r = 1; r < FTDB_FB_NR; r++) {
		s[r - 1].name = ftdb_fallback_name(r);
		s[r - 1].color = fb_color[r];
		s[r - 1].v = v + r * rs->nr;
		for (i = 0; i < rs->nr; i++)
			v[r * rs->nr + i] = (double)rs->run[i].c.v[RP_M_FB_0 + r];
	}
	strbuf_addstr(sb, "<h2>Fallbacks by reason</h2>\n");
	svg_stacked(sb, chart_id("fallbacks"), "Faults that mapped less than the policy asked for, by "
		    "reason", rows, rs->nr, s, FTDB_FB_NR - 1, fmt_n);
	free(v);
}

static int section_latency(struct strbuf *sb, sqlite3 *db, int64_t trace_id, int64_t pid)
{
	struct rp_latency_row *r;
	size_t rows, i, known = 0;
	const char **labels;
	double *v;
	struct svg_series s[3] = { { "p50", "#8cb3d9", NULL }, { "p90", "#4080bf", NULL },
				   { "p99", "#1a334d", NULL } };

	strbuf_addstr(sb, "<h2>Fault latency per mapped order (recorded)</h2>\n");
	if (rp_latency_rows(db, trace_id, pid, &r, &rows))
		return -1;
	labels = xcalloc(rows + 1, sizeof(*labels));
	v = xcalloc(3 * (rows + 1), sizeof(*v));
	for (i = 0; i < rows; i++) {
		char buf[48];

		if (r[i].max_ns <= 0)
			continue;
		snprintf(buf, sizeof(buf), "order %u%s", r[i].order,
			 r[i].zero_page ? " zero page" : "");
		labels[known] = xstrdup(buf);
		v[known] = (double)r[i].p50_ns;
		v[(rows + 1) + known] = (double)r[i].p90_ns;
		v[2 * (rows + 1) + known] = (double)r[i].p99_ns;
		known++;
	}
	if (!known) {
		strbuf_addstr(sb, "<p class=\"note\">The trace records no fault latency.</p>\n");
	} else {
		s[0].v = v;
		s[1].v = v + rows + 1;
		s[2].v = v + 2 * (rows + 1);
		svg_hbars(sb, chart_id("latency"), "Recorded anon_fault latency_ns by what the recorded "
			  "kernel mapped", labels, NULL, known, s, 3, fmt_ns);
		strbuf_addstr(sb, "<table class=\"m\"><tr><th>order</th><th>zero page</th>"
			      "<th>faults</th><th>p50 ns</th><th>p90 ns</th><th>p99 ns</th>"
			      "<th>max ns</th><th>mean ns</th></tr>\n");
		for (i = 0; i < rows; i++)
			strbuf_addf(sb, "<tr><td>%u</td><td>%d</td><td>%lld</td><td>%lld</td>"
				    "<td>%lld</td><td>%lld</td><td>%lld</td><td>%lld</td></tr>\n",
				    r[i].order, r[i].zero_page, (long long)r[i].faults,
				    (long long)r[i].p50_ns, (long long)r[i].p90_ns,
				    (long long)r[i].p99_ns, (long long)r[i].max_ns,
				    (long long)r[i].mean_ns);
		strbuf_addstr(sb, "</table>\n<p class=\"note\">Latency is what the recording "
			      "kernel measured (policy in the header); the simulator does not "
			      "invent latencies for other policies.</p>\n");
	}
	for (i = 0; i < known; i++)
		free((void *)labels[i]);
	free(labels);
	free(v);
	free(r);
	return 0;
}

static void section_metrics(struct strbuf *sb, const struct rp_run_set *rs)
{
	unsigned int i, m;

	strbuf_addf(sb, "<h2>All metrics</h2>\n<table class=\"m\" id=\"%smetrics\"><tr>"
		    "<th>metric</th>", id_prefix);
	for (i = 0; i < rs->nr; i++) {
		strbuf_addstr(sb, "<th>");
		html_esc(sb, rs->run[i].policy);
		strbuf_addstr(sb, "</th>");
	}
	strbuf_addstr(sb, "</tr>\n");
	for (m = 0; m < RP_NR_METRICS; m++) {
		if (!rp_metric_public(m))
			continue;
		strbuf_addf(sb, "<tr><td>%s</td>", rp_metric_name(m));
		for (i = 0; i < rs->nr; i++)
			strbuf_addf(sb, "<td>%llu</td>", (unsigned long long)rs->run[i].c.v[m]);
		strbuf_addstr(sb, "</tr>\n");
	}
	strbuf_addstr(sb, "</table>\n<p class=\"note\">Names and units: docs/metrics.md. "
		      "Query them with <code>foliotrace query DB sql \"SELECT ... FROM "
		      "replay_metric\"</code>.</p>\n");
}

#define REPORT_SITES 10	/* sites the per-site table shows */

/*
 * Per allocation call site (a trace recorded with --sites; nothing for others): the top
 * sites by faults under the baseline, per policy their faults with the change against the
 * site's own baseline faults, bloat and share of the peak RSS. Runs without per-site
 * metrics get a note saying how to make them, not a failure.
 * Return: 0, or -1 with fail() (the database cannot be read).
 */
static int section_sites(struct strbuf *sb, sqlite3 *db, const struct rp_run_set *rs)
{
	struct rp_site_runs sr;
	uint64_t rest = 0;
	unsigned int r;
	size_t i;
	char buf[32];
	int has = rp_site_runs_has_sites(db, rs->trace_id);

	if (has <= 0)
		return has;
	strbuf_addstr(sb, "<h2>Allocation call sites</h2>\n");
	if (rp_site_runs_load(db, rs->trace_id, rs->run, rs->nr,
			      rs->base >= 0 ? (unsigned int)rs->base : 0, &sr)) {
		strbuf_addf(sb, "<p class=\"warn\" id=\"%ssites\">No per-site metrics: ",
			    id_prefix);
		html_esc(sb, error_cause(0) ? error_cause(0) : "unknown");
		strbuf_addstr(sb, ".</p>\n");
		error_clear();
		return 0;
	}
	strbuf_addf(sb, "<table class=\"m\" id=\"%ssites\"><tr><th>site</th>", id_prefix);
	for (r = 0; r < rs->nr; r++) {
		strbuf_addstr(sb, "<th>faults ");
		html_esc(sb, rs->run[r].policy);
		strbuf_addstr(sb, "</th><th>bloat</th><th>peak RSS share</th>");
	}
	strbuf_addstr(sb, "</tr>\n");
	for (i = 0; i < sr.nr; i++) {
		const struct rp_site_counters *base = &sr.c[i * sr.nr_runs + rs->base];

		if (i >= REPORT_SITES) {
			rest += base->faults;
			continue;
		}
		strbuf_addstr(sb, "<tr><td title=\"");
		html_esc(sb, sr.module[i] ? sr.module[i] : "");
		strbuf_addstr(sb, "\">");
		html_esc(sb, sr.site[i]);
		strbuf_addstr(sb, "</td>");
		for (r = 0; r < rs->nr; r++) {
			const struct rp_site_counters *c = &sr.c[i * sr.nr_runs + r];
			double share = rp_site_share(c->at_peak, rs->run[r].c.v[RP_M_PEAK_RSS]);

			strbuf_addf(sb, "<td>%llu", (unsigned long long)c->faults);
			if ((int)r != rs->base) {
				fmt_delta(buf, sizeof(buf), c->faults, base->faults);
				strbuf_addf(sb, " (%s)", buf);
			}
			fmt_bytes(buf, sizeof(buf), c->bloat);
			strbuf_addf(sb, "</td><td>%s</td>", buf);
			if (share < 0)
				strbuf_addstr(sb, "<td>-</td>");
			else
				strbuf_addf(sb, "<td>%.1f%%</td>", 100.0 * share);
		}
		strbuf_addstr(sb, "</tr>\n");
	}
	strbuf_addstr(sb, "</table>\n<p class=\"note\">");
	if (sr.nr > REPORT_SITES)
		strbuf_addf(sb, "%zu more sites with %llu faults under the baseline. ",
			    sr.nr - REPORT_SITES, (unsigned long long)rest);
	strbuf_addstr(sb, "Sites by their faults under the baseline; the change is against the "
		      "site's own. Bloat: never-touched bytes of the blocks its faults allocated; "
		      "peak RSS share: its resident bytes when the run's RSS first reached its "
		      "peak, over that peak (docs/sites.md). All sites: <code>foliotrace compare "
		      "DB --by site</code>.</p>\n");
	rp_site_runs_release(&sr);
	return 0;
}

/* One trace's part of the page: its header, then every section, from its runs rs. */
static int build_trace(sqlite3 *db, const struct rp_run_set *rs, const struct rp_run_query *q,
		       struct strbuf *sb)
{
	const char **rows = xcalloc(rs->nr, sizeof(*rows));
	unsigned int i;
	int ret = -1;

	for (i = 0; i < rs->nr; i++)
		rows[i] = rs->run[i].policy;
	if (trace_header(db, rs->trace_id, sb))
		goto out;
	strbuf_addf(sb, "<tr><td>replay</td><td>simulator, frag=%s%s", rs->frag,
		    *rs->filter ? ", " : "");
	html_esc(sb, rs->filter);
	strbuf_addstr(sb, ", baseline ");
	html_esc(sb, rs->run[rs->base].policy);
	strbuf_addstr(sb, "</td></tr>\n</table>\n");
	if (!rp_policy_records_all(rs->recorded_policy)) {
		strbuf_addstr(sb, "<p class=\"warn\" id=\"");
		strbuf_addf(sb, "%swarning\">Warning: this trace was recorded under ", id_prefix);
		html_esc(sb, *rs->recorded_policy ? rs->recorded_policy : "an unknown policy");
		strbuf_addstr(sb, ", not order0: it misses first touches, so every policy's "
			      "faults are undercounted.</p>\n");
	}
	section_faults(sb, rs, rows);
	section_memory(sb, rs, rows);
	if (report_timeline(sb, &db, rs, NULL, 1, id_prefix) ||
	    report_heatmaps(sb, db, rs->trace_id, q->pid, q->comm, id_prefix))
		goto out;
	section_orders(sb, rs, rows);
	section_fallbacks(sb, rs, rows);
	if (section_latency(sb, db, rs->trace_id, q->pid))
		goto out;
	if (section_sites(sb, db, rs))
		goto out;
	section_metrics(sb, rs);
	ret = 0;
out:
	free(rows);
	return ret;
}

void report_page_start(struct strbuf *sb, const char *what)
{
	strbuf_addf(sb, "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
		    "<title>foliotrace report: %s</title><style>%s</style></head>"
		    "<body>\n<h1>foliotrace report: %s</h1>\n", what, style, what);
}

void report_page_end(struct strbuf *sb)
{
	strbuf_addf(sb, "<p class=\"note\">Generated by foliotrace %s.</p>\n<script>"
		    "document.documentElement.dataset.ready = "
		    "String(document.querySelectorAll('svg.chart').length);</script>\n"
		    "</body></html>\n", FT_VERSION);
}

/* trace.workload of trace_id ("" if unknown) into buf. */
static void trace_workload(sqlite3 *db, int64_t trace_id, char *buf, size_t len)
{
	struct ftdb_trace t;

	snprintf(buf, len, "%s", "");
	if (ftdb_trace_get(db, trace_id, &t)) {
		error_clear();
		return;
	}
	snprintf(buf, len, "%s", t.workload);
	ftdb_trace_release(&t);
}

int report_run_index(const struct rp_run_set *rs, const char *policy)
{
	unsigned int i;

	for (i = 0; i < rs->nr; i++)
		if (!strcmp(rs->run[i].policy, policy))
			return (int)i;
	return -1;
}

/*
 * The workloads x policies table, one per metric as the seeds lay theirs out: a row per
 * trace, a column per policy (every policy any trace was replayed under, in first-seen
 * order), each cell the value and its change against the trace's baseline. The exact
 * value and ratio are in data-v and data-r (empty without a baseline value) for scripts.
 */
static void summary_table(struct strbuf *sb, sqlite3 *db, const struct rp_run_set *rs, size_t n,
			  enum rp_metric m, const char *title)
{
	const char **pol = NULL;
	size_t np = 0, cap = 0, t, k;
	unsigned int i;
	char buf[64], d[32], wl[256];

	for (t = 0; t < n; t++)
		for (i = 0; i < rs[t].nr; i++) {
			for (k = 0; k < np; k++)
				if (!strcmp(pol[k], rs[t].run[i].policy))
					break;
			if (k == np) {
				XGROW(pol, cap, np + 1);
				pol[np++] = rs[t].run[i].policy;
			}
		}
	strbuf_addf(sb, "<h3>%s</h3>\n<table class=\"m\" id=\"summary-%s\"><tr>"
		    "<th>trace</th><th>workload</th>", title, rp_metric_name(m));
	for (k = 0; k < np; k++) {
		strbuf_addstr(sb, "<th>");
		html_esc(sb, pol[k]);
		strbuf_addstr(sb, "</th>");
	}
	strbuf_addstr(sb, "</tr>\n");
	for (t = 0; t < n; t++) {
		const struct rp_run_set *r = &rs[t];

		trace_workload(db, r->trace_id, wl, sizeof(wl));
		strbuf_addf(sb, "<tr data-trace=\"%lld\"><td><a href=\"#trace-%lld\">%lld</a>"
			    "</td><td>", (long long)r->trace_id, (long long)r->trace_id,
			    (long long)r->trace_id);
		html_esc(sb, *wl ? wl : "unknown");
		strbuf_addstr(sb, "</td>");
		for (k = 0; k < np; k++) {
			int x = report_run_index(r, pol[k]);
			uint64_t v, b;

			if (x < 0 || r->base < 0) {
				strbuf_addstr(sb, "<td>-</td>");
				continue;
			}
			v = r->run[x].c.v[m];
			b = r->run[r->base].c.v[m];
			if (rp_metric_info(m)->show & RP_SHOW_BYTES)
				fmt_bytes(buf, sizeof(buf), v);
			else
				snprintf(buf, sizeof(buf), "%llu", (unsigned long long)v);
			fmt_delta(d, sizeof(d), v, b);
			strbuf_addf(sb, "<td data-policy=\"");
			html_esc(sb, pol[k]);
			strbuf_addf(sb, "\" data-v=\"%llu\" data-r=\"", (unsigned long long)v);
			if (b)
				strbuf_addf(sb, "%.17g", (double)v / (double)b - 1.0);
			strbuf_addf(sb, "\">%s (%s)</td>", buf, d);
		}
		strbuf_addstr(sb, "</tr>\n");
	}
	strbuf_addstr(sb, "</table>\n");
	free(pol);
}

/*
 * Every recording of db on one page: the workloads x policies tables, then each trace's
 * section. A trace without runs of the baseline gets a one-line note, not a section.
 */
static int build_all(sqlite3 *db, const struct rp_run_query *ro, const int64_t *ids, size_t n,
		     struct strbuf *sb, unsigned int *shown)
{
	struct rp_run_set *rs = xcalloc(n, sizeof(*rs));
	size_t t, with = 0;
	char what[64];
	int ret = -1;

	*shown = 0;
	for (t = 0; t < n; t++) {
		if (rp_run_set_read(db, ids[t], ro, &rs[t]))
			goto out;
		with += rs[t].base >= 0;
	}
	if (!with) {
		fail("no replay run of baseline '%s' for any of the %zu traces: run foliotrace "
		      "replay DB --trace ID --policy ... first", ro->base, n);
		goto out;
	}
	snprintf(what, sizeof(what), "%zu traces", n);
	report_page_start(sb, what);
	strbuf_addf(sb, "<h2>Workloads x policies</h2>\n<p class=\"note\">Latest simulator "
		    "run of each policy per trace; in brackets the change against the trace's "
		    "baseline (%s).</p>\n", ro->base);
	summary_table(sb, db, rs, n, RP_M_FAULTS, "Faults");
	summary_table(sb, db, rs, n, RP_M_PEAK_RSS, "Peak RSS");
	summary_table(sb, db, rs, n, RP_M_BLOAT, "Bloat (never touched)");
	for (t = 0; t < n; t++) {
		char wl[256];

		trace_workload(db, ids[t], wl, sizeof(wl));
		strbuf_addf(sb, "<h1 id=\"trace-%lld\">Trace %lld: ", (long long)ids[t],
			    (long long)ids[t]);
		html_esc(sb, *wl ? wl : "unknown workload");
		strbuf_addstr(sb, "</h1>\n");
		if (rs[t].base < 0) {
			strbuf_addf(sb, "<p class=\"note\">No replay run of baseline '%s' for this "
				    "trace (frag=%s%s", ro->base, rs[t].frag,
				    *rs[t].filter ? ", " : "");
			html_esc(sb, rs[t].filter);
			strbuf_addstr(sb, ").</p>\n");
			continue;
		}
		snprintf(id_prefix, sizeof(id_prefix), "t%lld-", (long long)ids[t]);
		if (build_trace(db, &rs[t], ro, sb))
			goto out;
		(*shown)++;
	}
	report_page_end(sb);
	ret = 0;
out:
	id_prefix[0] = '\0';
	for (t = 0; t < n; t++)
		rp_run_set_release(&rs[t]);
	free(rs);
	return ret;
}

int report_build(sqlite3 *db, const struct rp_run_query *q, struct strbuf *sb,
		 struct report_info *info)
{
	struct rp_run_set rs;
	int64_t *ids;
	size_t nids;
	char what[64];
	int ret = -1;

	memset(info, 0, sizeof(*info));
	if (q->want <= 0) {	/* no --trace: every recording, if there are several */
		if (ftdb_recordings(db, 0, &ids, &nids))	/* guest replays are not workloads */
			return -1;
		if (nids > 1) {
			info->traces = nids;
			ret = build_all(db, q, ids, nids, sb, &info->shown);
			free(ids);
			return ret;
		}
		free(ids);
	}
	if (ftdb_pick_trace(db, q->want, &info->trace_id) ||
	    rp_run_set_read(db, info->trace_id, q, &rs))
		return -1;
	if (rs.base < 0) {
		fail("no replay run of baseline '%s' for trace %lld (frag=%s%s%s): run "
		      "foliotrace replay DB --policy ... first", q->base,
		      (long long)rs.trace_id, rs.frag, *rs.filter ? ", " : "", rs.filter);
		goto out;
	}
	snprintf(what, sizeof(what), "trace %lld", (long long)rs.trace_id);
	report_page_start(sb, what);
	if (build_trace(db, &rs, q, sb))
		goto out;
	report_page_end(sb);
	info->policies = rs.nr;
	ret = 0;
out:
	rp_run_set_release(&rs);
	return ret;
}
