/* SPDX-License-Identifier: GPL-2.0 */
/*
 * pcp.h - the per-cpu page lists anonymous folios of orders 0 to 3 come from, as 6.1's
 * mm/page_alloc.c runs them for one cpu's movable lists, shared by both engines and by
 * calibrate (docs/metrics.md, pcp_refills; docs/cost-model.md, "Per-cpu list refills").
 *
 * One list per order up to PAGE_ALLOC_COSTLY_ORDER (3), one count of the pages on all of
 * them. An allocation of order k halves free_factor; when list k is empty it refills
 * max(RP_PCP_BATCH >> k, 2) blocks from the buddy allocator (rmqueue_bulk(): the fault
 * pays it, in proportion to the blocks: docs/cost-model.md) and takes one. A freed block
 * goes back on its list; when the count reaches RP_PCP_HIGH pages, free_pcppages_bulk()
 * drains RP_PCP_BATCH << free_factor pages (nr_pcp_free(); free_factor then grows, up to
 * RP_PCP_SCALE_MAX, while frees run without an allocation), clamped to [RP_PCP_BATCH,
 * RP_PCP_HIGH - RP_PCP_BATCH], from the freeing order's list first, then the next orders'
 * in turn. A block of order 1-3 freed while free_factor is not 0 drains every list
 * (free_high: high-order pages kept from piling up). The lists start empty: their counts
 * when a trace begins are not recorded, which moves where the refills fall, not how many
 * there are.
 *
 * Frees are given in pages (rp_pcp_free()) and held until the next allocation
 * (rp_pcp_flush()): then a folio of order k goes back as a block for each 2^k of its
 * order's pages freed (the kernel frees the folio when its last mapping goes; an engine
 * that frees a folio's pages apart, a partial munmap then the rest, frees the block with
 * the page that completes it), order 0's first, then order 1's, 2's, 3's. Nothing but an
 * allocation sees the lists, so holding the frees changes nothing but their order, which
 * is the same whatever order an engine visits the pages in (the kernel's is the address
 * order of each zap: a drain that falls inside a zap of mixed orders may take other
 * blocks).
 *
 * BATCH and HIGH are the x86_64 guest's (2G, 1 cpu: /proc/zoneinfo's pagesets, 63 and
 * 1921; the arm64 guest's 63 and 1924); bench/pcp-refills.py runs the same model over a
 * trace beside the kernel's own count. What it leaves out: other cpus' lists (one list
 * for every process), the THP list (a refill of 2 PMD blocks, about 40 instructions on
 * x86_64's calibration against 318,000 for the fault), the other migrate types' lists
 * and their share of the count (page tables, slab, sockets), allocations the trace does
 * not show (file COWs, the page cache), the vmstat worker's drains, and 6.12's adaptive
 * batch (pcp->alloc_factor).
 */
#ifndef FT_REPLAY_PCP_H
#define FT_REPLAY_PCP_H

#include <stdint.h>

#include "replay/replay.h"

#define RP_PCP_BATCH		63U
#define RP_PCP_HIGH		1921U
#define RP_PCP_SCALE_MAX	5U	/* CONFIG_PCP_BATCH_SCALE_MAX of Debian's 6.1 */
#define RP_PCP_ORDERS		4U	/* lists of orders 0 .. PAGE_ALLOC_COSTLY_ORDER */

struct rp_pcp {
	uint32_t count;			/* pages on all the lists */
	uint32_t free_factor;		/* drains double while frees run without an allocation */
	uint32_t blocks[RP_PCP_ORDERS];	/* blocks on each order's list */
	uint32_t part[RP_PCP_ORDERS];	/* pages of order-k folios freed, < 2^k: the block
					 * goes back with the page that completes it */
	uint64_t held[RP_PCP_ORDERS];	/* pages freed since the last flush, by order */
};

/*
 * The order of the folios an allocation of order makes: itself, but for order 1, which
 * 6.1's patch 0002 splits into two 4K folios (docs/cost-model.md, "The model"): they are
 * freed one by one onto the order-0 list.
 */
