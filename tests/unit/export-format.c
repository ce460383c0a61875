// SPDX-License-Identifier: GPL-2.0
/*
 * export-format.c - the guest replay file (replay/export.c writes, replay/guest/ftr.h
 * reads): hand-made streams with the exact operations expected (one table row each), round
 * trips of the named synthetic streams checked by a naive executor of the operations, and
 * a table of malformed files every decoder function must reject.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/error.h"
#include "lib/strbuf.h"
#include "lib/xalloc.h"
#include "replay/export.h"
#include "replay/guest/ftr.h"
#include "replay/replay.h"
#include "tests/unit/steps.h"
#include "tests/unit/tap.h"

#define P 4096ULL
#define B 0x10000000ULL		/* 2M-aligned base of the hand-made VMAs */
#define RW (FTR_VM_READ | FTR_VM_WRITE)

/* ---- export a stream ---- */

static int export_stream(const struct rp_stream *s, const int *unselected, struct strbuf *out,
			 struct rp_export_stats *st)
{
	struct rp_proc_info *procs = xcalloc(s->nr_procs + 1, sizeof(*procs));
	struct rp_export_in in = { 0 };
	struct rp_export *x;
	uint32_t i;
	size_t k;
	int ret;

	for (i = 0; i < s->nr_procs; i++) {
		procs[i].pid = 100 + i;
		snprintf(procs[i].comm, sizeof(procs[i].comm), "proc%u", i);
		procs[i].selected = 1;
	}
	for (; unselected && *unselected >= 0; unselected++)
		procs[*unselected].selected = 0;
	in.vmas = s->vmas;
	in.nr_vmas = s->nr_vmas;
	in.procs = procs;
	in.nr_procs = s->nr_procs;
	in.page_shift = 12;
	in.trace_id = 7;
	x = rp_export_new(&in);
	for (k = 0; k < s->nr; k++)
		rp_export_prescan(x, &s->ev[k]);
	for (k = 0; k < s->nr; k++)
		rp_export_feed(x, &s->ev[k]);
	ret = rp_export_finish(x, out, st);
	free(procs);
	return ret;
}

/* Operations of every process as text: "0: map 0x10000+16 rw | touch w 0x10000 | ...". */
static int ops_text(const struct strbuf *f, struct strbuf *txt)
{
	const uint8_t *p = (const uint8_t *)f->buf + FTR_HEADER_SIZE, *end;
	struct ftr_header h;
	struct ftr_proc pr;
	struct ftr_op op;
	uint32_t i;

	end = (const uint8_t *)f->buf + f->len;
	if (ftr_read_header(f->buf, f->len, &h))
		return -1;
	for (i = 0; i < h.nr_procs; i++) {
		const uint8_t *o;
		uint64_t last = 0, prev = 0, cp, cn;
		unsigned int c;
		int r;

		if (ftr_read_proc(&p, end, i, &pr))
			return -1;
		strbuf_addf(txt, "%s%u", i ? " || " : "", i);
		if (pr.parent != FTR_NO_PARENT)
			strbuf_addf(txt, "<%u", pr.parent);
		o = pr.clusters;
		for (c = 0; c < pr.nr_clusters; c++) {
			if (ftr_cluster_next(&o, pr.clusters_end, &prev, &cp, &cn))
				return -1;
			strbuf_addf(txt, " [0x%llx+%llu]", (unsigned long long)cp,
				    (unsigned long long)cn);
		}
		strbuf_addstr(txt, ":");
		o = pr.ops;
		for (c = 0; (r = ftr_op_next(&o, pr.ops_end, &last, &op)) > 0; c++) {
			strbuf_addf(txt, "%s %s", c ? " |" : "", ftr_op_name(op.kind));
			switch (op.kind) {
			case FTR_OP_TOUCH:
				strbuf_addf(txt, " %c 0x%llx", op.write ? 'w' : 'r',
					    (unsigned long long)op.page);
				break;
			case FTR_OP_MAP:
			case FTR_OP_PROTECT:
				strbuf_addf(txt, " 0x%llx+%llu %s%s%s", (unsigned long long)op.page,
					    (unsigned long long)op.npages,
					    op.arg & FTR_VM_WRITE ? "rw" : "r",
					    op.arg & FTR_VM_NOHUGEPAGE ? " nohuge" : "",
					    op.arg & FTR_VM_NORESERVE ? " noreserve" : "");
				break;
			case FTR_OP_MREMAP:
				strbuf_addf(txt, " 0x%llx+%llu 0x%llx", (unsigned long long)op.page,
					    (unsigned long long)op.npages,
					    (unsigned long long)op.arg);
				break;
			case FTR_OP_FORK:
				strbuf_addf(txt, " %llu", (unsigned long long)op.arg);
				break;
			case FTR_OP_EXIT:
				break;
			default:
				strbuf_addf(txt, " 0x%llx+%llu", (unsigned long long)op.page,
					    (unsigned long long)op.npages);
			}
		}
		if (r < 0)
			return -1;
	}
	return 0;
}

