/* SPDX-License-Identifier: GPL-2.0 */
/*
 * cost.h - the fault cost model (docs/cost-model.md): per-fault costs fitted from the
 * latency_ns of recorded faults by `foliotrace calibrate`, stored per (arch, kernel,
 * accelerator, clock) in cost_model, and the predicted fault_time_ns of a replayed run.
 *
 * Model, in ns, for one fault:
 *   allocates a folio of B bytes writing P PTEs:  new + byte * B + pte * P
 *                                                 [+ large if B > 2 pages]
 *                                                 [+ buddy if 16 <= B / page < 512]
 *   maps the zero page (4K or huge):              zero
 *   anon_zero_wp:                                 zero_wp
 *   anon_cow:                                     cow
 *   and a cold fault (RP_M_COLD_FAULTS: more than RP_COLD_GAP_NS since its process's
 *   previous one) cold more, when the model has it (host models: calibrate --host)
 *   and a fault that allocated a page table (RP_M_TABLE_FAULTS) table more
 *   and an allocation that refilled its per-cpu list (RP_M_PCP_REFILLS, of orders 0-3)
 *   refill + refill_block * the blocks it took (RP_M_PCP_REFILL_BLOCKS) more (icount
 *   models: the calibration follows the lists, replay/pcp-follow.h, for how many of each
 *   kind's allocations refilled, takes them as its largest latencies, and fits the line
 *   through the refills' cost of each order against their blocks)
 * Fitted on each group's median latency, or its mean on the icount clock (its latencies are
 * instruction counts that repeat; docs/cost-model.md, "The fit").
 * A coefficient the samples cannot fix is absent (has[] 0): pte when no new-folio fault
 * mapped a number of PTEs other than its pages (it is then part of byte); large without
 * 4K faults and two sizes of large folios to tell it from new and byte; table without
 * one shape of new folio with RP_COST_MIN_SAMPLES faults that allocated a table and as
 * many that did not (a calibration trace's first fault in each 2M range; not a process's
 * first in a 1G range, which allocates the PMD table too), fitted first as their
 * difference, the others then on the latencies less it per table (and the zero-page
 * faults that allocated a table then out of zero's statistic); zero, zero_wp,
 * cow with fewer than RP_COST_MIN_SAMPLES records, and a run then costs those faults as a
 * new 4K folio.
 */
#ifndef FT_REPLAY_COST_H
#define FT_REPLAY_COST_H

#include <stdint.h>
#include <sqlite3.h>

#include "replay/replay.h"

/*
 * Records a median needs to count: a (bytes, PTEs) group of new-folio faults with fewer is
 * left out of the fit, a fixed cost with fewer is not fitted. The fit needs two groups of
 * distinct folio sizes with this many records each (new and byte), else it is refused.
 */
#define RP_COST_MIN_SAMPLES 16

enum rp_cost_coef {
	RP_COST_NEW,		/* ns per new-folio fault */
	RP_COST_BYTE,		/* ns per byte of the new folio */
	RP_COST_PTE,		/* ns per PTE a new-folio fault writes */
	RP_COST_ZERO,		/* ns per zero-page fault */
	RP_COST_ZERO_WP,	/* ns per anon_zero_wp */
	RP_COST_COW,		/* ns per anon_cow (of a page of a 4K folio, when
				 * RP_COST_COW_LARGE is fitted) */
	RP_COST_LARGE,		/* ns more per new-folio fault of a large folio (order >= 2,
				 * PMD included): compound folio, vma_alloc_folio's path */
	RP_COST_COLD,		/* ns a cold fault costs beyond its kind's cost (host models) */
	RP_COST_TABLE,		/* ns a fault that allocated a page table costs beyond its
				 * kind's cost (pte_alloc(), a THP's deposited table) */
	RP_COST_COW_LARGE,	/* ns an anon_cow of a page inside a large folio (order >= 2,
				 * PMD included) costs beyond cow_ns */
	RP_COST_REFILL,		/* ns an allocation that refilled its per-cpu list (a 4K
				 * fault, a COW, a zero_wp; a 16K or 32K fault) costs beyond
				 * its kind's cost, per refill (RP_M_PCP_REFILLS; icount
				 * models only) */
	RP_COST_REFILL_BLOCK,	/* and per block the refill took (RP_M_PCP_REFILL_BLOCKS:
				 * 63 for order 0, 15 for order 2, 7 for order 3) */
	RP_COST_BUDDY,		/* ns more per new folio of an order no per-cpu list has
				 * (RP_PCP_ORDERS .. RP_PMD_ORDER - 1: 64K to 1M), taken from
				 * the buddy allocator at its fault (rmqueue_buddy()) */
	RP_COST_NR
};

