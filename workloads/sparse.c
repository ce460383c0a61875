// SPDX-License-Identifier: GPL-2.0
/*
 * sparse - random single-page writes scattered over a large 2M-aligned VMA: the bloat case.
 *
 * Every write lands on a distinct page chosen by a seeded PRNG, so under order 0 each is
 * one 4K fault, while a policy that maps a 2^N-page block per fault maps (and zeroes) up to
 * 2^N - 1 pages that are never touched. The page list is drawn and stored before the
 * measured phase, which then does nothing but the writes. The same seed gives the same
 * pages in the same order on every run and architecture (with the same page size).
 */
#include "wl-common.h"

#include <getopt.h>

static const char usage[] =
	"[--size S (default 256M)] [--touches N (default 4096)] [--seed X (default 1)]";

/* The measured phase: one byte per listed page, in list order. */
static __attribute__((noinline)) void touch(volatile unsigned char *p, const uint32_t *pages,
					    uint64_t n, size_t page)
{
	uint64_t i;

	for (i = 0; i < n; i++) {
		p[(size_t)pages[i] * page] = (unsigned char)(pages[i] | 1);
	}
}

/*
 * Return: how many distinct naturally aligned @block-byte blocks the first @n listed pages
 * (of a VMA of @npages pages) fall in: the number of faults a policy that maps whole
 * blocks of that size would take.
 */
static uint64_t distinct_blocks(const uint32_t *pages, uint64_t n, uint64_t npages,
				size_t page, size_t block)
{
	size_t per = block > page ? block / page : 1; /* pages per block */
	unsigned char *seen = calloc(npages / per + 1, 1);
	uint64_t i, count = 0;

	if (!seen) {
		wl_die("cannot allocate a block map: %s", strerror(errno));
	}
	for (i = 0; i < n; i++) {
		count += !seen[pages[i] / per];
		seen[pages[i] / per] = 1;
	}
	free(seen);
	return count;
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "size", required_argument, NULL, 's' },
		{ "touches", required_argument, NULL, 't' },
		{ "seed", required_argument, NULL, 'S' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	size_t page = wl_page_size();
	uint64_t size = 256 << 20, touches = 4096, seed = 1, npages, rng, i;
	uint64_t in_64k, in_2m;
	struct wl_faults before, delta;
	volatile unsigned char *p;
	uint32_t *perm;
	int c, status = 0;

	wl_prog = "sparse";
	while ((c = wl_getopt(argc, argv, opts, usage, 0)) != -1) {
		switch (c) {
		case 's':
			size = wl_opt_size("--size", optarg);
			break;
		case 't':
			touches = wl_opt_u64("--touches", optarg);
			break;
		case 'S':
			seed = wl_opt_u64("--seed", optarg);
			break;
		}
	}
	npages = size / page;
	if (size % page || npages > UINT32_MAX) {
		wl_error("--size must be a multiple of the page size (%zu bytes), below 16T", page);
		exit(2);
	}
	if (touches > npages) {
		wl_error("--touches %" PRIu64 " exceeds the %" PRIu64 " pages of --size", touches,
			 npages);
		exit(2);
	}

	/* Distinct pages in random order: the first @touches steps of a Fisher-Yates
	 * shuffle of all page indexes (4 bytes per page of the VMA, heap or mmap). */
	perm = malloc(npages * sizeof(*perm));
	if (!perm) {
		wl_die("cannot allocate the page list: %s", strerror(errno));
	}
	for (i = 0; i < npages; i++) {
		perm[i] = (uint32_t)i;
	}
	rng = seed;
	for (i = 0; i < touches; i++) {
		uint64_t j = i + wl_rand_below(&rng, npages - i);
		uint32_t t = perm[i];

		perm[i] = perm[j];
		perm[j] = t;
	}

	in_64k = distinct_blocks(perm, touches, npages, page, 64 << 10);
	in_2m = distinct_blocks(perm, touches, npages, page, WL_2M);

	/* The VMA is mapped after the list so the list's own mapping is already there and
	 * cannot end up next to it. */
	p = wl_map_aligned(size);
	if (!p) {
		wl_die("cannot map %" PRIu64 " bytes: %s", size, strerror(errno));
	}
	touch(p, perm, 0, page);
	wl_faults_warmup();
	before = wl_faults_now();
	touch(p, perm, touches, page);
	delta = wl_faults_since(before);

	/* Read back: no new fault, every listed page is mapped. */
	for (i = 0; i < touches; i++) {
		size_t off = (size_t)perm[i] * page;

		if (p[off] != (unsigned char)(perm[i] | 1)) {
			status = wl_error("page %" PRIu32 " lost its write", perm[i]);
			break;
		}
	}
	if (wl_result("size=%" PRIu64 " touches=%" PRIu64 " seed=%" PRIu64 " touched=%" PRIu64
		      " distinct_64k=%" PRIu64 " distinct_2m=%" PRIu64
		      " minflt=%ld majflt=%ld addr=%p status=%d",
		      size, touches, seed, touches, in_64k, in_2m, delta.minflt, delta.majflt,
		      (void *)p, status ? 1 : 0)) {
		exit(1);
	}
	return status ? 1 : 0;
}
