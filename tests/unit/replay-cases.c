// SPDX-License-Identifier: GPL-2.0
/*
 * replay-cases.c - named synthetic streams with hand-computed answers, one table row each.
 * Every case runs through the fast engine and the oracle; both must give the expected
 * values (metrics not listed are not checked).
 */
#include <stdlib.h>
#include <string.h>

#include "lib/error.h"
#include "replay/replay.h"
#include "tests/unit/steps.h"
#include "tests/unit/tap.h"

/* Rows leave out the trailing fields they do not use (movable: 0, no compaction pool). */
#pragma GCC diagnostic ignored "-Wmissing-field-initializers"

#define K 1024ULL
#define M (1024ULL * 1024)
#define B 0x10000000ULL		/* 2M-aligned base of every case's first VMA */
#define NOHUGE RP_VM_NOHUGEPAGE

struct want {
	const char *metric;
	uint64_t value;
};

struct vma {
	uint64_t start, end, flags;
};

struct tcase {
	const char *name;
	const char *policy;
	const char *frag;		/* NULL: none */
	uint64_t blocks[RP_MAX_ORDER + 1];	/* buddyinfo seed */
	struct vma vmas[3];		/* vma ids 1.. */
	struct step steps[107];		/* until op 0 */
	struct want want[13];		/* until metric NULL */
	uint64_t movable;		/* buddyinfo: pages of the compaction pool */
	uint64_t ns_step;		/* ns between events (their ts), 0: 1000 */
	/*
	 * +collapse: orders added to the policy's (the PMD order beside mTHP sizes, as THP
	 * always and an mTHP size enable them, which no fault-time policy expresses)
	 */
	unsigned int orders;
	const char *clock;		/* trace.clock (rp_cold_gap()); NULL: unknown, ns */
};

#define W(p, a) { 'W', p, a, 0, 0, 1 }
#define Wv(p, a, v) { 'W', p, a, 0, 0, v }
#define R(p, a) { 'R', p, a, 0, 0, 1 }
/* writes of the 10 pages from a, of the 100 pages from a */
#define SEQ10(p, a) W(p, (a)), W(p, (a) + 4 * K), W(p, (a) + 8 * K), W(p, (a) + 12 * K),       \
	W(p, (a) + 16 * K), W(p, (a) + 20 * K), W(p, (a) + 24 * K), W(p, (a) + 28 * K),       \
	W(p, (a) + 32 * K), W(p, (a) + 36 * K)
#define SEQ100(p, a) SEQ10(p, a), SEQ10(p, (a) + 40 * K), SEQ10(p, (a) + 80 * K),              \
	SEQ10(p, (a) + 120 * K), SEQ10(p, (a) + 160 * K), SEQ10(p, (a) + 200 * K),             \
	SEQ10(p, (a) + 240 * K), SEQ10(p, (a) + 280 * K), SEQ10(p, (a) + 320 * K),             \
	SEQ10(p, (a) + 360 * K)
#define SEQ16(p) W(p, B), W(p, B + 4 * K), W(p, B + 8 * K), W(p, B + 12 * K), W(p, B + 16 * K), \
	W(p, B + 20 * K), W(p, B + 24 * K), W(p, B + 28 * K), W(p, B + 32 * K),               \
	W(p, B + 36 * K), W(p, B + 40 * K), W(p, B + 44 * K), W(p, B + 48 * K),              \
	W(p, B + 52 * K), W(p, B + 56 * K), W(p, B + 60 * K)

/* reads of the first 8, 15, 16 pages from a; writes of the first 8, 15 pages from B */
#define RD8(p, a) R(p, (a)), R(p, (a) + 4 * K), R(p, (a) + 8 * K), R(p, (a) + 12 * K),         \
	R(p, (a) + 16 * K), R(p, (a) + 20 * K), R(p, (a) + 24 * K), R(p, (a) + 28 * K)
#define RD15(p, a) RD8(p, a), R(p, (a) + 32 * K), R(p, (a) + 36 * K), R(p, (a) + 40 * K),       \
	R(p, (a) + 44 * K), R(p, (a) + 48 * K), R(p, (a) + 52 * K), R(p, (a) + 56 * K)
#define RD16(p, a) RD15(p, a), R(p, (a) + 60 * K)
#define SEQ8(p) W(p, B), W(p, B + 4 * K), W(p, B + 8 * K), W(p, B + 12 * K), W(p, B + 16 * K),  \
	W(p, B + 20 * K), W(p, B + 24 * K), W(p, B + 28 * K)
#define SEQ15(p) SEQ8(p), W(p, B + 32 * K), W(p, B + 36 * K), W(p, B + 40 * K),                 \
	W(p, B + 44 * K), W(p, B + 48 * K), W(p, B + 52 * K), W(p, B + 56 * K)

