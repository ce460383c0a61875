/* SPDX-License-Identifier: GPL-2.0 */
/*
 * advise.h - per-site order advice under a bloat budget (`foliotrace advise`, docs/sites.md):
 * which mcpage order each allocation call site should get, written as the FILE the persite
 * policy reads, and what the whole program gets with it against the best single global
 * mcpage policy within the same budget.
 */
#ifndef FT_REPLAY_ADVISE_H
#define FT_REPLAY_ADVISE_H

#include <stdint.h>
#include <sqlite3.h>

#include "lib/strbuf.h"
#include "replay/run.h"

struct rp_advice_site {
	char *site;				/* site_call.site */
	uint64_t touched_bytes;			/* its distinct touched pages, bytes */
	/* whole-program faults and bloat with this site at order k, every other at 0 */
	uint64_t faults[RP_MAX_FOLIO_ORDER + 1];
	uint64_t bloat[RP_MAX_FOLIO_ORDER + 1];	/* bytes */
	unsigned int order;			/* the advice */
	/*
	 * What its touches took with the advice replayed (the advice run's per-site metrics,
	 * over its modules): what `compare --by site` shows for it in the persite:FILE run
	 */
	struct rp_site_counters advised;
};

struct rp_advice {
	struct rp_advice_site *sites;	/* by site name */
	size_t nr_sites;
	uint64_t touched_bytes;		/* sum over the sites */
	struct rp_run_result order0;	/* the baseline */
	struct rp_run_result persite;	/* the advice, replayed */
	struct rp_run_result global;	/* best mcpage:N within the budget (order0 if none) */
};

/*
 * rp_advise - per site, of the orders 0..RP_MAX_FOLIO_ORDER (that site at the order, every
 * other site at 0) whose extra bloat stays within pct percent of the site's touched bytes,
 * the one with the fewest faults (the smaller on a tie: an order whose blocks never fit
 * falls back to 4K and gains nothing). Then the advice as one persite policy, order0, and
 * mcpage:1..RP_MAX_FOLIO_ORDER over the whole trace; global is the mcpage with the fewest
 * faults whose bloat stays within pct percent of the program's touched bytes; each site's
 * advised counters from the advice's run. Faults are the sites' by the one attribution of
 * docs/sites.md (persite decides by the touch's site slot, which per-site metrics charge).
 * Nothing is stored. Return: 0 with *a filled (rp_advice_release() it), or -1 with fail()
 * (no call sites in the trace, SQL).
 */
int rp_advise(sqlite3 *db, int64_t trace_id, double pct, struct rp_advice *a);
void rp_advice_release(struct rp_advice *a);
/*
 * rp_advise_probe - the probes of rp_advise() over a decoded stream (advise-probe.c): for
 * each site i < nr_sites and order k, sites[i].faults[k] and .bloat[k] are what replaying
 * ev[0..n) whole with that site at k and every other at 0 (persite, frag none) gives, as
 * the whole program's faults and its bloat beyond base's, base being that replay with all
 * at 0 (k = 0: base's faults, 0). t: the trace as the simulator is given it (VMAs,
 * processes, counted; its slots unused); site[j]: the site of event j's touch (its slot's
 * name), -1 for none. Return: 0, or -1 with fail() (n or nr_sites past 2^32 - 2).
 */
int rp_advise_probe(const struct rp_trace *t, const struct ftdb_event *ev, const int32_t *site,
		    size_t n, const struct rp_counters *base, struct rp_advice_site *sites,
		    size_t nr_sites);
/*
 * rp_advice_file - the advice as a persite FILE ("ORDER SITE" lines, odd names quoted as
 * rp_persite_add_line() writes them, "0 *" last), appended to sb: persite:FILE reads every
 * site back with its order. Return: 0, or fail() (a site name too long for a line).
 */
int rp_advice_file(const struct rp_advice *a, struct strbuf *sb);

#endif /* FT_REPLAY_ADVISE_H */
