/* SPDX-License-Identifier: GPL-2.0 */
/*
 * sim-int.h - the fast engine's state, shared by sim.c (faults, zaps, forks) and
 * sim-mech.c (the +mechanisms: the shrinker, khugepaged, the memory limit). Not an
 * interface: replay.h is. The page state invariants are stated in sim.c.
 */
#ifndef FT_REPLAY_SIM_INT_H
#define FT_REPLAY_SIM_INT_H

#include <stdint.h>

#include "replay/frag.h"
#include "replay/pageset.h"
#include "replay/pcp.h"
#include "replay/policy.h"
#include "replay/replay.h"
#include "replay/series.h"

#define LEAF_SHIFT	9
#define LEAF_PAGES	(1U << LEAF_SHIFT)	/* pages per leaf: one PMD range */
#define LEAF_MASK	(LEAF_PAGES - 1)

#define PG_ZERO		0x1
#define PG_TOUCHED	0x2
#define PG_COW		0x4
#define PG_WRITTEN	0x8	/* written since mapped: its contents are not all zeros (the
				 * shrinker's and khugepaged's "zero-filled" is !PG_WRITTEN) */
/* unmap_leaf() reads these bits of 8 pages' st bytes at once */
_Static_assert(PG_ZERO == 1 && PG_TOUCHED == 2 && PG_COW == 4, "st bits are 0, 1, 2");

struct leaf {
	uint64_t key;			/* vpn >> LEAF_SHIFT */
	struct leaf *next_free;		/* on rp_sim.free_leaves only */
	uint32_t vma;			/* vma_id of the latest first-touch fault here,
					 * UINT32_MAX: none (khugepaged's VMA of the range) */
	uint32_t thp;			/* serial of the THP mapped here (the deferred split
					 * list's key, sim-mech.c), 0: none */
	uint8_t pt;			/* the range has a page table: from its first page
					 * until a munmap, mremap or exit empties it (kept
					 * through MADV_DONTNEED, as the kernel keeps it) */
	uint64_t present[LEAF_PAGES / 64];	/* bit set: PTE not none */
	uint32_t nr_present;		/* bits set in present */
	uint8_t st[LEAF_PAGES];		/* PG_* */
	uint8_t ord[LEAF_PAGES];	/* order of the owning block */
	uint64_t pfn[LEAF_PAGES];	/* pfn of the page */
	uint32_t site[];		/* per-site accounting only: slot of the page's block */
};

struct proc {
	struct leaf **slot;		/* open addressing on key, NULL = empty */
	uint32_t cap;			/* slots, power of two */
	uint32_t nr;			/* leaves */
	struct leaf *last;		/* leaf of the previous lookup */
	uint64_t rss;			/* pages present and not zero page */
	uint64_t peak;			/* pages, max of rss */
	size_t leaf_size;		/* bytes of a leaf: with site[] or without */
	uint8_t shadow;			/* fed for its sharing only (rp_trace.counted) */
	uint8_t kh;			/* on khugepaged's list of mms (sim-mech.c) */
	uint32_t id;			/* its proc_id */
	uint64_t fault_end;		/* ts of its previous fault's record (cold faults,
					 * rp_cold_fault()), if faulted */
	uint8_t faulted;
	/*
	 * rss_byte_seconds as page lifetimes: sum of pages x s->now when mapped (t_in) and
	 * when unmapped (t_out), ns; the integral is t_out + rss x end - t_in (rp_sim_finish)
	 */
	unsigned __int128 t_in, t_out;
	struct rp_counters c;
};

struct moved {				/* a page in flight during mremap */
	uint64_t off;			/* pages from the start of the source */
	uint64_t pfn;
	uint32_t site;
	uint8_t st, ord;
};