/* ---- hand-made cases ---- */

struct vma {
	uint64_t start, end, flags;
};

struct xcase {
	const char *name;
	struct vma vmas[5];		/* vma ids 1.. */
	struct step steps[16];		/* until op 0 */
	int unselected[4];		/* proc ids not exported, -1 terminated */
	const char *want;		/* ops_text() */
	uint64_t mismatch;		/* shape mismatches expected */
};

#define W(p, a, v) { 'W', p, a, 0, 0, v }
#define R(p, a, v) { 'R', p, a, 0, 0, v }
#define NOSEL { -1 }
#define PG(x) ((unsigned long long)((x) / P))

static const struct xcase xcases[] = {
	{ "one VMA, three writes and a read",
	  { { B, B + 16 * P, RW } },
	  { W(1, B, 1), W(1, B + P, 1), R(1, B + 5 * P, 1), W(1, B + 15 * P, 1) }, NOSEL,
	  "0 [0x10000+16]: map 0x10000+16 rw | touch w 0x10000 | touch w 0x10001 | "
	  "touch r 0x10005 | touch w 0x1000f", 0 },
	{ "a growing VMA is mapped by its missing part, which merges",
	  { { B, B + 8 * P, RW }, { B, B + 16 * P, RW } },
	  { W(1, B, 1), W(1, B + 9 * P, 2), W(1, B + P, 2) }, NOSEL,
	  "0 [0x10000+16]: map 0x10000+8 rw | touch w 0x10000 | map 0x10008+8 rw | "
	  "touch w 0x10009 | touch w 0x10001", 0 },
	{ "a stack grows down",
	  { { B + 8 * P, B + 16 * P, RW }, { B + 4 * P, B + 16 * P, RW } },
	  { W(1, B + 15 * P, 1), W(1, B + 4 * P, 2) }, NOSEL,
	  "0 [0x10004+12]: map 0x10008+8 rw | touch w 0x1000f | map 0x10004+4 rw | "
	  "touch w 0x10004", 0 },
	{ "MADV_NOHUGEPAGE on part of a mapping is a PROTECT of that part",
	  { { B, B + 16 * P, RW }, { B, B + 4 * P, RW | FTR_VM_NOHUGEPAGE } },
	  { W(1, B + 8 * P, 1), W(1, B, 2) }, NOSEL,
	  "0 [0x10000+16]: map 0x10000+16 rw | touch w 0x10008 | "
	  "protect 0x10000+4 rw nohuge | touch w 0x10000", 0 },
	{ "a zap is clipped to what is mapped; munmap forgets it, dontneed does not",
	  { { B, B + 4 * P, RW }, { B, B + 2 * P, RW } },
	  { W(1, B, 1), { 'D', 1, B - 16 * P, B + 64 * P, 0, 0 },
	    { 'U', 1, B + 2 * P, B + 64 * P, 0, 0 }, { 'U', 1, B + 32 * P, B + 64 * P, 0, 0 },
	    W(1, B + P, 2) }, NOSEL,
	  "0 [0x10000+4]: map 0x10000+4 rw | touch w 0x10000 | dontneed 0x10000+4 | "
	  "munmap 0x10002+2 | touch w 0x10001", 0 },
	{ "two recorded VMAs of one class side by side (a heap after .bss) stay apart: the "
	  "second is mapped MAP_NORESERVE, and grows as such",
	  { { B, B + 4 * P, RW }, { B + 4 * P, B + 5 * P, RW }, { B + 4 * P, B + 8 * P, RW } },
	  { W(1, B, 1), W(1, B + 4 * P, 2), W(1, B + 6 * P, 3), W(1, B + P, 1) }, NOSEL,
	  "0 [0x10000+8]: map 0x10000+4 rw | touch w 0x10000 | map 0x10004+1 rw noreserve | "
	  "touch w 0x10004 | map 0x10005+3 rw noreserve | touch w 0x10006 | touch w 0x10001",
	  0 },
	{ "neighbours on both sides in both states: merging cannot be avoided, counted",
	  { { B + 6 * P, B + 8 * P, RW }, { B + 5 * P, B + 6 * P, RW }, { B, B + 4 * P, RW },
	    { B + 4 * P, B + 5 * P, RW } },
	  { W(1, B + 6 * P, 1), W(1, B + 5 * P, 2), W(1, B, 3), W(1, B + 4 * P, 4) }, NOSEL,
	  "0 [0x10000+8]: map 0x10006+2 rw | touch w 0x10006 | map 0x10005+1 rw noreserve | "
	  "touch w 0x10005 | map 0x10000+4 rw | touch w 0x10000 | map 0x10004+1 rw noreserve | "
	  "touch w 0x10004", 1 },
	{ "a fault that installed nothing is not replayed",
	  { { B, B + 4 * P, RW } },
	  { W(1, B, 1), { 'n', 1, B + P, 0, 0, 1 }, W(1, B + P, 1) }, NOSEL,
	  "0 [0x10000+4]: map 0x10000+4 rw | touch w 0x10000 | touch w 0x10001", 0 },
	{ "fork: the parent forks, the child replays COW and zero-page writes, exits",
	  { { B, B + 4 * P, RW } },
	  { W(1, B, 1), R(1, B + P, 1), { 'K', 2, 1, 0, 0, 0 }, { 'C', 2, B, 0, 0, 0 },
	    { 'Z', 2, B + P, 0, 0, 0 }, { 'X', 2, B, B + 4 * P, 0, 0 },
	    { 'C', 2, B + 2 * P, 0, 0, 0 }, W(1, B + 3 * P, 1) }, NOSEL,
	  "0 [0x10000+4]: map 0x10000+4 rw | touch w 0x10000 | touch r 0x10001 | fork 1 | "
	  "touch w 0x10003 || 1<0: touch w 0x10000 | touch w 0x10001 | exit", 0 },
	{ "a fork from an unselected parent: the child is on its own; a COW of a page it "
	  "never mapped is not replayed, a zero-page write is, on a one-page mapping",
	  { { B, B + 4 * P, RW } },
	  { W(1, B, 1), { 'K', 2, 1, 0, 0, 0 }, { 'C', 2, B, 0, 0, 0 },
	    { 'Z', 2, B + P, 0, 0, 0 } }, { 1, -1 },
	  "0 [0x10001+1]: map 0x10001+1 rw | touch w 0x10001", 0 },
	{ "mremap moves the mapping; the munmap of the old range that follows is empty",
	  { { B, B + 4 * P, RW }, { B + 512 * P, B + 520 * P, RW } },
	  { W(1, B, 1), { 'M', 1, B, B + 4 * P, B + 512 * P, 0 },
	    { 'U', 1, B, B + 4 * P, 0, 0 }, W(1, B + 517 * P, 2) }, NOSEL,
	  "0 [0x10000+4] [0x10200+8]: map 0x10000+4 rw | touch w 0x10000 | "
	  "mremap 0x10000+4 0x10200 | map 0x10204+4 rw | touch w 0x10205", 0 },
	{ "a mapping moved, then grown at its destination (realloc() by mremap()), then "
	  "moved again: one mremap of the whole, which the replayer moves VMA by VMA where "
	  "the kernel holds the grown part apart (6.1, 6.12)",
	  { { B, B + 4 * P, RW }, { B + 512 * P, B + 520 * P, RW },
	    { B + 1024 * P, B + 1036 * P, RW } },
	  { W(1, B, 1), { 'M', 1, B, B + 4 * P, B + 512 * P, 0 }, W(1, B + 516 * P, 2),
	    { 'M', 1, B + 512 * P, B + 520 * P, B + 1024 * P, 0 }, W(1, B + 1032 * P, 3) },
	  NOSEL, "0 [0x10000+4] [0x10200+8] [0x10400+12]: map 0x10000+4 rw | touch w 0x10000 | "
	  "mremap 0x10000+4 0x10200 | map 0x10204+4 rw | touch w 0x10204 | "
	  "mremap 0x10200+8 0x10400 | map 0x10408+4 rw | touch w 0x10408", 0 },
	{ "exec's temporary stack is replayed at its destination and its move dropped, so "
	  "the stack is one mapping as in the recording",
	  { { B + 1023 * P, B + 1024 * P, RW | RP_VM_STACK_SETUP },
	    { B + 248 * P, B + 257 * P, RW } },
	  { W(1, B + 1023 * P, 1), { 'M', 1, B + 1023 * P, B + 1024 * P, B + 256 * P, 0 },
	    W(1, B + 255 * P, 2) }, NOSEL,
	  "0 [0x100f8+9]: map 0x10100+1 rw | touch w 0x10100 | map 0x100f8+8 rw | "
	  "touch w 0x100ff", 0 },
};

