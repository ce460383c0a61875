// SPDX-License-Identifier: GPL-2.0
/*
 * advise-probe.c - advise's probes (replay/advise-probe.c, by classes of blocks) against
 * their definition, the whole-trace probe advise ran before (kept here as the naive
 * oracle): for every site and order 1..8, the whole stream replayed with that site at the
 * order and every other at 0 (persite, frag none), its faults, and its bloat beyond the
 * all-zero replay's. Exactly equal, site by site and order by order, on synthetic streams:
 * random ones (forks, mremaps, munmaps, zero_wp and COW records), with shadows; the
 * kbuild-like one (every child forked from one parent sharing its heap) with calls of 2
 * events at site i % SITES as bench/sites-scale.sh lays them out; and a hand-made one
 * where every 256-page window holds many sites' first touches, is unmapped and faulted
 * again by other sites, moved by mremap, and inherited by a child that writes into it.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/error.h"
#include "replay/advise.h"
#include "replay/policy.h"
#include "replay/replay.h"
#include "tests/unit/tap.h"

#define MAXS 64

struct stream {
	struct rp_stream s;
	uint32_t *slots;
	const char **slot_names;	/* by slot */
	uint32_t nr_slots;
	char *sites[MAXS];		/* the distinct names but "[untraced]", sorted */
	size_t nr_sites;
	uint8_t *counted;		/* NULL: all */
};

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* sites: the slots' distinct names (slot 0, "[untraced]", is no site_call's) */
static void name_sites(struct stream *x)
{
	uint32_t i;
	size_t j;

	for (i = 1; i < x->nr_slots; i++) {
		for (j = 0; j < x->nr_sites && strcmp(x->sites[j], x->slot_names[i]); j++)
			;
		if (j == x->nr_sites && x->nr_sites < MAXS)
			x->sites[x->nr_sites++] = (char *)x->slot_names[i];
	}
	qsort(x->sites, x->nr_sites, sizeof(x->sites[0]), cmp_str);
}

static void trace_of(const struct stream *x, struct rp_trace *t)
{
	rp_stream_trace(&x->s, t);
	t->nr_site_slots = x->nr_slots;
	t->slot_sites = x->slot_names;
	t->counted = x->counted;
}

/* The whole stream under p: its totals. */
static struct rp_counters whole(const struct stream *x, const struct rp_policy *p)
{
	struct rp_trace t;
	struct rp_sim *sim;
	struct rp_counters c;

	trace_of(x, &t);
	sim = rp_sim_new(p, RP_FRAG_NONE, &t);
	rp_sim_feed_sites(sim, x->s.ev, x->slots, x->s.nr);
	rp_sim_finish(sim);
	c = *rp_sim_total(sim);
	rp_sim_free(sim);
	return c;
}

/*
 * Probes and oracle agree on every site and order; not vacuously: some probe gains faults,
 * some bloats, and the stream has forks and zaps if asked.
 */
