// SPDX-License-Identifier: GPL-2.0
/*
 * cost.c - the fault cost model: samples, the fit, cost_model rows, the prediction; see
 * cost.h and docs/cost-model.md. Sized for calibration sets of a few million faults: every
 * latency is kept (8 bytes a fault) so medians are exact.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "db/costs.h"
#include "db/ftdb.h"
#include "db/traces.h"
#include "lib/error.h"
#include "lib/xalloc.h"
#include "replay/cost.h"
#include "replay/measure.h"
#include "replay/pageset.h"
#include "replay/pcp-follow.h"

struct vec {
	uint64_t *v;		/* latency_ns */
	size_t n, cap;
};

/*
 * New-folio faults of one shape: a folio of bytes bytes mapped by ptes entries, and the
 * page tables each fault allocated (table 0, 1 or 2: follow_tables()).
 */
struct group {
	uint64_t bytes;
	uint32_t ptes;
	int table;
	struct vec lat;
};

struct rp_cost_samples {
	struct group *g;
	size_t nr_g, cap_g;
	struct vec fixed[RP_COST_NR];	/* ZERO (those that found a table), ZERO_WP, COW used */
	struct vec zero_table;		/* zero-page faults that allocated a page table */
	struct vec cow_large;		/* COWs of a page inside a large folio (follow_folios()) */
	int64_t traces;
	uint64_t page_size;		/* of the trace being added, bytes */
	/*
	 * the trace being added: its processes' 2M ranges with a page table (keys: 2M), and
	 * the 1G ranges they have touched (a PMD table each; keys: 1G, kept until exit)
	 */
	struct rp_pageset tables, uppers;
	/* the trace being added: the folio order of each present page, + 1 (keys: page) */
	struct rp_pageset folios;
	struct rp_page_val *tmp;	/* rp_pageset_take() scratch */
	size_t tmp_cap;
	/* the trace being added: its per-cpu lists, and its folios (pcp-follow.h) */
	struct rp_pcp pcp;
	struct rp_pcp_follow follow;
	/* refills of those lists, in all traces added, by the kind of allocation */
	uint64_t refills_new[RP_PCP_ORDERS];	/* new-folio faults, by order */
	uint64_t refills_cow;		/* anon_cow (fixed[COW] and cow_large) */
	uint64_t refills_zero_wp;	/* anon_zero_wp */
};

/* pages (PTEs) a page table maps: a 2M range with 4K pages; and a PMD table: 1G */
#define TABLE_SHIFT 9
#define UPPER_SHIFT 18

static const char *const coef_names[RP_COST_NR] = {
	"new_ns", "byte_ns", "pte_ns", "zero_ns", "zero_wp_ns", "cow_ns", "large_ns", "cold_ns",
	"table_ns", "cow_large_ns", "refill_ns", "refill_block_ns", "buddy_ns"
};

/*
 * The largest magnitude a stored coefficient may have: a fault costs less than a second,
 * zeroing a byte less than a millisecond; what a fit gives is orders of magnitude below.
 */
static const double coef_max[RP_COST_NR] = {
	[RP_COST_NEW] = 1e9, [RP_COST_BYTE] = 1e6, [RP_COST_PTE] = 1e9,
	[RP_COST_ZERO] = 1e9, [RP_COST_ZERO_WP] = 1e9, [RP_COST_COW] = 1e9,
	[RP_COST_LARGE] = 1e9, [RP_COST_COLD] = 1e9, [RP_COST_TABLE] = 1e9,
	[RP_COST_COW_LARGE] = 1e9, [RP_COST_REFILL] = 1e9, [RP_COST_REFILL_BLOCK] = 1e9,
	[RP_COST_BUDDY] = 1e9,
};

const char *rp_cost_coef_name(unsigned int c)
{
	return c < RP_COST_NR ? coef_names[c] : "?";
}

struct rp_cost_samples *rp_cost_samples_new(void)
{
	return xcalloc(1, sizeof(struct rp_cost_samples));
}

void rp_cost_samples_free(struct rp_cost_samples *s)
{
	size_t i;

	if (!s)
		return;
	for (i = 0; i < s->nr_g; i++)
		free(s->g[i].lat.v);
	for (i = 0; i < RP_COST_NR; i++)
		free(s->fixed[i].v);
	free(s->zero_table.v);
	free(s->cow_large.v);
	rp_pageset_release(&s->tables);
	rp_pageset_release(&s->uppers);
	rp_pageset_release(&s->folios);
	rp_pcp_follow_release(&s->follow);
	free(s->tmp);
	free(s->g);
	free(s);
}

static void vec_add(struct vec *v, uint64_t x)
{
	XGROW(v->v, v->cap, v->n + 1);
	v->v[v->n++] = x;
}

/* Append every value of from to v. */
static void vec_cat(struct vec *v, const struct vec *from)
{
	size_t i;

	for (i = 0; i < from->n; i++)
		vec_add(v, from->v[i]);
}

