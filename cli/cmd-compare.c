// SPDX-License-Identifier: GPL-2.0
/*
 * cmd-compare.c - foliotrace compare: the latest stored replay run of each policy, side by
 * side, normalised to a baseline policy like the tables of the mcpage and large-anon-folio
 * threads: faults, RSS, bloat, bytes zeroed, fallbacks.
 *
 * Exit status: 0; 1 if there is no run of the baseline (or no run at all); 2 for a usage
 * error, a bad --baseline spec included.
 */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/commands.h"
#include "cli/output.h"
#include "cli/runs.h"
#include "cli/sim-vs-real.h"
#include "db/ftdb.h"
#include "lib/error.h"
#include "replay/run.h"

static const char usage_text[] =
	"usage: foliotrace compare DB [--baseline P] [--frag MODEL] [--comm NAME] [--pid N]\n"
	"                          [--trace ID] [--format table|csv|json] [--sim-vs-real]\n"
	"\n"
	"    -b, --baseline P    policy the others are normalised to (default order0)\n"
	"    -F, --frag MODEL    runs made with this allocation model (default: that of the\n"
	"                        newest run)\n"
	"    -c, --comm NAME     runs made with --comm NAME\n"
	"    -p, --pid N         runs made with --pid N\n"
	"    -t, --trace ID      trace (default: the only or newest recorded one)\n"
	"    -f, --format FMT    table (default), csv or json\n"
	"    -S, --sim-vs-real   simulation against guest replays (docs/guest-replay.md)\n"
	"    -h, --help          show this help\n";

static const struct option options[] = {
	{ "baseline", required_argument, NULL, 'b' },
	{ "frag", required_argument, NULL, 'F' },
	{ "comm", required_argument, NULL, 'c' },
	{ "pid", required_argument, NULL, 'p' },
	{ "trace", required_argument, NULL, 't' },
	{ "format", required_argument, NULL, 'f' },
	{ "sim-vs-real", no_argument, NULL, 'S' },
	{ "help", no_argument, NULL, 'h' },
	{ NULL, 0, NULL, 0 }
};

static int usage_error(const char *msg)
{
	return cli_usage_error("compare", usage_text, msg);
}

