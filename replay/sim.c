// SPDX-License-Identifier: GPL-2.0
/*
 * sim.c - the fast replay engine: one policy, one allocation model, a model page table per
 * process, fed the decoded event stream in recorded order. Semantics: docs/policies.md;
 * metrics: docs/metrics.md; the naive twin it must agree with exactly: oracle.c.
 *
 * Tuned for: tens of millions of first-touch faults per second per policy on one core,
 * mostly sequential within a process. The page table is a per-process open-addressing table
 * of 2M leaves (512 pages, the size of a PMD range) with a last-leaf cache, so a fault near
 * the previous one costs no hashing; presence is a 512-bit bitmap per leaf, so "are all
 * PTEs of this aligned block none" is one or a few word tests and a THP check is
 * nr_present == 0. Nothing is allocated per fault: leaves are allocated once per 2M range
 * touched and freed when the process exits. The event loop handles the common touches
 * inline (a present page; a write first touch under order0) and calls out of line for the
 * rest, so the common path pays no register saves; bench/replay-cg.sh counts its
 * instructions per event.
 *
 * Page state invariants (per process, per 4K page):
 *	present bit clear	=> st, ord, pfn are meaningless
 *	PG_ZERO			=> maps the shared zero page: no pfn, not in RSS, never bloat
 *	!PG_ZERO		=> owns 4K of the block pfn - (pfn & (2^ord - 1)) of order ord
 *	PG_COW			=> write-protected after fork; mapcount in s->shared if > 1
 *	PG_TOUCHED		=> touched since mapped (else it is bloat when unmapped)
 *	PG_WRITTEN		=> written since mapped (else zero-filled: the shrinker
 *				   frees it, sim-mech.c); implies PG_TOUCHED
 *
 * Per-site accounting (a trace with sites, t->nr_site_slots > 0): each non-zero present
 * page also holds the site slot of the touch whose fault allocated it (site[], moved by
 * mremap, copied by fork), so its RSS and bloat go to that site; a fault and the bytes it
 * zeroes go to the slot of the touch that took it. The slots' sums are the totals'.
 */
#include <stdlib.h>
#include <string.h>

#include "lib/error.h"
#include "lib/xalloc.h"
#include "replay/mech.h"
#include "replay/sim-int.h"

/* a write touch's FTDB_EVF_WRITE, shifted, is its page's PG_WRITTEN */
_Static_assert(FTDB_EVF_WRITE << 3 == PG_WRITTEN, "PG_WRITTEN is the write flag << 3");

/* ---- shared-page mapcounts (shared_get, shared_dec: sim-int.h) ---- */

static void shared_inc(struct rp_pageset *h, uint64_t pfn)
{
	int64_t i = rp_pageset_slot(h, pfn);

	if (i >= 0)
		h->val[i]++;
	else
		rp_pageset_add(h, pfn, 2);
}

/* ---- per-process leaf table ---- */

static void proc_insert(struct proc *p, struct leaf *l)
{
	uint32_t i;

	for (i = (uint32_t)(hash64(l->key) >> 40) & (p->cap - 1); p->slot[i];
	     i = (i + 1) & (p->cap - 1))
		;
	p->slot[i] = l;
}

static void proc_rehash(struct proc *p, uint32_t cap)
{
	struct leaf **old = p->slot;
	uint32_t oc = p->cap, i;

	p->slot = xcalloc(cap, sizeof(*p->slot));
	p->cap = cap;
	for (i = 0; i < oc; i++)
		if (old[i])
			proc_insert(p, old[i]);
	free(old);
}

/*
 * The leaf of key in p, made if needed. A leaf freed by an exit is reused first: a real
 * program's stream (a build: a thousand short processes, a few pages in each of a few 2M
 * ranges) makes and frees a leaf per few faults, and malloc() of 5K cost more than the
 * faults. Every leaf of a simulator has the same size (with site[] or without).
 */
static struct leaf *leaf_get(struct rp_sim *s, struct proc *p, uint64_t key)
{
	struct leaf *l = leaf_find(p, key);

	if (l)
		return l;
	if ((p->nr + 1) * 2 > p->cap)
		proc_rehash(p, p->cap ? p->cap * 2 : 16);
	l = s->free_leaves;
	if (l)
		s->free_leaves = l->next_free;
	else
		l = xmalloc(p->leaf_size);
	l->key = key;
	l->vma = UINT32_MAX;
	l->thp = 0;
	l->pt = 0;
	memset(l->present, 0, sizeof(l->present));
	l->nr_present = 0;
	proc_insert(p, l);
	p->nr++;
	p->last = l;
	return l;
}

/* Free the leaves that hold no page (after an exit) for reuse, rebuilding the table. */
static void proc_compact(struct rp_sim *s, struct proc *p)
{
	struct leaf **old = p->slot;
	uint32_t oc = p->cap, i;

	p->slot = NULL;
	p->cap = 0;
	p->nr = 0;
	p->last = NULL;
	for (i = 0; i < oc; i++) {
		if (!old[i])
			continue;
		if (!old[i]->nr_present) {
			old[i]->next_free = s->free_leaves;
			s->free_leaves = old[i];
			continue;
		}
		if ((p->nr + 1) * 2 > p->cap)
			proc_rehash(p, p->cap ? p->cap * 2 : 16);
		proc_insert(p, old[i]);
		p->nr++;
	}
	free(old);
}

/* 1 if pages [i, i + n) of the leaf are all absent; n is a power of two, i aligned to n. */
static inline int block_absent(const struct leaf *l, unsigned int i, unsigned int n)
{
	unsigned int w;

	if (n == LEAF_PAGES)	/* a PMD block (thp): one test, not 8 words */
		return !l->nr_present;
	if (n >= 64) {
		for (w = i >> 6; w < (i + n) >> 6; w++)
			if (l->present[w])
				return 0;
		return 1;
	}
	return !(l->present[i >> 6] & (((1ULL << n) - 1) << (i & 63)));
}

/* ---- accounting ---- */

static __attribute__((noinline)) struct proc *proc_new(struct rp_sim *s, uint32_t id)
{
	if (id >= s->nr_procs) {
		uint32_t n = id + 1 > s->nr_procs * 2 ? id + 1 : s->nr_procs * 2;

		s->procs = xrealloc(s->procs, n * sizeof(*s->procs));
		memset(s->procs + s->nr_procs, 0, (n - s->nr_procs) * sizeof(*s->procs));
		s->nr_procs = n;
	}
	if (!s->procs[id]) {
		s->procs[id] = xcalloc(1, sizeof(struct proc));
		s->procs[id]->leaf_size = sizeof(struct leaf) +
					  (s->nr_slots ? LEAF_PAGES * sizeof(uint32_t) : 0);
		s->procs[id]->shadow = (uint8_t)is_shadow(s, id);
		s->procs[id]->id = id;
	}
	return s->procs[id];
}

static inline struct proc *proc_of(struct rp_sim *s, uint32_t id)
{
	return id < s->nr_procs && s->procs[id] ? s->procs[id] : proc_new(s, id);
}

