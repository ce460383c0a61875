// SPDX-License-Identifier: GPL-2.0
/*
 * advise.c - per-site order advice; see advise.h. Each candidate (a site at an order) is a
 * persite policy of its own, replayed in passes of RP_MAX_POLICIES simulators: a site's
 * bloat and faults are the whole program's minus those of the all-zero persite baseline,
 * so blocks a site's order maps over another site's pages count as its own. What each
 * site then took is read from the advice's own run, per site slot, as replay stores it.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "db/sites.h"
#include "lib/error.h"
#include "lib/strbuf.h"
#include "lib/xalloc.h"
#include "replay/advise.h"
#include "replay/load.h"

void rp_advice_release(struct rp_advice *a)
{
	size_t i;

	for (i = 0; i < a->nr_sites; i++)
		free(a->sites[i].site);
	free(a->sites);
	memset(a, 0, sizeof(*a));
}

struct site_list {
	struct rp_advice *a;
	int64_t page;		/* bytes */
	size_t cap;
};

static int add_site(const char *site, int64_t pages, void *arg)
{
	struct site_list *x = arg;
	struct rp_advice_site *s;

	XGROW(x->a->sites, x->cap, x->a->nr_sites + 1);
	s = &x->a->sites[x->a->nr_sites++];
	memset(s, 0, sizeof(*s));
	s->site = xstrdup(site ? site : "");
	s->touched_bytes = (uint64_t)pages * (uint64_t)x->page;
	x->a->touched_bytes += s->touched_bytes;
	return 0;
}

static int load_sites(sqlite3 *db, int64_t trace_id, int64_t page, struct rp_advice *a)
{
	struct site_list x = { .a = a, .page = page };

	if (ftdb_sites_touched(db, trace_id, add_site, &x))
		return -1;
	if (!a->nr_sites)
		return fail("trace %lld has no call sites (record it with --sites)",
			     (long long)trace_id);
	return 0;
}

/* Replay pol[0..n) in passes of RP_MAX_POLICIES into res (with their sites if sites). */
static int replay_all(sqlite3 *db, int64_t trace_id, const struct rp_policy *pol, size_t n,
		      struct rp_run_result *res, int sites)
{
	struct rp_trace_info info;
	struct rp_run_opts o;
	size_t i;

	for (i = 0; i < n; i += RP_MAX_POLICIES) {
		memset(&o, 0, sizeof(o));
		o.pol = pol + i;
		o.nr_pol = (unsigned int)(n - i < RP_MAX_POLICIES ? n - i : RP_MAX_POLICIES);
		o.pid = -1;
		o.sites = sites;
		if (rp_replay_db(db, trace_id, &o, res + i, &info))
			return -1;
	}
	return 0;
}

#define NR_ORD (RP_MAX_FOLIO_ORDER + 1)

/* Each site's faults and bloat at every order, and its advice. */
static int probe(sqlite3 *db, int64_t trace_id, double pct, struct rp_advice *a)
{
	size_t n = 1 + a->nr_sites * RP_MAX_FOLIO_ORDER, i, k;
	struct rp_policy *pol = xcalloc(n, sizeof(*pol));
	struct rp_run_result *res = xcalloc(n, sizeof(*res));
	int ret = -1;

	rp_persite_policy(&pol[0], "*=0", NULL, NULL, 0, 0);
	for (i = 0; i < a->nr_sites; i++)
		for (k = 1; k < NR_ORD; k++) {
			const char *name = a->sites[i].site;
			unsigned int ord = (unsigned int)k;

			rp_persite_policy(&pol[1 + i * RP_MAX_FOLIO_ORDER + k - 1], name, &name,
					  &ord, 1, 0);
		}
	if (replay_all(db, trace_id, pol, n, res, 0))
		goto out;
	for (i = 0; i < a->nr_sites; i++) {
		struct rp_advice_site *s = &a->sites[i];
		uint64_t best = UINT64_MAX;

		for (k = 0; k < NR_ORD; k++) {
			const struct rp_counters *c = k ? &res[1 + i * RP_MAX_FOLIO_ORDER + k - 1].total
						   : &res[0].total;
			uint64_t b0 = res[0].total.v[RP_M_BLOAT];

			s->faults[k] = c->v[RP_M_FAULTS];
			s->bloat[k] = c->v[RP_M_BLOAT] > b0 ? c->v[RP_M_BLOAT] - b0 : 0;
			if ((double)s->bloat[k] <= pct / 100.0 * (double)s->touched_bytes &&
			    s->faults[k] < best) {
				best = s->faults[k];
				s->order = (unsigned int)k;
			}
		}
	}
	ret = 0;
out:
	free(pol);
	free(res);
	return ret;
}

