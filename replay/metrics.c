// SPDX-License-Identifier: GPL-2.0
/*
 * metrics.c - the metric table: one row per replay metric, its stored name and how compare,
 * replay and report show it (replay.h, enum rp_metric_show). Adding a metric is an enum
 * constant (replay.h), one row here, its computation (sim.c and oracle.c) and its line in
 * docs/metrics.md; compare, replay, report and the stored runs follow the row.
 *
 * The names are an interface (SQL users, docs/metrics.md, compare/report JSON): never
 * rename, only add. The rows are in display order: compare's columns and JSON fields
 * appear in this order, a group's rows next to each other.
 */
#include <stddef.h>
#include <string.h>

#include "replay/replay.h"

#define B RP_SHOW_BYTES
#define A RP_SHOW_ALWAYS
#define C RP_SHOW_COLUMN
#define V RP_SHOW_VS_BASE
#define J RP_SHOW_JSON
#define T RP_SHOW_TOTAL
#define G RP_SHOW_CHART
#define U RP_SHOW_ZERO_UNKNOWN
#define R RP_SHOW_REAL
#define S RP_SHOW_SIM_ONLY

#define FB(r, n) { RP_M_FB_0 + (r), "fallback_" n, NULL, "fallbacks", n, NULL, C | J | T | R }
#define AO(k) { RP_M_ALLOC_0 + (k), "alloc_order_" #k, NULL, "alloc_by_order", #k, NULL, \
		 J | R | RP_SHOW_REAL_NONZERO }
#define CO(k) { RP_M_COLLAPSE_MIN + (k) - RP_MIN_COLLAPSE_ORDER, "collapse_order_" #k, NULL, \
		 "collapse_by_order", #k, NULL, J }

static const struct rp_metric_info table[] = {
	{ RP_M_FAULTS, "faults", NULL, NULL, NULL, NULL, A | C | V | J | R | S },
	{ RP_M_PEAK_RSS, "peak_rss_bytes", "peak_rss", NULL, NULL, "peak RSS",
	  B | A | C | V | J | G | R | S },
	{ RP_M_RSS_SECONDS, "rss_byte_seconds", NULL, NULL, NULL, NULL, A | C | V | J },
	{ RP_M_FINAL_RSS, "final_rss_bytes", "final_rss", NULL, NULL, "final RSS",
	  B | A | C | J | G },
	{ RP_M_BLOAT, "bloat_bytes", "bloat", NULL, NULL, "bloat (never touched)",
	  B | A | C | J | G },
	{ RP_M_ZEROED, "zeroed_bytes", "zeroed", NULL, NULL, "zeroed",
	  B | A | C | V | J | G | R | S },
	{ RP_M_FAULT_TIME, "fault_time_ns", "fault_time", NULL, NULL, NULL, C | V | J | U | R },
	{ RP_M_COLD_FAULTS, "cold_faults", NULL, NULL, NULL, NULL, 0 },
	{ RP_M_TABLE_FAULTS, "table_faults", NULL, NULL, NULL, NULL, 0 },
	{ RP_M_COW_LARGE, "cow_large_faults", NULL, NULL, NULL, NULL, 0 },
	{ RP_M_PCP_REFILLS, "pcp_refills", NULL, NULL, NULL, NULL, 0 },
	{ RP_M_PCP_REFILL_BLOCKS, "pcp_refill_blocks", NULL, NULL, NULL, NULL, 0 },
	FB(FTDB_FB_VMA_EDGE, "vma_edge"),
	FB(FTDB_FB_PTE_POPULATED, "pte_populated"),
	FB(FTDB_FB_ALLOC_FAILED, "alloc_failed"),
	FB(FTDB_FB_NOHUGEPAGE, "nohugepage"),
	FB(FTDB_FB_UFFD, "uffd"),
	FB(FTDB_FB_RACE, "race"),
	FB(FTDB_FB_READ, "read"),
	AO(0), AO(1), AO(2), AO(3), AO(4), AO(5), AO(6), AO(7), AO(8), AO(9),
	{ RP_M_ZERO_WP, "zero_wp_faults", NULL, NULL, NULL, NULL, J | R },
	{ RP_M_COW, "cow_faults", NULL, NULL, NULL, NULL, J | R },
	{ RP_M_PTE_WRITES, "pte_writes", NULL, NULL, NULL, NULL, A | C | J },
	{ RP_M_CONTPTE_RUNS, "contpte_runs", NULL, NULL, NULL, NULL, A | C | J },
	{ RP_M_CONTPTE_FINAL, "contpte_runs_final", NULL, NULL, NULL, NULL, J },
	{ RP_M_CONTPTE_EXIT, "contpte_runs_exit", NULL, NULL, NULL, NULL, J },
	{ RP_M_PMD_MAPS, "pmd_maps", NULL, NULL, NULL, NULL, A | C | J },
	{ RP_M_COLLAPSES, "collapses", NULL, NULL, NULL, NULL, C | J },
	CO(2), CO(3), CO(4), CO(5), CO(6), CO(7), CO(8), CO(9),
	{ RP_M_SPLITS, "splits", NULL, NULL, NULL, NULL, C | J },
	{ RP_M_SPLIT_FREED, "split_freed_pages", "split_freed", NULL, NULL, NULL, C | J },
	{ RP_M_ZERO_MAPS, "zero_page_maps", NULL, NULL, NULL, NULL, 0 },
	{ RP_M_HUGE_ZERO_MAPS, "huge_zero_maps", NULL, NULL, NULL, NULL, 0 },
	{ RP_M_TOUCHES, "touches", NULL, NULL, NULL, NULL, 0 },
	{ RP_M_FREE_BYTES, "lazyfree_bytes", NULL, NULL, NULL, NULL, B },
	{ RP_M_ALLOC_FAILS, "alloc_fails", NULL, NULL, NULL, NULL, 0 },
	{ RP_M_OOM, "oom", NULL, NULL, NULL, NULL, 0 },
	{ RP_M_FB_0 + FTDB_FB_NONE, "fallback_none", NULL, NULL, NULL, NULL, RP_SHOW_INTERNAL },
};