/* A fault of the current touch allocated n pages at leaf index i.. of l. */
static inline void site_alloc(struct rp_sim *s, struct leaf *l, unsigned int i, unsigned int n)
{
	unsigned int j;

	if (!s->nr_slots)
		return;
	for (j = 0; j < n; j++)
		l->site[i + j] = s->cur;
	site_rss(s, s->cur, n);
	s->site[s->cur].zeroed += (uint64_t)n << RP_PAGE_SHIFT;
}

static inline void site_fault(struct rp_sim *s)
{
	if (s->nr_slots)
		s->site[s->cur].faults++;
}

/* An order-0 allocation over the limit or without memory: the memcg's (or the zone's) OOM. */
static inline void count_oom(struct proc *p)
{
	p->c.v[RP_M_ALLOC_FAILS]++;
	p->c.v[RP_M_OOM]++;
}

/*
 * One 4K allocation that must succeed (zero_wp, COW, the 4K fallback). Over the limit it
 * is the memcg's OOM: counted, and mapped anyway, as a failed buddy allocation is.
 */
static __attribute__((noinline)) uint64_t alloc_page_slow(struct rp_sim *s, struct proc *p)
{
	int oom = over_limit(s, 1, 1);
	uint64_t pfn;

	if (rp_alloc_get(&s->alloc, 0, &pfn)) {
		oom = 1;
		pfn = rp_alloc_overflow(&s->alloc, 0);
	}
	if (oom)
		count_oom(p);
	p->c.v[RP_M_ALLOC_0]++;
	rp_pcp_count(&s->pcp, 0, p->c.v);
	return pfn;
}

static inline uint64_t alloc_page(struct rp_sim *s, struct proc *p)
{
	uint64_t pfn;

	if (s->slow_alloc)
		return alloc_page_slow(s, p);
	(void)rp_alloc_get(&s->alloc, 0, &pfn);	/* the none model never fails */
	p->c.v[RP_M_ALLOC_0]++;
	rp_pcp_count(&s->pcp, 0, p->c.v);
	return pfn;
}

/* Leaf l of p, without a page table, gets a page: its table (s->tables), no longer pending. */
static inline void leaf_table(struct rp_sim *s, const struct proc *p, struct leaf *l)
{
	l->pt = 1;
	s->table_pending = 0;
	if (!p->shadow)
		s->tables++;
}

/*
 * After an unmap in leaf l of p: a munmap, mremap or exit (keep 0) that left it no page
 * frees its page table (free_pgtables()); MADV_DONTNEED (keep 1) leaves the table.
 */
static inline void leaf_unmapped(struct rp_sim *s, const struct proc *p, struct leaf *l,
				 int keep)
{
	if (!l->nr_present && l->pt && !keep) {
		l->pt = 0;
		if (!p->shadow)
			s->tables--;
	}
}

/* Set page i of p's leaf l present with the given state. */
static inline void pg_set(struct rp_sim *s, const struct proc *p, struct leaf *l, unsigned int i,
			  uint8_t st, uint8_t ord, uint64_t pfn)
{
	if (!l->pt)
		leaf_table(s, p, l);
	l->present[i >> 6] |= 1ULL << (i & 63);
	l->nr_present++;
	l->st[i] = st;
	l->ord[i] = ord;
	l->pfn[i] = pfn;
}

/*
 * Set n bytes (a power of two) to v. The blocks of large-order policies are a few pages:
 * a call of memset() per block cost more than the block's other work.
 */
static inline void fill_bytes(uint8_t *d, uint8_t v, unsigned int n)
{
	uint64_t pat = v * 0x0101010101010101ULL;
	unsigned int j;

	if (n >= 8) {
		for (j = 0; j < n; j += 8)
			memcpy(d + j, &pat, 8);
	} else if (n == 4) {
		memcpy(d, &pat, 4);
	} else if (n == 2) {
		memcpy(d, &pat, 2);
	} else {
		*d = v;
	}
}

/* Map a new zeroed block of 2^k pages at leaf index i; the page at fi is the one touched. */
static void map_block(struct rp_sim *s, struct proc *p, struct leaf *l, unsigned int i,
		      unsigned int k, uint64_t pfn, unsigned int fi, int pmd)
{
	unsigned int n = 1U << k, j;

	/* the block is aligned to n and lies in one leaf; all its pages were absent */
	if (!l->pt)
		leaf_table(s, p, l);
	if (n >= 64)
		memset(&l->present[i >> 6], 0xff, (n >> 6) * sizeof(uint64_t));
	else
		l->present[i >> 6] |= ((1ULL << n) - 1) << (i & 63);
	l->nr_present += n;
	fill_bytes(&l->st[i], 0, n);
	l->st[fi] = PG_TOUCHED | PG_WRITTEN;
	fill_bytes(&l->ord[i], (uint8_t)k, n);
	for (j = 0; j < n; j++)
		l->pfn[i + j] = pfn + j;
	site_alloc(s, l, i, n);
	rss_add(s, p, n);
	p->c.v[RP_M_ALLOC_0 + k]++;
	rp_pcp_count(&s->pcp, k, p->c.v);
	p->c.v[RP_M_ZEROED] += (uint64_t)n << RP_PAGE_SHIFT;
	if (pmd) {
		p->c.v[RP_M_PTE_WRITES]++;
		p->c.v[RP_M_PMD_MAPS]++;
		if (s->mx)
			simx_thp(s, p, l);
	} else {
		p->c.v[RP_M_PTE_WRITES] += n;
		if (k >= 4)
			p->c.v[RP_M_CONTPTE_RUNS] += 1ULL << (k - 4);
	}
}

/* ---- the fault paths ---- */

/*
 * +limit: a fault into an empty leaf allocates its PTE table first (pte_alloc() in
 * do_anonymous_page(), GFP_PGTABLE_USER: charged, may reclaim); pending until the fault
 * maps a page there. Over the limit it is the memcg's OOM, counted, and allocated anyway.
 */
static __attribute__((noinline)) void table_charge(struct rp_sim *s, struct proc *p)
{
	if (over_limit(s, 1, 1))
		count_oom(p);
	s->table_pending = 1;
}

/* 1 if a fault into leaf l charges a page table: under +limit, the leaf without one */
static inline int needs_table(const struct rp_sim *s, const struct leaf *l)
{
	return s->pol.mech.limit_pages && !l->pt;
}

/* always4k value of a VMA THP never serves and the kernel gives no reason for (no knob) */
#define NO_THP	0xffU

/*
 * A read maps the 4K zero page with reason read, as the patched kernel reports it whenever
 * larger orders are enabled, whatever the VMA; thp instead tries the huge zero page.
 */
