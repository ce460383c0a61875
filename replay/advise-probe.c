// SPDX-License-Identifier: GPL-2.0
/*
 * advise-probe.c - advise's probes (docs/sites.md, "An order per site"), in time about
 * linear in events + sites: what the whole trace's faults and bloat would be with one site
 * at order k and every other site at 0, exactly as replaying the whole trace so, without
 * replaying it per candidate.
 *
 * Why it is exact. Under persite with one site s at order k, only s's write faults on absent
 * pages decide anything (every other fault maps 4K, a read maps the zero page whatever the
 * order), and a decision maps at most the aligned 2^k-page block of its page (or falls back
 * to 4K). So the probe's pages differ from the all-zero baseline's only inside the blocks
 * (process, vpn >> k) that hold s's write touches, and only through what happens in those
 * blocks: with the allocation model advise uses (frag none: every allocation succeeds) a
 * fault, a zap, a copy-on-write and a page's bloat depend on the pages of its own block
 * alone. Two things carry pages from one block to another: fork (the child's block gets
 * the parent's same block, and they share pages copy-on-write) and mremap (pages move to
 * other addresses). Blocks are joined into classes along those (a union-find), and a block
 * emptied by a zap over all of it (an exit, a munmap) starts a new one, as nothing of its
 * past remains. A class is closed: its events touch its blocks only, its blocks are changed
 * by its events only. So with its events replayed alone (its processes renumbered, so two
 * classes in one simulator never meet), a class takes exactly the faults and bloat it takes
 * within the whole trace, and
 *
 *	probe(s, k) = baseline - baseline(classes of s) + probe(classes of s)
 *
 * (faults; bloat likewise, and advise's extra bloat is probe(classes) - baseline(classes)).
 * tests/unit/advise-probe.c checks this against the whole-trace probe on synthetic streams
 * with forks, mremaps, shadows and blocks shared by many sites.
 *
 * Most classes need no probe: until s's first fault in a class maps a block, the class is
 * as in the baseline, so where none of s's faults would map its block in the baseline's
 * state (rp_sim_block_fits(), asked during each class's baseline replay) each falls back
 * to 4K as at 0 and the class is the baseline's.
 *
 * Cost, per order k: one scan of the events to build the classes (fork and exit visit the
 * process's live blocks, a zap min(its blocks, the live ones)), every class replayed once
 * at all 0, and per site one simulator over the classes where its faults fit. A block is
 * shared by the sites whose touches it holds: 2^k pages hold at most 2^k first touches, so
 * a block costs at most 2^k replays of its events, a constant; what grows beyond that is
 * a class made large by forks of one parent whose children all write into the blocks
 * they inherit.
 */
#include <stdlib.h>
#include <string.h>

#include "lib/error.h"
#include "lib/xalloc.h"
#include "replay/advise.h"
#include "replay/policy.h"

#define NR_ORD (RP_MAX_FOLIO_ORDER + 1)
#define NONE UINT32_MAX

/* ---- (process, block) -> node: open addressing, linear probing, backward-shift delete ---- */

struct bent {
	uint64_t block;			/* vpn >> k */
	uint32_t proc;
	uint32_t node;			/* NONE: empty */
};

struct bmap {
	struct bent *e;
	size_t cap, nr;			/* cap a power of two, at most half full */
};

static inline size_t bhash(const struct bmap *m, uint32_t proc, uint64_t block)
{
	uint64_t h = (block ^ ((uint64_t)proc << 40) ^ proc) * 0x9e3779b97f4a7c15ULL;

	return (size_t)(h >> 20) & (m->cap - 1);
}

static void bmap_grow(struct bmap *m)
{
	struct bent *old = m->e;
	size_t oc = m->cap, i, j;

	m->cap = oc ? oc * 2 : 1024;
	m->e = xmalloc(m->cap * sizeof(*m->e));
	for (i = 0; i < m->cap; i++)
		m->e[i].node = NONE;
	for (i = 0; i < oc; i++) {
		if (old[i].node == NONE)
			continue;
		for (j = bhash(m, old[i].proc, old[i].block); m->e[j].node != NONE;
		     j = (j + 1) & (m->cap - 1))
			;
		m->e[j] = old[i];
	}
	free(old);
}

