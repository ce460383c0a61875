// SPDX-License-Identifier: GPL-2.0
/*
 * oracle.c - the reference simulator: deliberately naive, written from docs/policies.md and
 * docs/metrics.md without sharing code with sim.c, so the differential test
 * (tests/unit/replay-diff.c) compares two independent readings of the same rules. It knows
 * no policy by name: the engine flags (RP_POL_*) and p->window say how the kernel treats a
 * policy, and the orders a write fault asks for come from the policy's naive reading of
 * its rule (ops->ref_orders, written apart from its fast one; adaptive has one) or, for a
 * policy whose decision is a line or two (mcpage, mthp, thp), its decision itself. Every page is an entry of one chained hash table keyed by (process, page)
 * and of its process's list; every physical page has a reference count (mappings); every
 * question ("is this range absent", "which pages does this zap hit", "is the buddy of this
 * block free") is answered by looking at every candidate one by one. Slow by design: use it
 * on streams of up to a few million events.
 *
 * Per-site accounting (docs/sites.md, "Per-site metrics"), read literally: whatever the
 * faults and zeroed bytes of a counted process grow by while one touch is replayed is its
 * site slot's; a page remembers the slot of the event that mapped it (the parent's at a
 * fork; slot 0 when the parent is not counted), and its RSS and bloat are that slot's;
 * every slot's RSS is copied whenever the total RSS rises above its peak.
 */
#include <stdlib.h>
#include <string.h>

#include "lib/error.h"
#include "lib/xalloc.h"
#include "replay/mech.h"
#include "replay/policy.h"
#include "replay/pageset.h"
#include "replay/pcp.h"
#include "replay/replay.h"

#define NREFS 65536	/* buckets of the pfn reference counts */

struct opage {
	uint32_t proc;
	uint64_t vpn;
	int zero;		/* maps the zero page */
	int touched;		/* touched since mapped */
	int cow;		/* write-protected after a fork */
	int written;		/* written since mapped: not all zeros (the shrinker's test) */
	unsigned int ord;	/* order of its block */
	uint32_t thp;		/* serial of the THP it is part of on the deferred list, 0 */
	uint64_t pfn;
	uint32_t slot;		/* site slot whose touch mapped it (per-site accounting) */
	struct opage *next;	/* hash chain */
	struct opage *pprev, *pnext;	/* the process's pages */
};

struct oproc {
	int seen;
	int64_t rss;		/* pages */
	int64_t peak;		/* pages */
	struct opage *pages;	/* list of its pages */
	__int128 area;		/* page-ns: its rss integrated over time */
	int kh;			/* khugepaged: 0 not on its list, 1 on it, 2 exited */
	uint64_t fault_end;	/* ts of the record of its latest fault, if faulted */
	int faulted;
	struct rp_counters c;
};

struct odl {			/* a THP on the deferred split list */
	uint32_t proc;
	uint64_t vpn;		/* its first page */
	uint32_t serial;
};

struct orange {			/* the VMA of the latest first-touch fault in a 2M range */
	uint32_t proc;
	uint64_t key;		/* vpn / 512 */
	uint32_t vma;
	struct orange *next;
};

struct oref {			/* mappings of one physical page (zero page excluded) */
	uint64_t pfn;
	unsigned int count;
	struct oref *next;
};

struct oblock {
	uint64_t pfn;
	unsigned int ord;
};

struct rp_oracle {
	struct rp_policy pol;
	enum rp_frag_kind frag;
	const struct rp_vma *vmas;
	uint32_t nr_vmas;
	struct opage **bucket;	/* chained hash of every page */
	size_t nbuckets, npages;
	struct oref *refs[NREFS];
	struct oproc *procs;
	uint32_t nr_procs;
	const uint8_t *counted;	/* rp_trace.counted: 0 for a shadow, in no metric */
	uint64_t cold_gap;	/* rp_trace.cold_gap, or RP_COLD_GAP_NS for 0 */
	uint32_t nr_counted;
	int64_t rss, peak;	/* pages, all counted processes */
	/*
	 * page tables: (process, 2M range) -> 1 while the range has one (from its first page
	 * until a munmap, mremap or exit leaves it empty, or a THP is zapped whole); tables,
	 * those of counted processes; table_pending 1 while a fault into a range without one
	 * has charged its table (+limit) and mapped nothing
	 */
	struct rp_pageset tbl;
	uint64_t tables;
	unsigned int table_pending;
	/* allocator */
	struct oblock *freel;	/* free blocks, unordered */
	size_t nr_free, cap_free;
	uint64_t managed;	/* pfns below this belong to the buddy model */
	uint64_t pool;		/* pool pfns below this were compacted or skipped */
	uint64_t next;		/* next pfn of the bump (none model and overflow) */
	struct rp_pcp pcp;	/* the order-0 per-cpu list (replay/pcp.h) */
	void *pol_state;	/* the policy's own state (ops->state_new), not the engine's */
	struct rp_counters total;
	/* per-site accounting; nr_slots 0: none */
	uint32_t nr_slots;
	uint32_t slot;		/* slot of the event being replayed (0 without slots) */
	struct rp_site_counters *site;	/* by slot; rss in pages */
	uint64_t *rss_at_peak;	/* by slot: its rss (pages) when o->peak was last raised */
	/* time and the +mechanisms (docs/policies.md, "Mechanisms") */
	int started;		/* an event was fed: last and next_scan are set */
	uint64_t last;		/* ns: the time the processes' areas are integrated to */
	uint64_t next_scan;	/* ns: khugepaged's next wake */
	struct odl *dl;		/* the deferred split list, oldest first, from dl_head */
	size_t nr_dl, cap_dl, dl_head;
	uint32_t serial;	/* THPs put on it so far */
	uint32_t *mms;		/* khugepaged's processes, in the order they entered */
	size_t nr_mms, cap_mms;
	size_t cur;		/* the one being scanned: index into mms, SIZE_MAX at the head */
	uint64_t addr;		/* the next 2M range (vpn / 512) to scan in it */
	struct orange *ranges;	/* every (process, 2M range) a first touch saw, a list */
};

static int charge(struct rp_oracle *o, uint64_t n, int may_reclaim);
static void thp_queue(struct rp_oracle *o, uint32_t proc, uint64_t vpn);
static void range_vma(struct rp_oracle *o, uint32_t proc, uint64_t vpn, uint32_t vma);
static void mech_exit(struct rp_oracle *o, uint32_t proc);

static size_t bucket_of(const struct rp_oracle *o, uint32_t proc, uint64_t vpn)
{
	return (size_t)((vpn * 31 + proc) % o->nbuckets);
}

static struct opage *find(struct rp_oracle *o, uint32_t proc, uint64_t vpn)
{
	struct opage *pg;

	for (pg = o->bucket[bucket_of(o, proc, vpn)]; pg; pg = pg->next)
		if (pg->proc == proc && pg->vpn == vpn)
			return pg;
	return NULL;
}

static struct oproc *P(struct rp_oracle *o, uint32_t proc);

/* Keep chains short: four times as many buckets as pages, rebuilt when outgrown. */
static void rehash(struct rp_oracle *o)
{
	struct opage **old = o->bucket, *pg, *nx;
	size_t n = o->nbuckets, i, b;

	o->nbuckets = n ? n * 4 : 4096;
	o->bucket = xcalloc(o->nbuckets, sizeof(*o->bucket));
	for (i = 0; i < n; i++) {
		for (pg = old[i]; pg; pg = nx) {
			nx = pg->next;
			b = bucket_of(o, pg->proc, pg->vpn);
			pg->next = o->bucket[b];
			o->bucket[b] = pg;
		}
	}
	free(old);
}