static void print_json(const struct run_set *rs)
{
	const struct rp_counters *b = &rs->run[rs->base].c;
	unsigned int i, r, k;

	printf("[");
	for (i = 0; i < rs->nr; i++) {
		const struct rp_stored_run *run = &rs->run[i];
		const struct rp_counters *c = &run->c;

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
		printf(",\"faults\":%llu,\"faults_vs_baseline\":",
		       (unsigned long long)c->v[RP_M_FAULTS]);
		out_json_ratio(stdout, c->v[RP_M_FAULTS], b->v[RP_M_FAULTS]);
		printf(",\"peak_rss_bytes\":%llu,\"peak_rss_vs_baseline\":",
		       (unsigned long long)c->v[RP_M_PEAK_RSS]);
		out_json_ratio(stdout, c->v[RP_M_PEAK_RSS], b->v[RP_M_PEAK_RSS]);
		printf(",\"final_rss_bytes\":%llu,\"bloat_bytes\":%llu,\"zeroed_bytes\":%llu,"
		       "\"zeroed_vs_baseline\":",
		       (unsigned long long)c->v[RP_M_FINAL_RSS],
		       (unsigned long long)c->v[RP_M_BLOAT], (unsigned long long)c->v[RP_M_ZEROED]);
		out_json_ratio(stdout, c->v[RP_M_ZEROED], b->v[RP_M_ZEROED]);
		printf(",\"fallbacks\":{");
		for (r = 1; r < FT_FB_NR; r++)
			printf("%s\"%s\":%llu", r > 1 ? "," : "", ft_fallback_name(r),
			       (unsigned long long)c->v[RP_M_FB_0 + r]);
		printf("},\"fallbacks_total\":%llu,\"alloc_by_order\":{",
		       (unsigned long long)runs_fallbacks(c));
		for (k = 0; k <= RP_PMD_ORDER; k++)
			printf("%s\"%u\":%llu", k ? "," : "", k,
			       (unsigned long long)c->v[RP_M_ALLOC_0 + k]);
		printf("},\"zero_wp_faults\":%llu,\"cow_faults\":%llu,\"pte_writes\":%llu,"
		       "\"contpte_runs\":%llu,\"contpte_runs_final\":%llu,\"pmd_maps\":%llu,"
		       "\"elapsed_ns\":%lld}",
		       (unsigned long long)c->v[RP_M_ZERO_WP], (unsigned long long)c->v[RP_M_COW],
		       (unsigned long long)c->v[RP_M_PTE_WRITES],
		       (unsigned long long)c->v[RP_M_CONTPTE_RUNS],
		       (unsigned long long)c->v[RP_M_CONTPTE_FINAL],
		       (unsigned long long)c->v[RP_M_PMD_MAPS], (long long)run->elapsed_ns);
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

static void print_table(const struct run_set *rs, enum out_format f)
{
	static const char *const cols[] = {
		"policy", "faults", "faults_vs_base", "peak_rss", "peak_rss_vs_base", "final_rss",
		"bloat", "zeroed", "zeroed_vs_base", "fallbacks", "pte_writes", "contpte_runs",
		"pmd_maps"
	};
	const struct rp_counters *b = &rs->run[rs->base].c;
	struct out_table t;
	unsigned int i;

	if (f == OUT_TABLE)
		printf("trace %lld, frag=%s%s%s: latest run of each policy against %s\n\n",
		       (long long)rs->trace_id, rs->frag, *rs->filter ? ", " : "", rs->filter,
		       rs->run[rs->base].policy);
	out_init(&t, cols, sizeof(cols) / sizeof(cols[0]));
	for (i = 0; i < rs->nr; i++) {
		const struct rp_counters *c = &rs->run[i].c;

		out_text(&t, rs->run[i].policy);
		out_int(&t, (int64_t)c->v[RP_M_FAULTS]);
		cell_delta(&t, f, c->v[RP_M_FAULTS], b->v[RP_M_FAULTS]);
		cell_bytes(&t, f, c->v[RP_M_PEAK_RSS]);
		cell_delta(&t, f, c->v[RP_M_PEAK_RSS], b->v[RP_M_PEAK_RSS]);
		cell_bytes(&t, f, c->v[RP_M_FINAL_RSS]);
		cell_bytes(&t, f, c->v[RP_M_BLOAT]);
		cell_bytes(&t, f, c->v[RP_M_ZEROED]);
		cell_delta(&t, f, c->v[RP_M_ZEROED], b->v[RP_M_ZEROED]);
		out_int(&t, (int64_t)runs_fallbacks(c));
		out_int(&t, (int64_t)c->v[RP_M_PTE_WRITES]);
		out_int(&t, (int64_t)c->v[RP_M_CONTPTE_RUNS]);
		out_int(&t, (int64_t)c->v[RP_M_PMD_MAPS]);
	}
	out_print(&t, f, stdout);
	out_release(&t);
}

int cmd_compare(int argc, char **argv)
{
	enum out_format format = OUT_TABLE;
	struct runs_opts ro;
	struct run_set rs;
	sqlite3 *db;
	int c, svr = 0;

	runs_opts_init(&ro);
	optind = 1;
	while ((c = getopt_long(argc, argv, "b:F:c:p:t:f:Sh", options, NULL)) != -1) {
		switch (c) {
		case 'b':
		case 'F':
		case 'c':
		case 'p':
		case 't':
			if (runs_option(&ro, c, optarg, "compare", usage_text))
				return 2;
			break;
		case 'f':
			if (out_parse_format(optarg, &format))
				return usage_error("--format is table, csv or json");
			break;
		case 'S':
			svr = 1;
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
	if (svr)
		return sim_vs_real(argv[optind], ro.want, ro.comm, ro.pid, format) ? 1 : 0;
	if (runs_open(argv[optind], &ro, &db, &rs))
		return 1;
	ftdb_close(db);
	if (rs.base < 0) {
		error("no replay run of baseline '%s' for trace %lld (frag=%s%s%s): run "
		      "foliotrace replay DB --policy %s first", ro.base.spec, (long long)rs.trace_id,
		      rs.frag, *rs.filter ? ", " : "", rs.filter, ro.base.spec);
		runs_release(&rs);
		return 1;
	}
	if (!rp_policy_records_all(rs.recorded_policy))
		fprintf(stderr, "foliotrace: warning: trace %lld was recorded under %s, not order0: "
			"it misses first touches\n", (long long)rs.trace_id,
			*rs.recorded_policy ? rs.recorded_policy : "an unknown policy");
	if (format == OUT_JSON)
		print_json(&rs);
	else
		print_table(&rs, format);
	runs_release(&rs);
	return 0;
}
