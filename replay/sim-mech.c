// SPDX-License-Identifier: GPL-2.0
/*
 * sim-mech.c - the fast engine's +mechanisms (docs/policies.md, "Mechanisms"): the memory
 * limit and its reclaim, the shrinker of underused THPs, khugepaged's PMD collapse and its
 * mTHP collapse (the bitmap collapse of the series aimed at 7.2, +collapse). What
 * each models of Linux 6.12 is cited there; oracle.c has the naive twin of each.
 *
 * A policy without mechanisms has s->mx NULL and never comes here: its cost is the tests
 * of s->mx on the out-of-line fault paths (none on the inline ones).
 */
#include <stdlib.h>
#include <string.h>

#include "lib/xalloc.h"
#include "replay/mech.h"
#include "replay/sim-int.h"

#define NONE_MM ((size_t)-1)

struct dentry {			/* a THP on the deferred split list */
	uint64_t key;		/* its leaf (2M range) */
	uint32_t proc;		/* proc_id of the process that mapped it */
	uint32_t thp;		/* its serial (leaf.thp): a stale entry's no longer matches */
};

struct sim_mech {
	/* the deferred split list, oldest first */
	struct dentry *dl;
	size_t nr, cap;
	uint32_t thp_seq;	/* serials given so far */
	/* khugepaged's mms in the order they entered (list_add_tail), exited ones kept */
	uint32_t *mms;
	size_t nr_mms, cap_mms;
	size_t cur;		/* khugepaged_scan.mm_slot: index in mms, NONE_MM at the head */
	uint64_t addr;		/* khugepaged_scan.address: next leaf key to scan in it */
	uint64_t next_scan;	/* ns: the next wake; valid once started */
	int started;
	uint64_t *keys;		/* scratch: one process's leaf keys */
	size_t cap_keys;
};

void simx_new(struct rp_sim *s)
{
	if (rp_mech_any(&s->pol.mech)) {
		s->mx = xcalloc(1, sizeof(*s->mx));
		s->mx->cur = NONE_MM;
	}
}

void simx_free(struct rp_sim *s)
{
	if (!s->mx)
		return;
	free(s->mx->dl);
	free(s->mx->mms);
	free(s->mx->keys);
	free(s->mx);
	s->mx = NULL;
}

/* ---- the shrinker: deferred_split_scan() of underused THPs ---- */

void simx_thp(struct rp_sim *s, struct proc *p, struct leaf *l)
{
	struct sim_mech *x = s->mx;

	if (!s->pol.mech.shrinker)
		return;
	l->thp = ++x->thp_seq;
	XGROW(x->dl, x->cap, x->nr + 1);
	x->dl[x->nr].key = l->key;
	x->dl[x->nr].proc = p->id;
	x->dl[x->nr].thp = l->thp;
	x->nr++;
}

/*
 * The THP of entry e, scanned once and off the list: split if thp_underused() (more
 * zero-filled subpages, never written, than max_ptes_none; never at 511), its zero-filled
 * subpages freed and mapped to the zero page (try_to_map_unused_to_zeropage()). A THP no
 * longer whole (partly unmapped, COW-copied, mremapped, unmapped) or with a page still
 * copy-on-write after a fork is dropped unsplit.
 */
