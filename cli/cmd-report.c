// SPDX-License-Identifier: GPL-2.0
/*
 * cmd-report.c - foliotrace report (the page: report/report.h): one self-contained HTML page (inline CSS and SVG, a
 * one-line script, no network) with the latest replay run of each policy: faults and memory
 * per policy, memory and fault rate over time, where the faults land, the order mix, fallbacks by reason, the recorded fault latency per mapped
 * order, and every metric in a table. A trace recorded with --sites also gets its top
 * allocation call sites by faults, per policy (replay_site, docs/sites.md).
 *
 * Without --trace and with several recordings, the page covers them all: the workloads x
 * policies tables first, then a section per trace. With a second database B.db or
 * --against ID, the page is a comparison of two traces (report/against.h).
 *
 * Exit status: 0; 1 (no replay run of the baseline, several selections and none given,
 * cannot write the file); 2 usage error.
 */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/commands.h"
#include "cli/args.h"
#include "cli/run-args.h"
#include "db/ftdb.h"
#include "lib/error.h"
#include "lib/outfile.h"
#include "lib/strbuf.h"
#include "report/against.h"
#include "report/report.h"

static const char usage_text[] =
	"usage: foliotrace report DB [B.db] -o FILE.html [--against ID] [--baseline P]\n"
	"                         [--frag MODEL] [--comm NAME] [--pid N] [--trace ID]\n"
	"\n"
	"    -o, --output FILE   HTML file to write (self-contained: open it anywhere)\n"
	"    -b, --baseline P    policy the others are compared to (default order0)\n"
	"    -F, --frag MODEL    runs made with this allocation model (default: newest run's)\n"
	"    -c, --comm NAME     runs made with --comm NAME\n"
	"    -p, --pid N         runs made with --pid N (also restricts the latency chart)\n"
	"    -t, --trace ID      only this trace (default: every recording)\n"
	"    -a, --against ID    compare with trace ID (of B.db if given, else of DB)\n"
	"    -h, --help          show this help\n";

static const struct option options[] = {
	{ "output", required_argument, NULL, 'o' },
	{ "baseline", required_argument, NULL, 'b' },
	{ "frag", required_argument, NULL, 'F' },
	{ "comm", required_argument, NULL, 'c' },
	{ "pid", required_argument, NULL, 'p' },
	{ "trace", required_argument, NULL, 't' },
	{ "against", required_argument, NULL, 'a' },
	{ "help", no_argument, NULL, 'h' },
	{ NULL, 0, NULL, 0 }
};

static int usage_error(const char *msg)
{
	return cli_usage_error("report", usage_text, msg);
}

int cmd_report(int argc, char **argv)
{
	const char *out = NULL;
	struct strbuf sb = STRBUF_INIT;
	struct report_info info;
	struct rp_run_query ro, rb;
	sqlite3 *db, *dbb = NULL;
	int64_t against = 0;
	int c, nargs, ret = 1;

	rp_run_query_init(&ro);
	optind = 1;
	while ((c = getopt_long(argc, argv, "o:b:F:c:p:t:a:h", options, NULL)) != -1) {
		switch (c) {
		case 'o':
			out = optarg;
			break;
		case 'b':
		case 'F':
		case 'c':
		case 'p':
		case 't':
			if (cli_runs_option(&ro, c, optarg, "report", usage_text))
				return 2;
			break;
		case 'a':
			if (cli_parse_num("report", "--against", optarg, &against))
				return usage_error(NULL);
			break;
		case 'h':
			fputs(usage_text, stdout);
			return 0;
		default:
			return usage_error(NULL);
		}
	}
	nargs = argc - optind;
	if (nargs < 1 || nargs > 2)
		return usage_error(nargs ? "too many arguments" : "expected DB");
	if (!out)
		return usage_error("expected -o FILE.html");
	outfile_input(argv[optind]);
	if (nargs == 2)
		outfile_input(argv[optind + 1]);
	if (outfile_check(out, "output") < 0)	/* before any work: never over a device */
		return 1;
	if (ftdb_open(argv[optind], FTDB_READONLY, &db))
		return 1;
	if (nargs == 2 && ftdb_open(argv[optind + 1], FTDB_READONLY, &dbb)) {
		ftdb_close(db);
		return 1;
	}
	rb = ro;
	rb.want = against;
	if (nargs == 2 || against) {
		const char *names[2] = { argv[optind], argv[optind + nargs - 1] };

		if (!report_against(db, &ro, dbb ? dbb : db, &rb, names, &sb, &info) &&
		    !write_file_atomic(out, sb.buf, sb.len, "output")) {
			printf("wrote %s: trace %lld against trace %lld, %u policies on both "
			       "sides\n", out, (long long)info.trace_id, (long long)info.against_id,
			       info.policies);
			ret = 0;
		}
	} else if (!report_build(db, &ro, &sb, &info) &&
	    !write_file_atomic(out, sb.buf, sb.len, "output")) {
		if (info.traces)
			printf("wrote %s: %u of %zu traces\n", out, info.shown, info.traces);
		else
			printf("wrote %s: %u policies, trace %lld\n", out, info.policies,
			       (long long)info.trace_id);
		ret = 0;
	}
	ftdb_close(db);
	if (dbb)
		ftdb_close(dbb);
	strbuf_release(&sb);
	return ret;
}
