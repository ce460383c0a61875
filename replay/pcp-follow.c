// SPDX-License-Identifier: GPL-2.0
/*
 * pcp-follow.c - what a recorded stream does to the order-0 per-cpu list; see
 * pcp-follow.h. Each order-0 page gets an id when allocated; a mapping count per id says
 * when its last mapping goes (a fork's sharing), which frees it onto the list.
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

/* One mapping of page id gone; the last frees it onto the list (ops). */
static void put(struct rp_pcp_follow *f, uint32_t id, struct rp_pcp_ops *ops)
{
	uint64_t key = rp_ps_key(0, id);
	uint32_t n = rp_pageset_get(&f->maps, key);

	if (n > 1) {
		rp_pageset_set(&f->maps, key, n - 1);
		return;
	}
	(void)rp_pageset_del(&f->maps, key);
	ops->frees++;
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
 * An order-0 page allocated and mapped at (proc, page), replacing what the follower
 * had there (a COW's old page; a page a stream without its zap left behind).
 */
static void alloc_at(struct rp_pcp_follow *f, uint32_t proc, uint64_t page,
		     struct rp_pcp_ops *ops)
{
	uint64_t key = rp_ps_key(proc, page);
	uint32_t old = rp_pageset_get(&f->pages, key);

	ops->allocs = 1;
	if (!++f->next_id)	/* ids are never 0 (absent); 2^32 pages wrap */
		f->next_id = 1;
	rp_pageset_set(&f->pages, key, f->next_id);
	rp_pageset_set(&f->maps, rp_ps_key(0, f->next_id), 1);
	if (old)	/* after the allocation, as wp_page_copy() frees the old page */
		put(f, old, ops);
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

	ops->allocs = 0;
	ops->frees = 0;
	switch (ev->kind) {
	case FTDB_EV_FAULT:
		/* nr_ptes 0: a racing fault won (or none was allocated): nothing mapped */
		if (!ev->order && !(ev->flags & FTDB_EVF_ZERO_PAGE) && ev->nr_ptes)
			alloc_at(f, ev->proc_id, page, ops);
		return;
	case FTDB_EV_COW:
	case FTDB_EV_ZERO_WP:
		alloc_at(f, ev->proc_id, page, ops);
		return;
	case FTDB_EV_MM_DUP:
		if (ev->proc_id == (uint32_t)ev->aux)
			return;
		n = rp_pageset_copy_proc(&f->pages, ev->proc_id, (uint32_t)ev->aux, &f->tmp,
					 &f->tmp_cap);
		for (i = 0; i < n; i++) {
			uint64_t key = rp_ps_key(0, f->tmp[i].val);

			rp_pageset_set(&f->maps, key, rp_pageset_get(&f->maps, key) + 1);
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