static inline unsigned int rp_pcp_folio_order(unsigned int order)
{
	return order == 1 ? 0 : order;
}

/* The blocks a refill of order's list takes (__rmqueue_pcplist(); batch > 1). */
static inline uint32_t rp_pcp_batch(unsigned int order)
{
	uint32_t b = RP_PCP_BATCH >> order;

	return b < 2 ? 2 : b;
}

/* free_pcppages_bulk(): n pages off the lists, order's first, then round the others. */
static inline void rp_pcp_drain(struct rp_pcp *l, unsigned int order, uint32_t n)
{
	int64_t left = n < l->count ? n : l->count;

	while (left > 0) {
		while (!l->blocks[order])	/* count > 0: some list has a block */
			order = (order + 1) % RP_PCP_ORDERS;
		do {
			l->blocks[order]--;
			l->count -= 1U << order;
			left -= 1LL << order;
		} while (left > 0 && l->blocks[order]);
	}
}

/* A block of order (< RP_PCP_ORDERS) back on its list: free_unref_page_commit(). */
static inline void rp_pcp_free_block(struct rp_pcp *l, unsigned int order)
{
	uint32_t n = RP_PCP_BATCH << l->free_factor, max = RP_PCP_HIGH - RP_PCP_BATCH;

	l->blocks[order]++;
	l->count += 1U << order;
	if (l->free_factor && order) {	/* free_high: nr_pcp_high() 0, all of them */
		rp_pcp_drain(l, order, l->count);
		return;
	}
	if (l->count < RP_PCP_HIGH)
		return;
	if (n < max && l->free_factor < RP_PCP_SCALE_MAX)
		l->free_factor++;
	n = n < RP_PCP_BATCH ? RP_PCP_BATCH : n > max ? max : n;
	rp_pcp_drain(l, order, n);
}

/*
 * n pages of allocations of order order freed (their folios' last mappings gone), held;
 * see above. Order 1's pages are 4K folios (rp_pcp_folio_order()).
 */
static inline void rp_pcp_free(struct rp_pcp *l, unsigned int order, uint64_t n)
{
	if (order < RP_PCP_ORDERS)
		l->held[rp_pcp_folio_order(order)] += n;
}

/* The held frees onto the lists, order 0's first: whole blocks, the rest kept in part[]. */
static inline void rp_pcp_flush(struct rp_pcp *l)
{
	unsigned int k;
	uint64_t pages;

	for (k = 0; k < RP_PCP_ORDERS; k++) {
		if (!l->held[k])	/* part[k] < 2^k alone makes no block */
			continue;
		pages = l->held[k] + l->part[k];
		l->held[k] = 0;
		l->part[k] = (uint32_t)(pages & ((1U << k) - 1));
		for (pages >>= k; pages; pages--)
			rp_pcp_free_block(l, k);
	}
}

/*
 * One allocation of a folio of order order: from its list if it has one (order <
 * RP_PCP_ORDERS), else from the buddy allocator (nothing here). Return: the blocks the
 * refill it paid for took, 0 if it found its list not empty (or has none).
 */
static inline uint32_t rp_pcp_alloc(struct rp_pcp *l, unsigned int order)
{
	uint32_t refill = 0;

	if (order >= RP_PCP_ORDERS)
		return 0;
	rp_pcp_flush(l);
	l->free_factor >>= 1;
	if (!l->blocks[order]) {
		refill = rp_pcp_batch(order);
		l->blocks[order] = refill;
		l->count += refill << order;
	}
	l->blocks[order]--;
	l->count -= 1U << order;
	return refill;
}

/* rp_pcp_alloc(), counted in a process's counters v: pcp_refills, pcp_refill_blocks. */
static inline void rp_pcp_count(struct rp_pcp *l, unsigned int order, uint64_t *v)
{
	uint32_t blocks = rp_pcp_alloc(l, order);

	v[RP_M_PCP_REFILLS] += blocks != 0;
	v[RP_M_PCP_REFILL_BLOCKS] += blocks;
}

#endif /* FT_REPLAY_PCP_H */
