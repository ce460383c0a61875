// SPDX-License-Identifier: GPL-2.0
/*
 * advise.c - per-site order advice; see advise.h. A candidate is a site at an order, every
 * other site at 0 (persite): its faults are the whole program's, its bloat the program's
 * beyond that of all at 0, so blocks a site's order maps over another site's pages count
 * as its own. The baseline is replayed once and its decoded stream probed by
 * advise-probe.c (no replay per candidate). What each site then took is read from the
 * advice's own run, per site slot, as replay stores it.
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
		      struct rp_run_result *res, int sites, struct rp_run_opts *tap)
{
	struct rp_trace_info info;
	struct rp_run_opts o;
	size_t i;

	for (i = 0; i < n; i += RP_MAX_POLICIES) {
		memset(&o, 0, sizeof(o));
		if (tap)
			o = *tap;
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

/*
 * The index of site name in a->sites, or -1. a->sites is sorted by name (load_sites()'s
 * ORDER BY, bytes as strcmp): a binary search.
 */
static int64_t site_index(const struct rp_advice *a, const char *name)
{
	size_t lo = 0, hi = a->nr_sites;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		int c = strcmp(name, a->sites[mid].site);

		if (!c)
			return (int64_t)mid;
		if (c < 0)
			hi = mid;
		else
			lo = mid + 1;
	}
	return -1;
}

/* The stream as the baseline's replay decodes it (rp_run_opts.tap), for the probes. */
struct tapped {
	const struct rp_advice *a;
	struct rp_trace t;		/* vmas and counted owned */
	int32_t *slot_site;		/* by slot: its site's index in a->sites, -1 none */
	struct ftdb_event *ev;
	int32_t *site;			/* by event: its touch's site, -1 none */
	size_t n, cap_ev, cap_site;
	int have;			/* t and slot_site are set */
};

static void tap(const struct rp_trace *t, const struct ftdb_event *ev, const uint32_t *slots,
		size_t n, void *arg)
{
	struct tapped *x = arg;
	struct rp_vma *vmas;
	uint8_t *counted;
	size_t i;

	if (!x->have) {
		x->have = 1;
		x->t.nr_vmas = t->nr_vmas;
		vmas = xcalloc(t->nr_vmas + 1, sizeof(*vmas));
		memcpy(vmas, t->vmas, t->nr_vmas * sizeof(*vmas));
		x->t.vmas = vmas;
		x->t.nr_procs = t->nr_procs;
		x->t.cold_gap = t->cold_gap;
		if (t->counted) {
			counted = xcalloc(t->nr_procs + 1, 1);
			memcpy(counted, t->counted, t->nr_procs);
			x->t.counted = counted;
		}
		x->t.nr_site_slots = t->nr_site_slots;
		x->slot_site = xcalloc(t->nr_site_slots + 1, sizeof(*x->slot_site));
		for (i = 0; i < t->nr_site_slots; i++)
			x->slot_site[i] = t->slot_sites ?
					  (int32_t)site_index(x->a, t->slot_sites[i]) : -1;
	}
	XGROW(x->ev, x->cap_ev, x->n + n);
	XGROW(x->site, x->cap_site, x->n + n);
	memcpy(x->ev + x->n, ev, n * sizeof(*ev));
	for (i = 0; i < n; i++)	/* a slot past the trace's is slot 0's, as sim.c reads it */
		x->site[x->n + i] = !slots || !x->t.nr_site_slots ? -1 :
				    x->slot_site[slots[i] < x->t.nr_site_slots ? slots[i] : 0];
	x->n += n;
}

/*
 * Each site's faults and bloat at every order, and its advice: the baseline (all at 0)
 * replayed once, its decoded stream probed by rp_advise_probe().
 */
static int probe(sqlite3 *db, int64_t trace_id, double pct, struct rp_advice *a)
{
	struct tapped x = { .a = a };
	struct rp_run_opts o = { .tap = tap, .tap_arg = &x };
	struct rp_policy pol;
	struct rp_run_result res;
	size_t i, k;
	int ret = -1;

	rp_persite_policy(&pol, "*=0", NULL, NULL, 0, 0);
	if (replay_all(db, trace_id, &pol, 1, &res, 0, &o) ||
	    rp_advise_probe(&x.t, x.ev, x.site, x.n, &res.total, a->sites, a->nr_sites))
		goto out;
	for (i = 0; i < a->nr_sites; i++) {
		struct rp_advice_site *s = &a->sites[i];
		uint64_t best = UINT64_MAX;

		for (k = 0; k < NR_ORD; k++)
			if ((double)s->bloat[k] <= pct / 100.0 * (double)s->touched_bytes &&
			    s->faults[k] < best) {
				best = s->faults[k];
				s->order = (unsigned int)k;
			}
	}
	ret = 0;
out:
	free((void *)x.t.vmas);
	free((void *)x.t.counted);
	free(x.slot_site);
	free(x.ev);
	free(x.site);
	return ret;
}

/* Each site's counters in run r, the advice's: its slots' sums (one per module). */
static void advised(struct rp_advice *a, const struct rp_run_result *r)
{
	uint32_t k;

	for (k = 0; k < r->nr_sites; k++) {
		int64_t i = site_index(a, r->sites[k].site);
		struct rp_site_counters *to;

		if (i < 0)
			continue;
		to = &a->sites[i].advised;
		to->faults += r->sites[k].c.faults;
		to->zeroed += r->sites[k].c.zeroed;
		to->bloat += r->sites[k].c.bloat;
		to->rss += r->sites[k].c.rss;
		to->at_peak += r->sites[k].c.at_peak;
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
	if (replay_all(db, trace_id, pol, NR_ORD + 1, res, 1, NULL))
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
