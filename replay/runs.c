// SPDX-License-Identifier: GPL-2.0
/*
 * runs.c - stored runs read back; see runs.h. The selection is matched in C on parsed
 * filters, so two spellings of one selection are one selection; a stored filter that does
 * not parse matches no selection (but is listed when any selection is asked for).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/error.h"
#include "lib/xalloc.h"
#include "replay/runs.h"

static void col_text(sqlite3_stmt *st, int i, char *buf, size_t len)
{
	const unsigned char *s = sqlite3_column_text(st, i);

	snprintf(buf, len, "%s", s ? (const char *)s : "");
}

/* Keep only the last run of each policy (runs are in run_id order). */
static size_t latest_only(struct rp_stored_run *r, size_t n)
{
	size_t i, k, o = 0;

	for (i = 0; i < n; i++) {
		for (k = i + 1; k < n; k++)
			if (!strcmp(r[k].policy, r[i].policy))
				break;
		if (k == n)
			r[o++] = r[i];
	}
	return o;
}

static int load_metrics(sqlite3 *db, struct rp_stored_run *r, size_t n)
{
	sqlite3_stmt *st;
	size_t i;

	if (sqlite3_prepare_v2(db, "SELECT name, value FROM replay_metric WHERE run_id = ? AND "
			       "proc_id IS NULL", -1, &st, NULL) != SQLITE_OK)
		return fail("cannot read replay metrics: %s", sqlite3_errmsg(db));
	for (i = 0; i < n; i++) {
		sqlite3_reset(st);
		sqlite3_bind_int64(st, 1, r[i].run_id);
		while (sqlite3_step(st) == SQLITE_ROW) {
			int m = rp_metric_lookup((const char *)sqlite3_column_text(st, 0));

			if (m >= 0)
				r[i].c.v[m] = (uint64_t)sqlite3_column_int64(st, 1);
		}
	}
	sqlite3_finalize(st);
	return 0;
}

int rp_runs_latest(sqlite3 *db, int64_t trace_id, const char *kind, const char *frag,
		   const struct rp_filter *sel, const char *policy, struct rp_stored_run **runs,
		   size_t *nr)
{
	struct rp_stored_run *r = NULL;
	sqlite3_stmt *st;
	size_t n = 0, cap = 0;
	int rc;

	*runs = NULL;
	*nr = 0;
	if (sqlite3_prepare_v2(db, "SELECT run_id, policy, frag, coalesce(filter, ''), "
			       "coalesce(created_at, ''), coalesce(elapsed_ns, 0), "
			       "coalesce(guest_trace_id, 0) FROM replay_run WHERE trace_id = ?1 AND "
			       "kind = ?2 AND (?3 IS NULL OR frag = ?3) AND (?4 IS NULL OR "
			       "policy = ?4) ORDER BY run_id", -1, &st, NULL) != SQLITE_OK)
		return fail("cannot read replay runs: %s", sqlite3_errmsg(db));
	sqlite3_bind_int64(st, 1, trace_id);
	sqlite3_bind_text(st, 2, kind, -1, SQLITE_STATIC);
	if (frag)
		sqlite3_bind_text(st, 3, frag, -1, SQLITE_STATIC);
	if (policy)
		sqlite3_bind_text(st, 4, policy, -1, SQLITE_STATIC);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		struct rp_stored_run *x;
		struct rp_filter f;

		XGROW(r, cap, n + 1);
		x = &r[n];
		memset(x, 0, sizeof(*x));
		x->run_id = sqlite3_column_int64(st, 0);
		col_text(st, 1, x->policy, sizeof(x->policy));
		col_text(st, 2, x->frag, sizeof(x->frag));
		col_text(st, 3, x->filter, sizeof(x->filter));
		col_text(st, 4, x->created_at, sizeof(x->created_at));
		x->elapsed_ns = sqlite3_column_int64(st, 5);
		x->guest_trace_id = sqlite3_column_int64(st, 6);
		if (sel) {
			if (rp_filter_parse(x->filter, &f)) {
				error_clear();
				continue;
			}
			if (!rp_filter_equal(&f, sel))
				continue;
		}
		n++;
	}
	sqlite3_finalize(st);
	if (rc != SQLITE_DONE) {
		free(r);
		return fail("cannot read replay runs: %s", sqlite3_errmsg(db));
	}
	n = latest_only(r, n);
	if (load_metrics(db, r, n)) {
		free(r);
		return -1;
	}
	*runs = r;
	*nr = n;
	return 0;
}

int rp_runs_sites(sqlite3 *db, int64_t run_id, struct rp_stored_site **sites, size_t *nr)
{
	struct rp_stored_site *r = NULL;
	sqlite3_stmt *st;
	size_t n = 0, cap = 0;
	int rc;

	*sites = NULL;
	*nr = 0;
	if (sqlite3_prepare_v2(db, "SELECT site, site_module, faults, bloat_bytes, zeroed_bytes, "
			       "rss_at_peak_bytes FROM replay_site WHERE run_id = ? ORDER BY site, "
			       "site_module", -1, &st, NULL) != SQLITE_OK)
		return fail("cannot read per-site metrics: %s", sqlite3_errmsg(db));
	sqlite3_bind_int64(st, 1, run_id);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		const unsigned char *m = sqlite3_column_text(st, 1);

		XGROW(r, cap, n + 1);
		memset(&r[n], 0, sizeof(r[n]));
		r[n].site = xstrdup((const char *)sqlite3_column_text(st, 0));
		r[n].module = m ? xstrdup((const char *)m) : NULL;
		r[n].c.faults = (uint64_t)sqlite3_column_int64(st, 2);
		r[n].c.bloat = (uint64_t)sqlite3_column_int64(st, 3);
		r[n].c.zeroed = (uint64_t)sqlite3_column_int64(st, 4);
		r[n++].c.at_peak = (uint64_t)sqlite3_column_int64(st, 5);
	}
	sqlite3_finalize(st);
	if (rc != SQLITE_DONE) {
		rp_runs_sites_free(r, n);
		return fail("cannot read per-site metrics: %s", sqlite3_errmsg(db));
	}
	*sites = r;
	*nr = n;
	return 0;
}

void rp_runs_sites_free(struct rp_stored_site *sites, size_t nr)
{
	size_t i;

	for (i = 0; i < nr; i++) {
		free(sites[i].site);
		free(sites[i].module);
	}
	free(sites);
}
