// SPDX-License-Identifier: GPL-2.0
/*
 * replay-diff.c - differential test: the fast engine (replay/sim.c) and the naive oracle
 * (replay/oracle.c) must agree exactly on every metric, per process and in total, for every
 * policy and both allocation models, on many seeds of the named synthetic stream "random"
 * (and a small "kbuild-like"), also with shadows (rp_trace.counted: processes fed for
 * their sharing, in no metric). Every run also gives the events site slots (as replay
 * gives each touch its site_touch slot), and both engines' per-site counters must agree
 * slot by slot (faults, zeroed, bloat, RSS at the peak and at the end). Real trace
 * fixtures are checked the same way by tests/cli/replay.sh through `foliotrace replay
 * --check-oracle`.
 *
 *	FT_DIFF_SEEDS=N	seeds per policy (default 20)
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "lib/error.h"
#include "replay/replay.h"
#include "tests/unit/tap.h"

static const char *policies[] = {
	"order0", "mcpage:1", "mcpage:2", "mcpage:4", "mcpage:8", "mthp:16K,32K,64K",
	"mthp:8K,1M", "faultaround:4", "faultaround:16", "thp", "adaptive", "adaptive:max=1M",
	/* +mechanisms (the streams' events are 100us apart: a wake every 10 to 20 events) */
	"thp+khugepaged:max_ptes_none=480,pages=2048,scan_ms=1", "mthp:16K,64K+khugepaged:scan_ms=2",
	"thp+shrinker:max_ptes_none=409+limit:3M", "order0+limit:1M", "faultaround:16+limit:2M",
	"thp+khugepaged:scan_ms=1+shrinker:max_ptes_none=256+limit:3M", "mthp:16K,64K+limit:1M",
	/* +collapse: mTHP orders, both knob values, one with the limit (a charge stops) */
	"mthp:16K,32K,64K,128K,256K,512K,1M+collapse:scan_ms=1",
	"mthp:16K,64K+collapse:max_ptes_none=0,scan_ms=1", "mcpage:3+collapse:scan_ms=2+limit:2M",
	NULL,	/* persite:FILE, the site file main() writes */
};

/*
 * The persite site file: two of the slots' sites named, "[no call]" (a slot of its own, and
 * every fault on a trace without slots) at order 1, the rest ("[untraced]") at 5.
 */
static const char site_file[] = "3 a\n0 b\n1 [no call]\n5 *\n";

/* A small buddyinfo seed so large orders fail now and then. */
static const uint64_t seed_blocks[RP_MAX_ORDER + 1] = { 300, 80, 40, 20, 8, 4, 2, 1, 1, 1, 0 };
/* and a compaction pool that lasts for some of the order 1..3 requests that fail */
static uint64_t seed_movable = 64;

static int covered[RP_NR_METRICS];	/* metrics seen non-zero in some run */
/*
 * Orders added to a +collapse run's after parsing: the PMD order beside mTHP sizes, as the
 * kernel has them with THP always and an mTHP size enabled, which no fault-time policy of
 * the grammar expresses; pmd_in_walk counts the 2M collapses of those runs
 */
static unsigned int extra_orders;
static uint64_t pmd_in_walk;
static uint64_t persite_allocs[RP_PMD_ORDER + 1];	/* by order, over the persite runs */

/*
 * Site slots of the synthetic events: NSLOT of them, slot 0 '[untraced]' as replay's, each
 * event's a function of its process, its VMA and its place in the stream, so a page's
 * touches change site over time as a range unmapped and mapped again by another call does.
 */
#define NSLOT 5
/* by slot: two slots of site "a" (two modules, as load.c's slots are per (site, module)) */
static const char *const slot_names[NSLOT] = { "[untraced]", "a", "b", "[no call]", "a" };

static uint32_t slot_of(const struct ftdb_event *e, size_t i)
{
	return (uint32_t)((e->vma_id * 3 + e->proc_id + i / 50) % NSLOT);
}

/* per-site counters seen non-zero in some run: faults, zeroed, bloat, at_peak, rss */
static int site_covered[5];

