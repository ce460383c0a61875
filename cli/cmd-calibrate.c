// SPDX-License-Identifier: GPL-2.0
/*
 * cmd-calibrate.c - foliotrace calibrate: fit the fault cost model (replay/calibrate.h,
 * docs/cost-model.md) to the recorded latencies of every trace of the databases given, one
 * model per (arch, kernel, accelerator, clock), and store the models in one database, where replay
 * finds them to predict fault_time_ns.
 *
 * With --host, the model of this machine's own kernel instead (vm/host-calibrate.h): root,
 * per-size mTHP knobs, restored on every exit.
 *
 * Exit status: 0; 1 if a trace is refused (jiffies clocksource, no clocksource) or a model
 * has too few samples, or the host cannot be calibrated (not root, no per-size mTHP),
 * nothing stored then; 2 for a usage error.
 */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/commands.h"
#include "cli/args.h"
#include "db/ftdb.h"
#include "lib/error.h"
#include "replay/policy.h"
#include "replay/calibrate.h"
#include "vm/host-calibrate.h"
#include "vm/host-knobs.h"

static const char usage_text[] =
	"usage: foliotrace calibrate [--output DB] [--with-partial] [--format table|csv|json] DB...\n"
	"       foliotrace calibrate --host [--runs N] [--sizes LIST] [--footprints LIST]\n"
	"                            [--cold] [--verbose] [--format FMT] --output DB\n"
	"\n"
	"    -o, --output DB     database that stores the models (default: the first DB)\n"
	"    -P, --with-partial  also read partial copies of traces stored complete\n"
	"    -H, --host          fit this machine's kernel (root, per-size mTHP knobs)\n"
	"    -r, --runs N        --host: runs per setting, median kept (default 5)\n"
	"    -s, --sizes LIST    --host: mTHP sizes (16K,32K,...; default: each below PMD)\n"
	"    -F, --footprints LIST\n"
	"                        --host: memory the calibration touches per run, 2 to "
	RP_STR(VM_HOST_CAL_MAX_MIB) "\n"
	"                        sizes (default 64M,256M)\n"
	"    -C, --cold          --host: also fit cold_ns, the cost of a cold fault\n"
	"    -v, --verbose       --host: each setting's medians on stderr\n"
	"    -f, --format FMT    table (default), csv or json\n"
	"    -h, --help          show this help\n";

