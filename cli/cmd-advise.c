// SPDX-License-Identifier: GPL-2.0
/*
 * cmd-advise.c - foliotrace advise: per allocation call site, the mcpage order whose bloat
 * stays within a budget (replay/advise.h), written as a persite:FILE, and the whole
 * program with that advice against order0 and the best single global mcpage:N.
 */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/commands.h"
#include "cli/args.h"
#include "db/ftdb.h"
#include "db/traces.h"
#include "lib/error.h"
#include "lib/outfile.h"
#include "replay/advise.h"

static const char usage_text[] =
	"usage: foliotrace advise DB --bloat-budget PCT [-o FILE] [--trace ID]\n"
	"                         [--format table|csv|json]\n"
	"\n"
	"Per allocation call site of a trace recorded with --sites, the mcpage order (0..%u)\n"
	"with the fewest faults whose bloat stays within PCT%% of the site's touched bytes;\n"
	"then the whole program with that advice (policy persite:FILE) against order0 and the\n"
	"best single mcpage:N whose bloat stays within PCT%% of all touched bytes.\n"
	"\n"
	"    -b, --bloat-budget PCT  bloat budget, percent of touched bytes (0..1000)\n"
	"    -o, --output FILE       write the advice as a persite policy file\n"
	"    -t, --trace ID          trace (default: the only or newest recorded one)\n"
	"    -f, --format FMT        table (default), csv or json\n"
	"    -h, --help              show this help\n";

static const struct option options[] = {
	{ "bloat-budget", required_argument, NULL, 'b' },
	{ "output", required_argument, NULL, 'o' },
	{ "trace", required_argument, NULL, 't' },
	{ "format", required_argument, NULL, 'f' },
	{ "help", no_argument, NULL, 'h' },
	{ NULL, 0, NULL, 0 }
};

static const char *usage(void)
{
	static char buf[sizeof(usage_text) + 16];

	snprintf(buf, sizeof(buf), usage_text, RP_MAX_FOLIO_ORDER);
	return buf;
}

static int usage_error(const char *msg)
{
	return cli_usage_error("advise", usage(), msg);
}

static void add_run(struct out_table *t, const char *what, const struct rp_run_result *r)
{
	out_text(t, what);
	out_text(t, r->pol.spec);
	out_int(t, (int64_t)r->total.v[RP_M_FAULTS]);
	out_int(t, (int64_t)r->total.v[RP_M_PEAK_RSS]);
	out_int(t, (int64_t)r->total.v[RP_M_BLOAT]);
}

static void print_json(const struct rp_advice *a, double pct)
{
	const struct rp_run_result *r[3] = { &a->persite, &a->global, &a->order0 };
	const char *what[3] = { "advice", "global", "baseline" };
	size_t i;

	printf("{\"bloat_budget_pct\":%g,\"touched_bytes\":%llu,\"sites\":[", pct,
	       (unsigned long long)a->touched_bytes);
	for (i = 0; i < a->nr_sites; i++) {
		const struct rp_advice_site *s = &a->sites[i];

		printf("%s{\"site\":", i ? "," : "");
		out_json_str(stdout, s->site);
		printf(",\"touched_bytes\":%llu,\"order\":%u,\"faults\":%llu,\"bloat_bytes\":%llu}",
		       (unsigned long long)s->touched_bytes, s->order,
		       (unsigned long long)s->advised.faults,
		       (unsigned long long)s->advised.bloat);
	}
	printf("],\"program\":[");
	for (i = 0; i < 3; i++) {
		printf("%s{\"run\":\"%s\",\"policy\":", i ? "," : "", what[i]);
		out_json_str(stdout, r[i]->pol.spec);
		printf(",\"faults\":%llu,\"peak_rss_bytes\":%llu,\"bloat_bytes\":%llu}",
		       (unsigned long long)r[i]->total.v[RP_M_FAULTS],
		       (unsigned long long)r[i]->total.v[RP_M_PEAK_RSS],
		       (unsigned long long)r[i]->total.v[RP_M_BLOAT]);
	}
	printf("]}\n");
}

static void print_tables(const struct rp_advice *a, enum out_format f)
{
	static const char *const scols[] = { "site", "touched_bytes", "order", "faults",
					     "bloat_bytes" };
	static const char *const pcols[] = { "run", "policy", "faults", "peak_rss_bytes",
					     "bloat_bytes" };
	struct out_table t;
	size_t i;

	out_init(&t, scols, 5);
	for (i = 0; i < a->nr_sites; i++) {
		const struct rp_advice_site *s = &a->sites[i];

		out_text(&t, s->site);
		out_int(&t, (int64_t)s->touched_bytes);
		out_int(&t, s->order);
		out_int(&t, (int64_t)s->advised.faults);
		out_int(&t, (int64_t)s->advised.bloat);
	}
	out_print(&t, f, stdout);
	out_release(&t);
	printf("\n");
	out_init(&t, pcols, 5);
	add_run(&t, "advice", &a->persite);
	add_run(&t, "global", &a->global);
	add_run(&t, "baseline", &a->order0);
	out_print(&t, f, stdout);
	out_release(&t);
}

int cmd_advise(int argc, char **argv)
{
	enum out_format format = OUT_TABLE;
	const char *out = NULL;
	struct rp_advice a;
	int64_t want = 0, trace_id;
	double pct = -1;
	struct strbuf file = STRBUF_INIT;
	char *end;
	sqlite3 *db;
	int c, rc;

	optind = 1;
	while ((c = getopt_long(argc, argv, "b:o:t:f:h", options, NULL)) != -1) {
		switch (c) {
		case 'b':
			pct = strtod(optarg, &end);
			if (end == optarg || *end || !(pct >= 0 && pct <= 1000))
				return usage_error("--bloat-budget wants a percentage 0..1000");
			break;
		case 'o':
			out = optarg;
			break;
		case 't':
			if (cli_parse_num("advise", "--trace", optarg, &want))
				return usage_error(NULL);
			break;
		case 'f':
			if (out_parse_format(optarg, &format))
				return usage_error("--format is table, csv or json");
			break;
		case 'h':
			fputs(usage(), stdout);
			return 0;
		default:
			return usage_error(NULL);
		}
	}
	if (argc - optind != 1)
		return usage_error(argc - optind ? "too many arguments" : "expected DB");
	if (pct < 0)
		return usage_error("expected --bloat-budget PCT");
	outfile_input(argv[optind]);
	if (out && outfile_check(out, "advice file") < 0)
		return 1;
	if (ftdb_open(argv[optind], FTDB_READONLY, &db))
		return 1;
	if (ftdb_pick_trace(db, want, &trace_id)) {
		ftdb_close(db);
		return 1;
	}
	rc = rp_advise(db, trace_id, pct, &a);
	ftdb_close(db);
	if (rc)
		return 1;
	if (out) {
		rc = rp_advice_file(&a, &file) ||
		     write_file_atomic(out, file.buf, file.len, "advice file");
		strbuf_release(&file);
		if (rc) {
			rp_advice_release(&a);
			return 1;
		}
	}
	if (format == OUT_JSON)
		print_json(&a, pct);
	else
		print_tables(&a, format);
	rp_advice_release(&a);
	return 0;
}
