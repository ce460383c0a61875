// SPDX-License-Identifier: GPL-2.0
/*
 * export.c - the exporter's operation emission: a recorded trace's anonymous stream, event
 * by event, as the operations of the in-guest replayer. See export.h for how the model of
 * the replayer's mappings (export-model.c) decides MAP/PROTECT and clips zaps; the file is
 * written by export-file.c, the trace read by export-db.c.
 *
 * Tuned for: traces of a few processes and up to millions of first touches; a touch in
 * the same mapping as the previous one costs one model lookup and one varint.
 */
#include <stdlib.h>
#include <string.h>

#include "lib/error.h"
#include "lib/xalloc.h"
#include "replay/export-int.h"

/* ---- emitting operations ---- */

static void emit(struct xproc *p, unsigned int tag, unsigned int nr, const uint64_t *f)
{
	uint8_t t = (uint8_t)tag;
	unsigned int i;

	strbuf_add(&p->ops, &t, 1);
	for (i = 0; i < nr; i++)
		xput_varint(&p->ops, f[i]);
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
	ssize_t l = a ? ivmap_find(&p->m, a - 1) : -1, r = ivmap_find(&p->m, b);
	const struct ivmap_entry *left = l >= 0 ? &p->m.v[l] : NULL, *right = r >= 0 ? &p->m.v[r] : NULL;
	uint64_t nr = 0;

	if (left && vbase(left->val) != vbase(flags))
		left = NULL;
	if (right && vbase(right->val) != vbase(flags))
		right = NULL;
	if (left && a > s)
		return left->val & FTR_VM_NORESERVE;
	if (right && b < e)
		return right->val & FTR_VM_NORESERVE;
	if (left)
		nr = (left->val & FTR_VM_NORESERVE) ^ FTR_VM_NORESERVE;
	else if (right)
		nr = (right->val & FTR_VM_NORESERVE) ^ FTR_VM_NORESERVE;
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
	ssize_t i = ivmap_find(&p->m, page);
	uint64_t cur = s;

	flags &= ~FTR_VM_NORESERVE;	/* the recording's own; ours is chosen below */
	if (i >= 0 && p->m.v[i].start == s && p->m.v[i].end == e &&
	    vbase(p->m.v[i].val) == vbase(flags))
		return;
	if (!recorded && i >= 0)
		return;
	for (j = ivmap_lower(&p->m, s); j < p->m.n && p->m.v[j].start < e; j++) {
		const struct ivmap_entry *iv = &p->m.v[j];
		uint64_t lo = iv->start > cur ? iv->start : cur;
		uint64_t hi = iv->end < e ? iv->end : e;

		XGROW(todo, cap, nt + 2);
		if (iv->start > cur)
			todo[nt++] = (struct todo){ cur, iv->start, 1 };
		if (vbase(iv->val) != vbase(flags))
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
			ssize_t o = ivmap_find(&p->m, todo[k].start);

			f[2] |= o >= 0 ? p->m.v[o].val & FTR_VM_NORESERVE : 0;
		}
		emit(p, todo[k].map ? FTR_OP_MAP : FTR_OP_PROTECT, 3, f);
		if (todo[k].map) {
			x->st.maps++;
			note_mapped(p, todo[k].start, todo[k].end);
		} else {
			x->st.protects++;
		}
		xmodel_set(&p->m, todo[k].start, todo[k].end, f[2]);
	}
	free(todo);
	i = ivmap_find(&p->m, page);
	if (recorded && (i < 0 || p->m.v[i].start != s || p->m.v[i].end != e))
		x->st.shape_mismatch++;
}

