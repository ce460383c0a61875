// SPDX-License-Identifier: GPL-2.0
/*
 * synth.c - named synthetic event streams, for the unit tests, the differential test and
 * the bench (which says in its output that it runs on one). Deterministic for a seed.
 *
 *	random		a few processes, small VMAs at mixed alignments (some NOHUGEPAGE),
 *			reads and writes, sequential runs and jumps, zaps of every cause,
 *			forks with COW, ZERO_WP, exits; also stray ALLOC records. Small: it
 *			is meant to be checked against the oracle.
 *	seq		one process writing a 1G VMA page after page, over and over after
 *			a DONTNEED of the whole range (the best case for large orders)
 *	kbuild-like	many short processes: a growing heap touched mostly in order, mmap'd
 *			arenas touched sparsely, a stack, some reads; fork from a parent;
 *			exit. Shaped like a compiler run, not measured from one.
 *	realloc		one buffer grown by half again and again the way glibc's realloc()
 *			grows a large block with mremap() (python3's lists): each growth
 *			moves the mapping to a new range, where its VMA is larger, and the
 *			new part is written page after page
 */
#include <stdlib.h>
#include <string.h>

#include "lib/error.h"
#include "lib/rand.h"
#include "lib/xalloc.h"
#include "replay/replay.h"

static const char *const names[] = { "random", "seq", "kbuild-like", "realloc", NULL };

const char *const *rp_synth_names(void)
{
	return names;
}

void rp_stream_release(struct rp_stream *s)
{
	free(s->ev);
	free(s->vmas);
	memset(s, 0, sizeof(*s));
}

uint32_t rp_stream_add_vma(struct rp_stream *s, uint64_t start, uint64_t end, uint64_t flags)
{
	if (!s->nr_vmas)
		s->nr_vmas = 1;	/* vma_id 0 is never used, as in SQLite rowids */
	s->vmas = xrealloc(s->vmas, (s->nr_vmas + 1) * sizeof(*s->vmas));
	s->vmas[s->nr_vmas].start = start;
	s->vmas[s->nr_vmas].end = end;
	s->vmas[s->nr_vmas].flags = flags;
	memset(&s->vmas[0], 0, sizeof(s->vmas[0]));
	return s->nr_vmas++;
}

void rp_stream_add(struct rp_stream *s, const struct ftdb_event *ev)
{
	XGROW(s->ev, s->cap, s->nr + 1);
	s->ev[s->nr] = *ev;
	s->ev[s->nr].ts = s->nr * 1000;
	if (ev->proc_id >= s->nr_procs)
		s->nr_procs = ev->proc_id + 1;
	s->nr++;
}

void rp_stream_trace(const struct rp_stream *s, struct rp_trace *t)
{
	memset(t, 0, sizeof(*t));
	t->vmas = s->vmas;
	t->nr_vmas = s->nr_vmas;
	t->nr_procs = s->nr_procs;
}

static void ev_fault(struct rp_stream *s, uint32_t proc, uint32_t vma, uint64_t addr, int write)
{
	struct ftdb_event e = { 0 };

	e.kind = FTDB_EV_FAULT;
	e.proc_id = proc;
	e.vma_id = vma;
	e.addr = addr & ~(RP_PAGE_SIZE - 1);
	e.flags = write ? FTDB_EVF_WRITE : FTDB_EVF_ZERO_PAGE;
	e.nr_ptes = 1;
	e.aux = 1000 + (addr >> 12) % 700;	/* latency_ns */
	rp_stream_add(s, &e);
}

static void ev_simple(struct rp_stream *s, unsigned int kind, uint32_t proc, uint64_t addr)
{
	struct ftdb_event e = { 0 };

	e.kind = (uint8_t)kind;
	e.proc_id = proc;
	e.addr = addr & ~(RP_PAGE_SIZE - 1);
	e.aux = 1500;
	rp_stream_add(s, &e);
}

