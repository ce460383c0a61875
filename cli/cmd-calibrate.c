// SPDX-License-Identifier: GPL-2.0
/*
 * cmd-calibrate.c - foliotrace calibrate: fit the fault cost model (replay/cost.h,
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
#include "cli/output.h"
#include "db/ftdb.h"
#include "lib/error.h"
#include "lib/xalloc.h"
#include "replay/cost.h"

static const char usage_text[] =
	"usage: foliotrace calibrate [--output DB] [--format table|csv|json] DB...\n"
	"\n"
	"    -o, --output DB     database that stores the models (default: the first DB)\n"
	"    -f, --format FMT    table (default), csv or json\n"
	"    -h, --help          show this help\n";

static const struct option options[] = {
	{ "output", required_argument, NULL, 'o' },
	{ "format", required_argument, NULL, 'f' },
	{ "help", no_argument, NULL, 'h' },
	{ NULL, 0, NULL, 0 }
};

/* One model being fitted: the samples of the traces sharing its key. */
struct fit {
	struct rp_cost m;
	struct rp_cost_samples *s;
};

struct fits {
	struct fit *f;
	size_t n, cap;
};

static struct fit *fit_for(struct fits *fs, const struct rp_cost_key *key)
{
	size_t i;

	for (i = 0; i < fs->n; i++)
		if (!memcmp(&fs->f[i].m.key, key, sizeof(*key)))
			return &fs->f[i];
	XGROW(fs->f, fs->cap, fs->n + 1);
	memset(&fs->f[fs->n], 0, sizeof(fs->f[fs->n]));
	fs->f[fs->n].m.key = *key;
	fs->f[fs->n].s = rp_cost_samples_new();
	return &fs->f[fs->n++];
}

/* Add every trace of path to its model's samples. */
static int add_db(struct fits *fs, const char *path)
{
	sqlite3 *db;
	sqlite3_stmt *st = NULL;
	struct rp_cost_key key;
	int rc, ret = -1;

	if (ftdb_open(path, FTDB_READONLY, &db))
		return -1;
	if (sqlite3_prepare_v2(db, "SELECT trace_id FROM trace ORDER BY trace_id", -1, &st,
			       NULL) != SQLITE_OK) {
		fail("cannot read traces: %s", sqlite3_errmsg(db));
		goto out;
	}
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		int64_t id = sqlite3_column_int64(st, 0);

		memset(&key, 0, sizeof(key));
		if (rp_cost_trace_key(db, id, &key) ||
		    rp_cost_samples_add(fit_for(fs, &key)->s, db, id))
			goto out;
	}
	if (rc != SQLITE_DONE) {
		fail("cannot read traces: %s", sqlite3_errmsg(db));
		goto out;
	}
	ret = 0;
out:
	sqlite3_finalize(st);
	sqlite3_close(db);
	if (ret)
		fail("%s", path);
	return ret;
}

static int store(const char *path, const struct fits *fs)
{
	sqlite3 *db;
	size_t i;
	int ret = -1;

	if (ftdb_open(path, FTDB_WRITE, &db))
		return -1;
	if (ftdb_exec(db, "BEGIN IMMEDIATE"))
		goto out;
	for (i = 0; i < fs->n; i++)
		if (rp_cost_store(db, &fs->f[i].m)) {
			ftdb_rollback(db);
			goto out;
		}
	if (ftdb_exec(db, "COMMIT")) {
		ftdb_rollback(db);
		goto out;
	}
	ret = 0;
out:
	if (sqlite3_close(db) != SQLITE_OK && !ret)
		ret = fail("cannot close %s", path);
	if (ret)
		fail("%s", path);
	return ret;
}

static void print(const struct fits *fs, enum out_format format)
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
	struct fits fs = { 0 };
	size_t i;
	int c, ret = 1;

	while ((c = getopt_long(argc, argv, "+o:f:h", options, NULL)) != -1) {
		switch (c) {
		case 'o':
			output = optarg;
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
		if (add_db(&fs, argv[i]))
			goto out;
	if (!fs.n) {
		fail("no trace to calibrate from");
		goto out;
	}
	for (i = 0; i < fs.n; i++)
		if (rp_cost_fit(fs.f[i].s, &fs.f[i].m)) {
			fail("%s %s %s %s", fs.f[i].m.key.arch, fs.f[i].m.key.kernel,
			      fs.f[i].m.key.accel, fs.f[i].m.key.clock);
			goto out;
		}
	if (store(output, &fs))
		goto out;
	print(&fs, format);
	ret = 0;
out:
	for (i = 0; i < fs.n; i++)
		rp_cost_samples_free(fs.f[i].s);
	free(fs.f);
	return ret;
}