/* One operation of the given kind per maximal run of pages of [s, e) the model maps. */
static void for_runs(struct rp_export *x, struct xproc *p, uint64_t s, uint64_t e,
		     unsigned int kind)
{
	size_t j = ivmap_lower(&p->m, s);
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
	ssize_t i = ivmap_find(&p->m, s);
	uint64_t flags, f[3];

	if (i < 0 || p->m.v[i].end < e) {
		/* not one mapping of ours: the pages are lost, as far as we can replay */
		if (ivmap_lower(&p->m, s) < p->m.n && p->m.v[ivmap_lower(&p->m, s)].start < e)
			x->st.mremap_partial++;
		for_runs(x, p, s, e, FTR_OP_MUNMAP);
		ivmap_remove(&p->m, s, e);
		return;
	}
	flags = p->m.v[i].val;
	f[0] = s;
	f[1] = e - s;
	f[2] = dst;
	emit(p, FTR_OP_MREMAP, 3, f);
	x->st.zaps++;
	ivmap_remove(&p->m, s, e);
	xmodel_set(&p->m, dst, dst + (e - s), flags);
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
		return fail_null("page size 2^%u is not supported", in->page_shift);
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

void rp_export_prescan(struct rp_export *x, const struct ftdb_event *ev)
{
	unsigned int sh = x->in.page_shift;
	struct xproc *p;
	uint64_t s, e;

	if (ev->proc_id >= x->in.nr_procs)
		return;
	p = &x->p[ev->proc_id];
	if (ev->kind == FTDB_EV_FAULT && p->xs_state <= 1 && ev->vma_id < x->in.nr_vmas &&
	    rp_vm_exec_stack(x->in.vmas[ev->vma_id].flags)) {
		/* the temporary stack only grows: its last fault saw its final bounds */
		p->xs_state = 1;
		p->xs_start = x->in.vmas[ev->vma_id].start >> sh;
		p->xs_end = (x->in.vmas[ev->vma_id].end + (1ULL << sh) - 1) >> sh;
		return;
	}
	if (ev->kind != FTDB_EV_ZAP || ev->reason != FTDB_ZAP_MREMAP || !ev->aux || p->xs_state != 1)
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

void rp_export_feed(struct rp_export *x, const struct ftdb_event *ev)
{
	unsigned int sh = x->in.page_shift;
	uint64_t page = ev->addr >> sh, s, e;
	struct xproc *p, *pp;

	if (ev->kind == FTDB_EV_ALLOC || !selected(x, ev->proc_id))
		return;
	if (ev->kind == FTDB_EV_MM_DUP) {
		uint32_t parent = (uint32_t)ev->aux;

		p = &x->p[ev->proc_id];
		if (p->index >= 0 || !selected(x, parent) || x->p[parent].dead ||
		    parent == ev->proc_id)
			return;
		pp = appear(x, parent);
		p = appear(x, ev->proc_id);
		p->parent = parent;
		ivmap_copy(&p->m, &pp->m);
		{
			uint64_t idx = (uint64_t)p->index;

			rp_pageset_copy_proc(&x->seen, ev->proc_id, parent, &x->tmp, &x->tmp_cap);
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
	case FTDB_EV_FAULT:
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
		touch(x, p, page, ev->flags & FTDB_EVF_WRITE);
		rp_pageset_set(&x->seen, rp_ps_key(ev->proc_id, page), 1);
		break;
	case FTDB_EV_ZERO_WP:
	case FTDB_EV_COW:
		/*
		 * The page is mapped in a faithful replay. If not, it is one the trace never
		 * showed mapped (an anonymous page of a private file mapping, a page of a
		 * process not exported): a COW of it is not replayed (the guest would take a
		 * first-touch fault the recording did not), a zero-page write is, on a
		 * one-page mapping, as the 4K fault the simulator counts.
		 */
		if (!rp_pageset_get(&x->seen, rp_ps_key(ev->proc_id, page))) {
			if (ev->kind == FTDB_EV_COW) {
				x->st.skipped++;
				return;
			}
			ensure(x, p, page, page + 1, FTR_VM_READ | FTR_VM_WRITE, page, 0);
		}
		touch(x, p, page, 1);
		break;
	case FTDB_EV_ZAP:
		s = ev->addr >> sh;
		e = (ev->end + (1ULL << sh) - 1) >> sh;
		if (e <= s)
			return;
		switch (ev->reason) {
		case FTDB_ZAP_EXIT:
			emit(p, FTR_OP_EXIT, 0, NULL);
			p->dead = 1;
			break;
		case FTDB_ZAP_DONTNEED:
			for_runs(x, p, s, e, FTR_OP_DONTNEED);
			rp_pageset_take(&x->seen, ev->proc_id, s, e, &x->tmp, &x->tmp_cap);
			break;
		case FTDB_ZAP_FREE:
			for_runs(x, p, s, e, FTR_OP_FREE);
			break;
		case FTDB_ZAP_MREMAP:
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
				rp_pageset_take(&x->seen, ev->proc_id, d, d + (e - s), &x->tmp,
					&x->tmp_cap);
				n = rp_pageset_take(&x->seen, ev->proc_id, s, e, &x->tmp,
						    &x->tmp_cap);
				for (k = 0; k < n; k++)
					rp_pageset_set(&x->seen, rp_ps_key(ev->proc_id,
									   d + x->tmp[k].page - s),
						       1);
				break;
			}
			/* a move without destination is an unmap */
			/* fall through */
		default:
			for_runs(x, p, s, e, FTR_OP_MUNMAP);
			ivmap_remove(&p->m, s, e);
			rp_pageset_take(&x->seen, ev->proc_id, s, e, &x->tmp, &x->tmp_cap);
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
		ivmap_release(&x->p[i].m);
		free(x->p[i].mapped);
		strbuf_release(&x->p[i].ops);
	}
	free(x->p);
	free(x->by_index);
	rp_pageset_release(&x->seen);
	free(x->tmp);
	free(x);
}
