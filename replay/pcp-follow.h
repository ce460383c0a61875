/* SPDX-License-Identifier: GPL-2.0 */
/*
 * pcp-follow.h - what a recorded event stream does to the order-0 per-cpu list
 * (replay/pcp.h): the allocations from it and the frees onto it, as the kernel mapped
 * them. For the cost model's calibration, which recorded allocation refilled the list
 * (docs/cost-model.md, "Per-cpu list refills"); and for a replay of a selection, the
 * processes outside it, whose frees the selection's faults take from the one list
 * (replay/run.c). The engines follow the selection's own under the replayed policy.
 *
 * Allocations of the list: a new-folio fault of order 0 that mapped it (not the zero page;
 * not one that wrote no PTE, a racing fault's), an anon_cow
 * (its 4K copy), an anon_zero_wp. Frees onto it: a page of one of those whose last
 * mapping goes (a munmap, MADV_DONTNEED, an mremap without a destination, an exit; a
 * COW's old page, after its copy is allocated, as wp_page_copy() does); a fork shares
 * the parent's pages with the child, an mremap moves them, MADV_FREE keeps them. Pages
 * of larger folios are not followed: they go back to the buddy allocator or their own
 * lists. The caller's list starts empty at the stream's start (its count then is not
 * recorded).
 */
#ifndef FT_REPLAY_PCP_FOLLOW_H
#define FT_REPLAY_PCP_FOLLOW_H

#include <stddef.h>
#include <stdint.h>

#include "db/stream.h"
#include "replay/pageset.h"
#include "replay/pcp.h"

/* What one event does to the list, in this order: allocs, then frees. */
struct rp_pcp_ops {
	uint32_t allocs;		/* 0 or 1 */
	uint64_t frees;			/* pages whose last mapping went */
};

struct rp_pcp_follow {
	uint64_t page_size;		/* the trace's, bytes */
	struct rp_pageset pages;	/* (process, page) -> id of its order-0 page */
	struct rp_pageset maps;		/* (0, id) -> mappings of that page, >= 1 */
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

/* ops applied to list l. Return: 1 if its allocation found l empty (a refill), else 0. */
static inline int rp_pcp_apply(struct rp_pcp *l, const struct rp_pcp_ops *ops)
{
	int refill = ops->allocs ? rp_pcp_alloc(l) : 0;
	uint64_t i;

	for (i = 0; i < ops->frees; i++)
		rp_pcp_free(l);
	return refill;
}

#endif /* FT_REPLAY_PCP_FOLLOW_H */