static int check(const char *what, struct stream *x)
{
	struct rp_advice_site *got = calloc(x->nr_sites, sizeof(*got));
	int32_t *site = calloc(x->s.nr + 1, sizeof(*site));
	struct rp_counters base;
	struct rp_policy p0;
	struct rp_trace t;
	size_t i, j, gains = 0, bloats = 0, bad = 0;
	unsigned int k;

	for (i = 0; i < x->s.nr; i++) {
		const char *n = x->slot_names[x->slots[i]];

		site[i] = -1;
		for (j = 0; j < x->nr_sites; j++)
			if (!strcmp(n, x->sites[j]))
				site[i] = (int32_t)j;
	}
	rp_persite_policy(&p0, "*=0", NULL, NULL, 0, 0);
	base = whole(x, &p0);
	trace_of(x, &t);
	if (rp_advise_probe(&t, x->s.ev, site, x->s.nr, &base, got, x->nr_sites)) {
		diag("%s: %s", what, error_text());
		error_clear();
		bad++;
	}
	for (i = 0; !bad && i < x->nr_sites; i++)
		for (k = 0; k <= RP_MAX_FOLIO_ORDER; k++) {
			const char *name = x->sites[i];
			struct rp_counters c = base;
			struct rp_policy p;
			uint64_t bl;

			if (k) {
				rp_persite_policy(&p, "naive", &name, &k, 1, 0);
				c = whole(x, &p);
			}
			bl = c.v[RP_M_BLOAT] > base.v[RP_M_BLOAT] ?
			     c.v[RP_M_BLOAT] - base.v[RP_M_BLOAT] : 0;
			gains += c.v[RP_M_FAULTS] < base.v[RP_M_FAULTS];
			bloats += bl > 0;
			if (got[i].faults[k] == c.v[RP_M_FAULTS] && got[i].bloat[k] == bl)
				continue;
			if (!bad++)
				diag("%s: site %s order %u: faults %llu, bloat %llu; whole trace: "
				     "%llu, %llu", what, name, k,
				     (unsigned long long)got[i].faults[k],
				     (unsigned long long)got[i].bloat[k],
				     (unsigned long long)c.v[RP_M_FAULTS], (unsigned long long)bl);
		}
	if (!bad && (!gains || !bloats)) {
		diag("%s: vacuous: %zu probes gain faults, %zu bloat", what, gains, bloats);
		bad++;
	}
	ok(!bad, "%s: %zu sites x 8 orders as the whole-trace probe (%zu events; %zu gain "
	   "faults, %zu bloat)", what, x->nr_sites, x->s.nr, gains, bloats);
	free(got);
	free(site);
	return !bad;
}

static void stream_release(struct stream *x)
{
	rp_stream_release(&x->s);
	free(x->slots);
	free(x->counted);
	memset(x, 0, sizeof(*x));
}

/* random streams: slots as tests/unit/replay-diff.c's, two of site "a" (two modules) */
static const char *const rnd_names[] = { "[untraced]", "a", "b", "[no call]", "a", "c", "d" };

static void random_stream(struct stream *x, uint64_t seed, int shadows)
{
	size_t i;

	memset(x, 0, sizeof(*x));
	if (rp_synth("random", seed, 3000, &x->s))
		abort();
	x->slot_names = (const char **)rnd_names;
	x->nr_slots = sizeof(rnd_names) / sizeof(rnd_names[0]);
	x->slots = calloc(x->s.nr + 1, sizeof(*x->slots));
	for (i = 0; i < x->s.nr; i++)
		x->slots[i] = (uint32_t)((x->s.ev[i].vma_id * 3 + x->s.ev[i].proc_id + i / 40) %
					 x->nr_slots);
	if (shadows) {
		x->counted = calloc(x->s.nr_procs + 1, 1);
		for (i = 0; i < x->s.nr_procs; i++)
			x->counted[i] = i % 3 != 2;
	}
	name_sites(x);
}

static char site_buf[MAXS][8];
static const char *site_names[MAXS + 1];

/* nr site names s00.. after "[untraced]" */
static void many_sites(struct stream *x, uint32_t nr)
{
	uint32_t i;

	site_names[0] = "[untraced]";
	for (i = 1; i <= nr; i++) {
		snprintf(site_buf[i], sizeof(site_buf[i]), "s%02u", i);
		site_names[i] = site_buf[i];
	}
	x->slot_names = site_names;
	x->nr_slots = nr + 1;
}

/* kbuild-like: calls of 2 events, call i at site i % nr (bench/sites-scale.sh's layout) */
static void kbuild_stream(struct stream *x, uint32_t nr)
{
	size_t i;

	memset(x, 0, sizeof(*x));
	if (rp_synth("kbuild-like", 3, 6000, &x->s))
		abort();
	many_sites(x, nr);
	x->slots = calloc(x->s.nr + 1, sizeof(*x->slots));
	for (i = 0; i < x->s.nr; i++)
		x->slots[i] = 1 + (uint32_t)((i / 2) % nr);
	name_sites(x);
}

