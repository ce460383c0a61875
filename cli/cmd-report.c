// SPDX-License-Identifier: GPL-2.0
/*
 * cmd-report.c - foliotrace report (the page: report/report.h): one self-contained HTML page (inline CSS and SVG, a
 * one-line script, no network) with the latest replay run of each policy: faults and memory
 * per policy, the order mix, fallbacks by reason, the recorded fault latency per mapped
 * order, and every metric in a table. A trace recorded with --sites also gets its top
 * allocation call sites by faults, per policy (replay_site, docs/sites.md).
 *
 * Without --trace and with several recordings, the page covers them all: the workloads x
 * policies tables first, then a section per trace.
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
#include "report/report.h"

static const char usage_text[] =
	"usage: foliotrace report DB -o FILE.html [--baseline P] [--frag MODEL] [--comm NAME]\n"
	"                         [--pid N] [--trace ID]\n"
	"\n"
	"    -o, --output FILE   HTML file to write (self-contained: open it anywhere)\n"
	"    -b, --baseline P    policy the others are compared to (default order0)\n"
	"    -F, --frag MODEL    runs made with this allocation model (default: newest run's)\n"
	"    -c, --comm NAME     runs made with --comm NAME\n"
	"    -p, --pid N         runs made with --pid N (also restricts the latency chart)\n"
	"    -t, --trace ID      only this trace (default: every recording)\n"
	"    -h, --help          show this help\n";

static const struct option options[] = {
	{ "output", required_argument, NULL, 'o' },
	{ "baseline", required_argument, NULL, 'b' },
	{ "frag", required_argument, NULL, 'F' },
	{ "comm", required_argument, NULL, 'c' },
	{ "pid", required_argument, NULL, 'p' },
	{ "trace", required_argument, NULL, 't' },
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
	struct rp_run_query ro;
	sqlite3 *db;
	int c, ret = 1;

	rp_run_query_init(&ro);
	optind = 1;
	while ((c = getopt_long(argc, argv, "o:b:F:c:p:t:h", options, NULL)) != -1) {
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
		case 'h':
			fputs(usage_text, stdout);
			return 0;
		default:
			return usage_error(NULL);
		}
	}
	if (argc - optind != 1)
		return usage_error(argc - optind ? "too many arguments" : "expected DB");
	if (!out)
		return usage_error("expected -o FILE.html");
	outfile_input(argv[optind]);
	if (outfile_check(out, "output") < 0)	/* before any work: never over a device */
		return 1;
	if (ftdb_open(argv[optind], FTDB_READONLY, &db))
		return 1;
	if (!report_build(db, &ro, &sb, &info) &&
	    !write_file_atomic(out, sb.buf, sb.len, "output")) {
		if (info.traces)
			printf("wrote %s: %u of %zu traces\n", out, info.shown, info.traces);
		else
			printf("wrote %s: %u policies, trace %lld\n", out, info.policies,
			       (long long)info.trace_id);
		ret = 0;
	}
	ftdb_close(db);
	strbuf_release(&sb);
	return ret;
}
