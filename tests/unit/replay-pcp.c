// SPDX-License-Identifier: GPL-2.0
/*
 * replay-pcp.c - the per-cpu list refills (pcp_refills, replay/pcp.h) of streams too long
 * for replay-cases.c's table, built in loops, with answers computed by hand from 6.1's
 * rules (batch 63, high 1921, the drain doubling while frees run without an allocation).
 * Each case runs through both engines: the expected count, and the oracle agreeing on
 * every metric.
 *
 *  1. 64 first-touch 4K writes: the first refills 63 pages, the 64th finds the list empty
 *     again: 2.
 *  2. 63 writes, their munmap, 63 writes again: the 63 freed pages are back on the list,
 *     so the second 63 take them: 1.
 *  3. 64 writes, munmap, 64 writes under mcpage:2: 16 16K folios from the order-2 list,
 *     which refills 15 blocks (63 >> 2): the 1st and the 16th refill, 14 blocks left; the
 *     munmap puts the 16 back (30), the second 16 take them: 2, and 30 blocks taken.
 *     (Were the 16K folios not freed onto their list, 4; with no list of their own, 0.)
 *  4. 2000 writes (refills: 32, the list left with 32 x 63 - 2000 = 16), munmap of all,
 *     2000 writes. The frees: the 1905th brings the list to 1921 and drains 63 << 0 = 63
 *     (1858 left; free_factor 1), the 1968th to 1921 again and drains 63 << 1 = 126
 *     (1795; free_factor 2), the last 32 leave 1827. The second 2000 take 1827 pages
 *     without a refill, then 173 more need ceil(173 / 63) = 3: 32 + 3 = 35. (A drain of
 *     63 each time would give 34, no drain at all 32.)
 *  5. A fork: a parent writes 63 pages (1 refill, the list empty), forks, the child
 *     writes one of them: its copy refills the list (2; 62 left). The parent's exit frees
 *     only that page's original (the other 62 are still the child's): 63 on the list. The
 *     child writes 64 new pages: 63 from the list, the 64th refills: 3. (Were the shared
 *     pages freed at the parent's exit, the list would hold 125 and the answer be 2.)
 *
 * Then the lists of replay/pcp.h driven directly, against 6.1's free_unref_page_commit()
 * and free_pcppages_bulk():
 *
 *  6. free_high: 2000 order-0 allocations, their 2000 frees (1827 left, free_factor 2, as
 *     in 4), one order-2 allocation (free_factor 1, a refill of 15 blocks: 1883 pages) and
 *     its block freed: free_factor is not 0 and the order is 1-3, so every list drains
 *     (0 pages), and the next order-0 allocation refills. (Without free_high, 1887 pages
 *     and no refill.)
 *  7. The drain starts at the freeing order's list and goes round: one order-3 allocation
 *     (7 blocks refilled, 6 left: 48 pages), 1865 order-0 pages freed (1913), then an
 *     order-3 block freed: 1921 pages, a drain of 63 (free_factor 0): the 7 order-3 blocks
 *     (56 pages), then 7 order-0 pages: 1858 order-0 blocks, no order-3 one, free_factor 1.
 *  8. Frees are held until the next allocation and then given order 0's first: 8 pages of
 *     one order-3 folio, then 1913 order-0 pages, freed onto empty lists: the order-0
 *     pages go first (1913), the order-3 block brings the count to 1921 and the drain
 *     starts at its list: the block, then 55 order-0 pages (1858 order-0 blocks, no
 *     order-3 one). Given in the order freed, the 1913th order-0 page would reach 1921 and
 *     drain 63 of them (1850, and the order-3 block kept).
 */
#include <stdlib.h>
#include <string.h>

#include "lib/error.h"
#include "replay/pcp.h"
#include "replay/replay.h"
#include "tests/unit/steps.h"
#include "tests/unit/tap.h"

#define K 1024ULL
#define B 0x10000000ULL		/* 2M-aligned base of the VMA */
#define VMA_PAGES 4096ULL

static struct rp_stream s;
static uint64_t ts;

static void add(struct step st)
{
	struct ftdb_event e = step_event(&st);

	e.ts = ts += 1000;
	rp_stream_add(&s, &e);
}

/* n 4K writes of process p from page first of the VMA */
static void writes(uint32_t p, uint64_t first, uint64_t n)
{
	uint64_t i;

	for (i = 0; i < n; i++)
		add((struct step){ 'W', p, B + (first + i) * 4 * K, 0, 0, 1 });
}

