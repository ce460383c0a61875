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

/* " --comm X --pid N" for a stored selection, appended to sb. */
static void add_selection(struct strbuf *sb, const struct rp_filter *f)
{
	strbuf_addstr(sb, sb->len ? ", " : "");
	if (f->has_comm)
		strbuf_addf(sb, "--comm %s%s", f->comm, f->pid >= 0 ? " " : "");
	if (f->pid >= 0)
		strbuf_addf(sb, "--pid %lld", (long long)f->pid);
}

int runs_default_sel(sqlite3 *db, int64_t trace_id, const char *frag, struct rp_filter *sel)
{
	struct rp_filter *seen = NULL, f;
	struct strbuf sb = STRBUF_INIT;
	size_t n = 0, cap = 0, i;
	int rc, has_default = 0, ret = 0;
	sqlite3_stmt *st;

	rp_filter_set(sel, NULL, -1);
	if (sqlite3_prepare_v2(db, "SELECT DISTINCT coalesce(filter, '') FROM replay_run WHERE "
			       "trace_id = ?1 AND kind = 'sim' AND (?2 IS NULL OR frag = ?2) "
			       "ORDER BY run_id", -1, &st, NULL) != SQLITE_OK)
		return fail("cannot read replay runs: %s", sqlite3_errmsg(db));
	sqlite3_bind_int64(st, 1, trace_id);
	if (frag)
		sqlite3_bind_text(st, 2, frag, -1, SQLITE_STATIC);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		if (rp_filter_parse((const char *)sqlite3_column_text(st, 0), &f)) {
			error_clear();	/* a filter that does not parse matches nothing */
			continue;
		}
		if (!f.has_comm && f.pid < 0)
			has_default = 1;
		for (i = 0; i < n; i++)
			if (rp_filter_equal(&seen[i], &f))
				break;
		if (i == n && (f.has_comm || f.pid >= 0)) {
			XGROW(seen, cap, n + 1);
			seen[n++] = f;
		}
	}
	sqlite3_finalize(st);
	if (rc != SQLITE_DONE)
		ret = fail("cannot read replay runs: %s", sqlite3_errmsg(db));
	else if (!has_default && n == 1)
		*sel = seen[0];
	else if (!has_default && n > 1) {
		for (i = 0; i < n; i++)
			add_selection(&sb, &seen[i]);
		ret = fail("no replay run of trace %lld for the workload's processes; runs exist "
			    "for %s: give one", (long long)trace_id, sb.buf);
	}
	strbuf_release(&sb);
	free(seen);
	return ret;
}

int runs_read(sqlite3 *db, int64_t trace_id, const struct runs_opts *ro, struct run_set *rs)
{
	struct rp_filter sel;

	rp_filter_set(&sel, ro->comm, ro->pid);
	if (!ro->comm && ro->pid < 0 && runs_default_sel(db, trace_id, ro->frag, &sel))
		return -1;
	return runs_load(db, trace_id, &sel, ro->frag, ro->base.spec, rs);
}

int runs_open(const char *path, const struct runs_opts *ro, sqlite3 **db, struct run_set *rs)
{
	int64_t trace_id;

	if (ftdb_open(path, FTDB_READONLY, db))
		return -1;
	if (ftdb_pick_trace(*db, ro->want, &trace_id) || runs_read(*db, trace_id, ro, rs)) {
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