static void fault_read(struct rp_sim *s, struct proc *p, struct leaf *l, unsigned int i,
		       const struct rp_fault *f, unsigned int always4k)
{
	unsigned int reason = FTDB_FB_NONE, j;

	if (needs_table(s, l))	/* the huge zero page's deposited table, or the PTE table */
		table_charge(s, p);
	if (!(s->pol.ops->flags & RP_POL_PMD)) {
		if (s->large)
			reason = FTDB_FB_READ;
	} else if (always4k) {
		reason = always4k == NO_THP ? FTDB_FB_NONE : always4k;
	} else {
		uint64_t b = f->vpn & ~(uint64_t)LEAF_MASK;

		if (b < f->vma_start || b + LEAF_PAGES > f->vma_end) {
			reason = FTDB_FB_VMA_EDGE;
		} else if (l->nr_present) {
			reason = FTDB_FB_PTE_POPULATED;
		} else {
			for (j = 0; j < LEAF_PAGES; j++)
				pg_set(s, p, l, j, PG_ZERO, 0, 0);
			p->c.v[RP_M_PTE_WRITES]++;
			p->c.v[RP_M_HUGE_ZERO_MAPS]++;
			return;
		}
	}
	if (reason)
		p->c.v[RP_M_FB_0 + reason]++;
	pg_set(s, p, l, i, PG_ZERO, 0, 0);
	p->c.v[RP_M_PTE_WRITES]++;
	p->c.v[RP_M_ZERO_MAPS]++;
}

static void fault_window(struct rp_sim *s, struct proc *p, struct leaf *l, unsigned int i,
			 const struct rp_fault *f)
{
	uint64_t n = s->pol.window, b = f->vpn & ~(n - 1), v;
	uint64_t lo = b < f->vma_start ? f->vma_start : b;
	uint64_t hi = b + n > f->vma_end ? f->vma_end : b + n;
	uint64_t base = f->vpn & ~(uint64_t)LEAF_MASK, pfn;
	unsigned int mapped = 0, failed = 0;

	if (needs_table(s, l))
		table_charge(s, p);
	/* the faulting page first: it must be mapped even if the others cannot be */
	pfn = alloc_page(s, p);
	pg_set(s, p, l, i, PG_TOUCHED | PG_WRITTEN, 0, pfn);
	site_alloc(s, l, i, 1);
	mapped++;
	for (v = lo; v < hi; v++) {
		unsigned int j = (unsigned int)(v - base);

		if (v == f->vpn || pg_present(l, j))
			continue;
		if (over_limit(s, 1, 1) || rp_alloc_get(&s->alloc, 0, &pfn)) {
			p->c.v[RP_M_ALLOC_FAILS]++;
			failed = 1;
			break;
		}
		p->c.v[RP_M_ALLOC_0]++;
		rp_pcp_count(&s->pcp, 0, p->c.v);
		pg_set(s, p, l, j, 0, 0, pfn);
		site_alloc(s, l, j, 1);
		mapped++;
	}
	if (failed)
		p->c.v[RP_M_FB_0 + FTDB_FB_ALLOC_FAILED]++;
	rss_add(s, p, mapped);
	p->c.v[RP_M_ZEROED] += (uint64_t)mapped << RP_PAGE_SHIFT;
	p->c.v[RP_M_PTE_WRITES] += mapped;
}

static void fault_write(struct rp_sim *s, struct proc *p, struct leaf *l, unsigned int i,
			const struct rp_fault *f, unsigned int always4k)
{
	uint8_t orders[RP_PMD_ORDER];
	unsigned int n = 0, reason = FTDB_FB_NONE, k, t;
	uint64_t pfn, b;
	int table = needs_table(s, l), pmd;

	if (always4k) {
		if (s->large && always4k != NO_THP)
			reason = always4k;
	} else if (s->pol.window) {
		fault_window(s, p, l, i, f);
		return;
	} else if (s->pol.ops->orders) {
		n = s->pol.ops->orders(&s->pol, s->pol_state, f, orders);
	}
	for (t = 0; t < n; t++) {
		k = orders[t];
		pmd = k == RP_PMD_ORDER && (s->pol.ops->flags & RP_POL_PMD);
		/*
		 * +limit: a THP's table is charged after its folio (pte_alloc_one() in
		 * __do_huge_pmd_anonymous_page()), any other's before (do_anonymous_page())
		 */
		if (table && !pmd) {
			table_charge(s, p);
			table = 0;
		}
		b = f->vpn & ~((1ULL << k) - 1);
		if (b < f->vma_start || b + (1ULL << k) > f->vma_end) {
			if (!reason)
				reason = FTDB_FB_VMA_EDGE;
			continue;
		}
		if (!block_absent(l, (unsigned int)(b & LEAF_MASK), 1U << k)) {
			if (!reason)
				reason = FTDB_FB_PTE_POPULATED;
			continue;
		}
		/*
		 * the charge first (memory.max): the kernel allocates, then charges; a large
		 * folio's charge does not reclaim (vma_thp_gfp_mask() under the default defrag)
		 */
		if (over_limit(s, 1ULL << k, k == 0) || rp_alloc_get(&s->alloc, k, &pfn)) {
			p->c.v[RP_M_ALLOC_FAILS]++;
			if (!reason)
				reason = FTDB_FB_ALLOC_FAILED;
			continue;
		}
		map_block(s, p, l, (unsigned int)(b & LEAF_MASK), k, pfn, i, pmd);
		if (table && over_limit(s, 0, 1))	/* the deposited table, after the THP */
			count_oom(p);
		if (reason)
			p->c.v[RP_M_FB_0 + reason]++;
		if (s->pol.ops->mapped)
			s->pol.ops->mapped(s->pol_state, f, b, k);
		return;
	}
	if (reason)
		p->c.v[RP_M_FB_0 + reason]++;
	if (table)
		table_charge(s, p);
	pfn = alloc_page(s, p);
	pg_set(s, p, l, i, PG_TOUCHED | PG_WRITTEN, 0, pfn);
	site_alloc(s, l, i, 1);
	rss_add(s, p, 1);
	p->c.v[RP_M_ZEROED] += RP_PAGE_SIZE;
	p->c.v[RP_M_PTE_WRITES]++;
	if (s->pol.ops->mapped && !always4k)
		s->pol.ops->mapped(s->pol_state, f, f->vpn, 0);
}

/*
 * Write fault on a page shared copy-on-write: map a private 4K copy. The old page loses
 * this mapping and is freed once no process maps it. A COW of a page of a large folio
 * (order 2 and up) counts in RP_M_COW_LARGE too: the cost model prices it more. The
 * per-cpu list sees the kernel's order (wp_page_copy() allocates the copy, then frees
 * the old page), the allocator model the engines' (freed first, as before that list).
 */
static void cow_copy(struct rp_sim *s, struct proc *p, struct leaf *l, unsigned int i)
{
	int freed = put_page_mem(s, l->st[i], l->pfn[i]);
	unsigned int ord = l->ord[i];

	p->c.v[RP_M_COW_LARGE] += ord >= 2;
	l->st[i] = PG_TOUCHED | PG_WRITTEN;
	l->ord[i] = 0;
	l->pfn[i] = alloc_page(s, p);
	if (freed)
		rp_pcp_free(&s->pcp, ord, 1);
	p->c.v[RP_M_COW]++;
	p->c.v[RP_M_PTE_WRITES]++;
}