/* The slot of (proc, block), or of the empty entry where it would go. */
static inline size_t bmap_slot(const struct bmap *m, uint32_t proc, uint64_t block)
{
	size_t j;

	for (j = bhash(m, proc, block); m->e[j].node != NONE; j = (j + 1) & (m->cap - 1))
		if (m->e[j].block == block && m->e[j].proc == proc)
			break;
	return j;
}

static inline uint32_t bmap_get(const struct bmap *m, uint32_t proc, uint64_t block)
{
	return m->cap ? m->e[bmap_slot(m, proc, block)].node : NONE;
}

static void bmap_del(struct bmap *m, uint32_t proc, uint64_t block)
{
	size_t i = bmap_slot(m, proc, block), j, h;

	if (m->e[i].node == NONE)
		return;
	m->e[i].node = NONE;
	m->nr--;
	/* backward shift: move up each later entry of the run that may sit at i */
	for (j = (i + 1) & (m->cap - 1); m->e[j].node != NONE; j = (j + 1) & (m->cap - 1)) {
		h = bhash(m, m->e[j].proc, m->e[j].block);
		if ((j > i && (h <= i || h > j)) || (j < i && h <= i && h > j)) {
			m->e[i] = m->e[j];
			m->e[j].node = NONE;
			i = j;
		}
	}
}

/* ---- the scan of one order: blocks, classes, each event's classes ---- */

/* (block, node) pairs: a process's live blocks (stale ones dropped lazily), a zap's hits */
struct blist {
	uint64_t *block;
	uint32_t *node;
	size_t n, cap, cap2;
};

static void blist_add(struct blist *l, uint64_t block, uint32_t node)
{
	XGROW(l->block, l->cap, l->n + 1);
	XGROW(l->node, l->cap2, l->n + 1);
	l->block[l->n] = block;
	l->node[l->n++] = node;
}

struct scan {
	unsigned int k;
	struct bmap map;
	struct blist *procs;		/* by proc_id: its live blocks */
	uint32_t nr_procs;
	uint32_t *up;			/* union-find parent, by node */
	size_t nr_nodes, cap_nodes;
	uint32_t *pev, *pnode;		/* pairs: event pev[i] is in node pnode[i]'s class */
	size_t nr_pairs, cap_pev, cap_pnode;
	uint32_t *evnode;		/* by event: a touch's node, else NONE */
	/* the classes, after class_build(): events and processes of each, CSR */
	uint32_t nr_cls;
	uint32_t *cls_of;		/* by node root: class, NONE if none */
	size_t *cev_at;			/* class c's events: cev[cev_at[c] .. cev_at[c + 1]) */
	uint32_t *cev;
	size_t *cproc_at;		/* its processes in first-seen order */
	uint32_t *cproc;
};

static uint32_t find(struct scan *sc, uint32_t x)
{
	uint32_t r = x, t;

	while (sc->up[r] != r)
		r = sc->up[r];
	while (sc->up[x] != r) {	/* path compression */
		t = sc->up[x];
		sc->up[x] = r;
		x = t;
	}
	return r;
}

static void unite(struct scan *sc, uint32_t a, uint32_t b)
{
	a = find(sc, a);
	b = find(sc, b);
	if (a != b)
		sc->up[a < b ? b : a] = a < b ? a : b;
}

static struct blist *live_of(struct scan *sc, uint32_t proc)
{
	if (proc >= sc->nr_procs) {
		uint32_t n = proc + 1 > sc->nr_procs * 2 ? proc + 1 : sc->nr_procs * 2;

		sc->procs = xrealloc(sc->procs, n * sizeof(*sc->procs));
		memset(sc->procs + sc->nr_procs, 0, (n - sc->nr_procs) * sizeof(*sc->procs));
		sc->nr_procs = n;
	}
	return &sc->procs[proc];
}