static int counted(const struct rp_oracle *o, uint32_t proc)
{
	return !o->counted || proc >= o->nr_counted || o->counted[proc];
}

static int absent(struct rp_oracle *o, uint32_t proc, uint64_t b, uint64_t n)
{
	uint64_t v;

	for (v = b; v < b + n; v++)
		if (find(o, proc, v))
			return 0;
	return 1;
}

/* An order-0 allocation over the limit or without memory: the memcg's (or the zone's) OOM. */
static void count_oom(struct oproc *p)
{
	p->c.v[RP_M_ALLOC_FAILS]++;
	p->c.v[RP_M_OOM]++;
}

static int has_table(struct rp_oracle *o, uint32_t proc, uint64_t vpn)
{
	return rp_pageset_get(&o->tbl, rp_ps_key(proc, vpn / 512)) != 0;
}

/* The 2M range of vpn gets its page table (no longer pending). */
static void table_new(struct rp_oracle *o, uint32_t proc, uint64_t vpn)
{
	rp_pageset_add(&o->tbl, rp_ps_key(proc, vpn / 512), 1);
	o->tables += counted(o, proc);
	o->table_pending = 0;
}

/*
 * The page tables of proc's 2M ranges that meet pages [lo, hi): each one whose range holds
 * no page now goes if all (munmap, mremap, exit), or if it is in thp_whole (the first
 * pages of ranges that were a whole PMD-mapped THP before a MADV_DONTNEED, nr of them).
 */
static void tables_drop(struct rp_oracle *o, uint32_t proc, uint64_t lo, uint64_t hi, int all,
			const uint64_t *thp_whole, size_t nr)
{
	struct rp_page_val *t = NULL;
	size_t cap = 0, n, i, k;

	if (hi <= lo)
		return;
	n = rp_pageset_take(&o->tbl, proc, lo / 512,
			    hi / 512 >= RP_PS_ALL_PAGES ? RP_PS_ALL_PAGES : (hi - 1) / 512 + 1,
			    &t, &cap);
	for (i = 0; i < n; i++) {
		int drop = all;

		for (k = 0; k < nr && !drop; k++)
			drop = thp_whole[k] == t[i].page * 512;
		if (drop && absent(o, proc, t[i].page * 512, 512))
			o->tables -= counted(o, proc);
		else
			rp_pageset_add(&o->tbl, rp_ps_key(proc, t[i].page), 1);
	}
	free(t);
}

static struct opage *add(struct rp_oracle *o, uint32_t proc, uint64_t vpn)
{
	struct opage *pg;
	struct oproc *p = P(o, proc);
	size_t b;

	if (!has_table(o, proc, vpn))
		table_new(o, proc, vpn);
	pg = xcalloc(1, sizeof(*pg));

	if (o->npages >= o->nbuckets)
		rehash(o);
	b = bucket_of(o, proc, vpn);
	pg->proc = proc;
	pg->vpn = vpn;
	pg->slot = o->slot;
	pg->next = o->bucket[b];
	o->bucket[b] = pg;
	pg->pnext = p->pages;
	if (p->pages)
		p->pages->pprev = pg;
	p->pages = pg;
	o->npages++;
	return pg;
}

static void del(struct rp_oracle *o, struct opage *pg)
{
	struct opage **pp;

	for (pp = &o->bucket[bucket_of(o, pg->proc, pg->vpn)]; *pp; pp = &(*pp)->next) {
		if (*pp == pg) {
			*pp = pg->next;
			break;
		}
	}
	if (pg->pprev)
		pg->pprev->pnext = pg->pnext;
	else
		o->procs[pg->proc].pages = pg->pnext;
	if (pg->pnext)
		pg->pnext->pprev = pg->pprev;
	o->npages--;
	free(pg);
}

/* ---- reference counts of physical pages ---- */

static struct oref **ref_slot(struct rp_oracle *o, uint64_t pfn)
{
	struct oref **r;

	for (r = &o->refs[pfn % NREFS]; *r; r = &(*r)->next)
		if ((*r)->pfn == pfn)
			return r;
	return r;
}

/* One more mapping of pfn. */
static void ref_get(struct rp_oracle *o, uint64_t pfn)
{
	struct oref **r = ref_slot(o, pfn);

	if (!*r) {
		*r = xcalloc(1, sizeof(**r));
		(*r)->pfn = pfn;
	}
	(*r)->count++;
}

/* How many pages of all processes map pfn. */
static unsigned int mapcount(struct rp_oracle *o, uint64_t pfn)
{
	struct oref **r = ref_slot(o, pfn);

	return *r ? (*r)->count : 0;
}

/* One mapping fewer. Return: the mappings left. */
static unsigned int ref_put(struct rp_oracle *o, uint64_t pfn)
{
	struct oref **r = ref_slot(o, pfn), *dead;

	if (!*r)
		return 0;
	if (--(*r)->count)
		return (*r)->count;
	dead = *r;
	*r = dead->next;
	free(dead);
	return 0;
}

static struct oproc *P(struct rp_oracle *o, uint32_t proc)
{
	if (proc >= o->nr_procs) {
		o->procs = xrealloc(o->procs, (proc + 1) * sizeof(*o->procs));
		memset(o->procs + o->nr_procs, 0, (proc + 1 - o->nr_procs) * sizeof(*o->procs));
		o->nr_procs = proc + 1;
	}
	o->procs[proc].seen = 1;
	return &o->procs[proc];
}

/* d pages of proc's, of site slot slot, mapped (d > 0) or unmapped. */
static void rss(struct rp_oracle *o, uint32_t proc, uint32_t slot, int64_t d)
{
	struct oproc *p = P(o, proc);
	uint32_t i;

	p->rss += d;
	if (p->rss > p->peak)
		p->peak = p->rss;
	if (!counted(o, proc))
		return;
	if (o->nr_slots)
		o->site[slot].rss += (uint64_t)d;
	o->rss += d;
	if (o->rss > o->peak) {
		o->peak = o->rss;
		for (i = 0; i < o->nr_slots; i++)
			o->rss_at_peak[i] = o->site[i].rss;
	}
}

/* ---- allocator: a list of free blocks ---- */

static void free_add(struct rp_oracle *o, uint64_t pfn, unsigned int ord)
{
	XGROW(o->freel, o->cap_free, o->nr_free + 1);
	o->freel[o->nr_free].pfn = pfn;
	o->freel[o->nr_free].ord = ord;
	o->nr_free++;
}

static void free_remove(struct rp_oracle *o, size_t i)
{
	o->freel[i] = o->freel[--o->nr_free];
}

static uint64_t bump(struct rp_oracle *o, unsigned int ord)
{
	uint64_t n = 1ULL << ord, pfn = o->next;

	while (pfn % n)
		pfn++;
	o->next = pfn + n + 1;
	return pfn;
}

static int get(struct rp_oracle *o, unsigned int ord, uint64_t *pfn);

/*
 * Compaction (docs/policies.md): for orders 1..3, the first pool pfn at or above o->pool
 * aligned to the order whose block lies inside the pool, if at least that many pages are
 * free; those pages are taken one by one (the migrated pages' new homes).
 */
static int compact(struct rp_oracle *o, unsigned int ord, uint64_t *pfn)
{
	uint64_t n = 1ULL << ord, at = o->pool, free = 0, dst, i;

	if (ord < 1 || ord > RP_COMPACT_MAX_ORDER)
		return -1;
	while (at % n)
		at++;
	if (at + n > o->managed)
		return -1;
	for (i = 0; i < o->nr_free; i++)
		free += 1ULL << o->freel[i].ord;
	if (free < n)
		return -1;
	for (i = 0; i < n; i++)
		get(o, 0, &dst);
	o->pool = at + n;
	*pfn = at;
	return 0;
}