struct rp_cost_key {
	char arch[32];		/* trace.arch */
	char kernel[64];	/* trace.kernel */
	char accel[16];		/* trace_meta accel, "unknown" if absent */
	char clock[16];		/* trace.clock (tcg, kvm, icount); if absent accel */
};

struct rp_cost {
	struct rp_cost_key key;
	double c[RP_COST_NR];	/* units above; 0 where !has */
	int has[RP_COST_NR];	/* 1: fitted */
	int64_t samples;	/* records the fit used */
	int64_t traces;		/* traces they came from */
};

/* Latencies collected for a fit, grouped by kind (and by folio size for new folios). */
struct rp_cost_samples;

struct rp_cost_samples *rp_cost_samples_new(void);
void rp_cost_samples_free(struct rp_cost_samples *s);

/* The coefficient's column name in cost_model (new_ns, byte_ns, ...). */
const char *rp_cost_coef_name(unsigned int c);

/*
 * rp_cost_trace_key - the (arch, kernel, accel, clock) of trace_id. A trace whose header
 * has no clock was recorded before icount existed, on its accelerator's clock: its clock
 * is its accel. Refuses a trace whose latencies are not ns measurements: no clocksource
 * recorded, or jiffies/refined-jiffies.
 * Return: 0, or -1 with fail().
 */
int rp_cost_trace_key(sqlite3 *db, int64_t trace_id, struct rp_cost_key *key);

/*
 * rp_cost_samples_add - add every FAULT, ZERO_WP and COW record of trace_id to s, each
 * FAULT labelled with the page tables it allocated: its 2M range's PTE table if it is the
 * first fault of its process there, since the process began (or inherited the range's
 * table at fork) or a munmap, mremap or exit zapped the whole range; and its 1G range's
 * PMD table too if it is also the process's first there (docs/cost-model.md, "Page
 * tables").
 * Return: 0, or -1 with fail().
 */
int rp_cost_samples_add(struct rp_cost_samples *s, sqlite3 *db, int64_t trace_id);

/*
 * rp_cost_fit - fit the model to s (method: docs/cost-model.md). Return: 0 with *out's
 * coefficients (not its key), or -1 with fail() naming what is missing (too few samples)
 * or wrong (a negative cost).
 */
int rp_cost_fit(const struct rp_cost_samples *s, struct rp_cost *out);

/* Unknowns rp_cost_solve() takes at most. */
#define RP_COST_SOLVE_MAX 5

/* Solve the n x n system a x = b (n <= RP_COST_SOLVE_MAX) by Gaussian elimination with
 * partial pivoting (a and b are overwritten). Return: 0, or -1 if a is singular. */
int rp_cost_solve(double a[RP_COST_SOLVE_MAX][RP_COST_SOLVE_MAX], double b[RP_COST_SOLVE_MAX],
		  unsigned int n, double x[RP_COST_SOLVE_MAX]);

/* Add w * (row . x - y)^2 to the normal equations a x = b of a weighted least squares over
 * n unknowns (n <= RP_COST_SOLVE_MAX). */
void rp_cost_normal_add(double a[RP_COST_SOLVE_MAX][RP_COST_SOLVE_MAX],
			double b[RP_COST_SOLVE_MAX], const double *row, unsigned int n, double w,
			double y);

/* rp_cost_store - replace cost_model's row of m->key, in its own transaction. */
int rp_cost_store(sqlite3 *db, const struct rp_cost *m);

/*
 * rp_cost_lookup - the model for trace_id's (arch, kernel, accel, clock), if any. A model of
 * the trace's arch, kernel and accel fitted on another clock is refused: its costs are in
 * another time (icount instructions against emulated host time, docs/cost-model.md).
 * Return: 1 with *m filled; 0 if the database has none of the trace's arch, kernel and
 * accel; -1 with fail() naming both clocks, or a database error.
 */
int rp_cost_lookup(sqlite3 *db, int64_t trace_id, struct rp_cost *m);

/*
 * rp_cost_get - the stored model of m->key into m's coefficients, samples and traces; a
 * coefficient beyond a plausible cost (a damaged row) is refused, naming it.
 * Return: 1 found, 0 none, -1 with fail().
 */
int rp_cost_get(sqlite3 *db, struct rp_cost *m);

/*
 * rp_cost_predict - predicted fault time, ns, of the faults a run counted in c (its
 * faults, zero maps, zero_wp, cow, zeroed_bytes and pte_writes), rounded to the ns.
 */
int64_t rp_cost_predict(const struct rp_cost *m, const struct rp_counters *c);

#endif /* FT_REPLAY_COST_H */