/* The node of (proc, block), a new one if the block is not live. */
static uint32_t node_get(struct scan *sc, uint32_t proc, uint64_t block)
{
	size_t j;

	if ((sc->map.nr + 1) * 2 > sc->map.cap)
		bmap_grow(&sc->map);
	j = bmap_slot(&sc->map, proc, block);
	if (sc->map.e[j].node != NONE)
		return sc->map.e[j].node;
	XGROW(sc->up, sc->cap_nodes, sc->nr_nodes + 1);
	sc->up[sc->nr_nodes] = (uint32_t)sc->nr_nodes;
	sc->map.e[j] = (struct bent){ .block = block, .proc = proc,
				      .node = (uint32_t)sc->nr_nodes };
	sc->map.nr++;
	blist_add(live_of(sc, proc), block, (uint32_t)sc->nr_nodes);
	return (uint32_t)sc->nr_nodes++;
}

static void pair(struct scan *sc, size_t ev, uint32_t node)
{
	XGROW(sc->pev, sc->cap_pev, sc->nr_pairs + 1);
	XGROW(sc->pnode, sc->cap_pnode, sc->nr_pairs + 1);
	sc->pev[sc->nr_pairs] = (uint32_t)ev;
	sc->pnode[sc->nr_pairs++] = node;
}

/* Drop the stale entries of proc's list (a block deleted, or live again as a new node). */
static struct blist *live_compact(struct scan *sc, uint32_t proc)
{
	struct blist *lv = live_of(sc, proc);
	size_t i, n = 0;

	for (i = 0; i < lv->n; i++) {
		if (bmap_get(&sc->map, proc, lv->block[i]) != lv->node[i])
			continue;
		lv->block[n] = lv->block[i];
		lv->node[n++] = lv->node[i];
	}
	lv->n = n;
	return lv;
}

/*
 * The live blocks of proc overlapping pages [lo, hi) into h, looked up one by one or taken
 * from the process's list, whichever is fewer.
 */
static void live_range(struct scan *sc, uint32_t proc, uint64_t lo, uint64_t hi,
		       struct blist *h)
{
	struct blist *lv = live_compact(sc, proc);
	uint64_t first, last, b;
	size_t i;

	h->n = 0;
	if (hi <= lo || !lv->n)
		return;
	first = lo >> sc->k;
	last = (hi - 1) >> sc->k;
	if (last - first < lv->n) {
		for (b = first;; b++) {
			uint32_t node = bmap_get(&sc->map, proc, b);

			if (node != NONE)
				blist_add(h, b, node);
			if (b == last)
				break;
		}
		return;
	}
	for (i = 0; i < lv->n; i++)
		if (lv->block[i] >= first && lv->block[i] <= last)
			blist_add(h, lv->block[i], lv->node[i]);
}

/* 1 if pages [lo, hi) cover all of block b */
static inline int covers(const struct scan *sc, uint64_t b, uint64_t lo, uint64_t hi)
{
	uint64_t s = b << sc->k, e = s + (1ULL << sc->k);

	return lo <= s && (e == 0 || e <= hi) && e > s;
}

static void scan_zap(struct scan *sc, const struct ftdb_event *e, size_t i, struct blist *h,
		     struct blist *d)
{
	uint64_t lo = e->addr >> RP_PAGE_SHIFT;
	uint64_t hi = (e->end >> RP_PAGE_SHIFT) + !!(e->end & (RP_PAGE_SIZE - 1));
	size_t j;

