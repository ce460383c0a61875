// SPDX-License-Identifier: GPL-2.0
/*
 * cmd-compare.c - foliotrace compare: the latest stored replay run of each policy, side by
 * side, normalised to a baseline policy like the tables of the mcpage and large-anon-folio
 * threads: faults, RSS, bloat, bytes zeroed, fallbacks. The columns and JSON fields are the
 * metric table's (replay/metrics.c, RP_SHOW_COLUMN and RP_SHOW_JSON), in its order.
 *
 * --by site: the same runs per allocation call site (replay_site, docs/sites.md): per site
 * and policy its faults (and their change against the site's own under the baseline),
 * bloat, zeroed bytes, and its share of the run's peak RSS.
 *
 * Exit status: 0; 1 if there is no run of the baseline (or no run at all), or for --by site
 * a trace without sites or runs without per-site metrics; 2 for a usage error, a bad
 * --baseline spec included.
 */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/commands.h"
#include "cli/compare-latency.h"
#include "cli/args.h"
#include "cli/run-args.h"
#include "cli/compare-real.h"
#include "db/ftdb.h"
#include "lib/error.h"
#include "replay/run.h"
#include "replay/site-runs.h"

static const char usage_text[] =
	"usage: foliotrace compare DB [--baseline P] [--frag MODEL] [--comm NAME] [--pid N]\n"
	"                          [--trace ID] [--format table|csv|json] [--sim-vs-real]\n"
	"                          [--by site]\n"
	"       foliotrace compare DB --latency [--format table|csv|json]\n"
	"\n"
	"    -b, --baseline P    policy the others are normalised to (default order0)\n"
	"    -F, --frag MODEL    runs made with this allocation model (default: that of the\n"
	"                        newest run)\n"
	"    -c, --comm NAME     runs made with --comm NAME\n"
	"    -p, --pid N         runs made with --pid N\n"
	"    -t, --trace ID      trace (default: the only or newest recorded one)\n"
	"    -f, --format FMT    table (default), csv or json\n"
	"    -S, --sim-vs-real   simulation against guest replays (docs/guest-replay.md)\n"
	"    -L, --latency       fault latency percentiles and allocation failures per policy,\n"
	"                        fragmentation and order, of every recording and guest replay\n"
	"                        (docs/latency.md)\n"
	"    -y, --by site       per allocation call site (traces recorded with --sites)\n"
	"    -h, --help          show this help\n";

static const struct option options[] = {
	{ "baseline", required_argument, NULL, 'b' },
	{ "frag", required_argument, NULL, 'F' },
	{ "comm", required_argument, NULL, 'c' },
	{ "pid", required_argument, NULL, 'p' },
	{ "trace", required_argument, NULL, 't' },
	{ "format", required_argument, NULL, 'f' },
	{ "sim-vs-real", no_argument, NULL, 'S' },
	{ "latency", no_argument, NULL, 'L' },
	{ "by", required_argument, NULL, 'y' },
	{ "help", no_argument, NULL, 'h' },
	{ NULL, 0, NULL, 0 }
};

static int usage_error(const char *msg)
{
	return cli_usage_error("compare", usage_text, msg);
}

/* Sum over the rows of group g that have flag, in run c. */
static uint64_t group_sum(const char *g, unsigned int flag, const struct rp_counters *c)
{
	const struct rp_metric_info *mt;
	uint64_t sum = 0;
	size_t j, n;

	mt = rp_metric_table(&n);
	for (j = 0; j < n; j++)
		if (mt[j].group && !strcmp(mt[j].group, g) && (mt[j].show & flag))
			sum += c->v[mt[j].id];
	return sum;
}

/* 1 if row j of the metric table starts its group (rows of a group are adjacent). */
static int group_start(const struct rp_metric_info *mt, size_t j, unsigned int flag)
{
	size_t k;

	for (k = j; k-- > 0;)
		if ((mt[k].show & flag) && mt[k].group && !strcmp(mt[k].group, mt[j].group))
			return 0;
	return 1;
}