/* A fault of p in the record being replayed (s->now, s->lat): counted, cold or not. */
static inline void count_fault(struct rp_sim *s, struct proc *p)
{
	p->c.v[RP_M_FAULTS]++;
	p->c.v[RP_M_COLD_FAULTS] += (uint64_t)rp_cold_fault(p->faulted, p->fault_end, s->now,
							    s->lat, s->cold_gap);
	p->fault_end = s->now;
	p->faulted = 1;
}

/* A first-touch fault of p into leaf l: counted, and its page table if l has none yet. */
static inline void count_first_touch(struct rp_sim *s, struct proc *p, const struct leaf *l)
{
	count_fault(s, p);
	p->c.v[RP_M_TABLE_FAULTS] += !l->pt;
}

/*
 * A write touch of present page i whose state needs more than setting PG_TOUCHED: the zero
 * page (allocate 4K) or a page shared copy-on-write. Out of line: rare next to the touches
 * rp_sim_feed() handles inline.
 */
static __attribute__((noinline)) void touch_present_write(struct rp_sim *s, struct proc *p,
							  struct leaf *l, unsigned int i)
{
	uint8_t st = l->st[i];

	if (st & PG_ZERO) {
		l->st[i] = PG_TOUCHED | PG_WRITTEN;
		l->ord[i] = 0;
		l->pfn[i] = alloc_page(s, p);
		site_alloc(s, l, i, 1);
		site_fault(s);
		rss_add(s, p, 1);
		count_fault(s, p);
		p->c.v[RP_M_ZERO_WP]++;
		p->c.v[RP_M_ZEROED] += RP_PAGE_SIZE;
		p->c.v[RP_M_PTE_WRITES]++;
		return;
	}
	if ((st & PG_COW) && shared_get(&s->shared, l->pfn[i]) >= 2) {
		cow_copy(s, p, l, i);
		return;
	}
	/* private page, or the last mapping of a shared one: reused, no copy */
	l->st[i] = (st & ~PG_COW) | PG_TOUCHED | PG_WRITTEN;
}

/*
 * The VMA of a fault as the fault paths see it: pages [start, end) and the reason it always
 * gets 4K. Consecutive faults mostly hit the same VMA: one entry is cached per simulator.
 */
static inline void vma_of(struct rp_sim *s, uint32_t vma_id, uint64_t vpn, struct rp_fault *f,
			  unsigned int *always4k)
{
	if (vma_id != s->vc_id || vma_id == UINT32_MAX) {
		if (vma_id < s->nr_vmas && s->vmas[vma_id].end > s->vmas[vma_id].start) {
			const struct rp_vma *v = &s->vmas[vma_id];

			s->vc_start = v->start >> RP_PAGE_SHIFT;
			s->vc_end = (v->end + RP_PAGE_SIZE - 1) >> RP_PAGE_SHIFT;
			/* VMAs that always get 4K, with the reason the kernel gives */
			s->vc_a4k = v->flags & RP_VM_NOHUGEPAGE ? FTDB_FB_NOHUGEPAGE :
				    v->flags & RP_VM_UFFD ? FTDB_FB_UFFD : 0;
			if ((s->pol.ops->flags & RP_POL_PMD) && rp_vm_exec_stack(v->flags))
				s->vc_a4k = NO_THP;
			s->vc_id = vma_id;
		} else {
			/* a stale or unknown id: a 4K first touch confined to the page */
			f->vpn = vpn;
			f->vma_id = UINT32_MAX;
			f->vma_start = vpn;
			f->vma_end = vpn + 1;
			*always4k = 0;
			return;
		}
	}
	f->vpn = vpn;
	f->vma_id = vma_id;
	f->vma_start = s->vc_start;
	f->vma_end = s->vc_end;
	*always4k = s->vc_a4k;
}

/*
 * A touch of absent page i (vpn) of leaf l: a first-touch fault. rp_sim_feed() does a
 * write under a policy that maps 4K with no hook (order0) itself: it needs neither the VMA
 * nor the fallback rules.
 */
static __attribute__((noinline)) void first_touch(struct rp_sim *s, struct proc *p,
						  struct leaf *l, unsigned int i, uint32_t proc_id,
						  uint64_t vpn, int write, uint32_t vma_id)
{
	struct rp_fault f;
	unsigned int always4k;	/* reason the VMA always gets 4K, 0 if none, or NO_THP */

	count_first_touch(s, p, l);
	site_fault(s);
	if (s->mx) {		/* khugepaged's VMA of the range, and its list of mms */
		l->vma = vma_id;
		simx_enter(s, p, vma_id);
	}
	vma_of(s, vma_id, vpn, &f, &always4k);
	f.proc_id = proc_id;
	f.slot = s->slot;
	if (write)
		fault_write(s, p, l, i, &f, always4k);
	else
		fault_read(s, p, l, i, &f, always4k);
}

/* The leaf of page vpn of process p, made if needed. */
static inline struct leaf *leaf_at(struct rp_sim *s, struct proc *p, uint64_t vpn)
{
	return p->last && p->last->key == vpn >> LEAF_SHIFT ? p->last :
	       leaf_get(s, p, vpn >> LEAF_SHIFT);
}

/*
 * A touch of page vpn by process p. vma_id is the recorded fault's VMA (a stale or unknown
 * id makes the touch a 4K first touch confined to that page). rp_sim_feed() inlines the
 * common cases of a present page; this is the whole rule.
 */
static void touch(struct rp_sim *s, struct proc *p, uint32_t proc_id, uint64_t vpn, int write,
		  uint32_t vma_id)
{
	struct leaf *l = leaf_at(s, p, vpn);
	unsigned int i = (unsigned int)(vpn & LEAF_MASK);

	p->c.v[RP_M_TOUCHES]++;
	if (!pg_present(l, i)) {
		first_touch(s, p, l, i, proc_id, vpn, write, vma_id);
	} else if (!write) {
		if (!(l->st[i] & PG_ZERO))
			l->st[i] |= PG_TOUCHED;
	} else {
		touch_present_write(s, p, l, i);
	}
}

/*
 * A ZERO_WP or COW record: a write touch of a page the recorded kernel had mapped. If the
 * model does not hold the page, it is one the model cannot see: an anonymous page of a
 * private file mapping (its COW is traced, its first write and its unmap are not) or a page
 * of a process filtered out. The fault is counted with its 4K allocation, nothing is
 * mapped (nothing would ever unmap it) and the allocation model is not charged.
 */