	if (e->reason == FTDB_ZAP_FREE)		/* lazyfree: no page changes state */
		return;
	if (e->reason == FTDB_ZAP_EXIT) {	/* the whole process, as sim.c's zap() */
		lo = 0;
		hi = UINT64_MAX;
	}
	live_range(sc, e->proc_id, lo, hi, h);
	for (j = 0; j < h->n; j++)
		pair(sc, i, h->node[j]);
	if (e->reason == FTDB_ZAP_MREMAP && e->aux) {
		uint64_t dst = e->aux >> RP_PAGE_SHIFT, off = dst - lo;	/* mod 2^64, as sim.c */

		live_range(sc, e->proc_id, dst, dst + (hi - lo), d);
		for (j = 0; j < d->n; j++)
			pair(sc, i, d->node[j]);
		for (j = 0; j < h->n; j++)
			if (covers(sc, h->block[j], lo, hi))
				bmap_del(&sc->map, e->proc_id, h->block[j]);
		/* each source block's pages land in one or two destination blocks */
		for (j = 0; j < h->n; j++) {
			uint64_t s = h->block[j] << sc->k, t = s + (1ULL << sc->k) - 1;

			s = s < lo ? lo : s;
			t = t > hi - 1 ? hi - 1 : t;
			unite(sc, h->node[j], node_get(sc, e->proc_id, (s + off) >> sc->k));
			unite(sc, h->node[j], node_get(sc, e->proc_id, (t + off) >> sc->k));
		}
		return;
	}
	for (j = 0; j < h->n; j++)
		if (covers(sc, h->block[j], lo, hi))
			bmap_del(&sc->map, e->proc_id, h->block[j]);
}

/* fork: each live block of the parent joins the child's same block */
static void scan_dup(struct scan *sc, const struct ftdb_event *e, size_t i)
{
	uint32_t parent = (uint32_t)e->aux, child = e->proc_id;
	struct blist *lv;
	size_t j, n;

	if (parent == child)	/* (uint32_t)aux: sim.c's proc_of() reads it so */
		return;
	lv = live_compact(sc, parent);
	n = lv->n;		/* node_get() below may grow the parent's list: none of its */
	for (j = 0; j < n; j++) {	/* own entries, the child's */
		uint32_t node = sc->procs[parent].node[j];
		uint64_t block = sc->procs[parent].block[j];

		pair(sc, i, node);
		unite(sc, node, node_get(sc, child, block));
	}
}

static void scan_events(struct scan *sc, const struct ftdb_event *ev, size_t n)
{
	struct blist h = { 0 }, d = { 0 };
	size_t i;

	sc->evnode = xmalloc((n ? n : 1) * sizeof(*sc->evnode));
	for (i = 0; i < n; i++) {
		const struct ftdb_event *e = &ev[i];

		sc->evnode[i] = NONE;
		switch (e->kind) {
		case FTDB_EV_FAULT:
		case FTDB_EV_ZERO_WP:
		case FTDB_EV_COW:
			sc->evnode[i] = node_get(sc, e->proc_id,
						 (e->addr >> RP_PAGE_SHIFT) >> sc->k);
			pair(sc, i, sc->evnode[i]);
			break;
		case FTDB_EV_ZAP:
			scan_zap(sc, e, i, &h, &d);
			break;
		case FTDB_EV_MM_DUP:
			scan_dup(sc, e, i);
			break;
		default:	/* ALLOC: the simulator ignores it */
			break;
		}
	}
	free(h.block);
	free(h.node);
	free(d.block);
	free(d.node);
}