int rp_cost_trace_key(sqlite3 *db, int64_t trace_id, struct rp_cost_key *key)
{
	struct ftdb_trace t;
	char *accel = NULL;
	int ret = -1;

	if (ftdb_trace_get(db, trace_id, &t))
		return -1;
	if (ftdb_trace_meta(db, trace_id, "accel", &accel))
		goto out;
	if (!*t.clocksource) {
		fail("trace %lld does not record its clocksource: its latencies may not be ns",
		     (long long)trace_id);
		goto out;
	}
	if (!strcmp(t.clocksource, "jiffies") || !strcmp(t.clocksource, "refined-jiffies")) {
		fail("trace %lld was recorded on the %s clocksource: its latencies are ticks, "
		     "not ns", (long long)trace_id, t.clocksource);
		goto out;
	}
	if (!*t.arch || !*t.kernel) {
		fail("trace %lld does not record its arch and kernel", (long long)trace_id);
		goto out;
	}
	snprintf(key->arch, sizeof(key->arch), "%s", t.arch);
	snprintf(key->kernel, sizeof(key->kernel), "%s", t.kernel);
	snprintf(key->accel, sizeof(key->accel), "%s", accel ? accel : "unknown");
	/* a trace recorded before the clock was: its accelerator's clock (schema 7) */
	snprintf(key->clock, sizeof(key->clock), "%s",
		 *t.clock ? t.clock : accel ? accel : "unknown");
	ret = 0;
out:
	free(accel);
	ftdb_trace_release(&t);
	return ret;
}

/* A fork (ev an MM_DUP): the child gets the parent's keys of set. */
static void fork_copy(struct rp_cost_samples *s, struct rp_pageset *set,
		      const struct ftdb_event *ev)
{
	if (ev->proc_id != (uint32_t)ev->aux)
		rp_pageset_copy_proc(set, ev->proc_id, (uint32_t)ev->aux, &s->tmp, &s->tmp_cap);
}

/* Remove ev's process's keys of set in [lo, hi). */
static void drop(struct rp_cost_samples *s, struct rp_pageset *set,
		 const struct ftdb_event *ev, uint64_t lo, uint64_t hi)
{
	if (lo < hi)
		(void)rp_pageset_take(set, ev->proc_id, lo, hi, &s->tmp, &s->tmp_cap);
}

/*
 * The page tables of the trace being added, from its events in order: for a fault, the
 * tables it allocated: 0, 1 (its 2M range's PTE table) or 2 (that and the PMD table of its
 * 1G range: the process's first fault there). A munmap, mremap or exit frees the PTE
 * tables of the 2M ranges it covers whole (of all, at exit; the PMD tables only at exit);
 * a fork gives the child the parent's. MADV_DONTNEED keeps them. Close to the engines'
 * rule (a table goes when such a zap leaves its range without a page: replay/sim.c), the
 * same on a calibration workload.
 */
static int follow_tables(struct rp_cost_samples *s, const struct ftdb_event *ev)
{
	uint64_t key, lo, hi, page = ev->addr / s->page_size;
	int n;

	switch (ev->kind) {
	case FTDB_EV_FAULT:
		key = rp_ps_key(ev->proc_id, page >> TABLE_SHIFT);
		if (rp_pageset_get(&s->tables, key))
			return 0;
		rp_pageset_add(&s->tables, key, 1);
		n = 1;
		key = rp_ps_key(ev->proc_id, page >> UPPER_SHIFT);
		if (!rp_pageset_get(&s->uppers, key)) {
			rp_pageset_add(&s->uppers, key, 1);
			n = 2;
		}
		return n;
	case FTDB_EV_MM_DUP:
		fork_copy(s, &s->tables, ev);
		fork_copy(s, &s->uppers, ev);
		return 0;
	case FTDB_EV_ZAP:
		if (ev->reason == FTDB_ZAP_EXIT) {
			lo = 0;
			hi = RP_PS_ALL_PAGES;
			drop(s, &s->uppers, ev, lo, hi);
		} else if (ev->reason == FTDB_ZAP_MUNMAP || ev->reason == FTDB_ZAP_MREMAP) {
			lo = ((ev->addr / s->page_size) + (1U << TABLE_SHIFT) - 1) >> TABLE_SHIFT;
			hi = ev->end / s->page_size >> TABLE_SHIFT;
		} else {
			return 0;
		}
		drop(s, &s->tables, ev, lo, hi);
		return 0;
	default:
		return 0;
	}
}

/*
 * The folio of each present page of the trace being added, from its events in order: a
 * new-folio fault of order k maps the naturally aligned 2^k pages around its address (a
 * PMD-mapped THP too; the zero page is no folio of the process); a COW or zero_wp fault
 * maps a 4K copy; a munmap, MADV_DONTNEED, mremap or exit zap removes the pages it covers
 * (mremap's moved pages lose their label); a fork gives the child the parent's. The
 * engines keep the same order per page (replay/sim.c, replay/oracle.c: cow_copy()).
 * Return: for a COW, 1 if its page was inside a large folio (order 2 and up, as large_ns
 * counts them), else 0.
 */