static int get(struct rp_oracle *o, unsigned int ord, uint64_t *pfn)
{
	size_t i, best = (size_t)-1;

	if (o->frag == RP_FRAG_NONE) {
		*pfn = bump(o, ord);
		return 0;
	}
	for (i = 0; i < o->nr_free; i++) {
		struct oblock *b = &o->freel[i];

		if (b->ord < ord)
			continue;
		if (best == (size_t)-1 || b->ord < o->freel[best].ord ||
		    (b->ord == o->freel[best].ord && b->pfn < o->freel[best].pfn))
			best = i;
	}
	if (best == (size_t)-1)
		return compact(o, ord, pfn);
	{
		struct oblock b = o->freel[best];

		free_remove(o, best);
		while (b.ord > ord) {
			b.ord--;
			free_add(o, b.pfn + (1ULL << b.ord), b.ord);
		}
		*pfn = b.pfn;
	}
	return 0;
}

static void put(struct rp_oracle *o, uint64_t pfn)
{
	unsigned int ord = 0;
	size_t i;
	int merged = 1;

	if (o->frag == RP_FRAG_NONE || pfn >= o->managed)
		return;
	while (merged && ord < RP_MAX_ORDER) {
		merged = 0;
		for (i = 0; i < o->nr_free; i++) {
			if (o->freel[i].ord == ord && o->freel[i].pfn == (pfn ^ (1ULL << ord))) {
				free_remove(o, i);
				pfn &= ~(1ULL << ord);
				ord++;
				merged = 1;
				break;
			}
		}
	}
	free_add(o, pfn, ord);
}

/* A 4K page that is mapped whatever happens (OOM counted: no memory, or over the limit). */
static uint64_t get_page(struct rp_oracle *o, struct oproc *p)
{
	int oom = charge(o, 1, 1);
	uint64_t pfn;

	if (get(o, 0, &pfn)) {
		oom = 1;
		pfn = bump(o, 0);
	}
	if (oom)
		count_oom(p);
	p->c.v[RP_M_ALLOC_0]++;
	rp_pcp_count(&o->pcp, 0, p->c.v);
	return pfn;
}

/*
 * One mapping of pfn gone: its memory is freed when it was the last. Return: 1 if
 * freed (towards the per-cpu list of its folio's order, rp_pcp_free()).
 */
static int drop_page(struct rp_oracle *o, uint64_t pfn)
{
	if (ref_put(o, pfn))
		return 0;
	put(o, pfn);
	return 1;
}

static void free_page(struct rp_oracle *o, uint64_t pfn, unsigned int ord)
{
	if (drop_page(o, pfn))
		rp_pcp_free(&o->pcp, ord, 1);
}

static void unmap(struct rp_oracle *o, struct opage *pg)
{
	struct oproc *p = P(o, pg->proc);
	uint64_t pfn = pg->pfn;
	unsigned int ord = pg->ord;
	int zero = pg->zero;

	if (!zero) {
		if (!pg->touched) {
			p->c.v[RP_M_BLOAT] += RP_PAGE_SIZE;
			if (o->nr_slots && counted(o, pg->proc))
				o->site[pg->slot].bloat += RP_PAGE_SIZE;
		}
		rss(o, pg->proc, pg->slot, -1);
	}
	del(o, pg);
	if (!zero)
		free_page(o, pfn, ord);
}

/* ---- faults ---- */

/* The policy can map more than 4K: faults then report fallback reasons. */
static int is_large(const struct rp_oracle *o)
{
	return !(o->pol.ops->flags & RP_POL_4K);
}

/*
 * Orders to try, largest first: the policy's naive reading of its rule (ops->ref_orders,
 * written apart from its fast one) if it has one, else its decision itself. f describes
 * the fault as the engine sees it (vma_id UINT32_MAX when the VMA is unknown).
 */
static unsigned int candidates(struct rp_oracle *o, const struct rp_fault *f,
			       uint8_t out[RP_PMD_ORDER])
{
	const struct rp_policy_ops *ops = o->pol.ops;

	if (ops->ref_orders)
		return ops->ref_orders(&o->pol, o->pol_state, f, out);
	if (ops->orders)
		return ops->orders(&o->pol, o->pol_state, f, out);
	return 0;
}

/* Tell the policy what a write fault mapped (its state may follow it, as adaptive's does). */
static void mapped(struct rp_oracle *o, const struct rp_fault *f, uint64_t first,
		   unsigned int ord)
{
	if (o->pol.ops->mapped)
		o->pol.ops->mapped(o->pol_state, f, first, ord);
}

/*
 * +limit: the page table of a fault into an empty 2M range, charged (may reclaim) and
 * pending until the fault maps a page there; over the limit, the memcg's OOM
 */
static void table_charge(struct rp_oracle *o, struct oproc *p)
{
	if (charge(o, 1, 1))
		count_oom(p);
	o->table_pending = 1;
}

