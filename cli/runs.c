// SPDX-License-Identifier: GPL-2.0
/* runs.c - reading replay runs back for compare and report; see runs.h. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/output.h"
#include "cli/runs.h"
#include "db/ftdb.h"
#include "lib/error.h"
#include "lib/xalloc.h"
#include "replay/filter.h"
#include "replay/load.h"

void runs_opts_init(struct runs_opts *ro)
{
	memset(ro, 0, sizeof(*ro));
	rp_policy_parse("order0", &ro->base);
	ro->pid = -1;
}

int runs_option(struct runs_opts *ro, int c, const char *arg, const char *cmd,
		const char *usage)
{
	enum rp_frag_kind fk;

	switch (c) {
	case 'b':
		if (rp_policy_parse(arg, &ro->base)) {
			error_print("foliotrace");
			return 2;
		}
		break;
	case 'F':
		if (rp_frag_parse(arg, &fk)) {
			error_print("foliotrace");
			return 2;
		}
		ro->frag = rp_frag_name(fk);
		break;
	case 'c':
		ro->comm = arg;
		break;
	case 'p':
		if (cli_parse_num(cmd, "--pid", arg, &ro->pid))
			return cli_usage_error(cmd, usage, NULL);
		break;
	case 't':
		if (cli_parse_num(cmd, "--trace", arg, &ro->want))
			return cli_usage_error(cmd, usage, NULL);
		break;
	}
	return 0;
}

int runs_open(const char *path, const struct runs_opts *ro, sqlite3 **db, struct run_set *rs)
{
	struct rp_filter sel;
	int64_t trace_id;

	rp_filter_set(&sel, ro->comm, ro->pid);
	if (ftdb_open(path, FTDB_READONLY, db))
		return -1;
	if (ftdb_pick_trace(*db, ro->want, &trace_id) ||
	    runs_load(*db, trace_id, &sel, ro->frag, ro->base.spec, rs)) {
		ftdb_close(*db);
		*db = NULL;
		return -1;
	}
	return 0;
}

int runs_load(sqlite3 *db, int64_t trace_id, const struct rp_filter *sel, const char *frag,
	      const char *baseline, struct run_set *rs)
{
	struct rp_stored_run *all;
	struct rp_trace_head head;
	size_t nr;
	unsigned int i;

	memset(rs, 0, sizeof(*rs));
	rs->trace_id = trace_id;
	rs->base = -1;
	rp_filter_format(sel, rs->filter, sizeof(rs->filter));
	if (rp_load_head(db, trace_id, &head))
		return -1;
	snprintf(rs->recorded_policy, sizeof(rs->recorded_policy), "%s", head.policy);

	/* no frag asked for: that of the newest run with this selection, none without one */
	snprintf(rs->frag, sizeof(rs->frag), "%s", frag ? frag : "none");
	if (!frag) {
		if (rp_runs_latest(db, trace_id, "sim", NULL, sel, NULL, &all, &nr))
			return -1;
		for (i = 0; i < nr; i++)
			if (all[i].run_id > all[0].run_id)
				all[0] = all[i];
		if (nr)
			snprintf(rs->frag, sizeof(rs->frag), "%s", all[0].frag);
		free(all);
	}
	if (rp_runs_latest(db, trace_id, "sim", rs->frag, sel, NULL, &rs->run, &nr))
		return -1;
	rs->nr = (unsigned int)nr;
	for (i = 0; i < rs->nr; i++) {
		if (baseline && !strcmp(rs->run[i].policy, baseline)) {
			struct rp_stored_run tmp = rs->run[i];

			memmove(&rs->run[1], &rs->run[0], i * sizeof(rs->run[0]));
			rs->run[0] = tmp;
			rs->base = 0;
			break;
		}
	}
	return 0;
}

void runs_release(struct run_set *rs)
{
	free(rs->run);
	memset(rs, 0, sizeof(*rs));
}

void fmt_bytes(char *buf, size_t len, uint64_t b)
{
	if (b >= (1ULL << 30))
		snprintf(buf, len, "%.2fG", (double)b / (1ULL << 30));
	else if (b >= (1ULL << 20))
		snprintf(buf, len, "%.1fM", (double)b / (1ULL << 20));
	else if (b >= 1024)
		snprintf(buf, len, "%.0fK", (double)b / 1024);
	else
		snprintf(buf, len, "%llu", (unsigned long long)b);
}

void fmt_delta(char *buf, size_t len, uint64_t v, uint64_t base)
{
	if (!base)
		snprintf(buf, len, "-");
	else
		snprintf(buf, len, "%+.1f%%", ((double)v - (double)base) * 100.0 / (double)base);
}
