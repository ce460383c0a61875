// SPDX-License-Identifier: GPL-2.0
/*
 * pcp-follow.c - what a recorded stream does to the per-cpu lists; see pcp-follow.h.
 * Each folio of order 0-3 gets an id when allocated, which each of its pages maps to; a
 * count of the mappings of its pages says when the last goes (a fork's sharing, a COW
 * of one page), which frees it onto its order's list.
 */
#include <stdlib.h>
#include <string.h>

#include "replay/pcp-follow.h"

void rp_pcp_follow_init(struct rp_pcp_follow *f, uint64_t page_size)
{
	rp_pcp_follow_release(f);
	f->page_size = page_size;
}

void rp_pcp_follow_release(struct rp_pcp_follow *f)
{
	rp_pageset_release(&f->pages);
	rp_pageset_release(&f->maps);
	free(f->tmp);
	memset(f, 0, sizeof(*f));
}

/* maps values: mappings of a folio's pages << MAPS_SHIFT | the folio's order */
#define MAPS_SHIFT 2
#define MAPS_ORDER(v) ((v) & ((1U << MAPS_SHIFT) - 1))

/* One mapping of a page of folio id gone; the last frees the folio onto its list (ops). */
static void put(struct rp_pcp_follow *f, uint32_t id, struct rp_pcp_ops *ops)
{
	uint64_t key = rp_ps_key(0, id);
	uint32_t v = rp_pageset_get(&f->maps, key);

	if (v >> MAPS_SHIFT > 1) {
		rp_pageset_set(&f->maps, key, v - (1U << MAPS_SHIFT));
		return;
	}
	(void)rp_pageset_del(&f->maps, key);
	ops->frees[MAPS_ORDER(v)]++;
}

/* Every page of proc in [lo, hi) unmapped. */
static void unmap(struct rp_pcp_follow *f, uint32_t proc, uint64_t lo, uint64_t hi,
		  struct rp_pcp_ops *ops)
{
	size_t n, i;

	if (lo >= hi)
		return;
	n = rp_pageset_take(&f->pages, proc, lo, hi, &f->tmp, &f->tmp_cap);
	for (i = 0; i < n; i++)
		put(f, f->tmp[i].val, ops);
}

/*
 * A block of order (< RP_PCP_ORDERS) allocated and mapped at proc's naturally aligned
 * 2^order pages around page, replacing what the follower had there (a COW's old page; a
 * page a stream without its zap left behind): one folio, or two 4K ones of an order-1
 * block (rp_pcp_folio_order()).
 */
static void alloc_at(struct rp_pcp_follow *f, uint32_t proc, uint64_t page,
		     unsigned int order, struct rp_pcp_ops *ops)
{
	unsigned int fo = rp_pcp_folio_order(order);
	uint64_t n = 1ULL << order, first = page & ~(n - 1), i;

	ops->alloc = (int)order;
	for (i = 0; i < n; i++) {
		uint64_t key = rp_ps_key(proc, first + i);
		uint32_t old = rp_pageset_get(&f->pages, key);

		if (!(i & ((1ULL << fo) - 1))) {	/* a folio's first page: a new id */
			if (!++f->next_id)	/* ids are never 0 (absent); 2^32 folios wrap */
				f->next_id = 1;
			rp_pageset_set(&f->maps, rp_ps_key(0, f->next_id),
				       (1U << fo << MAPS_SHIFT) | fo);
		}
		rp_pageset_set(&f->pages, key, f->next_id);
		if (old)	/* after the allocation, as wp_page_copy() frees the old page */
			put(f, old, ops);
	}
}

/* An mremap that moved proc's pages [lo, hi) to dst, unmapping what was there. */
static void move(struct rp_pcp_follow *f, uint32_t proc, uint64_t lo, uint64_t hi,
		 uint64_t dst, struct rp_pcp_ops *ops)
{
	struct rp_page_val *moved;
	size_t n, i;

	n = rp_pageset_take(&f->pages, proc, lo, hi, &f->tmp, &f->tmp_cap);
	moved = f->tmp;
	f->tmp = NULL;		/* unmap() below needs the scratch */
	f->tmp_cap = 0;
	unmap(f, proc, dst, dst + (hi - lo), ops);
	for (i = 0; i < n; i++)
		rp_pageset_set(&f->pages, rp_ps_key(proc, dst + (moved[i].page - lo)),
			       moved[i].val);
	free(moved);
}

void rp_pcp_follow_event(struct rp_pcp_follow *f, const struct ftdb_event *ev,
			 struct rp_pcp_ops *ops)
{
	uint64_t page = ev->addr / f->page_size;
	uint64_t hi = (ev->end + f->page_size - 1) / f->page_size;
	size_t n, i;

	memset(ops, 0, sizeof(*ops));
	ops->alloc = -1;
	switch (ev->kind) {
	case FTDB_EV_FAULT:
		/* nr_ptes 0: a racing fault won (or none was allocated): nothing mapped */
		if (ev->order < RP_PCP_ORDERS && !(ev->flags & FTDB_EVF_ZERO_PAGE) && ev->nr_ptes)
			alloc_at(f, ev->proc_id, page, ev->order, ops);
		return;
	case FTDB_EV_COW:
	case FTDB_EV_ZERO_WP:
		alloc_at(f, ev->proc_id, page, 0, ops);
		return;
	case FTDB_EV_MM_DUP:
		if (ev->proc_id == (uint32_t)ev->aux)
			return;
		n = rp_pageset_copy_proc(&f->pages, ev->proc_id, (uint32_t)ev->aux, &f->tmp,
					 &f->tmp_cap);
		for (i = 0; i < n; i++) {
			uint64_t key = rp_ps_key(0, f->tmp[i].val);

			rp_pageset_set(&f->maps, key,
				       rp_pageset_get(&f->maps, key) + (1U << MAPS_SHIFT));
		}
		return;
	case FTDB_EV_ZAP:
		switch (ev->reason) {
		case FTDB_ZAP_FREE:	/* lazily freed: still mapped until reclaim */
			return;
		case FTDB_ZAP_EXIT:
			unmap(f, ev->proc_id, 0, RP_PS_ALL_PAGES, ops);
			return;
		case FTDB_ZAP_MREMAP:
			if (ev->aux)
				move(f, ev->proc_id, page, hi, ev->aux / f->page_size, ops);
			else	/* an mremap that shrank: its tail unmapped */
				unmap(f, ev->proc_id, page, hi, ops);
			return;
		default:	/* munmap, MADV_DONTNEED */
			unmap(f, ev->proc_id, page, hi, ops);
			return;
		}
	default:
		return;
	}
}