static void fault(struct rp_oracle *o, uint32_t proc, uint64_t vpn, int write, uint32_t vma_id)
{
	struct oproc *p = P(o, proc);
	uint64_t start = vpn, end = vpn + 1, v;
	unsigned int reason = FTDB_FB_NONE, n, t;
	unsigned int always4k = 0;
	int thp = !!(o->pol.ops->flags & RP_POL_PMD), nothp = 0, table;
	struct rp_fault f = { .vpn = vpn, .proc_id = proc, .vma_id = UINT32_MAX,
			      .slot = o->slot };
	uint8_t cand[RP_PMD_ORDER];
	struct opage *pg;

	if (vma_id < o->nr_vmas && o->vmas[vma_id].end > o->vmas[vma_id].start) {
		start = o->vmas[vma_id].start / RP_PAGE_SIZE;
		end = (o->vmas[vma_id].end + RP_PAGE_SIZE - 1) / RP_PAGE_SIZE;
		if (o->vmas[vma_id].flags & RP_VM_NOHUGEPAGE)
			always4k = FTDB_FB_NOHUGEPAGE;
		else if (o->vmas[vma_id].flags & RP_VM_UFFD)
			always4k = FTDB_FB_UFFD;
		/* exec's temporary stack: THP never serves it, and says nothing */
		nothp = thp && rp_vm_exec_stack(o->vmas[vma_id].flags);
		f.vma_id = vma_id;
	}
	f.vma_start = start;
	f.vma_end = end;
	p->c.v[RP_M_FAULTS]++;
	if (rp_mech_any(&o->pol.mech))
		range_vma(o, proc, vpn, vma_id);
	/* a THP charges its table after itself, any other mapping before */
	table = !has_table(o, proc, vpn);
	p->c.v[RP_M_TABLE_FAULTS] += (uint64_t)table;
	table = table && o->pol.mech.limit_pages;
	if (table && (!write || o->pol.window)) {
		table_charge(o, p);
		table = 0;
	}
	if (!write) {
		if (!thp) {
			reason = is_large(o) ? FTDB_FB_READ : FTDB_FB_NONE;
		} else if (nothp) {
			reason = FTDB_FB_NONE;
		} else if (always4k) {
			reason = (unsigned int)always4k;
		} else {
			uint64_t b = vpn - vpn % 512;

			if (b < start || b + 512 > end) {
				reason = FTDB_FB_VMA_EDGE;
			} else if (!absent(o, proc, b, 512)) {
				reason = FTDB_FB_PTE_POPULATED;
			} else {
				for (v = b; v < b + 512; v++)
					add(o, proc, v)->zero = 1;
				p->c.v[RP_M_PTE_WRITES] += 1;
				p->c.v[RP_M_HUGE_ZERO_MAPS]++;
				return;
			}
		}
		if (reason)
			p->c.v[RP_M_FB_0 + reason]++;
		add(o, proc, vpn)->zero = 1;
		p->c.v[RP_M_PTE_WRITES]++;
		p->c.v[RP_M_ZERO_MAPS]++;
		return;
	}
	if (nothp) {
		reason = FTDB_FB_NONE;
	} else if (always4k) {
		if (is_large(o))
			reason = (unsigned int)always4k;
	} else if (o->pol.window) {
		uint64_t w = o->pol.window, b = vpn - vpn % w, pfn;
		unsigned int mapped = 1;

		pg = add(o, proc, vpn);
		pg->pfn = get_page(o, p);
		ref_get(o, pg->pfn);
		pg->touched = 1;
		pg->written = 1;
		for (v = b; v < b + w; v++) {
			if (v < start || v >= end || v == vpn || find(o, proc, v))
				continue;
			if (charge(o, 1, 1) || get(o, 0, &pfn)) {
				p->c.v[RP_M_ALLOC_FAILS]++;
				p->c.v[RP_M_FB_0 + FTDB_FB_ALLOC_FAILED]++;
				break;
			}
			p->c.v[RP_M_ALLOC_0]++;
			rp_pcp_count(&o->pcp, 0, p->c.v);
			add(o, proc, v)->pfn = pfn;
			ref_get(o, pfn);
			mapped++;
		}
		rss(o, proc, o->slot, mapped);
		p->c.v[RP_M_ZEROED] += mapped * RP_PAGE_SIZE;
		p->c.v[RP_M_PTE_WRITES] += mapped;
		return;
	}
	n = always4k || nothp ? 0 : candidates(o, &f, cand);
	for (t = 0; t < n; t++) {
		unsigned int k = cand[t];
		uint64_t sz = 1ULL << k, b = vpn - vpn % sz, pfn;
		int pmd = thp && k == RP_PMD_ORDER;

		if (table && !pmd) {
			table_charge(o, p);
			table = 0;
		}
		if (b < start || b + sz > end) {
			if (!reason)
				reason = FTDB_FB_VMA_EDGE;
			continue;
		}
		if (!absent(o, proc, b, sz)) {
			if (!reason)
				reason = FTDB_FB_PTE_POPULATED;
			continue;
		}
		if (charge(o, sz, k == 0) || get(o, k, &pfn)) {	/* no reclaim: GFP_TRANSHUGE_LIGHT */
			p->c.v[RP_M_ALLOC_FAILS]++;
			if (!reason)
				reason = FTDB_FB_ALLOC_FAILED;
			continue;
		}
		rp_pcp_count(&o->pcp, k, p->c.v);
		for (v = b; v < b + sz; v++) {
			pg = add(o, proc, v);
			pg->ord = k;
			pg->pfn = pfn + (v - b);
			ref_get(o, pg->pfn);
			pg->touched = v == vpn;
			pg->written = v == vpn;
		}
		if (pmd)
			thp_queue(o, proc, b);
		rss(o, proc, o->slot, (int64_t)sz);
		if (table && charge(o, 0, 1))		/* the THP's deposited table */
			count_oom(p);
		p->c.v[RP_M_ALLOC_0 + k]++;
		p->c.v[RP_M_ZEROED] += sz * RP_PAGE_SIZE;
		if (pmd) {
			p->c.v[RP_M_PTE_WRITES] += 1;
			p->c.v[RP_M_PMD_MAPS]++;
		} else {
			p->c.v[RP_M_PTE_WRITES] += sz;
			if (k >= 4)
				p->c.v[RP_M_CONTPTE_RUNS] += sz / 16;
		}
		if (reason)
			p->c.v[RP_M_FB_0 + reason]++;
		mapped(o, &f, b, k);
		return;
	}
	if (reason)
		p->c.v[RP_M_FB_0 + reason]++;
	if (table)
		table_charge(o, p);
	pg = add(o, proc, vpn);
	pg->pfn = get_page(o, p);
	ref_get(o, pg->pfn);
	pg->touched = 1;
	pg->written = 1;
	rss(o, proc, o->slot, 1);
	p->c.v[RP_M_ZEROED] += RP_PAGE_SIZE;
	p->c.v[RP_M_PTE_WRITES]++;
	if (!always4k && !nothp)
		mapped(o, &f, vpn, 0);
}

/*
 * Write fault on a COW page: a private 4K copy; the old page is freed once nobody maps it.
 * Counted in RP_M_COW_LARGE too when the page was of a large folio (order 2 and up).
 */
static void cow_copy(struct rp_oracle *o, struct opage *pg)
{
	struct oproc *p = P(o, pg->proc);
	/* the per-cpu list sees the copy allocated before the old page is freed */
	int freed = drop_page(o, pg->pfn);
	unsigned int ord = pg->ord;

	p->c.v[RP_M_COW_LARGE] += ord >= 2;
	pg->cow = 0;
	pg->touched = 1;
	pg->written = 1;
	pg->ord = 0;
	pg->pfn = get_page(o, p);
	ref_get(o, pg->pfn);
	if (freed)
		rp_pcp_free(&o->pcp, ord, 1);
	p->c.v[RP_M_COW]++;
	p->c.v[RP_M_PTE_WRITES]++;
}

static void touch(struct rp_oracle *o, uint32_t proc, uint64_t vpn, int write, uint32_t vma_id)
{
	struct oproc *p = P(o, proc);
	struct opage *pg = find(o, proc, vpn);

	p->c.v[RP_M_TOUCHES]++;
	if (!pg) {
		fault(o, proc, vpn, write, vma_id);
		return;
	}
	if (!write) {
		if (!pg->zero)
			pg->touched = 1;
		return;
	}
	if (pg->zero) {
		pg->zero = 0;
		pg->touched = 1;
		pg->written = 1;
		pg->cow = 0;
		pg->ord = 0;
		pg->pfn = get_page(o, p);
		pg->slot = o->slot;
		ref_get(o, pg->pfn);
		rss(o, proc, pg->slot, 1);
		p->c.v[RP_M_FAULTS]++;
		p->c.v[RP_M_ZERO_WP]++;
		p->c.v[RP_M_ZEROED] += RP_PAGE_SIZE;
		p->c.v[RP_M_PTE_WRITES]++;
		return;
	}
	if (pg->cow && mapcount(o, pg->pfn) >= 2) {
		cow_copy(o, pg);
		return;
	}
	pg->cow = 0;
	pg->touched = 1;
	pg->written = 1;
}

/* All pages of proc in [lo, hi), in no particular order (collected first: we delete). */
static size_t collect(struct rp_oracle *o, uint32_t proc, uint64_t lo, uint64_t hi,
		      struct opage ***out)
{
	struct opage **v = NULL, *pg;
	size_t n = 0, cap = 0;

	for (pg = P(o, proc)->pages; pg; pg = pg->pnext) {
		if (pg->vpn >= lo && pg->vpn < hi) {
			XGROW(v, cap, n + 1);
			v[n++] = pg;
		}
	}
	*out = v;
	return n;
}