static const char *column(const struct rp_metric_info *m)
{
	return m->column ? m->column : m->name;
}

/* 1 if m is not known for run c: a 0 that means "not computed" (RP_SHOW_ZERO_UNKNOWN). */
static int unknown(const struct rp_metric_info *m, const struct rp_counters *c)
{
	return (m->show & RP_SHOW_ZERO_UNKNOWN) && !c->v[m->id];
}

/* The metric table's RP_SHOW_JSON rows of one run, after its other fields. */
static void json_metrics(const struct rp_counters *c, const struct rp_counters *b)
{
	const struct rp_metric_info *mt, *open = NULL;
	size_t j, n;

	mt = rp_metric_table(&n);
	for (j = 0; j <= n; j++) {
		const struct rp_metric_info *m = j < n ? &mt[j] : NULL;

		if (m && !(m->show & RP_SHOW_JSON))
			continue;
		if (open && (!m || !m->group || strcmp(m->group, open->group))) {
			printf("}");
			if (open->show & RP_SHOW_TOTAL)
				printf(",\"%s_total\":%llu", open->group,
				       (unsigned long long)group_sum(open->group, RP_SHOW_TOTAL, c));
			open = NULL;
		}
		if (!m)
			break;
		if (m->group) {
			printf(open ? "," : ",\"%s\":{", m->group);
			printf("\"%s\":%llu", m->key, (unsigned long long)c->v[m->id]);
			open = m;
			continue;
		}
		if (unknown(m, c)) {
			printf(",\"%s\":null", m->name);
			if (m->show & RP_SHOW_VS_BASE)
				printf(",\"%s_vs_baseline\":null", column(m));
			continue;
		}
		printf(",\"%s\":%llu", m->name, (unsigned long long)c->v[m->id]);
		if (m->show & RP_SHOW_VS_BASE) {
			printf(",\"%s_vs_baseline\":", column(m));
			if (unknown(m, b))
				printf("null");
			else
				out_json_ratio(stdout, c->v[m->id], b->v[m->id]);
		}
	}
}

static void print_json(const struct rp_run_set *rs)
{
	const struct rp_counters *b = &rs->run[rs->base].c;
	unsigned int i;

	printf("[");
	for (i = 0; i < rs->nr; i++) {
		const struct rp_stored_run *run = &rs->run[i];

		printf("%s{\"policy\":", i ? "," : "");
		out_json_str(stdout, run->policy);
		printf(",\"baseline\":%s,\"run_id\":%lld,\"trace_id\":%lld,\"frag\":",
		       (int)i == rs->base ? "true" : "false", (long long)run->run_id,
		       (long long)rs->trace_id);
		out_json_str(stdout, run->frag);
		printf(",\"filter\":");
		out_json_str_or_null(stdout, run->filter);
		printf(",\"recorded_policy\":");
		out_json_str_or_null(stdout, rs->recorded_policy);
		json_metrics(&run->c, b);
		printf(",\"elapsed_ns\":%lld}", (long long)run->elapsed_ns);
	}
	printf("]\n");
}

static void cell_bytes(struct out_table *t, enum out_format f, uint64_t v)
{
	char buf[32];

	if (f != OUT_TABLE) {
		out_int(t, (int64_t)v);
		return;
	}
	fmt_bytes(buf, sizeof(buf), v);
	out_text(t, buf);
}

/* Change against the baseline: "-70.1%" in a table, -0.701 in CSV, null without a base. */
static void cell_delta(struct out_table *t, enum out_format f, uint64_t v, uint64_t base)
{
	char buf[32];

	if (f == OUT_TABLE) {
		fmt_delta(buf, sizeof(buf), v, base);
		out_text(t, buf);
	} else if (base) {
		out_real(t, (double)v / (double)base - 1.0);
	} else {
		out_null(t);
	}
}