static int compare_sites(const char *what, struct rp_sim *s, struct rp_oracle *o)
{
	const struct rp_site_counters *a, *b;
	uint32_t na, nb, k;
	int bad = 0;

	a = rp_sim_sites(s, &na);
	b = rp_oracle_sites(o, &nb);
	if (na != NSLOT || nb != NSLOT) {
		diag("%s: site slots: sim %u oracle %u, want %u", what, na, nb, NSLOT);
		return 0;
	}
	for (k = 0; k < NSLOT; k++) {
		site_covered[0] |= a[k].faults != 0;
		site_covered[1] |= a[k].zeroed != 0;
		site_covered[2] |= a[k].bloat != 0;
		site_covered[3] |= a[k].at_peak != 0;
		site_covered[4] |= a[k].rss != 0;
		if (memcmp(&a[k], &b[k], sizeof(a[k])) && bad++ < 5)
			diag("%s: slot %u: sim faults %llu zeroed %llu bloat %llu at_peak %llu rss "
			     "%llu, oracle %llu %llu %llu %llu %llu", what, k,
			     (unsigned long long)a[k].faults, (unsigned long long)a[k].zeroed,
			     (unsigned long long)a[k].bloat, (unsigned long long)a[k].at_peak,
			     (unsigned long long)a[k].rss, (unsigned long long)b[k].faults,
			     (unsigned long long)b[k].zeroed, (unsigned long long)b[k].bloat,
			     (unsigned long long)b[k].at_peak, (unsigned long long)b[k].rss);
	}
	return !bad;
}

static int compare(const char *what, struct rp_sim *s, struct rp_oracle *o, uint32_t nr_procs)
{
	const struct rp_counters *a, *b;
	uint32_t pid;
	unsigned int m;
	int bad = 0;

	for (pid = 0; pid <= nr_procs; pid++) {
		a = pid < nr_procs ? rp_sim_proc(s, pid) : rp_sim_total(s);
		b = pid < nr_procs ? rp_oracle_proc(o, pid) : rp_oracle_total(o);
		if (!a != !b) {
			diag("%s: process %u seen by one engine only", what, pid);
			return 0;
		}
		if (!a)
			continue;
		for (m = 0; m < RP_NR_METRICS; m++) {
			covered[m] |= a->v[m] != 0;
			if (a->v[m] != b->v[m] && bad++ < 5)
				diag("%s: %s %s: sim %llu oracle %llu", what,
				     pid < nr_procs ? "proc" : "total", rp_metric_name(m),
				     (unsigned long long)a->v[m], (unsigned long long)b->v[m]);
		}
	}
	return !bad;
}

/*
 * shadows: every third process (by proc_id) uncounted, whatever its parent; fails: if not
 * NULL, set to the run's alloc_fails
 */
static int run(const char *gen, uint64_t seed, size_t faults, const char *spec,
	       enum rp_frag_kind frag, int shadows, uint64_t *fails)
{
	struct rp_stream s;
	struct rp_trace t;
	uint8_t *counted = NULL;
	struct rp_policy p;
	struct rp_sim *sim;
	struct rp_oracle *o;
	uint32_t *slots;
	char what[160];
	size_t i;
	int r;

