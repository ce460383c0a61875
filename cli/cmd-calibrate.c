// SPDX-License-Identifier: GPL-2.0
/*
 * cmd-calibrate.c - foliotrace calibrate: fit the fault cost model (replay/calibrate.h,
 * docs/cost-model.md) to the recorded latencies of every trace of the databases given, one
 * model per (arch, kernel, accelerator, clock), and store the models in one database, where replay
 * finds them to predict fault_time_ns.
 *
 * Exit status: 0; 1 if a trace is refused (jiffies clocksource, no clocksource) or a model
 * has too few samples, nothing stored then; 2 for a usage error.
 */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/commands.h"
#include "cli/args.h"
#include "lib/error.h"
#include "replay/calibrate.h"

static const char usage_text[] =
	"usage: foliotrace calibrate [--output DB] [--with-partial] [--format table|csv|json] DB...\n"
	"\n"
	"    -o, --output DB     database that stores the models (default: the first DB)\n"
	"    -P, --with-partial  also read partial copies of traces stored complete\n"
	"    -f, --format FMT    table (default), csv or json\n"
	"    -h, --help          show this help\n";

static const struct option options[] = {
	{ "output", required_argument, NULL, 'o' },
	{ "with-partial", no_argument, NULL, 'P' },
	{ "format", required_argument, NULL, 'f' },
	{ "help", no_argument, NULL, 'h' },
	{ NULL, 0, NULL, 0 }
};

static void print(const struct rp_calibration *fs, enum out_format format)
{
	static const char *const cols[] = { "arch", "kernel", "accel", "clock" };
	struct out_table t;
	size_t i;
	unsigned int k;

	out_init(&t, cols, 4);
	for (k = 0; k < RP_COST_NR; k++)
		out_add_col(&t, rp_cost_coef_name(k));
	out_add_col(&t, "samples");
	out_add_col(&t, "traces");
	for (i = 0; i < fs->n; i++) {
		const struct rp_cost *m = &fs->f[i].m;

		out_text(&t, m->key.arch);
		out_text(&t, m->key.kernel);
		out_text(&t, m->key.accel);
		out_text(&t, m->key.clock);
		for (k = 0; k < RP_COST_NR; k++)
			if (m->has[k])
				out_real(&t, m->c[k]);
			else
				out_null(&t);
		out_int(&t, m->samples);
		out_int(&t, m->traces);
	}
	out_print(&t, format, stdout);
	out_release(&t);
}

int cmd_calibrate(int argc, char **argv)
{
	enum out_format format = OUT_TABLE;
	const char *output = NULL;
	struct rp_calibration fs = { 0 };
	size_t i;
	int c, ret = 1;

	while ((c = getopt_long(argc, argv, "+o:Pf:h", options, NULL)) != -1) {
		switch (c) {
		case 'o':
			output = optarg;
			break;
		case 'P':
			fs.with_partial = 1;
			break;
		case 'f':
			if (out_parse_format(optarg, &format))
				return cli_usage_error("calibrate", usage_text,
						       "--format is table, csv or json");
			break;
		case 'h':
			fputs(usage_text, stdout);
			return 0;
		default:
			return cli_usage_error("calibrate", usage_text, NULL);
		}
	}
	if (optind >= argc)
		return cli_usage_error("calibrate", usage_text, "no database given");
	if (!output)
		output = argv[optind];
	for (i = (size_t)optind; i < (size_t)argc; i++)
		if (rp_calibrate_add_db(&fs, argv[i]))
			goto out;
	if (rp_calibrate_fit(&fs) || rp_calibrate_store(&fs, output))
		goto out;
	print(&fs, format);
	ret = 0;
out:
	rp_calibrate_release(&fs);
	return ret;
}