static void wp_touch(struct rp_sim *s, struct proc *p, const struct ftdb_event *e)
{
	uint64_t vpn = e->addr >> RP_PAGE_SHIFT;
	struct leaf *l = leaf_find(p, vpn >> LEAF_SHIFT);
	unsigned int i = (unsigned int)(vpn & LEAF_MASK);

	if (l && pg_present(l, i)) {
		/*
		 * The recording copied a page shared at fork whose other mappings are gone:
		 * 6.1's do_wp_page() reuses a page only when it holds the sole reference, and
		 * something the model cannot see held another (the page still in another
		 * cpu's LRU batch, or the other process's unmap not yet flushed). Copy as
		 * the kernel did.
		 */
		if (e->kind == FTDB_EV_COW && (l->st[i] & PG_COW) && !(l->st[i] & PG_ZERO)) {
			p->c.v[RP_M_TOUCHES]++;
			cow_copy(s, p, l, i);
			return;
		}
		touch(s, p, e->proc_id, vpn, 1, UINT32_MAX);
		return;
	}
	p->c.v[RP_M_TOUCHES]++;
	p->c.v[RP_M_ALLOC_0]++;
	p->c.v[RP_M_PTE_WRITES]++;
	if (e->kind == FTDB_EV_COW) {
		p->c.v[RP_M_COW]++;
		return;
	}
	count_fault(s, p);
	p->c.v[RP_M_ZERO_WP]++;
	p->c.v[RP_M_ZEROED] += RP_PAGE_SIZE;
	if (s->nr_slots) {
		s->site[s->cur].faults++;
		s->site[s->cur].zeroed += RP_PAGE_SIZE;
	}
}

/* ---- zaps ---- */

/*
 * Call fn for every existing leaf of p overlapping pages [lo, hi), with the leaf-relative
 * page range [a, b) to work on. Small ranges look leaves up by key; huge ones (an exit of
 * the whole address space) scan the process's table instead. fn must not add leaves.
 */
typedef void (*walk_fn)(struct rp_sim *s, struct proc *p, struct leaf *l, unsigned int a,
			unsigned int b, void *arg);

static void range_walk(struct rp_sim *s, struct proc *p, uint64_t lo, uint64_t hi, walk_fn fn,
		       void *arg)
{
	uint64_t first = lo >> LEAF_SHIFT, last, key;
	uint32_t si;

	if (hi <= lo)
		return;
	last = (hi - 1) >> LEAF_SHIFT;
	if (last - first < 2ULL * p->nr + 2) {
		for (key = first; key <= last; key++) {
			struct leaf *l = leaf_find(p, key);
			uint64_t base = key << LEAF_SHIFT;

			if (l && (l->nr_present || l->pt))
				fn(s, p, l, lo > base ? (unsigned int)(lo - base) : 0,
				   hi < base + LEAF_PAGES ? (unsigned int)(hi - base) : LEAF_PAGES,
				   arg);
		}
		return;
	}
	for (si = 0; si < p->cap; si++) {
		struct leaf *l = p->slot[si];
		uint64_t base;

		if (!l || !(l->nr_present || l->pt) || l->key < first || l->key > last)
			continue;
		base = l->key << LEAF_SHIFT;
		fn(s, p, l, lo > base ? (unsigned int)(lo - base) : 0,
		   hi < base + LEAF_PAGES ? (unsigned int)(hi - base) : LEAF_PAGES, arg);
	}
}

/* 0x01 in byte j of the result iff bit j of the 8-bit m is set */
static inline uint64_t bits_to_bytes(uint64_t m)
{
	uint64_t x = (m * 0x0101010101010101ULL) & 0x8040201008040201ULL;

	return ((x + 0x7f7f7f7f7f7f7f7fULL) >> 7) & 0x0101010101010101ULL;
}

/* Sum of the bytes of x, each at most 8. */
static inline unsigned int byte_sum(uint64_t x)
{
	return (unsigned int)((x * 0x0101010101010101ULL) >> 56);
}

/*
 * Per-site side of unmapping 8 pages from leaf index g: nz has 0x01 in the byte of each
 * present non-zero page, x their st bytes. Each leaves its slot's RSS, untouched as bloat.
 */
static void site_unmap(struct rp_sim *s, struct leaf *l, unsigned int g, uint64_t nz,
		       uint64_t x)
{
	while (nz) {
		unsigned int b = (unsigned int)__builtin_ctzll(nz) >> 3;
		uint32_t slot = l->site[g + b];

		nz &= nz - 1;
		site_rss(s, slot, -1);
		if (!((x >> (8 * b)) & PG_TOUCHED))
			s->site[slot].bloat += RP_PAGE_SIZE;
	}
}

/* 0x01 in each byte of the 8 pages of l from index i whose folio is order 0, else 0x00. */
static inline uint64_t ord0_bytes(const struct leaf *l, unsigned int i)
{
	const uint64_t lo7 = 0x7f7f7f7f7f7f7f7fULL;
	uint64_t o;

	memcpy(&o, &l->ord[i], sizeof(o));
	return (~(((o & lo7) + lo7) | o | lo7) >> 7);	/* high bit of each zero byte */
}

/*
 * The private pages of l from index g (a byte 0x01 in priv for each, of the 8 from g)
 * freed towards the per-cpu lists of their folios' orders.
 */
static inline void pcp_free_group(struct rp_sim *s, const struct leaf *l, unsigned int g,
				  uint64_t priv)
{
	uint64_t o0 = priv & ord0_bytes(l, g), large = priv & ~o0;

	rp_pcp_free(&s->pcp, 0, byte_sum(o0));
	while (large) {
		unsigned int j = g + ((unsigned int)__builtin_ctzll(large) >> 3);

		rp_pcp_free(&s->pcp, l->ord[j], 1);
		large &= large - 1;
	}
}

/*
 * Unmap pages [a, b) of leaf l: RSS, bloat, frees; arg non-NULL keeps the leaf's page
 * table (MADV_DONTNEED), else one left without a page goes. Pages are counted 8 at a time from
 * their st bytes (bit 0 PG_ZERO, bit 1 PG_TOUCHED, bit 2 PG_COW), only the groups of 8
 * with a present page (an exit unmaps whole leaves that hold a few pages); only pages
 * with a physical side (shared after fork, or the buddy model) are visited one by one.
 */
static void unmap_leaf(struct rp_sim *s, struct proc *p, struct leaf *l, unsigned int a,
		       unsigned int b, void *arg)
{
	const uint64_t ones = 0x0101010101010101ULL;
	uint64_t pages = 0, untouched = 0;	/* non-zero-page pages unmapped, untouched ones */
	int buddy = s->alloc.kind == RP_FRAG_BUDDYINFO;
	/* a PMD-mapped THP zapped whole: zap_huge_pmd() frees its deposited table */
	int keep = arg && !(a == 0 && b == LEAF_PAGES && l->nr_present == LEAF_PAGES &&
			    l->ord[0] == RP_PMD_ORDER);
	unsigned int w, g;

	for (w = a >> 6; w <= (b - 1) >> 6; w++) {
		uint64_t m = l->present[w];

		if (w == a >> 6)
			m &= ~0ULL << (a & 63);
		if (w == (b - 1) >> 6 && (b & 63))
			m &= (1ULL << (b & 63)) - 1;
		if (!m)
			continue;
		l->present[w] &= ~m;
		while (m) {
			uint64_t pm, x, nz, rel;
			unsigned int j;

			g = (unsigned int)__builtin_ctzll(m) & ~7U;
			pm = bits_to_bytes((m >> g) & 0xff);
			m &= ~(0xffULL << g);
			l->nr_present -= byte_sum(pm);
			memcpy(&x, &l->st[(w << 6) + g], sizeof(x));
			nz = pm & ~x & ones;		/* present, not the zero page */
			pages += byte_sum(nz);
			untouched += byte_sum(nz & ~(x >> 1));
			if (s->nr_slots)
				site_unmap(s, l, (w << 6) + g, nz, x);
			rel = buddy ? nz : nz & (x >> 2);	/* pages to release */
			if (!buddy)	/* the private pages: the per-cpu lists */
				pcp_free_group(s, l, (w << 6) + g, nz & ~(x >> 2));
			while (rel) {
				j = (w << 6) + g + ((unsigned int)__builtin_ctzll(rel) >> 3);
				rel &= rel - 1;
				release_page(s, l->st[j], l->ord[j], l->pfn[j]);
			}
		}
	}
	leaf_unmapped(s, p, l, keep);
	p->c.v[RP_M_BLOAT] += untouched << RP_PAGE_SHIFT;
	rss_sub(s, p, pages);
}

