// SPDX-License-Identifier: GPL-2.0
/*
 * export.c - the guest replay file writer: a recorded trace's anonymous stream as the
 * operations of the in-guest replayer (format: replay/guest/ftr.h, docs/guest-replay.md).
 * See export.h for the model of the replayer's mappings that decides MAP/PROTECT and clips
 * zaps.
 *
 * Tuned for: traces of a few processes and up to millions of first touches. A process's
 * model is a sorted array of mapped intervals (tens of entries: one per VMA the process
 * touched), looked up by binary search; a touch in the same mapping as the previous one
 * costs one comparison.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "db/ftdb.h"
#include "lib/error.h"
#include "lib/xalloc.h"
#include "replay/export.h"
#include "replay/guest/ftr.h"

/* A mapped range of the model, in pages. Adjacent ranges of one class are merged. */
struct ival {
	uint64_t start;		/* first page */
	uint64_t end;		/* one past the last page */
	uint64_t flags;		/* vm_flags of the recorded VMA it was made for */
};

struct model {
	struct ival *v;		/* sorted by start, disjoint */
	size_t n, cap;
};

struct range {
	uint64_t start, end;	/* pages */
};

struct xproc {
	int64_t index;		/* position in the file, -1 until the process appears */
	uint32_t parent;	/* proc_id of the process forking it, UINT32_MAX if none */
	uint8_t dead;		/* it exited: later events are ignored */
	struct model m;		/* the replayer's mappings, as it will have made them */
	struct strbuf ops;	/* encoded operations */
	uint64_t nr_ops;
	uint64_t last_touch;	/* page of the previous TOUCH (delta base) */
	struct range *mapped;	/* every range MAP or MREMAP made: the family's clusters */
	size_t nr_mapped, cap_mapped;
	/*
	 * exec's temporary stack, pages [xs_start, xs_end) moved to xs_dest (export.h). Set
	 * by the prescan: xs_state 1 while the temporary stack is seen (its VMA bounds in
	 * xs_start/xs_end), 2 once its move is known, 3 after the move was fed.
	 */
	uint8_t xs_state;
	uint64_t xs_start, xs_end, xs_dest;
};

/*
 * Pages the recording showed present, per process: (proc_id << 44 | page) + 1, open
 * addressing. A COW of a page not in it was never seen mapped (touched before the trace
 * began, or of a private file mapping): the guest would take it as a first-touch fault.
 */
struct pageset {
	uint64_t *key;		/* 0 = empty */
	uint64_t cap, nr;	/* cap: power of two */
};

struct rp_export {
	struct rp_export_in in;
	struct pageset seen;
	uint64_t *tmp;		/* ps_take() scratch */
	size_t tmp_cap;
	struct xproc *p;	/* indexed by proc_id */
	uint32_t *by_index;	/* index -> proc_id */
	size_t nr_index, cap_index;
	struct rp_export_stats st;
};

static inline uint64_t vclass(uint64_t flags)
{
	return flags & FTR_VM_CLASS;
}

/* The class without the exporter's NORESERVE choice: what the recording asked for. */
static inline uint64_t vbase(uint64_t flags)
{
	return flags & FTR_VM_CLASS & ~FTR_VM_NORESERVE;
}

/* ---- the model ---- */

