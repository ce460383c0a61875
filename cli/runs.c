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

void runs_filter(char *buf, size_t len, const char *comm, int64_t pid)
{
	struct rp_filter f;

	rp_filter_set(&f, comm, pid);
	rp_filter_format(&f, buf, len);
}

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
	char filter[160];
	int64_t trace_id;

	runs_filter(filter, sizeof(filter), ro->comm, ro->pid);
	if (ftdb_open(path, FTDB_READONLY, db))
		return -1;
	if (ftdb_pick_trace(*db, ro->want, &trace_id) ||
	    runs_load(*db, trace_id, filter, ro->frag, ro->base.spec, rs)) {
		ftdb_close(*db);
		*db = NULL;
		return -1;
	}
	return 0;
}

static void col_text(sqlite3_stmt *st, int i, char *buf, size_t len)
{
	const unsigned char *s = sqlite3_column_text(st, i);

	snprintf(buf, len, "%s", s ? (const char *)s : "");
}

int runs_load(sqlite3 *db, int64_t trace_id, const char *filter, const char *frag,
	      const char *baseline, struct run_set *rs)
{
	sqlite3_stmt *st = NULL;
	size_t cap = 0;
	unsigned int i;
	int rc;

	memset(rs, 0, sizeof(*rs));
	rs->trace_id = trace_id;
	rs->base = -1;
	snprintf(rs->filter, sizeof(rs->filter), "%s", filter);
	if (sqlite3_prepare_v2(db, "SELECT coalesce(policy, '') FROM trace WHERE trace_id = ?",
			       -1, &st, NULL) != SQLITE_OK)
		goto sql_error;
	sqlite3_bind_int64(st, 1, trace_id);
	if (sqlite3_step(st) == SQLITE_ROW)
		col_text(st, 0, rs->recorded_policy, sizeof(rs->recorded_policy));
	sqlite3_finalize(st);

	if (frag) {
		snprintf(rs->frag, sizeof(rs->frag), "%s", frag);
	} else {
		if (sqlite3_prepare_v2(db, "SELECT frag FROM replay_run WHERE trace_id = ?1 AND "
				       "kind = 'sim' AND coalesce(filter, '') = ?2 ORDER BY run_id "
				       "DESC LIMIT 1", -1, &st, NULL) != SQLITE_OK)
			goto sql_error;
		sqlite3_bind_int64(st, 1, trace_id);
		sqlite3_bind_text(st, 2, filter, -1, SQLITE_STATIC);
		if (sqlite3_step(st) == SQLITE_ROW)
			col_text(st, 0, rs->frag, sizeof(rs->frag));
		else
			snprintf(rs->frag, sizeof(rs->frag), "none");
		sqlite3_finalize(st);
	}

	/* latest run per policy */
	if (sqlite3_prepare_v2(db, "SELECT run_id, policy, frag, coalesce(filter, ''), "
			       "created_at, coalesce(elapsed_ns, 0) FROM replay_run r WHERE "
			       "trace_id = ?1 AND kind = 'sim' AND frag = ?2 AND "
			       "coalesce(filter, '') = ?3 AND run_id = (SELECT max(run_id) FROM "
			       "replay_run s WHERE s.trace_id = r.trace_id AND s.kind = 'sim' AND "
			       "s.frag = r.frag AND coalesce(s.filter, '') = ?3 AND "
			       "s.policy = r.policy) ORDER BY run_id", -1, &st, NULL) != SQLITE_OK)
		goto sql_error;
	sqlite3_bind_int64(st, 1, trace_id);
	sqlite3_bind_text(st, 2, rs->frag, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 3, filter, -1, SQLITE_STATIC);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		struct run_row *r;

		XGROW(rs->run, cap, rs->nr + 1);
		r = &rs->run[rs->nr++];
		memset(r, 0, sizeof(*r));
		r->run_id = sqlite3_column_int64(st, 0);
		col_text(st, 1, r->policy, sizeof(r->policy));
		col_text(st, 2, r->frag, sizeof(r->frag));
		col_text(st, 3, r->filter, sizeof(r->filter));
		col_text(st, 4, r->created_at, sizeof(r->created_at));
		r->elapsed_ns = sqlite3_column_int64(st, 5);
	}
	sqlite3_finalize(st);
	if (rc != SQLITE_DONE)
		return error("cannot read replay runs: %s", sqlite3_errmsg(db));

	if (sqlite3_prepare_v2(db, "SELECT name, value FROM replay_metric WHERE run_id = ? AND "
			       "proc_id IS NULL", -1, &st, NULL) != SQLITE_OK)
		goto sql_error;
	for (i = 0; i < rs->nr; i++) {
		sqlite3_reset(st);
		sqlite3_bind_int64(st, 1, rs->run[i].run_id);
		while (sqlite3_step(st) == SQLITE_ROW) {
			int m = rp_metric_lookup((const char *)sqlite3_column_text(st, 0));

			if (m >= 0)
				rs->run[i].c.v[m] = (uint64_t)sqlite3_column_int64(st, 1);
		}
	}
	sqlite3_finalize(st);

	for (i = 0; i < rs->nr; i++) {
		if (baseline && !strcmp(rs->run[i].policy, baseline)) {
			struct run_row tmp = rs->run[i];

			memmove(&rs->run[1], &rs->run[0], i * sizeof(rs->run[0]));
			rs->run[0] = tmp;
			rs->base = 0;
			break;
		}
	}
	return 0;
sql_error:
	return error("cannot read replay runs: %s", sqlite3_errmsg(db));
}

void runs_release(struct run_set *rs)
{
	free(rs->run);
	memset(rs, 0, sizeof(*rs));
}

uint64_t runs_fallbacks(const struct rp_counters *c)
{
	uint64_t n = 0;
	unsigned int r;

	for (r = 1; r < FT_FB_NR; r++)
		n += c->v[RP_M_FB_0 + r];
	return n;
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
