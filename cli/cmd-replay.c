// SPDX-License-Identifier: GPL-2.0
/*
 * cmd-replay.c - foliotrace replay: replay a trace's recorded anonymous faults against
 * order policies offline, all policies in one pass over the stream, store the runs
 * (replay_run, replay_metric) and print their metrics.
 *
 * Exit status: 0, 1 (a failure: unreadable database, no such trace, no process matching
 * the filter, no buddyinfo for --frag buddyinfo), 2 (a usage error, bad policy spec or
 * unknown frag model included: the command line is wrong, one line on stderr).
 */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/commands.h"
#include "cli/args.h"
#include "cli/run-args.h"
#include "db/ftdb.h"
#include "db/traces.h"
#include "lib/error.h"
#include "lib/strbuf.h"
#include "cli/progress.h"
#include "replay/run.h"

/* The usage text around the policy list, which comes from the policy table (usage()). */
static const char usage_head[] =
	"usage: foliotrace replay DB --policy P [--policy P ...] [--frag none|buddyinfo]\n"
	"                         [--cost-model trace|native [--model-from DB]] [--comm NAME]\n"
	"                         [--pid N] [--trace ID] [--format table|csv|json]\n"
	"   or: foliotrace replay --list-policies\n"
	"\n"
	"    -P, --policy P      policy to replay (repeatable; order0 is always replayed too, as\n"
	"                        the baseline), one of:";
static const char usage_tail[] =
	"    -F, --frag MODEL    allocation failure model: none (default) or buddyinfo (a buddy\n"
	"                        allocator seeded from the recorded /proc/buddyinfo)\n"
	"    -m, --cost-model M  fault_time_ns from: trace (default: the model of the trace's own\n"
	"                        arch, kernel, accelerator, clock) or native (this arch's host\n"
	"                        model, `calibrate --host`: the host kernel's system time)\n"
	"    -M, --model-from DB with --cost-model native: the model of DB, not of the one\n"
	"                        replayed\n"
	"    -c, --comm NAME     only processes with this command name\n"
	"    -p, --pid N         only processes with this tgid\n"
	"    -t, --trace ID      trace to replay (default: the only or newest recorded one)\n"
	"    -f, --format FMT    table (default), csv or json\n"
	"    -n, --dry-run       do not store the runs\n"
	"    -q, --quiet         no progress line on a terminal\n"
	"        --check-oracle  also run the naive reference simulator; fail unless it\n"
	"                        agrees on every metric (slow: for tests)\n"
	"        --list-policies print the policy spec templates, one per line, and exit\n"
	"                        (for shell completion)\n"
	"    -h, --help          show this help\n";

#define USAGE_INDENT	24	/* column of the option descriptions */
#define USAGE_WIDTH	92	/* wrap the policy list before this column */

/* The usage text, with the policy templates of the table wrapped under --policy. */
static const char *usage(void)
{
	static struct strbuf sb = STRBUF_INIT;
	const char *const *t;
	size_t col = USAGE_WIDTH;

	if (sb.len)
		return sb.buf;
	strbuf_addstr(&sb, usage_head);
	for (t = rp_policy_templates(); *t; t++) {
		size_t w = strlen(*t) + (t[1] ? 1 : 0);	/* the template and its comma */

		if (col + 1 + w > USAGE_WIDTH) {
			strbuf_addf(&sb, "\n%*s", USAGE_INDENT, "");
			col = USAGE_INDENT;
		} else {
			strbuf_addch(&sb, ' ');
			col++;
		}
		strbuf_addf(&sb, "%s%s", *t, t[1] ? "," : "");
		col += w;
	}
	strbuf_addch(&sb, '\n');
	strbuf_addstr(&sb, usage_tail);
	return sb.buf;
}

enum { OPT_CHECK_ORACLE = 256, OPT_LIST_POLICIES };

static const struct option options[] = {
	{ "policy", required_argument, NULL, 'P' },
	{ "frag", required_argument, NULL, 'F' },
	{ "cost-model", required_argument, NULL, 'm' },
	{ "model-from", required_argument, NULL, 'M' },
	{ "comm", required_argument, NULL, 'c' },
	{ "pid", required_argument, NULL, 'p' },
	{ "trace", required_argument, NULL, 't' },
	{ "format", required_argument, NULL, 'f' },
	{ "dry-run", no_argument, NULL, 'n' },
	{ "quiet", no_argument, NULL, 'q' },
	{ "check-oracle", no_argument, NULL, OPT_CHECK_ORACLE },
	{ "list-policies", no_argument, NULL, OPT_LIST_POLICIES },
	{ "help", no_argument, NULL, 'h' },
	{ NULL, 0, NULL, 0 }
};

