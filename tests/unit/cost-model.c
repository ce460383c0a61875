// SPDX-License-Identifier: GPL-2.0
/*
 * cost-model.c - rp_cost_predict (replay/cost.h) on hand-computed runs: the counters of a
 * run and the fault time the model gives them, worked out by hand below, with and without
 * the per-kind coefficients (missing ones cost as a new 4K folio), and the large-folio term.
 */
#include <string.h>

#include "replay/cost.h"
#include "tests/unit/tap.h"

#define K 1024ULL

int main(void)
{
	struct rp_cost m;
	struct rp_counters c;

	plan(8);
	memset(&m, 0, sizeof(m));
	m.c[RP_COST_NEW] = 1000;
	m.c[RP_COST_BYTE] = 0.25;
	m.c[RP_COST_PTE] = 10;
	m.c[RP_COST_ZERO] = 300;
	m.c[RP_COST_ZERO_WP] = 2000;
	m.c[RP_COST_COW] = 3000;
	m.has[RP_COST_NEW] = m.has[RP_COST_BYTE] = m.has[RP_COST_PTE] = 1;
	m.has[RP_COST_ZERO] = m.has[RP_COST_ZERO_WP] = m.has[RP_COST_COW] = 1;

	/*
	 * 5 order-0 and 2 order-2 new folios (7 faults, 53248 bytes, 13 PTEs), 2 zero-page
	 * reads, 1 zero_wp (a fault, 4K zeroed, 1 PTE), 3 COW (1 PTE each, not faults)
	 */
	memset(&c, 0, sizeof(c));
	c.v[RP_M_FAULTS] = 7 + 2 + 1;
	c.v[RP_M_ZERO_MAPS] = 2;
	c.v[RP_M_ZERO_WP] = 1;
	c.v[RP_M_COW] = 3;
	c.v[RP_M_ZEROED] = 5 * 4 * K + 2 * 16 * K + 4 * K;
	c.v[RP_M_PTE_WRITES] = 5 + 8 + 2 + 1 + 3;
	/* 7 * 1000 + 53248 * 0.25 + 13 * 10 + 2 * 300 + 2000 + 3 * 3000 */
	ok(rp_cost_predict(&m, &c) == 32042, "every kind fitted: 32042 ns");

	/* the same without zero, zero_wp, cow: 6 faults at 1000 + 4096 * 0.25 + 10 = 2034 */
	m.has[RP_COST_ZERO] = m.has[RP_COST_ZERO_WP] = m.has[RP_COST_COW] = 0;
	ok(rp_cost_predict(&m, &c) == 7000 + 13312 + 130 + 6 * 2034,
	   "kinds without coefficients cost as a new 4K folio: 32646 ns");

	/* a huge zero map and a PMD-mapped 2M folio (1 PTE), no PTE cost fitted */
	m.has[RP_COST_ZERO] = 1;
	m.has[RP_COST_PTE] = 0;
	m.c[RP_COST_PTE] = 0;
	memset(&c, 0, sizeof(c));
	c.v[RP_M_FAULTS] = 2;
	c.v[RP_M_HUGE_ZERO_MAPS] = 1;
	c.v[RP_M_ZEROED] = 2048 * K;
	c.v[RP_M_PTE_WRITES] = 2;
	c.v[RP_M_PMD_MAPS] = 1;
	/* 1000 + 2097152 * 0.25 + 300 */
	ok(rp_cost_predict(&m, &c) == 525588, "PMD folio and huge zero page: 525588 ns");

	/* large_ns: once per new folio of order 2 and up, the PMD's too; order 1 (two 4K
	 * folios in the kernel) and order 0 not */
	m.c[RP_COST_LARGE] = 500;
	m.has[RP_COST_LARGE] = 1;
	c.v[RP_M_ALLOC_0 + 9] = 1;
	ok(rp_cost_predict(&m, &c) == 525588 + 500, "the PMD folio is large: 526088 ns");
	memset(&c, 0, sizeof(c));
	/* 1 order-0, 1 order-1 and 3 order-2 folios: 5 faults, 4K + 8K + 48K, 1 + 2 + 12 PTEs */
	c.v[RP_M_FAULTS] = 5;
	c.v[RP_M_ZEROED] = 60 * K;
	c.v[RP_M_PTE_WRITES] = 15;
	c.v[RP_M_ALLOC_0] = 1;
	c.v[RP_M_ALLOC_0 + 1] = 1;
	c.v[RP_M_ALLOC_0 + 2] = 3;
	/* 5 * 1000 + 61440 * 0.25 + 3 * 500 (no PTE cost fitted) */
	ok(rp_cost_predict(&m, &c) == 5000 + 15360 + 1500, "3 large folios of 5: 21860 ns");

	/* cold faults: 4 of the 5 faults above (3 folios of 16K, 1 of 4K, 1 zero map) after
	 * a long gap; a model without cold_ns (every guest model) ignores them */
	memset(&c, 0, sizeof(c));
	c.v[RP_M_FAULTS] = 5;
	c.v[RP_M_ZERO_MAPS] = 1;
	c.v[RP_M_ZEROED] = 3 * 16 * K + 4 * K;
	c.v[RP_M_PTE_WRITES] = 3 * 4 + 1 + 1;
	c.v[RP_M_COLD_FAULTS] = 4;
	/* 4 * 1000 + 53248 * 0.25 + 300 (no PTE cost) */
	ok(rp_cost_predict(&m, &c) == 17612, "cold faults without cold_ns: 17612 ns");
	m.c[RP_COST_COLD] = 1500;
	m.has[RP_COST_COLD] = 1;
	/* + 4 * 1500 */
	ok(rp_cost_predict(&m, &c) == 23612, "4 cold faults at cold_ns 1500: 23612 ns");

	memset(&c, 0, sizeof(c));
	ok(rp_cost_predict(&m, &c) == 0, "no fault: 0 ns");
	return done_testing();
}
