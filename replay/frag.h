/* SPDX-License-Identifier: GPL-2.0 */
/*
 * frag.h - physical page allocation for the simulator: which pfn a new block gets, and
 * whether an order can be allocated at all (the allocation failure model).
 *
 * Pfns are synthetic but meaningful: a block of order k is naturally aligned to 2^k pages
 * and two blocks never touch (none model), or come from a buddy allocator seeded from the
 * recorded /proc/buddyinfo (buddyinfo model), so "16 PTEs mapping 16 consecutive pfns of
 * one aligned block" (contpte) can be checked from pfns alone.
 *
 * Rule shared with the oracle (docs/policies.md, "allocation failure model"): an order-k
 * request takes the lowest-pfn free block of the smallest order >= k that has one, splits
 * it keeping the lower half, and frees the upper halves. Frees are per 4K page and merge
 * with a free buddy of the same order, up to order RP_MAX_ORDER.
 *
 * Compaction (buddyinfo model): an order-k request, 1 <= k <= RP_COMPACT_MAX_ORDER, that
 * finds no free block empties the next 2^k-aligned block of the movable pool (the pages
 * the recorded system held on its LRU lists, laid out above the seeded free blocks) by
 * taking 2^k order-0 pages as the migrated pages' new homes, and gets that block. It fails
 * when the pool has no such block left or fewer than 2^k pages are free. Pool pages skipped
 * to align a block are never compacted.
 */
#ifndef FT_REPLAY_FRAG_H
#define FT_REPLAY_FRAG_H

#include <stdint.h>

#include "replay/replay.h"

struct rp_alloc {
	enum rp_frag_kind kind;
	uint64_t next;			/* none model and overflow: next free pfn */
	uint64_t nr_pfns;		/* buddy model: pfns [0, nr_pfns) are managed */
	uint64_t *map[RP_MAX_ORDER + 1];	/* buddy: bit i set = block i<<k is free */
	uint64_t words[RP_MAX_ORDER + 1];	/* 64-bit words in map[k] */
	uint64_t hint[RP_MAX_ORDER + 1];	/* no free bit below word hint[k] */
	uint64_t nr_free[RP_MAX_ORDER + 1];	/* free blocks per order */
	uint64_t pool_next;		/* buddy: first pfn of the movable pool not compacted */
	uint64_t pool_end;		/* buddy: pool is [pool_next, pool_end), pool_end = nr_pfns */
};

/*
 * movable: pages in the movable pool (0: no compaction); the seed's free pages plus
 * movable may not exceed RP_BUDDY_MAX_PAGES.
 * Return: 0, or fail() if the seed fails rp_buddyinfo_check() or the pool does not fit
 * (nothing allocated).
 */
int rp_alloc_init(struct rp_alloc *a, enum rp_frag_kind kind,
		  const uint64_t free_blocks[RP_MAX_ORDER + 1], uint64_t movable);
void rp_alloc_release(struct rp_alloc *a);
/*
 * Return: 0 and *pfn set, or -1 if the model has no free block of that order and
 * compaction (orders 1..RP_COMPACT_MAX_ORDER) cannot make one.
 */
int rp_alloc_buddy_get(struct rp_alloc *a, unsigned int order, uint64_t *pfn);

/* A block of 2^order pages; the none model is inline: it is on every fault's path. */
static inline int rp_alloc_get(struct rp_alloc *a, unsigned int order, uint64_t *pfn)
{
	uint64_t n = 1ULL << order;

	if (a->kind == RP_FRAG_BUDDYINFO)
		return rp_alloc_buddy_get(a, order, pfn);
	*pfn = (a->next + n - 1) & ~(n - 1);
	a->next = *pfn + n + 1;	/* a gap: separate blocks are never adjacent */
	return 0;
}
/* A pfn outside the managed range for a request that failed but is mapped anyway (OOM). */
uint64_t rp_alloc_overflow(struct rp_alloc *a, unsigned int order);
void rp_alloc_buddy_put(struct rp_alloc *a, uint64_t pfn);

/* Free one 4K page previously handed out (overflow pfns are ignored). */
static inline void rp_alloc_put(struct rp_alloc *a, uint64_t pfn)
{
	if (a->kind == RP_FRAG_BUDDYINFO && pfn < a->nr_pfns)
		rp_alloc_buddy_put(a, pfn);
}

#endif /* FT_REPLAY_FRAG_H */