struct rp_sim {
	struct rp_policy pol;
	void *pol_state;
	int large;			/* the policy can map more than 4K per fault */
	int plain4k;			/* a write fault maps 4K, no hook, no reason */
	const struct rp_vma *vmas;
	uint32_t nr_vmas;
	struct proc **procs;		/* indexed by proc_id, NULL until seen */
	uint32_t nr_procs;
	const uint8_t *counted;		/* rp_trace.counted, nr_counted entries; NULL: all */
	uint64_t cold_gap;		/* rp_trace.cold_gap, or RP_COLD_GAP_NS for 0 */
	uint32_t nr_counted;
	struct rp_alloc alloc;
	struct rp_pcp pcp;		/* the order-0 per-cpu list (replay/pcp.h) */
	struct rp_pageset shared;	/* pfn -> mapcount of pages shared after fork, only
					 * while the count is >= 2 */
	uint64_t rss;			/* pages, all processes */
	uint64_t peak;			/* pages, max of rss */
	/*
	 * page-table pages memory.max charges besides rss (+limit): the leaves of counted
	 * processes with pt set (a PTE table, or a PMD-mapped THP's deposited one), and
	 * table_pending 1 while a fault into a leaf without one has charged its table and
	 * not yet mapped a page there
	 */
	uint64_t tables;
	unsigned int table_pending;
	struct leaf *free_leaves;	/* emptied by exits, reused before malloc() */
	struct moved *mv;		/* mremap scratch, reused */
	size_t mv_cap;
	uint32_t vc_id;			/* VMA cache: vma_id of the last fault's VMA, */
	uint64_t vc_start, vc_end;	/* its pages [start, end) */
	unsigned int vc_a4k;		/* and the reason it always gets 4K */
	struct rp_counters total;
	int finished;
	/* per-site accounting; nr_slots 0: none; slot nr_slots holds the shadows' pages */
	uint32_t nr_slots;
	uint32_t cur;			/* slot charged for the touch being replayed */
	uint32_t slot;			/* its own slot (the shadows' too): the policy's */
	struct rp_site_counters *site;	/* by slot */
	uint64_t *snap;			/* by slot: its rss (pages) when the peak of version */
	uint64_t *snap_ver;		/* snap_ver was set; see site_rss() */
	uint64_t peak_ver;		/* times s->peak was raised */
	uint64_t now;			/* ns: ts of the event being replayed, or of a scan */
	uint64_t lat;			/* latency_ns of the touch being replayed */
	uint64_t end;			/* ns: ts of the last event fed */
	int slow_alloc;			/* alloc_page() goes out of line: buddy model, limit */
	struct sim_mech *mx;		/* the +mechanisms' state (sim-mech.c); NULL: none */
	/* the run's series (series.h), NULL: none; ser_next UINT64_MAX then */
	struct rp_series *ser;
	uint64_t ser_next;		/* trace clock, ns: end of its open interval */
	uint64_t win_max;		/* pages, max of rss since that interval began */
};

static inline uint64_t hash64(uint64_t k)
{
	return k * 0x9e3779b97f4a7c15ULL;
}

static inline uint32_t shared_get(const struct rp_pageset *h, uint64_t pfn)
{
	uint32_t n = rp_pageset_get(h, pfn);

	return n ? n : 1;
}

/* Drop one mapping of a shared page; removes the entry when one mapping is left. */
static inline void shared_dec(struct rp_pageset *h, uint64_t pfn)
{
	int64_t i = rp_pageset_slot(h, pfn);

	if (i >= 0 && --h->val[i] < 2)
		rp_pageset_del_slot(h, (uint64_t)i);
}

static inline struct leaf *leaf_find(struct proc *p, uint64_t key)
{
	uint32_t i;

	if (p->last && p->last->key == key)
		return p->last;
	if (!p->cap)
		return NULL;
	for (i = (uint32_t)(hash64(key) >> 40) & (p->cap - 1); p->slot[i];
	     i = (i + 1) & (p->cap - 1)) {
		if (p->slot[i]->key == key) {
			p->last = p->slot[i];
			return p->last;
		}
	}
	return NULL;
}

static inline int pg_present(const struct leaf *l, unsigned int i)
{
	return (l->present[i >> 6] >> (i & 63)) & 1;
}

/* Whether process id is a shadow: fed for what it shares, in no metric. */
static inline int is_shadow(const struct rp_sim *s, uint32_t id)
{
	return s->counted && id < s->nr_counted && !s->counted[id];
}