static void build(const struct xcase *c, struct rp_stream *s)
{
	unsigned int i;

	memset(s, 0, sizeof(*s));
	for (i = 0; i < 5 && c->vmas[i].end; i++)
		rp_stream_add_vma(s, c->vmas[i].start, c->vmas[i].end, c->vmas[i].flags);
	for (i = 0; i < 16 && c->steps[i].op; i++) {
		struct ftdb_event e = step_event(&c->steps[i]);

		rp_stream_add(s, &e);
	}
	if (s->nr_procs < 3)
		s->nr_procs = 3;
}

/* ---- the naive executor: what the replayer does, checked page by page ---- */

/*
 * Naive page set of one process: an unsorted array, linear scans. Both the executor and
 * expected() below track mapped pages in one.
 */
struct pageset {
	uint64_t *pg;		/* page numbers, unsorted */
	size_t n, cap;
};

static ssize_t ps_find(const struct pageset *s, uint64_t pg)
{
	size_t i;

	for (i = 0; i < s->n; i++)
		if (s->pg[i] == pg)
			return (ssize_t)i;
	return -1;
}

static void ps_add(struct pageset *s, uint64_t pg)
{
	XGROW(s->pg, s->cap, s->n + 1);
	s->pg[s->n++] = pg;
}

/* Add pg unless it is there already. */
static void ps_add_new(struct pageset *s, uint64_t pg)
{
	if (ps_find(s, pg) < 0)
		ps_add(s, pg);
}