/* Unmap pages [lo, hi) of p; keep_tables: MADV_DONTNEED's, the page tables stay. */
static void unmap_range(struct rp_sim *s, struct proc *p, uint64_t lo, uint64_t hi,
			int keep_tables)
{
	static int keep = 1;

	range_walk(s, p, lo, hi, unmap_leaf, keep_tables ? &keep : NULL);
}

static void lazyfree_leaf(struct rp_sim *s, struct proc *p, struct leaf *l, unsigned int a,
			  unsigned int b, void *arg)
{
	unsigned int j;

	for (j = a; j < b; j++)
		if (pg_present(l, j) && !(l->st[j] & PG_ZERO))
			p->c.v[RP_M_FREE_BYTES] += RP_PAGE_SIZE;
}

struct take_arg {
	uint64_t lo;			/* first page of the source range */
	size_t n;			/* pages taken */
};

/* mremap, first half: take the pages out of the source, keeping their state. */
static void take_leaf(struct rp_sim *s, struct proc *p, struct leaf *l, unsigned int a,
		      unsigned int b, void *arg)
{
	struct take_arg *t = arg;
	unsigned int j;

	for (j = a; j < b; j++) {
		if (!pg_present(l, j))
			continue;
		XGROW(s->mv, s->mv_cap, t->n + 1);
		s->mv[t->n].off = (l->key << LEAF_SHIFT) + j - t->lo;
		s->mv[t->n].st = l->st[j];
		s->mv[t->n].ord = l->ord[j];
		s->mv[t->n].pfn = l->pfn[j];
		s->mv[t->n].site = s->nr_slots ? l->site[j] : 0;
		t->n++;
		l->present[j >> 6] &= ~(1ULL << (j & 63));
		l->nr_present--;
	}
	leaf_unmapped(s, p, l, 0);	/* the source's table goes with its VMA */
}

static void mremap_range(struct rp_sim *s, struct proc *p, uint64_t lo, uint64_t hi,
			 uint64_t dst)
{
	struct take_arg t = { .lo = lo, .n = 0 };
	size_t k;

	range_walk(s, p, lo, hi, take_leaf, &t);
	/* whatever the destination held is unmapped first */
	unmap_range(s, p, dst, dst + (hi - lo), 0);
	for (k = 0; k < t.n; k++) {
		uint64_t v = dst + s->mv[k].off;
		struct leaf *l = leaf_get(s, p, v >> LEAF_SHIFT);

		pg_set(s, p, l, (unsigned int)(v & LEAF_MASK), s->mv[k].st, s->mv[k].ord, s->mv[k].pfn);
		l->thp = 0;	/* a THP moved, or one moved into, is off the deferred list */
		if (s->nr_slots)
			l->site[v & LEAF_MASK] = s->mv[k].site;
	}
}

/*
 * Aligned 16-page groups of one block of order 4..RP_MAX_FOLIO_ORDER (PTE-mapped; order 9 is
 * THP's PMD), all present.
 */
static uint64_t contpte_count(const struct leaf *l)
{
	uint64_t runs = 0;
	unsigned int g, j;

	for (g = 0; g < LEAF_PAGES; g += 16) {
		if (((l->present[g >> 6] >> (g & 63)) & 0xffff) != 0xffff)
			continue;
		if ((l->st[g] & PG_ZERO) || l->ord[g] < 4 || l->ord[g] > RP_MAX_FOLIO_ORDER ||
		    (l->pfn[g] & 15))
			continue;
		for (j = 1; j < 16; j++)
			if ((l->st[g + j] & PG_ZERO) || l->ord[g + j] != l->ord[g] ||
			    l->pfn[g + j] != l->pfn[g] + j)
				break;
		runs += j == 16;
	}
	return runs;
}

/* The contpte runs of every leaf of p (its address space as it is now). */
static uint64_t proc_contpte(const struct proc *p)
{
	uint64_t runs = 0;
	uint32_t j;

	for (j = 0; j < p->cap; j++)
		if (p->slot[j] && p->slot[j]->nr_present)
			runs += contpte_count(p->slot[j]);
	return runs;
}

static void zap(struct rp_sim *s, struct proc *p, const struct ftdb_event *ev)
{
	uint64_t lo = ev->addr >> RP_PAGE_SHIFT;
	uint64_t hi = (ev->end >> RP_PAGE_SHIFT) + !!(ev->end & (RP_PAGE_SIZE - 1));

	switch (ev->reason) {
	case FTDB_ZAP_FREE:
		range_walk(s, p, lo, hi, lazyfree_leaf, NULL);
		break;
	case FTDB_ZAP_MREMAP:
		if (ev->aux) {
			mremap_range(s, p, lo, hi, ev->aux >> RP_PAGE_SHIFT);
			break;
		}
		unmap_range(s, p, lo, hi, 0);
		break;
	case FTDB_ZAP_EXIT:
		/*
		 * the kernel zaps each anonymous VMA at exit; the first one ends the process
		 * (the later ones find nothing, so the runs are counted once)
		 */
		p->c.v[RP_M_CONTPTE_EXIT] += proc_contpte(p);
		unmap_range(s, p, 0, UINT64_MAX, 0);
		proc_compact(s, p);
		if (s->mx)
			simx_exit(s, p);
		break;
	default:
		unmap_range(s, p, lo, hi, ev->reason == FTDB_ZAP_DONTNEED);
		break;
	}
}

/* ---- fork ---- */

/* Page j of the parent's leaf pl, present, into the child's leaf cl at fork. */
static void dup_page(struct rp_sim *s, struct proc *child, struct leaf *pl, struct leaf *cl,
		     unsigned int j)
{
	if (pg_present(cl, j))	/* a stale child page: replaced */
		unmap_range(s, child, (cl->key << LEAF_SHIFT) + j,
			    (cl->key << LEAF_SHIFT) + j + 1, 1);
	if (pl->st[j] & PG_ZERO) {
		pg_set(s, child, cl, j, PG_ZERO, 0, 0);
		return;
	}
	pl->st[j] |= PG_COW;
	shared_inc(&s->shared, pl->pfn[j]);
	pg_set(s, child, cl, j, PG_COW | PG_TOUCHED | (pl->st[j] & PG_WRITTEN), pl->ord[j], pl->pfn[j]);
	if (s->nr_slots) {
		/*
		 * A shadow's pages are in the shadows' slot; a counted child's
		 * copy of a shadow's page (its site not kept) in slot 0.
		 */
		cl->site[j] = child->shadow ? s->nr_slots :
			      pl->site[j] == s->nr_slots ? 0 : pl->site[j];
		site_rss(s, cl->site[j], 1);
	}
	rss_add(s, child, 1);
}