static const struct tcase cases[] = {
	{ "16 sequential writes, 64K VMA, order0", "order0", NULL, { 0 },
	  { { B, B + 64 * K, 3 } }, { SEQ16(1) },
	  { { "faults", 16 }, { "alloc_order_0", 16 }, { "pte_writes", 16 },
	    { "zeroed_bytes", 64 * K }, { "bloat_bytes", 0 }, { "peak_rss_bytes", 64 * K },
	    { "contpte_runs", 0 } } },
	{ "16 sequential writes, 64K VMA, mcpage:2", "mcpage:2", NULL, { 0 },
	  { { B, B + 64 * K, 3 } }, { SEQ16(1) },
	  { { "faults", 4 }, { "alloc_order_2", 4 }, { "alloc_order_0", 0 }, { "pte_writes", 16 },
	    { "bloat_bytes", 0 }, { "contpte_runs", 0 }, { "contpte_runs_final", 0 } } },
	{ "16 sequential writes, 64K VMA, mcpage:4", "mcpage:4", NULL, { 0 },
	  { { B, B + 64 * K, 3 } }, { SEQ16(1) },
	  { { "faults", 1 }, { "alloc_order_4", 1 }, { "pte_writes", 16 },
	    { "zeroed_bytes", 64 * K }, { "bloat_bytes", 0 }, { "contpte_runs", 1 },
	    { "contpte_runs_final", 1 }, { "contpte_runs_exit", 1 },
	    { "final_rss_bytes", 64 * K } } },
	{ "a 64K block at exit: one run at the address space's end, none at the trace's",
	  "mcpage:4", NULL, { 0 },
	  { { B, B + 64 * K, 3 } }, { SEQ16(1), { 'X', 1, B, B + 64 * K, 0, 0 } },
	  { { "contpte_runs", 1 }, { "contpte_runs_final", 0 }, { "contpte_runs_exit", 1 } } },
	{ "a 64K block half dropped before exit: no run left at the end", "mcpage:4", NULL, { 0 },
	  { { B, B + 64 * K, 3 } },
	  { SEQ16(1), { 'D', 1, B, B + 32 * K, 0, 0 }, { 'X', 1, B, B + 64 * K, 0, 0 } },
	  { { "contpte_runs", 1 }, { "contpte_runs_exit", 0 } } },
	{ "one touch per 16K block, mcpage:2: 3 pages of bloat per block", "mcpage:2", NULL, { 0 },
	  { { B, B + 64 * K, 3 } },
	  { W(1, B), W(1, B + 16 * K), W(1, B + 32 * K), W(1, B + 48 * K),
	    { 'X', 1, B, B + 64 * K, 0, 0 } },
	  { { "faults", 4 }, { "bloat_bytes", 4 * 3 * 4 * K }, { "zeroed_bytes", 64 * K },
	    { "peak_rss_bytes", 64 * K }, { "final_rss_bytes", 0 } } },
	{ "bloat counted at the end of the trace too", "mcpage:2", NULL, { 0 },
	  { { B, B + 64 * K, 3 } }, { W(1, B + 4 * K) },
	  { { "bloat_bytes", 12 * K }, { "final_rss_bytes", 16 * K } } },
	{ "VMA edge: 64K block not inside an unaligned VMA", "mcpage:4", NULL, { 0 },
	  { { B + 12 * K, B + 140 * K, 3 } }, { W(1, B + 12 * K), W(1, B + 64 * K) },
	  { { "faults", 2 }, { "fallback_vma_edge", 1 }, { "alloc_order_0", 1 },
	    { "alloc_order_4", 1 }, { "fallback_pte_populated", 0 } } },
	{ "hole: a zero-page PTE in the block forces pte_populated", "mcpage:4", NULL, { 0 },
	  { { B, B + 64 * K, 3 } }, { R(1, B), W(1, B + 16 * K), W(1, B + 20 * K) },
	  { { "faults", 3 }, { "fallback_read", 1 }, { "fallback_pte_populated", 2 },
	    { "alloc_order_0", 2 }, { "zero_page_maps", 1 } } },
	{ "mthp descends 64K -> 16K at a VMA edge", "mthp:16K,64K", NULL, { 0 },
	  { { B, B + 48 * K, 3 } }, { W(1, B), W(1, B + 12 * K), W(1, B + 16 * K) },
	  { { "faults", 2 }, { "alloc_order_2", 2 }, { "fallback_vma_edge", 2 },
	    { "alloc_order_4", 0 } } },
	{ "NOHUGEPAGE VMA: 4K with fallback nohugepage (reads: read)", "mcpage:4", NULL, { 0 },
	  { { B, B + 64 * K, 3 | NOHUGE } }, { W(1, B), R(1, B + 4 * K) },
	  { { "faults", 2 }, { "fallback_nohugepage", 1 }, { "fallback_read", 1 },
	    { "alloc_order_0", 1 } } },
	{ "userfaultfd-armed VMA: 4K with fallback uffd", "mthp:16K,64K", NULL, { 0 },
	  { { B, B + 64 * K, 3 | 0x200 } }, { W(1, B), W(1, B + 16 * K) },
	  { { "faults", 2 }, { "fallback_uffd", 2 }, { "alloc_order_0", 2 } } },
	{ "thp in a NOHUGEPAGE VMA: no huge zero page", "thp", NULL, { 0 },
	  { { B, B + 4 * M, 3 | NOHUGE } }, { R(1, B), W(1, B + 4 * K) },
	  { { "faults", 2 }, { "fallback_nohugepage", 2 }, { "huge_zero_maps", 0 },
	    { "pmd_maps", 0 } } },
	{ "order0 counts no fallback", "order0", NULL, { 0 },
	  { { B, B + 64 * K, 3 | NOHUGE } }, { W(1, B), R(1, B + 4 * K) },
	  { { "faults", 2 }, { "fallback_nohugepage", 0 }, { "fallback_read", 0 } } },
	{ "zap makes re-touches fault again", "order0", NULL, { 0 },
	  { { B, B + 64 * K, 3 } },
	  { W(1, B), W(1, B + 4 * K), { 'D', 1, B, B + 8 * K, 0, 0 }, W(1, B), W(1, B + 4 * K) },
	  { { "faults", 4 }, { "final_rss_bytes", 8 * K }, { "peak_rss_bytes", 8 * K },
	    { "bloat_bytes", 0 } } },
	{ "zap of a partly touched block: bloat, then the re-touch faults", "mcpage:2", NULL,
	  { 0 }, { { B, B + 64 * K, 3 } },
	  { W(1, B), { 'U', 1, B, B + 16 * K, 0, 0 }, W(1, B) },
	  { { "faults", 2 }, { "bloat_bytes", 24 * K }, { "alloc_order_2", 2 } } },
	{ "read then write: zero page then zero_wp", "order0", NULL, { 0 },
	  { { B, B + 64 * K, 3 } }, { R(1, B), { 'Z', 1, B, 0, 0, 0 } },
	  { { "faults", 2 }, { "zero_wp_faults", 1 }, { "zero_page_maps", 1 },
	    { "final_rss_bytes", 4 * K }, { "zeroed_bytes", 4 * K }, { "pte_writes", 2 } } },
	{ "a page mapped by a larger block costs no fault", "mcpage:4", NULL, { 0 },
	  { { B, B + 64 * K, 3 } }, { W(1, B), R(1, B + 8 * K), W(1, B + 60 * K) },
	  { { "faults", 1 }, { "touches", 3 }, { "bloat_bytes", 13 * 4 * K } } },
	/*
	 * The parent's last COW is of a page nobody else maps any more: the recording says
	 * the kernel copied (it held another reference), so the model copies too.
	 */
	{ "fork + write gives COW; a recorded COW of a page no longer shared copies", "order0",
	  NULL, { 0 }, { { B, B + 64 * K, 3 } },
	  { W(1, B), W(1, B + 4 * K), { 'K', 2, 1, 0, 0, 0 }, { 'C', 2, B, 0, 0, 0 },
	    { 'C', 1, B + 4 * K, 0, 0, 0 }, { 'X', 2, B, B + 64 * K, 0, 0 },
	    { 'C', 1, B, 0, 0, 0 } },
	  { { "cow_faults", 3 }, { "faults", 2 }, { "alloc_order_0", 5 },
	    { "final_rss_bytes", 8 * K }, { "peak_rss_bytes", 16 * K }, { "zeroed_bytes", 8 * K },
	    { "bloat_bytes", 0 } } },
	/*
	 * COW of a large folio's page (cow_large_faults, priced cow_large_ns more): the child
	 * writes pages 1 and 2 of the parent's 16K block, then page 1 again (its own copy now,
	 * no fault). Under order0 the same child's write of page 1, which the parent faulted in
	 * as a 4K page, is a COW but not a large one.
	 */
	{ "mcpage:2: the child's COWs of a 16K block's pages are large COWs", "mcpage:2", NULL,
	  { 0 }, { { B, B + 64 * K, 3 } },
	  { W(1, B), { 'K', 2, 1, 0, 0, 0 }, W(2, B + 4 * K), W(2, B + 8 * K), W(2, B + 4 * K) },
	  { { "cow_faults", 2 }, { "cow_large_faults", 2 }, { "faults", 1 },
	    { "alloc_order_2", 1 }, { "alloc_order_0", 2 } } },
	{ "order0: a COW of a 4K page is no large COW", "order0", NULL, { 0 },
	  { { B, B + 64 * K, 3 } },
	  { W(1, B), W(1, B + 4 * K), { 'K', 2, 1, 0, 0, 0 }, W(2, B + 4 * K) },
	  { { "cow_faults", 1 }, { "cow_large_faults", 0 }, { "faults", 2 } } },
	/*
	 * A page of the parent's pre-fork 16K block that the recording first touched after the
	 * child exited: the model reuses the sole mapping (6.1 would copy a page of a
	 * PTE-mapped large folio: docs/policies.md, limits).
	 */
	{ "mcpage:2: a write to the last mapping of a block page shared at fork is reused",
	  "mcpage:2", NULL, { 0 }, { { B, B + 64 * K, 3 } },
	  { W(1, B), { 'K', 2, 1, 0, 0, 0 }, { 'X', 2, B, B + 64 * K, 0, 0 }, W(1, B + 4 * K) },
	  { { "cow_faults", 0 }, { "faults", 1 }, { "touches", 2 }, { "alloc_order_2", 1 },
	    { "final_rss_bytes", 16 * K }, { "bloat_bytes", 8 * K } } },
	{ "COW of a page the model never saw (private file mapping): counted, not mapped",
	  "order0", NULL, { 0 }, { { B, B + 64 * K, 3 } },
	  { W(1, B), { 'K', 2, 1, 0, 0, 0 }, { 'C', 2, B + 8 * M, 0, 0, 0 } },
	  { { "cow_faults", 1 }, { "faults", 1 }, { "alloc_order_0", 2 },
	    { "final_rss_bytes", 8 * K }, { "pte_writes", 2 } } },
	{ "exit ends the whole process, whatever its range", "mcpage:2", NULL, { 0 },
	  { { B, B + 64 * K, 3 }, { B + 4 * M, B + 4 * M + 64 * K, 3 } },
	  { W(1, B), Wv(1, B + 4 * M, 2), { 'X', 1, B, B + 64 * K, 0, 0 },
	    { 'X', 1, B + 4 * M, B + 4 * M + 64 * K, 0, 0 } },
	  { { "final_rss_bytes", 0 }, { "bloat_bytes", 2 * 12 * K }, { "peak_rss_bytes", 32 * K } } },
	{ "mremap moves presence", "order0", NULL, { 0 },
	  { { B, B + 64 * K, 3 }, { B + 4 * M, B + 4 * M + 64 * K, 3 } },
	  { W(1, B), { 'M', 1, B, B + 4 * K, B + 4 * M, 0 }, Wv(1, B + 4 * M, 2), W(1, B) },
	  { { "faults", 2 }, { "final_rss_bytes", 8 * K } } },
	{ "MADV_FREE keeps pages mapped and counts them", "order0", NULL, { 0 },
	  { { B, B + 64 * K, 3 } },
	  { W(1, B), W(1, B + 4 * K), { 'F', 1, B, B + 64 * K, 0, 0 }, W(1, B) },
	  { { "faults", 2 }, { "lazyfree_bytes", 8 * K }, { "final_rss_bytes", 8 * K } } },
	{ "thp: PMD write, huge zero read, zero_wp after it", "thp", NULL, { 0 },
	  { { B, B + 4 * M, 3 } },
	  { W(1, B), R(1, B + 2 * M), W(1, B + 2 * M + 4 * K) },
	  { { "faults", 3 }, { "pmd_maps", 1 }, { "alloc_order_9", 1 }, { "huge_zero_maps", 1 },
	    { "zero_wp_faults", 1 }, { "pte_writes", 3 }, { "bloat_bytes", 511 * 4 * K },
	    { "zeroed_bytes", 2 * M + 4 * K } } },
	{ "thp: 2M range outside the VMA -> 4K, vma_edge", "thp", NULL, { 0 },
	  { { B, B + 1 * M, 3 } }, { W(1, B), R(1, B + 8 * K) },
	  { { "faults", 2 }, { "fallback_vma_edge", 2 }, { "pmd_maps", 0 } } },
	{ "faultaround:16 maps the window, no contiguity", "faultaround:16", NULL, { 0 },
	  { { B, B + 64 * K, 3 } }, { W(1, B + 8 * K), W(1, B + 20 * K), W(1, B) },
	  { { "faults", 1 }, { "alloc_order_0", 16 }, { "zeroed_bytes", 64 * K },
	    { "contpte_runs", 0 }, { "contpte_runs_final", 0 }, { "bloat_bytes", 13 * 4 * K } } },
	{ "adaptive grows on sequential first touches", "adaptive:max=64K", NULL, { 0 },
	  { { B, B + 64 * K, 3 } }, { SEQ16(1) },
	  { { "faults", 5 }, { "alloc_order_0", 2 }, { "alloc_order_1", 1 },
	    { "alloc_order_2", 1 }, { "alloc_order_3", 1 }, { "fallback_pte_populated", 4 } } },
	{ "buddyinfo: no order-2 block -> alloc_failed", "mcpage:2", "buddyinfo", { 4 },
	  { { B, B + 64 * K, 3 } }, { W(1, B) },
	  { { "faults", 1 }, { "fallback_alloc_failed", 1 }, { "alloc_fails", 1 },
	    { "alloc_order_0", 1 } } },
	{ "buddyinfo: frees merge back into an order-2 block", "mcpage:2", "buddyinfo",
	  { 0, 0, 1 }, { { B, B + 64 * K, 3 } },
	  { W(1, B), { 'D', 1, B, B + 16 * K, 0, 0 }, W(1, B), { 'D', 1, B, B + 16 * K, 0, 0 },
	    W(1, B) },
	  { { "alloc_order_2", 3 }, { "alloc_fails", 0 } } },
	{ "buddyinfo: order-0 exhausted -> oom counted, page mapped", "order0", "buddyinfo",
	  { 1 }, { { B, B + 64 * K, 3 } }, { W(1, B), W(1, B + 4 * K) },
	  { { "faults", 2 }, { "oom", 1 }, { "final_rss_bytes", 8 * K } } },
	/*
	 * Compaction (docs/policies.md): 8 free 4K pages, a pool of 4 movable pages. The first
	 * 16K request compacts the pool's one 16K block, its 4 pages moving into 4 of the free
	 * pages; the second finds the pool used up and falls back to one of the 4 left.
	 */
	{ "buddyinfo: compaction makes one 16K block from a pool of 4 pages", "mcpage:2",
	  "buddyinfo", { 8 }, { { B, B + 64 * K, 3 } }, { W(1, B), W(1, B + 16 * K) },
	  { { "faults", 2 }, { "alloc_order_2", 1 }, { "alloc_order_0", 1 }, { "alloc_fails", 1 },
	    { "fallback_alloc_failed", 1 }, { "oom", 0 } }, .movable = 4 },
	/* 3 free pages cannot take the 4 pages a 16K block holds: no compaction */
	{ "buddyinfo: no compaction with fewer free pages than the block", "mcpage:2",
	  "buddyinfo", { 3 }, { { B, B + 64 * K, 3 } }, { W(1, B) },
	  { { "alloc_order_2", 0 }, { "alloc_order_0", 1 }, { "alloc_fails", 1 },
	    { "fallback_alloc_failed", 1 }, { "oom", 0 } }, .movable = 64 },
	/* order 4 is costly: the fragmented guests' kernel does not compact for it */
	{ "buddyinfo: no compaction above order 3", "mcpage:4", "buddyinfo", { 32 },
	  { { B, B + 64 * K, 3 } }, { W(1, B) },
	  { { "alloc_order_4", 0 }, { "alloc_fails", 1 }, { "fallback_alloc_failed", 1 } },
	  .movable = 64 },
	/*
	 * 16 free pages (pfns 0, 2, .. 30), pool pfns 32..43. 32K compacts 32..39 (8 pages
	 * migrated); the next 32K would need 40..47, past the pool: it fails and 16K compacts
	 * 40..43 (4 more pages migrated, 4 free pages left).
	 */
	{ "buddyinfo: compaction per order, aligned, until the pool ends", "mthp:16K,32K",
	  "buddyinfo", { 16 }, { { B, B + 64 * K, 3 } }, { W(1, B), W(1, B + 32 * K) },
	  { { "faults", 2 }, { "alloc_order_3", 1 }, { "alloc_order_2", 1 }, { "alloc_fails", 1 },
	    { "fallback_alloc_failed", 1 }, { "final_rss_bytes", 48 * K } }, .movable = 12 },
	/* a compacted block is the model's like any other: freed, it merges back */
	{ "buddyinfo: a compacted block freed merges back for the next request", "mcpage:2",
	  "buddyinfo", { 8 }, { { B, B + 64 * K, 3 } },
	  { W(1, B), { 'D', 1, B, B + 16 * K, 0, 0 }, W(1, B) },
	  { { "alloc_order_2", 2 }, { "alloc_fails", 0 } }, .movable = 4 },
	/*
	 * +khugepaged (events 400us apart, a wake at 1ms, before the fourth): 3 of the 512
	 * pages of a 2M range present, 509 none. rss_byte_seconds: 1 + 0.6 + 0.2 ms of the
	 * three 4K pages, then 512 pages for 0.2 ms, 104.2e6 page-ns x 4096 / 1e9 = 426.8
	 */
	{ "khugepaged: 3 pages of a 2M range collapse under max_ptes_none=511",
	  "order0+khugepaged:scan_ms=1", NULL, { 0 }, { { B, B + 2 * M, 3 } },
	  { W(1, B), W(1, B + 4 * K), W(1, B + 8 * K), W(1, B) },
	  { { "faults", 3 }, { "collapses", 1 }, { "final_rss_bytes", 2 * M },
	    { "peak_rss_bytes", 2 * M }, { "bloat_bytes", 509 * 4 * K }, { "alloc_order_0", 3 },
	    { "rss_byte_seconds", 426 } }, .ns_step = 400000 },
	/* the same, 509 none > 0: no collapse; 1.2 + 0.8 + 0.4 ms x 4096 / 1e9 = 9.8 */
	{ "khugepaged: ... and not under max_ptes_none=0",
	  "order0+khugepaged:max_ptes_none=0,scan_ms=1", NULL, { 0 }, { { B, B + 2 * M, 3 } },
	  { W(1, B), W(1, B + 4 * K), W(1, B + 8 * K), W(1, B) },
	  { { "faults", 3 }, { "collapses", 0 }, { "final_rss_bytes", 12 * K },
	    { "bloat_bytes", 0 }, { "rss_byte_seconds", 9 } }, .ns_step = 400000 },
	/*
	 * +collapse (mTHP collapse). 16 reads map the zero page, 16 writes then take 4K pages
	 * (zero_wp): the 64K block B..B+64K holds 16 pages with memory, the rest of the 2M
	 * range none. Events 31250 ns apart: the wake at 1 ms comes before the 33rd, a read of
	 * a present page. mthp:64K's walk: orders 9..5 not enabled, (0, 64K): 16 occupied >=
	 * 16 - 0 (max_ptes_none 0 at an mTHP order) -> collapsed; the other 64K blocks hold 0
	 * < 16, and no enabled order below 64K: nothing else. RSS 16 pages out, 16 in.
	 */
	{ "collapse: a 64K block with 16 of 16 pages collapses to 64K under max_ptes_none=0",
	  "mthp:64K+collapse:max_ptes_none=0,scan_ms=1", NULL, { 0 }, { { B, B + 2 * M, 3 } },
	  { RD16(1, B), SEQ16(1), R(1, B) },
	  { { "faults", 32 }, { "zero_wp_faults", 16 }, { "alloc_order_0", 16 },
	    { "collapses", 1 }, { "collapse_order_4", 1 }, { "final_rss_bytes", 64 * K },
	    { "peak_rss_bytes", 64 * K }, { "bloat_bytes", 0 }, { "alloc_order_4", 0 } },
	  .ns_step = 31250 },
	/*
	 * The same 16 pages with 2M enabled too: the walk tries (0, 2M) first. Under 511 it
	 * needs 512 - 511 = 1 page: a 2M collapse, 496 pages never touched; under 0 all 512,
	 * so it goes down to (0, 64K), 16 >= 16 - 0, as above
	 */
	{ "collapse: with 2M enabled too, 16 pages collapse to 2M under 511",
	  "mthp:64K+collapse:scan_ms=1", NULL, { 0 }, { { B, B + 2 * M, 3 } },
	  { RD16(1, B), SEQ16(1), R(1, B) },
	  { { "collapses", 1 }, { "collapse_order_9", 1 }, { "collapse_order_4", 0 },
	    { "final_rss_bytes", 2 * M }, { "bloat_bytes", 496 * 4 * K }, { "pmd_maps", 0 } },
	  .ns_step = 31250, .orders = 1U << RP_PMD_ORDER },
	{ "collapse: ... and to 64K under 0",
	  "mthp:64K+collapse:max_ptes_none=0,scan_ms=1", NULL, { 0 }, { { B, B + 2 * M, 3 } },
	  { RD16(1, B), SEQ16(1), R(1, B) },
	  { { "collapses", 1 }, { "collapse_order_9", 0 }, { "collapse_order_4", 1 },
	    { "final_rss_bytes", 64 * K }, { "bloat_bytes", 0 } },
	  .ns_step = 31250, .orders = 1U << RP_PMD_ORDER },
	/* 15 of 16 (31 events 33334 ns apart: the wake before the 31st): 15 < 16 - 0 */
	{ "collapse: ... with 15 of 16 it does not under max_ptes_none=0",
	  "mthp:64K+collapse:max_ptes_none=0,scan_ms=1", NULL, { 0 }, { { B, B + 2 * M, 3 } },
	  { RD15(1, B), SEQ15(1), R(1, B) },
	  { { "faults", 30 }, { "collapses", 0 }, { "final_rss_bytes", 60 * K },
	    { "bloat_bytes", 0 } }, .ns_step = 33334 },
	/*
	 * ... but does under 511: an mTHP order then allows 2^4 - 1 = 15 none, 15 >= 16 - 15;
	 * the 16th page is zero-filled and never touched: 4K of bloat at the end
	 */
	{ "collapse: ... and does under max_ptes_none=511, the 16th page bloat",
	  "mthp:64K+collapse:scan_ms=1", NULL, { 0 }, { { B, B + 2 * M, 3 } },
	  { RD15(1, B), SEQ15(1), R(1, B) },
	  { { "faults", 30 }, { "collapses", 1 }, { "collapse_order_4", 1 },
	    { "final_rss_bytes", 64 * K }, { "bloat_bytes", 4 * K } }, .ns_step = 33334 },
	/*
	 * thp+collapse is thp+khugepaged (the PMD size alone): the read maps the huge zero
	 * page, three writes take 4K pages (zero_wp), the wake (1 ms, before the 5th event)
	 * sees 509 none or zero PTEs <= 511 and collapses the 2M range
	 */
	{ "collapse: thp+collapse collapses a 2M range as +khugepaged does",
	  "thp+collapse:scan_ms=1", NULL, { 0 }, { { B, B + 2 * M, 3 } },
	  { R(1, B), W(1, B), W(1, B + 4 * K), W(1, B + 8 * K), R(1, B) },
	  { { "faults", 4 }, { "huge_zero_maps", 1 }, { "zero_wp_faults", 3 },
	    { "collapses", 1 }, { "collapse_order_9", 1 }, { "final_rss_bytes", 2 * M },
	    { "bloat_bytes", 509 * 4 * K }, { "pmd_maps", 0 } }, .ns_step = 250000 },
	/* a 64K folio the fault mapped is not collapsed again (SCAN_PTE_MAPPED_HUGEPAGE) */
	{ "collapse: a 64K folio is left alone, nor split into 16K ones",
	  "mthp:16K,64K+collapse:scan_ms=1", NULL, { 0 }, { { B, B + 2 * M, 3 } },
	  { W(1, B), R(1, B) },
	  { { "faults", 1 }, { "alloc_order_4", 1 }, { "collapses", 0 },
	    { "final_rss_bytes", 64 * K } }, .ns_step = 1000000 },
	/*
	 * An allocation that fails tries the halves: 8 pages B..B+32K (8 reads, 8 zero_wp
	 * writes on the 8 free 4K pages), no free block of 32K, two of 16K: (0, 32K) fails
	 * (alloc_fails 1), (0, 16K) and (16K, 16K) collapse. 17 events, 62500 ns apart.
	 */
	{ "collapse: a failed 32K allocation collapses the two 16K halves", "mthp:16K,32K+collapse:"
	  "scan_ms=1", "buddyinfo", { 8, 0, 2 }, { { B, B + 2 * M, 3 } },
	  { RD8(1, B), SEQ8(1), R(1, B) },
	  { { "faults", 16 }, { "alloc_order_0", 8 }, { "alloc_fails", 1 }, { "collapses", 2 },
	    { "collapse_order_2", 2 }, { "collapse_order_3", 0 }, { "final_rss_bytes", 32 * K } },
	  .ns_step = 62500 },
	/*
	 * Fork. Process 1 maps pages 0..11 (12 reads, 12 zero_wp writes) and forks 2; 1 writes
	 * pages 1..7 (7 COW copies), 2 writes 8..11 (4 COW copies) and page 20, a first touch
	 * (a 32K fault, 16..23; its range's VMA for khugepaged). Then page 0 is shared by both,
	 * 1's 8..11 and 2's 1..7 are copy-on-write but no longer shared. The wake (before the
	 * 38th and last event, 27028 ns apart) scans 1 then 2, max_ptes_none 511 (one page
	 * suffices). 1: (0, 32K) fails on the shared page 0 (mTHP: max_ptes_shared 0), so does
	 * (0, 16K); (16K, 16K) collapses; (32K, 32K) has no writable page: the range stops
	 * (SCAN_PAGE_RO). 2: (0, 32K) and (0, 16K) fail on page 0, (16K, 16K) has no writable
	 * page: stop, so its 8..11, private and writable, are not collapsed (were they, 2
	 * collapses). One collapse, of 16K. RSS: 1 maps 12 pages, 2 maps 12 + 8: 32 pages.
	 */
	{ "collapse: a shared page fails its blocks, a block without a writable page stops",
	  "mthp:16K,32K+collapse:scan_ms=1", NULL, { 0 }, { { B, B + 2 * M, 3 } },
	  { RD8(1, B), R(1, B + 32 * K), R(1, B + 36 * K), R(1, B + 40 * K), R(1, B + 44 * K),
	    SEQ8(1), W(1, B + 32 * K), W(1, B + 36 * K), W(1, B + 40 * K), W(1, B + 44 * K),
	    { 'K', 2, 1, 0, 0, 0 }, W(1, B + 4 * K), W(1, B + 8 * K), W(1, B + 12 * K),
	    W(1, B + 16 * K), W(1, B + 20 * K), W(1, B + 24 * K), W(1, B + 28 * K),
	    W(2, B + 32 * K), W(2, B + 36 * K), W(2, B + 40 * K), W(2, B + 44 * K),
	    W(2, B + 80 * K), R(1, B) },
	  { { "faults", 25 }, { "cow_faults", 11 }, { "alloc_order_0", 23 },
	    { "alloc_order_3", 1 }, { "collapses", 1 }, { "collapse_order_2", 1 },
	    { "collapse_order_3", 0 }, { "final_rss_bytes", 32 * 4 * K } }, .ns_step = 27028 },
	/*
	 * +shrinker: a THP with 100 of 512 pages written, then a write in the next 2M range:
	 * 512 + 512 pages are over the 768 of limit:3M. The second THP's charge does not
	 * reclaim (GFP_TRANSHUGE_LIGHT), so it falls back (alloc_failed) although a split of
	 * the first (412 zero-filled > 409) would make room; its page table and 4K page fit
	 * (512 + the first's deposited table + 2 = 515 <= 768) and need no reclaim either:
	 * nothing split. The model before 6.12's check split the
	 * first and mapped the second (pmd_maps 2, splits 1).
	 */
	{ "shrinker: a THP's charge over the limit falls back to 4K, no split, under 409",
	  "thp+shrinker:max_ptes_none=409+limit:3M", NULL, { 0 }, { { B, B + 4 * M, 3 } },
	  { SEQ100(1, B), W(1, B + 2 * M) },
	  { { "faults", 2 }, { "pmd_maps", 1 }, { "splits", 0 }, { "split_freed_pages", 0 },
	    { "final_rss_bytes", 513 * 4 * K }, { "fallback_alloc_failed", 1 },
	    { "alloc_fails", 1 }, { "alloc_order_0", 1 }, { "oom", 0 } } },
	/*
	 * ... and a 4K charge's reclaim splits every underused THP on the list at once.
	 * limit:4112K is 1028 pages. THP 1 (B: 100 pages written) and THP 2 (B + 2M: 1
	 * written) are 1024 pages and their deposited page tables 2. The write at B + 4M: its
	 * THP's charge (1026 + 512) falls back (alloc_failed 1, alloc_fails 1), its page table
	 * (1027) and 4K page (1028) fit: RSS 1025 pages, the peak. The next write's 4K charge
	 * (1029) reclaims: the shrinker splits THP 1 (412 zero-filled > 409: 412 freed, which
	 * alone would make room) and THP 2 too (511 > 409: 511 freed): splits 2, 923 pages
	 * freed, every one untouched (bloat 923 pages); RSS 1025 - 923 + 4 = 106 pages (100 +
	 * 1 + 5 written). Faults: 1 + 1 + 5 (the other 99 writes of THP 1 find their page);
	 * alloc_order_0 5, alloc_order_9 2.
	 */
	{ "shrinker: a 4K charge's reclaim splits every underused THP on the list",
	  "thp+shrinker:max_ptes_none=409+limit:4112K", NULL, { 0 }, { { B, B + 6 * M, 3 } },
	  { SEQ100(1, B), W(1, B + 2 * M), W(1, B + 4 * M), W(1, B + 4 * M + 4 * K),
	    W(1, B + 4 * M + 8 * K), W(1, B + 4 * M + 12 * K), W(1, B + 4 * M + 16 * K) },
	  { { "faults", 7 }, { "pmd_maps", 2 }, { "splits", 2 }, { "split_freed_pages", 923 },
	    { "final_rss_bytes", 106 * 4 * K }, { "peak_rss_bytes", 1025 * 4 * K },
	    { "bloat_bytes", 923 * 4 * K }, { "fallback_alloc_failed", 1 },
	    { "alloc_fails", 1 }, { "alloc_order_0", 5 }, { "alloc_order_9", 2 },
	    { "oom", 0 } } },
	/* ... and not under 511 (thp_underused() is false): the 2M charge fails, 4K instead */
	{ "shrinker: ... and not under 511: the second THP's charge fails, 4K",
	  "thp+shrinker+limit:3M", NULL, { 0 }, { { B, B + 4 * M, 3 } },
	  { SEQ100(1, B), W(1, B + 2 * M) },
	  { { "faults", 2 }, { "pmd_maps", 1 }, { "splits", 0 }, { "split_freed_pages", 0 },
	    { "final_rss_bytes", 513 * 4 * K }, { "fallback_alloc_failed", 1 },
	    { "alloc_fails", 1 }, { "alloc_order_0", 1 } } },
	/* cold faults (replay.h, RP_COLD_GAP_NS 60 us): a touch every 20 us; a process's first
	 * fault is cold, the others follow their previous fault by 20 us (order0: hot), 80 us
	 * (16K: 4 touches per fault, all cold) or there is none (64K: the one fault) */
	{ "cold faults: a touch every 20 us, order0: only the first", "order0", NULL, { 0 },
	  { { B, B + 64 * K, 3 } }, { SEQ16(1) }, { { "faults", 16 }, { "cold_faults", 1 } },
	  0, 20000 },
	{ "cold faults: a touch every 20 us, mcpage:2: each fault 80 us after the last",
	  "mcpage:2", NULL, { 0 }, { { B, B + 64 * K, 3 } }, { SEQ16(1) },
	  { { "faults", 4 }, { "cold_faults", 4 } }, 0, 20000 },
	{ "cold faults: a touch every 20 us, mcpage:4: one fault, the first", "mcpage:4", NULL,
	  { 0 }, { { B, B + 64 * K, 3 } }, { SEQ16(1) }, { { "faults", 1 }, { "cold_faults", 1 } },
	  0, 20000 },
	/* two processes alternating every 30 us: each process's faults 60 us apart, all cold;
	 * a read (zero page) and a zero_wp are faults too */
	{ "cold faults: per process, 60 us apart when two alternate", "order0", NULL, { 0 },
	  { { B, B + 64 * K, 3 } },
	  { W(1, B), W(2, B), W(1, B + 4 * K), W(2, B + 4 * K), R(1, B + 8 * K),
	    { 'Z', 1, B + 8 * K, 0, 0, 0 } },
	  { { "faults", 6 }, { "cold_faults", 5 }, { "zero_wp_faults", 1 } }, 0, 30000 },
	/* the gap is the clock's: a touch every 15,000, mcpage:2's faults 60,000 apart are
	 * cold on TCG's clock (60 us) but not on icount's (80,000 instructions) */
	{ "cold faults: 60,000 apart on TCG's clock, cold", "mcpage:2", NULL, { 0 },
	  { { B, B + 64 * K, 3 } }, { SEQ16(1) }, { { "faults", 4 }, { "cold_faults", 4 } },
	  0, 15000, .clock = "tcg" },
	{ "cold faults: 60,000 apart on the icount clock, hot but the first", "mcpage:2", NULL,
	  { 0 }, { { B, B + 64 * K, 3 } }, { SEQ16(1) }, { { "faults", 4 }, { "cold_faults", 1 } },
	  0, 15000, .clock = "icount" },
	{ "cold faults: 80,000 apart on the icount clock, cold", "mcpage:2", NULL, { 0 },
	  { { B, B + 64 * K, 3 } }, { SEQ16(1) }, { { "faults", 4 }, { "cold_faults", 4 } },
	  0, 20000, .clock = "icount" },
	/*
	 * +limit alone: the range's page table and two 4K pages fill memory.max (3 pages);
	 * the third 4K page is over it (memcg OOM), mapped anyway
	 */
	{ "limit: a 4K page over the limit is oom, mapped anyway", "order0+limit:12K", NULL,
	  { 0 }, { { B, B + 64 * K, 3 } }, { W(1, B), W(1, B + 4 * K), W(1, B + 8 * K) },
	  { { "faults", 3 }, { "oom", 1 }, { "alloc_fails", 1 }, { "final_rss_bytes", 12 * K } } },
	/*
	 * page tables are charged, one per 2M range holding a page: under limit:16K (4 pages)
	 * the first two ranges' tables and pages fit; the third's table (5) and page (6) are
	 * both over (oom 2). Counting pages alone, all three would fit.
	 */
	{ "limit: one page table per 2M range is charged", "order0+limit:16K", NULL, { 0 },
	  { { B, B + 6 * M, 3 } }, { W(1, B), W(1, B + 2 * M), W(1, B + 4 * M) },
	  { { "faults", 3 }, { "oom", 2 }, { "alloc_fails", 2 }, { "final_rss_bytes", 12 * K } } },
	/*
	 * page tables (table_faults): the first fault into a 2M range allocates its table (B,
	 * B + 2M); MADV_DONTNEED keeps it (the write at B after it allocates none), a munmap
	 * that leaves the range empty frees it (the next write at B allocates one): 3 of 5
	 */
	{ "page tables: DONTNEED keeps a range's table, munmap frees it", "order0", NULL, { 0 },
	  { { B, B + 4 * M, 3 } },
	  { W(1, B), W(1, B + 4 * K), W(1, B + 2 * M), { 'D', 1, B, B + 8 * K, 0, 0 }, W(1, B),
	    { 'U', 1, B, B + 8 * K, 0, 0 }, W(1, B) },
	  { { "faults", 5 }, { "table_faults", 3 }, { "final_rss_bytes", 8 * K } } },
	/*
	 * ... a THP zapped whole by MADV_DONTNEED takes its deposited table (zap_huge_pmd()):
	 * the THP faulted again allocates one; a fork gives the child a table wherever the
	 * parent has one, so only the child's fault in a new range allocates: 3 of 3
	 */
	{ "page tables: a THP zapped whole frees its table, fork copies them", "thp", NULL, { 0 },
	  { { B, B + 4 * M, 3 } },
	  { W(1, B), { 'D', 1, B, B + 2 * M, 0, 0 }, W(1, B), { 'K', 2, 1, 0, 0, 0 },
	    W(2, B + 2 * M) },
	  { { "faults", 3 }, { "table_faults", 3 }, { "pmd_maps", 3 } } },
	/*
	 * a THP's deposited table is charged after the THP (__do_huge_pmd_anonymous_page()):
	 * under limit:2M its 512 pages fit and the table is over (oom 1), where a table
	 * charged first would have made the THP fall back
	 */
	{ "limit: a THP's deposited table is charged after it", "thp+limit:2M", NULL, { 0 },
	  { { B, B + 4 * M, 3 } }, { W(1, B) },
	  { { "pmd_maps", 1 }, { "oom", 1 }, { "alloc_fails", 1 },
	    { "fallback_alloc_failed", 0 }, { "final_rss_bytes", 2 * M } } },
};

