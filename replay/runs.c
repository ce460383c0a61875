// SPDX-License-Identifier: GPL-2.0
/*
 * runs.c - stored runs read back; see runs.h. The selection is matched in C on parsed
 * filters, so two spellings of one selection are one selection; a stored filter that does
 * not parse matches no selection (but is listed when any selection is asked for).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "db/ftdb.h"
#include "db/runs.h"
#include "db/traces.h"
#include "lib/error.h"
#include "lib/strbuf.h"
#include "lib/xalloc.h"
#include "replay/load.h"
#include "replay/runs.h"

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

static int add_total(const char *name, int64_t value, void *arg)
{
	struct rp_counters *c = arg;
	int m = rp_metric_lookup(name);

	if (m >= 0)
		c->v[m] = (uint64_t)value;
	return 0;
}

struct latest {
	const struct rp_filter *sel;
	struct rp_stored_run *r;
	size_t n, cap;
};

static int add_run(const struct ftdb_run_row *row, void *arg)
{
	struct latest *l = arg;
	struct rp_stored_run *x;
	struct rp_filter f;

	if (l->sel) {
		if (rp_filter_parse(row->filter, &f)) {
			error_clear();
			return 0;
		}
		if (!rp_filter_equal(&f, l->sel))
			return 0;
	}
	XGROW(l->r, l->cap, l->n + 1);
	x = &l->r[l->n++];
	memset(x, 0, sizeof(*x));
	x->run_id = row->run_id;
	snprintf(x->policy, sizeof(x->policy), "%s", row->policy);
	snprintf(x->frag, sizeof(x->frag), "%s", row->frag);
	snprintf(x->filter, sizeof(x->filter), "%s", row->filter);
	snprintf(x->created_at, sizeof(x->created_at), "%s", row->created_at);
	x->elapsed_ns = row->elapsed_ns;
	x->guest_trace_id = row->guest_trace_id;
	return 0;
}

int rp_runs_latest(sqlite3 *db, int64_t trace_id, const char *kind, const char *frag,
		   const struct rp_filter *sel, const char *policy, struct rp_stored_run **runs,
		   size_t *nr)
{
	struct latest l = { .sel = sel };
	size_t i;

	*runs = NULL;
	*nr = 0;
	if (ftdb_runs_each(db, trace_id, kind, frag, policy, add_run, &l)) {
		free(l.r);
		return -1;
	}
	l.n = latest_only(l.r, l.n);
	for (i = 0; i < l.n; i++)
		if (ftdb_run_totals(db, l.r[i].run_id, add_total, &l.r[i].c)) {
			free(l.r);
			return -1;
		}
	*runs = l.r;
	*nr = l.n;
	return 0;
}

struct sites {
	struct rp_stored_site *r;
	size_t n, cap;
};

static int add_site(const struct ftdb_site_row *s, void *arg)
{
	struct sites *x = arg;
	struct rp_stored_site *r;

	XGROW(x->r, x->cap, x->n + 1);
	r = &x->r[x->n++];
	memset(r, 0, sizeof(*r));
	r->site = xstrdup(s->site ? s->site : "");
	r->module = s->module ? xstrdup(s->module) : NULL;
	r->c.faults = (uint64_t)s->faults;
	r->c.bloat = (uint64_t)s->bloat_bytes;
	r->c.zeroed = (uint64_t)s->zeroed_bytes;
	r->c.at_peak = (uint64_t)s->rss_at_peak_bytes;
	return 0;
}

int rp_runs_sites(sqlite3 *db, int64_t run_id, struct rp_stored_site **sites, size_t *nr)
{
	struct sites x = { 0 };

	*sites = NULL;
	*nr = 0;
	if (ftdb_run_sites(db, run_id, add_site, &x)) {
		rp_runs_sites_free(x.r, x.n);
		return -1;
	}
	*sites = x.r;
	*nr = x.n;
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

/* " --comm X --pid N" for a stored selection, appended to sb. */
static void add_selection(struct strbuf *sb, const struct rp_filter *f)
{
	strbuf_addstr(sb, sb->len ? ", " : "");
	if (f->has_comm)
		strbuf_addf(sb, "--comm %s%s", f->comm, f->pid >= 0 ? " " : "");
	if (f->pid >= 0)
		strbuf_addf(sb, "--pid %lld", (long long)f->pid);
}

/* The distinct selections of a trace's runs: the default one seen, and the others. */
struct selections {
	struct rp_filter *seen;
	size_t n, cap;
	int has_default;
};

static int add_filter(const char *filter, void *arg)
{
	struct selections *x = arg;
	struct rp_filter f;
	size_t i;

	if (rp_filter_parse(filter, &f)) {
		error_clear();	/* a filter that does not parse matches nothing */
		return 0;
	}
	if (!f.has_comm && f.pid < 0)
		x->has_default = 1;
	for (i = 0; i < x->n; i++)
		if (rp_filter_equal(&x->seen[i], &f))
			return 0;
	if (f.has_comm || f.pid >= 0) {
		XGROW(x->seen, x->cap, x->n + 1);
		x->seen[x->n++] = f;
	}
	return 0;
}

int rp_runs_default_sel(sqlite3 *db, int64_t trace_id, const char *frag,
			struct rp_filter *sel)
{
	struct selections x = { 0 };
	struct strbuf sb = STRBUF_INIT;
	size_t i;
	int ret = 0;

	rp_filter_set(sel, NULL, -1);
	if (ftdb_run_filters(db, trace_id, frag, add_filter, &x))
		ret = -1;
	else if (!x.has_default && x.n == 1)
		*sel = x.seen[0];
	else if (!x.has_default && x.n > 1) {
		for (i = 0; i < x.n; i++)
			add_selection(&sb, &x.seen[i]);
		ret = fail("no replay run of trace %lld for the workload's processes; runs exist "
			    "for %s: give one", (long long)trace_id, sb.buf);
	}
	strbuf_release(&sb);
	free(x.seen);
	return ret;
}

int rp_run_set_read(sqlite3 *db, int64_t trace_id, const struct rp_run_query *ro,
		    struct rp_run_set *rs)
{
	struct rp_filter sel;

	rp_filter_set(&sel, ro->comm, ro->pid);
	if (!ro->comm && ro->pid < 0 && rp_runs_default_sel(db, trace_id, ro->frag, &sel))
		return -1;
	return rp_run_set_load(db, trace_id, &sel, ro->frag, ro->base, rs);
}

int rp_run_set_open(const char *path, const struct rp_run_query *ro, sqlite3 **db,
		    struct rp_run_set *rs)
{
	int64_t trace_id;

	if (ftdb_open(path, FTDB_READONLY, db))
		return -1;
	if (ftdb_pick_trace(*db, ro->want, &trace_id) || rp_run_set_read(*db, trace_id, ro, rs)) {
		ftdb_close(*db);
		*db = NULL;
		return -1;
	}
	return 0;
}

int rp_run_set_load(sqlite3 *db, int64_t trace_id, const struct rp_filter *sel,
		    const char *frag, const char *baseline, struct rp_run_set *rs)
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

void rp_run_set_release(struct rp_run_set *rs)
{
	free(rs->run);
	memset(rs, 0, sizeof(*rs));
}

void rp_run_query_init(struct rp_run_query *q)
{
	memset(q, 0, sizeof(*q));
	snprintf(q->base, sizeof(q->base), "order0");
	q->pid = -1;
}
