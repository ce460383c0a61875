// SPDX-License-Identifier: GPL-2.0
/*
 * measure.c - the guest replay measurement over a stream: the replay map's parser and the
 * walk of the guest trace's events; see measure.h.
 *
 * Peak RSS is rebuilt from the guest trace's faults and zaps with the accounting the
 * simulator uses (docs/metrics.md): a fault maps 2^order pages, the zero page is not RSS,
 * a fork copies the parent's pages into the child, MADV_FREE keeps pages mapped, a COW or
 * zero-page write of a page never seen mapped is counted, not mapped (nothing would ever
 * unmap it).
 *
 * Tuned for: guest traces of up to a few million events; the page model is one page set
 * (pageset.h) keyed by (guest process, page), a family's ranges a short array.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "lib/error.h"
#include "lib/xalloc.h"
#include "replay/measure.h"
#include "replay/pageset.h"

/* ---- the replay map ---- */

static const char *kv(const char *line, const char *key)
{
	const char *p = strstr(line, key);

	return p ? p + strlen(key) : NULL;
}

int rp_replay_map_parse(const char *text, struct rp_replay_map *m)
{
	const char *line = text;
	size_t i;

	while (line && *line) {
		const char *a, *b, *c, *d;
		uint64_t off;

		if (!strncmp(line, "FTREPLAY proc=", 14)) {
			a = kv(line, " proc=");
			b = kv(line, " proc_id=");
			c = kv(line, " pid=");
			d = kv(line, " parent=");
			if (!a || !b || !c || !d)
				return fail("bad replay_map line: %.80s", line);
			XGROW(m->p, m->cap_p, m->nr_p + 1);
			m->p[m->nr_p].index = (uint32_t)strtoul(a, NULL, 10);
			m->p[m->nr_p].proc_id = (uint32_t)strtoul(b, NULL, 10);
			m->p[m->nr_p].pid = strtoll(c, NULL, 10);
			m->p[m->nr_p].parent = (int32_t)strtol(d, NULL, 10);
			m->nr_p++;
		} else if (!strncmp(line, "FTREPLAY_CLUSTER ", 17)) {
			a = kv(line, " proc=");
			b = kv(line, " start=");
			c = kv(line, " end=");
			d = kv(line, " offset=");
			if (!a || !b || !c || !d)
				return fail("bad replay_map line: %.80s", line);
			XGROW(m->c, m->cap_c, m->nr_c + 1);
			m->c[m->nr_c].root = (uint32_t)strtoul(a, NULL, 10);
			off = (uint64_t)strtoll(d, NULL, 10);
			m->c[m->nr_c].start = strtoull(b, NULL, 16) + off;
			m->c[m->nr_c].end = strtoull(c, NULL, 16) + off;
			m->nr_c++;
		}
		line = strchr(line, '\n');
		if (line)
			line++;
	}
	/*
	 * roots: follow parents (parents precede their children in the file). Only the lines
	 * before are searched, whose roots are set: a parent listed later, as one not listed
	 * at all, leaves the process its own root.
	 */
	for (i = 0; i < m->nr_p; i++) {
		struct rp_replay_proc *p = &m->p[i];
		size_t k;

		p->root = p->index;
		for (k = 0; k < i && p->parent >= 0; k++) {
			if (m->p[k].index == (uint32_t)p->parent) {
				p->root = m->p[k].root;
				break;
			}
		}
	}
	return 0;
}

void rp_replay_map_release(struct rp_replay_map *m)
{
	free(m->p);
	free(m->c);
	memset(m, 0, sizeof(*m));
}

/* ---- walking the guest trace ---- */

#define PG_ZERO 1	/* page set value: maps the zero page */
#define PG_MEM 2	/* page set value: maps memory of its own (RSS) */

struct rp_measure {
	const struct rp_replay_map *m;
	int32_t *family;		/* guest proc_id -> family root index, -1 untracked */
	uint32_t nr_procs;
	unsigned int shift;		/* guest page shift */
	struct rp_pageset pg;		/* (guest proc_id, page) -> PG_ZERO or PG_MEM */
	struct rp_page_val *tmp;	/* rp_pageset_take() scratch */
	size_t tmp_cap;
	uint64_t rss, peak;		/* pages */
	uint64_t zeroed;		/* pages */
	struct rp_measured r;
};