/*
 * Each site's counters in run r, the advice's: its slots' sums (one per module). a->sites
 * is sorted by name (load_sites()'s ORDER BY, bytes as strcmp): a binary search per slot,
 * O(slots log sites).
 */
static void advised(struct rp_advice *a, const struct rp_run_result *r)
{
	uint32_t k;

	for (k = 0; k < r->nr_sites; k++) {
		size_t lo = 0, hi = a->nr_sites;

		while (lo < hi) {
			size_t mid = lo + (hi - lo) / 2;
			int c = strcmp(r->sites[k].site, a->sites[mid].site);

			if (!c) {
				struct rp_site_counters *to = &a->sites[mid].advised;

				to->faults += r->sites[k].c.faults;
				to->zeroed += r->sites[k].c.zeroed;
				to->bloat += r->sites[k].c.bloat;
				to->rss += r->sites[k].c.rss;
				to->at_peak += r->sites[k].c.at_peak;
				break;
			}
			if (c < 0)
				hi = mid;
			else
				lo = mid + 1;
		}
	}
}

int rp_advise(sqlite3 *db, int64_t trace_id, double pct, struct rp_advice *a)
{
	struct rp_policy pol[NR_ORD + 1];
	struct rp_run_result res[NR_ORD + 1];
	struct rp_trace_head h;
	const char **names;
	unsigned int *orders;
	uint64_t best = UINT64_MAX;
	size_t i;

	memset(a, 0, sizeof(*a));
	if (rp_load_head(db, trace_id, &h) || load_sites(db, trace_id, h.page_size, a) ||
	    probe(db, trace_id, pct, a))
		goto fail;
	names = xcalloc(a->nr_sites, sizeof(*names));
	orders = xcalloc(a->nr_sites, sizeof(*orders));
	for (i = 0; i < a->nr_sites; i++) {
		names[i] = a->sites[i].site;
		orders[i] = a->sites[i].order;
	}
	rp_persite_policy(&pol[0], "advice", names, orders, a->nr_sites, 0);
	free(names);
	free(orders);
	if (rp_policy_parse("order0", &pol[1]))
		goto fail;
	for (i = 1; i < NR_ORD; i++) {
		char spec[32];

		snprintf(spec, sizeof(spec), "mcpage:%zu", i);
		if (rp_policy_parse(spec, &pol[1 + i]))
			goto fail;
	}
	if (replay_all(db, trace_id, pol, NR_ORD + 1, res, 1))
		goto fail;
	advised(a, &res[0]);
	for (i = 0; i < NR_ORD + 1; i++)
		rp_run_result_release(&res[i]);
	a->persite = res[0];
	a->order0 = res[1];
	a->global = res[1];
	for (i = 1; i < NR_ORD + 1; i++) {
		const struct rp_counters *c = &res[i].total;

		if ((double)c->v[RP_M_BLOAT] <= pct / 100.0 * (double)a->touched_bytes &&
		    c->v[RP_M_FAULTS] < best) {
			best = c->v[RP_M_FAULTS];
			a->global = res[i];
		}
	}
	return 0;
fail:
	rp_advice_release(a);
	return -1;
}

int rp_advice_file(const struct rp_advice *a, struct strbuf *sb)
{
	size_t i;

	strbuf_addf(sb, "# foliotrace advise: per site, ORDER SITE (persite:FILE)\n");
	for (i = 0; i < a->nr_sites; i++)
		if (rp_persite_add_line(sb, a->sites[i].order, a->sites[i].site))
			return -1;
	strbuf_addf(sb, "0 *\n");
	return 0;
}