/*
 * The metric table's RP_SHOW_COLUMN rows as columns: a metric's value (and its change
 * against the baseline), a group's sum. Called once with t's columns to add (c NULL), then
 * once per run.
 */
static void table_metrics(struct out_table *t, enum out_format f, const struct rp_counters *c,
			  const struct rp_counters *b)
{
	const struct rp_metric_info *mt;
	char name[80];
	size_t j, n;

	mt = rp_metric_table(&n);
	for (j = 0; j < n; j++) {
		const struct rp_metric_info *m = &mt[j];

		if (!(m->show & RP_SHOW_COLUMN))
			continue;
		if (m->group) {
			if (!group_start(mt, j, RP_SHOW_COLUMN))
				continue;
			if (c)
				out_int(t, (int64_t)group_sum(m->group, RP_SHOW_COLUMN, c));
			else
				out_add_col(t, m->group);
			continue;
		}
		if (!c)
			out_add_col(t, column(m));
		else if (unknown(m, c))
			out_null(t);
		else if (m->show & RP_SHOW_BYTES)
			cell_bytes(t, f, c->v[m->id]);
		else
			out_int(t, (int64_t)c->v[m->id]);
		if (!(m->show & RP_SHOW_VS_BASE))
			continue;
		snprintf(name, sizeof(name), "%s_vs_base", column(m));
		if (!c)
			out_add_col(t, name);
		else if (unknown(m, c) || unknown(m, b))
			out_null(t);
		else
			cell_delta(t, f, c->v[m->id], b->v[m->id]);
	}
}

static void print_table(const struct rp_run_set *rs, enum out_format f)
{
	const struct rp_counters *b = &rs->run[rs->base].c;
	struct out_table t;
	unsigned int i;

	if (f == OUT_TABLE)
		printf("trace %lld, frag=%s%s%s: latest run of each policy against %s\n\n",
		       (long long)rs->trace_id, rs->frag, *rs->filter ? ", " : "", rs->filter,
		       rs->run[rs->base].policy);
	out_init(&t, NULL, 0);
	out_add_col(&t, "policy");
	table_metrics(&t, f, NULL, b);
	for (i = 0; i < rs->nr; i++) {
		out_text(&t, rs->run[i].policy);
		table_metrics(&t, f, &rs->run[i].c, b);
	}
	/* fault_time without a cost model, say: nothing to read in every row */
	if (f == OUT_TABLE)
		out_drop_empty_cols(&t);
	out_print(&t, f, stdout);
	out_release(&t);
}

/*
 * --by site: one row per (site, run), sites by their baseline faults, runs baseline first.
 * peak_rss_share: the site's resident bytes when the run's RSS first reached its peak, over
 * that peak.
 */
static void print_sites(const struct rp_run_set *rs, const struct rp_site_runs *sr,
			enum out_format f)
{
	static const char *const cols[] = { "site", "module", "policy", "run_id", "faults",
					    "faults_vs_baseline", "bloat_bytes", "zeroed_bytes",
					    "rss_at_peak_bytes", "peak_rss_share" };
	struct out_table t;
	char buf[32];
	size_t i;
	unsigned int r;