/* The classes: each pair's root numbered, its events in stream order, no event twice. */
static void class_build(struct scan *sc, const struct ftdb_event *ev, uint32_t nr_procs)
{
	size_t *fill, i, c;
	uint32_t *seen, *pc;

	sc->cls_of = xmalloc((sc->nr_nodes ? sc->nr_nodes : 1) * sizeof(*sc->cls_of));
	for (i = 0; i < sc->nr_nodes; i++)
		sc->cls_of[i] = NONE;
	pc = xmalloc((sc->nr_pairs ? sc->nr_pairs : 1) * sizeof(*pc));
	for (i = 0; i < sc->nr_pairs; i++) {
		uint32_t r = find(sc, sc->pnode[i]);

		if (sc->cls_of[r] == NONE)
			sc->cls_of[r] = sc->nr_cls++;
		pc[i] = sc->cls_of[r];
	}
	sc->cev_at = xcalloc(sc->nr_cls + 2, sizeof(*sc->cev_at));
	for (i = 0; i < sc->nr_pairs; i++)
		sc->cev_at[pc[i] + 2]++;
	for (c = 0; c < sc->nr_cls; c++)
		sc->cev_at[c + 2] += sc->cev_at[c + 1];
	fill = sc->cev_at + 1;		/* counting sort, stable: stream order kept */
	sc->cev = xmalloc((sc->nr_pairs ? sc->nr_pairs : 1) * sizeof(*sc->cev));
	for (i = 0; i < sc->nr_pairs; i++)
		sc->cev[fill[pc[i]]++] = sc->pev[i];
	free(pc);
	/* an event twice in a class (a zap over two of its blocks) is kept once */
	seen = xmalloc((nr_procs ? nr_procs : 1) * sizeof(*seen));
	for (i = 0; i < nr_procs; i++)
		seen[i] = NONE;
	sc->cproc_at = xcalloc(sc->nr_cls + 1, sizeof(*sc->cproc_at));
	sc->cproc = NULL;
	{
		size_t w = 0, cap = 0, np = 0, at = 0;

		for (c = 0; c < sc->nr_cls; c++) {
			size_t end = sc->cev_at[c + 1];

			for (i = at; i < end; i++) {
				uint32_t x = sc->cev[i];
				uint32_t p[2] = { ev[x].proc_id, NONE };
				unsigned int q;

				if (i > at && x == sc->cev[i - 1])
					continue;
				sc->cev[w++] = x;
				if (ev[x].kind == FTDB_EV_MM_DUP)
					p[1] = (uint32_t)ev[x].aux;
				for (q = 0; q < 2; q++) {
					if (p[q] == NONE || p[q] >= nr_procs || seen[p[q]] == c)
						continue;
					seen[p[q]] = (uint32_t)c;
					XGROW(sc->cproc, cap, np + 1);
					sc->cproc[np++] = p[q];
				}
			}
			at = end;
			sc->cev_at[c + 1] = w;
			sc->cproc_at[c + 1] = np;
		}
	}
	free(seen);
}

static void scan_release(struct scan *sc)
{
	uint32_t p;

	for (p = 0; p < sc->nr_procs; p++) {
		free(sc->procs[p].block);
		free(sc->procs[p].node);
	}
	free(sc->procs);
	free(sc->map.e);
	free(sc->up);
	free(sc->pev);
	free(sc->pnode);
	free(sc->evnode);
	free(sc->cls_of);
	free(sc->cev_at);
	free(sc->cev);
	free(sc->cproc_at);
	free(sc->cproc);
	memset(sc, 0, sizeof(*sc));
}

/* ---- the probes of one order ---- */

#define BATCH 1024
/*
 * One baseline simulator replays classes up to this many events or processes (each
 * process of a class has a leaf of about 10K in the simulator, kept to the end)
 */
#define BASE_EVENTS (1U << 16)
#define BASE_PROCS 2048U

struct probe {
	const struct rp_trace *t;
	const struct ftdb_event *ev;
	const int32_t *site;		/* by event: its touch's site, -1 none */
	size_t n, nr_sites;
	uint32_t nr_procs;		/* 1 + the largest proc_id of the events or trace */
	size_t *sev_at;			/* site s's write faults: sev[sev_at[s] .. sev_at[s + 1]) */
	uint32_t *sev;
	unsigned int k;			/* the order probed */
	struct scan sc;			/* its classes */
	uint64_t *bf, *bb;		/* by class: its baseline faults, bloat (bytes) */
	uint8_t *fits;			/* by event: a site's write fault that would map its
					 * 2^k block in the baseline's state */
	uint32_t *stamp;		/* by class: the last site that listed it */
	uint32_t *lmap;			/* by proc_id: its number in the copy being fed */
	uint32_t *cl;			/* the classes of the site being probed */
	size_t cap_cl;
	uint8_t *counted;
	size_t cap_counted;
	struct ftdb_event buf[BATCH];
	uint32_t slots[BATCH];
};