static void add(struct stream *x, uint8_t kind, uint32_t proc, uint32_t vma, uint64_t addr,
		uint64_t end, uint64_t aux, uint8_t reason, int write, uint32_t slot)
{
	struct ftdb_event e = { 0 };

	e.kind = kind;
	e.proc_id = proc;
	e.vma_id = vma;
	e.addr = addr;
	e.end = end;
	e.aux = aux;
	e.reason = reason;
	e.flags = write ? FTDB_EVF_WRITE : 0;
	rp_stream_add(&x->s, &e);
	x->slots = realloc(x->slots, x->s.nr * sizeof(*x->slots));
	x->slots[x->s.nr - 1] = slot;
}

/*
 * Shared windows: one 4M VMA at a 2M boundary; page i written at site 1 + i % 13 (some
 * pages read first), every 5th page skipped, so every window holds 13 sites; a munmap of
 * the second 1M and writes there again at other sites; an mremap of 512K onto the end of
 * the VMA; a fork whose child writes the skipped pages of the first 1M, then exits.
 */
static void shared_stream(struct stream *x)
{
	const uint64_t base = 0x40000000ULL, pg = RP_PAGE_SIZE;
	uint32_t vma;
	uint64_t i;

	memset(x, 0, sizeof(*x));
	many_sites(x, 13);
	vma = rp_stream_add_vma(&x->s, base, base + (4ULL << 20), 0x3);
	for (i = 0; i < 768; i++) {
		if (i % 5 == 4)
			continue;
		if (i % 7 == 0)
			add(x, FTDB_EV_FAULT, 1, vma, base + i * pg, 0, 0, 0, 0, 1 + (i + 3) % 13);
		add(x, FTDB_EV_FAULT, 1, vma, base + i * pg, 0, 0, 0, 1, 1 + i % 13);
	}
	add(x, FTDB_EV_ZAP, 1, 0, base + 256 * pg, base + 512 * pg, 0, FTDB_ZAP_MUNMAP, 0, 0);
	for (i = 300; i < 400; i += 2)
		add(x, FTDB_EV_FAULT, 1, vma, base + i * pg, 0, 0, 0, 1, 1 + (i / 3) % 13);
	add(x, FTDB_EV_ZAP, 1, 0, base + 512 * pg, base + 640 * pg,
	    base + 896 * pg, FTDB_ZAP_MREMAP, 0, 0);
	for (i = 896; i < 1024; i++)
		add(x, FTDB_EV_FAULT, 1, vma, base + i * pg, 0, 0, 0, 1, 1 + (i * 5) % 13);
	add(x, FTDB_EV_MM_DUP, 2, 0, 0, 0, 1, 0, 0, 0);
	for (i = 4; i < 256; i += 5)
		add(x, FTDB_EV_FAULT, 2, vma, base + i * pg, 0, 0, 0, 1, 1 + (i * 7) % 13);
	for (i = 0; i < 64; i += 3)
		add(x, FTDB_EV_COW, 2, 0, base + i * pg, 0, 0, 0, 1, 1 + i % 13);
	add(x, FTDB_EV_ZAP, 2, 0, base, base + (4ULL << 20), 0, FTDB_ZAP_EXIT, 0, 0);
	for (i = 4; i < 128; i += 5)
		add(x, FTDB_EV_FAULT, 1, vma, base + i * pg, 0, 0, 0, 1, 1 + (i * 3) % 13);
	name_sites(x);
}

/*
 * rp_sim_block_fits() on hand-made states: a 16-page VMA at a 64K boundary whose page 3 is
 * written, a NOHUGEPAGE VMA, an unknown VMA, a process never seen.
 */