uint64_t rp_latency_rank(const uint64_t *sorted, size_t n, double pct)
{
	size_t r = (size_t)ceil(pct / 100.0 * (double)n);

	return sorted[r ? r - 1 : 0];
}

uint64_t rp_latency_mean(const uint64_t *v, size_t n)
{
	unsigned __int128 sum = 0;
	size_t i;

	for (i = 0; i < n; i++)
		sum += v[i];
	return (uint64_t)((sum + n / 2) / n);
}

void rp_measured_release(struct rp_measured *r)
{
	unsigned int k;

	for (k = 0; k < RP_MEASURE_ORDERS; k++)
		free(r->lat[k].ns);
	memset(r, 0, sizeof(*r));
}

struct rp_measure *rp_measure_new(const struct rp_replay_map *m, const int32_t *family,
				  uint32_t nr_procs, unsigned int page_shift)
{
	struct rp_measure *w = xcalloc(1, sizeof(*w));

	w->m = m;
	w->nr_procs = nr_procs;
	w->family = xmalloc((nr_procs ? nr_procs : 1) * sizeof(*w->family));
	memcpy(w->family, family, nr_procs * sizeof(*w->family));
	w->shift = page_shift;
	return w;
}

static int in_family(const struct rp_measure *w, uint32_t root, uint64_t addr)
{
	size_t i;

	if (!w->m)
		return 1;
	for (i = 0; i < w->m->nr_c; i++)
		if (w->m->c[i].root == root && addr >= w->m->c[i].start && addr < w->m->c[i].end)
			return 1;
	return 0;
}

static void map_page(struct rp_measure *w, uint32_t proc, uint64_t page, uint32_t st)
{
	if (rp_pageset_get(&w->pg, rp_ps_key(proc, page)) == PG_MEM)
		return;
	if (st == PG_MEM && ++w->rss > w->peak)
		w->peak = w->rss;
	rp_pageset_set(&w->pg, rp_ps_key(proc, page), st);
}

static void unmap(struct rp_measure *w, uint32_t proc, uint64_t lo, uint64_t hi)
{
	size_t n = rp_pageset_take(&w->pg, proc, lo, hi, &w->tmp, &w->tmp_cap), i;

	for (i = 0; i < n; i++)
		if (w->tmp[i].val == PG_MEM)
			w->rss--;
}

/* Take pages [lo, hi) of proc out of the set: a copy the caller frees. */
static struct rp_page_val *take_copy(struct rp_measure *w, uint32_t proc, uint64_t lo,
				     uint64_t hi, size_t *n)
{
	struct rp_page_val *copy;

	*n = rp_pageset_take(&w->pg, proc, lo, hi, &w->tmp, &w->tmp_cap);
	copy = xmalloc((*n + 1) * sizeof(*copy));
	if (*n)	/* tmp is NULL until a take found something */
		memcpy(copy, w->tmp, *n * sizeof(*copy));
	return copy;
}

static void fault(struct rp_measure *w, const struct ftdb_event *ev, uint64_t page)
{
	uint64_t n = 1ULL << ev->order, lo = page & ~(n - 1), i;
	uint32_t st = ev->flags & FTDB_EVF_ZERO_PAGE ? PG_ZERO : PG_MEM;

	w->r.c.v[RP_M_FAULTS]++;
	w->r.c.v[RP_M_FAULT_TIME] += ev->aux;	/* latency_ns: the real fault time */
	if (ev->reason && ev->reason < FTDB_FB_NR)
		w->r.c.v[RP_M_FB_0 + ev->reason]++;
	if (!ev->nr_ptes)
		return;
	if (st == PG_MEM) {
		w->zeroed += n;
		if (ev->order <= RP_PMD_ORDER)
			w->r.c.v[RP_M_ALLOC_0 + ev->order]++;
		if (ev->order < RP_MEASURE_ORDERS) {
			struct rp_latencies *l = &w->r.lat[ev->order];

			XGROW(l->ns, l->cap, l->n + 1);
			l->ns[l->n++] = ev->aux;
			if (ev->reason == FTDB_FB_ALLOC_FAILED)
				w->r.fb_alloc_failed[ev->order]++;
		}
	}
	for (i = 0; i < n; i++)
		map_page(w, ev->proc_id, lo + i, st);
}