static void check(const char *name, const char *policy, uint64_t want)
{
	struct rp_trace t;
	struct rp_policy pol;
	struct rp_sim *sim;
	struct rp_oracle *o;
	int m = rp_metric_lookup("pcp_refills");
	uint64_t got;

	rp_stream_trace(&s, &t);
	if (m < 0 || rp_policy_parse(policy, &pol)) {
		ok(0, "%s", name);
		ok(0, "%s: oracle agrees", name);
		return;
	}
	steps_replay(&pol, RP_FRAG_NONE, &t, s.ev, s.nr, &sim, &o);
	got = rp_sim_total(sim)->v[m];
	ok(got == want, "%s: pcp_refills %llu (want %llu)", name, (unsigned long long)got,
	   (unsigned long long)want);
	ok(!memcmp(rp_sim_total(sim), rp_oracle_total(o), sizeof(struct rp_counters)),
	   "%s: oracle agrees (pcp_refills %llu)", name,
	   (unsigned long long)rp_oracle_total(o)->v[m]);
	rp_sim_free(sim);
	rp_oracle_free(o);
}

/* a new stream with one VMA of VMA_PAGES pages */
static void start(void)
{
	rp_stream_release(&s);
	memset(&s, 0, sizeof(s));
	ts = 0;
	rp_stream_add_vma(&s, B, B + VMA_PAGES * 4 * K, 3);
}

/* A new stream: n writes of process 1 from page 0, their munmap, the n writes again. */
static void write_unmap_write(uint64_t n)
{
	start();
	writes(1, 0, n);
	add((struct step){ 'U', 1, B, B + n * 4 * K, 0, 0 });
	writes(1, 0, n);
}

/* Case 6 of the header: free_high. Return: the blocks of the last refill (63 wanted). */
static uint32_t free_high_case(struct rp_pcp *l)
{
	unsigned int i;

	memset(l, 0, sizeof(*l));
	for (i = 0; i < 2000; i++)
		(void)rp_pcp_alloc(l, 0);
	for (i = 0; i < 2000; i++)
		rp_pcp_free(l, 0, 1);
	rp_pcp_flush(l);
	if (l->count != 1827 || l->free_factor != 2)
		return 0;
	if (rp_pcp_alloc(l, 2) != 15 || l->count != 1883)
		return 0;
	for (i = 0; i < 4; i++)
		rp_pcp_free(l, 2, 1);
	rp_pcp_flush(l);
	return l->count ? 0 : rp_pcp_alloc(l, 0);
}

int main(void)
{
	struct rp_pcp l;
	unsigned int i;
	uint32_t got;

	plan(13);
	memset(&s, 0, sizeof(s));

	start();
	writes(1, 0, 64);
	check("64 writes", "order0", 2);

	write_unmap_write(63);
	check("63 writes, munmap, 63 writes", "order0", 1);

	write_unmap_write(64);
	check("64 writes, munmap, 64 writes in 16K folios", "mcpage:2", 2);

	write_unmap_write(2000);
	check("2000 writes, munmap, 2000 writes: two drains, the second doubled", "order0",
	      35);

	start();
	writes(1, 0, 63);
	add((struct step){ 'K', 2, 1, 0, 0, 0 });
	add((struct step){ 'C', 2, B, 0, 0, 0 });
	add((struct step){ 'X', 1, B, B + VMA_PAGES * 4 * K, 0, 0 });
	writes(2, 100, 64);
	check("a fork's shared pages stay until their last mapping goes", "order0", 3);

	got = free_high_case(&l);
	ok(got == 63, "free_high: an order-2 block freed with free_factor 1 drains every list, "
	   "the next order-0 allocation refills %u pages (want 63)", got);

	memset(&l, 0, sizeof(l));
	got = rp_pcp_alloc(&l, 3);
	for (i = 0; i < 1865; i++)
		rp_pcp_free(&l, 0, 1);
	rp_pcp_flush(&l);
	for (i = 0; i < 8; i++)
		rp_pcp_free(&l, 3, 1);
	rp_pcp_flush(&l);
	ok(got == 7 && l.blocks[0] == 1858 && !l.blocks[3] && l.count == 1858 &&
	   l.free_factor == 1,
	   "a drain from the order-3 list first, then order 0's: %u order-0 blocks, %u order-3 "
	   "(want 1858, 0)", l.blocks[0], l.blocks[3]);

	memset(&l, 0, sizeof(l));
	for (i = 0; i < 8; i++)
		rp_pcp_free(&l, 3, 1);
	for (i = 0; i < 1913; i++)
		rp_pcp_free(&l, 0, 1);
	(void)rp_pcp_alloc(&l, 1);	/* the flush; order 1's refill: 31 blocks, 62 pages */
	ok(l.blocks[0] == 1858 && !l.blocks[3],
	   "frees held, order 0's given first: %u order-0 blocks, %u order-3 (want 1858, 0)",
	   l.blocks[0], l.blocks[3]);

	rp_stream_release(&s);
	return done_testing();
}