static int follow_folios(struct rp_cost_samples *s, const struct ftdb_event *ev)
{
	uint64_t page = ev->addr / s->page_size, n, i, lo, hi;
	uint32_t was;

	switch (ev->kind) {
	case FTDB_EV_FAULT:
		if (ev->flags & FTDB_EVF_ZERO_PAGE || ev->order > RP_PMD_ORDER)
			return 0;
		n = 1ULL << ev->order;
		for (i = 0; i < n; i++)
			rp_pageset_set(&s->folios, rp_ps_key(ev->proc_id, (page & ~(n - 1)) + i),
				       ev->order + 1);
		return 0;
	case FTDB_EV_COW:
	case FTDB_EV_ZERO_WP:
		was = rp_pageset_get(&s->folios, rp_ps_key(ev->proc_id, page));
		rp_pageset_set(&s->folios, rp_ps_key(ev->proc_id, page), 1);
		return ev->kind == FTDB_EV_COW && was >= 2 + 1;	/* stored order + 1 */
	case FTDB_EV_MM_DUP:
		fork_copy(s, &s->folios, ev);
		return 0;
	case FTDB_EV_ZAP:
		if (ev->reason == FTDB_ZAP_EXIT) {
			lo = 0;
			hi = RP_PS_ALL_PAGES;
		} else if (ev->reason == FTDB_ZAP_MUNMAP || ev->reason == FTDB_ZAP_MREMAP ||
			   ev->reason == FTDB_ZAP_DONTNEED) {
			lo = page;
			hi = (ev->end + s->page_size - 1) / s->page_size;
		} else {
			return 0;
		}
		drop(s, &s->folios, ev, lo, hi);
		return 0;
	default:
		return 0;
	}
}

static int add_event(const struct ftdb_event *ev, void *arg)
{
	struct rp_cost_samples *s = arg;
	struct group *g;
	uint64_t bytes;
	size_t i;
	int table = follow_tables(s, ev), large = follow_folios(s, ev);
	struct rp_pcp_ops ops;
	int refill;

	rp_pcp_follow_event(&s->follow, ev, &ops);
	refill = rp_pcp_apply(&s->pcp, &ops) != 0;

	if (ev->kind == FTDB_EV_COW) {
		vec_add(large ? &s->cow_large : &s->fixed[RP_COST_COW], ev->aux);
		s->refills_cow += (uint64_t)refill;
		return 0;
	}
	if (ev->kind == FTDB_EV_ZERO_WP) {
		vec_add(&s->fixed[RP_COST_ZERO_WP], ev->aux);
		s->refills_zero_wp += (uint64_t)refill;
		return 0;
	}
	if (ev->kind != FTDB_EV_FAULT)
		return 0;
	if (refill)	/* only a fault of order < RP_PCP_ORDERS refills */
		s->refills_new[ev->order]++;
	if (ev->flags & FTDB_EVF_ZERO_PAGE) {
		/* one that also allocated a PMD table (2) is no sample of either */
		if (table < 2)
			vec_add(table ? &s->zero_table : &s->fixed[RP_COST_ZERO], ev->aux);
		return 0;
	}
	bytes = s->page_size << ev->order;
	for (i = 0; i < s->nr_g; i++)
		if (s->g[i].bytes == bytes && s->g[i].ptes == ev->nr_ptes &&
		    s->g[i].table == table)
			break;
	if (i == s->nr_g) {
		XGROW(s->g, s->cap_g, s->nr_g + 1);
		g = &s->g[s->nr_g++];
		memset(g, 0, sizeof(*g));
		g->bytes = bytes;
		g->ptes = ev->nr_ptes;
		g->table = table;
	}
	vec_add(&s->g[i].lat, ev->aux);
	return 0;
}

int rp_cost_samples_add(struct rp_cost_samples *s, sqlite3 *db, int64_t trace_id)
{
	struct ftdb_trace t;

	if (ftdb_trace_get(db, trace_id, &t))
		return -1;
	s->page_size = t.page_size > 0 ? (uint64_t)t.page_size : 4096;
	ftdb_trace_release(&t);
	rp_pageset_release(&s->tables);		/* each trace's processes are its own */
	rp_pageset_release(&s->uppers);
	rp_pageset_release(&s->folios);
	rp_pcp_follow_init(&s->follow, s->page_size);
	memset(&s->pcp, 0, sizeof(s->pcp));
	if (ftdb_stream_foreach(db, trace_id, add_event, s))
		return fail("trace %lld", (long long)trace_id);
	s->traces++;
	return 0;
}

/* Median of v (sorted in place): the mean of the two middle values for an even count. */
static double median(struct vec *v)
{
	rp_u64_sort(v->v, v->n);
	if (v->n % 2)
		return (double)v->v[v->n / 2];
	return ((double)v->v[v->n / 2 - 1] + (double)v->v[v->n / 2]) / 2;
}

/* Mean of v, for a clock whose latencies repeat (icount): its sum is what is predicted. */
static double mean(const struct vec *v)
{
	double sum = 0;
	size_t i;

	for (i = 0; i < v->n; i++)
		sum += (double)v->v[i];
	return v->n ? sum / (double)v->n : 0;
}

/*
 * The statistic a group of latencies is fitted by (docs/cost-model.md, "The fit"): under
 * icount the mean, since every latency is the handler's own instructions (the slow tenth
 * of faults are the kernel's periodic work: LRU batch drains, per-cpu list refills) and a
 * run's sum is what the model predicts; on a host clock the median, since there the slow
 * tail is the host's (TCG stalls) and no model of the mapped work predicts it.
 */