static void split_entry(struct rp_sim *s, const struct dentry *e)
{
	struct proc *p = e->proc < s->nr_procs ? s->procs[e->proc] : NULL;
	struct leaf *l = p ? leaf_find(p, e->key) : NULL;
	uint64_t freed = 0, untouched = 0;
	unsigned int j, zero = 0;

	if (!l || l->thp != e->thp || l->nr_present != LEAF_PAGES)
		return;
	for (j = 0; j < LEAF_PAGES; j++) {
		if ((l->st[j] & (PG_ZERO | PG_COW)) || l->ord[j] != RP_PMD_ORDER ||
		    l->pfn[j] != l->pfn[0] + j)
			return;
		zero += !(l->st[j] & PG_WRITTEN);
	}
	l->thp = 0;
	if (s->pol.mech.max_ptes_none == RP_MECH_MAX_PTES_NONE || zero <= s->pol.mech.max_ptes_none)
		return;
	for (j = 0; j < LEAF_PAGES; j++) {
		l->ord[j] = 0;		/* split: 512 order-0 folios */
		if (l->st[j] & PG_WRITTEN)
			continue;
		if (!(l->st[j] & PG_TOUCHED)) {
			untouched++;
			if (s->nr_slots)
				s->site[l->site[j]].bloat += RP_PAGE_SIZE;
		}
		if (s->nr_slots)
			site_rss(s, l->site[j], -1);
		release_page(s, l->st[j], 0, l->pfn[j]);
		l->st[j] = PG_ZERO;
		freed++;
	}
	rss_sub(s, p, freed);
	p->c.v[RP_M_BLOAT] += untouched << RP_PAGE_SHIFT;
	p->c.v[RP_M_SPLITS]++;
	p->c.v[RP_M_SPLIT_FREED] += freed;
}

int simx_charge(struct rp_sim *s, uint64_t n, int reclaim)
{
	struct sim_mech *x = s->mx;
	uint64_t limit = s->pol.mech.limit_pages;
	size_t i;

	n += s->tables + s->table_pending;
	if (s->rss + n <= limit)
		return 0;
	if (!reclaim || !s->pol.mech.shrinker)
		return 1;
	/*
	 * try_to_free_mem_cgroup_pages(): the priorities down to 0 (a split's pages are not
	 * nr_reclaimed), where do_shrink_slab() scans at least the whole list: every THP on
	 * it is looked at once and leaves it, whether or not the charge fits before the end
	 */
	for (i = 0; i < x->nr; i++)
		split_entry(s, &x->dl[i]);
	x->nr = 0;
	return s->rss + n > limit;
}

/* ---- khugepaged: khugepaged_do_scan() of PMD ranges ---- */

/*
 * 1 if VMA v may be collapsed in (thp_vma_allowable_orders()): a naturally aligned block
 * of 2^order pages lies inside (thp_vma_suitable_order()); its pages [lo, hi)
 */
static int vma_collapsible(const struct rp_sim *s, uint32_t vma_id, unsigned int order,
			   uint64_t *lo, uint64_t *hi)
{
	const struct rp_vma *v;
	uint64_t mask = (1ULL << order) - 1;

	if (vma_id >= s->nr_vmas || s->vmas[vma_id].end <= s->vmas[vma_id].start)
		return 0;
	v = &s->vmas[vma_id];
	if ((v->flags & RP_VM_NOHUGEPAGE) || rp_vm_exec_stack(v->flags))
		return 0;
	*lo = v->start >> RP_PAGE_SHIFT;
	*hi = (v->end + RP_PAGE_SIZE - 1) >> RP_PAGE_SHIFT;
	return ((*lo + mask) & ~mask) + mask + 1 <= (*hi & ~mask);
}

static void mm_add(struct sim_mech *x, struct proc *p)
{
	p->kh = 1;
	XGROW(x->mms, x->cap_mms, x->nr_mms + 1);
	x->mms[x->nr_mms++] = p->id;
}

void simx_enter(struct rp_sim *s, struct proc *p, uint32_t vma_id)
{
	/* some enabled order fits: then the smallest does */
	unsigned int order = (unsigned int)__builtin_ctz(s->pol.mech.collapse_orders | 1U << 15);
	uint64_t lo, hi;

	if (s->pol.mech.khugepaged && !p->kh && vma_collapsible(s, vma_id, order, &lo, &hi))
		mm_add(s->mx, p);
}

void simx_fork(struct rp_sim *s, struct proc *child, struct proc *parent)
{
	if (s->pol.mech.khugepaged && parent->kh == 1 && !child->kh)
		mm_add(s->mx, child);
}