/* Whether page pg starts a contpte run: 16 PTEs, one block of order 4..max folio, consecutive pfns. */
static int starts_run(struct rp_oracle *o, const struct opage *pg)
{
	int j, run = pg->vpn % 16 == 0;

	for (j = 0; j < 16 && run; j++) {
		struct opage *q = find(o, pg->proc, pg->vpn + (uint64_t)j);

		run = q && !q->zero && q->ord >= 4 && q->ord <= RP_MAX_FOLIO_ORDER &&
		      q->ord == pg->ord && q->pfn == pg->pfn + (uint64_t)j && pg->pfn % 16 == 0;
	}
	return run;
}

/* 1 if some page of the 512 from b is not mapped */
static int absent_any(struct rp_oracle *o, uint32_t proc, uint64_t b)
{
	uint64_t v;

	for (v = b; v < b + 512; v++)
		if (!find(o, proc, v))
			return 1;
	return 0;
}

static void zap(struct rp_oracle *o, const struct ftdb_event *ev)
{
	uint32_t proc = ev->proc_id;
	uint64_t lo = ev->addr / RP_PAGE_SIZE;
	uint64_t hi = ev->end / RP_PAGE_SIZE + (ev->end % RP_PAGE_SIZE != 0);
	struct opage **v;
	size_t n, i, nr_whole = 0, cap_whole = 0;
	uint64_t *thp_whole = NULL;

	P(o, proc);
	if (ev->reason == FTDB_ZAP_EXIT) {	/* exit ends the whole address space */
		lo = 0;
		hi = UINT64_MAX;
		mech_exit(o, proc);
	}
	if (hi <= lo)
		return;
	n = collect(o, proc, lo, hi, &v);
	/* MADV_DONTNEED keeps page tables but a whole PMD-mapped THP's (zap_huge_pmd()) */
	if (ev->reason == FTDB_ZAP_DONTNEED) {
		uint64_t b;

		for (b = (lo + 511) / 512 * 512; b + 512 <= hi; b += 512) {
			struct opage *first = find(o, proc, b);

			if (first && first->ord == RP_PMD_ORDER && !absent_any(o, proc, b)) {
				XGROW(thp_whole, cap_whole, nr_whole + 1);
				thp_whole[nr_whole++] = b;
			}
		}
	}
	if (ev->reason == FTDB_ZAP_EXIT)	/* the runs at the address space's end */
		for (i = 0; i < n; i++)
			P(o, proc)->c.v[RP_M_CONTPTE_EXIT] += (uint64_t)starts_run(o, v[i]);
	if (ev->reason == FTDB_ZAP_FREE) {
		for (i = 0; i < n; i++)
			if (!v[i]->zero)
				P(o, proc)->c.v[RP_M_FREE_BYTES] += RP_PAGE_SIZE;
	} else if (ev->reason == FTDB_ZAP_MREMAP && ev->aux) {
		uint64_t dst = ev->aux / RP_PAGE_SIZE;
		struct opage *saved = xcalloc(n ? n : 1, sizeof(*saved));
		struct opage **d;
		size_t nd;

		for (i = 0; i < n; i++) {
			saved[i] = *v[i];
			del(o, v[i]);
		}
		nd = collect(o, proc, dst, dst + (hi - lo), &d);
		for (i = 0; i < nd; i++)
			unmap(o, d[i]);
		free(d);
		for (i = 0; i < n; i++) {
			struct opage *pg = add(o, proc, dst + (saved[i].vpn - lo));

			pg->zero = saved[i].zero;
			pg->touched = saved[i].touched;
			pg->cow = saved[i].cow;
			pg->written = saved[i].written;
			pg->thp = 0;	/* a THP moved is off the deferred list */
			pg->ord = saved[i].ord;
			pg->pfn = saved[i].pfn;
			pg->slot = saved[i].slot;
		}
		free(saved);
		tables_drop(o, proc, dst, dst + (hi - lo), 1, NULL, 0);
	} else {
		for (i = 0; i < n; i++)
			unmap(o, v[i]);
	}
	free(v);
	if (ev->reason != FTDB_ZAP_FREE)
		tables_drop(o, proc, lo, hi, ev->reason != FTDB_ZAP_DONTNEED, thp_whole, nr_whole);
	free(thp_whole);
}

static void mm_dup(struct rp_oracle *o, uint32_t child, uint32_t parent)
{
	struct opage **v, **c;
	size_t n, nc, i;

	P(o, child);
	P(o, parent);
	if (child == parent)
		return;
	/* khugepaged_fork(): the child of a process on khugepaged's list joins it */
	if (o->pol.mech.khugepaged && P(o, parent)->kh == 1 && !P(o, child)->kh) {
		P(o, child)->kh = 1;
		XGROW(o->mms, o->cap_mms, o->nr_mms + 1);
		o->mms[o->nr_mms++] = child;
	}
	/* copy_page_range(): the child gets a page table wherever the parent has one */
	{
		struct rp_page_val *t = NULL;
		size_t cap = 0, nt = rp_pageset_take(&o->tbl, parent, 0, RP_PS_ALL_PAGES, &t, &cap);

		for (i = 0; i < nt; i++)
			rp_pageset_add(&o->tbl, rp_ps_key(parent, t[i].page), 1);
		for (i = 0; i < nt; i++)
			if (!has_table(o, child, t[i].page * 512))
				table_new(o, child, t[i].page * 512);
		free(t);
	}
	n = collect(o, parent, 0, UINT64_MAX, &v);
	for (i = 0; i < n; i++) {
		struct opage *pg;

		nc = collect(o, child, v[i]->vpn, v[i]->vpn + 1, &c);
		if (nc)
			unmap(o, c[0]);
		free(c);
		pg = add(o, child, v[i]->vpn);
		if (v[i]->zero) {
			pg->zero = 1;
			continue;
		}
		v[i]->cow = 1;
		pg->cow = 1;
		pg->touched = 1;
		pg->written = v[i]->written;
		pg->ord = v[i]->ord;
		pg->pfn = v[i]->pfn;
		/* a copy of an uncounted parent's page: which site mapped it is not kept */
		pg->slot = counted(o, parent) ? v[i]->slot : 0;
		ref_get(o, pg->pfn);
		rss(o, child, pg->slot, 1);
	}
	free(v);
}

/* ---- the +mechanisms, naively (docs/policies.md, "Mechanisms") ---- */

static int has_page(struct opage *pg)
{
	return pg && !pg->zero;
}

/* Put the THP of proc at vpn.. on the deferred split list (with +shrinker). */
static void thp_queue(struct rp_oracle *o, uint32_t proc, uint64_t vpn)
{
	uint64_t v;

	if (!o->pol.mech.shrinker)
		return;
	o->serial++;
	for (v = vpn; v < vpn + 512; v++)
		find(o, proc, v)->thp = o->serial;
	XGROW(o->dl, o->cap_dl, o->nr_dl + 1);
	o->dl[o->nr_dl].proc = proc;
	o->dl[o->nr_dl].vpn = vpn;
	o->dl[o->nr_dl].serial = o->serial;
	o->nr_dl++;
}

/*
 * The shrinker looks at the THP of d once: if its 512 pages are all there, all of its
 * serial, order 9, consecutive, none the zero page or copy-on-write, and more than
 * max_ptes_none of them were never written (and max_ptes_none is not 511), it is split:
 * every page becomes order 0, the never-written ones the zero page, their memory freed.
 */