static double typical(struct vec *v, const struct rp_cost_key *key)
{
	return !strcmp(key->clock, "icount") ? mean(v) : median(v);
}

/*
 * What a refill costs an allocation, from the latencies v of one kind (sorted in place),
 * r of which refilled their per-cpu list (rp_pcp_follow_event(): how many, not which:
 * the lists' counts when a trace starts are not recorded): the mean of the r largest less
 * the mean of the others. Under icount a refill is the largest thing a fault of order 0-3
 * does (rmqueue_bulk() of 63 pages: about 10,400 instructions on x86_64; of 15 order-2
 * blocks about 3,200), above a page table (about 1,250) and the LRU batch's drain (about
 * 2,700, order 0), so the r largest are the refills.
 * 0 when r or the others are under RP_COST_MIN_SAMPLES, or the difference is not positive.
 */
static double fit_refill(struct vec *v, uint64_t r)
{
	double top = 0, rest = 0, d;
	size_t i;

	if (r < RP_COST_MIN_SAMPLES || r >= v->n || v->n - r < RP_COST_MIN_SAMPLES)
		return 0;
	rp_u64_sort(v->v, v->n);
	for (i = 0; i < v->n - r; i++)
		rest += (double)v->v[i];
	for (; i < v->n; i++)
		top += (double)v->v[i];
	d = top / (double)r - rest / (double)(v->n - r);
	return d > 0 ? d : 0;
}

/* A group of new folios of order k mapped by their own PTEs (2^k pages, 2^k PTEs). */
static int is_order_shape(const struct group *g, uint64_t page_size, unsigned int k)
{
	return g->bytes == page_size << k && g->ptes == 1U << k;
}

/*
 * refill_ns and refill_block_ns (fixed and per block): the line through the cost of a
 * refill (fit_refill()) of each order whose new-folio shape (2^k pages, 2^k PTEs) has
 * enough refills and enough faults without, against the blocks it takes
 * (rp_pcp_batch()): least squares through two orders or more (x86_64's calibration: 4K
 * and 16K, 63 and 15 blocks), through the origin with one. The line is kept only with
 * both terms not negative and one positive. Return: 1 if fitted.
 */
static int fit_refill_line(struct rp_cost_samples *s, struct vec *shape, double *fixed,
			   double *block)
{
	double sx = 0, sy = 0, sxx = 0, sxy = 0, m = 0, x, y, d;
	unsigned int k;
	size_t i;

	for (k = 0; k < RP_PCP_ORDERS; k++) {
		for (i = 0; i < s->nr_g; i++)	/* the shape's first group holds its samples */
			if (is_order_shape(&s->g[i], s->page_size, k) &&
			    shape[i].n >= RP_COST_MIN_SAMPLES)
				break;
		if (i == s->nr_g)
			continue;
		y = fit_refill(&shape[i], s->refills_new[k]);
		if (!(y > 0))
			continue;
		x = rp_pcp_batch(k);
		sx += x, sy += y, sxx += x * x, sxy += x * y, m++;
	}
	if (!m)
		return 0;
	*fixed = 0;
	*block = sxy / sxx;
	d = m * sxx - sx * sx;
	if (m >= 2 && d > 0) {
		double b = (m * sxy - sx * sy) / d, f = (sy - b * sx) / m;

		if (b > 0 && f >= 0) {
			*fixed = f;
			*block = b;
		}
	}
	return *block > 0;
}

/* What the line of fit_refill_line() prices a refill of order's list at, ns. */
static double refill_cost(const struct rp_cost *m, unsigned int order)
{
	return m->c[RP_COST_REFILL] + m->c[RP_COST_REFILL_BLOCK] * rp_pcp_batch(order);
}

/*
 * How many of the r largest latencies of the nv vectors v together (the allocations of
 * one kind that refilled the list, fit_refill()) fall in each, into in[j]; ties at the
 * r-th go to the first vectors. Each vector's mean less refill_ns times its share is its
 * kind's cost without the refills, which the prediction prices apart, each once: the sum
 * is kept (a sample taken for a refill that was none, below refill_ns, is not clamped).
 */
static void top_counts(struct vec *const *v, size_t nv, uint64_t r, size_t *in)
{
	struct vec all = { 0 };
	uint64_t thr;
	size_t i, j, at_thr;

	for (j = 0; j < nv; j++) {
		in[j] = 0;
		vec_cat(&all, v[j]);
	}
	if (r > all.n)
		r = all.n;
	if (!r) {
		free(all.v);
		return;
	}
	rp_u64_sort(all.v, all.n);
	thr = all.v[all.n - r];
	/* of the r, those equal to the threshold (the others are above it) */
	for (at_thr = 0, i = all.n - r; i < all.n && all.v[i] == thr; i++)
		at_thr++;
	for (j = 0; j < nv; j++) {
		for (i = 0; i < v[j]->n; i++) {
			if (v[j]->v[i] > thr) {
				in[j]++;
			} else if (v[j]->v[i] == thr && at_thr) {
				in[j]++;
				at_thr--;
			}
		}
	}
	free(all.v);
}

