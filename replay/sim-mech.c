// SPDX-License-Identifier: GPL-2.0
/*
 * sim-mech.c - the fast engine's +mechanisms (docs/policies.md, "Mechanisms"): the memory
 * limit and its reclaim, the shrinker of underused THPs, khugepaged's PMD collapse. What
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
	/* the deferred split list, oldest first: entries [head, nr) are on it */
	struct dentry *dl;
	size_t head, nr, cap;
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
		release_page(s, l->st[j], l->pfn[j]);
		l->st[j] = PG_ZERO;
		freed++;
	}
	rss_sub(s, p, freed);
	p->c.v[RP_M_BLOAT] += untouched << RP_PAGE_SHIFT;
	p->c.v[RP_M_SPLITS]++;
	p->c.v[RP_M_SPLIT_FREED] += freed;
}

int simx_charge(struct rp_sim *s, uint64_t n)
{
	struct sim_mech *x = s->mx;
	uint64_t limit = s->pol.mech.limit_pages;

	if (s->rss + n <= limit)
		return 0;
	/* reclaim: the shrinker from the oldest THP on, until the charge fits */
	while (s->pol.mech.shrinker && x->head < x->nr && s->rss + n > limit)
		split_entry(s, &x->dl[x->head++]);
	if (x->head > 64 && x->head * 2 > x->nr) {
		memmove(x->dl, x->dl + x->head, (x->nr - x->head) * sizeof(*x->dl));
		x->nr -= x->head;
		x->head = 0;
	}
	return s->rss + n > limit;
}

/* ---- khugepaged: khugepaged_do_scan() of PMD ranges ---- */

/* 1 if VMA v may be collapsed in (thp_vma_allowable_order() for the PMD): pages [lo, hi) */
static int vma_collapsible(const struct rp_sim *s, uint32_t vma_id, uint64_t *lo, uint64_t *hi)
{
	const struct rp_vma *v;

	if (vma_id >= s->nr_vmas || s->vmas[vma_id].end <= s->vmas[vma_id].start)
		return 0;
	v = &s->vmas[vma_id];
	if ((v->flags & RP_VM_NOHUGEPAGE) || rp_vm_exec_stack(v->flags))
		return 0;
	*lo = v->start >> RP_PAGE_SHIFT;
	*hi = (v->end + RP_PAGE_SIZE - 1) >> RP_PAGE_SHIFT;
	/* an aligned 2M range inside (thp_vma_suitable_order()) */
	return ((*lo + LEAF_MASK) & ~(uint64_t)LEAF_MASK) + LEAF_PAGES <= (*hi & ~(uint64_t)LEAF_MASK);
}

static void mm_add(struct sim_mech *x, struct proc *p)
{
	p->kh = 1;
	XGROW(x->mms, x->cap_mms, x->nr_mms + 1);
	x->mms[x->nr_mms++] = p->id;
}

void simx_enter(struct rp_sim *s, struct proc *p, uint32_t vma_id)
{
	uint64_t lo, hi;

	if (s->pol.mech.khugepaged && !p->kh && vma_collapsible(s, vma_id, &lo, &hi))
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

/*
 * collapse_huge_page() of leaf l of p: a new 2M folio, charged, the present pages copied
 * into it (their touched and written state kept) and released, the rest zero-filled and
 * untouched; one PMD. Its pages are the site slot of its lowest non-zero page.
 */
static void collapse(struct rp_sim *s, struct proc *p, struct leaf *l)
{
	uint64_t pfn, old = 0;
	uint32_t slot = 0;
	unsigned int j;
	int have = 0;

	if (over_limit(s, LEAF_PAGES) || rp_alloc_get(&s->alloc, RP_PMD_ORDER, &pfn)) {
		p->c.v[RP_M_ALLOC_FAILS]++;
		return;
	}
	for (j = 0; j < LEAF_PAGES; j++) {
		uint8_t st = l->st[j];

		if (!pg_present(l, j) || (st & PG_ZERO)) {
			l->st[j] = 0;
		} else {
			if (s->nr_slots) {
				if (!have)
					slot = l->site[j], have = 1;
				site_rss(s, l->site[j], -1);
			}
			release_page(s, st, l->pfn[j]);
			l->st[j] = st & (PG_TOUCHED | PG_WRITTEN);
			old++;
		}
		l->ord[j] = RP_PMD_ORDER;
		l->pfn[j] = pfn + j;
	}
	memset(l->present, 0xff, sizeof(l->present));
	l->nr_present = LEAF_PAGES;
	if (s->nr_slots) {
		for (j = 0; j < LEAF_PAGES; j++)
			l->site[j] = slot;
		site_rss(s, slot, LEAF_PAGES);
	}
	rss_sub(s, p, old);
	rss_add(s, p, LEAF_PAGES);
	p->c.v[RP_M_COLLAPSES]++;
	simx_thp(s, p, l);
}

/*
 * hpage_collapse_scan_pmd() of leaf l: not if already a PMD THP, if more than
 * max_ptes_none PTEs are none or the zero page (any in a userfaultfd-armed VMA), if more
 * than max_ptes_shared pages are shared after fork, or if none is writable (not
 * copy-on-write). The trace has no access bits: every page counts as referenced.
 */
static void scan_pmd(struct rp_sim *s, struct proc *p, struct leaf *l)
{
	unsigned int j, none = 0, shared = 0, writable = 0;
	int uffd = !!(s->vmas[l->vma].flags & RP_VM_UFFD);

	if (pg_present(l, 0) && !(l->st[0] & PG_ZERO) && l->ord[0] == RP_PMD_ORDER)
		return;
	for (j = 0; j < LEAF_PAGES; j++) {
		if (!pg_present(l, j) || (l->st[j] & PG_ZERO)) {
			if (uffd || ++none > s->pol.mech.max_ptes_none)
				return;
			continue;
		}
		if (!(l->st[j] & PG_COW))
			writable++;
		else if (shared_get(&s->shared, l->pfn[j]) >= 2 && ++shared > RP_MECH_MAX_PTES_SHARED)
			return;
	}
	if (writable)
		collapse(s, p, l);
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
		if (!vma_collapsible(s, l->vma, &lo, &hi) || base < lo || base + LEAF_PAGES > hi)
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