static void ps_del(struct pageset *s, uint64_t pg)
{
	ssize_t i = ps_find(s, pg);

	if (i >= 0)
		s->pg[i] = s->pg[--s->n];
}

/*
 * Run the operations of process index over a page set: MAP only onto unmapped pages
 * (MAP_FIXED_NOREPLACE), every other range and every touch only onto mapped pages, every
 * mapped page inside the family's clusters. Appends the touches to *touches as
 * (page << 1 | write) per process. Return: number of violations.
 */
struct exec {
	struct ftr_proc *pr;
	uint32_t nr;
	uint64_t (*cl)[2];	/* clusters of the running family: [start, end) pages */
	size_t nr_cl;
	uint64_t **touches;	/* per index */
	size_t *nr_touches, *cap_touches;
	size_t pages_limit;
};

static int in_cluster(const struct exec *e, uint64_t pg)
{
	size_t i;

	for (i = 0; i < e->nr_cl; i++)
		if (pg >= e->cl[i][0] && pg < e->cl[i][1])
			return 1;
	return 0;
}

static int run(struct exec *e, uint32_t index, struct pageset *ps)
{
	const struct ftr_proc *pr = &e->pr[index];
	const uint8_t *o = pr->ops;
	uint64_t last = 0, k;
	struct ftr_op op;
	int bad = 0;

	while (ftr_op_next(&o, pr->ops_end, &last, &op) > 0) {
		switch (op.kind) {
		case FTR_OP_TOUCH:
			bad += ps_find(ps, op.page) < 0;
			XGROW(e->touches[index], e->cap_touches[index], e->nr_touches[index] + 1);
			e->touches[index][e->nr_touches[index]++] = op.page << 1 | op.write;
			break;
		case FTR_OP_MAP:
			for (k = 0; k < op.npages; k++) {
				bad += ps_find(ps, op.page + k) >= 0 || !in_cluster(e, op.page + k);
				ps_add(ps, op.page + k);
			}
			break;
		case FTR_OP_MUNMAP:
		case FTR_OP_PROTECT:
		case FTR_OP_DONTNEED:
		case FTR_OP_FREE:
			for (k = 0; k < op.npages; k++) {
				bad += ps_find(ps, op.page + k) < 0;
				if (op.kind == FTR_OP_MUNMAP)
					ps_del(ps, op.page + k);
			}
			break;
		case FTR_OP_MREMAP:
			for (k = 0; k < op.npages; k++) {
				bad += ps_find(ps, op.page + k) < 0 || !in_cluster(e, op.arg + k);
				ps_del(ps, op.page + k);
			}
			for (k = 0; k < op.npages; k++)
				ps_add_new(ps, op.arg + k);
			break;
		case FTR_OP_FORK: {
			struct pageset child = { 0 };

			bad += op.arg >= e->nr || e->pr[op.arg].parent != index;
			if (op.arg < e->nr) {
				XGROW(child.pg, child.cap, ps->n + 1);
				memcpy(child.pg, ps->pg, ps->n * sizeof(*ps->pg));
				child.n = ps->n;
				bad += run(e, (uint32_t)op.arg, &child);
				free(child.pg);
			}
			break;
		}
		case FTR_OP_EXIT:
			return bad;
		}
	}
	return bad;
}