void rp_cost_normal_add(double a[RP_COST_SOLVE_MAX][RP_COST_SOLVE_MAX],
			double b[RP_COST_SOLVE_MAX], const double *row, unsigned int n, double w,
			double y)
{
	unsigned int j, k;

	for (j = 0; j < n; j++) {
		for (k = 0; k < n; k++)
			a[j][k] += w * row[j] * row[k];
		b[j] += w * row[j] * y;
	}
}

/* Solve the n x n system a x = b by Gaussian elimination. Return: 0, -1 singular. */
int rp_cost_solve(double a[RP_COST_SOLVE_MAX][RP_COST_SOLVE_MAX], double b[RP_COST_SOLVE_MAX],
		  unsigned int n, double x[RP_COST_SOLVE_MAX])
{
	unsigned int i, j, k, p;
	double t, scale = 0;

	for (i = 0; i < n; i++)
		for (j = 0; j < n; j++)
			scale = fmax(scale, fabs(a[i][j]));
	for (i = 0; i < n; i++) {
		for (p = i, j = i + 1; j < n; j++)
			if (fabs(a[j][i]) > fabs(a[p][i]))
				p = j;
		if (fabs(a[p][i]) <= 1e-12 * scale)
			return -1;
		for (k = 0; k < n; k++) {
			t = a[i][k], a[i][k] = a[p][k], a[p][k] = t;
		}
		t = b[i], b[i] = b[p], b[p] = t;
		for (j = i + 1; j < n; j++) {
			t = a[j][i] / a[i][i];
			for (k = i; k < n; k++)
				a[j][k] -= t * a[i][k];
			b[j] -= t * b[i];
		}
	}
	for (i = n; i-- > 0;) {
		for (t = b[i], k = i + 1; k < n; k++)
			t -= a[i][k] * x[k];
		x[i] = t / a[i][i];
	}
	return 0;
}

/* A group of large folios: more than two pages (order 1 is split into two 4K folios). */
static int is_large(const struct group *g, uint64_t page_size)
{
	return g->bytes > 2 * page_size;
}

/*
 * A group of folios the buddy allocator hands out at their fault: of an order no per-cpu
 * list has (replay/pcp.h: orders 0-3 and the PMD order have one), 64K to 1M.
 */
static int is_buddy(const struct group *g, uint64_t page_size)
{
	return g->bytes >= page_size << RP_PCP_ORDERS && g->bytes < page_size << RP_PMD_ORDER;
}

/*
 * table_ns: for each shape (bytes, PTEs) with RP_COST_MIN_SAMPLES faults that allocated a
 * PTE table (table 1) and as many that found one (table 0), the median latency of the
 * former less that of the latter, on every clock: a table is the same work each time, and
 * the mean of a few dozen faults follows a timer interrupt inside one of them (on arm64's
 * icount calibration the means gave 759 to 969 from run to run, the medians 768 and 768
 * at 4K and 16K, what sparse's own faults show: bench/table-cost.sh); their mean
 * weighted by the former's records. The faults
 * that also allocated the PMD table of their 1G range (table 2: a process's first there,
 * mostly at its start, which also pay for the upper levels' walk) are left out of it.
 * 0 when no shape has both, or when the difference is not positive (noise the model cannot
 * use: the term is left out).
 */
static double fit_table(struct rp_cost_samples *s)
{
	double sum = 0, n = 0;
	size_t i, k;

	for (i = 0; i < s->nr_g; i++) {
		struct group *g = &s->g[i];

		if (g->table != 1 || g->lat.n < RP_COST_MIN_SAMPLES)
			continue;
		for (k = 0; k < s->nr_g; k++) {
			struct group *h = &s->g[k];

			if (h->table || h->bytes != g->bytes || h->ptes != g->ptes ||
			    h->lat.n < RP_COST_MIN_SAMPLES)
				continue;
			sum += (double)g->lat.n * (median(&g->lat) - median(&h->lat));
			n += (double)g->lat.n;
		}
	}
	return n > 0 && sum > 0 ? sum / n : 0;
}

/*
 * The latencies of shape i's first group (the lowest index of its bytes and PTEs, 1 if
 * it is, 0 if another group of the shape comes first) into v: every group of the shape,
 * each latency less table_ns for each page table its fault allocated (0, 1 or 2).
 */
static int shape_samples(const struct rp_cost_samples *s, size_t i, double table, struct vec *v)
{
	const struct group *g = &s->g[i];
	size_t k, j;

	for (k = 0; k < i; k++)
		if (s->g[k].bytes == g->bytes && s->g[k].ptes == g->ptes)
			return 0;
	for (k = i; k < s->nr_g; k++) {
		const struct group *h = &s->g[k];
		double less = table * h->table;

		if (h->bytes != g->bytes || h->ptes != g->ptes)
			continue;
		for (j = 0; j < h->lat.n; j++)
			vec_add(v, (double)h->lat.v[j] > less ?
				   (uint64_t)llround((double)h->lat.v[j] - less) : 0);
	}
	return 1;
}