void simx_exit(struct rp_sim *s, struct proc *p)
{
	if (p->kh)
		p->kh = 2;	/* off the list: its entry is skipped */
}

uint64_t simx_next_scan(struct rp_sim *s, uint64_t ts)
{
	struct sim_mech *x = s->mx;

	if (!x->started) {	/* the first wake: one interval after the trace's first event */
		x->started = 1;
		x->next_scan = ts + (uint64_t)s->pol.mech.scan_ms * 1000000;
	}
	return x->next_scan;
}

/* What a collapse attempt tells mthp_collapse() to do next (the series' switch) */
enum attempt {
	COLLAPSED,	/* SCAN_SUCCEED: the next block */
	SKIPPED,	/* SCAN_PTE_MAPPED_HUGEPAGE: the next block, no smaller order here */
	SMALLER,	/* SCAN_ALLOC_HUGE_PAGE_FAIL, SCAN_EXCEED_SHARED_PTE: its halves */
	STOP,		/* SCAN_CGROUP_CHARGE_FAIL, SCAN_PAGE_RO: no more in this range */
};

static int pg_has_memory(const struct leaf *l, unsigned int j)
{
	return pg_present(l, j) && !(l->st[j] & PG_ZERO);
}

/*
 * __collapse_huge_page_isolate() of an mTHP block [off, off + 2^order) of leaf l, in
 * address order: a page of a folio of this order or larger is not collapsed again
 * (SKIPPED), a page shared with another process fails the order (max_ptes_shared is 0
 * for mTHP), and one writable page is needed (else STOP). COLLAPSED: it may go ahead.
 */
static enum attempt isolate(struct rp_sim *s, const struct leaf *l, unsigned int off,
			    unsigned int order)
{
	unsigned int j, writable = 0;

	for (j = off; j < off + (1U << order); j++) {
		if (!pg_has_memory(l, j))
			continue;
		if (l->ord[j] >= order)
			return SKIPPED;
		if (!(l->st[j] & PG_COW))
			writable = 1;
		else if (shared_get(&s->shared, l->pfn[j]) >= 2)
			return SMALLER;
	}
	return writable ? COLLAPSED : STOP;
}

/*
 * collapse_huge_page() of the block [off, off + 2^order) of leaf l of p: a new folio,
 * charged and allocated (a failure counts in alloc_fails: the charge's ends the range,
 * the allocation's tries the halves), the present pages copied into it (their touched
 * and written state kept) and released, the rest zero-filled and untouched; one PMD for
 * the PMD order, PTEs for an mTHP. Its pages are the site slot of its lowest non-zero
 * page. The PMD order's isolation checks are the scan's, on the same range.
 */
static enum attempt collapse(struct rp_sim *s, struct proc *p, struct leaf *l,
			     unsigned int off, unsigned int order)
{
	unsigned int j, n = 1U << order, added = 0;
	uint64_t pfn, old = 0;
	uint32_t slot = 0;
	enum attempt r;
	int have = 0;

	if (over_limit(s, n, 1)) {	/* GFP_TRANSHUGE: khugepaged's defrag 1 */
		p->c.v[RP_M_ALLOC_FAILS]++;
		return STOP;
	}
	if (rp_alloc_get(&s->alloc, order, &pfn)) {
		p->c.v[RP_M_ALLOC_FAILS]++;
		return SMALLER;
	}
	/* the kernel allocates before it isolates: a block refused gives its folio back */
	r = order < RP_PMD_ORDER ? isolate(s, l, off, order) : COLLAPSED;
	if (r != COLLAPSED) {
		for (j = 0; j < n; j++)
			rp_alloc_put(&s->alloc, pfn + j);
		return r;
	}
	for (j = off; j < off + n; j++) {
		uint8_t st = l->st[j];

		if (!pg_has_memory(l, j)) {
			added += !pg_present(l, j);
			l->st[j] = 0;
		} else {
			if (s->nr_slots) {
				if (!have)
					slot = l->site[j], have = 1;
				site_rss(s, l->site[j], -1);
			}
			release_page(s, st, l->ord[j], l->pfn[j]);
			l->st[j] = st & (PG_TOUCHED | PG_WRITTEN);
			old++;
		}
		l->present[j >> 6] |= 1ULL << (j & 63);
		l->ord[j] = (uint8_t)order;
		l->pfn[j] = pfn + j - off;
	}
	l->nr_present += added;
	if (s->nr_slots) {
		for (j = off; j < off + n; j++)
			l->site[j] = slot;
		site_rss(s, slot, n);
	}
	rss_sub(s, p, old);
	rss_add(s, p, n);
	p->c.v[RP_M_COLLAPSES]++;
	p->c.v[rp_m_collapse(order)]++;
	if (order == RP_PMD_ORDER)
		simx_thp(s, p, l);
	return COLLAPSED;
}