/* Remove pages in [lo, hi); moved to dst + (page - lo) unless dst is ~0. */
static void ps_zap(struct pageset *p, uint64_t lo, uint64_t hi, uint64_t dst)
{
	size_t i, o = 0, n0 = p->n;
	uint64_t *moved = xcalloc(n0 + 1, sizeof(*moved));
	size_t nm = 0;

	for (i = 0; i < n0; i++) {
		if (p->pg[i] >= lo && p->pg[i] < hi)
			moved[nm++] = p->pg[i];
		else if (dst == ~0ULL || p->pg[i] < dst || p->pg[i] >= dst + (hi - lo))
			p->pg[o++] = p->pg[i];
	}
	p->n = o;
	for (i = 0; dst != ~0ULL && i < nm; i++)
		ps_add_new(p, dst + moved[i] - lo);
	free(moved);
}

/*
 * Expected touches per proc id: faults that installed something, zero_wp, and cow of a page
 * the stream showed present (else the exporter leaves the COW out); until exit.
 */
static void expected(const struct rp_stream *s, uint64_t **t, size_t *n, size_t *cap,
		     size_t *dropped)
{
	uint8_t *dead = xcalloc(s->nr_procs, 1);
	struct pageset *pr = xcalloc(s->nr_procs, sizeof(*pr));
	size_t k;
	uint32_t i;

	for (k = 0; k < s->nr; k++) {
		const struct ftdb_event *e = &s->ev[k];
		uint64_t w, pg = e->addr >> 12, hi = (e->end + 4095) >> 12;

		if (dead[e->proc_id])
			continue;
		if (e->kind == FTDB_EV_MM_DUP) {
			uint32_t par = (uint32_t)e->aux;

			if (par != e->proc_id && !dead[par] && !pr[e->proc_id].n && !n[e->proc_id])
				for (i = 0; i < pr[par].n; i++)
					ps_add_new(&pr[e->proc_id], pr[par].pg[i]);
			continue;
		}
		if (e->kind == FTDB_EV_ZAP) {
			if (e->reason == FTDB_ZAP_EXIT)
				dead[e->proc_id] = 1;
			else if (e->reason == FTDB_ZAP_MREMAP)
				ps_zap(&pr[e->proc_id], pg, hi, e->aux ? e->aux >> 12 : ~0ULL);
			else if (e->reason != FTDB_ZAP_FREE)
				ps_zap(&pr[e->proc_id], pg, hi, ~0ULL);
			continue;
		}
		if (!(e->kind == FTDB_EV_FAULT && e->nr_ptes) && e->kind != FTDB_EV_ZERO_WP &&
		    e->kind != FTDB_EV_COW)
			continue;
		if (e->kind == FTDB_EV_COW && ps_find(&pr[e->proc_id], pg) < 0) {
			(*dropped)++;
			continue;
		}
		if (e->kind == FTDB_EV_FAULT)
			ps_add_new(&pr[e->proc_id], pg);
		w = e->kind == FTDB_EV_FAULT ? !!(e->flags & FTDB_EVF_WRITE) : 1;
		XGROW(t[e->proc_id], cap[e->proc_id], n[e->proc_id] + 1);
		t[e->proc_id][n[e->proc_id]++] = pg << 1 | w;
	}
	for (i = 0; i < s->nr_procs; i++)
		free(pr[i].pg);
	free(pr);
	free(dead);
}