/*
 * Weighted least squares over the typical latencies (typical(): medians, or means under
 * icount) of the new-folio shapes (bytes, PTEs) with enough records, each record's latency
 * less table_ns for each page table its fault allocated (fit_table(), first): typical ~
 * new + byte * bytes [+ pte * ptes] [+ large if a large folio], each shape weighted by
 * records / typical^2, so a shape counts by its size and by its relative (not absolute)
 * error: the 2M faults, three orders of magnitude slower, do not decide the 4K cost.
 * pte is fitted when enough records map a number of PTEs other than their pages (PMD
 * maps); large when there are 4K records and large folios of two sizes (else it cannot be
 * told from new and byte); buddy when a shape is of a buddy order (is_buddy()) and there
 * are as many shapes as unknowns with it (x86_64's calibration: 4K, 16K, 32K, 64K and a
 * PMD-mapped 2M; without 32K, 64K's buddy cannot be told from the cost per page), and the
 * fit gives it a positive cost (else it is fitted without). Unknowns in order: new, byte,
 * [pte], [large], [buddy].
 */
static int solve_new(struct rp_cost_samples *s, struct vec *shape, struct rp_cost *out,
		     const unsigned int *col, unsigned int n, double *x, int64_t *used)
{
	double a[RP_COST_SOLVE_MAX][RP_COST_SOLVE_MAX] = { { 0 } }, b[RP_COST_SOLVE_MAX] = { 0 };
	double row[RP_COST_SOLVE_MAX], med;
	unsigned int j, k;
	size_t i;

	*used = 0;
	for (i = 0; i < s->nr_g; i++) {
		struct group *g = &s->g[i];

		if (shape[i].n < RP_COST_MIN_SAMPLES)
			continue;
		med = typical(&shape[i], &out->key);
		for (k = 0; k < RP_PCP_ORDERS && out->has[RP_COST_REFILL]; k++)
			/* its refills out, priced apart: the r of order k are in its
			 * shape, each at the line's price (the sum is kept) */
			if (is_order_shape(g, s->page_size, k) &&
			    s->refills_new[k] <= shape[i].n)
				med -= refill_cost(out, k) * (double)s->refills_new[k] /
				       (double)shape[i].n;
		if (med < 1)
			med = 1;
		for (j = 0; j < n; j++)
			row[j] = col[j] == RP_COST_NEW ? 1 :
				 col[j] == RP_COST_BYTE ? (double)g->bytes :
				 col[j] == RP_COST_PTE ? (double)g->ptes :
				 col[j] == RP_COST_LARGE ? is_large(g, s->page_size) :
				 is_buddy(g, s->page_size);
		rp_cost_normal_add(a, b, row, n, (double)shape[i].n / (med * med), med);
		*used += (int64_t)shape[i].n;
	}
	return rp_cost_solve(a, b, n, x);
}

static int fit_new(struct rp_cost_samples *s, struct rp_cost *out)
{
	double x[RP_COST_SOLVE_MAX] = { 0 };
	double table = fit_table(s);
	uint64_t size0 = 0, large0 = 0;
	struct vec *shape = xcalloc(s->nr_g ? s->nr_g : 1, sizeof(*shape));
	size_t i;
	unsigned int n = 2, j, sizes = 0, large_sizes = 0, shapes = 0, col[RP_COST_SOLVE_MAX];
	int64_t used = 0, split = 0, small = 0, buddy = 0;
	int ret = -1, solved;

	for (i = 0; i < s->nr_g; i++) {
		struct group *g = &s->g[i];

		if (!shape_samples(s, i, table, &shape[i]) ||
		    shape[i].n < RP_COST_MIN_SAMPLES)
			continue;
		shapes++;
		if (is_buddy(g, s->page_size))
			buddy += (int64_t)shape[i].n;
		if (!sizes || (g->bytes != size0 && sizes == 1))
			sizes++;
		if (sizes == 1)
			size0 = g->bytes;
		if ((uint64_t)g->ptes * s->page_size != g->bytes)
			split += (int64_t)shape[i].n;
		if (!is_large(g, s->page_size)) {
			small += (int64_t)shape[i].n;
		} else if (!large_sizes) {
			large_sizes = 1;
			large0 = g->bytes;
		} else if (g->bytes != large0) {
			large_sizes = 2;
		}
	}
	if (sizes < 2) {
		fail("too few samples: the per-byte cost needs %d new-folio faults of each of two "
		     "folio sizes (record under order0 and mcpage:2, say)", RP_COST_MIN_SAMPLES);
		goto out;
	}
	/*
	 * refill_ns and refill_block_ns, on the icount clock only: on the others the typical
	 * latency is a median, which the refills (1 fault in 15 at most) do not move, and the
	 * slow tail they are in is the host's; there they are priced by no term
	 */
	if (!strcmp(out->key.clock, "icount") &&
	    fit_refill_line(s, shape, &out->c[RP_COST_REFILL], &out->c[RP_COST_REFILL_BLOCK]))
		out->has[RP_COST_REFILL] = out->has[RP_COST_REFILL_BLOCK] = 1;
	col[0] = RP_COST_NEW;
	col[1] = RP_COST_BYTE;
	if (split >= RP_COST_MIN_SAMPLES)
		col[n++] = RP_COST_PTE;
	if (small >= RP_COST_MIN_SAMPLES && large_sizes >= 2)
		col[n++] = RP_COST_LARGE;
	solved = -1;
	if (buddy >= RP_COST_MIN_SAMPLES && n < shapes && col[n - 1] == RP_COST_LARGE) {
		col[n] = RP_COST_BUDDY;
		solved = solve_new(s, shape, out, col, n + 1, x, &used);
		if (!solved && x[n] > 0)
			n++;
		else
			solved = -1;
	}
	if (solved)
		solved = solve_new(s, shape, out, col, n, x, &used);
	if (solved) {
		fail("cannot fit the new-folio costs: the groups do not separate them");
		goto out;
	}
	for (j = 0; j < n; j++) {
		out->c[col[j]] = x[j];
		out->has[col[j]] = 1;
	}
	for (j = 0; j < n; j++) {
		if (!(x[j] > 0)) {
			fail("the fit gives a %s %s of %.3g: these latencies do not follow the model",
			     j == 0 ? "fixed cost" : "cost", rp_cost_coef_name(col[j]), x[j]);
			goto out;
		}
	}
	if (table > 0) {
		out->c[RP_COST_TABLE] = table;
		out->has[RP_COST_TABLE] = 1;
	}
	out->samples += used;
	ret = 0;
out:
	for (i = 0; i < s->nr_g; i++)
		free(shape[i].v);
	free(shape);
	return ret;
}