static void shrink_one(struct rp_oracle *o, const struct odl *d)
{
	struct opage *pg[512];
	struct oproc *p = P(o, d->proc);
	unsigned int j, unwritten = 0, freed = 0;

	for (j = 0; j < 512; j++) {
		pg[j] = find(o, d->proc, d->vpn + j);
		if (!has_page(pg[j]) || pg[j]->cow || pg[j]->thp != d->serial || pg[j]->ord != 9 ||
		    pg[j]->pfn != pg[0]->pfn + j)
			return;
		if (!pg[j]->written)
			unwritten++;
	}
	if (o->pol.mech.max_ptes_none == 511 || unwritten <= o->pol.mech.max_ptes_none)
		return;
	for (j = 0; j < 512; j++) {
		pg[j]->ord = 0;
		pg[j]->thp = 0;
		if (pg[j]->written)
			continue;
		if (!pg[j]->touched) {
			p->c.v[RP_M_BLOAT] += RP_PAGE_SIZE;
			if (o->nr_slots && counted(o, d->proc))
				o->site[pg[j]->slot].bloat += RP_PAGE_SIZE;
		}
		rss(o, d->proc, pg[j]->slot, -1);
		free_page(o, pg[j]->pfn, 0);
		pg[j]->zero = 1;
		pg[j]->pfn = 0;
		freed++;
	}
	p->c.v[RP_M_SPLITS]++;
	p->c.v[RP_M_SPLIT_FREED] += freed;
}

/*
 * n more pages must fit under +limit. If they do not and the charge may reclaim (a 4K
 * page, a collapse; a fault's large folio may not), memcg reclaim runs the shrinker,
 * which takes every THP off the list, oldest first, fit or not. Return: 1 if they still
 * do not fit.
 */
static int charge(struct rp_oracle *o, uint64_t n, int may_reclaim)
{
	uint64_t limit = o->pol.mech.limit_pages;

	n += o->tables + o->table_pending;	/* the page tables memory.max charges too */
	if (!limit || (uint64_t)o->rss + n <= limit)
		return 0;
	while (may_reclaim && o->pol.mech.shrinker && o->dl_head < o->nr_dl) {
		struct odl d = o->dl[o->dl_head++];

		shrink_one(o, &d);
	}
	return (uint64_t)o->rss + n > limit;
}

/*
 * khugepaged may collapse in VMA id: anonymous, not NOHUGEPAGE, not exec's stack, and the
 * whole 2M range key inside, or (key UINT64_MAX: may its process enter khugepaged's list)
 * an aligned block of some order khugepaged collapses to inside
 */
static int collapsible(struct rp_oracle *o, uint32_t id, uint64_t key)
{
	const struct rp_vma *v;
	uint64_t first, last, size;
	unsigned int k;

	if (id >= o->nr_vmas || o->vmas[id].end <= o->vmas[id].start)
		return 0;
	v = &o->vmas[id];
	if ((v->flags & RP_VM_NOHUGEPAGE) || rp_vm_exec_stack(v->flags))
		return 0;
	if (key != UINT64_MAX) {
		first = (v->start + (2ULL << 20) - 1) / (2ULL << 20);
		last = v->end / (2ULL << 20);	/* ranges [first, last) are inside */
		return key >= first && key < last;
	}
	for (k = 2; k <= 9; k++) {
		if (!(o->pol.mech.collapse_orders & (1U << k)))
			continue;
		size = 4096ULL << k;
		first = (v->start + size - 1) / size;
		if (first < v->end / size)
			return 1;
	}
	return 0;
}

static struct orange *range_find(struct rp_oracle *o, uint32_t proc, uint64_t key)
{
	struct orange *r;

	for (r = o->ranges; r; r = r->next)
		if (r->proc == proc && r->key == key)
			return r;
	return NULL;
}

/* A first-touch fault of proc at vpn in VMA vma: the range's VMA; khugepaged's list. */
static void range_vma(struct rp_oracle *o, uint32_t proc, uint64_t vpn, uint32_t vma)
{
	struct orange *r = range_find(o, proc, vpn / 512);

	if (!r) {
		r = xcalloc(1, sizeof(*r));
		r->proc = proc;
		r->key = vpn / 512;
		r->next = o->ranges;
		o->ranges = r;
	}
	r->vma = vma;
	if (o->pol.mech.khugepaged && !P(o, proc)->kh && collapsible(o, vma, UINT64_MAX)) {
		P(o, proc)->kh = 1;
		XGROW(o->mms, o->cap_mms, o->nr_mms + 1);
		o->mms[o->nr_mms++] = proc;
	}
}

/* An exit: off khugepaged's list, and the ranges forgotten (the engine drops its leaves). */
static void mech_exit(struct rp_oracle *o, uint32_t proc)
{
	struct orange **r = &o->ranges, *dead;

	if (P(o, proc)->kh)
		P(o, proc)->kh = 2;
	while (*r) {
		if ((*r)->proc == proc) {
			dead = *r;
			*r = dead->next;
			free(dead);
		} else {
			r = &(*r)->next;
		}
	}
}

/* What a collapse attempt says: go on with the next block, try the halves, or stop. */
#define NEXT_BLOCK	0
#define HALVES		1
#define STOP_RANGE	2

/*
 * Collapse the 2^k pages of proc from page b: a new order-k block (charged: a failure stops
 * the range; allocated: a failure tries the halves), each page of the range one of its
 * pages, the old ones' memory released; a page that had memory keeps whether it was
 * touched and written, the others (absent, zero page) are neither. Every page gets the
 * site slot of the lowest page that had memory. Below order 9 the kernel then looks at the
 * pages one by one, after allocating: a page whose block is of order k or more means this
 * block is left alone (NEXT_BLOCK), a page another process maps means HALVES, and no
 * writable page means STOP_RANGE; the new block is given back then.
 */
static int collapse_naive(struct rp_oracle *o, uint32_t proc, uint64_t b, unsigned int k)
{
	struct oproc *p = P(o, proc);
	uint64_t pfn, v, n = 1ULL << k;
	uint32_t slot = 0;
	int have = 0, writable = 0, verdict = -1;

	if (charge(o, n, 1)) {		/* khugepaged's GFP_TRANSHUGE may reclaim */
		p->c.v[RP_M_ALLOC_FAILS]++;
		return STOP_RANGE;
	}
	if (get(o, k, &pfn)) {
		p->c.v[RP_M_ALLOC_FAILS]++;
		return HALVES;
	}
	for (v = b; v < b + n && k < 9 && verdict < 0; v++) {
		struct opage *pg = find(o, proc, v);

		if (!has_page(pg))
			continue;
		if (pg->ord >= k)
			verdict = NEXT_BLOCK;
		else if (pg->cow && mapcount(o, pg->pfn) >= 2)
			verdict = HALVES;
		else if (!pg->cow)
			writable = 1;
	}
	if (k < 9 && verdict < 0 && !writable)
		verdict = STOP_RANGE;
	if (verdict >= 0) {
		for (v = 0; v < n; v++)
			put(o, pfn + v);
		return verdict;
	}
	for (v = b; v < b + n; v++) {
		struct opage *pg = find(o, proc, v);

		if (has_page(pg)) {
			if (!have)
				slot = pg->slot, have = 1;
			rss(o, proc, pg->slot, -1);
			free_page(o, pg->pfn, pg->ord);
		} else {
			if (!pg)
				pg = add(o, proc, v);
			pg->zero = 0;
			pg->touched = 0;
			pg->written = 0;
		}
	}
	for (v = b; v < b + n; v++) {
		struct opage *pg = find(o, proc, v);

		pg->cow = 0;
		pg->ord = k;
		pg->pfn = pfn + (v - b);
		pg->slot = slot;
		ref_get(o, pg->pfn);
		rss(o, proc, slot, 1);
	}
	p->c.v[RP_M_COLLAPSES]++;
	p->c.v[rp_m_collapse(k)]++;
	if (k == 9)
		thp_queue(o, proc, b);
	return NEXT_BLOCK;
}