#define NR_ROWS (sizeof(table) / sizeof(table[0]))

_Static_assert(RP_MIN_COLLAPSE_ORDER == 2 && RP_PMD_ORDER == 9, "CO() rows: orders 2..9");

_Static_assert(NR_ROWS == RP_NR_METRICS, "one row per metric in replay/metrics.c");

static const struct rp_metric_info unknown = { RP_NR_METRICS, "?", NULL, NULL, NULL, NULL,
					       RP_SHOW_INTERNAL };

const struct rp_metric_info *rp_metric_table(size_t *n)
{
	*n = NR_ROWS;
	return table;
}

const struct rp_metric_info *rp_metric_info(unsigned int m)
{
	static const struct rp_metric_info *by_id[RP_NR_METRICS];
	size_t i;

	if (m >= RP_NR_METRICS)
		return &unknown;
	if (!by_id[m])
		for (i = 0; i < NR_ROWS; i++)
			if (table[i].id < RP_NR_METRICS)
				by_id[table[i].id] = &table[i];
	return by_id[m] ? by_id[m] : &unknown;
}

const char *rp_metric_name(unsigned int m)
{
	return rp_metric_info(m)->name;
}

int rp_metric_lookup(const char *name)
{
	size_t i;

	for (i = 0; i < NR_ROWS; i++)
		if (!strcmp(table[i].name, name))
			return (int)table[i].id;
	return -1;
}

int rp_metric_is_bytes(unsigned int m)
{
	return !!(rp_metric_info(m)->show & RP_SHOW_BYTES);
}

int rp_metric_public(unsigned int m)
{
	return !(rp_metric_info(m)->show & RP_SHOW_INTERNAL);
}

uint64_t rp_cold_gap(const char *clock)
{
	return clock && !strcmp(clock, "icount") ? RP_COLD_GAP_ICOUNT : RP_COLD_GAP_NS;
}