/*
 * collapse_max_ptes_none() of the series for a block of 2^order pages: none in a
 * userfaultfd-armed VMA; the knob for the PMD order; for an mTHP order, 2^order - 1 when
 * the knob is 511 (any block holding a page), else 0 (only full blocks)
 */
static unsigned int max_none(const struct rp_sim *s, const struct leaf *l, unsigned int order)
{
	unsigned int knob = s->pol.mech.max_ptes_none;

	if (s->vmas[l->vma].flags & RP_VM_UFFD)
		return 0;
	if (order == RP_PMD_ORDER)
		return knob;
	return knob == RP_MECH_MAX_PTES_NONE ? (1U << order) - 1 : 0;
}

/* Pages of [off, off + n) with memory: set bits of the occupancy bitmap occ. */
static unsigned int occupied(const uint64_t *occ, unsigned int off, unsigned int n)
{
	unsigned int c = 0, w;

	if (n < 64)
		return (unsigned int)__builtin_popcountll((occ[off >> 6] >> (off & 63)) &
							  ((1ULL << n) - 1));
	for (w = off >> 6; w < (off + n) >> 6; w++)
		c += (unsigned int)__builtin_popcountll(occ[w]);
	return c;
}

/*
 * mthp_collapse() of the series: a depth-first walk of (offset, order) blocks from the
 * PMD order down, on a stack as the kernel's (left half first). An enabled order whose
 * block holds at least 2^order - max_none pages is attempted; a block not attempted, or
 * whose attempt says SMALLER, gives its two halves one order lower while an enabled
 * order remains below.
 */
static void mthp_collapse(struct rp_sim *s, struct proc *p, struct leaf *l, const uint64_t *occ)
{
	unsigned int orders = s->pol.mech.collapse_orders, n = 1;
	/* a DFS of a tree of height PMD - MIN needs that plus one entries */
	struct { uint16_t off; uint8_t order; } st[RP_PMD_ORDER - RP_MIN_COLLAPSE_ORDER + 1];

	st[0].off = 0;
	st[0].order = RP_PMD_ORDER;
	while (n) {
		unsigned int off = st[--n].off, order = st[n].order, size = 1U << order;

		if ((orders & (1U << order)) &&
		    occupied(occ, off, size) >= size - max_none(s, l, order)) {
			enum attempt r = collapse(s, p, l, off, order);

			if (r == STOP)
				return;
			if (r != SMALLER)
				continue;
		}
		if (orders & ((1U << order) - 1)) {
			st[n].off = (uint16_t)(off + size / 2);
			st[n++].order = (uint8_t)(order - 1);
			st[n].off = (uint16_t)off;
			st[n++].order = (uint8_t)(order - 1);
		}
	}
}

