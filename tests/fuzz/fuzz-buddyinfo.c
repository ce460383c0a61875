// SPDX-License-Identifier: GPL-2.0
/*
 * fuzz-buddyinfo.c - libFuzzer harness for the recorded /proc/buddyinfo
 * (header/buddyinfo.before, rp_buddyinfo_parse) and the buddy model it seeds
 * (rp_alloc_init). A seed that parses holds no more free pages than the recorded memory,
 * the model built from it has exactly the parsed free blocks, and every block can be taken
 * and given back. Built and run by tests/fuzz/run.sh.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "lib/error.h"
#include "replay/frag.h"
#include "replay/replay.h"

/* the recorded memory: 1 GiB of 4K pages, so a seed's bitmaps stay small */
#define MAX_PAGES	(1ULL << 18)

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	uint64_t free_blocks[RP_MAX_ORDER + 1], pages = 0, pfn;
	struct rp_alloc a;
	char *text = malloc(size + 1);
	int k;

	memcpy(text, data, size);
	text[size] = '\0';
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
	if (rp_alloc_init(&a, RP_FRAG_BUDDYINFO, free_blocks))
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
