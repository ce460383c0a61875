// SPDX-License-Identifier: GPL-2.0
/*
 * fuzz-buddyinfo.c - libFuzzer harness for the recorded /proc/buddyinfo
 * (header/buddyinfo.before, rp_buddyinfo_parse) and the buddy model it seeds
 * (rp_alloc_init). A seed that parses holds no more free pages than the recorded memory,
 * the model built from it has exactly the parsed free blocks, and every block can be taken
 * and given back. The same text is read as header/vmstat.before (rp_vmstat_movable): LRU
 * pages that parse are no more than the recorded memory, and the compaction pool they
 * make gives exactly min(pool / 4, free / 4) 16K blocks, aligned, inside the model.
 * Built and run by tests/fuzz/run.sh.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "lib/error.h"
#include "replay/frag.h"
#include "replay/replay.h"
#include "tests/fuzz/fuzz.h"

/* the recorded memory: 1 GiB of 4K pages, so a seed's bitmaps stay small */
#define MAX_PAGES	(1ULL << 18)

/* text as vmstat.before: the pool beside 64 free 4K pages */
static void pool(const char *text)
{
	static const uint64_t seed[RP_MAX_ORDER + 1] = { 64 };
	uint64_t movable, pfn, got = 0;
	struct rp_alloc a;

	if (rp_vmstat_movable(text, MAX_PAGES, &movable)) {
		error_clear();
		return;
	}
	if (movable > MAX_PAGES)
		abort();	/* the parser's bound */
	if (rp_alloc_init(&a, RP_FRAG_BUDDYINFO, seed, movable))
		abort();
	while (!rp_alloc_buddy_get(&a, 2, &pfn)) {
		if (pfn & 3 || pfn < 128 || pfn + 4 > a.nr_pfns)
			abort();	/* aligned, in the pool above the seed's 128 pfns */
		got++;
	}
	/* each compaction moves 4 pages into 4 of the 64 free ones; the pool starts aligned */
	if (got != (movable / 4 < 16 ? movable / 4 : 16))
		abort();
	rp_alloc_release(&a);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	uint64_t free_blocks[RP_MAX_ORDER + 1], pages = 0, pfn;
	struct rp_alloc a;
	char *text = fuzz_text(data, size);
	int k;

	pool(text);
	if (rp_buddyinfo_parse(text, MAX_PAGES, free_blocks)) {
		error_clear();
		free(text);
		return 0;
	}
	free(text);
	for (k = 0; k <= RP_MAX_ORDER; k++)
		pages += free_blocks[k] << k;
	if (pages > MAX_PAGES)
		abort();	/* the parser's bound */
	if (rp_alloc_init(&a, RP_FRAG_BUDDYINFO, free_blocks, 0))
		abort();	/* a parsed seed always builds a model */
	for (k = 0; k <= RP_MAX_ORDER; k++)
		if (a.nr_free[k] != free_blocks[k])
			abort();
	for (k = RP_MAX_ORDER; k >= 0; k--) {
		if (free_blocks[k] && rp_alloc_buddy_get(&a, (unsigned int)k, &pfn))
			abort();	/* a free block of that order exists */
		if (free_blocks[k]) {
			if (pfn & ((1ULL << k) - 1) || pfn >= a.nr_pfns)
				abort();	/* aligned, inside the model */
			rp_alloc_buddy_put(&a, pfn);
		}
	}
	rp_alloc_release(&a);
	return 0;
}