static int usage_error(const char *msg)
{
	return cli_usage_error("replay", usage(), msg);
}

/* A bad value on the command line: the one-line cause, no usage dump. */
static int bad_value(void)
{
	error_print("foliotrace");
	return 2;
}

/* Rows worth printing: those shown always, the others when some policy has them. */
static int show_metric(unsigned int m, const struct rp_run_result *res, unsigned int n)
{
	unsigned int i;

	if (!rp_metric_public(m))
		return 0;
	if (rp_metric_info(m)->show & RP_SHOW_ALWAYS)
		return 1;
	for (i = 0; i < n; i++)
		if (res[i].total.v[m])
			return 1;
	return 0;
}

static void print_json(const struct rp_trace_info *info, const struct rp_run_result *res,
		       unsigned int n, enum rp_frag_kind frag, const char *warn)
{
	unsigned int i, m;

	printf("{\"trace_id\":%lld,\"recorded_policy\":", (long long)info->trace_id);
	out_json_str_or_null(stdout, info->policy);
	printf(",\"frag\":\"%s\",\"filter\":", rp_frag_name(frag));
	out_json_str_or_null(stdout, info->filter);
	printf(",\"events\":%llu,\"processes\":%llu,\"wall_ns\":%llu,\"warnings\":[",
	       (unsigned long long)info->events, (unsigned long long)info->procs,
	       (unsigned long long)info->wall_ns);
	if (warn)
		out_json_str(stdout, warn);
	printf("],\"runs\":[");
	for (i = 0; i < n; i++) {
		printf("%s{\"run_id\":", i ? "," : "");
		if (res[i].run_id)
			printf("%lld", (long long)res[i].run_id);
		else
			printf("null");
		printf(",\"policy\":");
		out_json_str(stdout, res[i].pol.spec);
		printf(",\"elapsed_ns\":%llu,\"faults_vs_order0\":",
		       (unsigned long long)res[i].elapsed_ns);
		out_json_ratio(stdout, res[i].total.v[RP_M_FAULTS], res[0].total.v[RP_M_FAULTS]);
		printf(",\"metrics\":{");
		for (m = 0; m < RP_NR_METRICS; m++) {
			if (!rp_metric_public(m))
				continue;
			printf("%s\"%s\":%llu", m ? "," : "", rp_metric_name(m),
			       (unsigned long long)res[i].total.v[m]);
		}
		printf("}}");
	}
	printf("]}\n");
}

static void print_table(const struct rp_trace_info *info, const struct rp_run_result *res,
			unsigned int n, enum out_format f, const char *warn)
{
	struct out_table t;
	unsigned int i, m;
	char buf[64];

	if (warn)
		printf("%s%s\n", f == OUT_CSV ? "# " : "", warn);
	if (f == OUT_TABLE)
		printf("trace %lld (%s, recorded under %s): %llu events, %llu processes%s%s\n\n",
		       (long long)info->trace_id, *info->arch ? info->arch : "arch unknown",
		       *info->policy ? info->policy : "an unknown policy",
		       (unsigned long long)info->events, (unsigned long long)info->procs,
		       *info->filter ? ", " : "", info->filter);
	out_init(&t, NULL, 0);
	out_add_col(&t, "metric");
	for (i = 0; i < n; i++)
		out_add_col(&t, res[i].pol.spec);
	out_text(&t, "run_id");
	for (i = 0; i < n; i++)
		res[i].run_id ? out_int(&t, res[i].run_id) : out_null(&t);
	for (m = 0; m < RP_NR_METRICS; m++) {
		if (!show_metric(m, res, n))
			continue;
		out_text(&t, rp_metric_name(m));
		for (i = 0; i < n; i++) {
			if (f == OUT_TABLE && rp_metric_is_bytes(m)) {
				fmt_bytes(buf, sizeof(buf), res[i].total.v[m]);
				out_text(&t, buf);
			} else {
				out_int(&t, (int64_t)res[i].total.v[m]);
			}
		}
		if (m == RP_M_FAULTS) {
			out_text(&t, "faults_vs_order0");
			for (i = 0; i < n; i++) {
				fmt_delta(buf, sizeof(buf), res[i].total.v[RP_M_FAULTS],
					  res[0].total.v[RP_M_FAULTS]);
				out_text(&t, buf);
			}
		}
	}
	out_text(&t, "elapsed_ns");
	for (i = 0; i < n; i++)
		out_int(&t, (int64_t)res[i].elapsed_ns);
	out_print(&t, f, stdout);
	out_release(&t);
}