static void block_fits(void)
{
	const uint64_t base = 0x40000000ULL, vpn = base >> RP_PAGE_SHIFT;
	struct stream x;
	struct rp_policy p;
	struct rp_trace t;
	struct rp_sim *sim;
	uint32_t v, nohuge;
	int r[8];

	memset(&x, 0, sizeof(x));
	many_sites(&x, 1);
	v = rp_stream_add_vma(&x.s, base, base + 16 * RP_PAGE_SIZE, 0x3);
	nohuge = rp_stream_add_vma(&x.s, base + (1ULL << 21), base + (1ULL << 21) +
				   16 * RP_PAGE_SIZE, 0x3 | RP_VM_NOHUGEPAGE);
	add(&x, FTDB_EV_FAULT, 1, v, base + 3 * RP_PAGE_SIZE, 0, 0, 0, 1, 0);
	trace_of(&x, &t);
	rp_persite_policy(&p, "*=0", NULL, NULL, 0, 0);
	sim = rp_sim_new(&p, RP_FRAG_NONE, &t);
	rp_sim_feed_sites(sim, x.s.ev, x.slots, x.s.nr);
	r[0] = rp_sim_block_fits(sim, 1, v, vpn + 1, 2);	/* pages 0..3: 3 present */
	r[1] = rp_sim_block_fits(sim, 1, v, vpn + 5, 2);	/* 4..7: absent */
	r[2] = rp_sim_block_fits(sim, 1, v, vpn + 9, 3);	/* 8..15 */
	r[3] = rp_sim_block_fits(sim, 1, v, vpn + 9, 4);	/* 0..15: 3 present */
	r[4] = rp_sim_block_fits(sim, 1, v, vpn + 9, 5);	/* 32 pages: past the VMA */
	r[5] = rp_sim_block_fits(sim, 1, nohuge, vpn + 512 + 1, 1);	/* always 4K */
	r[6] = rp_sim_block_fits(sim, 1, 999, vpn + 5, 1);	/* unknown VMA: the page */
	r[7] = rp_sim_block_fits(sim, 7, v, vpn + 1, 2);	/* a process never seen */
	ok(!r[0] && r[1] && r[2] && !r[3] && !r[4] && !r[5] && !r[6] && r[7],
	   "rp_sim_block_fits: %d%d%d%d%d%d%d%d, want 01100001 (a present page, absent blocks, "
	   "the VMA's edge, NOHUGEPAGE, an unknown VMA, a new process)", r[0], r[1], r[2], r[3],
	   r[4], r[5], r[6], r[7]);
	rp_sim_free(sim);
	stream_release(&x);
}

int main(void)
{
	struct stream x;
	uint64_t seed;

	plan(11);
	block_fits();
	for (seed = 1; seed <= 6; seed++) {
		char what[64];

		random_stream(&x, seed, seed > 3);
		snprintf(what, sizeof(what), "random seed %llu%s", (unsigned long long)seed,
			 seed > 3 ? " shadows" : "");
		check(what, &x);
		stream_release(&x);
	}
	kbuild_stream(&x, 40);
	check("kbuild-like, call i at site i % 40", &x);
	stream_release(&x);
	kbuild_stream(&x, 7);
	check("kbuild-like, call i at site i % 7", &x);
	stream_release(&x);
	shared_stream(&x);
	check("13 sites in every window, munmap, mremap, fork", &x);
	stream_release(&x);
	x.s.nr = 0;
	{	/* no events: every probe is the baseline */
		struct rp_advice_site s[1];
		struct rp_counters b = { { 0 } };
		struct rp_trace t;

		memset(&t, 0, sizeof(t));
		b.v[RP_M_FAULTS] = 7;
		memset(s, 0xff, sizeof(s));
		ok(!rp_advise_probe(&t, NULL, NULL, 0, &b, s, 1) && s[0].faults[8] == 7 &&
		   s[0].bloat[8] == 0 && s[0].faults[0] == 7, "no events: the baseline's 7 faults "
		   "at every order, no bloat");
	}
	return done_testing();
}