/* The mean of v less an order-0 refill's price for each of n_refills of its records. */
static double typical_less(struct vec *v, const struct rp_cost *m, size_t n_refills)
{
	return typical(v, &m->key) - refill_cost(m, 0) * (double)n_refills / (double)v->n;
}

int rp_cost_fit(const struct rp_cost_samples *cs, struct rp_cost *out)
{
	struct rp_cost_samples *s = (struct rp_cost_samples *)cs;	/* medians sort */
	const uint64_t refills[RP_COST_NR] = {
		[RP_COST_ZERO_WP] = s->refills_zero_wp, [RP_COST_COW] = s->refills_cow,
	};
	unsigned int k;

	memset(out->c, 0, sizeof(out->c));
	memset(out->has, 0, sizeof(out->has));
	out->samples = 0;
	out->traces = s->traces;
	if (fit_new(s, out))
		return -1;
	for (k = RP_COST_ZERO; k <= RP_COST_COW; k++) {
		struct vec all = { 0 }, *v = &s->fixed[k];
		struct vec *const both[] = { v, &s->cow_large };
		/* a COW of a large folio's page is a sample of cow_large_ns when both kinds
		 * have enough; else of cow_ns, as before that term */
		int split = k == RP_COST_COW && v->n >= RP_COST_MIN_SAMPLES &&
			    s->cow_large.n >= RP_COST_MIN_SAMPLES;
		/* the records that refilled the per-cpu list, priced by refill_ns (0 without
		 * it); a COW's copy is 4K either way, so they fall among both kinds of COW */
		size_t in[2] = { 0, 0 };

		if (out->has[RP_COST_REFILL])
			top_counts(both, k == RP_COST_COW ? 2 : 1, refills[k], in);
		/* without table_ns a zero-page fault's table is part of zero_ns: all count */
		if (k == RP_COST_ZERO && !out->has[RP_COST_TABLE] && s->zero_table.n) {
			vec_cat(&all, v);
			vec_cat(&all, &s->zero_table);
			v = &all;
		} else if (k == RP_COST_COW && !split && s->cow_large.n) {
			vec_cat(&all, v);
			vec_cat(&all, &s->cow_large);
			v = &all;
		}
		if (v->n >= RP_COST_MIN_SAMPLES) {
			out->c[k] = typical_less(v, out, split ? in[0] : in[0] + in[1]);
			out->has[k] = 1;
			out->samples += (int64_t)v->n;
		}
		free(all.v);
		if (split) {
			out->c[RP_COST_COW_LARGE] = typical_less(&s->cow_large, out, in[1]) -
						    out->c[k];
			out->has[RP_COST_COW_LARGE] = 1;
			out->samples += (int64_t)s->cow_large.n;
		}
	}
	return 0;
}

/* m's key as a cost_model row's (its coefficients not copied). */
static struct ftdb_cost_row row_of(const struct rp_cost *m)
{
	struct ftdb_cost_row r = {
		.arch = m->key.arch, .kernel = m->key.kernel, .accel = m->key.accel,
		.clock = m->key.clock,
	};

	return r;
}

int rp_cost_store(sqlite3 *db, const struct rp_cost *m)
{
	struct ftdb_cost_row r = row_of(m);
	unsigned int k;

	for (k = 0; k < RP_COST_NR; k++) {
		r.c[k] = m->c[k];
		r.has[k] = m->has[k];
	}
	r.samples = m->samples;
	r.traces = m->traces;
	return ftdb_cost_store(db, &r);
}