/*
 * How many PTEs of a 2^k-page block may be none or the zero page for a collapse: none in a
 * userfaultfd VMA; max_ptes_none at order 9; below, all but one if it is 511, else none.
 */
static uint64_t none_allowed(struct rp_oracle *o, uint32_t vma, unsigned int k)
{
	if (o->vmas[vma].flags & RP_VM_UFFD)
		return 0;
	if (k == 9)
		return o->pol.mech.max_ptes_none;
	if (o->pol.mech.max_ptes_none == 511)
		return (1ULL << k) - 1;
	return 0;
}

/*
 * The mTHP collapse of the 2^k pages of proc from page b, read as a recursion: an order
 * khugepaged collapses to, with at most none_allowed() pages without memory, is tried;
 * if it is not, or the try says HALVES, the left half then the right half are, one order
 * down, while some order below k is enabled. Return: 1 if the whole range must stop.
 */
static int mthp_naive(struct rp_oracle *o, uint32_t proc, uint32_t vma, uint64_t b,
		      unsigned int k)
{
	uint64_t v, have = 0, n = 1ULL << k;
	unsigned int lower;

	if (o->pol.mech.collapse_orders & (1U << k)) {
		for (v = b; v < b + n; v++)
			have += has_page(find(o, proc, v));
		if (have + none_allowed(o, vma, k) >= n) {
			int r = collapse_naive(o, proc, b, k);

			if (r == STOP_RANGE)
				return 1;
			if (r == NEXT_BLOCK)
				return 0;
		}
	}
	for (lower = 0; lower < k; lower++)
		if (o->pol.mech.collapse_orders & (1U << lower))
			break;
	if (lower == k)
		return 0;
	return mthp_naive(o, proc, vma, b, k - 1) || mthp_naive(o, proc, vma, b + n / 2, k - 1);
}

/*
 * khugepaged looks at 2M range key of proc: skipped when a PMD THP maps it already; not
 * collapsed when more than 256 of its pages are shared with another process, or none is
 * writable, or (6.12, the PMD order alone) more than max_ptes_none of its pages are
 * absent or the zero page (one is too many in a userfaultfd VMA). With +collapse's mTHP
 * orders the empty pages do not stop the look: mthp_naive() decides.
 */
static void look_at(struct rp_oracle *o, uint32_t proc, uint64_t key, uint32_t vma)
{
	unsigned int empty = 0, shared = 0, writable = 0;
	struct opage *first = find(o, proc, key * 512);
	uint64_t v;

	if (has_page(first) && first->ord == 9)
		return;
	for (v = key * 512; v < key * 512 + 512; v++) {
		struct opage *pg = find(o, proc, v);

		if (!has_page(pg)) {
			empty++;
			if (o->pol.mech.mthp)
				continue;
			if ((o->vmas[vma].flags & RP_VM_UFFD) || empty > o->pol.mech.max_ptes_none)
				return;
		} else if (!pg->cow) {
			writable++;
		} else if (mapcount(o, pg->pfn) >= 2) {
			shared++;
			if (shared > 256)
				return;
		}
	}
	if (!writable)
		return;
	if (o->pol.mech.mthp)
		mthp_naive(o, proc, vma, key * 512, 9);
	else
		collapse_naive(o, proc, key * 512, 9);
}

/*
 * One process's turn: its 2M ranges holding pages, from o->addr up in address order; each
 * in a VMA khugepaged may collapse in costs 512 pages of the budget. Return: the pages
 * spent; *finished: it got to its last range within the budget.
 */
static uint64_t mm_turn(struct rp_oracle *o, uint32_t proc, uint64_t budget, int *finished)
{
	uint64_t spent = 0, key, best;
	struct opage *pg;

	*finished = 1;
	if (P(o, proc)->kh != 1)
		return 0;
	for (;;) {
		struct orange *r;

		/* the lowest range at or above o->addr holding a page */
		best = UINT64_MAX;
		for (pg = P(o, proc)->pages; pg; pg = pg->pnext) {
			key = pg->vpn / 512;
			if (key >= o->addr && key < best)
				best = key;
		}
		if (best == UINT64_MAX)
			return spent;
		o->addr = best + 1;
		r = range_find(o, proc, best);
		if (!r || !collapsible(o, r->vma, best))
			continue;
		look_at(o, proc, best, r->vma);
		spent += 512;
		if (spent >= budget) {
			*finished = 0;
			return spent;
		}
	}
}

/* A khugepaged wake: pages_to_scan pages of progress, through the list's head once. */
static void wake(struct rp_oracle *o)
{
	uint64_t spent = 0, want = o->pol.mech.pages_to_scan;
	unsigned int heads = 0;
	int finished;

	while (spent < want) {
		if (o->cur == SIZE_MAX) {
			heads++;
			if (heads == 2 || o->nr_mms == 0)
				return;
			o->cur = 0;
			o->addr = 0;
		}
		spent += mm_turn(o, o->mms[o->cur], want - spent, &finished);
		if (finished) {
			o->cur++;
			if (o->cur == o->nr_mms)
				o->cur = SIZE_MAX;
			o->addr = 0;
		}
	}
}

/* Every process's rss integrated from o->last to t (ns; t may be earlier). */
static void integrate(struct rp_oracle *o, uint64_t t)
{
	uint32_t i;

	for (i = 0; i < o->nr_procs; i++)
		o->procs[i].area += (__int128)o->procs[i].rss * ((__int128)t - (__int128)o->last);
	o->last = t;
}

/* Time goes to ts (an event's): khugepaged's wakes on the way, at their own times. */
static void advance(struct rp_oracle *o, uint64_t ts)
{
	uint64_t every = (uint64_t)o->pol.mech.scan_ms * 1000000;

	if (!o->started) {
		o->started = 1;
		o->last = ts;
		o->next_scan = ts + every;
	}
	while (o->pol.mech.khugepaged && ts >= o->next_scan) {
		integrate(o, o->next_scan);
		wake(o);
		o->next_scan += every;
	}
	integrate(o, ts);
}

struct rp_oracle *rp_oracle_new(const struct rp_policy *p, enum rp_frag_kind frag,
				const struct rp_trace *t)
{
	struct rp_oracle *o = xcalloc(1, sizeof(*o));
	uint64_t cursor = 0, i;
	int k;

	o->pol = *p;
	o->frag = frag;
	o->cur = SIZE_MAX;
	rehash(o);
	o->vmas = t->vmas;
	o->nr_vmas = t->nr_vmas;
	o->counted = t->counted;
	o->cold_gap = t->cold_gap ? t->cold_gap : RP_COLD_GAP_NS;
	o->nr_counted = t->nr_procs;
	o->nr_slots = t->nr_site_slots;
	if (o->nr_slots) {
		o->site = xcalloc(o->nr_slots, sizeof(*o->site));
		o->rss_at_peak = xcalloc(o->nr_slots, sizeof(*o->rss_at_peak));
	}
	o->pol_state = p->ops->state_new ? p->ops->state_new(p, t) : NULL;
	if (frag == RP_FRAG_BUDDYINFO) {
		/* free blocks of order k at pfns aligned to 2^(k+1), largest orders first */
		for (k = RP_MAX_ORDER; k >= 0; k--) {
			for (i = 0; i < t->free_blocks[k]; i++) {
				free_add(o, cursor, (unsigned int)k);
				cursor += 2ULL << k;
			}
		}
		/* then the movable pool, from the next multiple of 8 pages */
		while (cursor % (1ULL << RP_COMPACT_MAX_ORDER))
			cursor++;
		o->pool = cursor;
		cursor += t->movable_pages;
		o->managed = cursor;
		/* overflow pfns: from the first 2^RP_MAX_ORDER boundary above the model */
		o->next = (cursor / (1ULL << RP_MAX_ORDER) + 1) * (1ULL << RP_MAX_ORDER);
	}
	return o;
}