static void round_trip(const char *name)
{
	struct rp_stream s;
	struct strbuf f = STRBUF_INIT;
	struct rp_export_stats st;
	struct ftr_header h;
	struct exec e = { 0 };
	uint64_t **want, **got;
	size_t *nw, *cw, *ng, *cg, total = 0, dropped = 0;
	const uint8_t *p, *end;
	uint32_t i;
	int bad = 0, same = 1;

	if (rp_synth(name, 42, 20000, &s)) {
		ok(0, "synth %s", name);
		return;
	}
	memset(&st, 0, sizeof(st));
	memset(&h, 0, sizeof(h));
	i = (uint32_t)export_stream(&s, NULL, &f, &st);
	ok(!i, "%s: exported (%llu touches, %llu procs, %llu "
	   "maps, %llu zaps, %llu forks, %llu bytes)", name, (unsigned long long)st.touches,
	   (unsigned long long)st.procs, (unsigned long long)st.maps,
	   (unsigned long long)st.zaps, (unsigned long long)st.forks,
	   (unsigned long long)st.bytes);
	i = (uint32_t)ftr_read_header(f.buf, f.len, &h);
	ok(!i && h.page_shift == 12 && h.trace_id == 7 &&
	   h.nr_touches == st.touches && h.nr_procs == st.procs && st.bytes == f.len,
	   "%s: header says page 4K, trace 7, %llu touches, %u processes", name,
	   (unsigned long long)h.nr_touches, h.nr_procs);

	e.nr = h.nr_procs;
	e.pr = xcalloc(e.nr, sizeof(*e.pr));
	got = xcalloc(e.nr, sizeof(*got));
	ng = xcalloc(e.nr, sizeof(*ng));
	cg = xcalloc(e.nr, sizeof(*cg));
	e.touches = got;
	e.nr_touches = ng;
	e.cap_touches = cg;
	p = (const uint8_t *)f.buf + FTR_HEADER_SIZE;
	end = (const uint8_t *)f.buf + f.len;
	for (i = 0; i < e.nr; i++)
		bad += ftr_read_proc(&p, end, i, &e.pr[i]) != 0;
	ok(!bad && p == end, "%s: every process record decodes, nothing after the last", name);

	/* naive execution, family by family */
	bad = 0;
	for (i = 0; i < e.nr; i++) {
		struct pageset ps = { 0 };
		const uint8_t *c = e.pr[i].clusters;
		uint64_t prev = 0, cp, cn;
		size_t k, cap = 0;

		if (e.pr[i].parent != FTR_NO_PARENT)
			continue;
		e.nr_cl = 0;
		free(e.cl);
		e.cl = NULL;
		for (k = 0; k < e.pr[i].nr_clusters; k++) {
			if (ftr_cluster_next(&c, e.pr[i].clusters_end, &prev, &cp, &cn)) {
				bad++;
				break;
			}
			XGROW(e.cl, cap, e.nr_cl + 1);
			e.cl[e.nr_cl][0] = cp;
			e.cl[e.nr_cl++][1] = cp + cn;
		}
		bad += run(&e, i, &ps);
		free(ps.pg);
	}
	ok(!bad, "%s: naive execution: maps only onto free pages inside the clusters, touches "
	   "and zaps only mapped pages, forks name their children (%d violations)", name, bad);

	/* the touches, process by process, are the recorded first touches */
	want = xcalloc(s.nr_procs, sizeof(*want));
	nw = xcalloc(s.nr_procs, sizeof(*nw));
	cw = xcalloc(s.nr_procs, sizeof(*cw));
	expected(&s, want, nw, cw, &dropped);
	for (i = 0; i < e.nr; i++) {
		uint32_t id = e.pr[i].proc_id;

		total += ng[i];
		if (id >= s.nr_procs || ng[i] != nw[id] ||
		    memcmp(got[i], want[id], ng[i] * sizeof(**got))) {
			if (same)
				diag("  process %u (proc_id %u): %zu touches, want %zu", i, id,
				     ng[i], id < s.nr_procs ? nw[id] : 0);
			same = 0;
		}
	}
	ok(same && total == st.touches && dropped == st.skipped, "%s: replayed touches are the "
	   "recorded first touches, in order, per process (%zu), but %zu COWs of pages never "
	   "seen present", name, total, dropped);

	for (i = 0; i < e.nr; i++)
		free(got[i]);
	for (i = 0; i < s.nr_procs; i++)
		free(want[i]);
	free(got);
	free(ng);
	free(cg);
	free(want);
	free(nw);
	free(cw);
	free(e.cl);
	free(e.pr);
	strbuf_release(&f);
	rp_stream_release(&s);
}