static inline uint32_t nprocs_of(const struct scan *sc, uint32_t c)
{
	return (uint32_t)(sc->cproc_at[c + 1] - sc->cproc_at[c]);
}

static inline int is_site_write(const struct probe *pr, uint32_t x)
{
	return pr->ev[x].kind == FTDB_EV_FAULT && (pr->ev[x].flags & FTDB_EVF_WRITE) &&
	       pr->site[x] >= 0 && (size_t)pr->site[x] < pr->nr_sites;
}

/*
 * Class c's events into sim as processes base.., slot 1 for site s's touches (s < 0:
 * none, the baseline; then each site's write fault is asked first whether it would map
 * its block, into fits).
 */
static void feed_class(struct probe *pr, struct rp_sim *sim, uint32_t c, uint32_t base,
		       int64_t s)
{
	const struct scan *sc = &pr->sc;
	size_t i, nb = 0;

	for (i = sc->cproc_at[c]; i < sc->cproc_at[c + 1]; i++)
		pr->lmap[sc->cproc[i]] = base + (uint32_t)(i - sc->cproc_at[c]);
	for (i = sc->cev_at[c]; i < sc->cev_at[c + 1]; i++) {
		uint32_t x = sc->cev[i];
		const struct ftdb_event *e = &pr->ev[x];

		if (s < 0 && is_site_write(pr, x)) {
			if (nb)
				rp_sim_feed_sites(sim, pr->buf, pr->slots, nb);
			nb = 0;
			pr->fits[x] = (uint8_t)rp_sim_block_fits(sim, pr->lmap[e->proc_id],
								 e->vma_id,
								 e->addr >> RP_PAGE_SHIFT, pr->k);
		}
		pr->buf[nb] = *e;
		pr->buf[nb].proc_id = pr->lmap[e->proc_id];
		if (e->kind == FTDB_EV_MM_DUP)
			pr->buf[nb].aux = pr->lmap[(uint32_t)e->aux];
		pr->slots[nb] = s >= 0 && pr->site[x] == s;
		if (++nb == BATCH) {
			rp_sim_feed_sites(sim, pr->buf, pr->slots, nb);
			nb = 0;
		}
	}
	if (nb)
		rp_sim_feed_sites(sim, pr->buf, pr->slots, nb);
}

/* Faults and bloat of the processes [base, base + n) of a finished sim. */
static void sum_procs(const struct rp_sim *sim, uint32_t base, uint32_t n, uint64_t *f,
		      uint64_t *b)
{
	uint32_t j;

	*f = *b = 0;
	for (j = base; j < base + n; j++) {
		const struct rp_counters *c = rp_sim_proc(sim, j);

		if (c) {
			*f += c->v[RP_M_FAULTS];
			*b += c->v[RP_M_BLOAT];
		}
	}
}

/*
 * A simulator for the classes cls[0..nc), each one's processes numbered apart (np in
 * all), with the trace's VMAs and which processes count. Return: NULL with fail().
 */
static struct rp_sim *sim_for(struct probe *pr, const struct rp_policy *pol,
			      const uint32_t *cls, size_t nc, uint32_t np)
{
	static const char *const names[2] = { "[others]", "probe" };
	const struct scan *sc = &pr->sc;
	struct rp_trace sub;
	size_t i, j, at = 0;

	memset(&sub, 0, sizeof(sub));
	sub.vmas = pr->t->vmas;
	sub.nr_vmas = pr->t->nr_vmas;
	sub.nr_procs = np;
	sub.nr_site_slots = 2;
	sub.slot_sites = names;
	sub.cold_gap = pr->t->cold_gap;
	if (pr->t->counted) {
		XGROW(pr->counted, pr->cap_counted, np + 1);
		for (i = 0; i < nc; i++)
			for (j = sc->cproc_at[cls[i]]; j < sc->cproc_at[cls[i] + 1]; j++) {
				uint32_t p = sc->cproc[j];

				pr->counted[at++] = p >= pr->t->nr_procs || pr->t->counted[p];
			}
		sub.counted = pr->counted;
	}
	return rp_sim_new(pol, RP_FRAG_NONE, &sub);
}