static void zap(struct rp_measure *w, const struct ftdb_event *ev, uint64_t page)
{
	uint64_t lo = page, hi = (ev->end + (1ULL << w->shift) - 1) >> w->shift;

	if (ev->reason == FTDB_ZAP_FREE)
		return;
	if (ev->reason == FTDB_ZAP_EXIT) {
		lo = 0;
		hi = RP_PS_ALL_PAGES;
	}
	if (ev->reason == FTDB_ZAP_MREMAP && ev->aux) {
		uint64_t dst = ev->aux >> w->shift;
		size_t k, nt;
		struct rp_page_val *moved = take_copy(w, ev->proc_id, lo, hi, &nt);

		unmap(w, ev->proc_id, dst, dst + (hi - lo));
		for (k = 0; k < nt; k++)
			rp_pageset_set(&w->pg, rp_ps_key(ev->proc_id, dst + moved[k].page - lo),
				       moved[k].val);
		free(moved);
		return;
	}
	unmap(w, ev->proc_id, lo, hi);
}

void rp_measure_feed(struct rp_measure *w, const struct ftdb_event *ev)
{
	uint64_t page = ev->addr >> w->shift;
	int32_t root;

	if (ev->proc_id >= w->nr_procs || (root = w->family[ev->proc_id]) < 0)
		return;
	switch (ev->kind) {
	case FTDB_EV_FAULT:
		if (in_family(w, (uint32_t)root, ev->addr))
			fault(w, ev, page);
		return;
	case FTDB_EV_ZERO_WP:
	case FTDB_EV_COW:
		if (!in_family(w, (uint32_t)root, ev->addr))
			return;
		w->r.c.v[RP_M_ALLOC_0]++;
		w->r.c.v[RP_M_FAULT_TIME] += ev->aux;
		if (ev->kind == FTDB_EV_COW) {
			w->r.c.v[RP_M_COW]++;
		} else {
			w->r.c.v[RP_M_FAULTS]++;
			w->r.c.v[RP_M_ZERO_WP]++;
			w->zeroed++;
		}
		if (rp_pageset_get(&w->pg, rp_ps_key(ev->proc_id, page)))
			map_page(w, ev->proc_id, page, PG_MEM);
		return;
	case FTDB_EV_ALLOC:
		if (!(ev->flags & FTDB_EVF_SUCCESS) && ev->order < RP_MEASURE_ORDERS &&
		    in_family(w, (uint32_t)root, ev->addr))
			w->r.alloc_failed[ev->order]++;
		return;
	case FTDB_EV_ZAP:
		zap(w, ev, page);
		return;
	case FTDB_EV_MM_DUP: {
		uint32_t parent = (uint32_t)ev->aux;
		struct rp_page_val *copy;
		size_t k, nt;

		if (parent >= w->nr_procs || w->family[parent] < 0)
			return;
		copy = take_copy(w, parent, 0, RP_PS_ALL_PAGES, &nt);
		for (k = 0; k < nt; k++) {
			rp_pageset_set(&w->pg, rp_ps_key(parent, copy[k].page), copy[k].val);
			map_page(w, ev->proc_id, copy[k].page, copy[k].val);
		}
		free(copy);
		return;
	}
	default:
		return;
	}
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

void rp_u64_sort(uint64_t *v, size_t n)
{
	if (n)
		qsort(v, n, sizeof(*v), cmp_u64);
}

void rp_measure_finish(struct rp_measure *w, struct rp_measured *out)
{
	unsigned int k;

	*out = w->r;
	out->c.v[RP_M_PEAK_RSS] = w->peak << w->shift;
	out->c.v[RP_M_ZEROED] = w->zeroed << w->shift;
	for (k = 0; k < RP_MEASURE_ORDERS; k++)
		rp_u64_sort(out->lat[k].ns, out->lat[k].n);
	rp_pageset_release(&w->pg);
	free(w->tmp);
	free(w->family);
	free(w);
}