static void mm_dup(struct rp_sim *s, struct proc *child, struct proc *parent)
{
	uint32_t si;
	unsigned int w;

	if (child == parent)
		return;
	if (s->mx)
		simx_fork(s, child, parent);
	for (si = 0; si < parent->cap; si++) {
		struct leaf *pl = parent->slot[si], *cl;

		if (!pl || !pl->pt)
			continue;
		cl = leaf_get(s, child, pl->key);
		/* copy_pte_range() gives the child a table wherever the parent has one */
		if (!cl->pt)
			leaf_table(s, child, cl);
		/* the present pages only, in page order: a leaf is mostly absent */
		for (w = 0; w < LEAF_PAGES / 64; w++) {
			uint64_t bits;

			for (bits = pl->present[w]; bits; bits &= bits - 1)
				dup_page(s, child, pl, cl,
					 (w << 6) + (unsigned int)__builtin_ctzll(bits));
		}
	}
}

/* ---- public ---- */

struct rp_sim *rp_sim_new(const struct rp_policy *p, enum rp_frag_kind frag,
			  const struct rp_trace *t)
{
	struct rp_sim *s;
	struct rp_alloc alloc;
	uint64_t sum = 0;
	int k;

	if (frag == RP_FRAG_BUDDYINFO) {
		for (k = 0; k <= RP_MAX_ORDER; k++)
			sum += t->free_blocks[k];
		if (!sum)
			return fail_null("frag model buddyinfo needs the recorded buddyinfo");
	}
	if (rp_alloc_init(&alloc, frag, t->free_blocks, t->movable_pages))
		return NULL;
	s = xcalloc(1, sizeof(*s));
	s->alloc = alloc;
	s->pol = *p;
	s->large = !(p->ops->flags & RP_POL_4K);
	s->plain4k = !s->large && !p->window && !p->ops->orders && !p->ops->mapped &&
		     !rp_mech_any(&p->mech);
	s->slow_alloc = frag != RP_FRAG_NONE || p->mech.limit_pages;
	s->pol_state = p->ops->state_new ? p->ops->state_new(p, t) : NULL;
	s->vmas = t->vmas;
	s->nr_vmas = t->nr_vmas;
	s->vc_id = UINT32_MAX;
	s->ser_next = UINT64_MAX;
	s->nr_procs = t->nr_procs ? t->nr_procs : 1;
	s->procs = xcalloc(s->nr_procs, sizeof(*s->procs));
	s->counted = t->counted;
	s->cold_gap = t->cold_gap ? t->cold_gap : RP_COLD_GAP_NS;
	s->nr_counted = t->nr_procs;
	s->nr_slots = t->nr_site_slots;
	if (s->nr_slots) {
		s->site = xcalloc(s->nr_slots + 1, sizeof(*s->site));
		s->snap = xcalloc(s->nr_slots + 1, sizeof(*s->snap));
		s->snap_ver = xcalloc(s->nr_slots + 1, sizeof(*s->snap_ver));
	}
	simx_new(s);
	return s;
}

struct rp_pcp *rp_sim_pcp(struct rp_sim *s)
{
	return &s->pcp;
}

void rp_sim_free(struct rp_sim *s)
{
	uint32_t i, j;

	if (!s)
		return;
	for (i = 0; i < s->nr_procs; i++) {
		struct proc *p = s->procs[i];

		if (!p)
			continue;
		for (j = 0; j < p->cap; j++)
			free(p->slot[j]);
		free(p->slot);
		free(p);
	}
	free(s->procs);
	while (s->free_leaves) {
		struct leaf *l = s->free_leaves;

		s->free_leaves = l->next_free;
		free(l);
	}
	if (s->pol.ops->state_free)
		s->pol.ops->state_free(s->pol_state);
	rp_alloc_release(&s->alloc);
	rp_pageset_release(&s->shared);
	free(s->mv);
	free(s->site);
	free(s->snap);
	free(s->snap_ver);
	simx_free(s);
	free(s);
}

void rp_sim_series(struct rp_sim *s, struct rp_series *ser)
{
	s->ser = ser;
	s->ser_next = ser->next;
	s->win_max = s->rss;
}

/*
 * Close the series' intervals that end at or before ts: the RSS and cumulative faults of
 * the counted processes now (a sum over the processes: a few hundred times per run).
 */
static __attribute__((noinline)) void series_sample(struct rp_sim *s, uint64_t ts)
{
	uint64_t faults = 0;
	uint32_t i;

	for (i = 0; i < s->nr_procs; i++)
		if (s->procs[i] && !s->procs[i]->shadow)
			faults += s->procs[i]->c.v[RP_M_FAULTS];
	s->ser_next = rp_series_close(s->ser, ts, s->rss << RP_PAGE_SHIFT,
				      s->win_max << RP_PAGE_SHIFT, faults);
	s->win_max = s->rss;
}

void rp_sim_feed(struct rp_sim *s, const struct ftdb_event *ev, size_t n)
{
	rp_sim_feed_sites(s, ev, NULL, n);
}

/*
 * The event loop; sites is a constant of each caller below, so the loop without per-site
 * slots (every trace without sites, and every bench) tests nothing per event for them.
 */