static void ev_zap(struct rp_stream *s, uint32_t proc, uint64_t start, uint64_t end,
		   unsigned int cause, uint64_t new_addr)
{
	struct ftdb_event e = { 0 };

	e.kind = FTDB_EV_ZAP;
	e.proc_id = proc;
	e.addr = start;
	e.end = end;
	e.reason = (uint8_t)cause;
	e.aux = new_addr;
	rp_stream_add(s, &e);
}

static void ev_dup(struct rp_stream *s, uint32_t child, uint32_t parent)
{
	struct ftdb_event e = { 0 };

	e.kind = FTDB_EV_MM_DUP;
	e.proc_id = child;
	e.aux = parent;
	rp_stream_add(s, &e);
}

/* ---- random ---- */

#define R_MAXV 8

struct rproc {
	uint32_t id;
	uint32_t vma[R_MAXV];	/* vma ids */
	unsigned int nv;
	uint64_t cursor;	/* last address touched */
	int alive;
};

static void gen_random(struct rp_stream *s, uint64_t *seed, size_t nr_faults)
{
	struct rproc pr[24];
	unsigned int np = 0, i, j;
	size_t faults = 0;
	uint32_t next_id = 1;
	static const uint64_t aligns[] = { 1ULL << 12, 1ULL << 16, 1ULL << 21, 3ULL << 12 };

	memset(pr, 0, sizeof(pr));
	for (i = 0; i < 2 + ft_rand_below(seed, 3); i++) {
		struct rproc *p = &pr[np++];
		uint64_t base = (0x10000000ULL + ft_rand_below(seed, 64) * (1ULL << 30));

		p->id = next_id++;
		p->alive = 1;
		p->nv = 1 + (unsigned int)ft_rand_below(seed, R_MAXV - 1);
		for (j = 0; j < p->nv; j++) {
			uint64_t start = base + j * (16ULL << 21) + ft_rand_below(seed, 512) *
					 aligns[ft_rand_below(seed, 4)] % (4ULL << 21);
			uint64_t len = (1 + ft_rand_below(seed, 1200)) * RP_PAGE_SIZE;
			uint64_t r = ft_rand_below(seed, 10);
			uint64_t flags = 0x3 | (r == 0 ? RP_VM_NOHUGEPAGE : r == 1 ? 0x200 : 0);

			start &= ~(RP_PAGE_SIZE - 1);
			if (ft_rand_below(seed, 3) == 0)	/* some exactly 2M-aligned, 2M multiples */
				start &= ~((1ULL << 21) - 1), len = (1 + ft_rand_below(seed, 2)) << 21;
			p->vma[j] = rp_stream_add_vma(s, start, start + len, flags);
		}
	}
	while (faults < nr_faults) {
		struct rproc *p = &pr[ft_rand_below(seed, np)];
		const struct rp_vma *v;
		uint32_t vid;
		uint64_t r = ft_rand_below(seed, 100), addr, len;

		if (!p->alive)
			continue;
		vid = p->vma[ft_rand_below(seed, p->nv)];
		v = &s->vmas[vid];
		len = v->end - v->start;
		if (r < 70) {	/* touches: runs in order, or a jump */
			unsigned int run = 1 + (unsigned int)ft_rand_below(seed, 40);
			int write = ft_rand_below(seed, 10) < 7;

			if (ft_rand_below(seed, 3) == 0 || p->cursor < v->start || p->cursor >= v->end)
				p->cursor = v->start + ft_rand_below(seed, len / RP_PAGE_SIZE) * RP_PAGE_SIZE;
			for (j = 0; j < run && p->cursor < v->end; j++) {
				ev_fault(s, p->id, vid, p->cursor, write);
				faults++;
				p->cursor += RP_PAGE_SIZE * (ft_rand_below(seed, 8) == 0 ? 2 : 1);
			}
		} else if (r < 78) {
			addr = v->start + ft_rand_below(seed, len / RP_PAGE_SIZE) * RP_PAGE_SIZE;
			ev_simple(s, ft_rand_below(seed, 2) ? FTDB_EV_ZERO_WP : FTDB_EV_COW, p->id, addr);
		} else if (r < 88) {	/* zap part of a VMA */
			uint64_t a = v->start + ft_rand_below(seed, len / RP_PAGE_SIZE) * RP_PAGE_SIZE;
			uint64_t b = a + (1 + ft_rand_below(seed, 64)) * RP_PAGE_SIZE;
			unsigned int cause = 1 + (unsigned int)ft_rand_below(seed, 4);
			uint64_t dst = 0;

			if (b > v->end)
				b = v->end;
			if (cause == FTDB_ZAP_MREMAP) {
				const struct rp_vma *w = &s->vmas[p->vma[ft_rand_below(seed, p->nv)]];
				uint64_t wl = (w->end - w->start) / RP_PAGE_SIZE;

				dst = w->start + ft_rand_below(seed, wl) * RP_PAGE_SIZE;
			}
			ev_zap(s, p->id, a, b, cause, dst);
		} else if (r < 91 && np < 24) {	/* fork */
			struct rproc *c = &pr[np++];

			*c = *p;
			c->id = next_id++;
			ev_dup(s, c->id, p->id);
		} else if (r < 93) {	/* exit, unless it is the last one alive */
			unsigned int alive = 0;

			for (i = 0; i < np; i++)
				alive += pr[i].alive;
			if (alive < 2)
				continue;
			for (j = 0; j < p->nv; j++)
				ev_zap(s, p->id, s->vmas[p->vma[j]].start, s->vmas[p->vma[j]].end,
				       FTDB_ZAP_EXIT, 0);
			p->alive = 0;
		} else if (r < 95) {
			struct ftdb_event e = { 0 };

			e.kind = FTDB_EV_ALLOC;
			e.proc_id = p->id;
			e.addr = v->start;
			e.order = (uint8_t)ft_rand_below(seed, 10);
			rp_stream_add(s, &e);
		} else {	/* reads of pages that may have been written */
			addr = v->start + ft_rand_below(seed, len / RP_PAGE_SIZE) * RP_PAGE_SIZE;
			ev_fault(s, p->id, vid, addr, 0);
			faults++;
		}
	}
}