	if (rp_synth(gen, seed, faults, &s) || rp_policy_parse(spec, &p)) {
		diag("%s", error_text());
		error_clear();
		return 0;
	}
	if (p.mech.mthp)
		p.mech.collapse_orders |= (uint16_t)extra_orders;
	/*
	 * time: 100us an event, every seventh 150us back (time that runs backwards, as
	 * events of several cpus may), for rss_byte_seconds and khugepaged's wakes
	 */
	for (i = 0; i < s.nr; i++)
		s.ev[i].ts = 1000000 + i * 100000 - (i % 7 == 3 ? 150000 : 0);
	rp_stream_trace(&s, &t);
	t.nr_site_slots = NSLOT;
	t.slot_sites = slot_names;
	slots = calloc(s.nr ? s.nr : 1, sizeof(*slots));
	for (i = 0; i < s.nr; i++)
		slots[i] = slot_of(&s.ev[i], i);
	memcpy(t.free_blocks, seed_blocks, sizeof(seed_blocks));
	t.movable_pages = seed_movable;
	if (shadows) {
		counted = calloc(t.nr_procs, 1);
		for (i = 0; i < t.nr_procs; i++)
			counted[i] = i % 3 != 2;
		t.counted = counted;
	}
	sim = rp_sim_new(&p, frag, &t);
	o = rp_oracle_new(&p, frag, &t);
	/* feed in uneven batches, as the driver does */
	for (i = 0; i < s.nr;) {
		size_t n = 1 + (i * 7919 + seed) % 300;

		if (n > s.nr - i)
			n = s.nr - i;
		rp_sim_feed_sites(sim, s.ev + i, slots + i, n);
		rp_oracle_feed_sites(o, s.ev + i, slots + i, n);
		i += n;
	}
	rp_sim_finish(sim);
	rp_oracle_finish(o);
	snprintf(what, sizeof(what), "%s seed %llu %s%s frag=%s%s", gen, (unsigned long long)seed,
		 spec, p.mech.mthp && extra_orders ? " (and 2M)" : "", rp_frag_name(frag),
		 shadows ? " shadows" : "");
	r = compare(what, sim, o, s.nr_procs);
	if (p.mech.mthp && extra_orders)
		pmd_in_walk += rp_sim_total(sim)->v[rp_m_collapse(RP_PMD_ORDER)];
	r = compare_sites(what, sim, o) && r;
	if (fails)
		*fails = rp_sim_total(sim)->v[RP_M_ALLOC_FAILS];
	for (i = 0; !strncmp(spec, "persite:", 8) && i <= RP_PMD_ORDER; i++)
		persite_allocs[i] += rp_sim_total(sim)->v[RP_M_ALLOC_0 + i];
	if (r && rp_sim_total(sim)->v[RP_M_FAULTS] == 0) {
		diag("%s: no faults replayed", what);
		r = 0;
	}
	/* not vacuous: a shadow had events, and has no metrics */
	for (i = 0; shadows && i < s.nr && (counted[s.ev[i].proc_id] ||
					    rp_sim_proc(sim, s.ev[i].proc_id)); i++)
		;
	if (r && shadows && i == s.nr) {
		diag("%s: no shadow replayed", what);
		r = 0;
	}
	rp_sim_free(sim);
	rp_oracle_free(o);
	rp_stream_release(&s);
	free(slots);
	free(counted);
	return r;
}

/*
 * persite on a trace without site slots: every fault is "[no call]"'s, order 1 in the
 * file, so both engines must give mcpage:1's metrics exactly.
 */
static int persite_without_slots(uint64_t seed, const char *spec)
{
	struct rp_policy p, mc;
	struct rp_stream s;
	struct rp_trace t;
	struct rp_sim *a, *b;
	struct rp_oracle *o;
	int r;

	if (rp_synth("random", seed, 2000, &s) || rp_policy_parse(spec, &p) ||
	    rp_policy_parse("mcpage:1", &mc)) {
		diag("%s", error_text());
		error_clear();
		return 0;
	}
	rp_stream_trace(&s, &t);
	a = rp_sim_new(&p, RP_FRAG_NONE, &t);
	b = rp_sim_new(&mc, RP_FRAG_NONE, &t);
	o = rp_oracle_new(&p, RP_FRAG_NONE, &t);
	rp_sim_feed(a, s.ev, s.nr);
	rp_sim_feed(b, s.ev, s.nr);
	rp_oracle_feed(o, s.ev, s.nr);
	rp_sim_finish(a);
	rp_sim_finish(b);
	rp_oracle_finish(o);
	r = compare("persite without slots", a, o, s.nr_procs) &&
	    !memcmp(rp_sim_total(a), rp_sim_total(b), sizeof(struct rp_counters)) &&
	    rp_sim_total(b)->v[RP_M_ALLOC_0 + 1] > 0;
	rp_sim_free(a);
	rp_sim_free(b);
	rp_oracle_free(o);
	rp_stream_release(&s);
	return r;
}

static const char *persite_spec(const char *path)
{
	static char spec[64];

	snprintf(spec, sizeof(spec), "persite:%s", path);
	return spec;
}