/*
 * Every class's baseline (all at 0) and which site write faults would map their block
 * there, a simulator per BASE_EVENTS events of classes. Return: 0, or -1 with fail().
 */
static int baseline(struct probe *pr, const struct rp_policy *pol)
{
	const struct scan *sc = &pr->sc;
	uint32_t c0 = 0, c, *cls = NULL;
	size_t cap = 0;

	while (c0 < sc->nr_cls) {
		struct rp_sim *sim;
		uint32_t np = 0, at = 0;
		size_t nev = 0, nc = 0;

		for (c = c0; c < sc->nr_cls &&
			     (c == c0 || (nev < BASE_EVENTS && np < BASE_PROCS)); c++) {
			XGROW(cls, cap, nc + 1);
			cls[nc++] = c;
			nev += sc->cev_at[c + 1] - sc->cev_at[c];
			np += nprocs_of(sc, c);
		}
		sim = sim_for(pr, pol, cls, nc, np);
		if (!sim) {
			free(cls);
			return -1;
		}
		for (c = c0; c < c0 + nc; c++) {
			feed_class(pr, sim, c, at, -1);
			at += nprocs_of(sc, c);
		}
		rp_sim_finish(sim);
		for (c = c0, at = 0; c < c0 + nc; c++) {
			sum_procs(sim, at, nprocs_of(sc, c), &pr->bf[c], &pr->bb[c]);
			at += nprocs_of(sc, c);
		}
		rp_sim_free(sim);
		c0 += (uint32_t)nc;
	}
	free(cls);
	return 0;
}

/*
 * Site s at order k. A class where none of its write faults would map its block in the
 * baseline's state is the baseline's there: each such fault falls back to 4K, as at 0,
 * so the state never parts from the baseline's. The others: one simulator over them, each
 * class's processes numbered apart. Return: 0, or -1 with fail().
 */
static int probe_site(struct probe *pr, const struct rp_policy *pol, uint32_t s,
		      const struct rp_counters *base, struct rp_advice_site *out)
{
	struct scan *sc = &pr->sc;
	uint64_t pf = 0, pb = 0, cf = 0, cb = 0, f, b;
	size_t nc = 0, i;
	uint32_t np = 0, at;
	struct rp_sim *sim;

	for (i = pr->sev_at[s]; i < pr->sev_at[s + 1]; i++) {
		uint32_t x = pr->sev[i], c;

		if (!pr->fits[x])
			continue;
		c = sc->cls_of[find(sc, sc->evnode[x])];
		if (pr->stamp[c] == s)
			continue;
		pr->stamp[c] = s;
		XGROW(pr->cl, pr->cap_cl, nc + 1);
		pr->cl[nc++] = c;
		np += nprocs_of(sc, c);
	}
	out->faults[pr->k] = base->v[RP_M_FAULTS];
	out->bloat[pr->k] = 0;
	if (!nc)	/* nothing it decides maps more than 4K */
		return 0;
	sim = sim_for(pr, pol, pr->cl, nc, np);
	if (!sim)
		return -1;
	for (i = 0, at = 0; i < nc; i++) {
		feed_class(pr, sim, pr->cl[i], at, s);
		at += nprocs_of(sc, pr->cl[i]);
	}
	rp_sim_finish(sim);
	for (i = 0, at = 0; i < nc; i++) {
		uint32_t c = pr->cl[i];

		sum_procs(sim, at, nprocs_of(sc, c), &f, &b);
		at += nprocs_of(sc, c);
		pf += f;
		pb += b;
		cf += pr->bf[c];
		cb += pr->bb[c];
	}
	rp_sim_free(sim);
	out->faults[pr->k] = base->v[RP_M_FAULTS] - cf + pf;
	out->bloat[pr->k] = pb > cb ? pb - cb : 0;
	return 0;
}