	if (f == OUT_TABLE)
		printf("trace %lld, frag=%s%s%s: per call site, latest run of each policy against "
		       "%s\n\n", (long long)rs->trace_id, rs->frag, *rs->filter ? ", " : "",
		       rs->filter, rs->run[rs->base].policy);
	out_init(&t, cols, sizeof(cols) / sizeof(cols[0]));
	for (i = 0; i < sr->nr; i++) {
		const struct rp_site_counters *base = &sr->c[i * sr->nr_runs + rs->base];

		for (r = 0; r < rs->nr; r++) {
			const struct rp_site_counters *c = &sr->c[i * sr->nr_runs + r];
			double share = rp_site_share(c->at_peak, rs->run[r].c.v[RP_M_PEAK_RSS]);

			out_text(&t, sr->site[i]);
			out_text(&t, sr->module[i]);
			out_text(&t, rs->run[r].policy);
			out_int(&t, rs->run[r].run_id);
			out_int(&t, (int64_t)c->faults);
			cell_delta(&t, f, c->faults, base->faults);
			cell_bytes(&t, f, c->bloat);
			cell_bytes(&t, f, c->zeroed);
			cell_bytes(&t, f, c->at_peak);
			if (share < 0) {
				out_null(&t);
			} else if (f == OUT_TABLE) {
				snprintf(buf, sizeof(buf), "%.1f%%", 100.0 * share);
				out_text(&t, buf);
			} else {
				out_real(&t, share);
			}
		}
	}
	out_print(&t, f, stdout);
	out_release(&t);
}

int cmd_compare(int argc, char **argv)
{
	enum out_format format = OUT_TABLE;
	struct rp_run_query ro;
	struct rp_run_set rs;
	struct rp_site_runs sr;
	sqlite3 *db;
	int c, svr = 0, lat = 0, other = 0, by_site = 0;

	rp_run_query_init(&ro);
	optind = 1;
	while ((c = getopt_long(argc, argv, "b:F:c:p:t:f:SLy:h", options, NULL)) != -1) {
		switch (c) {
		case 'b':
		case 'F':
		case 'c':
		case 'p':
		case 't':
			other = 1;
			if (cli_runs_option(&ro, c, optarg, "compare", usage_text))
				return 2;
			break;
		case 'f':
			if (out_parse_format(optarg, &format))
				return usage_error("--format is table, csv or json");
			break;
		case 'S':
			svr = 1;
			break;
		case 'L':
			lat = 1;
			break;
		case 'y':
			if (strcmp(optarg, "site"))
				return usage_error("--by takes 'site'");
			by_site = 1;
			break;
		case 'h':
			fputs(usage_text, stdout);
			return 0;
		default:
			return usage_error(NULL);
		}
	}
	if (argc - optind != 1)
		return usage_error(argc - optind ? "too many arguments" : "expected DB");
	if (lat && (svr || other || by_site))
		return usage_error("--latency takes no option but --format");
	if (lat)
		return latency_table(argv[optind], format) ? 1 : 0;
	if (svr && by_site)
		return usage_error("--by site and --sim-vs-real do not go together");
	if (svr)
		return sim_vs_real(argv[optind], ro.want, ro.comm, ro.pid, format) ? 1 : 0;
	if (rp_run_set_open(argv[optind], &ro, &db, &rs))
		return 1;
	if (rs.base < 0) {
		ftdb_close(db);
		fail("no replay run of baseline '%s' for trace %lld (frag=%s%s%s): run "
		      "foliotrace replay DB --policy %s first", ro.base, (long long)rs.trace_id,
		      rs.frag, *rs.filter ? ", " : "", rs.filter, ro.base);
		rp_run_set_release(&rs);
		return 1;
	}
	if (by_site && rp_site_runs_load(db, rs.trace_id, rs.run, rs.nr, (unsigned int)rs.base,
					  &sr)) {
		ftdb_close(db);
		rp_run_set_release(&rs);
		return 1;
	}
	ftdb_close(db);
	if (!rp_policy_records_all(rs.recorded_policy))
		fprintf(stderr, "foliotrace: warning: trace %lld was recorded under %s, not order0: "
			"it misses first touches\n", (long long)rs.trace_id,
			*rs.recorded_policy ? rs.recorded_policy : "an unknown policy");
	if (by_site) {
		print_sites(&rs, &sr, format);
		rp_site_runs_release(&sr);
	} else if (format == OUT_JSON) {
		print_json(&rs);
	} else {
		print_table(&rs, format);
	}
	rp_run_set_release(&rs);
	return 0;
}