static void on_progress(uint64_t done, uint64_t total, void *arg)
{
	cli_progress_update(arg, done, total);
}

int cmd_replay(int argc, char **argv)
{
	struct rp_policy pol[RP_MAX_POLICIES];
	struct rp_run_result res[RP_MAX_POLICIES];
	struct rp_run_opts o = { .pol = pol, .pid = -1, .store = 1 };
	struct rp_trace_info info;
	enum out_format format = OUT_TABLE;
	int64_t want = 0, trace_id;
	char warn[256];
	const char *model_from = NULL;
	struct cli_progress pr;
	int c, given = 0, quiet = 0, rc;
	unsigned int i;
	sqlite3 *db;

	/* order0 first: the baseline every other run is measured against */
	rp_policy_parse("order0", &pol[0]);
	o.nr_pol = 1;
	optind = 1;
	while ((c = getopt_long(argc, argv, "P:F:m:M:c:p:t:f:nqh", options, NULL)) != -1) {
		switch (c) {
		case 'P':
			if (rp_policy_parse(optarg, &pol[o.nr_pol]))
				return bad_value();
			given++;
			/* order0 is pol[0] already; any policy given twice runs once */
			for (i = 0; i < o.nr_pol; i++)
				if (!strcmp(pol[i].spec, pol[o.nr_pol].spec))
					break;
			if (i < o.nr_pol)
				break;
			if (o.nr_pol + 1 >= RP_MAX_POLICIES)
				return usage_error("too many policies");
			o.nr_pol++;
			break;
		case 'F':
			if (rp_frag_parse(optarg, &o.frag))
				return bad_value();
			break;
		case 'm':
			if (!strcmp(optarg, "native"))
				o.cost_native = 1;
			else if (strcmp(optarg, "trace"))
				return usage_error("--cost-model is trace or native");
			break;
		case 'M':
			model_from = optarg;
			break;
		case 'c':
			o.comm = optarg;
			break;
		case 'p':
			if (cli_parse_num("replay", "--pid", optarg, &o.pid))
				return usage_error(NULL);
			break;
		case 't':
			if (cli_parse_num("replay", "--trace", optarg, &want))
				return usage_error(NULL);
			break;
		case 'f':
			if (out_parse_format(optarg, &format))
				return usage_error("--format is table, csv or json");
			break;
		case 'n':
			o.store = 0;
			break;
		case 'q':
			quiet = 1;
			break;
		case OPT_CHECK_ORACLE:
			o.check_oracle = 1;
			break;
		case OPT_LIST_POLICIES: {
			const char *const *t;

			for (t = rp_policy_templates(); *t; t++)
				printf("%s\n", *t);
			return 0;
		}
		case 'h':
			fputs(usage(), stdout);
			return 0;
		default:
			return usage_error(NULL);
		}
	}
	if (argc - optind != 1)
		return usage_error(argc - optind ? "too many arguments" : "expected DB");
	if (!given)
		return usage_error("expected at least one --policy");
	if (model_from && !o.cost_native)
		return usage_error("--model-from goes with --cost-model native");

	if (model_from && ftdb_open(model_from, FTDB_READONLY, &o.cost_db))
		return 1;
	if (ftdb_open(argv[optind], o.store ? FTDB_WRITE : FTDB_READONLY, &db)) {
		ftdb_close(o.cost_db);
		return 1;
	}
	if (ftdb_pick_trace(db, want, &trace_id)) {
		ftdb_close(db);
		ftdb_close(o.cost_db);
		return 1;
	}
	cli_progress_start(&pr, "replay", "events", quiet);
	o.progress = on_progress;
	o.progress_arg = &pr;
	rc = rp_replay_db(db, trace_id, &o, res, &info);
	cli_progress_end(&pr);
	ftdb_close(o.cost_db);
	ftdb_close(db);
	if (rc)
		return 1;
	warn[0] = '\0';
	if (!rp_policy_records_all(info.policy)) {
		snprintf(warn, sizeof(warn), "warning: trace %lld was recorded under %s, not "
			 "order0: it misses first touches, so the replay undercounts faults",
			 (long long)trace_id, *info.policy ? info.policy : "an unknown policy");
		fprintf(stderr, "foliotrace: %s\n", warn);
	}
	if (format == OUT_JSON)
		print_json(&info, res, o.nr_pol, o.frag, *warn ? warn : NULL);
	else
		print_table(&info, res, o.nr_pol, format, *warn ? warn : NULL);
	return 0;
}