/* Site s's write faults, by site (CSR): the only touches whose order it decides. */
static void site_faults(struct probe *pr, size_t nr_sites)
{
	size_t i;

	pr->sev_at = xcalloc(nr_sites + 2, sizeof(*pr->sev_at));
	for (i = 0; i < pr->n; i++)
		if (is_site_write(pr, (uint32_t)i))
			pr->sev_at[pr->site[i] + 2]++;
	for (i = 0; i < nr_sites; i++)
		pr->sev_at[i + 2] += pr->sev_at[i + 1];
	pr->sev = xmalloc((pr->sev_at[nr_sites + 1] ? pr->sev_at[nr_sites + 1] : 1) *
			  sizeof(*pr->sev));
	for (i = 0; i < pr->n; i++)
		if (is_site_write(pr, (uint32_t)i))
			pr->sev[pr->sev_at[pr->site[i] + 1]++] = (uint32_t)i;
}

int rp_advise_probe(const struct rp_trace *t, const struct ftdb_event *ev, const int32_t *site,
		    size_t n, const struct rp_counters *base, struct rp_advice_site *sites,
		    size_t nr_sites)
{
	struct probe *pr;
	struct rp_policy pol;
	const char *name = "probe";
	unsigned int k;
	size_t i;
	int ret = -1, rc;

	if (n >= NONE || nr_sites >= NONE)
		return fail("advise: %zu events, %zu sites: at most %u of each", n, nr_sites,
			    NONE - 1);
	pr = xcalloc(1, sizeof(*pr));
	pr->t = t;
	pr->ev = ev;
	pr->site = site;
	pr->n = n;
	pr->nr_sites = nr_sites;
	pr->nr_procs = t->nr_procs;
	for (i = 0; i < n; i++) {
		if (ev[i].proc_id >= pr->nr_procs)
			pr->nr_procs = ev[i].proc_id + 1;
		if (ev[i].kind == FTDB_EV_MM_DUP && (uint32_t)ev[i].aux >= pr->nr_procs)
			pr->nr_procs = (uint32_t)ev[i].aux + 1;
	}
	site_faults(pr, nr_sites);
	pr->lmap = xmalloc((pr->nr_procs ? pr->nr_procs : 1) * sizeof(*pr->lmap));
	pr->fits = xcalloc(n ? n : 1, 1);
	for (i = 0; i < nr_sites; i++) {
		sites[i].faults[0] = base->v[RP_M_FAULTS];
		sites[i].bloat[0] = 0;
	}
	for (k = 1; k < NR_ORD; k++) {
		rp_persite_policy(&pol, "probe", &name, &k, 1, 0);
		pr->k = pr->sc.k = k;
		scan_events(&pr->sc, ev, n);
		class_build(&pr->sc, ev, pr->nr_procs);
		pr->bf = xcalloc(pr->sc.nr_cls + 1, sizeof(*pr->bf));
		pr->bb = xcalloc(pr->sc.nr_cls + 1, sizeof(*pr->bb));
		pr->stamp = xmalloc((pr->sc.nr_cls + 1) * sizeof(*pr->stamp));
		for (i = 0; i <= pr->sc.nr_cls; i++)
			pr->stamp[i] = NONE;
		rc = baseline(pr, &pol);
		for (i = 0; !rc && i < nr_sites; i++)
			rc = probe_site(pr, &pol, (uint32_t)i, base, &sites[i]);
		free(pr->bf);
		free(pr->bb);
		free(pr->stamp);
		scan_release(&pr->sc);
		if (rc)
			goto out;
	}
	ret = 0;
out:
	free(pr->sev_at);
	free(pr->sev);
	free(pr->lmap);
	free(pr->fits);
	free(pr->cl);
	free(pr->counted);
	free(pr);
	return ret;
}