/* One event; o->slot is its site slot. */
static void feed_one(struct rp_oracle *o, const struct ftdb_event *e)
{
	struct oproc *p;
	struct opage *pg;

	switch (e->kind) {
	case FTDB_EV_FAULT:
		touch(o, e->proc_id, e->addr / RP_PAGE_SIZE, (e->flags & FTDB_EVF_WRITE) != 0,
		      e->vma_id);
		break;
	case FTDB_EV_ZERO_WP:
	case FTDB_EV_COW:
		pg = find(o, e->proc_id, e->addr / RP_PAGE_SIZE);
		/* the recording copied a page shared at fork: so does the model (sim.c) */
		if (pg && e->kind == FTDB_EV_COW && pg->cow && !pg->zero) {
			P(o, e->proc_id)->c.v[RP_M_TOUCHES]++;
			cow_copy(o, pg);
			break;
		}
		if (pg) {
			touch(o, e->proc_id, e->addr / RP_PAGE_SIZE, 1, UINT32_MAX);
			break;
		}
		/* a page the model cannot see: count the fault, map nothing */
		p = P(o, e->proc_id);
		p->c.v[RP_M_TOUCHES]++;
		p->c.v[RP_M_ALLOC_0]++;
		p->c.v[RP_M_PTE_WRITES]++;
		if (e->kind == FTDB_EV_COW) {
			p->c.v[RP_M_COW]++;
		} else {
			p->c.v[RP_M_FAULTS]++;
			p->c.v[RP_M_ZERO_WP]++;
			p->c.v[RP_M_ZEROED] += RP_PAGE_SIZE;
		}
		break;
	case FTDB_EV_ZAP:
		zap(o, e);
		break;
	case FTDB_EV_MM_DUP:
		mm_dup(o, e->proc_id, (uint32_t)e->aux);
		break;
	default:
		break;
	}
}

void rp_oracle_feed(struct rp_oracle *o, const struct ftdb_event *ev, size_t n)
{
	rp_oracle_feed_sites(o, ev, NULL, n);
}

void rp_oracle_feed_sites(struct rp_oracle *o, const struct ftdb_event *ev, const uint32_t *slots,
			  size_t n)
{
	size_t i;

	for (i = 0; i < n; i++) {
		const struct ftdb_event *e = &ev[i];
		int touch = e->kind == FTDB_EV_FAULT || e->kind == FTDB_EV_ZERO_WP ||
			    e->kind == FTDB_EV_COW;
		uint64_t faults, zeroed;
		struct oproc *p;

		o->slot = slots && o->nr_slots && slots[i] < o->nr_slots ? slots[i] : 0;
		advance(o, e->ts);
		if (!touch) {
			feed_one(o, e);
			continue;
		}
		p = P(o, e->proc_id);
		faults = p->c.v[RP_M_FAULTS];
		zeroed = p->c.v[RP_M_ZEROED];
		feed_one(o, e);
		p = P(o, e->proc_id);
		/* a touch that faulted: cold after enough of the process's time since its
		 * previous fault (replay.h) */
		if (p->c.v[RP_M_FAULTS] > faults) {
			p->c.v[RP_M_COLD_FAULTS] += (uint64_t)rp_cold_fault(p->faulted,
									     p->fault_end, e->ts,
									     e->aux, o->cold_gap);
			p->fault_end = e->ts;
			p->faulted = 1;
		}
		if (!o->nr_slots || !counted(o, e->proc_id))
			continue;
		/* a touch's faults and zeroed bytes are its slot's, whatever path took them */
		o->site[o->slot].faults += p->c.v[RP_M_FAULTS] - faults;
		o->site[o->slot].zeroed += p->c.v[RP_M_ZEROED] - zeroed;
	}
}

void rp_oracle_finish(struct rp_oracle *o)
{
	unsigned int m;
	struct opage *pg;
	uint32_t i;

	for (i = 0; i < o->nr_procs; i++) {
		for (pg = o->procs[i].pages; pg; pg = pg->pnext) {
			struct oproc *p = &o->procs[i];

			if (!pg->zero && !pg->touched) {
				p->c.v[RP_M_BLOAT] += RP_PAGE_SIZE;
				if (o->nr_slots && counted(o, i))
					o->site[pg->slot].bloat += RP_PAGE_SIZE;
			}
			if (starts_run(o, pg))
				p->c.v[RP_M_CONTPTE_FINAL]++;
		}
		/* an address space the trace does not see end ends with the trace */
		o->procs[i].c.v[RP_M_CONTPTE_EXIT] += o->procs[i].c.v[RP_M_CONTPTE_FINAL];
	}
	memset(&o->total, 0, sizeof(o->total));
	for (i = 0; i < o->nr_procs; i++) {
		struct oproc *p = &o->procs[i];

		if (!p->seen || !counted(o, i))
			continue;
		p->c.v[RP_M_FINAL_RSS] = (uint64_t)p->rss * RP_PAGE_SIZE;
		/* page-ns to byte-seconds, rounded down; a negative area (time ran back) is 0 */
		p->c.v[RP_M_RSS_SECONDS] = p->area > 0 ?
			(uint64_t)(p->area * RP_PAGE_SIZE / 1000000000) : 0;
		p->c.v[RP_M_PEAK_RSS] = (uint64_t)p->peak * RP_PAGE_SIZE;
		for (m = 0; m < RP_NR_METRICS; m++)
			o->total.v[m] += p->c.v[m];
	}
	o->total.v[RP_M_PEAK_RSS] = (uint64_t)o->peak * RP_PAGE_SIZE;
	for (i = 0; i < o->nr_slots; i++)
		o->site[i].at_peak = o->rss_at_peak[i] * RP_PAGE_SIZE;
}

const struct rp_site_counters *rp_oracle_sites(const struct rp_oracle *o, uint32_t *n)
{
	*n = o->nr_slots;
	return o->site;
}

const struct rp_counters *rp_oracle_proc(const struct rp_oracle *o, uint32_t proc_id)
{
	return proc_id < o->nr_procs && o->procs[proc_id].seen && counted(o, proc_id) ?
	       &o->procs[proc_id].c : NULL;
}

const struct rp_counters *rp_oracle_total(const struct rp_oracle *o)
{
	return &o->total;
}

struct rp_pcp *rp_oracle_pcp(struct rp_oracle *o)
{
	return &o->pcp;
}

void rp_oracle_free(struct rp_oracle *o)
{
	struct opage *pg, *nx;
	struct oref *r, *rn;
	uint32_t i;

	if (!o)
		return;
	for (i = 0; i < o->nr_procs; i++)
		for (pg = o->procs[i].pages; pg; pg = nx) {
			nx = pg->pnext;
			free(pg);
		}
	for (i = 0; i < NREFS; i++)
		for (r = o->refs[i]; r; r = rn) {
			rn = r->next;
			free(r);
		}
	free(o->bucket);
	rp_pageset_release(&o->tbl);
	free(o->procs);
	free(o->freel);
	free(o->site);
	free(o->rss_at_peak);
	free(o->dl);
	free(o->mms);
	while (o->ranges) {
		struct orange *dead = o->ranges;

		o->ranges = dead->next;
		free(dead);
	}
	if (o->pol.ops->state_free)
		o->pol.ops->state_free(o->pol_state);
	free(o);
}
