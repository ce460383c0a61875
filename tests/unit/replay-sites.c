// SPDX-License-Identifier: GPL-2.0
/*
 * replay-sites.c - the simulator's per-site accounting (rp_sim_feed_sites, docs/sites.md
 * "Per-site metrics") on hand-made (SYNTHETIC) streams whose per-site faults, zeroed
 * bytes, bloat, RSS at the peak and RSS at the end are computed by hand: a 64K block over
 * another site's touch, a fork whose child holds the peak, pages moved by mremap and then
 * unmapped, an untraced touch (slot 0), a fork child that is a shadow (replayed for the
 * pages it shares, in no metric). Each case also checks that the slots sum to the totals.
 */
#include <string.h>

#include "lib/error.h"
#include "replay/replay.h"
#include "tests/unit/steps.h"
#include "tests/unit/tap.h"

#define K 1024ULL
#define B 0x10000000ULL		/* 2M-aligned */
#define NSLOT 3
#define W(p, a, slot) { { 'W', p, a, 0, 0, 1 }, slot }

struct sstep {
	struct step st;
	uint32_t slot;		/* site slot of the event */
};

struct swant {
	uint64_t faults, zeroed, bloat, at_peak, rss_pages;
};

struct scase {
	const char *name;
	const char *policy;
	uint64_t vma_end;		/* one VMA [B, vma_end) */
	struct sstep steps[12];		/* ends at op 0 */
	struct swant want[NSLOT];	/* by slot */
	uint32_t shadow;		/* proc_id of a shadow (rp_trace.counted), 0: none */
};

static const struct scase cases[] = {
	{ "mcpage:4: each site's block, a touch of the other's block charges nothing",
	  "mcpage:4", B + 128 * K,
	  { W(1, B, 1), W(1, B + 64 * K, 2), W(1, B + 4 * K, 2),
	    { { 'U', 1, B, B + 128 * K, 0, 0 }, 0 } },
	  { { 0 }, { 1, 64 * K, 14 * 4 * K, 64 * K, 0 }, { 1, 64 * K, 15 * 4 * K, 64 * K, 0 } }, 0 },
	{ "order0: the child's copies hold the peak; moved pages keep their site",
	  "order0", B + 64 * K,
	  { W(1, B, 1), W(1, B + 4 * K, 1), { { 'K', 2, 1, 0, 0, 0 }, 0 },
	    { { 'X', 2, 0, ~0ULL, 0, 0 }, 0 }, { { 'M', 1, B, B + 8 * K, B + 32 * K, 0 }, 0 },
	    W(1, B + 16 * K, 2), { { 'U', 1, B + 32 * K, B + 40 * K, 0, 0 }, 0 } },
	  { { 0 }, { 2, 8 * K, 0, 16 * K, 0 }, { 1, 4 * K, 0, 0, 1 } }, 0 },
	{ "untraced touches go to slot 0; bloat at the end of the trace",
	  "mcpage:2", B + 64 * K,
	  { W(1, B, 0), W(1, B + 16 * K, 1) },
	  { { 1, 16 * K, 3 * 4 * K, 16 * K, 4 }, { 1, 16 * K, 3 * 4 * K, 16 * K, 4 }, { 0 } }, 0 },
	{ "order0: a shadow child's copies, own page and COW charge no site",
	  "order0", B + 64 * K,
	  { W(1, B, 1), W(1, B + 4 * K, 1), { { 'K', 2, 1, 0, 0, 0 }, 0 }, W(2, B + 8 * K, 2),
	    { { 'C', 2, B, 0, 0, 0 }, 2 }, { { 'C', 1, B + 4 * K, 0, 0, 0 }, 1 },
	    { { 'X', 2, 0, ~0ULL, 0, 0 }, 0 } },
	  { { 0 }, { 2, 8 * K, 0, 8 * K, 2 }, { 0 } }, 2 },
};

int main(void)
{
	size_t i, n = sizeof(cases) / sizeof(cases[0]);

	plan((int)n * 2);
	for (i = 0; i < n; i++) {
		const struct scase *c = &cases[i];
		const struct rp_site_counters *sc;
		const struct rp_counters *tot;
		uint32_t slots[16], nr = 0, k;
		struct rp_stream s;
		struct rp_trace t;
		struct rp_policy p;
		struct rp_sim *sim;
		struct swant sum = { 0 };
		uint8_t counted[8];
		int good = 1;

		memset(&s, 0, sizeof(s));
		rp_stream_add_vma(&s, B, c->vma_end, 3);
		for (k = 0; c->steps[k].st.op; k++) {
			struct ftdb_event e = step_event(&c->steps[k].st);

			rp_stream_add(&s, &e);
			slots[k] = c->steps[k].slot;
		}
		rp_stream_trace(&s, &t);
		t.nr_site_slots = NSLOT;
		memset(counted, 1, sizeof(counted));
		if (c->shadow) {
			counted[c->shadow] = 0;
			t.counted = counted;
		}
		if (rp_policy_parse(c->policy, &p)) {
			diag("%s", error_text());
			error_clear();
			ok(0, "%s", c->name);
			ok(0, "%s: sums", c->name);
			continue;
		}
		sim = rp_sim_new(&p, RP_FRAG_NONE, &t);
		rp_sim_feed_sites(sim, s.ev, slots, s.nr);
		rp_sim_finish(sim);
		sc = rp_sim_sites(sim, &nr);
		tot = rp_sim_total(sim);
		for (k = 0; k < NSLOT && nr == NSLOT; k++) {
			const struct swant *w = &c->want[k];

			if (sc[k].faults != w->faults || sc[k].zeroed != w->zeroed ||
			    sc[k].bloat != w->bloat || sc[k].at_peak != w->at_peak ||
			    sc[k].rss != w->rss_pages) {
				diag("  slot %u: faults %llu zeroed %llu bloat %llu at_peak %llu rss %llu; "
				     "want %llu %llu %llu %llu %llu", k,
				     (unsigned long long)sc[k].faults, (unsigned long long)sc[k].zeroed,
				     (unsigned long long)sc[k].bloat, (unsigned long long)sc[k].at_peak,
				     (unsigned long long)sc[k].rss, (unsigned long long)w->faults,
				     (unsigned long long)w->zeroed, (unsigned long long)w->bloat,
				     (unsigned long long)w->at_peak, (unsigned long long)w->rss_pages);
				good = 0;
			}
			sum.faults += sc[k].faults;
			sum.zeroed += sc[k].zeroed;
			sum.bloat += sc[k].bloat;
			sum.at_peak += sc[k].at_peak;
		}
		ok(good && nr == NSLOT, "%s", c->name);
		ok(sum.faults == tot->v[RP_M_FAULTS] && sum.zeroed == tot->v[RP_M_ZEROED] &&
		   sum.bloat == tot->v[RP_M_BLOAT] && sum.at_peak == tot->v[RP_M_PEAK_RSS],
		   "%s: the slots sum to the totals", c->name);
		rp_sim_free(sim);
		rp_stream_release(&s);
	}
	return done_testing();
}