/* ---- seq ---- */

static void gen_seq(struct rp_stream *s, uint64_t *seed, size_t nr_faults)
{
	uint64_t start = 0x7f0000000000ULL, len = 1ULL << 30, a = 0;
	uint32_t vid = rp_stream_add_vma(s, start, start + len, 0x3);
	size_t i;

	for (i = 0; i < nr_faults; i++) {
		if (a == len) {
			ev_zap(s, 1, start, start + len, FTDB_ZAP_DONTNEED, 0);
			a = 0;
		}
		ev_fault(s, 1, vid, start + a, 1);
		a += RP_PAGE_SIZE;
	}
	ev_zap(s, 1, start, start + len, FTDB_ZAP_EXIT, 0);
}

/* ---- kbuild-like ---- */

static void gen_kbuild(struct rp_stream *s, uint64_t *seed, size_t nr_faults)
{
	size_t faults = 0;
	uint32_t id = 2;
	uint64_t pv_heap = 0x555555554000ULL;
	uint32_t parent_heap = rp_stream_add_vma(s, pv_heap, pv_heap + (8ULL << 20), 0x3);
	uint64_t a;

	/* the parent (make): a small heap it keeps, shared with every child at fork */
	for (a = 0; a < (2ULL << 20); a += RP_PAGE_SIZE)
		ev_fault(s, 1, parent_heap, pv_heap + a, 1);
	while (faults < nr_faults) {
		uint64_t heap = 0x560000000000ULL + ft_rand_below(seed, 1024) * (1ULL << 24);
		uint64_t heap_len = (4 + ft_rand_below(seed, 60)) << 20;	/* 4-64M */
		uint64_t arena = 0x7f0000000000ULL + ft_rand_below(seed, 1024) * (1ULL << 28) + 0x1000;
		uint64_t arena_len = (1 + ft_rand_below(seed, 32)) << 20;
		uint64_t stack = 0x7ffc00000000ULL - (8ULL << 20);
		uint32_t vh = rp_stream_add_vma(s, heap, heap + heap_len, 0x3);
		uint32_t va = rp_stream_add_vma(s, arena, arena + arena_len, 0x3);
		uint32_t vs = rp_stream_add_vma(s, stack, stack + (8ULL << 20), 0x100173);
		uint64_t used = heap_len * (30 + ft_rand_below(seed, 70)) / 100, n;

		ev_dup(s, id, 1);
		/* the child writes a few inherited heap pages before exec replaces its mm */
		for (n = 0; n < 8; n++)
			ev_simple(s, FTDB_EV_COW, id, pv_heap + ft_rand_below(seed, 512) * RP_PAGE_SIZE);
		ev_zap(s, id, pv_heap, pv_heap + (8ULL << 20), FTDB_ZAP_EXIT, 0);
		/* the exec'd compiler: a new mm */
		id++;
		for (n = 0; n < 16; n++, faults++)
			ev_fault(s, id, vs, stack + (8ULL << 20) - (n + 1) * RP_PAGE_SIZE, 1);
		for (a = 0; a < used && faults < nr_faults; a += RP_PAGE_SIZE, faults++) {
			uint64_t x = a;

			if (ft_rand_below(seed, 16) == 0)	/* an occasional out-of-order touch */
				x = ft_rand_below(seed, used / RP_PAGE_SIZE) * RP_PAGE_SIZE;
			ev_fault(s, id, vh, heap + x, ft_rand_below(seed, 20) != 0);
			if (ft_rand_below(seed, 64) == 0)
				ev_simple(s, FTDB_EV_ZERO_WP, id, heap + x);
		}
		for (n = 0; n < arena_len / RP_PAGE_SIZE / 4 && faults < nr_faults; n++, faults++)
			ev_fault(s, id, va, arena + ft_rand_below(seed, arena_len / RP_PAGE_SIZE) *
				 RP_PAGE_SIZE, 1);
		ev_zap(s, id, arena, arena + arena_len, FTDB_ZAP_MUNMAP, 0);
		ev_zap(s, id, heap, heap + heap_len, FTDB_ZAP_EXIT, 0);
		ev_zap(s, id, stack, stack + (8ULL << 20), FTDB_ZAP_EXIT, 0);
		id++;
	}
}

