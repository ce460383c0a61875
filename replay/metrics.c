// SPDX-License-Identifier: GPL-2.0
/*
 * metrics.c - names of the replay metrics as stored in replay_metric.name. The names are an
 * interface (SQL users, docs/metrics.md, compare/report): never rename, only add.
 */
#include <string.h>

#include "replay/replay.h"

static const char *const names[RP_NR_METRICS] = {
	[RP_M_FAULTS] = "faults",
	[RP_M_ZERO_MAPS] = "zero_page_maps",
	[RP_M_HUGE_ZERO_MAPS] = "huge_zero_maps",
	[RP_M_ZERO_WP] = "zero_wp_faults",
	[RP_M_COW] = "cow_faults",
	[RP_M_TOUCHES] = "touches",
	[RP_M_PEAK_RSS] = "peak_rss_bytes",
	[RP_M_FINAL_RSS] = "final_rss_bytes",
	[RP_M_BLOAT] = "bloat_bytes",
	[RP_M_ZEROED] = "zeroed_bytes",
	[RP_M_PTE_WRITES] = "pte_writes",
	[RP_M_CONTPTE_RUNS] = "contpte_runs",
	[RP_M_CONTPTE_FINAL] = "contpte_runs_final",
	[RP_M_PMD_MAPS] = "pmd_maps",
	[RP_M_FREE_BYTES] = "lazyfree_bytes",
	[RP_M_ALLOC_FAILS] = "alloc_fails",
	[RP_M_OOM] = "oom",
	[RP_M_ALLOC_0 + 0] = "alloc_order_0",
	[RP_M_ALLOC_0 + 1] = "alloc_order_1",
	[RP_M_ALLOC_0 + 2] = "alloc_order_2",
	[RP_M_ALLOC_0 + 3] = "alloc_order_3",
	[RP_M_ALLOC_0 + 4] = "alloc_order_4",
	[RP_M_ALLOC_0 + 5] = "alloc_order_5",
	[RP_M_ALLOC_0 + 6] = "alloc_order_6",
	[RP_M_ALLOC_0 + 7] = "alloc_order_7",
	[RP_M_ALLOC_0 + 8] = "alloc_order_8",
	[RP_M_ALLOC_0 + 9] = "alloc_order_9",
	[RP_M_FB_0 + FT_FB_NONE] = "fallback_none",
	[RP_M_FB_0 + FT_FB_VMA_EDGE] = "fallback_vma_edge",
	[RP_M_FB_0 + FT_FB_PTE_POPULATED] = "fallback_pte_populated",
	[RP_M_FB_0 + FT_FB_ALLOC_FAILED] = "fallback_alloc_failed",
	[RP_M_FB_0 + FT_FB_NOHUGEPAGE] = "fallback_nohugepage",
	[RP_M_FB_0 + FT_FB_UFFD] = "fallback_uffd",
	[RP_M_FB_0 + FT_FB_RACE] = "fallback_race",
	[RP_M_FB_0 + FT_FB_READ] = "fallback_read",
};

const char *rp_metric_name(unsigned int m)
{
	return m < RP_NR_METRICS && names[m] ? names[m] : "?";
}

int rp_metric_lookup(const char *name)
{
	unsigned int m;

	for (m = 0; m < RP_NR_METRICS; m++)
		if (names[m] && !strcmp(names[m], name))
			return (int)m;
	return -1;
}

int rp_metric_is_bytes(unsigned int m)
{
	return m == RP_M_PEAK_RSS || m == RP_M_FINAL_RSS || m == RP_M_BLOAT ||
	       m == RP_M_ZEROED || m == RP_M_FREE_BYTES;
}