static const struct option options[] = {
	{ "output", required_argument, NULL, 'o' },
	{ "with-partial", no_argument, NULL, 'P' },
	{ "host", no_argument, NULL, 'H' },
	{ "runs", required_argument, NULL, 'r' },
	{ "sizes", required_argument, NULL, 's' },
	{ "footprints", required_argument, NULL, 'F' },
	{ "cold", no_argument, NULL, 'C' },
	{ "verbose", no_argument, NULL, 'v' },
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

static void on_point(unsigned int kb, unsigned int mib, int cold, const struct rp_host_point *p,
		     void *arg)
{
	fprintf(stderr, "calibrate --host: %uK anon-touch %uM%s: minflt %.0f sys %.3f ms\n", kb,
		mib, cold ? " --between " VM_HOST_CAL_BETWEEN : "", p->faults, p->sys_ns / 1e6);
}

static void on_note(const char *why, void *arg)
{
	fprintf(stderr, "calibrate --host: kernel time not sampled (%s): getrusage's system "
		"time instead, split by the timer tick\n", why);
}

/*
 * "16K,32K" or "32M,128M": sizes, powers of two of 4K pages of order min_order to
 * max_order, into v in units of unit_kb KiB, at most max of them. Return: 0 with *n >= 1,
 * or -1.
 */
static int parse_size_list(char *list, unsigned int min_order, unsigned int max_order,
			   unsigned int unit_kb, unsigned int *v, size_t max, size_t *n)
{
	unsigned int order;
	char *tok, *save = NULL;

	*n = 0;
	for (tok = strtok_r(list, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		if (rp_parse_size(tok, &order) || order < min_order || order > max_order ||
		    *n == max) {
			error_clear();
			return -1;
		}
		v[(*n)++] = (4U << order) / unit_kb;
	}
	return *n ? 0 : -1;
}

/* "16K,32K,64K": sizes above 4K, KiB, into kb (at most VM_KNOBS_MAX). Return: 0 or -1. */
static int parse_sizes(char *list, unsigned int *kb, size_t *n)
{
	/* order 28 (1 TiB) is rp_parse_size()'s own bound: 4U << 28 KiB still fits */
	return parse_size_list(list, 1, 28, 1, kb, VM_KNOBS_MAX, n);
}

/* "32M,128M": two or more distinct sizes of 1M and up, powers of two, into mib (at most
 * VM_HOST_CAL_MAX_MIB). Return: 0 or -1. */
static int parse_footprints(char *list, unsigned int *mib, size_t *n)
{
	size_t i;

	/* 1M is order 8 of 4K pages; 2^18 MiB (256 GiB) is beyond any machine here */
	if (parse_size_list(list, 8, 8 + 18, 1024, mib, VM_HOST_CAL_MAX_MIB, n))
		return -1;
	for (i = 1; i < *n && mib[i] == mib[0]; i++)
		;
	return i < *n ? 0 : -1;	/* two distinct: the fit needs them (vm_host_calibrate()) */
}

/* --host: calibrate this machine, store its one model in output. */
static int calibrate_host(const struct vm_host_cal *o, const char *output,
			  enum out_format format)
{
	struct rp_fit f = { 0 };
	struct rp_calibration one = { .f = &f, .n = 1 };
	sqlite3 *db;

	/* refused before the database is created or a knob written (another writer of the
	 * knobs too); the database made before the runs, so that a bad path does not waste
	 * them */
	if (vm_host_calibrate_check(o) || vm_knobs_lock())
		return 1;
	if (ftdb_open(output, FTDB_CREATE, &db)) {
		vm_knobs_unlock();
		return 1;
	}
	ftdb_close(db);
	if (vm_host_calibrate(o, &f.m) || rp_calibrate_store(&one, output))
		return 1;
	print(&one, format);
	if (o->spread->fits)
		fprintf(stderr, "calibrate --host: spread over %u resamples of the %u rounds: "
			"new_ns %.1f-%.1f, byte_ns %.6f-%.6f (5th-95th percentiles)\n",
			o->spread->fits, o->runs, o->spread->new_lo, o->spread->new_hi,
			o->spread->byte_lo, o->spread->byte_hi);
	else
		fprintf(stderr, "calibrate --host: no spread: %s\n", o->spread->why);
	return 0;
}

int cmd_calibrate(int argc, char **argv)
{
	enum out_format format = OUT_TABLE;
	const char *output = NULL;
	struct rp_calibration fs = { 0 };
	struct rp_host_spread spread;
	struct vm_host_cal host = { .runs = VM_HOST_CAL_RUNS, .note = on_note, .spread = &spread };
	unsigned int kb[VM_KNOBS_MAX], mib[VM_HOST_CAL_MAX_MIB];
	int64_t runs;
	const char *host_opt = NULL;	/* the last option of --host's given, for its error */
	char msg[64];
	size_t i;
	int c, ret = 1, is_host = 0;

	while ((c = getopt_long(argc, argv, "+o:PHr:s:F:Cvf:h", options, NULL)) != -1) {
		switch (c) {
		case 'o':
			output = optarg;
			break;
		case 'P':
			fs.with_partial = 1;
			break;
		case 'H':
			is_host = 1;
			break;
		case 'r':
			if (cli_parse_num("calibrate", "--runs", optarg, &runs))
				return 2;
			if (runs < 1 || runs > 1000)
				return cli_usage_error("calibrate", usage_text,
						       "--runs is 1 to 1000");
			host.runs = (unsigned int)runs;
			host_opt = "--runs";
			break;
		case 's':
			if (parse_sizes(optarg, kb, &host.nr_kb))
				return cli_usage_error("calibrate", usage_text, "--sizes is a "
						       "list of mTHP sizes: 16K,32K,64K");
			host.kb = kb;
			host_opt = "--sizes";
			break;
		case 'F':
			if (parse_footprints(optarg, mib, &host.nr_mib))
				return cli_usage_error("calibrate", usage_text, "--footprints is a "
						       "list of 2 to " RP_STR(VM_HOST_CAL_MAX_MIB)
						       " distinct sizes of 1M or more, powers of "
						       "two: 32M,128M");
			host.mib = mib;
			host_opt = "--footprints";
			break;
		case 'C':
			host.cold = 1;
			host_opt = "--cold";
			break;
		case 'v':
			host.point = on_point;
			host_opt = "--verbose";
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
	/* an option that would change nothing is refused, not ignored */
	if (!is_host && host_opt) {
		snprintf(msg, sizeof(msg), "%s goes with --host", host_opt);
		return cli_usage_error("calibrate", usage_text, msg);
	}
	if (is_host && fs.with_partial)
		return cli_usage_error("calibrate", usage_text, "--with-partial reads traces; "
				       "--host reads none");
	if (is_host) {
		if (optind < argc || !output)
			return cli_usage_error("calibrate", usage_text, "--host takes no DB "
					       "arguments, only --output DB");
		return calibrate_host(&host, output, format);
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