/*
 * hpage_collapse_scan_pmd() (collapse_scan_pmd() in the series) of leaf l: not if already
 * a PMD THP, if more than max_ptes_shared pages are shared after fork, or if none is
 * writable (not copy-on-write). With the PMD order alone (6.12), not if more than
 * max_ptes_none PTEs are none or the zero page (any in a userfaultfd-armed VMA), else the
 * PMD collapse; with an mTHP order, the none PTEs are not limited here: the bitmap of
 * pages with memory goes to mthp_collapse(). No access bits in a trace: every page counts
 * as referenced.
 */
static void scan_pmd(struct rp_sim *s, struct proc *p, struct leaf *l)
{
	unsigned int j, none = 0, shared = 0, writable = 0;
	int uffd = !!(s->vmas[l->vma].flags & RP_VM_UFFD), mthp = s->pol.mech.mthp;
	uint64_t occ[LEAF_PAGES / 64] = { 0 };

	if (pg_present(l, 0) && !(l->st[0] & PG_ZERO) && l->ord[0] == RP_PMD_ORDER)
		return;
	for (j = 0; j < LEAF_PAGES; j++) {
		if (!pg_has_memory(l, j)) {
			if (!mthp && (uffd || ++none > s->pol.mech.max_ptes_none))
				return;
			continue;
		}
		occ[j >> 6] |= 1ULL << (j & 63);
		if (!(l->st[j] & PG_COW))
			writable++;
		else if (shared_get(&s->shared, l->pfn[j]) >= 2 && ++shared > RP_MECH_MAX_PTES_SHARED)
			return;
	}
	if (!writable)
		return;
	if (mthp)
		mthp_collapse(s, p, l, occ);
	else
		collapse(s, p, l, 0, RP_PMD_ORDER);
}

static int key_cmp(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/*
 * khugepaged_scan_mm_slot() of p from x->addr, up to budget pages of progress: its 2M
 * ranges holding pages in address order, each in a collapsible VMA (the VMA of its
 * latest first touch) costing HPAGE_PMD_NR. Return: the progress; *done if p was scanned
 * to its end.
 */
static uint64_t scan_mm(struct rp_sim *s, struct proc *p, uint64_t budget, int *done)
{
	struct sim_mech *x = s->mx;
	uint64_t progress = 0, lo, hi, base;
	size_t n = 0, k;
	uint32_t i;

	*done = 1;
	if (p->kh != 1)
		return 0;
	for (i = 0; i < p->cap; i++) {
		if (p->slot[i] && p->slot[i]->nr_present && p->slot[i]->key >= x->addr) {
			XGROW(x->keys, x->cap_keys, n + 1);
			x->keys[n++] = p->slot[i]->key;
		}
	}
	qsort(x->keys, n, sizeof(*x->keys), key_cmp);
	for (k = 0; k < n; k++) {
		struct leaf *l = leaf_find(p, x->keys[k]);

		x->addr = x->keys[k] + 1;
		base = l->key << LEAF_SHIFT;
		if (!vma_collapsible(s, l->vma, RP_PMD_ORDER, &lo, &hi) || base < lo ||
		    base + LEAF_PAGES > hi)
			continue;
		scan_pmd(s, p, l);
		progress += LEAF_PAGES;
		if (progress >= budget) {
			*done = 0;
			break;
		}
	}
	return progress;
}

void simx_scan(struct rp_sim *s)
{
	struct sim_mech *x = s->mx;
	uint64_t progress = 0, pages = s->pol.mech.pages_to_scan;
	unsigned int pass = 0;
	int done;

	x->next_scan += (uint64_t)s->pol.mech.scan_ms * 1000000;
	/* khugepaged_do_scan(): until pages of progress, through the list's head at most once */
	while (progress < pages) {
		if (x->cur == NONE_MM) {
			if (++pass >= 2 || !x->nr_mms)
				break;
			x->cur = 0;
			x->addr = 0;
		}
		progress += scan_mm(s, s->procs[x->mms[x->cur]], pages - progress, &done);
		if (done) {
			x->cur = x->cur + 1 < x->nr_mms ? x->cur + 1 : NONE_MM;
			x->addr = 0;
		}
	}
}