static void build(const struct tcase *c, struct rp_stream *s)
{
	const struct step *st;
	unsigned int i;

	memset(s, 0, sizeof(*s));
	for (i = 0; i < 3 && c->vmas[i].end; i++)
		rp_stream_add_vma(s, c->vmas[i].start, c->vmas[i].end, c->vmas[i].flags);
	for (st = c->steps; st->op; st++) {
		struct ftdb_event e = step_event(st);

		rp_stream_add(s, &e);
	}
}

int main(void)
{
	size_t i, j, n = sizeof(cases) / sizeof(cases[0]);

	plan((int)n * 2);
	for (i = 0; i < n; i++) {
		const struct tcase *c = &cases[i];
		struct rp_stream s;
		struct rp_trace t;
		struct rp_policy p;
		enum rp_frag_kind frag = RP_FRAG_NONE;
		struct rp_sim *sim;
		struct rp_oracle *o;
		const struct want *w;
		int good = 1, same;

		build(c, &s);
		for (j = 0; c->ns_step && j < s.nr; j++)
			s.ev[j].ts = j * c->ns_step;
		rp_stream_trace(&s, &t);
		memcpy(t.free_blocks, c->blocks, sizeof(t.free_blocks));
		t.movable_pages = c->movable;
		t.cold_gap = rp_cold_gap(c->clock);
		if (rp_policy_parse(c->policy, &p) || (c->frag && rp_frag_parse(c->frag, &frag))) {
			diag("%s", error_text());
			error_clear();
			ok(0, "%s", c->name);
			ok(0, "%s: oracle", c->name);
			continue;
		}
		p.mech.collapse_orders |= (uint16_t)c->orders;
		steps_replay(&p, frag, &t, s.ev, s.nr, &sim, &o);
		for (w = c->want; w->metric; w++) {
			int m = rp_metric_lookup(w->metric);
			uint64_t got = m >= 0 ? rp_sim_total(sim)->v[m] : ~0ULL;

			if (got != w->value) {
				diag("  %s: %s = %llu, want %llu", c->policy, w->metric,
				     (unsigned long long)got, (unsigned long long)w->value);
				good = 0;
			}
		}
		ok(good, "%s", c->name);
		same = !memcmp(rp_sim_total(sim), rp_oracle_total(o), sizeof(struct rp_counters));
		if (!same) {
			unsigned int m;

			for (m = 0; m < RP_NR_METRICS; m++)
				if (rp_sim_total(sim)->v[m] != rp_oracle_total(o)->v[m])
					diag("  %s: sim %llu oracle %llu", rp_metric_name(m),
					     (unsigned long long)rp_sim_total(sim)->v[m],
					     (unsigned long long)rp_oracle_total(o)->v[m]);
		}
		ok(same, "%s: oracle agrees", c->name);
		rp_sim_free(sim);
		rp_oracle_free(o);
		rp_stream_release(&s);
	}
	return done_testing();
}