/* First interval ending after page. */
static size_t model_lower(const struct model *m, uint64_t page)
{
	size_t lo = 0, hi = m->n;

	while (lo < hi) {
		size_t mid = (lo + hi) / 2;

		if (m->v[mid].end <= page)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* Index of the interval holding page, or -1. */
static ssize_t model_find(const struct model *m, uint64_t page)
{
	size_t i = model_lower(m, page);

	return i < m->n && m->v[i].start <= page ? (ssize_t)i : -1;
}

static void model_insert_at(struct model *m, size_t i, struct ival iv)
{
	XGROW(m->v, m->cap, m->n + 1);
	memmove(&m->v[i + 1], &m->v[i], (m->n - i) * sizeof(*m->v));
	m->v[i] = iv;
	m->n++;
}

/* Unmap [s, e) from the model, splitting intervals at the edges. */
static void model_remove(struct model *m, uint64_t s, uint64_t e)
{
	size_t i = model_lower(m, s);

	while (i < m->n && m->v[i].start < e) {
		struct ival *iv = &m->v[i];

		if (iv->start < s && iv->end > e) {		/* hole in the middle */
			struct ival hi = { e, iv->end, iv->flags };

			iv->end = s;
			model_insert_at(m, i + 1, hi);
			return;
		}
		if (iv->start < s) {
			iv->end = s;
			i++;
		} else if (iv->end > e) {
			iv->start = e;
			return;
		} else {
			memmove(iv, iv + 1, (m->n - i - 1) * sizeof(*m->v));
			m->n--;
		}
	}
}

/* Merge adjacent intervals of one class, as the kernel merges anonymous VMAs. */
static void model_normalize(struct model *m)
{
	size_t i, o = 0;

	for (i = 0; i < m->n; i++) {
		if (o && m->v[o - 1].end == m->v[i].start &&
		    vclass(m->v[o - 1].flags) == vclass(m->v[i].flags))
			m->v[o - 1].end = m->v[i].end;
		else
			m->v[o++] = m->v[i];
	}
	m->n = o;
}

/* Map [s, e) with flags in the model, replacing what was there. */
static void model_set(struct model *m, uint64_t s, uint64_t e, uint64_t flags)
{
	struct ival iv = { s, e, flags };

	model_remove(m, s, e);
	model_insert_at(m, model_lower(m, s), iv);
	model_normalize(m);
}

/* ---- pages seen present ---- */

#define PS_PAGE_MASK ((1ULL << 44) - 1)

static inline uint64_t ps_key(uint32_t proc, uint64_t page)
{
	return ((uint64_t)proc << 44 | (page & PS_PAGE_MASK)) + 1;
}

static inline uint64_t ps_slot(const struct pageset *t, uint64_t k)
{
	return ((k * 0x9e3779b97f4a7c15ULL) >> 17) & (t->cap - 1);
}

static int ps_has(const struct pageset *t, uint64_t k)
{
	uint64_t i;

	if (!t->cap)
		return 0;
	for (i = ps_slot(t, k); t->key[i]; i = (i + 1) & (t->cap - 1))
		if (t->key[i] == k)
			return 1;
	return 0;
}

static void ps_add(struct pageset *t, uint64_t k)
{
	uint64_t i;

	if (ps_has(t, k))
		return;
	if ((t->nr + 1) * 2 > t->cap) {
		uint64_t *old = t->key, oc = t->cap, j;

		t->cap = oc ? oc * 2 : 4096;
		t->key = xcalloc(t->cap, sizeof(*t->key));
		for (j = 0; j < oc; j++) {
			if (!old[j])
				continue;
			for (i = ps_slot(t, old[j]); t->key[i]; i = (i + 1) & (t->cap - 1))
				;
			t->key[i] = old[j];
		}
		free(old);
	}
	for (i = ps_slot(t, k); t->key[i]; i = (i + 1) & (t->cap - 1))
		;
	t->key[i] = k;
	t->nr++;
}

static void ps_del(struct pageset *t, uint64_t k)
{
	uint64_t i, j, home;

	if (!t->cap)
		return;
	for (i = ps_slot(t, k); t->key[i] && t->key[i] != k; i = (i + 1) & (t->cap - 1))
		;
	if (!t->key[i])
		return;
	t->key[i] = 0;
	t->nr--;
	for (j = (i + 1) & (t->cap - 1); t->key[j]; j = (j + 1) & (t->cap - 1)) {
		home = ps_slot(t, t->key[j]);
		if (((j - home) & (t->cap - 1)) >= ((j - i) & (t->cap - 1))) {
			t->key[i] = t->key[j];
			t->key[j] = 0;
			i = j;
		}
	}
}

/* Pages of proc in [lo, hi) (all of them if hi is ~0): removed, and listed in *out. */
static size_t ps_take(struct pageset *t, uint32_t proc, uint64_t lo, uint64_t hi,
		      uint64_t **out, size_t *cap)
{
	size_t n = 0, k;
	uint64_t i, pg;

	if (hi - lo <= t->nr) {
		for (pg = lo; pg < hi; pg++) {
			if (!ps_has(t, ps_key(proc, pg)))
				continue;
			ps_del(t, ps_key(proc, pg));
			XGROW(*out, *cap, n + 1);
			(*out)[n++] = pg;
		}
		return n;
	}
	for (i = 0; i < t->cap; i++) {
		uint64_t key = t->key[i];

		if (!key || (key - 1) >> 44 != proc)
			continue;
		pg = (key - 1) & PS_PAGE_MASK;
		if (pg < lo || pg >= hi)
			continue;
		XGROW(*out, *cap, n + 1);
		(*out)[n++] = pg;
	}
	for (k = 0; k < n; k++)
		ps_del(t, ps_key(proc, (*out)[k]));
	return n;
}

/* ---- emitting operations ---- */

static void put_varint(struct strbuf *sb, uint64_t v)
{
	uint8_t b[10];

	strbuf_add(sb, b, ftr_put_varint(b, v));
}

static void emit(struct xproc *p, unsigned int tag, unsigned int nr, const uint64_t *f)
{
	uint8_t t = (uint8_t)tag;
	unsigned int i;

	strbuf_add(&p->ops, &t, 1);
	for (i = 0; i < nr; i++)
		put_varint(&p->ops, f[i]);
	p->nr_ops++;
}

static void emit_range(struct xproc *p, unsigned int kind, uint64_t s, uint64_t e)
{
	uint64_t f[2] = { s, e - s };

	emit(p, kind, 2, f);
}

static void note_mapped(struct xproc *p, uint64_t s, uint64_t e)
{
	if (p->nr_mapped && p->mapped[p->nr_mapped - 1].end == s) {
		p->mapped[p->nr_mapped - 1].end = e;
		return;
	}
	XGROW(p->mapped, p->cap_mapped, p->nr_mapped + 1);
	p->mapped[p->nr_mapped].start = s;
	p->mapped[p->nr_mapped].end = e;
	p->nr_mapped++;
}

/*
 * FTR_VM_NORESERVE or 0 for a MAP of [a, b), part of the recorded VMA [s, e): the state of
 * a neighbour inside the VMA (so they merge), else the opposite of a neighbour of the same
 * class outside it (so they do not, as in the recording).
 */
static uint64_t noreserve(const struct xproc *p, uint64_t a, uint64_t b, uint64_t s,
			  uint64_t e, uint64_t flags)
{
	ssize_t l = a ? model_find(&p->m, a - 1) : -1, r = model_find(&p->m, b);
	const struct ival *left = l >= 0 ? &p->m.v[l] : NULL, *right = r >= 0 ? &p->m.v[r] : NULL;
	uint64_t nr = 0;

	if (left && vbase(left->flags) != vbase(flags))
		left = NULL;
	if (right && vbase(right->flags) != vbase(flags))
		right = NULL;
	if (left && a > s)
		return left->flags & FTR_VM_NORESERVE;
	if (right && b < e)
		return right->flags & FTR_VM_NORESERVE;
	if (left)
		nr = (left->flags & FTR_VM_NORESERVE) ^ FTR_VM_NORESERVE;
	else if (right)
		nr = (right->flags & FTR_VM_NORESERVE) ^ FTR_VM_NORESERVE;
	return nr;
}

/*
 * Make the replayer's mapping around page be the recorded VMA [s, e) with flags: map the
 * holes, re-protect parts of another class, then (recorded: the VMA is known, not a
 * one-page guess for a touch without one) check the merged mapping's bounds.
 */
static void ensure(struct rp_export *x, struct xproc *p, uint64_t s, uint64_t e,
		   uint64_t flags, uint64_t page, int recorded)
{
	struct todo {
		uint64_t start, end;
		int map;	/* 1: MAP a hole, 0: PROTECT a part of another class */
	} *todo = NULL;
	size_t nt = 0, cap = 0, j, k;
	ssize_t i = model_find(&p->m, page);
	uint64_t cur = s;

	flags &= ~FTR_VM_NORESERVE;	/* the recording's own; ours is chosen below */
	if (i >= 0 && p->m.v[i].start == s && p->m.v[i].end == e &&
	    vbase(p->m.v[i].flags) == vbase(flags))
		return;
	if (!recorded && i >= 0)
		return;
	for (j = model_lower(&p->m, s); j < p->m.n && p->m.v[j].start < e; j++) {
		const struct ival *iv = &p->m.v[j];
		uint64_t lo = iv->start > cur ? iv->start : cur;
		uint64_t hi = iv->end < e ? iv->end : e;

		XGROW(todo, cap, nt + 2);
		if (iv->start > cur)
			todo[nt++] = (struct todo){ cur, iv->start, 1 };
		if (vbase(iv->flags) != vbase(flags))
			todo[nt++] = (struct todo){ lo, hi, 0 };
		cur = hi;
	}
	if (cur < e) {
		XGROW(todo, cap, nt + 1);
		todo[nt++] = (struct todo){ cur, e, 1 };
	}
	for (k = 0; k < nt; k++) {
		uint64_t f[3] = { todo[k].start, todo[k].end - todo[k].start, flags };

		if (todo[k].map) {
			f[2] |= noreserve(p, todo[k].start, todo[k].end, s, e, flags);
		} else {
			ssize_t o = model_find(&p->m, todo[k].start);

			f[2] |= o >= 0 ? p->m.v[o].flags & FTR_VM_NORESERVE : 0;
		}
		emit(p, todo[k].map ? FTR_OP_MAP : FTR_OP_PROTECT, 3, f);
		if (todo[k].map) {
			x->st.maps++;
			note_mapped(p, todo[k].start, todo[k].end);
		} else {
			x->st.protects++;
		}
		model_set(&p->m, todo[k].start, todo[k].end, f[2]);
	}
	free(todo);
	i = model_find(&p->m, page);
	if (recorded && (i < 0 || p->m.v[i].start != s || p->m.v[i].end != e))
		x->st.shape_mismatch++;
}

/* One operation of the given kind per maximal run of pages of [s, e) the model maps. */
static void for_runs(struct rp_export *x, struct xproc *p, uint64_t s, uint64_t e,
		     unsigned int kind)
{
	size_t j = model_lower(&p->m, s);
	uint64_t rs = 0, re = 0;
	int have = 0;

	for (; j < p->m.n && p->m.v[j].start < e; j++) {
		uint64_t lo = p->m.v[j].start > s ? p->m.v[j].start : s;
		uint64_t hi = p->m.v[j].end < e ? p->m.v[j].end : e;

		if (have && lo == re) {
			re = hi;
			continue;
		}
		if (have) {
			emit_range(p, kind, rs, re);
			x->st.zaps++;
		}
		rs = lo;
		re = hi;
		have = 1;
	}
	if (have) {
		emit_range(p, kind, rs, re);
		x->st.zaps++;
	}
}

static void do_mremap(struct rp_export *x, struct xproc *p, uint64_t s, uint64_t e,
		      uint64_t dst)
{
	ssize_t i = model_find(&p->m, s);
	uint64_t flags, f[3];

	if (i < 0 || p->m.v[i].end < e) {
		/* not one mapping of ours: the pages are lost, as far as we can replay */
		if (model_lower(&p->m, s) < p->m.n && p->m.v[model_lower(&p->m, s)].start < e)
			x->st.mremap_partial++;
		for_runs(x, p, s, e, FTR_OP_MUNMAP);
		model_remove(&p->m, s, e);
		return;
	}
	flags = p->m.v[i].flags;
	f[0] = s;
	f[1] = e - s;
	f[2] = dst;
	emit(p, FTR_OP_MREMAP, 3, f);
	x->st.zaps++;
	model_remove(&p->m, s, e);
	model_set(&p->m, dst, dst + (e - s), flags);
	note_mapped(p, dst, dst + (e - s));
}

/* ---- processes ---- */

static struct xproc *appear(struct rp_export *x, uint32_t proc_id)
{
	struct xproc *p = &x->p[proc_id];

	if (p->index < 0) {
		p->index = (int64_t)x->nr_index;
		XGROW(x->by_index, x->cap_index, x->nr_index + 1);
		x->by_index[x->nr_index++] = proc_id;
	}
	return p;
}

struct rp_export *rp_export_new(const struct rp_export_in *in)
{
	struct rp_export *x;
	uint32_t i;

	if (in->page_shift < 10 || in->page_shift > 20)
		return error_null("page size 2^%u is not supported", in->page_shift);
	x = xcalloc(1, sizeof(*x));
	x->in = *in;
	x->p = xcalloc(in->nr_procs ? in->nr_procs : 1, sizeof(*x->p));
	for (i = 0; i < in->nr_procs; i++) {
		x->p[i].index = -1;
		x->p[i].parent = UINT32_MAX;
		strbuf_init(&x->p[i].ops);
	}
	return x;
}

static int selected(const struct rp_export *x, uint32_t proc_id)
{
	return proc_id < x->in.nr_procs && x->in.procs[proc_id].selected;
}

void rp_export_prescan(struct rp_export *x, const struct ft_event *ev)
{
	unsigned int sh = x->in.page_shift;
	struct xproc *p;
	uint64_t s, e;

	if (ev->proc_id >= x->in.nr_procs)
		return;
	p = &x->p[ev->proc_id];
	if (ev->kind == FT_EV_FAULT && p->xs_state <= 1 && ev->vma_id < x->in.nr_vmas &&
	    rp_vm_exec_stack(x->in.vmas[ev->vma_id].flags)) {
		/* the temporary stack only grows: its last fault saw its final bounds */
		p->xs_state = 1;
		p->xs_start = x->in.vmas[ev->vma_id].start >> sh;
		p->xs_end = (x->in.vmas[ev->vma_id].end + (1ULL << sh) - 1) >> sh;
		return;
	}
	if (ev->kind != FT_EV_ZAP || ev->reason != FT_ZAP_MREMAP || !ev->aux || p->xs_state != 1)
		return;
	s = ev->addr >> sh;
	e = (ev->end + (1ULL << sh) - 1) >> sh;
	if (s == p->xs_start && e == p->xs_end) {
		p->xs_dest = ev->aux >> sh;
		p->xs_state = 2;
	}
}

/* A page of exec's temporary stack, before its move: where the replay puts it. */
static inline uint64_t exec_relocate(const struct xproc *p, uint64_t page)
{
	if (p->xs_state == 2 && page >= p->xs_start && page < p->xs_end)
		return page - p->xs_start + p->xs_dest;
	return page;
}

static void touch(struct rp_export *x, struct xproc *p, uint64_t page, int write)
{
	uint64_t d = ftr_zigzag((int64_t)(page - p->last_touch));

	emit(p, FTR_OP_TOUCH | (write ? FTR_TAG_WRITE : 0), 1, &d);
	p->last_touch = page;
	x->st.touches++;
}

void rp_export_feed(struct rp_export *x, const struct ft_event *ev)
{
	unsigned int sh = x->in.page_shift;
	uint64_t page = ev->addr >> sh, s, e;
	struct xproc *p, *pp;

	if (ev->kind == FT_EV_ALLOC || !selected(x, ev->proc_id))
		return;
	if (ev->kind == FT_EV_MM_DUP) {
		uint32_t parent = (uint32_t)ev->aux;

		p = &x->p[ev->proc_id];
		if (p->index >= 0 || !selected(x, parent) || x->p[parent].dead ||
		    parent == ev->proc_id)
			return;
		pp = appear(x, parent);
		p = appear(x, ev->proc_id);
		p->parent = parent;
		p->m.n = 0;
		XGROW(p->m.v, p->m.cap, pp->m.n);
		memcpy(p->m.v, pp->m.v, pp->m.n * sizeof(*pp->m.v));
		p->m.n = pp->m.n;
		{
			uint64_t idx = (uint64_t)p->index;
			size_t k, n = ps_take(&x->seen, parent, 0, ~0ULL, &x->tmp, &x->tmp_cap);

			for (k = 0; k < n; k++) {
				ps_add(&x->seen, ps_key(parent, x->tmp[k]));
				ps_add(&x->seen, ps_key(ev->proc_id, x->tmp[k]));
			}
			emit(pp, FTR_OP_FORK, 1, &idx);
		}
		x->st.forks++;
		return;
	}
	p = &x->p[ev->proc_id];
	if (p->dead)
		return;
	p = appear(x, ev->proc_id);
	page = exec_relocate(p, page);
	switch (ev->kind) {
	case FT_EV_FAULT:
		if (!ev->nr_ptes) {
			x->st.skipped++;
			return;
		}
		if (ev->vma_id < x->in.nr_vmas &&
		    x->in.vmas[ev->vma_id].end > x->in.vmas[ev->vma_id].start) {
			const struct rp_vma *v = &x->in.vmas[ev->vma_id];

			s = exec_relocate(p, v->start >> sh);
			e = s + ((v->end - v->start + (1ULL << sh) - 1) >> sh);
			if (page >= s && page < e)
				ensure(x, p, s, e, v->flags, page, 1);
			else
				ensure(x, p, page, page + 1, FTR_VM_READ | FTR_VM_WRITE, page, 0);
		} else {
			ensure(x, p, page, page + 1, FTR_VM_READ | FTR_VM_WRITE, page, 0);
		}
		touch(x, p, page, ev->flags & FT_EVF_WRITE);
		ps_add(&x->seen, ps_key(ev->proc_id, page));
		break;
	case FT_EV_ZERO_WP:
	case FT_EV_COW:
		/*
		 * The page is mapped in a faithful replay. If not, it is one the trace never
		 * showed mapped (an anonymous page of a private file mapping, a page of a
		 * process not exported): a COW of it is not replayed (the guest would take a
		 * first-touch fault the recording did not), a zero-page write is, on a
		 * one-page mapping, as the 4K fault the simulator counts.
		 */
		if (!ps_has(&x->seen, ps_key(ev->proc_id, page))) {
			if (ev->kind == FT_EV_COW) {
				x->st.skipped++;
				return;
			}
			ensure(x, p, page, page + 1, FTR_VM_READ | FTR_VM_WRITE, page, 0);
		}
		touch(x, p, page, 1);
		break;
	case FT_EV_ZAP:
		s = ev->addr >> sh;
		e = (ev->end + (1ULL << sh) - 1) >> sh;
		if (e <= s)
			return;
		switch (ev->reason) {
		case FT_ZAP_EXIT:
			emit(p, FTR_OP_EXIT, 0, NULL);
			p->dead = 1;
			break;
		case FT_ZAP_DONTNEED:
			for_runs(x, p, s, e, FTR_OP_DONTNEED);
			ps_take(&x->seen, ev->proc_id, s, e, &x->tmp, &x->tmp_cap);
			break;
		case FT_ZAP_FREE:
			for_runs(x, p, s, e, FTR_OP_FREE);
			break;
		case FT_ZAP_MREMAP:
			if (p->xs_state == 2 && s == p->xs_start && e == p->xs_end &&
			    ev->aux >> sh == p->xs_dest) {
				/* exec's move: the stack was replayed at its destination */
				p->xs_state = 3;
				x->st.exec_stacks++;
				break;
			}
			if (ev->aux) {
				uint64_t d = ev->aux >> sh;
				size_t k, n;

				do_mremap(x, p, s, e, d);
				ps_take(&x->seen, ev->proc_id, d, d + (e - s), &x->tmp,
					&x->tmp_cap);
				n = ps_take(&x->seen, ev->proc_id, s, e, &x->tmp, &x->tmp_cap);
				for (k = 0; k < n; k++)
					ps_add(&x->seen, ps_key(ev->proc_id, d + x->tmp[k] - s));
				break;
			}
			/* a move without destination is an unmap */
			/* fall through */
		default:
			for_runs(x, p, s, e, FTR_OP_MUNMAP);
			model_remove(&p->m, s, e);
			ps_take(&x->seen, ev->proc_id, s, e, &x->tmp, &x->tmp_cap);
			break;
		}
		break;
	default:
		break;
	}
}

void rp_export_free(struct rp_export *x)
{
	uint32_t i;

	if (!x)
		return;
	for (i = 0; i < x->in.nr_procs; i++) {
		free(x->p[i].m.v);
		free(x->p[i].mapped);
		strbuf_release(&x->p[i].ops);
	}
	free(x->p);
	free(x->by_index);
	free(x->seen.key);
	free(x->tmp);
	free(x);
}

static int cmp_range(const void *a, const void *b)
{
	const struct range *x = a, *y = b;

	return x->start < y->start ? -1 : x->start > y->start;
}

static void put_le(struct strbuf *sb, uint64_t v, unsigned int n)
{
	uint8_t b[8];
	unsigned int i;

	for (i = 0; i < n; i++)
		b[i] = (uint8_t)(v >> (8 * i));
	strbuf_add(sb, b, n);
}

int rp_export_finish(struct rp_export *x, struct strbuf *out, struct rp_export_stats *st)
{
	size_t i, start = out->len;
	uint32_t id;

	if (!x->nr_index) {
		rp_export_free(x);
		return error("no event of a selected process to replay");
	}
	/* a family's clusters: every range any of its processes mapped, merged */
	for (i = 0; i < x->nr_index; i++) {
		struct xproc *p = &x->p[x->by_index[i]], *root = p;

		while (root->parent != UINT32_MAX)
			root = &x->p[root->parent];
		if (root == p)
			continue;
		XGROW(root->mapped, root->cap_mapped, root->nr_mapped + p->nr_mapped);
		memcpy(root->mapped + root->nr_mapped, p->mapped,
		       p->nr_mapped * sizeof(*p->mapped));
		root->nr_mapped += p->nr_mapped;
		p->nr_mapped = 0;
	}
	strbuf_add(out, FTR_MAGIC, 4);
	put_le(out, FTR_VERSION, 1);
	put_le(out, x->in.page_shift, 1);
	put_le(out, 0, 2);
	put_le(out, x->nr_index, 4);
	put_le(out, 0, 4);
	put_le(out, (uint64_t)x->in.trace_id, 8);
	put_le(out, x->st.touches, 8);
	for (i = 0; i < x->nr_index; i++) {
		struct xproc *p = &x->p[x->by_index[i]];
		const struct rp_export_proc *ip = &x->in.procs[x->by_index[i]];
		size_t n = 0, k, clen = strnlen(ip->comm, FTR_COMM_MAX);
		uint64_t prev = 0;
		uint8_t cl = (uint8_t)clen;

		id = x->by_index[i];
		put_varint(out, i);
		put_varint(out, p->parent == UINT32_MAX ? 0 : (uint64_t)x->p[p->parent].index + 1);
		put_varint(out, id);
		put_varint(out, ftr_zigzag(ip->pid));
		strbuf_add(out, &cl, 1);
		strbuf_add(out, ip->comm, clen);
		if (p->parent == UINT32_MAX) {
			x->st.families++;
			qsort(p->mapped, p->nr_mapped, sizeof(*p->mapped), cmp_range);
			for (k = 0; k < p->nr_mapped; k++) {
				if (n && p->mapped[k].start <= p->mapped[n - 1].end) {
					if (p->mapped[k].end > p->mapped[n - 1].end)
						p->mapped[n - 1].end = p->mapped[k].end;
				} else {
					p->mapped[n++] = p->mapped[k];
				}
			}
		}
		put_varint(out, n);
		for (k = 0; k < n; k++) {
			put_varint(out, p->mapped[k].start - prev);
			put_varint(out, p->mapped[k].end - p->mapped[k].start);
			prev = p->mapped[k].end;
		}
		x->st.clusters += n;
		put_varint(out, p->nr_ops);
		put_varint(out, p->ops.len);
		strbuf_add(out, p->ops.buf, p->ops.len);
	}
	x->st.procs = x->nr_index;
	x->st.bytes = out->len - start;
	*st = x->st;
	rp_export_free(x);
	return 0;
}

/* ---- from a trace database ---- */

struct feed_arg {
	struct rp_export *x;
};

static int prescan_one(const struct ft_event *ev, void *arg)
{
	rp_export_prescan(((struct feed_arg *)arg)->x, ev);
	return 0;
}

static int feed_one(const struct ft_event *ev, void *arg)
{
	rp_export_feed(((struct feed_arg *)arg)->x, ev);
	return 0;
}

int rp_export_db(sqlite3 *db, int64_t trace_id, const char *comm, int64_t pid,
		 struct strbuf *out, struct rp_export_stats *st)
{
	struct rp_export_proc *procs = NULL;
	struct rp_vma *vmas = NULL;
	struct rp_export_in in = { 0 };
	struct rp_export *x = NULL;
	struct feed_arg fa;
	sqlite3_stmt *q = NULL;
	int64_t max_proc = 0, max_vma = 0, page_size = 4096, nsel = 0;
	int rc, ret = -1;

	if (sqlite3_prepare_v2(db, "SELECT coalesce(page_size, 4096), "
			       "(SELECT coalesce(max(proc_id), 0) FROM process "
			       "WHERE trace_id = ?1), "
			       "(SELECT coalesce(max(v.vma_id), 0) FROM vma v JOIN process p USING "
			       "(proc_id) WHERE p.trace_id = ?1) FROM trace WHERE trace_id = ?1",
			       -1, &q, NULL) != SQLITE_OK)
		goto sql_error;
	sqlite3_bind_int64(q, 1, trace_id);
	if (sqlite3_step(q) != SQLITE_ROW) {
		sqlite3_finalize(q);
		return error("no trace %lld", (long long)trace_id);
	}
	page_size = sqlite3_column_int64(q, 0);
	max_proc = sqlite3_column_int64(q, 1);
	max_vma = sqlite3_column_int64(q, 2);
	sqlite3_finalize(q);
	q = NULL;
	if (page_size < 1024 || (page_size & (page_size - 1)))
		return error("trace %lld has a bad page size %lld", (long long)trace_id,
			     (long long)page_size);
	in.page_shift = (unsigned int)__builtin_ctzll((uint64_t)page_size);
	in.trace_id = trace_id;
	in.nr_procs = (uint32_t)max_proc + 1;
	in.nr_vmas = (uint32_t)max_vma + 1;
	procs = xcalloc(in.nr_procs, sizeof(*procs));
	vmas = xcalloc(in.nr_vmas, sizeof(*vmas));
	in.procs = procs;
	in.vmas = vmas;

	if (sqlite3_prepare_v2(db, "SELECT proc_id, pid, coalesce(comm, ''), "
			       "(?2 IS NULL OR comm = ?2) AND (?3 < 0 OR pid = ?3) FROM process "
			       "WHERE trace_id = ?1", -1, &q, NULL) != SQLITE_OK)
		goto sql_error;
	sqlite3_bind_int64(q, 1, trace_id);
	if (comm)
		sqlite3_bind_text(q, 2, comm, -1, SQLITE_STATIC);
	sqlite3_bind_int64(q, 3, pid);
	while ((rc = sqlite3_step(q)) == SQLITE_ROW) {
		int64_t id = sqlite3_column_int64(q, 0);

		if (id < 0 || id > max_proc)
			continue;
		procs[id].pid = sqlite3_column_int64(q, 1);
		snprintf(procs[id].comm, sizeof(procs[id].comm), "%s",
			 (const char *)sqlite3_column_text(q, 2));
		procs[id].selected = (uint8_t)sqlite3_column_int(q, 3);
		nsel += procs[id].selected;
	}
	sqlite3_finalize(q);
	q = NULL;
	if (rc != SQLITE_DONE)
		goto sql_error;
	if (!nsel) {
		char pids[32] = "";

		if (pid >= 0)
			snprintf(pids, sizeof(pids), " pid=%lld", (long long)pid);
		error("no process of trace %lld matches%s%s%s", (long long)trace_id,
		      comm ? " comm=" : "", comm ? comm : "", pids);
		goto out;
	}

	if (sqlite3_prepare_v2(db, "SELECT v.vma_id, v.start, v.end, v.flags FROM vma v JOIN "
			       "process p USING (proc_id) WHERE p.trace_id = ?", -1, &q,
			       NULL) != SQLITE_OK)
		goto sql_error;
	sqlite3_bind_int64(q, 1, trace_id);
	while ((rc = sqlite3_step(q)) == SQLITE_ROW) {
		int64_t id = sqlite3_column_int64(q, 0);

		if (id < 0 || id > max_vma)
			continue;
		vmas[id].start = (uint64_t)sqlite3_column_int64(q, 1);
		vmas[id].end = (uint64_t)sqlite3_column_int64(q, 2);
		vmas[id].flags = (uint64_t)sqlite3_column_int64(q, 3);
	}
	sqlite3_finalize(q);
	q = NULL;
	if (rc != SQLITE_DONE)
		goto sql_error;

	x = rp_export_new(&in);
	if (!x)
		goto out;
	fa.x = x;
	if (ftdb_stream_foreach(db, trace_id, prescan_one, &fa) ||
	    ftdb_stream_foreach(db, trace_id, feed_one, &fa)) {
		rp_export_free(x);
		error("cannot export trace %lld", (long long)trace_id);
		goto out;
	}
	ret = rp_export_finish(x, out, st);
	goto out;
sql_error:
	error("cannot read trace %lld: %s", (long long)trace_id, sqlite3_errmsg(db));
	sqlite3_finalize(q);
out:
	free(procs);
	free(vmas);
	return ret;
}
