/* SPDX-License-Identifier: GPL-2.0 */
/*
 * pcp-follow.h - what a recorded event stream does to the per-cpu lists of orders 0-3
 * (replay/pcp.h): the allocations from them and the frees onto them, as the kernel mapped
 * them. For the cost model's calibration, which recorded allocation refilled its list
 * (docs/cost-model.md, "Per-cpu list refills"); and for a replay of a selection, the
 * processes outside it, whose frees the selection's faults take from the same lists
 * (replay/run.c). The engines follow the selection's own under the replayed policy.
 *
 * Allocations: a new-folio fault of order 0-3 that mapped it (not the zero page; not one
 * that wrote no PTE, a racing fault's), an anon_cow (its 4K copy), an anon_zero_wp.
 * Frees: a folio whose last mapping goes (a munmap, MADV_DONTNEED, an mremap without a
 * destination, an exit; a COW's old page, after its copy is allocated, as wp_page_copy()
 * does), as one block of its order; a fork shares the parent's pages with the child, an
 * mremap moves them, MADV_FREE keeps them. Folios of order 4 and up are not followed:
 * they come from the buddy allocator and go back to it. The caller's lists start empty
 * at the stream's start (their counts then are not recorded).
 */
#ifndef FT_REPLAY_PCP_FOLLOW_H
#define FT_REPLAY_PCP_FOLLOW_H

#include <stddef.h>
#include <stdint.h>

#include "db/stream.h"
#include "replay/pageset.h"
#include "replay/pcp.h"

/* What one event does to the lists, in this order: the allocation, then the frees. */
struct rp_pcp_ops {
	int alloc;			/* order of the folio allocated, -1: none */
	uint64_t frees[RP_PCP_ORDERS];	/* folios of each order whose last mapping went */
};

struct rp_pcp_follow {
	uint64_t page_size;		/* the trace's, bytes */
	struct rp_pageset pages;	/* (process, page) -> id of its folio */
	struct rp_pageset maps;		/* (0, id) -> mappings of the folio's pages, >= 1,
					 * << 2 | its order */
	uint32_t next_id;		/* ids handed out, from 1 */
	struct rp_page_val *tmp;	/* rp_pageset_take() scratch */
	size_t tmp_cap;
};

/* Start following a new stream of pages page_size bytes (f zeroed or released). */
void rp_pcp_follow_init(struct rp_pcp_follow *f, uint64_t page_size);
void rp_pcp_follow_release(struct rp_pcp_follow *f);

/* rp_pcp_follow_event - the next event of the stream, in order: what it does, into *ops. */
void rp_pcp_follow_event(struct rp_pcp_follow *f, const struct ftdb_event *ev,
			 struct rp_pcp_ops *ops);

/*
 * ops applied to lists l: its allocation, then its frees held until the next allocation,
 * as an engine's are (pcp.h), so that followed and replayed frees reach the lists in the
 * same order. Return: the blocks the refill of its allocation took (of the order
 * ops->alloc), 0 if it found its list not empty or there was none.
 */
static inline uint32_t rp_pcp_apply(struct rp_pcp *l, const struct rp_pcp_ops *ops)
{
	uint32_t refill = ops->alloc >= 0 ? rp_pcp_alloc(l, (unsigned int)ops->alloc) : 0;
	unsigned int k;

	for (k = 0; k < RP_PCP_ORDERS; k++)	/* frees[k]: folios of order k */
		rp_pcp_free(l, k, ops->frees[k] << k);
	return refill;
}

/* Whether ops does anything to the lists. */
static inline int rp_pcp_ops_any(const struct rp_pcp_ops *ops)
{
	unsigned int k;

	for (k = 0; k < RP_PCP_ORDERS; k++)
		if (ops->frees[k])
			return 1;
	return ops->alloc >= 0;
}

#endif /* FT_REPLAY_PCP_FOLLOW_H */