int main(void)
{
	const char *env = getenv("FT_DIFF_SEEDS");
	unsigned int seeds = env ? (unsigned int)atoi(env) : 20, i, j, f, good;
	uint64_t fails = 0, nopool = 0;
	size_t np = sizeof(policies) / sizeof(policies[0]);

	char path[] = "/tmp/ft-replay-diff-sites.XXXXXX";
	int fd = mkstemp(path);

	if (fd < 0 || write(fd, site_file, strlen(site_file)) != (ssize_t)strlen(site_file))
		return fprintf(stderr, "cannot write a site file\n"), 1;
	close(fd);
	policies[np - 1] = persite_spec(path);
	plan((int)(np * 2 + 10));
	for (j = 0; j < np; j++) {
		for (f = 0; f < 2; f++) {
			good = 0;
			for (i = 0; i < seeds; i++)
				good += run("random", i + 1, 300 + i * 40, policies[j],
					    f ? RP_FRAG_BUDDYINFO : RP_FRAG_NONE, 0, NULL);
			ok(good == seeds, "random x %u seeds: %s frag=%s", seeds, policies[j],
			   f ? "buddyinfo" : "none");
		}
	}
	/* the walk with the PMD order among the mTHP ones: 2M collapses in it too */
	extra_orders = 1U << RP_PMD_ORDER;
	for (f = 0, good = 0; f < 2; f++)
		for (i = 0; i < seeds; i++)
			good += run("random", i + 1, 300 + i * 40, "mthp:16K,64K+collapse:scan_ms=1",
				    f ? RP_FRAG_BUDDYINFO : RP_FRAG_NONE, 0, NULL);
	extra_orders = 0;
	ok(good == 2 * seeds && pmd_in_walk > 0, "random x %u seeds, both frags: "
	   "mthp:16K,64K+collapse with 2M enabled too (THP always), %llu 2M collapses", seeds,
	   (unsigned long long)pmd_in_walk);
	/* the file's orders of the slots' sites: [untraced] 5 (*), a 3, [no call] 1, b 0 */
	ok(persite_allocs[5] && persite_allocs[3] && persite_allocs[1] && !persite_allocs[2] &&
	   !persite_allocs[4], "persite: blocks of orders 5, 3 and 1 (%llu, %llu, %llu), none "
	   "of 2 or 4: each touch got its slot's order", (unsigned long long)persite_allocs[5],
	   (unsigned long long)persite_allocs[3], (unsigned long long)persite_allocs[1]);
	ok(persite_without_slots(3, policies[np - 1]),
	   "persite without site slots: every fault [no call]'s, mcpage:1's metrics, oracle agrees");
	ok(run("kbuild-like", 7, 20000, "mthp:16K,32K,64K", RP_FRAG_NONE, 0, NULL),
	   "kbuild-like 20000 faults: mthp");
	ok(run("kbuild-like", 8, 20000, "adaptive", RP_FRAG_BUDDYINFO, 0, NULL),
	   "kbuild-like 20000 faults: adaptive frag=buddyinfo");
	for (f = 0; f < 2; f++) {
		for (i = 0, good = 0; i < seeds; i++)
			good += run("random", i + 1, 300 + i * 40, f ? "mcpage:4" : "order0",
				    f ? RP_FRAG_BUDDYINFO : RP_FRAG_NONE, 1, NULL);
		ok(good == seeds, "random x %u seeds, every third process a shadow: %s", seeds,
		   f ? "mcpage:4 frag=buddyinfo" : "order0 frag=none");
	}
	/*
	 * compaction must happen, else the engines' agreement says nothing about it: without
	 * the pool more order-2 requests fail
	 */
	good = run("kbuild-like", 8, 20000, "mcpage:2", RP_FRAG_BUDDYINFO, 0, &fails);
	seed_movable = 0;
	good = good && run("kbuild-like", 8, 20000, "mcpage:2", RP_FRAG_BUDDYINFO, 0, &nopool);
	diag("kbuild-like mcpage:2 alloc_fails: %llu with a pool of 64 pages, %llu without",
	     (unsigned long long)fails, (unsigned long long)nopool);
	ok(good && nopool > fails, "kbuild-like mcpage:2: the compaction pool saves failures");
	/*
	 * the streams must exercise every metric, else agreement proves little; fault_time_ns
	 * is the cost model's, computed from the others after both engines (replay/cost.h)
	 */
	for (j = 0, good = 1; j < RP_NR_METRICS; j++) {
		if (!covered[j] && j != RP_M_FB_0 + FTDB_FB_NONE &&
		    j != RP_M_FB_0 + FTDB_FB_RACE && j != RP_M_FAULT_TIME) {
			diag("metric %s never non-zero", rp_metric_name(j));
			good = 0;
		}
	}
	ok(good, "every metric exercised");
	ok(site_covered[0] && site_covered[1] && site_covered[2] && site_covered[3] &&
	   site_covered[4], "every per-site counter exercised (faults %d zeroed %d bloat %d "
	   "at_peak %d rss %d)", site_covered[0], site_covered[1], site_covered[2],
	   site_covered[3], site_covered[4]);
	unlink(path);
	return done_testing();
}
