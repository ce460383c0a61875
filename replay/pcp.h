/* SPDX-License-Identifier: GPL-2.0 */
/*
 * pcp.h - the per-cpu page list that 4K anonymous folios come from, as 6.1's
 * mm/page_alloc.c runs it for one cpu's order-0 movable list, shared by both engines
 * (docs/metrics.md, pcp_refills; docs/cost-model.md, "Per-cpu list refills").
 *
 * An order-0 allocation halves free_factor, refills RP_PCP_BATCH pages from the buddy
 * allocator when the list is empty (rmqueue_bulk(): the fault pays it) and takes one. A
 * freed order-0 page goes back on the list; when the list reaches RP_PCP_HIGH pages it
 * drains RP_PCP_BATCH << free_factor of them (nr_pcp_free(); free_factor then grows, up
 * to RP_PCP_SCALE_MAX, while frees run without an allocation), clamped to [RP_PCP_BATCH,
 * RP_PCP_HIGH - RP_PCP_BATCH]. The list starts empty: its count when a trace begins is
 * not recorded, which moves where the refills fall, not how many there are.
 *
 * BATCH and HIGH are the x86_64 guest's (2G, 1 cpu: /proc/zoneinfo's pagesets, 63 and
 * 1921); bench/pcp-refills.py runs the same model over a trace beside the kernel's own
 * count. What it leaves out: other cpus' lists (one list for every process), large
 * folios' own lists and pages, allocations the trace does not show (page tables, file
 * COWs), and the vmstat worker's drains.
 */
#ifndef FT_REPLAY_PCP_H
#define FT_REPLAY_PCP_H

#include <stdint.h>

#define RP_PCP_BATCH		63U
#define RP_PCP_HIGH		1921U
#define RP_PCP_SCALE_MAX	5U	/* CONFIG_PCP_BATCH_SCALE_MAX of Debian's 6.1 */

struct rp_pcp {
	uint32_t count;		/* pages on the list */
	uint32_t free_factor;	/* drains double while frees run without an allocation */
};

/* One order-0 allocation. Return: 1 if it refilled the list (a pcp_refills), else 0. */
static inline int rp_pcp_alloc(struct rp_pcp *l)
{
	int refill = l->count == 0;

	l->free_factor >>= 1;
	if (refill)
		l->count = RP_PCP_BATCH;
	l->count--;
	return refill;
}

/* One order-0 page freed onto the list, which drains above its high mark. */
static inline void rp_pcp_free(struct rp_pcp *l)
{
	uint32_t n = RP_PCP_BATCH << l->free_factor, max = RP_PCP_HIGH - RP_PCP_BATCH;

	if (++l->count < RP_PCP_HIGH)
		return;
	if (n < max && l->free_factor < RP_PCP_SCALE_MAX)
		l->free_factor++;
	n = n < RP_PCP_BATCH ? RP_PCP_BATCH : n > max ? max : n;
	l->count -= n < l->count ? n : l->count;
}

#endif /* FT_REPLAY_PCP_H */