/* ---- realloc ---- */

static void gen_realloc(struct rp_stream *s, size_t nr_faults)
{
	uint64_t at = 0x7f0000000000ULL, len = 64 * RP_PAGE_SIZE, a = 0;
	uint32_t v = rp_stream_add_vma(s, at, at + len, 0x3);
	size_t faults = 0;

	for (;;) {
		uint64_t to, grown;

		for (; a < len && faults < nr_faults; a += RP_PAGE_SIZE, faults++)
			ev_fault(s, 1, v, at + a, 1);
		if (faults == nr_faults)
			break;
		/* mremap(at, len, len * 3 / 2, MREMAP_MAYMOVE): moved 1G on, then extended */
		to = at + (1ULL << 30);
		grown = (len + len / 2) & ~(RP_PAGE_SIZE - 1);
		ev_zap(s, 1, at, at + len, FTDB_ZAP_MREMAP, to);
		v = rp_stream_add_vma(s, to, to + grown, 0x3);
		at = to;
		len = grown;
	}
	ev_zap(s, 1, at, at + len, FTDB_ZAP_EXIT, 0);
}

int rp_synth(const char *name, uint64_t seed, size_t nr_faults, struct rp_stream *out)
{
	uint64_t st = seed * 0x9e3779b97f4a7c15ULL + 1;

	memset(out, 0, sizeof(*out));
	if (!strcmp(name, "random"))
		gen_random(out, &st, nr_faults);
	else if (!strcmp(name, "seq"))
		gen_seq(out, &st, nr_faults);
	else if (!strcmp(name, "kbuild-like"))
		gen_kbuild(out, &st, nr_faults);
	else if (!strcmp(name, "realloc"))
		gen_realloc(out, nr_faults);
	else
		return fail("unknown synthetic stream '%s' (known: random, seq, kbuild-like, "
			    "realloc)", name);
	if (!out->nr_vmas)
		rp_stream_add_vma(out, 0, 0, 0);
	return 0;
}