int rp_cost_get(sqlite3 *db, struct rp_cost *m)
{
	struct ftdb_cost_row r = row_of(m);
	unsigned int k;
	int rc;

	rc = ftdb_cost_get(db, &r);
	if (rc <= 0)
		return rc;
	for (k = 0; k < RP_COST_NR; k++) {
		m->has[k] = r.has[k];
		m->c[k] = r.c[k];
	}
	m->samples = r.samples;
	m->traces = r.traces;
	/* a row edited or damaged: inf or 1e300 would predict 2^63 ns (UB in the cast) */
	for (k = 0; k < RP_COST_NR; k++)
		if (m->has[k] && !(fabs(m->c[k]) <= coef_max[k]))
			return fail("cost_model row %s %s %s %s: %s is %g, not a cost "
				    "within +-%g %s", m->key.arch, m->key.kernel,
				    m->key.accel, m->key.clock, rp_cost_coef_name(k),
				    m->c[k], coef_max[k],
				    k == RP_COST_BYTE ? "ns per byte" : "ns");
	return 1;
}

int rp_cost_lookup(sqlite3 *db, int64_t trace_id, struct rp_cost *m)
{
	char other[sizeof(m->key.clock)];
	struct ftdb_cost_row r;
	int rc;

	memset(m, 0, sizeof(*m));
	if (rp_cost_trace_key(db, trace_id, &m->key)) {
		error_clear();
		return 0;	/* a trace a model cannot apply to has none */
	}
	rc = rp_cost_get(db, m);
	if (rc)
		return rc;
	r = row_of(m);
	rc = ftdb_cost_other_clock(db, &r, other, sizeof(other));
	if (rc < 0)
		return -1;
	if (rc)
		return fail("the cost model of %s %s %s was fitted on the %s clock, trace %lld was "
			     "recorded on the %s clock: calibrate on %s recordings",
			     m->key.arch, m->key.kernel, m->key.accel, other, (long long)trace_id,
			     m->key.clock, m->key.clock);
	return 0;
}

int64_t rp_cost_predict(const struct rp_cost *m, const struct rp_counters *c)
{
	const uint64_t *v = c->v;
	double new4k = m->c[RP_COST_NEW] + m->c[RP_COST_BYTE] * RP_PAGE_SIZE + m->c[RP_COST_PTE];
	double zero = m->has[RP_COST_ZERO] ? m->c[RP_COST_ZERO] : new4k;
	double zwp = m->has[RP_COST_ZERO_WP] ? m->c[RP_COST_ZERO_WP] : new4k;
	double cow = m->has[RP_COST_COW] ? m->c[RP_COST_COW] : new4k;
	double nzero = (double)(v[RP_M_ZERO_MAPS] + v[RP_M_HUGE_ZERO_MAPS]);
	/* faults counts zero-page maps and zero_wp; zeroed_bytes and pte_writes count zero_wp's
	 * 4K page, pte_writes one entry per zero map and cow (replay/sim.c) */
	double nnew = (double)v[RP_M_FAULTS] - nzero - (double)v[RP_M_ZERO_WP];
	double bytes = (double)v[RP_M_ZEROED] - (double)v[RP_M_ZERO_WP] * RP_PAGE_SIZE;
	double ptes = (double)v[RP_M_PTE_WRITES] - nzero - (double)v[RP_M_ZERO_WP] -
		      (double)v[RP_M_COW];
	double nlarge = 0, nbuddy = 0, t;
	unsigned int k;

	/* new-folio faults of large folios: blocks of order 2 and up (order 1 is two 4K
	 * folios); of those, the ones the buddy allocator gave at the fault (no per-cpu list) */
	for (k = 2; k <= RP_PMD_ORDER; k++) {
		nlarge += (double)v[RP_M_ALLOC_0 + k];
		if (k >= RP_PCP_ORDERS && k < RP_PMD_ORDER)
			nbuddy += (double)v[RP_M_ALLOC_0 + k];
	}
	/* c[] is 0 where !has: a model without cold_ns (every guest one) prices none cold,
	 * one without large_ns no large folio more, one without table_ns no page table, one
	 * without cow_large_ns every COW alike, one without refill_ns and refill_block_ns no
	 * per-cpu list refill, one without buddy_ns no 64K-1M folio more */
	t = m->c[RP_COST_NEW] * nnew + m->c[RP_COST_BYTE] * bytes + m->c[RP_COST_PTE] * ptes +
	    m->c[RP_COST_LARGE] * nlarge + m->c[RP_COST_BUDDY] * nbuddy + zero * nzero +
	    zwp * (double)v[RP_M_ZERO_WP] +
	    cow * (double)v[RP_M_COW] + m->c[RP_COST_COLD] * (double)v[RP_M_COLD_FAULTS] +
	    m->c[RP_COST_TABLE] * (double)v[RP_M_TABLE_FAULTS] +
	    m->c[RP_COST_COW_LARGE] * (double)v[RP_M_COW_LARGE] +
	    m->c[RP_COST_REFILL] * (double)v[RP_M_PCP_REFILLS] +
	    m->c[RP_COST_REFILL_BLOCK] * (double)v[RP_M_PCP_REFILL_BLOCKS];
	if (!(t > 0))
		return 0;
	return t < 0x1p63 ? (int64_t)llround(t) : INT64_MAX;	/* never a UB cast */
}

_Static_assert(RP_COST_NR == FTDB_COST_COLS, "one cost_model column per coefficient");