static inline void rss_add(struct rp_sim *s, struct proc *p, uint64_t pages)
{
	p->t_in += (unsigned __int128)pages * s->now;
	p->rss += pages;
	if (p->rss > p->peak)
		p->peak = p->rss;
	if (p->shadow)
		return;
	s->rss += pages;
	if (s->rss > s->win_max)
		s->win_max = s->rss;
	if (s->rss > s->peak) {
		s->peak = s->rss;
		s->peak_ver++;
	}
}

/*
 * Slot's resident pages change by delta. Called before rss_add(), which may raise the
 * peak: a slot's rss at the latest peak is its rss now unless it changed since, and then
 * snap holds it (saved at the first change after that peak). O(1), no scan per peak.
 */
static inline void site_rss(struct rp_sim *s, uint32_t slot, int64_t delta)
{
	if (s->snap_ver[slot] != s->peak_ver) {
		s->snap[slot] = s->site[slot].rss;
		s->snap_ver[slot] = s->peak_ver;
	}
	s->site[slot].rss += (uint64_t)delta;
}

static inline void rss_sub(struct rp_sim *s, struct proc *p, uint64_t pages)
{
	p->t_out += (unsigned __int128)pages * s->now;
	p->rss -= pages;
	if (!p->shadow)
		s->rss -= pages;
}

/*
 * The physical side of unmapping a non-zero page from one process. Return: 1 if its
 * memory went back (no other process maps it), 0 if a fork's sharer still maps it.
 */
static inline int put_page_mem(struct rp_sim *s, uint8_t st, uint64_t pfn)
{
	if ((st & PG_COW) && shared_get(&s->shared, pfn) >= 2) {
		shared_dec(&s->shared, pfn);
		return 0;
	}
	rp_alloc_put(&s->alloc, pfn);
	return 1;
}

/* put_page_mem(); a freed page of a folio of order ord goes towards its per-cpu list. */
static inline void release_page(struct rp_sim *s, uint8_t st, uint8_t ord, uint64_t pfn)
{
	if (put_page_mem(s, st, pfn))
		rp_pcp_free(&s->pcp, ord, 1);
}

/* ---- the +mechanisms (sim-mech.c); s->mx is NULL without any ---- */

struct sim_mech;

/* Set up s->mx for s->pol.mech (nothing without a mechanism); release it. */
void simx_new(struct rp_sim *s);
void simx_free(struct rp_sim *s);
/*
 * A charge of n pages against the limit (memory.max): 0 if s->rss + s->tables +
 * s->table_pending + n fits, or, for a
 * charge that may reclaim (reclaim 1), after a shrinker pass over the whole deferred
 * split list; 1 if it still does not (the allocation fails). A fault's large folio is
 * charged without reclaim (reclaim 0: GFP_TRANSHUGE_LIGHT under the default defrag).
 */
int simx_charge(struct rp_sim *s, uint64_t n, int reclaim);
/* A new PMD-mapped THP of p at leaf l (a fault's or a collapse's): the deferred list. */
void simx_thp(struct rp_sim *s, struct proc *p, struct leaf *l);
/* khugepaged's list of mms: p's first fault in a VMA it may collapse in; fork; exit. */
void simx_enter(struct rp_sim *s, struct proc *p, uint32_t vma_id);
void simx_fork(struct rp_sim *s, struct proc *child, struct proc *parent);
void simx_exit(struct rp_sim *s, struct proc *p);
/* The time (ns) of khugepaged's next wake, UINT64_MAX if none; run that wake (s->now). */
uint64_t simx_next_scan(struct rp_sim *s, uint64_t ts);
void simx_scan(struct rp_sim *s);

/*
 * Charge n pages if there is a limit, reclaiming first if reclaim and needed: 1 if it
 * does not fit (the allocation fails).
 */
static inline int over_limit(struct rp_sim *s, uint64_t n, int reclaim)
{
	return s->pol.mech.limit_pages && simx_charge(s, n, reclaim);
}

#endif /* FT_REPLAY_SIM_INT_H */
