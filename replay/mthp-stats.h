/* SPDX-License-Identifier: GPL-2.0 */
/*
 * mthp-stats.h - the kernel's own per-size mTHP counters of a 6.12 guest trace: init reads
 * every /sys/kernel/mm/transparent_hugepage/hugepages-*kB/stats/ file inside the trace,
 * before and after the workload (header/mthp_stats.before, .after, "SIZE NAME VALUE"
 * lines such as "64kB anon_fault_alloc 1024"; docs/guest.md), and ingest keeps both in
 * trace_meta. This reads them back as changes over the workload, per folio order; the
 * counters are the whole guest's (every process), not a selection's.
 */
#ifndef FT_REPLAY_MTHP_STATS_H
#define FT_REPLAY_MTHP_STATS_H

#include <stdint.h>
#include <sqlite3.h>

#include "replay/replay.h"

enum rp_mthp_counter {
	RP_MTHP_ANON_FAULT_ALLOC,		/* anon_fault_alloc: folios of the size a fault
						 * allocated */
	RP_MTHP_ANON_FAULT_FALLBACK,		/* anon_fault_fallback: the size refused by the
						 * allocator, the fault fell back to a smaller one */
	RP_MTHP_ANON_FAULT_FALLBACK_CHARGE,	/* anon_fault_fallback_charge: refused by the
						 * memory cgroup's charge */
	RP_NR_MTHP_COUNTERS
};

struct rp_mthp_stats {
	int present;		/* the trace has both header files (a 6.12 guest) */
	/*
	 * Per order (log2 of the size in pages), after - before; has[order] is set for the
	 * sizes the kernel has (order 2 .. RP_PMD_ORDER with 4K pages; order 1 has no
	 * anonymous mTHP).
	 */
	int has[RP_PMD_ORDER + 1];
	uint64_t delta[RP_PMD_ORDER + 1][RP_NR_MTHP_COUNTERS];
};

extern const char *const rp_mthp_counter_names[RP_NR_MTHP_COUNTERS];

/*
 * rp_mthp_stats_load - trace_id's per-size counter changes, for a trace of page size
 * page_size bytes. A trace without both files gives present 0 (a 6.1 guest, a host
 * recording). Return: 0, or -1 with fail() naming the header file and line (a line that
 * is not "SIZE NAME VALUE", a size that is no power-of-two number of pages up to the PMD
 * size, a counter that went down).
 */
int rp_mthp_stats_load(sqlite3 *db, int64_t trace_id, int64_t page_size,
		       struct rp_mthp_stats *out);

#endif /* FT_REPLAY_MTHP_STATS_H */