/* ---- malformed files ---- */

struct bad {
	const char *name;
	size_t at;		/* byte to change (SIZE_MAX: truncate to len) */
	uint8_t val;
	size_t len;
};

static int decodes(const uint8_t *buf, size_t len)
{
	const uint8_t *p = buf + FTR_HEADER_SIZE, *end = buf + len, *o;
	struct ftr_header h;
	struct ftr_proc pr;
	struct ftr_op op;
	uint32_t i;
	uint64_t last, prev, a, b, c;
	int r;

	if (ftr_read_header(buf, len, &h))
		return 0;
	for (i = 0; i < h.nr_procs; i++) {
		if (ftr_read_proc(&p, end, i, &pr))
			return 0;
		o = pr.clusters;
		prev = 0;
		for (c = 0; c < pr.nr_clusters; c++)
			if (ftr_cluster_next(&o, pr.clusters_end, &prev, &a, &b))
				return 0;
		o = pr.ops;
		last = 0;
		for (c = 0; (r = ftr_op_next(&o, pr.ops_end, &last, &op)) > 0; c++)
			;
		if (r < 0 || c != pr.nr_ops)
			return 0;
	}
	return p == end;
}

int main(void)
{
	static const struct bad bads[] = {
		{ "bad magic", 0, 'X', 0 },
		{ "version 2", 4, 2, 0 },
		{ "page shift 40", 5, 40, 0 },
		{ "reserved header bytes set", 6, 1, 0 },
		{ "one process too many", 8, 3, 0 },
		{ "truncated header", SIZE_MAX, 0, 20 },
		{ "truncated in the operations", SIZE_MAX, 0, 0 },
		{ "undefined tag bit", 0, 0, 0 },
		{ "unknown operation kind", 0, 0, 0 },
	};
	struct strbuf f = STRBUF_INIT, txt = STRBUF_INIT;
	struct rp_export_stats st;
	struct rp_stream s;
	unsigned int i;
	const char *const names[] = { "random", "kbuild-like", "realloc" };

	plan((int)(sizeof(xcases) / sizeof(xcases[0])) * 2 + 3 * 5 + 1 +
	     (int)(sizeof(bads) / sizeof(bads[0])) + 1);

	for (i = 0; i < sizeof(xcases) / sizeof(xcases[0]); i++) {
		const struct xcase *c = &xcases[i];

		build(c, &s);
		strbuf_reset(&f);
		strbuf_reset(&txt);
		if (export_stream(&s, c->unselected, &f, &st) || ops_text(&f, &txt)) {
			ok(0, "%s: exports and decodes (%s)", c->name, error_text());
			ok(0, "%s: shape mismatches", c->name);
			error_clear();
		} else {
			if (!ok(!strcmp(txt.buf, c->want), "%s", c->name)) {
				diag("  got  %s", txt.buf);
				diag("  want %s", c->want);
			}
			is_int(st.shape_mismatch, c->mismatch, "%s: %llu shape mismatches", c->name,
			       (unsigned long long)c->mismatch);
		}
		rp_stream_release(&s);
	}

	for (i = 0; i < 3; i++)
		round_trip(names[i]);

	/* nothing selected: an error, not an empty file */
	{
		static const struct xcase none = { "none", { { B, B + P, RW } },
						   { W(1, B, 1) }, { 1, 2, -1 }, "", 0 };

		build(&none, &s);
		strbuf_reset(&f);
		ok(export_stream(&s, none.unselected, &f, &st) == -1 && !f.len,
		   "no selected process with an event: error, nothing written");
		error_clear();
		rp_stream_release(&s);
	}

	/* malformed: start from a valid two-process file */
	build(&xcases[8], &s);	/* the fork case */
	strbuf_reset(&f);
	export_stream(&s, NULL, &f, &st);
	rp_stream_release(&s);
	ok(decodes((const uint8_t *)f.buf, f.len), "the fork case's file decodes (%zu bytes)",
	   f.len);
	for (i = 0; i < sizeof(bads) / sizeof(bads[0]); i++) {
		uint8_t *buf = xmalloc(f.len);
		size_t len = f.len;

		memcpy(buf, f.buf, f.len);
		if (!strcmp(bads[i].name, "truncated in the operations")) {
			len = f.len - 2;
		} else if (bads[i].at == SIZE_MAX) {
			len = bads[i].len;
		} else if (!strcmp(bads[i].name, "undefined tag bit") ||
			   !strcmp(bads[i].name, "unknown operation kind")) {
			/* the last operation of the last process is EXIT: one tag byte */
			buf[len - 1] = !strcmp(bads[i].name, "undefined tag bit") ? 0x48 : 0x0c;
		} else {
			buf[bads[i].at] = bads[i].val;
		}
		ok(!decodes(buf, len), "rejected: %s", bads[i].name);
		free(buf);
	}
	strbuf_release(&f);
	strbuf_release(&txt);
	return done_testing();
}