static inline __attribute__((always_inline)) void feed(struct rp_sim *s,
						       const struct ftdb_event *ev,
						       const uint32_t *slots, size_t n,
						       const int sites)
{
	const struct ftdb_event *e, *end = ev + n;
	struct proc *p = NULL;
	uint32_t pid = UINT32_MAX;	/* proc_id of p: consecutive events share it */

	/*
	 * s->now is the event's ts wherever RSS may change (rss_add() and rss_sub() time the
	 * pages' lifetimes): not set for the touch of a present page that changes nothing
	 */
	for (e = ev; e < end; e++) {
		if (e->ts >= s->ser_next)	/* never without a series */
			series_sample(s, e->ts);
		if (sites) {
			s->slot = slots[e - ev] < s->nr_slots ? slots[e - ev] : 0;
			s->cur = is_shadow(s, e->proc_id) ? s->nr_slots : s->slot;
		}
		if (e->kind == FTDB_EV_FAULT) {
			uint64_t vpn = e->addr >> RP_PAGE_SHIFT;
			unsigned int i = (unsigned int)(vpn & LEAF_MASK);
			struct leaf *l;

			if (e->proc_id != pid) {
				pid = e->proc_id;
				p = proc_of(s, pid);
			}
			l = leaf_at(s, p, vpn);
			p->c.v[RP_M_TOUCHES]++;
			/* touch()'s rule, its common cases inline */
			if (!pg_present(l, i)) {
				s->now = e->ts;
				s->lat = e->aux;
				if (!(e->flags & FTDB_EVF_WRITE) || !s->plain4k) {
					first_touch(s, p, l, i, pid, vpn,
						    e->flags & FTDB_EVF_WRITE, e->vma_id);
					continue;
				}
				/* first_touch() of a write under order0, inline */
				count_first_touch(s, p, l);
				pg_set(s, p, l, i, PG_TOUCHED | PG_WRITTEN, 0, alloc_page(s, p));
				if (s->nr_slots) {
					site_fault(s);
					site_alloc(s, l, i, 1);
				}
				rss_add(s, p, 1);
				p->c.v[RP_M_ZEROED] += RP_PAGE_SIZE;
				p->c.v[RP_M_PTE_WRITES]++;
			} else if (!(l->st[i] & (PG_ZERO | PG_COW))) {
				l->st[i] |= PG_TOUCHED | (e->flags & FTDB_EVF_WRITE) << 3;
			} else if (!(e->flags & FTDB_EVF_WRITE)) {
				if (!(l->st[i] & PG_ZERO))
					l->st[i] |= PG_TOUCHED;
			} else {
				s->now = e->ts;
				s->lat = e->aux;
				touch_present_write(s, p, l, i);
			}
			continue;
		}
		s->now = e->ts;
		switch (e->kind) {
		case FTDB_EV_ZERO_WP:
		case FTDB_EV_COW:
			s->lat = e->aux;
			wp_touch(s, proc_of(s, e->proc_id), e);
			break;
		case FTDB_EV_ZAP:
			zap(s, proc_of(s, e->proc_id), e);
			break;
		case FTDB_EV_MM_DUP:
			mm_dup(s, proc_of(s, e->proc_id), proc_of(s, (uint32_t)e->aux));
			break;
		default:	/* ALLOC: what the recorded kernel did, not ours to model */
			break;
		}
	}
}

static void feed_part(struct rp_sim *s, const struct ftdb_event *ev, const uint32_t *slots,
		      size_t n)
{
	if (s->nr_slots && slots)
		feed(s, ev, slots, n, 1);
	else
		feed(s, ev, NULL, n, 0);
}

void rp_sim_feed_sites(struct rp_sim *s, const struct ftdb_event *ev, const uint32_t *slots,
		       size_t n)
{
	size_t i = 0, j;
	uint64_t t;

	if (n)	/* the end of rss_byte_seconds: the last event's time */
		s->end = ev[n - 1].ts;
	if (!s->pol.mech.khugepaged) {
		feed_part(s, ev, slots, n);
		return;
	}
	/* khugepaged wakes between events: the batch is fed in parts, a wake between two */
	while (i < n) {
		t = simx_next_scan(s, ev[i].ts);
		for (j = i; j < n && ev[j].ts < t; j++)
			;
		feed_part(s, ev + i, slots ? slots + i : NULL, j - i);
		i = j;
		if (i < n) {
			s->now = t;
			simx_scan(s);
		}
	}
}

/*
 * rss_byte_seconds of p up to end (ns): the lifetimes of its pages, t_out - t_in, those
 * still mapped living to end, in page-ns, as bytes x s rounded down (0 if the trace's
 * time ran backwards enough to make it negative).
 */
static uint64_t byte_seconds(const struct proc *p, uint64_t end)
{
	unsigned __int128 out = p->t_out + (unsigned __int128)p->rss * end;

	if (out <= p->t_in)
		return 0;
	return (uint64_t)((out - p->t_in) * RP_PAGE_SIZE / 1000000000u);
}

void rp_sim_finish(struct rp_sim *s)
{
	uint32_t i, j;
	unsigned int m, w;

	if (s->finished)
		return;
	s->finished = 1;
	if (s->ser)
		series_sample(s, UINT64_MAX);
	memset(&s->total, 0, sizeof(s->total));
	for (i = 0; i < s->nr_procs; i++) {
		struct proc *p = s->procs[i];

		if (!p)
			continue;
		for (j = 0; j < p->cap; j++) {
			struct leaf *l = p->slot[j];

			if (!l || !l->nr_present)
				continue;
			for (w = 0; w < LEAF_PAGES / 64; w++) {
				uint64_t bits = l->present[w];

				while (bits) {
					unsigned int x = (w << 6) + (unsigned int)__builtin_ctzll(bits);

					bits &= bits - 1;
					if (l->st[x] & (PG_ZERO | PG_TOUCHED))
						continue;
					p->c.v[RP_M_BLOAT] += RP_PAGE_SIZE;
					if (s->nr_slots)
						s->site[l->site[x]].bloat += RP_PAGE_SIZE;
				}
			}
			p->c.v[RP_M_CONTPTE_FINAL] += contpte_count(l);
		}
		/* an address space the trace does not see end ends with the trace */
		p->c.v[RP_M_CONTPTE_EXIT] += p->c.v[RP_M_CONTPTE_FINAL];
		p->c.v[RP_M_FINAL_RSS] = p->rss << RP_PAGE_SHIFT;
		p->c.v[RP_M_RSS_SECONDS] = byte_seconds(p, s->end);
		p->c.v[RP_M_PEAK_RSS] = p->peak << RP_PAGE_SHIFT;
		if (p->shadow)
			continue;
		for (m = 0; m < RP_NR_METRICS; m++)
			s->total.v[m] += p->c.v[m];
	}
	s->total.v[RP_M_PEAK_RSS] = s->peak << RP_PAGE_SHIFT;
	for (i = 0; i < s->nr_slots; i++)
		s->site[i].at_peak = (s->snap_ver[i] == s->peak_ver ? s->snap[i] :
				      s->site[i].rss) << RP_PAGE_SHIFT;
}

const struct rp_site_counters *rp_sim_sites(const struct rp_sim *s, uint32_t *n)
{
	*n = s->nr_slots;
	return s->site;
}

const struct rp_counters *rp_sim_proc(const struct rp_sim *s, uint32_t proc_id)
{
	return proc_id < s->nr_procs && s->procs[proc_id] && !s->procs[proc_id]->shadow ?
	       &s->procs[proc_id]->c : NULL;
}

const struct rp_counters *rp_sim_total(const struct rp_sim *s)
{
	return &s->total;
}

int rp_sim_block_fits(struct rp_sim *s, uint32_t proc_id, uint32_t vma_id, uint64_t vpn,
		      unsigned int k)
{
	struct rp_fault f;
	unsigned int always4k;
	uint64_t b = vpn & ~((1ULL << k) - 1);
	struct leaf *l;

	vma_of(s, vma_id, vpn, &f, &always4k);	/* fault_write()'s tests, in its order */
	if (always4k || b < f.vma_start || b + (1ULL << k) > f.vma_end)
		return 0;
	if (proc_id >= s->nr_procs || !s->procs[proc_id])
		return 1;
	l = leaf_find(s->procs[proc_id], vpn >> LEAF_SHIFT);
	return !l || block_absent(l, (unsigned int)(b & LEAF_MASK), 1U << k);
}
